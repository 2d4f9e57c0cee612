//! How a tile of more than one warp (64 to 1024 threads) exchanges values
//! for its own methods (`shfl`, `any`, `all`): the tile's warps meet in the
//! block's scratch, one slot per warp (the slot of the block's warp number,
//! so that the tiles of a block never share one), between two of the
//! tile's barriers. The second barrier keeps the tile's next exchange from
//! overwriting a slot that a slower warp is still reading.

use crate::backend::target::Target;
use crate::backend::{Site, WarpCollectives};
use crate::groups::scratch::{load, store_if};
use crate::{AnyTileSize, Shuffle, TileSize, TiledPartition};

/// Slots are word-major, 32 words apart: up to eight words for each of 32
/// warps, as the block reduction's "warps" layout.
pub(crate) const STRIDE: u32 = 32;

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
