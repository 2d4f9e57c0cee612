//! Barriers: the block's and a tile's.

use super::Site;

/// Waiting for the other threads of a group.
pub(crate) trait Barriers {
    /// Every thread of the block waits here; their earlier writes become
    /// visible to the block.
    /// PTX: `barrier.sync 0` (non-aligned: threads of one warp may arrive at
    /// different copies of the instruction, so it stays correct when the
    /// compiler duplicates it). Precondition: every non-exited thread of
    /// the block arrives once. CPU: completes when every thread of the
    /// block has arrived; a thread that exits or waits at another kind of
    /// collective instead is reported by name: `call`, the handle method
    /// the barrier belongs to (`"ThreadBlock::sync"`, `"reduce"`,
    /// `"publish"`, ...), which the PTX backend ignores.
    fn sync_block(call: &'static str, site: Site);
    /// Every thread of the grid waits here; writes made before by any
    /// thread become visible to every thread. Only reachable in a
    /// cooperative launch (a `CooperativeGrid` exists only in a
    /// `#[kernel(cooperative)]`). PTX: the block barrier, then thread 0 of
    /// each block arrives at the driver's grid barrier word (the launch's
    /// workspace, whose address the driver leaves in `%envreg1`:`%envreg2`)
    /// with `atom.add.release.gpu` and polls it with `ld.acquire.gpu` until
    /// its top bit flips, then the block barrier again. Precondition: every
    /// thread of every block arrives, and every block is resident (which
    /// the cooperative launch checks). CPU: completes when every thread of
    /// every block waits at the same grid sync; a block that returned or
    /// waits at another is reported with its threads and `site`.
    fn sync_grid(site: Site);
    /// The threads of `mask` (the calling tile) wait for each other.
    /// PTX: `bar.warp.sync mask`. Precondition: the calling lane is in
    /// `mask`, and every lane of `mask` arrives. CPU: completes when every
    /// lane of the mask has arrived.
    fn sync_warp(mask: u32, site: Site);
    /// A tile of `size` threads is carved from a group of `parent_size`.
    /// PTX: nothing. CPU: reports a tile that would not be whole (the
    /// parent is not a multiple of `size`), which the GPU leaves undefined.
    fn tile_created(size: u32, parent_size: u32, site: Site);
}
