//! Reductions and scans over tiles of more than one warp (64 to 1024
//! threads): each warp does its part with warp instructions, and the
//! tile's warps meet in the block's scratch, one slot per warp (the slot of
//! the block's warp number, so that the tiles of a block never share one),
//! between two of the tile's barriers, as the tile's own exchanges do
//! ([`groups::multi_warp`](crate::groups::tile::multi_warp)). The second barrier
//! keeps the tile's next collective from overwriting a slot that a slower
//! warp is still reading.

use crate::backend::Site;
use crate::groups::scratch::{load, store_if};
use crate::groups::tile::multi_warp::STRIDE;
use crate::op::Operator;
use crate::{AnyTileSize, Shuffle, TileSize, TiledPartition};

/// Each warp reduces its values and lane 0 stores the warp's result;
/// after the barrier lane `k` of every warp loads warp `k`'s result (lanes
/// past the tile's warps take the identity) and the warp reduces those,
/// neighbours first, so the warps' results combine in rank order.
#[inline(always)]
pub(crate) fn reduce<const N: u32, T: Shuffle, O: Operator<T>>(
    tile: &TiledPartition<N>,
    value: T,
    op: O,
    site: Site,
) -> T
where
    TileSize<N>: AnyTileSize,
{
    let warps = N / 32;
    let warp = tile.warp_at(site);
    let mine = super::warp::reduce::<32, T, O>(&warp, value, op, site);
    let rank = tile.thread_rank_at(site);
    let (lane, first) = (rank % 32, tile.first_warp());
    store_if(lane == 0, STRIDE, first + rank / 32, mine, site);
    tile.sync_at(site);
    let theirs = load(STRIDE, first + lane % warps, value, site);
    let part = if lane < warps { theirs } else { op.identity() };
    let total = super::warp::reduce::<32, T, O>(&warp, part, op, site);
    tile.sync_at(site);
    total
}

/// Each warp scans its values and its last lane stores the warp's total;
/// after the barrier lane `k` of every warp loads warp `k`'s total, an
/// exclusive scan of those gives each warp what comes before it, and every
/// thread combines that with its warp's scan. Returns (inclusive,
/// exclusive).
#[inline(always)]
pub(crate) fn scan<const N: u32, T: Shuffle, O: Operator<T>>(
    tile: &TiledPartition<N>,
    value: T,
    op: O,
    site: Site,
) -> (T, T)
where
    TileSize<N>: AnyTileSize,
{
    let warps = N / 32;
    let warp = tile.warp_at(site);
    let inclusive = super::warp::inclusive_scan::<32, T, O>(&warp, value, op, site);
    let rank = tile.thread_rank_at(site);
    let (lane, first, mine) = (rank % 32, tile.first_warp(), rank / 32);
    let below = warp.shfl_up_at(inclusive, 1, site);
    let exclusive = if lane == 0 { op.identity() } else { below };
    store_if(lane == 31, STRIDE, first + mine, inclusive, site);
    tile.sync_at(site);
    let theirs = load(STRIDE, first + lane % warps, value, site);
    let total = if lane < warps { theirs } else { op.identity() };
    let before_each = super::warp::exclusive_scan::<32, T, O>(&warp, total, op, site);
    let before = warp.shfl_at(before_each, mine, site);
    tile.sync_at(site);
    (op.combine(before, inclusive), op.combine(before, exclusive))
}
