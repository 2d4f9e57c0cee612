//! `use coop::prelude::*;` brings in everything a kernel usually needs.
//!
//! ```
//! use coop::prelude::*;
//!
//! #[kernel]
//! pub fn lane_zero_of_each_warp(block: ThreadBlock, out: Out<u32>) {
//!     let warp = block.tiled_partition::<32>();
//!     if warp.thread_rank() == 0 {
//!         out.write(warp.meta_group_rank() as usize, this_grid().thread_rank() as u32);
//!     }
//! }
//!
//! let mut out = vec![0u32; 4];
//! coop_host::Cpu::new().launch(lane_zero_of_each_warp, coop_host::LaunchConfig::new(1, 128), (&mut out,))?;
//! assert_eq!(out, [0, 32, 64, 96]);
//! # Ok::<(), coop_host::Error>(())
//! ```

pub use crate::math::Math;
pub use crate::memory::pipeline::Pipeline;
pub use crate::memory::shared::{
    Atomics, ByRank, ColumnMajor, Owned, Published, RowMajor, Shared, TileLeaders,
};
pub use crate::{
    Cluster, CoalescedGroup, CooperativeGrid, DeviceCopy, Dim3, Grid, InOut, MatchKey, Out,
    RaggedTile, Shuffle, ThreadBlock, TiledPartition, coalesced_threads, exclusive_scan,
    exclusive_scan_update, inclusive_scan, inclusive_scan_update, kernel, op, reduce,
    reduce_store_async, reduce_update_async, this_cluster, this_grid, this_thread,
    this_thread_block,
};
