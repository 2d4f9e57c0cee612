//! Collectives of multi-warp tiles (64 to 1024 threads): each warp does its
//! part with warp instructions, and the tile's warps meet in the block's
//! scratch, one slot per warp (the slot of the block's warp number, so that
//! the tiles of a block never share one), between two of the tile's
//! barriers. The second barrier keeps the tile's next collective from
//! overwriting a slot that a slower warp is still reading.

use super::block::{load, store_if};
use crate::backend::{Site, WarpCollectives};
use crate::op::Operator;
use crate::target::Target;
use crate::{AnyTileSize, Shuffle, TileSize, TiledPartition};

/// Slots are word-major, 32 words apart: up to eight words for each of 32
/// warps, as the block reduction's "warps" layout.
const STRIDE: u32 = 32;

/// The value of the tile's thread of rank `src` (the same `src` in every
/// thread): that thread stores it in its warp's slot; after the barrier
/// every thread loads it.
#[inline(always)]
pub(crate) fn shfl<const N: u32, T: Shuffle>(
    tile: &TiledPartition<N>,
    value: T,
    src: u32,
    site: Site,
) -> T
where
    TileSize<N>: AnyTileSize,
{
    let slot = tile.first_warp() + src / 32;
    store_if(tile.thread_rank_at(site) == src, STRIDE, slot, value, site);
    tile.sync_uniform_at("shfl", src, site);
    let v = load(STRIDE, slot, value, site);
    tile.sync_at(site);
    v
}

/// Whether any thread of the tile has `predicate`: a vote per warp; after
/// the barrier lane `k` of every warp loads warp `k`'s vote and one more
/// vote combines them.
#[inline(always)]
pub(crate) fn any<const N: u32>(tile: &TiledPartition<N>, predicate: bool, site: Site) -> bool
where
    TileSize<N>: AnyTileSize,
{
    let warps = N / 32;
    let warp_any = Target::vote_any(u32::MAX, predicate, site) as u32;
    let rank = tile.thread_rank_at(site);
    let (lane, first) = (rank % 32, tile.first_warp());
    store_if(lane == 0, STRIDE, first + rank / 32, warp_any, site);
    tile.sync_at(site);
    let vote = load(STRIDE, first + lane % warps, 0u32, site);
    let found = Target::vote_any(u32::MAX, lane < warps && vote != 0, site);
    tile.sync_at(site);
    found
}

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
    let mine = super::tile::reduce::<32, T, O>(&warp, value, op, site);
    let rank = tile.thread_rank_at(site);
    let (lane, first) = (rank % 32, tile.first_warp());
    store_if(lane == 0, STRIDE, first + rank / 32, mine, site);
    tile.sync_at(site);
    let theirs = load(STRIDE, first + lane % warps, value, site);
    let part = if lane < warps { theirs } else { op.identity() };
    let total = super::tile::reduce::<32, T, O>(&warp, part, op, site);
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
    let inclusive = super::tile::inclusive_scan::<32, T, O>(&warp, value, op, site);
    let rank = tile.thread_rank_at(site);
    let (lane, first, mine) = (rank % 32, tile.first_warp(), rank / 32);
    let below = warp.shfl_up_at(inclusive, 1, site);
    let exclusive = if lane == 0 { op.identity() } else { below };
    store_if(lane == 31, STRIDE, first + mine, inclusive, site);
    tile.sync_at(site);
    let theirs = load(STRIDE, first + lane % warps, value, site);
    let total = if lane < warps { theirs } else { op.identity() };
    let before_each = super::tile::exclusive_scan::<32, T, O>(&warp, total, op, site);
    let before = warp.shfl_at(before_each, mine, site);
    tile.sync_at(site);
    (op.combine(before, inclusive), op.combine(before, exclusive))
}
