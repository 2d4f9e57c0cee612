//! Reductions and scans over a whole block: per-warp results meet in the
//! block's scratch in shared memory.
//!
//! Layout of the scratch: 32 slots of 32 bytes (one per warp, a `T` of at
//! most 32 bytes each), then a 32-byte result slot (slot 32). The second
//! barrier of each call keeps the next block collective from overwriting
//! slots that slower warps are still reading.

use crate::backend::{self, Site};
use crate::op::Operator;
use crate::{Shuffle, ThreadBlock};

const SLOT: usize = 32;

#[inline(always)]
fn slot<T>(scratch: *mut u8, i: u32) -> *mut T {
    // SAFETY (for callers): `i <= 32` (slot 32 is the result) and `T` is at most 32 bytes (a
    // `Shuffle` type); slots are 32-byte aligned within the 16-byte aligned
    // scratch, and `T`'s alignment is at most 16.
    scratch.wrapping_add(i as usize * SLOT) as *mut T
}

/// Every warp reduces its values; lane 0 of each stores the warp's result;
/// after a barrier warp 0 alone reduces those (padded with the identity:
/// one `redux.sync`, or a butterfly) and stores the total; after a second
/// barrier every thread reads it. Only warp 0 pays for the second stage:
/// shuffles are what limits a block reduction's throughput.
#[inline(always)]
pub(super) fn reduce<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    value: T,
    op: O,
    site: Site,
) -> T {
    let warp = block.tiled_partition_at::<32>(site);
    let partial = super::tile::reduce(&warp, value, op, site);
    let scratch = backend::block_scratch(site);
    let lane = warp.thread_rank_at(site);
    let w = warp.meta_group_rank();
    if lane == 0 {
        // SAFETY: warp `w < 32` owns its slot until the barrier.
        unsafe { slot::<T>(scratch, w).write(partial) };
    }
    block.sync_at(site);
    if w == 0 {
        let warps = warp.meta_group_size();
        let mine = if lane < warps {
            // SAFETY: written before the barrier by warp `lane`.
            unsafe { slot::<T>(scratch, lane).read() }
        } else {
            op.identity()
        };
        let total = super::tile::reduce(&warp, mine, op, site);
        if lane == 0 {
            // SAFETY: the result slot, read by all after the next barrier.
            unsafe { slot::<T>(scratch, 32).write(total) };
        }
    }
    block.sync_at(site);
    // SAFETY: written by warp 0 before the barrier; the next block collective
    // writes it only after its first barrier, which every reader must reach.
    unsafe { slot::<T>(scratch, 32).read() }
}

/// Every warp scans its values; the last lane of each stores the warp's
/// total; after a barrier each warp scans the totals to find what comes
/// before it. Returns (inclusive, exclusive).
#[inline(always)]
pub(super) fn scan<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    value: T,
    op: O,
    site: Site,
) -> (T, T) {
    let warp = block.tiled_partition_at::<32>(site);
    let lane = warp.thread_rank_at(site);
    let inclusive = super::tile::inclusive_scan(&warp, value, op, site);
    let scratch = backend::block_scratch(site);
    if lane == 31 {
        // SAFETY: as in `reduce`.
        unsafe { slot::<T>(scratch, warp.meta_group_rank()).write(inclusive) };
    }
    block.sync_at(site);
    let total = if lane < warp.meta_group_size() {
        // SAFETY: written before the barrier by warp `lane`.
        unsafe { slot::<T>(scratch, lane).read() }
    } else {
        op.identity()
    };
    // Lane w of `totals` holds warps 0..=w combined; this warp needs 0..w.
    let totals = super::tile::inclusive_scan(&warp, total, op, site);
    let w = warp.meta_group_rank();
    let before_warp = warp.shfl_at(totals, w.wrapping_sub(1) & 31, site);
    let before_warp = if w == 0 { op.identity() } else { before_warp };
    let within = warp.shfl_up_at(inclusive, 1, site);
    let exclusive_in_warp = if lane == 0 { op.identity() } else { within };
    block.sync_at(site);
    (
        op.combine(before_warp, inclusive),
        op.combine(before_warp, exclusive_in_warp),
    )
}
