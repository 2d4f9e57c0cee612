//! A value from the thread before or after: within a warp by one shuffle,
//! across a warp boundary through the block's scratch (one slot a warp),
//! with a barrier before the slots are read and one after, so that the
//! next block collective's writes wait for the last read.

use crate::backend::Site;
use crate::groups::scratch::{load, store_if};
use crate::{Shuffle, ThreadBlock};

/// Thread `t - 1`'s `value` in thread `t`; `None` in thread 0.
#[inline(always)]
fn previous<T: Shuffle>(
    block: &ThreadBlock,
    value: T,
    call: &'static str,
    site: Site,
) -> Option<T> {
    let warp = block.tiled_partition_at::<32>(site);
    let lane = warp.thread_rank_at(site);
    let w = warp.meta_group_rank();
    let below = warp.shfl_up_at(value, 1, site);
    store_if(lane == 31, 32, w, value, site);
    block.sync_named(call, site);
    let before = if lane > 0 {
        Some(below)
    } else if w > 0 {
        // Stored before the barrier by lane 31 of warp `w - 1`.
        Some(load(32, w - 1, value, site))
    } else {
        None
    };
    block.sync_named(call, site);
    before
}

/// Thread `t + 1`'s `value` in thread `t`; `None` in the last thread.
#[inline(always)]
fn next<T: Shuffle>(block: &ThreadBlock, value: T, call: &'static str, site: Site) -> Option<T> {
    let warp = block.tiled_partition_at::<32>(site);
    let lane = warp.thread_rank_at(site);
    let w = warp.meta_group_rank();
    let warps = warp.meta_group_size();
    let above = warp.shfl_down_at(value, 1, site);
    store_if(lane == 0, 32, w, value, site);
    block.sync_named(call, site);
    let after = if lane < 31 {
        Some(above)
    } else if w + 1 < warps {
        // Stored before the barrier by lane 0 of warp `w + 1`.
        Some(load(32, w + 1, value, site))
    } else {
        None
    };
    block.sync_named(call, site);
    after
}

/// The item before each item of the blocked tile: the thread's own
/// previous item, the previous thread's last one for its first, and
/// `before` (thread 0's) for the tile's first item.
#[inline(always)]
pub(crate) fn lefts<T: Shuffle, const ITEMS: usize>(
    block: &ThreadBlock,
    items: &[T; ITEMS],
    before: Option<T>,
    call: &'static str,
    site: Site,
) -> [Option<T>; ITEMS] {
    let Some(&last) = items.last() else {
        return [None; ITEMS];
    };
    let prev = previous(block, last, call, site);
    let prev = if block.thread_rank() == 0 {
        before
    } else {
        prev
    };
    core::array::from_fn(|i| if i == 0 { prev } else { Some(items[i - 1]) })
}

/// The item after each item of the blocked tile: the thread's own next
/// item, the next thread's first one for its last, and `after` (the last
/// thread's) for the tile's last item.
#[inline(always)]
pub(crate) fn rights<T: Shuffle, const ITEMS: usize>(
    block: &ThreadBlock,
    items: &[T; ITEMS],
    after: Option<T>,
    call: &'static str,
    site: Site,
) -> [Option<T>; ITEMS] {
    let Some(&first) = items.first() else {
        return [None; ITEMS];
    };
    let nxt = next(block, first, call, site);
    let nxt = if block.thread_rank() + 1 == block.num_threads() {
        after
    } else {
        nxt
    };
    core::array::from_fn(|i| {
        if i + 1 == ITEMS {
            nxt
        } else {
            Some(items[i + 1])
        }
    })
}
