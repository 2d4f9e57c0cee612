//! Device-wide scans as functions a kernel calls: inclusive and exclusive
//! scans of a whole buffer with any associative [`Operator`], in one pass
//! over the data (decoupled look-back), or in three fixed passes whose
//! result has the same bits on every device (reduce, then scan).
//!
//! `coop_host::scan` runs [`scan`] for the built-in operators and types; a
//! kernel crate wraps [`scan`] or [`scan_scalar`] in a `#[kernel]` of this
//! shape for its own operators and types, and `coop_host::scan::Scanner`
//! launches it:
//!
//! ```
//! use coop::prelude::*;
//! use coop::device_scan::scan_scalar;
//!
//! /// Running (min, max) of a series: a user type and operator.
//! #[derive(Clone, Copy, Debug, PartialEq, Shuffle, DeviceCopy)]
//! #[repr(C)]
//! pub struct Range { pub lo: i32, pub hi: i32 }
//!
//! #[derive(Clone, Copy)]
//! pub struct Widen;
//! impl op::Operator<Range> for Widen {
//!     const COMMUTATIVE: bool = true;
//!     fn combine(&self, a: Range, b: Range) -> Range {
//!         Range { lo: a.lo.min(b.lo), hi: a.hi.max(b.hi) }
//!     }
//!     fn identity(&self) -> Range { Range { lo: i32::MAX, hi: i32::MIN } }
//! }
//!
//! #[kernel]
//! pub fn running_range(
//!     block: ThreadBlock,
//!     input: &[Range],
//!     output: Out<Range>,
//!     control: u32,
//!     status: Out<u64>,
//!     partials: Out<Range>,
//!     epoch: u32,
//! ) {
//!     scan_scalar(block, input, output, Widen, control, status, partials, epoch)
//! }
//! ```
//!
//! # The single pass
//!
//! Block `b` scans tile `b`: `threads × items` consecutive elements (items
//! per thread from [`items_per_thread`]: 16 for 1- to 4-byte types, 8 for
//! 8-byte ones, fewer for larger), each thread its own consecutive items,
//! loaded with 16-byte vector loads when the buffers allow it. The threads
//! scan their items in registers, the block scans the threads' totals
//! (warp shuffles, then the warps' totals through shared memory), and warp
//! 0 finds what comes before the tile by looking back over the tiles
//! before it:
//!
//! 1. It publishes the tile's total as an *aggregate*: the tile's status
//!    word (64 bits) with the value in its upper half when the value is one
//!    32-bit word (a relaxed store at GPU scope, `st.relaxed.gpu`: the word
//!    carries all there is), or after writing the value into `partials[b]`
//!    when it is larger (a release store, `st.release.gpu`, which orders
//!    the value's write before the word's). Tile 0 publishes its total as
//!    an *inclusive prefix* at once.
//! 2. Lane `l` reads the status words of tiles `b - 1 - l`, `b - 33 - l`,
//!    `b - 65 - l` and `b - 97 - l` (128 tiles a round, all four loads in
//!    flight at once), spinning while a tile has published nothing in this
//!    scan, then takes its value: from the word, which it loaded relaxed
//!    at GPU scope (`ld.relaxed.gpu`), or from `partials` (the aggregate
//!    in `partials[j]`, the inclusive prefix in `partials[tiles + j]`)
//!    after loading the word with an acquire load (`ld.acquire.gpu`),
//!    which orders the value's read after the word's: a lane never reads a
//!    value before it is written.
//! 3. The nearest tile with an inclusive prefix ends the look-back: the
//!    warp combines that prefix and the aggregates after it, in tile order
//!    (warp reductions with the operands swapped, [`Flip`], so that an
//!    operator that is not commutative keeps its order); with none in the
//!    round, it combines all 128 aggregates and looks at the 128 tiles
//!    before.
//! 4. It publishes the tile's inclusive prefix (as in 1) and hands the
//!    exclusive prefix to the block through shared memory.
//!
//! How far a look-back goes is the look-back's whole cost: a round takes
//! about one load's latency, and while it waits, later tiles publish only
//! aggregates. A value in the status word saves the second, dependent
//! load of a round; four tiles a lane make a round cover 128 tiles, so
//! that the rounds keep up with the tiles coming in (chapter 7 of the
//! guide has the figures).
//!
//! A tile waits only for tiles before it, which started before it: a
//! block's tile is its block index, and the GPU starts blocks in index
//! order, as CUB's scans also assume. Status words carry the scan's
//! `epoch` (a number the host changes on every scan) beside the flag, so
//! the words need no clearing between scans.
//!
//! Floating-point results depend on where each look-back stopped, which
//! depends on timing: two runs can differ in the last bits, as CUB's do.
//!
//! # The deterministic passes
//!
//! With the same tiles: every block computes its tile's total exactly as
//! the single pass does and stores it; one block scans the totals (in
//! order, one chunk of `threads × items` after another); every block scans
//! its tile again with its prefix in front. Nothing depends on timing or on
//! the device: the tiles and every combination's order are fixed by the
//! input's length alone, and the CPU backend runs the same code, so a
//! float scan has the same bits on every GPU and on the CPU backend. It
//! reads the input twice.
//!
//! # The control word
//!
//! `control` bit 0 is set for an exclusive scan (rank `i` gets the
//! elements before `i`; element 0 the operator's identity); bits 1 and 2
//! give the pass, [`SINGLE_PASS`], [`TILE_TOTALS`], [`SCAN_TOTALS`] or
//! [`WITH_PREFIXES`]. `status` has a `u64` per tile, `partials` two
//! (aggregates, then inclusive prefixes; the deterministic passes use the
//! first half), and `epoch` is in `1..2^30`.

use crate::atomic::Ordering;
use crate::grid_reduce::Vectorized;
use crate::op::{Flip, Operator};
use crate::reduce::scan_with_prefix;
use crate::{reduce, this_grid, Out, Shuffle, ThreadBlock, TiledPartition};

/// The pass of a single-pass scan (decoupled look-back).
pub const SINGLE_PASS: u32 = 0;
/// The first deterministic pass: every tile's total into `partials[tile]`.
pub const TILE_TOTALS: u32 = 1 << 1;
/// The second deterministic pass, one block: the tiles' totals in
/// `partials` become their exclusive scan, in place.
pub const SCAN_TOTALS: u32 = 2 << 1;
/// The third deterministic pass: every tile scanned with `partials[tile]`
/// in front.
pub const WITH_PREFIXES: u32 = 3 << 1;
/// The control bit of an exclusive scan.
pub const EXCLUSIVE: u32 = 1;

/// Most items a thread scans.
const MAX_ITEMS: usize = 16;

/// Items each thread of a scan holds, for elements of `T`: 64 bytes of
/// them (four 16-byte loads), from 1 to 16.
///
/// ```
/// use coop::device_scan::items_per_thread;
/// assert_eq!(items_per_thread::<u32>(), 16);
/// assert_eq!(items_per_thread::<f64>(), 8);
/// assert_eq!(items_per_thread::<[u64; 4]>(), 2);
/// ```
pub const fn items_per_thread<T>() -> usize {
    let size = core::mem::size_of::<T>();
    if size == 0 {
        return MAX_ITEMS;
    }
    let items = 64 / size;
    if items > MAX_ITEMS {
        MAX_ITEMS
    } else if items == 0 {
        1
    } else {
        items
    }
}

/// Tiles of a scan of `len` elements of `T` by blocks of `threads`: the
/// grid a launch of every pass but [`SCAN_TOTALS`] needs (at least 1).
///
/// ```
/// use coop::device_scan::tiles;
/// assert_eq!(tiles::<u32>(1 << 20, 256), 256);
/// assert_eq!(tiles::<u32>(0, 256), 1);
/// ```
pub const fn tiles<T>(len: usize, threads: u32) -> usize {
    let tile = threads as usize * items_per_thread::<T>();
    let n = len.div_ceil(tile);
    if n == 0 {
        1
    } else {
        n
    }
}

/// A scan of `input` into `output` (of the same length) with `op`, for the
/// primitive element types, which load and store as 16-byte vectors where
/// both buffers allow; see the [module docs](self) for the passes and the
/// parameters. The block's thread count must be a multiple of 32.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "DeviceScan")]
pub fn scan<T: Vectorized, O: Operator<T>>(
    block: ThreadBlock,
    input: &[T],
    output: Out<T>,
    op: O,
    control: u32,
    status: Out<u64>,
    partials: Out<T>,
    epoch: u32,
) {
    let items = items_per_thread::<T>();
    let vector = items.is_multiple_of(T::LANES)
        && (input.as_ptr() as usize).is_multiple_of(16)
        && (output.as_mut_ptr() as usize).is_multiple_of(16);
    let load = |base: usize, x: &mut [T; MAX_ITEMS]| {
        if vector {
            let chunks = input.as_ptr() as *const T::Chunk;
            let mut c = 0;
            while c < items / T::LANES {
                // SAFETY: a full tile: `base + items <= input.len()`; `base`
                // is a multiple of `items`, itself of `LANES`, and the
                // buffer starts 16-byte aligned.
                let chunk = unsafe { *chunks.add(base / T::LANES + c) };
                let mut l = 0;
                while l < T::LANES {
                    x[c * T::LANES + l] = T::lane(chunk, l);
                    l += 1;
                }
                c += 1;
            }
        } else {
            load_scalar(input, base, items, x);
        }
    };
    let store = |base: usize, y: &[T; MAX_ITEMS]| {
        if vector {
            let mut c = 0;
            while c < items / T::LANES {
                let chunk = T::chunk_from_fn(|l| y[c * T::LANES + l]);
                // SAFETY: a full tile of `output`, which is as long as
                // `input`, at a multiple of `LANES` elements from a 16-byte
                // aligned start; a chunk is `LANES` elements.
                unsafe { output.write_chunk(base + c * T::LANES, T::LANES, chunk) };
                c += 1;
            }
        } else {
            store_scalar(&output, base, items, y);
        }
    };
    run(
        &block,
        input.len(),
        op,
        control,
        status,
        partials,
        epoch,
        items,
        load,
        store,
        |i| input[i],
        |i, v| output.write(i, v),
    )
}

/// [`scan`] for element types without a vector form (user structs): one
/// element per load and store.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn scan_scalar<T: Shuffle, O: Operator<T>>(
    block: ThreadBlock,
    input: &[T],
    output: Out<T>,
    op: O,
    control: u32,
    status: Out<u64>,
    partials: Out<T>,
    epoch: u32,
) {
    let items = items_per_thread::<T>();
    run(
        &block,
        input.len(),
        op,
        control,
        status,
        partials,
        epoch,
        items,
        |base, x: &mut [T; MAX_ITEMS]| load_scalar(input, base, items, x),
        |base, y: &[T; MAX_ITEMS]| store_scalar(&output, base, items, y),
        |i| input[i],
        |i, v| output.write(i, v),
    )
}

#[inline(always)]
fn load_scalar<T: Copy>(input: &[T], base: usize, items: usize, x: &mut [T; MAX_ITEMS]) {
    let mut i = 0;
    while i < items {
        x[i] = input[base + i];
        i += 1;
    }
}

#[inline(always)]
#[track_caller]
fn store_scalar<T: Copy>(output: &Out<T>, base: usize, items: usize, y: &[T; MAX_ITEMS]) {
    let mut i = 0;
    while i < items {
        output.write(base + i, y[i]);
        i += 1;
    }
}

/// The pass `control` names over this block's tile; `load` and `store`
/// move a full tile's items of one thread (at `base`), `load_one` and
/// `store_one` the elements of the partial last tile.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn run<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    len: usize,
    op: O,
    control: u32,
    status: Out<u64>,
    partials: Out<T>,
    epoch: u32,
    items: usize,
    load: impl Fn(usize, &mut [T; MAX_ITEMS]),
    store: impl Fn(usize, &[T; MAX_ITEMS]),
    load_one: impl Fn(usize) -> T,
    store_one: impl Fn(usize, T),
) {
    let site = core::panic::Location::caller();
    let exclusive = control & EXCLUSIVE != 0;
    let pass = control & (3 << 1);
    let threads = block.num_threads() as usize;
    let tile_len = threads * items;
    let tile = this_grid().block_rank();
    let t = block.thread_rank() as usize;
    if pass == SCAN_TOTALS {
        return scan_totals(block, op, &partials, len.div_ceil(tile_len), items, site);
    }
    let start = tile * tile_len;
    let base = start + t * items;
    let full = start + tile_len <= len;
    let mut x = [op.identity(); MAX_ITEMS];
    if full {
        load(base, &mut x);
    } else {
        // The last tile: elements past the end are the identity.
        let mut i = 0;
        while i < items {
            if base + i < len {
                x[i] = load_one(base + i);
            }
            i += 1;
        }
    }
    let (mut y, before) = match pass {
        SINGLE_PASS => scan_items(block, op, &x, items, site, |warp, total| {
            look_back(warp, tile, total, op, &status, &partials, epoch)
        }),
        TILE_TOTALS => {
            scan_items(block, op, &x, items, site, |warp, total| {
                if warp.thread_rank() == 0 {
                    partials.write(tile, total);
                }
                op.identity()
            });
            return;
        }
        _ => scan_items(block, op, &x, items, site, |_, _| partials.read(tile)),
    };
    if exclusive {
        // Shift by one: item i gets what came before it.
        let mut i = items;
        while i > 1 {
            i -= 1;
            y[i] = y[i - 1];
        }
        y[0] = before;
    }
    if full {
        store(base, &y);
    } else {
        let mut i = 0;
        while i < items && base + i < len {
            store_one(base + i, y[i]);
            i += 1;
        }
    }
}

/// Scans one thread's items in registers, then the block's threads with
/// `prefix` (called by warp 0 with the block's total) in front: returns
/// the inclusive results of the items, and what comes before the thread's
/// first item.
#[inline(always)]
fn scan_items<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    op: O,
    x: &[T; MAX_ITEMS],
    items: usize,
    site: crate::backend::Site,
    prefix: impl FnOnce(&TiledPartition<32>, T) -> T,
) -> ([T; MAX_ITEMS], T) {
    let mut y = *x;
    let mut i = 1;
    while i < items {
        y[i] = op.combine(y[i - 1], y[i]);
        i += 1;
    }
    let (_, before, _, _) = scan_with_prefix(block, y[items - 1], op, "scan", site, prefix);
    let mut i = 0;
    while i < items {
        y[i] = op.combine(before, y[i]);
        i += 1;
    }
    (y, before)
}

/// The flag of a tile that has published its aggregate (the status word
/// is `value << 32 | epoch << 2 | flag`, the value there for values of one
/// 32-bit word).
#[doc(hidden)]
pub const AGGREGATE: u32 = 1;
/// The flag of a tile that has published its inclusive prefix.
#[doc(hidden)]
pub const INCLUSIVE: u32 = 2;

/// Warp 0 of tile `tile`: publishes the tile's total, finds what comes
/// before the tile from the tiles before it, and publishes the tile's
/// inclusive prefix (see the module docs). Every lane returns the
/// exclusive prefix. Public for the workspace's tests, which give it tile
/// states made by hand.
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
    let lane = warp.thread_rank() as usize;
    let tiles = partials.len() / 2;
    // A value of one 32-bit word travels in its tile's status word: one
    // load finds both.
    let packed = T::WORDS == 1;
    let flags = status.atomic();
    // A status word that carries its value orders nothing else: it is
    // stored and loaded relaxed (strong loads and stores at GPU scope,
    // which the L1 cache does not serve stale; an acquire load is a load
    // and a fence, which invalidates the multiprocessor's L1 cache). A
    // value in `partials` is written before a release store of its word,
    // and read after an acquire load of the word.
    let publish = |flag: u32, at: usize, value: T| {
        if lane == 0 {
            let tag = (epoch << 2 | flag) as u64;
            if packed {
                let word = tag | (word_of(value) as u64) << 32;
                flags.with_ordering(Ordering::Relaxed).store(tile, word);
            } else {
                partials.write(at, value);
                flags.with_ordering(Ordering::Release).store(tile, tag);
            }
        }
    };
    if tile == 0 {
        publish(INCLUSIVE, tiles, total);
        return op.identity();
    }
    publish(AGGREGATE, tile, total);
    // Values in the words: relaxed loads. Values in `partials`: acquire
    // loads, which measured faster on an H100 than relaxed loads and a
    // fence a round (u64 sums of 2^28: 1240 GB/s against 1061).
    let relaxed = flags.with_ordering(if packed {
        Ordering::Relaxed
    } else {
        Ordering::Acquire
    });
    let ready = |word: u64| (word as u32) >> 2 == epoch && word & 3 != 0;
    let mut running = op.identity();
    let mut end = tile;
    loop {
        // Lane l looks at tiles end - 1 - (l + 32 k) for k < WINDOW: all
        // the loads first, then each waits for its tile.
        let mut words = [0u64; WINDOW];
        let mut k = 0;
        while k < WINDOW {
            let p = lane + 32 * k;
            if p < end {
                words[k] = relaxed.load(end - 1 - p);
            }
            k += 1;
        }
        // One spin loop over all four (a loop inside the loop over `k`
        // would keep the compiler from unrolling it, and the words would go
        // to local memory).
        loop {
            let mut waiting = false;
            let mut k = 0;
            while k < WINDOW {
                let p = lane + 32 * k;
                if p < end && !ready(words[k]) {
                    words[k] = relaxed.load(end - 1 - p);
                    waiting = true;
                }
                k += 1;
            }
            if !waiting {
                break;
            }
        }
        // Tiles before tile 0 count as an inclusive identity, never reached
        // (tile 0 is inclusive).
        let mut values = [op.identity(); WINDOW];
        let mut inclusive = [0u32; WINDOW];
        let mut k = 0;
        while k < WINDOW {
            let p = lane + 32 * k;
            let flag = if p < end {
                let flag = (words[k] & 3) as u32;
                let j = end - 1 - p;
                values[k] = if packed {
                    word_to(op.identity(), (words[k] >> 32) as u32)
                } else if flag == INCLUSIVE {
                    partials.read(tiles + j)
                } else {
                    partials.read(j)
                };
                flag
            } else {
                INCLUSIVE
            };
            inclusive[k] = warp.ballot(flag == INCLUSIVE);
            k += 1;
        }
        // The nearest tile with an inclusive prefix, or past the window.
        let mut stop = 32 * WINDOW;
        let mut k = WINDOW;
        while k > 0 {
            k -= 1;
            if inclusive[k] != 0 {
                stop = 32 * k + inclusive[k].trailing_zeros() as usize;
            }
        }
        let mut k = 0;
        while k < WINDOW {
            if lane + 32 * k > stop {
                values[k] = op.identity();
            }
            k += 1;
        }
        // Position 0 is the nearest tile: combine from the farthest down.
        let window = if O::COMMUTATIVE {
            let mut mine = values[0];
            let mut k = 1;
            while k < WINDOW {
                mine = op.combine(mine, values[k]);
                k += 1;
            }
            reduce(warp, mine, op)
        } else {
            let mut window = op.identity();
            let mut k = WINDOW;
            while k > 0 {
                k -= 1;
                window = op.combine(window, reduce(warp, values[k], Flip(op)));
            }
            window
        };
        running = op.combine(window, running);
        if stop < 32 * WINDOW {
            break;
        }
        end -= 32 * WINDOW;
    }
    publish(INCLUSIVE, tiles + tile, op.combine(running, total));
    running
}

/// Tiles a lane of the look-back looks at in one round: 32 of them a round
/// for each.
const WINDOW: usize = 4;

/// The one 32-bit word of a value of one word.
#[inline(always)]
fn word_of<T: Shuffle>(value: T) -> u32 {
    let mut word = 0;
    value.map_words(|w| {
        word = w;
        w
    });
    word
}

/// The value of one word `word` (from [`word_of`] of a `T`), `like` giving
/// the shape.
#[inline(always)]
fn word_to<T: Shuffle>(like: T, word: u32) -> T {
    // The word came from `word_of` of a `T` (the `Shuffle` contract).
    like.map_words(|_| word)
}

/// The deterministic scan's second pass, in one block: the first `tiles`
/// elements of `partials` (the tiles' totals) become their exclusive scan,
/// chunk after chunk of `threads × items`, each chunk scanned as a tile is
/// with the total of the chunks before it in front.
#[inline(always)]
fn scan_totals<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    op: O,
    partials: &Out<T>,
    tiles: usize,
    items: usize,
    site: crate::backend::Site,
) {
    let tiles = tiles.max(1);
    let threads = block.num_threads() as usize;
    let chunk = threads * items;
    let t = block.thread_rank() as usize;
    let mut carry = op.identity();
    let mut start = 0;
    while start < tiles {
        let base = start + t * items;
        let mut x = [op.identity(); MAX_ITEMS];
        let mut i = 0;
        while i < items {
            if base + i < tiles {
                x[i] = partials.read(base + i);
            }
            i += 1;
        }
        let mut y = x;
        let mut i = 1;
        while i < items {
            y[i] = op.combine(y[i - 1], y[i]);
            i += 1;
        }
        let (_, before, _, chunk_total) =
            scan_with_prefix(block, y[items - 1], op, "scan", site, |_, _| carry);
        // Exclusive: item i gets everything before it.
        let mut i = 0;
        while i < items {
            if base + i < tiles {
                let previous = if i == 0 {
                    before
                } else {
                    op.combine(before, y[i - 1])
                };
                partials.write(base + i, previous);
            }
            i += 1;
        }
        carry = op.combine(carry, chunk_total);
        start += chunk;
    }
}
