//! The groups of threads a kernel names, as typed handles: the block
//! ([`ThreadBlock`]), its tiles
//! ([`TiledPartition`]), groups known at run time
//! ([`CoalescedGroup`]), the grid
//! ([`Grid`], [`CooperativeGrid`]) and
//! the cluster ([`Cluster`]); what every group shares
//! ([`ThreadGroup`], [`SyncGroup`]);
//! and the values their warp instructions move between lanes
//! ([`Shuffle`], [`MatchKey`]).
//!
//! Each handle's own methods (barriers, shuffles, votes, matches) lower to
//! one instruction of the backend each; reductions and scans over a group
//! are in [`collectives`](crate::collectives). Every item is also at the
//! crate root (`coop::ThreadBlock`), where kernels usually name it.
//!
//! ```
//! use coop::groups::{ThreadBlock, TiledPartition};
//! use coop::prelude::*;
//!
//! #[kernel]
//! pub fn lane_ids(block: ThreadBlock, out: Out<u32>) {
//!     let tile: TiledPartition<8> = block.tiled_partition::<8>();
//!     out.write(block.thread_rank() as usize, tile.thread_rank());
//! }
//!
//! let mut out = vec![0u32; 16];
//! coop_host::Cpu::new().launch(lane_ids, coop_host::LaunchConfig::new(1, 16), (&mut out,))?;
//! assert_eq!(out[..9], [0, 1, 2, 3, 4, 5, 6, 7, 0]);
//! # Ok::<(), coop_host::Error>(())
//! ```

pub(crate) mod cluster;
pub(crate) mod coalesced;
pub(crate) mod cooperative_grid;
pub(crate) mod grid;
pub(crate) mod match_key;
pub(crate) mod ragged;
pub(crate) mod scratch;
pub(crate) mod shuffle;
pub mod split_barrier;
pub(crate) mod thread_block;
pub(crate) mod thread_group;
pub(crate) mod tile;

pub use cluster::{Cluster, this_cluster};
pub use coalesced::{CoalescedGroup, coalesced_threads};
pub use cooperative_grid::{CooperativeGrid, NeedsCooperativeKernel};
pub use grid::{Grid, this_grid};
pub use match_key::MatchKey;
pub use ragged::RaggedTile;
pub use shuffle::Shuffle;
pub use split_barrier::ArrivalToken;
pub use thread_block::{ThreadBlock, WarpOnly, this_thread_block};
pub use thread_group::{SyncGroup, ThreadGroup};
pub use tile::{
    AnyTileSize, MultiWarpTileSize, SubTileOf, TileSize, TiledPartition, ValidTileSize,
};
