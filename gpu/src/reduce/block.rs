//! Reductions and scans over a whole block: per-warp results meet in the
//! block's scratch in shared memory, with one barrier per call.
//!
//! The scratch holds two regions of 32 slots of 32 bytes (one slot per warp,
//! a `T` of at most 32 bytes each) and a parity word. Each call reads the
//! parity, writes its warp's slot in that region, waits at the barrier, reads
//! every warp's slot, and then every thread writes the flipped parity. The
//! next call therefore uses the other region, so a fast warp's writes never
//! meet a slow warp's reads of the previous call; the call after that reuses
//! the first region only after a barrier that every slow reader has passed.
//! Every thread reads the parity it (or a thread before the last barrier)
//! wrote, and all writes of one call write the same value, so the threads
//! agree on it, whatever the word held when the kernel started.

use crate::backend::{self, Site};
use crate::op::Operator;
use crate::{Shuffle, ThreadBlock};

const SLOT: usize = 32;
const REGION: usize = 32 * SLOT;
const PARITY: usize = 2 * REGION;

#[inline(always)]
fn slot<T>(scratch: *mut u8, region: u32, i: u32) -> *mut T {
    // SAFETY (for callers): `i < 32`, `region < 2` and `T` is at most 32
    // bytes (a `Shuffle` type); slots are 32-byte aligned within the
    // 16-byte aligned scratch, and `T`'s alignment is at most 16.
    scratch.wrapping_add(region as usize * REGION + i as usize * SLOT) as *mut T
}

/// The region this call uses.
#[inline(always)]
fn parity(scratch: *mut u8) -> u32 {
    // SAFETY: the parity word is in the scratch; see the module docs for
    // why all threads read the same value.
    unsafe { core::ptr::read_volatile(scratch.wrapping_add(PARITY) as *const u32) & 1 }
}

#[inline(always)]
fn flip(scratch: *mut u8, region: u32) {
    // SAFETY: as for `parity`.
    unsafe { core::ptr::write_volatile(scratch.wrapping_add(PARITY) as *mut u32, region ^ 1) }
}

/// Every warp reduces its values; lane 0 of each stores the warp's result;
/// after the barrier every warp reduces the warps' results in registers:
/// lane `w` loads warp `w`'s result, and the warp combines them with one
/// `redux.sync` where the operator has one, else with a butterfly over the
/// first `2^k >= warps` lanes and a broadcast from lane 0.
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
    let region = parity(scratch);
    let lane = warp.thread_rank_at(site);
    if lane == 0 {
        // SAFETY: warp `meta_group_rank() < 32` owns its slot until the barrier.
        unsafe { slot::<T>(scratch, region, warp.meta_group_rank()).write(partial) };
    }
    block.sync_at(site);
    let warps = warp.meta_group_size();
    let mine = if lane < warps {
        // SAFETY: written before the barrier by warp `lane`.
        unsafe { slot::<T>(scratch, region, lane).read() }
    } else {
        op.identity()
    };
    let total = if op.redux().is_some() || warps > 16 {
        super::tile::reduce(&warp, mine, op, site)
    } else {
        let span = warps.next_power_of_two();
        let mut v = mine;
        let mut m = 1;
        while m < span {
            let other = warp.shfl_xor_at(v, m, site);
            v = if O::COMMUTATIVE || lane & m == 0 {
                op.combine(v, other)
            } else {
                op.combine(other, v)
            };
            m *= 2;
        }
        warp.shfl_at(v, 0, site)
    };
    flip(scratch, region);
    total
}

/// Every warp scans its values; the last lane of each stores the warp's
/// total; after the barrier each thread folds the totals of the warps before
/// its own. Returns (inclusive, exclusive).
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
    let within = warp.shfl_up_at(inclusive, 1, site);
    let exclusive_in_warp = if lane == 0 { op.identity() } else { within };
    let scratch = backend::block_scratch(site);
    let region = parity(scratch);
    if lane == 31 {
        // SAFETY: as in `reduce`.
        unsafe { slot::<T>(scratch, region, warp.meta_group_rank()).write(inclusive) };
    }
    block.sync_at(site);
    let w = warp.meta_group_rank();
    let result = if w == 0 {
        (inclusive, exclusive_in_warp)
    } else {
        // SAFETY: written before the barrier by warps `0..w`.
        let mut before = unsafe { slot::<T>(scratch, region, 0).read() };
        for v in 1..w {
            // SAFETY: as above.
            before = op.combine(before, unsafe { slot::<T>(scratch, region, v).read() });
        }
        (
            op.combine(before, inclusive),
            op.combine(before, exclusive_in_warp),
        )
    };
    flip(scratch, region);
    result
}
