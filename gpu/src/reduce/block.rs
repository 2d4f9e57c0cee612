//! Reductions and scans over a whole block: per-warp results meet in the
//! block's scratch in shared memory.
//!
//! Layout of the scratch: 32 slots of 32 bytes (one per warp, a `T` of at
//! most 32 bytes each), then a 32-byte result slot (slot 32). Values move
//! in and out as 32-bit words with `st.shared`/`ld.shared` on the scratch's
//! shared-window address: generic loads and stores, which a plain pointer
//! gives, are slower. The second
//! barrier of each call keeps the next block collective from overwriting
//! slots that slower warps are still reading.

use crate::backend::{self, Site};
use crate::op::Operator;
use crate::{Shuffle, ThreadBlock, TiledPartition};

const SLOT: u32 = 32;

/// Stores `value` in slot `i` (`i <= 32`; slot 32 is the result) with
/// `st.shared`, one 32-bit word at a time, in the threads where `pred`
/// holds (predicated stores, not a branch).
#[inline(always)]
fn store_if<T: Shuffle>(pred: bool, i: u32, value: T, site: Site) {
    let mut offset = i * SLOT;
    value.map_words(|w| {
        backend::scratch_store_if(pred, offset, w, site);
        offset += 4;
        w
    });
}

/// Loads the `T` in slot `i` with `ld.shared`, one 32-bit word at a time.
/// `like` only gives the type its shape; its words are not used.
#[inline(always)]
fn load<T: Shuffle>(i: u32, like: T, site: Site) -> T {
    let mut offset = i * SLOT;
    // The words were stored by `store` from a `T`: the `Shuffle` contract.
    like.map_words(|_| {
        let w = backend::scratch_load(offset, site);
        offset += 4;
        w
    })
}

/// Every warp reduces its values; lane 0 of each stores the warp's result;
/// after a barrier warp 0 alone combines those (lanes past the warp count
/// hold the identity) and stores the total; after a second barrier every
/// thread reads it. Only warp 0 pays for the second stage, and only for
/// the butterfly steps that the warp count needs (two for 4 warps, three
/// for 8): in a kernel that does little else, a block reduction's time
/// follows its instruction count.
#[inline(always)]
pub(super) fn reduce<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    value: T,
    op: O,
    site: Site,
) -> T {
    let warp = block.tiled_partition_at::<32>(site);
    let partial = super::tile::reduce(&warp, value, op, site);
    let lane = warp.thread_rank_at(site);
    let w = warp.meta_group_rank();
    store_if(lane == 0, w, partial, site);
    block.sync_at(site);
    if w == 0 {
        let warps = warp.meta_group_size();
        let mine = if lane < warps {
            // Written before the barrier by warp `lane`.
            load(lane, value, site)
        } else {
            op.identity()
        };
        let total = combine_warps(&warp, warps, mine, op, site);
        store_if(lane == 0, 32, total, site);
    }
    block.sync_at(site);
    // Written by warp 0 before the barrier; the next block collective writes
    // it only after its first barrier, which every reader must reach.
    load(32, value, site)
}

/// Lane 0 of warp 0 gets lanes `0..warps` combined in order (the others
/// hold the identity): one `redux.sync` where the operator and type have
/// one, else the first `ceil(log2(warps))` butterfly steps. The warp count
/// is the same in every thread, so the choice is a uniform branch.
#[inline(always)]
fn combine_warps<T: Shuffle, O: Operator<T>>(
    warp: &TiledPartition<32>,
    warps: u32,
    mine: T,
    op: O,
    site: Site,
) -> T {
    if op.redux().is_some() || warps > 16 {
        super::tile::reduce(warp, mine, op, site)
    } else if warps > 8 {
        super::tile::neighbours_first(warp, mine, op, 16, site)
    } else if warps > 4 {
        super::tile::neighbours_first(warp, mine, op, 8, site)
    } else if warps > 2 {
        super::tile::neighbours_first(warp, mine, op, 4, site)
    } else if warps > 1 {
        super::tile::neighbours_first(warp, mine, op, 2, site)
    } else {
        mine
    }
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
    store_if(lane == 31, warp.meta_group_rank(), inclusive, site);
    block.sync_at(site);
    let total = if lane < warp.meta_group_size() {
        // Written before the barrier by warp `lane`.
        load(lane, value, site)
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
