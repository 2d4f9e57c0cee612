//! What every group of threads shares: [`ThreadGroup`] (its size and each
//! thread's rank in it) and [`SyncGroup`] (a barrier for its threads).
//!
//! The groups, from the largest:
//!
//! ```text
//!  CooperativeGrid       every thread of a cooperative   ThreadGroup + SyncGroup  (grid barrier)
//!                        launch (#[kernel(cooperative)])
//!  Grid                  every thread of the launch      ThreadGroup
//!   └─ Cluster           the blocks of one cluster       ThreadGroup + SyncGroup  (barrier.cluster)
//!                        (sm_90; one block without clusters)
//!   └─ ThreadBlock       the threads of one block        ThreadGroup + SyncGroup  (barrier.sync)
//!       └─ TiledPartition<N>  N threads: one warp's      ThreadGroup + SyncGroup  (bar.warp.sync)
//!           │                 (N = 1 ... 32)             + warp collectives
//!           │                 or whole warps (64 ... 1024) (barrier in shared memory)
//!           └─ CoalescedGroup  lanes of a warp known at   ThreadGroup + SyncGroup  (bar.warp.sync)
//!                             run time: coalesced_threads(), a tile's
//!                             binary_partition / labeled_partition
//!       └─ RaggedTile<N>      N threads (1 ... 32), the  ThreadGroup + SyncGroup  (bar.warp.sync)
//!                             block's last tile the rest + warp collectives over its lanes
//! ```
//!
//! Every handle is a zero-sized token or a few registers; the methods cost
//! the special-register reads or the one instruction they name. A `Grid`
//! has no `sync`: waiting for every block needs a cooperative launch, whose
//! kernels take a [`CooperativeGrid`](crate::CooperativeGrid).
//! Reductions and scans run over any [`Group`](crate::Group) (a tile or a
//! block).
//!
//! ```
//! use coop::prelude::*;
//! use coop::{SyncGroup, ThreadGroup};
//!
//! /// The same code for a tile and a block: every thread writes its rank
//! /// in `group` after the group's barrier.
//! fn ranks<G: SyncGroup>(group: &G) -> u32 {
//!     group.sync();
//!     group.thread_rank() as u32
//! }
//!
//! #[kernel]
//! pub fn both(block: ThreadBlock, out: Out<u32>) {
//!     let r = block.thread_rank() as usize;
//!     let tile = block.tiled_partition::<8>();
//!     out.write(2 * r, ranks(&block));
//!     out.write(2 * r + 1, ranks(&tile));
//! }
//!
//! let mut out = vec![0u32; 64];
//! coop_host::Cpu::new().launch(both, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
//! assert_eq!(&out[18..20], &[9, 1]); // thread 9: rank 9 in the block, 1 in its tile of 8
//! # Ok::<(), coop_host::Error>(())
//! ```

use crate::{
    AnyTileSize, CoalescedGroup, CooperativeGrid, Grid, ThreadBlock, TileSize, TiledPartition,
};

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::Grid {}
    impl Sealed for crate::CooperativeGrid {}
    impl Sealed for crate::CoalescedGroup {}
    impl Sealed for crate::Cluster {}
    impl Sealed for crate::ThreadBlock {}
    impl<const N: u32> Sealed for crate::TiledPartition<N> where crate::TileSize<N>: crate::AnyTileSize {}
    impl<const N: u32> Sealed for crate::RaggedTile<N> where crate::TileSize<N>: crate::ValidTileSize {}
}

/// A group of threads: its size, and the calling thread's rank in it
/// (CUDA's `thread_group::size()` and `thread_rank()`).
///
/// Ranks and sizes are `u64` here, for every group; the handles' own
/// methods give them as `u32` for a block or tile and `usize` for the grid.
pub trait ThreadGroup: sealed::Sealed {
    /// Threads in the group.
    #[doc(alias = "size")]
    fn num_threads(&self) -> u64;
    /// The calling thread's rank in the group, from 0.
    fn thread_rank(&self) -> u64;
}

/// A group whose threads can wait for each other (CUDA's
/// `thread_group::sync()`).
pub trait SyncGroup: ThreadGroup {
    /// Every thread of the group waits until all have arrived; writes made
    /// before become visible to the group. Every thread of the group must
    /// reach the same call (see each handle's `sync`).
    fn sync(&self);
}

impl ThreadGroup for Grid {
    #[inline(always)]
    #[track_caller]
    fn num_threads(&self) -> u64 {
        Grid::num_threads(self) as u64
    }
    #[inline(always)]
    #[track_caller]
    fn thread_rank(&self) -> u64 {
        Grid::thread_rank(self) as u64
    }
}

impl ThreadGroup for CooperativeGrid {
    #[inline(always)]
    #[track_caller]
    fn num_threads(&self) -> u64 {
        CooperativeGrid::num_threads(self) as u64
    }
    #[inline(always)]
    #[track_caller]
    fn thread_rank(&self) -> u64 {
        CooperativeGrid::thread_rank(self) as u64
    }
}

impl SyncGroup for CooperativeGrid {
    #[inline(always)]
    #[track_caller]
    fn sync(&self) {
        CooperativeGrid::sync(self)
    }
}

impl ThreadGroup for crate::Cluster {
    #[inline(always)]
    #[track_caller]
    fn num_threads(&self) -> u64 {
        crate::Cluster::num_threads(self) as u64
    }
    #[inline(always)]
    #[track_caller]
    fn thread_rank(&self) -> u64 {
        crate::Cluster::thread_rank(self) as u64
    }
}

impl SyncGroup for crate::Cluster {
    #[inline(always)]
    #[track_caller]
    fn sync(&self) {
        crate::Cluster::sync(self)
    }
}

impl ThreadGroup for CoalescedGroup {
    #[inline(always)]
    fn num_threads(&self) -> u64 {
        CoalescedGroup::num_threads(self) as u64
    }
    #[inline(always)]
    fn thread_rank(&self) -> u64 {
        CoalescedGroup::thread_rank(self) as u64
    }
}

impl SyncGroup for CoalescedGroup {
    #[inline(always)]
    #[track_caller]
    fn sync(&self) {
        CoalescedGroup::sync(self)
    }
}

impl ThreadGroup for ThreadBlock {
    #[inline(always)]
    #[track_caller]
    fn num_threads(&self) -> u64 {
        ThreadBlock::num_threads(self) as u64
    }
    #[inline(always)]
    #[track_caller]
    fn thread_rank(&self) -> u64 {
        ThreadBlock::thread_rank(self) as u64
    }
}

impl SyncGroup for ThreadBlock {
    #[inline(always)]
    #[track_caller]
    fn sync(&self) {
        ThreadBlock::sync(self)
    }
}

impl<const N: u32> ThreadGroup for TiledPartition<N>
where
    TileSize<N>: AnyTileSize,
{
    #[inline(always)]
    #[track_caller]
    fn num_threads(&self) -> u64 {
        TiledPartition::num_threads(self) as u64
    }
    #[inline(always)]
    #[track_caller]
    fn thread_rank(&self) -> u64 {
        TiledPartition::thread_rank(self) as u64
    }
}

impl<const N: u32> SyncGroup for TiledPartition<N>
where
    TileSize<N>: AnyTileSize,
{
    #[inline(always)]
    #[track_caller]
    fn sync(&self) {
        TiledPartition::sync(self)
    }
}

impl<const N: u32> ThreadGroup for crate::RaggedTile<N>
where
    TileSize<N>: crate::ValidTileSize,
{
    #[inline(always)]
    fn num_threads(&self) -> u64 {
        crate::RaggedTile::num_threads(self) as u64
    }
    #[inline(always)]
    fn thread_rank(&self) -> u64 {
        crate::RaggedTile::thread_rank(self) as u64
    }
}

impl<const N: u32> SyncGroup for crate::RaggedTile<N>
where
    TileSize<N>: crate::ValidTileSize,
{
    #[inline(always)]
    #[track_caller]
    fn sync(&self) {
        crate::RaggedTile::sync(self)
    }
}
