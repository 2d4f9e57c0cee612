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
    /// with `atom.release.gpu.global.add` and polls it with `ld.relaxed.gpu.global` until
    /// its top bit flips, loads it once with `ld.acquire.gpu.global`, then the
    /// block barrier again. Precondition: every
    /// thread of every block arrives, and every block is resident (which
    /// the cooperative launch checks). CPU: completes when every thread of
    /// every block waits at the same grid sync; a block that returned or
    /// waits at another is reported with its threads and `site`.
    fn sync_grid(site: Site);
    /// Every thread of the calling block's cluster waits here; writes made
    /// before by any of them become visible to all. PTX (sm_90 and later):
    /// `barrier.cluster.arrive` then `barrier.cluster.wait` (non-aligned;
    /// release and acquire at cluster scope); before sm_90, where every
    /// block is its own cluster, the block barrier. Precondition: every
    /// thread of every block of the cluster arrives. CPU: completes when
    /// every thread of every block of the cluster waits at the same call;
    /// a block that returned or waits elsewhere is reported.
    fn sync_cluster(site: Site);
    /// The calling thread arrives at its block's split barrier: its writes
    /// before are released to the threads that wait for this phase.
    /// PTX: nothing (the wait is the block barrier). Precondition: the
    /// thread has waited for its previous arrival. CPU: records the
    /// arrival; the last one completes the phase. A second arrival without
    /// a wait is reported.
    fn arrive_block(site: Site);
    /// The calling thread waits for the phase of the block's split barrier
    /// it arrived at. PTX: `barrier.sync 0`. Precondition: the thread
    /// arrived. CPU: completes once every thread
    /// of the block has arrived; accesses between the thread's arrive and
    /// its wait are ordered with no other thread's on either side of the
    /// phase.
    fn wait_block(site: Site);
    /// The calling thread arrives at its cluster's split barrier. PTX
    /// (sm_90): `barrier.cluster.arrive.release`; before sm_90, where the
    /// block is its own cluster, the block's split barrier. CPU: checks
    /// the arrival; the barrier completes at the wait.
    fn arrive_cluster(site: Site);
    /// The calling thread waits at its cluster's split barrier. PTX
    /// (sm_90): `barrier.cluster.wait.acquire`; before sm_90, the block's.
    /// CPU: the cluster's barrier, completed when every thread of every
    /// block of the cluster waits.
    fn wait_cluster(site: Site);
    /// The calling thread arrives at the grid's split barrier (a
    /// cooperative launch's). PTX: the block barrier, then thread 0 adds
    /// the block's arrival to the driver's grid barrier word
    /// (`atom.release.gpu.global.add`, as [`sync_grid`](Self::sync_grid)) and
    /// returns the word as it found it (0 in the other threads), which the
    /// wait needs. CPU: checks the arrival; the barrier completes at the
    /// wait.
    fn arrive_grid(site: Site) -> u32;
    /// The calling thread waits at the grid's split barrier, with what its
    /// [`arrive_grid`](Self::arrive_grid) returned. PTX: thread 0 polls the
    /// grid barrier word (`ld.relaxed.gpu.global`) until its top bit differs from
    /// `arrival`'s, loads it once with `ld.acquire.gpu.global`, then the block
    /// barrier. CPU: the grid sync.
    fn wait_grid(arrival: u32, site: Site);
    /// The threads of `mask` (the calling tile) wait for each other.
    /// PTX: `bar.warp.sync mask`. Precondition: the calling lane is in
    /// `mask`, and every lane of `mask` arrives. CPU: completes when every
    /// lane of the mask has arrived.
    fn sync_warp(mask: u32, site: Site);
    /// The threads of a multi-warp tile (`warps` whole warps, 64 to 1024
    /// threads) wait for each other: tile number `tile` among the block's
    /// tiles of size `64 << size_index`. PTX: a hardware barrier of the
    /// tile's own, `barrier.sync id, threads` (non-aligned), where the
    /// block has one free for it (every tile of a block of up to 512
    /// threads); otherwise a barrier in shared memory: `bar.warp.sync` for
    /// the caller's warp, lane 0 arrives at the tile's counter
    /// (`atom.shared.acq_rel.cta.add`), the last warp to arrive resets the
    /// counter and releases the tile's generation word
    /// (`st.release.cta.shared`), the others poll it (`ld.acquire.cta`),
    /// `bar.warp.sync` again. Precondition: the tile's barrier was reset
    /// when the tile was made, and every thread of the tile arrives. CPU:
    /// completes when every thread of the tile has arrived; a thread that
    /// waits elsewhere or returned is reported.
    fn sync_tile(size_index: u32, tile: u32, warps: u32, site: Site);
    /// [`sync_tile`](Self::sync_tile) for the collective `call`, whose
    /// argument `value` must be the same in every thread of the tile. PTX:
    /// the same barrier. CPU: the barrier, and a report naming the values
    /// when they differ.
    fn sync_tile_uniform(
        size_index: u32,
        tile: u32,
        warps: u32,
        call: &'static str,
        value: u32,
        site: Site,
    );
    /// The first thread of a new multi-warp tile resets the tile's barrier
    /// (before the parent's barrier that every thread of the tile passes
    /// before using it). PTX: two `st.shared.u32` of 0. CPU: nothing.
    fn reset_tile_barrier(size_index: u32, tile: u32, site: Site);
    /// A tile of `size` threads is carved from a group of `parent_size`.
    /// PTX: nothing. CPU: reports a tile that would not be whole (the
    /// parent is not a multiple of `size`), which the GPU leaves undefined.
    fn tile_created(size: u32, parent_size: u32, site: Site);
}
