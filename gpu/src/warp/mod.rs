//! Warp-level building blocks: a warp tile's items (`ITEMS` to a member
//! of a [`TiledPartition`](crate::TiledPartition) of 1 to 32 threads)
//! rearranged by the tile alone, in registers and shuffles (CUB's
//! `cub/warp/`). Reductions and scans over a tile are in
//! [`collectives`](crate::collectives); a whole block's tile is in
//! [`block`](crate::block).
//!
//! | call | what it does | CUB |
//! |---|---|---|
//! | [`sort`], [`sort_pairs`] | the tile's striped items (or their first `valid`) sorted stably by any order | `WarpMergeSort::StableSort` |
//!
//! Every member of the tile makes the call, with the same `valid`; no
//! shared memory and no barrier take part, so tiles of a block sort at
//! once without waiting for each other.

mod sort;

pub use sort::{sort, sort_pairs};
