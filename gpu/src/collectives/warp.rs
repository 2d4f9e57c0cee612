//! Reductions and scans within one tile: register exchanges only.

use crate::backend::target::Target;
use crate::backend::{Site, WarpCollectives};
use crate::op::Operator;
use crate::{AnyTileSize, Shuffle, TileSize, TiledPartition};

/// A butterfly of `log2(N)` shuffles, or one `redux.sync` where the
/// operator and type have one (16- and 32-thread tiles).
#[inline(always)]
pub(super) fn reduce<const N: u32, T: Shuffle, O: Operator<T>>(
    tile: &TiledPartition<N>,
    value: T,
    op: O,
    site: Site,
) -> T
where
    TileSize<N>: AnyTileSize,
{
    if N >= 16 {
        if let Some(redux) = op.redux() {
            // Only 32-bit integers have a `redux`: one word.
            let mask = tile.lane_mask();
            return value.map_words(|w| Target::redux(redux, mask, w, site));
        }
    }
    let mut v = value;
    if O::COMMUTATIVE {
        let mut m = N / 2;
        while m > 0 {
            v = op.combine(v, tile.shfl_xor_at(v, m, site));
            m /= 2;
        }
        return v;
    }
    neighbours_first(tile, v, op, N, site)
}

/// Butterfly steps xor 1, 2, 4, ... below `span` (a power of two; `N`
/// for a whole butterfly), the run of lower ranks on the left: each lane always holds a contiguous run
/// of ranks, so lane 0 ends with ranks `0..span` combined in order, for any
/// associative operator (order matters when it is not commutative).
#[inline(always)]
pub(super) fn neighbours_first<const N: u32, T: Shuffle, O: Operator<T>>(
    tile: &TiledPartition<N>,
    value: T,
    op: O,
    span: u32,
    site: Site,
) -> T
where
    TileSize<N>: AnyTileSize,
{
    let rank = tile.thread_rank_at(site);
    let mut v = value;
    let mut m = 1;
    while m < span {
        let other = tile.shfl_xor_at(v, m, site);
        v = if O::COMMUTATIVE || rank & m == 0 {
            op.combine(v, other)
        } else {
            op.combine(other, v)
        };
        m *= 2;
    }
    v
}

/// Lanes at or under which [`reduce_below`] and [`inclusive_scan_below`]
/// take two steps instead of `log2(N)`: blocks of up to 128 threads,
/// whose warp 0 combines at most four warps' results.
pub(crate) const FEW_LANES: u32 = 4;

/// The result of ranks `0..lanes` in rank 0, where the ranks from `lanes`
/// up hold the identity or nothing the caller needs: with `lanes` at most
/// [`FEW_LANES`], two butterfly steps (neighbours first) instead of
/// [`reduce`]'s `log2(N)`. `lanes` must be the same in every lane (a group
/// size): the choice is one branch the whole tile takes, around two
/// straight runs of steps (a test before every step measured slower in the
/// larger blocks, and so did sharing the first two steps between the runs:
/// chapter 7 of the guide). An operator with a `redux` keeps its one
/// instruction.
#[inline(always)]
pub(crate) fn reduce_below<const N: u32, T: Shuffle, O: Operator<T>>(
    tile: &TiledPartition<N>,
    value: T,
    op: O,
    lanes: u32,
    site: Site,
) -> T
where
    TileSize<N>: AnyTileSize,
{
    if N > FEW_LANES && lanes <= FEW_LANES && op.redux().is_none() {
        neighbours_first(tile, value, op, FEW_LANES, site)
    } else {
        reduce(tile, value, op, site)
    }
}

/// The inclusive scan of ranks `0..lanes`, for ranks below `lanes`: the
/// steps of [`inclusive_scan`] at distances 1 and 2 always, the ones from
/// 4 up only when `lanes` is over [`FEW_LANES`] (no shorter distance
/// reaches a rank below 4 from another). Ranks from `lanes` up get partial
/// results. `lanes` must be the same in every lane (a group size).
#[inline(always)]
pub(crate) fn inclusive_scan_below<const N: u32, T: Shuffle, O: Operator<T>>(
    tile: &TiledPartition<N>,
    value: T,
    op: O,
    lanes: u32,
    site: Site,
) -> T
where
    TileSize<N>: AnyTileSize,
{
    if N > FEW_LANES {
        let v = scan_steps(tile, value, op, 1, FEW_LANES, site);
        if lanes <= FEW_LANES {
            v
        } else {
            scan_steps(tile, v, op, FEW_LANES, N, site)
        }
    } else {
        inclusive_scan(tile, value, op, site)
    }
}

/// Hillis-Steele: `log2(N)` steps of `shfl_up`, combining the lower value
/// on the left.
#[inline(always)]
pub(crate) fn inclusive_scan<const N: u32, T: Shuffle, O: Operator<T>>(
    tile: &TiledPartition<N>,
    value: T,
    op: O,
    site: Site,
) -> T
where
    TileSize<N>: AnyTileSize,
{
    scan_steps(tile, value, op, 1, N, site)
}

/// Inclusive scans of runs of `S` consecutive lanes of a warp (`S` a
/// power of two, at most 32): the steps of [`inclusive_scan`] up to
/// distance `S / 2`, each combining only within the run. Runs of 32 are
/// the warp's scan.
#[inline(always)]
pub(crate) fn inclusive_scan_in_runs<const S: u32, T: Shuffle, O: Operator<T>>(
    warp: &TiledPartition<32>,
    value: T,
    op: O,
    site: Site,
) -> T {
    if S >= 32 {
        return inclusive_scan(warp, value, op, site);
    }
    let in_run = warp.thread_rank_at(site) % S;
    let mut v = value;
    let mut d = 1;
    while d < S {
        let lower = warp.shfl_up_at(v, d, site);
        if O::SPECULATE {
            // As in `scan_steps`.
            let combined = op.combine(lower, v).map_words(Target::opaque_word);
            v = if in_run >= d { combined } else { v };
        } else if in_run >= d {
            v = op.combine(lower, v);
        }
        d *= 2;
    }
    v
}

/// The Hillis-Steele steps at distances `from`, `2 * from`, ... below
/// `span` (constants at every call, so the loop unrolls; `from` is 1, or
/// where an earlier call stopped).
#[inline(always)]
fn scan_steps<const N: u32, T: Shuffle, O: Operator<T>>(
    tile: &TiledPartition<N>,
    value: T,
    op: O,
    from: u32,
    span: u32,
    site: Site,
) -> T
where
    TileSize<N>: AnyTileSize,
{
    let rank = tile.thread_rank_at(site);
    let mut v = value;
    let mut d = from;
    while d < span {
        let lower = tile.shfl_up_at(v, d, site);
        if O::SPECULATE {
            // Combined in every lane and chosen after an opaque move: the
            // step stays `SHFL`, `@p` combine in SASS
            // (`WarpCollectives::opaque_word` says why).
            let combined = op.combine(lower, v).map_words(Target::opaque_word);
            v = if rank >= d { combined } else { v };
        } else if rank >= d {
            v = op.combine(lower, v);
        }
        d *= 2;
    }
    v
}

/// The inclusive scan, shifted up one rank; rank 0 gets the identity.
#[inline(always)]
pub(super) fn exclusive_scan<const N: u32, T: Shuffle, O: Operator<T>>(
    tile: &TiledPartition<N>,
    value: T,
    op: O,
    site: Site,
) -> T
where
    TileSize<N>: AnyTileSize,
{
    scans(tile, value, op, site).1
}

/// The inclusive scan and the exclusive one (the inclusive shifted up one
/// rank; rank 0 gets the identity), for a scan with an update.
#[inline(always)]
pub(super) fn scans<const N: u32, T: Shuffle, O: Operator<T>>(
    tile: &TiledPartition<N>,
    value: T,
    op: O,
    site: Site,
) -> (T, T)
where
    TileSize<N>: AnyTileSize,
{
    let inclusive = inclusive_scan(tile, value, op, site);
    let before = tile.shfl_up_at(inclusive, 1, site);
    let exclusive = if tile.thread_rank_at(site) == 0 {
        op.identity()
    } else {
        before
    };
    (inclusive, exclusive)
}
