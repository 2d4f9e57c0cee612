//! Decoupled look-back: how a tile of a single-pass algorithm learns what
//! comes before it from the tiles before it, without a second pass over
//! the data. Each tile publishes its total (an *aggregate*) in its status
//! words, looks back over the tiles before it, 32 a round (a lane a tile),
//! until it finds one that has published its *inclusive prefix*, and then
//! publishes its own. The device-wide scan ([`scan`](crate::device::scan))
//! is built on it; its module docs give the orderings step by step.
//!
//! The look-back *in order* ([`look_back_in_order`]) gives a result that
//! does not depend on timing, for operators whose combinations differ in
//! their last bits by grouping (float sums): it combines one tile after
//! another, from the nearest inclusive prefix forward, so that every
//! tile's prefix is the left fold `((a₀ ∘ a₁) ∘ a₂) ∘ …` of the tiles'
//! aggregates, whichever tiles had published their inclusive prefixes
//! when it looked (an inclusive prefix is that fold up to its tile).
//!
//! A status word is 64 bits, one single-copy atomic access: `value word <<
//! 32 | epoch << 2 | flag`, the flag [`AGGREGATE`] or [`INCLUSIVE`], the
//! epoch a number the host changes on every call so that the words need no
//! clearing between calls. Values of one or two 32-bit words travel in
//! their status words ([`status_words`]); larger ones in `partials` (the
//! aggregates, then the inclusive prefixes), written before a release
//! store of the word and read after an acquire load of it.

use crate::memory::atomic::Ordering;
use crate::op::{Flip, Operator};
use crate::{Out, Shuffle, TiledPartition, reduce};

/// The flag of a tile that has published its aggregate (a status word is
/// `value word << 32 | epoch << 2 | flag`).
#[doc(hidden)]
pub const AGGREGATE: u32 = 1;
/// The flag of a tile that has published its inclusive prefix.
#[doc(hidden)]
pub const INCLUSIVE: u32 = 2;

/// Status words the look-back gives each tile for values of `T` (`WORDS`
/// 32-bit words, [`Shuffle::WORDS`]) where values of up to two words
/// travel in their status words, as a scan's do: one a word for those,
/// one for larger values, which go through `partials`. A scan's `status`
/// needs two a tile, the most this is.
///
/// ```
/// use coop::device::look_back::status_words;
/// assert_eq!(status_words::<u32>(), 1);
/// assert_eq!(status_words::<f64>(), 2);
/// assert_eq!(status_words::<[u64; 2]>(), 1);
/// ```
pub const fn status_words<T: Shuffle>() -> usize {
    packed_status_words::<T>(2)
}

/// Status words a tile for values of `T` where values of up to `pack`
/// words (at most [`MAX_PACK`]) travel in their status words: `T::WORDS`
/// for those, 1 for larger ones (whose values go through `partials`).
///
/// ```
/// use coop::device::look_back::packed_status_words;
/// assert_eq!(packed_status_words::<[u32; 3]>(4), 3);
/// assert_eq!(packed_status_words::<[u32; 3]>(2), 1);
/// assert_eq!(packed_status_words::<[u32; 5]>(4), 1);
/// ```
#[doc(hidden)]
pub const fn packed_status_words<T: Shuffle>(pack: usize) -> usize {
    if T::WORDS >= 1 && T::WORDS <= pack && T::WORDS <= MAX_PACK {
        T::WORDS
    } else {
        1
    }
}

/// Most words of a value that travel in their status words.
#[doc(hidden)]
pub const MAX_PACK: usize = 4;

/// Warp 0 of tile `tile`: publishes the tile's total, finds what comes
/// before the tile from the tiles before it, and publishes the tile's
/// inclusive prefix (see the module docs); values of up to two words
/// travel in their status words ([`status_words`]). Every lane returns
/// the exclusive prefix. Public for the workspace's tests, which give it
/// tile states made by hand.
#[doc(hidden)]
#[inline(always)]
#[track_caller]
pub fn look_back<T: Shuffle, O: Operator<T>>(
    warp: &TiledPartition<32>,
    tile: usize,
    total: T,
    op: O,
    status: &Out<u64>,
    partials: &Out<T>,
    epoch: u32,
) -> T {
    look_back_packing::<T, O, 2>(warp, tile, total, op, status, partials, epoch)
}

/// [`look_back`] in order (see the module docs): the exclusive prefix is
/// the left fold of the aggregates of tiles `0..tile`, with the same bits
/// whatever the timing. Public for the workspace's tests, as
/// [`look_back`].
#[doc(hidden)]
#[inline(always)]
#[track_caller]
pub fn look_back_in_order<T: Shuffle, O: Operator<T>>(
    warp: &TiledPartition<32>,
    tile: usize,
    total: T,
    op: O,
    status: &Out<u64>,
    partials: &Out<T>,
    epoch: u32,
) -> T {
    look_back_over::<T, O, 2, true>(
        warp,
        tile,
        total,
        op,
        status,
        partials,
        partials.len() / 2,
        epoch,
    )
}

/// [`look_back`] with values of up to `PACK` words (at most [`MAX_PACK`])
/// in their status words, [`packed_status_words`]`::<T>(PACK)` a tile.
#[doc(hidden)]
#[inline(always)]
#[track_caller]
pub fn look_back_packing<T: Shuffle, O: Operator<T>, const PACK: usize>(
    warp: &TiledPartition<32>,
    tile: usize,
    total: T,
    op: O,
    status: &Out<u64>,
    partials: &Out<T>,
    epoch: u32,
) -> T {
    look_back_over::<T, O, PACK, false>(
        warp,
        tile,
        total,
        op,
        status,
        partials,
        partials.len() / 2,
        epoch,
    )
}

/// [`look_back_packing`] whose `partials` hold two values for each of
/// `tiles` tiles first (aggregates, then inclusive prefixes), and may hold
/// more after them; `ORDERED`: [`look_back_in_order`]'s order.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub(crate) fn look_back_over<T: Shuffle, O: Operator<T>, const PACK: usize, const ORDERED: bool>(
    warp: &TiledPartition<32>,
    tile: usize,
    total: T,
    op: O,
    status: &Out<u64>,
    partials: &Out<T>,
    tiles: usize,
    epoch: u32,
) -> T {
    let lane = warp.thread_rank() as usize;
    // Values of up to `PACK` 32-bit words travel in their tile's status
    // words, 32 bits in each: loads of the words find the value too.
    let words = packed_status_words::<T>(PACK);
    let packed = T::WORDS <= PACK && T::WORDS <= MAX_PACK;
    let flags = status.atomic();
    // A status word that carries its value's word orders nothing else: it
    // is stored and loaded relaxed (strong loads and stores at GPU scope,
    // which the L1 cache does not serve stale; an acquire load is a load
    // and a fence, which invalidates the multiprocessor's L1 cache). A
    // value in `partials` is written before a release store of its word,
    // and read after an acquire load of the word.
    let publish = |flag: u32, at: usize, value: T| {
        let tag = (epoch << 2 | flag) as u64;
        if packed {
            // Lane k stores word k.
            if lane < words {
                let word = tag | (word_at(value, lane) as u64) << 32;
                flags
                    .with_ordering(Ordering::Relaxed)
                    .store(tile * words + lane, word);
            }
        } else if lane == 0 {
            partials.write(at, value);
            flags.with_ordering(Ordering::Release).store(tile, tag);
        }
    };
    if tile == 0 {
        publish(INCLUSIVE, tiles, total);
        return op.identity();
    }
    publish(AGGREGATE, tile, total);
    let load = flags.with_ordering(if packed {
        Ordering::Relaxed
    } else {
        Ordering::Acquire
    });
    let flag_of = |word: u64| -> u32 {
        if (word as u32) >> 2 == epoch {
            (word & 3) as u32
        } else {
            0
        }
    };
    let mut running = op.identity();
    let mut end = tile;
    // In order: whether the round with the nearest inclusive prefix has
    // been found (from there the look-back walks forward again), and the
    // first round's values, kept when it had none (so that the walk
    // forward need not load them again).
    let mut found = false;
    let mut first = op.identity();
    loop {
        // Lane l looks at tile end - 1 - l, if there is one (tiles before
        // tile 0 count as an inclusive identity, never reached: tile 0 is
        // inclusive).
        let mine = lane < end;
        let j = if mine { end - 1 - lane } else { 0 };
        let mut got = [0u64; MAX_PACK];
        if mine {
            let mut w = 0;
            while w < words {
                got[w] = load.load(j * words + w);
                w += 1;
            }
        }
        // Spin until the tile has published in this scan, and (several
        // words) every word carries the same flag: a word of the aggregate
        // beside a word of the inclusive prefix is no value.
        let mut flag = INCLUSIVE;
        if mine {
            loop {
                flag = flag_of(got[0]);
                let mut ready = flag != 0;
                let mut w = 1;
                while w < words {
                    ready &= flag_of(got[w]) == flag;
                    w += 1;
                }
                if ready {
                    break;
                }
                let mut w = 0;
                while w < words {
                    got[w] = load.load(j * words + w);
                    w += 1;
                }
            }
        }
        let value = if !mine {
            op.identity()
        } else if packed {
            let mut k = 0;
            op.identity().map_words(|_| {
                k += 1;
                (got[k - 1] >> 32) as u32
            })
        } else if flag == INCLUSIVE {
            partials.read(tiles + j)
        } else {
            partials.read(j)
        };
        // The nearest tile with an inclusive prefix, or past the window;
        // tiles past it count as the identity.
        let inclusive = warp.ballot(flag == INCLUSIVE);
        let stop = if inclusive != 0 {
            inclusive.trailing_zeros() as usize
        } else {
            32
        };
        if ORDERED {
            // Back until a round has an inclusive prefix, then forward to
            // the tile, folding each round from its nearest inclusive
            // prefix (the fold up to there, whatever came before it) or
            // after the rounds before.
            if !found && stop == 32 {
                if end == tile {
                    first = value;
                }
                end -= 32;
                continue;
            }
            found = true;
            running = fold_in_order(warp, op, value, stop, running);
            if end == tile {
                break;
            }
            end += 32;
            if end == tile {
                // The first round, all aggregates when it was loaded.
                running = fold_in_order(warp, op, first, 32, running);
                break;
            }
            continue;
        }
        let value = if lane > stop { op.identity() } else { value };
        // Lane 0 is the nearest tile: combine from the farthest down.
        let window = if O::COMMUTATIVE {
            reduce(warp, value, op)
        } else {
            reduce(warp, value, Flip(op))
        };
        running = op.combine(window, running);
        if stop < 32 {
            break;
        }
        end -= 32;
    }
    publish(INCLUSIVE, tiles + tile, op.combine(running, total));
    running
}

/// A round's values (lane `l` holding the tile `l + 1` before the round's
/// end) folded one after another, from the farthest tile to the nearest:
/// from lane `stop`'s inclusive prefix when `stop < 32`, else onto
/// `running`, the fold of the tiles before the round. Warp-uniform: every
/// lane returns the fold.
#[inline(always)]
fn fold_in_order<T: Shuffle, O: Operator<T>>(
    warp: &TiledPartition<32>,
    op: O,
    value: T,
    stop: usize,
    running: T,
) -> T {
    let (mut fold, mut top) = if stop < 32 {
        (warp.shfl(value, stop as u32), stop)
    } else {
        (running, 32)
    };
    // A few lanes' values shuffled before they are combined, so that the
    // shuffles' latencies overlap and only the combinations wait on each
    // other: eight at a time for one-word values, four for larger ones.
    let batch = if T::WORDS <= 1 { 8 } else { 4 };
    while top > 0 {
        let mut got = [value; 8];
        let mut i = 0;
        while i < batch {
            let lane = if top > i { top - 1 - i } else { 0 };
            got[i] = warp.shfl(value, lane as u32);
            i += 1;
        }
        let mut i = 0;
        while i < batch {
            if top > i {
                fold = op.combine(fold, got[i]);
            }
            i += 1;
        }
        top = top.saturating_sub(batch);
    }
    fold
}

/// Word `k` of `value`'s 32-bit words.
#[inline(always)]
fn word_at<T: Shuffle>(value: T, k: usize) -> u32 {
    let mut word = 0;
    let mut i = 0;
    value.map_words(|w| {
        if i == k {
            word = w;
        }
        i += 1;
        w
    });
    word
}
