//! Reductions and scans over a group: every thread contributes a value and
//! gets the result, as cooperative groups' `reduce`, `inclusive_scan` and
//! `exclusive_scan` do.
//!
//! | group | how |
//! |---|---|
//! | `TiledPartition<N>` | 32-bit integer sum, min, max, and, or, xor on 16- or 32-thread tiles: one `redux.sync`; otherwise a butterfly of `log2(N)` `shfl.sync.bfly` (scans: `log2(N)` `shfl.sync.up`) |
//! | `RaggedTile<N>` | a whole tile as `TiledPartition<N>`; the block's short last tile: `redux.sync` over its lanes, or the scan's `log2(N)` `shfl.sync.up` steps and one `shfl.sync.idx` from its last thread |
//! | `ThreadBlock` | each warp reduces (or scans) its values; one value per warp goes through the block's scratch in shared memory; after a barrier warp 0 combines them (`redux.sync`, or the butterfly steps the warp count needs) and, after a second barrier, every thread reads the total (scans: every warp combines the totals of the warps before it) |
//!
//! Values combine in rank order, so an operator that is associative but
//! not commutative (a matrix product, function composition) gives the
//! ordered result. The block-level forms need a block whose thread count is
//! a multiple of 32, and are barriers: every thread of the block must call
//! them.

pub(crate) mod block;
pub(crate) use block::{
    exclusive_scan_by_warps, from_warp0, prefix_of_warps, reduce_into_warp0, warps_before,
};
pub(crate) use warp::inclusive_scan as warp_inclusive_scan;
mod coalesced;
mod multi_warp;
pub(crate) mod warp;

mod update;
mod votes;

pub use update::{
    AtomicUpdate, StoreTarget, UpdateTarget, exclusive_scan_update, inclusive_scan_update,
    reduce_store_async, reduce_update_async,
};

use crate::backend::target::Target;
use crate::backend::{Naming, Site, WarpCollectives};
use crate::op::Operator;
use crate::{
    AnyTileSize, CoalescedGroup, RaggedTile, Shuffle, ThreadBlock, TileSize, TiledPartition,
    ValidTileSize,
};

/// A group that reductions and scans run over: a [`TiledPartition`], a
/// [`RaggedTile`], a [`CoalescedGroup`] or a [`ThreadBlock`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a group that coop can reduce or scan over",
    note = "reduce and scan over a `TiledPartition<N>` (from `block.tiled_partition::<N>()`), a `RaggedTile<N>` (from `block.ragged_partition::<N>()`), a `CoalescedGroup` (from `coalesced_threads()` or a tile's `binary_partition`/`labeled_partition`) or the whole `ThreadBlock`"
)]
pub trait Group: sealed::Sealed + crate::SyncGroup {
    #[doc(hidden)]
    fn reduce_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T;
    #[doc(hidden)]
    fn inclusive_scan_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T;
    #[doc(hidden)]
    fn exclusive_scan_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T;
    /// Scans `value`; the group's last thread passes the total to
    /// `update`, whose result (from that one thread) every thread combines
    /// before its scan. Returns (inclusive, exclusive), both after it.
    #[doc(hidden)]
    fn scan_update_in<T: Shuffle, O: Operator<T>>(
        &self,
        value: T,
        op: O,
        update: impl FnOnce(T) -> T,
        site: Site,
    ) -> (T, T);
}

mod sealed {
    pub trait Sealed {}
}

impl<const N: u32> sealed::Sealed for TiledPartition<N> where TileSize<N>: AnyTileSize {}
impl sealed::Sealed for ThreadBlock {}
impl sealed::Sealed for CoalescedGroup {}
impl<const N: u32> sealed::Sealed for RaggedTile<N> where TileSize<N>: ValidTileSize {}

/// The end of a group's `scan_update`: the group's last thread (of rank
/// `size - 1`) passes the total, its `inclusive`, to `update`; `broadcast`
/// gives its result to every thread, which combines it before its scans.
#[inline(always)]
fn apply_update<T: Shuffle, O: Operator<T>>(
    inclusive: T,
    exclusive: T,
    op: O,
    update: impl FnOnce(T) -> T,
    rank: u32,
    size: u32,
    broadcast: impl FnOnce(T, u32) -> T,
) -> (T, T) {
    let last = size - 1;
    let old = if rank == last {
        update(inclusive)
    } else {
        op.identity()
    };
    let old = broadcast(old, last);
    (op.combine(old, inclusive), op.combine(old, exclusive))
}

impl Group for CoalescedGroup {
    #[inline(always)]
    fn reduce_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T {
        coalesced::reduce(self, value, op, site)
    }
    #[inline(always)]
    fn inclusive_scan_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T {
        coalesced::inclusive_scan(self, value, op, site)
    }
    #[inline(always)]
    fn exclusive_scan_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T {
        coalesced::exclusive_scan(self, value, op, site)
    }
    #[inline(always)]
    fn scan_update_in<T: Shuffle, O: Operator<T>>(
        &self,
        value: T,
        op: O,
        update: impl FnOnce(T) -> T,
        site: Site,
    ) -> (T, T) {
        let inclusive = coalesced::inclusive_scan(self, value, op, site);
        let below = self.shfl_up_at(inclusive, 1, site);
        let (rank, size) = (self.thread_rank(), self.num_threads());
        let exclusive = if rank == 0 { op.identity() } else { below };
        apply_update(inclusive, exclusive, op, update, rank, size, |v, last| {
            self.shfl_at(v, last, site)
        })
    }
}

impl<const N: u32> Group for TiledPartition<N>
where
    TileSize<N>: AnyTileSize,
{
    #[inline(always)]
    fn reduce_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T {
        if N > 32 {
            multi_warp::reduce(self, value, op, site)
        } else {
            warp::reduce(self, value, op, site)
        }
    }
    #[inline(always)]
    fn inclusive_scan_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T {
        if N > 32 {
            multi_warp::scan(self, value, op, site).0
        } else {
            warp::inclusive_scan(self, value, op, site)
        }
    }
    #[inline(always)]
    fn exclusive_scan_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T {
        if N > 32 {
            multi_warp::scan(self, value, op, site).1
        } else {
            warp::exclusive_scan(self, value, op, site)
        }
    }
    #[inline(always)]
    fn scan_update_in<T: Shuffle, O: Operator<T>>(
        &self,
        value: T,
        op: O,
        update: impl FnOnce(T) -> T,
        site: Site,
    ) -> (T, T) {
        let (inclusive, exclusive) = if N > 32 {
            multi_warp::scan(self, value, op, site)
        } else {
            warp::scans(self, value, op, site)
        };
        let rank = self.thread_rank_at(site);
        apply_update(inclusive, exclusive, op, update, rank, N, |v, last| {
            self.shfl_at(v, last, site)
        })
    }
}

/// A whole ragged tile runs the tile's own instructions; the block's last
/// tile, when it is short, scans with the same `shfl.sync.up` steps (its
/// lower lanes all exist) and reduces with one `redux.sync` over its lanes
/// or a scan whose last thread holds the total.
impl<const N: u32> Group for RaggedTile<N>
where
    TileSize<N>: ValidTileSize,
{
    #[inline(always)]
    fn reduce_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T {
        if self.is_whole() {
            return warp::reduce(self.as_tile(), value, op, site);
        }
        if let Some(redux) = op.redux() {
            let mask = self.lanes();
            return value.map_words(|w| Target::redux(redux, mask, w, site));
        }
        let inclusive = warp::inclusive_scan(self.as_tile(), value, op, site);
        self.shfl_at(inclusive, self.num_threads() - 1, site)
    }
    #[inline(always)]
    fn inclusive_scan_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T {
        warp::inclusive_scan(self.as_tile(), value, op, site)
    }
    #[inline(always)]
    fn exclusive_scan_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T {
        warp::exclusive_scan(self.as_tile(), value, op, site)
    }
    #[inline(always)]
    fn scan_update_in<T: Shuffle, O: Operator<T>>(
        &self,
        value: T,
        op: O,
        update: impl FnOnce(T) -> T,
        site: Site,
    ) -> (T, T) {
        let (inclusive, exclusive) = warp::scans(self.as_tile(), value, op, site);
        let (rank, size) = (self.thread_rank(), self.num_threads());
        apply_update(inclusive, exclusive, op, update, rank, size, |v, last| {
            self.shfl_at(v, last, site)
        })
    }
}

impl Group for ThreadBlock {
    #[inline(always)]
    fn reduce_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T {
        block::reduce(self, value, op, site)
    }
    #[inline(always)]
    fn inclusive_scan_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T {
        block::scan::<false, _, _>(self, value, op, "inclusive_scan", site).0
    }
    #[inline(always)]
    fn exclusive_scan_in<T: Shuffle, O: Operator<T>>(&self, value: T, op: O, site: Site) -> T {
        block::scan::<true, _, _>(self, value, op, "exclusive_scan", site).1
    }
    #[inline(always)]
    fn scan_update_in<T: Shuffle, O: Operator<T>>(
        &self,
        value: T,
        op: O,
        update: impl FnOnce(T) -> T,
        site: Site,
    ) -> (T, T) {
        block::scan_update(self, value, op, update, site)
    }
}

/// Combines every thread's `value` with `op`; every thread gets the result.
///
/// ```
/// use coop::prelude::*;
///
/// #[kernel]
/// pub fn sums(block: ThreadBlock, input: &[i32], out: Out<i32>) {
///     let r = block.thread_rank() as usize;
///     let warp = block.tiled_partition::<32>();
///     let per_warp = reduce(&warp, input[r], op::Sum);
///     let per_block = reduce(&block, input[r], op::Max);
///     out.write(r, per_warp - per_block);
/// }
///
/// let input: Vec<i32> = (0..64).collect();
/// let mut out = vec![0; 64];
/// coop_host::Cpu::new().launch(sums, coop_host::LaunchConfig::new(1, 64), (&input, &mut out))?;
/// assert_eq!(out[0], (0..32).sum::<i32>() - 63);
/// assert_eq!(out[40], (32..64).sum::<i32>() - 63);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "cg::reduce")]
#[doc(alias = "redux.sync")]
#[doc(alias = "BlockReduce")]
#[doc(alias = "WarpReduce")]
pub fn reduce<G: Group, T: Shuffle, O: Operator<T>>(group: &G, value: T, op: O) -> T {
    let site = core::panic::Location::caller();
    Target::entering("reduce", site);
    group.reduce_in(value, op, site)
}

/// Thread of rank `r` gets `value[0] op value[1] op ... op value[r]`.
///
/// ```
/// use coop::prelude::*;
///
/// #[kernel]
/// pub fn running_totals(block: ThreadBlock, out: Out<u32>) {
///     let r = block.thread_rank();
///     out.write(r as usize, inclusive_scan(&block, 1, op::Sum));
/// }
///
/// let mut out = vec![0u32; 256];
/// coop_host::Cpu::new().launch(running_totals, coop_host::LaunchConfig::new(1, 256), (&mut out,))?;
/// assert_eq!(out, (1..=256).collect::<Vec<u32>>());
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "cg::inclusive_scan")]
#[doc(alias = "BlockScan")]
#[doc(alias = "WarpScan")]
pub fn inclusive_scan<G: Group, T: Shuffle, O: Operator<T>>(group: &G, value: T, op: O) -> T {
    let site = core::panic::Location::caller();
    Target::entering("inclusive_scan", site);
    group.inclusive_scan_in(value, op, site)
}

/// Thread of rank `r` gets `value[0] op ... op value[r - 1]`; rank 0 gets
/// the operator's identity.
///
/// ```
/// use coop::prelude::*;
///
/// /// Where each thread's items start in a packed output.
/// #[kernel]
/// pub fn offsets(block: ThreadBlock, counts: &[u32], out: Out<u32>) {
///     let tile = block.tiled_partition::<8>();
///     let r = block.thread_rank() as usize;
///     out.write(r, exclusive_scan(&tile, counts[r], op::Sum));
/// }
///
/// let counts = [3, 0, 2, 5, 1, 1, 0, 4];
/// let mut out = vec![0u32; 8];
/// coop_host::Cpu::new().launch(offsets, coop_host::LaunchConfig::new(1, 8), (&counts[..], &mut out))?;
/// assert_eq!(out, [0, 3, 3, 5, 10, 11, 12, 12]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "cg::exclusive_scan")]
#[doc(alias = "BlockScan")]
#[doc(alias = "WarpScan")]
pub fn exclusive_scan<G: Group, T: Shuffle, O: Operator<T>>(group: &G, value: T, op: O) -> T {
    let site = core::panic::Location::caller();
    Target::entering("exclusive_scan", site);
    group.exclusive_scan_in(value, op, site)
}
