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
//! use coop::device::scan::scan_scalar;
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
//! per thread from [`items_per_thread`]: 128 bytes of them, 32 of a 4-byte
//! type, 16 of an 8-byte one). Warp `w` holds the `w`-th run of `32 ×
//! items` elements, in rows of `32 × row` (`row` from [`items_per_row`]:
//! 16 bytes of elements): lane `l` holds elements `l × row .. (l + 1) ×
//! row` of each row, so that a warp's load or store of a row is one
//! 16-byte vector a lane over 512 consecutive bytes where the buffers are
//! 16-byte aligned. Each lane scans its part of a row in registers; a warp
//! scan of the lanes' totals (shuffles) and the total of the rows before
//! give every element its prefix within the warp; the warps' totals meet
//! in shared memory; and warp 0 finds what comes before the tile by
//! looking back over the tiles before it:
//!
//! 1. It publishes the tile's total as an *aggregate* in the tile's status
//!    words (64 bits each: `epoch << 2 | flag` in the lower half). A value
//!    of one or two 32-bit words travels in them, one word of the value in
//!    the upper half of each ([`status_words`]), stored relaxed at GPU
//!    scope (`st.relaxed.gpu`, lane `k` storing word `k`): each word
//!    carries all it has to say. A larger value is written into
//!    `partials[b]` first, and the one status word then with a release
//!    store (`st.release.gpu`), which orders the value's write before the
//!    word's. Tile 0 publishes its total as an *inclusive prefix* at once.
//! 2. Lane `l` reads the status words of tile `b - 1 - l` (32 tiles a
//!    round), spinning until the tile has published in this scan and, for
//!    a value in two words, until both words carry the same flag: a word of
//!    the aggregate beside a word of the inclusive prefix is no value. It
//!    takes the value from the words, which it loaded relaxed at GPU scope
//!    (`ld.relaxed.gpu`), or from `partials` (the aggregate in
//!    `partials[j]`, the inclusive prefix in `partials[tiles + j]`) after
//!    loading the word with an acquire load (`ld.acquire.gpu`), which
//!    orders the value's read after the word's: a lane never reads a value
//!    before it is written.
//! 3. The nearest tile with an inclusive prefix ends the look-back: the
//!    warp combines that prefix and the aggregates after it, in tile order
//!    (a warp reduction with the operands swapped, [`Flip`](crate::op::Flip), so that an
//!    operator that is not commutative keeps its order); with none in the
//!    round, it combines all 32 aggregates and looks at the 32 tiles
//!    before.
//! 4. It publishes the tile's inclusive prefix (as in 1) and hands the
//!    exclusive prefix to the block through shared memory.
//!
//! Every 64-bit status word is one single-copy atomic access, so no
//! ordering is needed between a tile's two words: a reader that sees both
//! with this scan's epoch and the same flag has the value those two stores
//! wrote. What limits the scan is how many tiles are in flight: while warp
//! 0 looks back the block's other warps wait at a barrier, so the more
//! blocks fit on a multiprocessor the better; the 4-byte kernels of
//! `coop-host` are built with a cap of 64 registers a thread for that
//! (`coop_build::PtxBuilder::max_registers`). Chapter 7 of the guide has
//! the figures for each choice.
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
//! input's length and the block's thread count alone (the host's default
//! for the latter depends on the element type only), and the CPU backend
//! runs the same code, so a
//! float scan has the same bits on every GPU and on the CPU backend. It
//! reads the input twice.
//!
//! # The control word
//!
//! `control` bit 0 is set for an exclusive scan (rank `i` gets the
//! elements before `i`; element 0 the operator's identity); bits 1 and 2
//! give the pass, [`SINGLE_PASS`], [`TILE_TOTALS`], [`SCAN_TOTALS`] or
//! [`WITH_PREFIXES`]. `status` has two `u64`s per tile, `partials` two
//! (aggregates, then inclusive prefixes; the deterministic passes use the
//! first half), and `epoch` is in `1..2^30`.

pub use crate::device::look_back::status_words;
#[doc(hidden)]
pub use crate::device::look_back::{look_back, AGGREGATE, INCLUSIVE};

use crate::backend::target::Target;
use crate::backend::Faults;
use crate::collectives;
use crate::device::vector::Vectorized;
use crate::op::Operator;
use crate::{this_grid, Out, Shuffle, ThreadBlock, TiledPartition};

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
const MAX_ITEMS: usize = 32;

/// Most rows a thread holds.
const MAX_ROWS: usize = 12;

/// `body` for each row `r` below `rows` (at most [`MAX_ROWS`]): written out
/// on the GPU, where LLVM leaves a loop whose shuffles move 8-byte values
/// rolled (and the items then go to local memory); a loop elsewhere, where
/// twelve copies would overflow a CPU-backend thread's stack in a debug
/// build.
macro_rules! unrolled_rows {
    ($rows:expr, |$r:ident| $body:block) => {
        #[cfg(target_arch = "nvptx64")]
        unrolled_rows!(@ $rows, $r, $body, 0 1 2 3 4 5 6 7 8 9 10 11);
        #[cfg(not(target_arch = "nvptx64"))]
        for $r in 0..$rows {
            $body
        }
    };
    (@ $rows:expr, $r:ident, $body:block, $($k:literal)*) => {
        $(
            if $k < $rows {
                let $r: usize = $k;
                $body
            }
        )*
    };
}

/// Bytes of elements each thread holds.
const THREAD_BYTES: usize = 128;
/// Bytes of elements a thread holds in each row: one 16-byte vector.
const ROW_BYTES: usize = 16;

/// Consecutive elements of `T` a thread holds in each row of its tile: 16
/// bytes of them (one vector load), at least 1.
///
/// ```
/// use coop::device::scan::{items_per_row, items_per_thread};
/// assert_eq!(items_per_row::<u32>(), 4);
/// assert_eq!(items_per_row::<f64>(), 2);
/// assert_eq!(items_per_row::<[u64; 4]>(), 1);
/// assert!(items_per_thread::<u32>().is_multiple_of(items_per_row::<u32>()));
/// ```
pub const fn items_per_row<T>() -> usize {
    let size = core::mem::size_of::<T>();
    let row = if size == 0 || size >= ROW_BYTES {
        1
    } else {
        ROW_BYTES / size
    };
    let items = items_unrounded::<T>();
    if row > items {
        items
    } else {
        row
    }
}

const fn items_unrounded<T>() -> usize {
    let size = core::mem::size_of::<T>();
    if size == 0 {
        return MAX_ITEMS;
    }
    let items = THREAD_BYTES / size;
    if items > MAX_ITEMS {
        MAX_ITEMS
    } else if items == 0 {
        1
    } else {
        items
    }
}

/// Items each thread of a scan holds, for elements of `T`: 128 bytes of
/// them, from 1 to 32, a whole number of rows of [`items_per_row`] (at
/// most 12 rows).
///
/// ```
/// use coop::device::scan::items_per_thread;
/// assert_eq!(items_per_thread::<u32>(), 32);
/// assert_eq!(items_per_thread::<f64>(), 16);
/// assert_eq!(items_per_thread::<[u64; 4]>(), 4);
/// assert_eq!(items_per_thread::<[u8; 24]>(), 5);
/// ```
pub const fn items_per_thread<T>() -> usize {
    let items = items_unrounded::<T>();
    let row = items_per_row::<T>();
    let items = items - items % row;
    if items > MAX_ROWS * row {
        MAX_ROWS * row
    } else {
        items
    }
}

/// Tiles of a scan of `len` elements of `T` by blocks of `threads`: the
/// grid a launch of every pass but [`SCAN_TOTALS`] needs (at least 1).
///
/// ```
/// use coop::device::scan::{items_per_thread, tiles};
/// let tile = 256 * items_per_thread::<u32>();
/// assert_eq!(tiles::<u32>(100 * tile, 256), 100);
/// assert_eq!(tiles::<u32>(100 * tile + 1, 256), 101);
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
    output_fits(input.len(), &output);
    let items = items_per_thread::<T>();
    let row = items_per_row::<T>();
    let vector = row.is_multiple_of(T::LANES)
        && (input.as_ptr() as usize).is_multiple_of(16)
        && (output.as_mut_ptr() as usize).is_multiple_of(16);
    let load = |first: usize, stride: usize, x: &mut [T; MAX_ITEMS]| {
        if vector {
            let chunks = input.as_ptr() as *const T::Chunk;
            let mut r = 0;
            while r < items / row {
                let mut c = 0;
                while c < row / T::LANES {
                    // SAFETY: a full tile: every row of the thread is in
                    // `input`; `first` and `stride` are multiples of `row`,
                    // itself of `LANES`, and the buffer starts 16-byte
                    // aligned.
                    let chunk = unsafe { *chunks.add((first + r * stride) / T::LANES + c) };
                    let mut l = 0;
                    while l < T::LANES {
                        x[r * row + c * T::LANES + l] = T::lane(chunk, l);
                        l += 1;
                    }
                    c += 1;
                }
                r += 1;
            }
        } else {
            load_scalar(input, first, stride, items, row, x);
        }
    };
    let store = |first: usize, stride: usize, y: &[T; MAX_ITEMS]| {
        if vector {
            let mut r = 0;
            while r < items / row {
                let mut c = 0;
                while c < row / T::LANES {
                    let o = r * row + c * T::LANES;
                    let chunk = T::chunk_from_fn(|l| y[o + l]);
                    // SAFETY: a full tile of `output`, which is as long as
                    // `input`, at a multiple of `LANES` elements from a
                    // 16-byte aligned start; a chunk is `LANES` elements.
                    unsafe {
                        output.write_chunk(first + r * stride + c * T::LANES, T::LANES, chunk)
                    };
                    c += 1;
                }
                r += 1;
            }
        } else {
            store_scalar(&output, first, stride, items, row, y);
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
        load,
        store,
        |i| input[i],
        // SAFETY: `i < input.len()`, which `output_fits` checked.
        |i, v| unsafe { output.write_in_bounds(i, v) },
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
    output_fits(input.len(), &output);
    let items = items_per_thread::<T>();
    let row = items_per_row::<T>();
    run(
        &block,
        input.len(),
        op,
        control,
        status,
        partials,
        epoch,
        |first, stride, x: &mut [T; MAX_ITEMS]| load_scalar(input, first, stride, items, row, x),
        |first, stride, y: &[T; MAX_ITEMS]| store_scalar(&output, first, stride, items, row, y),
        |i| input[i],
        // SAFETY: `i < input.len()`, which `output_fits` checked.
        |i, v| unsafe { output.write_in_bounds(i, v) },
    )
}

/// Faults (at the caller's caller) unless `output` holds `len` elements.
#[inline(always)]
#[track_caller]
fn output_fits<T: Copy>(len: usize, output: &Out<T>) {
    if output.len() < len {
        Target::index_out_of_bounds(
            c"device_scan: the output (as long as the input)",
            output.as_mut_ptr() as *const u8,
            len - 1,
            output.len(),
            core::panic::Location::caller(),
        );
    }
}

#[inline(always)]
fn load_scalar<T: Copy>(
    input: &[T],
    first: usize,
    stride: usize,
    items: usize,
    row: usize,
    x: &mut [T; MAX_ITEMS],
) {
    let mut i = 0;
    while i < items {
        x[i] = input[first + (i / row) * stride + i % row];
        i += 1;
    }
}

#[inline(always)]
#[track_caller]
fn store_scalar<T: Copy>(
    output: &Out<T>,
    first: usize,
    stride: usize,
    items: usize,
    row: usize,
    y: &[T; MAX_ITEMS],
) {
    let mut i = 0;
    while i < items {
        output.write(first + (i / row) * stride + i % row, y[i]);
        i += 1;
    }
}

/// The pass `control` names over this block's tile; `load` and `store`
/// move a full tile's items of one thread (its first element and the
/// distance between its rows), `load_one` and `store_one` the elements of
/// the partial last tile.
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
    load: impl Fn(usize, usize, &mut [T; MAX_ITEMS]),
    store: impl Fn(usize, usize, &[T; MAX_ITEMS]),
    load_one: impl Fn(usize) -> T,
    store_one: impl Fn(usize, T),
) {
    // One copy of the pass for each kind of result, so that the choice is
    // made once, not inside every row's unrolled loop.
    if control & EXCLUSIVE != 0 {
        run_pass::<T, O, true>(
            block, len, op, control, status, partials, epoch, &load, &store, &load_one, &store_one,
        )
    } else {
        run_pass::<T, O, false>(
            block, len, op, control, status, partials, epoch, &load, &store, &load_one, &store_one,
        )
    }
}

/// [`run`] for an exclusive scan or an inclusive one.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn run_pass<T: Shuffle, O: Operator<T>, const EXCLUSIVE_RESULTS: bool>(
    block: &ThreadBlock,
    len: usize,
    op: O,
    control: u32,
    status: Out<u64>,
    partials: Out<T>,
    epoch: u32,
    load: impl Fn(usize, usize, &mut [T; MAX_ITEMS]),
    store: impl Fn(usize, usize, &[T; MAX_ITEMS]),
    load_one: impl Fn(usize) -> T,
    store_one: impl Fn(usize, T),
) {
    let site = core::panic::Location::caller();
    let items = items_per_thread::<T>();
    let row = items_per_row::<T>();
    let pass = control & (3 << 1);
    let threads = block.num_threads() as usize;
    let tile_len = threads * items;
    let tile = this_grid().block_rank();
    let t = block.thread_rank() as usize;
    if pass == SCAN_TOTALS {
        return scan_totals(block, op, &partials, len.div_ceil(tile_len), site);
    }
    // Warp w holds elements [w * 32 * items, (w + 1) * 32 * items) of the
    // tile, in rows of 32 * row: lane l holds elements [l * row, (l + 1) *
    // row) of each.
    let (w, lane) = (t / 32, t % 32);
    let stride = 32 * row;
    let first = tile * tile_len + w * 32 * items + lane * row;
    let at = |i: usize| first + (i / row) * stride + i % row;
    let full = (tile + 1) * tile_len <= len;
    let mut x = [op.identity(); MAX_ITEMS];
    if full {
        load(first, stride, &mut x);
    } else {
        // The last tile: elements past the end are the identity.
        let mut i = 0;
        while i < items {
            if at(i) < len {
                x[i] = load_one(at(i));
            }
            i += 1;
        }
    }
    match pass {
        SINGLE_PASS => {
            scan_items::<T, O, EXCLUSIVE_RESULTS>(block, op, &mut x, site, |warp, total| {
                look_back(warp, tile, total, op, &status, &partials, epoch)
            })
        }
        TILE_TOTALS => {
            scan_items::<T, O, EXCLUSIVE_RESULTS>(block, op, &mut x, site, |warp, total| {
                if warp.thread_rank() == 0 {
                    partials.write(tile, total);
                }
                op.identity()
            });
            return;
        }
        _ => scan_items::<T, O, EXCLUSIVE_RESULTS>(block, op, &mut x, site, |_, _| {
            partials.read(tile)
        }),
    };
    if full {
        store(first, stride, &x);
    } else {
        // The thread's elements before the end are its first `valid`
        // items (tested so, not with the loads' test, so that the
        // compiler keeps one count instead of a predicate an item).
        let valid = valid_items(len.saturating_sub(first), row, stride, items);
        let mut i = 0;
        while i < items {
            if i < valid {
                store_one(at(i), x[i]);
            }
            i += 1;
        }
    }
}

/// How many of a thread's `items` (rows of `row` consecutive elements,
/// `stride` apart) lie within the first `rest` elements from its first.
#[inline(always)]
fn valid_items(rest: usize, row: usize, stride: usize, items: usize) -> usize {
    let n = (rest / stride) * row + (rest % stride).min(row);
    n.min(items)
}

/// Scans the thread's items (rows of [`items_per_row`], each row of the
/// warp consecutive in the tile) in place: inclusive, or exclusive with
/// `EXCLUSIVE_RESULTS`; then the warps' totals through the block with `prefix`
/// (called by warp 0 with the block's total) in front. Returns what comes
/// before the tile and the tile's total.
#[inline(always)]
fn scan_items<T: Shuffle, O: Operator<T>, const EXCLUSIVE_RESULTS: bool>(
    block: &ThreadBlock,
    op: O,
    x: &mut [T; MAX_ITEMS],
    site: crate::backend::Site,
    prefix: impl FnOnce(&TiledPartition<32>, T) -> T,
) -> (T, T) {
    let items = items_per_thread::<T>();
    let row = items_per_row::<T>();
    let warp = block.tiled_partition_at::<32>(site);
    let lane = warp.thread_rank_at(site);
    // What the rows before this one hold, in the whole warp.
    let mut carry = op.identity();
    unrolled_rows!(items / row, |r| {
        let o = r * row;
        let mut l = 1;
        while l < row {
            x[o + l] = op.combine(x[o + l - 1], x[o + l]);
            l += 1;
        }
        let inclusive = collectives::warp_inclusive_scan(&warp, x[o + row - 1], op, site);
        let within = warp.shfl_up_at(inclusive, 1, site);
        let row_total = warp.shfl_at(inclusive, 31, site);
        let base = if lane == 0 {
            carry
        } else {
            op.combine(carry, within)
        };
        if EXCLUSIVE_RESULTS {
            let mut l = row;
            while l > 1 {
                l -= 1;
                x[o + l] = op.combine(base, x[o + l - 1]);
            }
            x[o] = base;
        } else {
            let mut l = 0;
            while l < row {
                x[o + l] = op.combine(base, x[o + l]);
                l += 1;
            }
        }
        carry = op.combine(carry, row_total);
    });
    let (before, p, total) =
        collectives::prefix_of_warps(block, &warp, carry, 0, op, "scan", site, prefix);
    let mut i = 0;
    while i < items {
        x[i] = op.combine(before, x[i]);
        i += 1;
    }
    (p, total)
}

/// The deterministic scan's second pass, in one block: the first `tiles`
/// elements of `partials` (the tiles' totals) become their exclusive scan,
/// chunk after chunk of `threads × items`, each chunk laid out and scanned
/// as a tile is, with the total of the chunks before it in front.
#[inline(always)]
fn scan_totals<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    op: O,
    partials: &Out<T>,
    tiles: usize,
    site: crate::backend::Site,
) {
    let items = items_per_thread::<T>();
    let row = items_per_row::<T>();
    let tiles = tiles.max(1);
    if tiles > partials.len() {
        Target::index_out_of_bounds(
            c"device_scan: partials (a value a tile)",
            partials.as_mut_ptr() as *const u8,
            tiles - 1,
            partials.len(),
            site,
        );
    }
    let threads = block.num_threads() as usize;
    let chunk = threads * items;
    let t = block.thread_rank() as usize;
    let first = (t / 32) * 32 * items + (t % 32) * row;
    let at = |start: usize, i: usize| start + first + (i / row) * 32 * row + i % row;
    let mut carry = op.identity();
    let mut start = 0;
    while start < tiles {
        let mut x = [op.identity(); MAX_ITEMS];
        let mut i = 0;
        while i < items {
            if at(start, i) < tiles {
                // SAFETY: below `tiles`, checked against the length above.
                x[i] = unsafe { partials.read_in_bounds(at(start, i)) };
            }
            i += 1;
        }
        let (_, chunk_total) = scan_items::<T, O, true>(block, op, &mut x, site, |_, _| carry);
        // As for the last tile of a pass: a count, not the loads' tests.
        let valid = valid_items(tiles.saturating_sub(start + first), row, 32 * row, items);
        let mut i = 0;
        while i < items {
            if i < valid {
                // SAFETY: as for the reads.
                unsafe { partials.write_in_bounds(at(start, i), x[i]) };
            }
            i += 1;
        }
        carry = op.combine(carry, chunk_total);
        start += chunk;
    }
}
