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
