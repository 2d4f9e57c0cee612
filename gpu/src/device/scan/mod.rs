//! Device-wide scans as functions a kernel calls: inclusive and exclusive
//! scans of a whole buffer with any associative [`Operator`], in one pass
//! over the data (decoupled look-back), with the tiles before each tile
//! combined as they come or in a fixed order whose result has the same
//! bits on every device.
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
//! type, 16 of an 8-byte one). Thread `t` scans the run of elements `t ×
//! items .. (t + 1) × items` of the tile. The tile passes through the
//! launch's dynamic shared memory ([`shared_memory_bytes`]): a full tile
//! of a buffer that starts 16-byte aligned arrives by `cp.async`, each
//! thread copying 16-byte chunks in turn so that a warp's copies cover 512
//! consecutive bytes, and leaves the same way by 16-byte vector stores;
//! a partial tile, an unaligned buffer or a user type moves element by
//! element, consecutive threads taking consecutive elements. A thread
//! reads its run from shared memory (chunks placed so that the reads do
//! not conflict), reduces it in registers, and a warp scan of the runs'
//! totals (shuffles) and the warps' totals (through shared memory) give
//! each run what comes before it in the tile; warp 0 finds what comes
//! before the tile by looking back over the tiles before it. Meanwhile no
//! register holds a run of a type of more than one word: each thread reads
//! it again afterwards. The thread scans its run with its prefix in front
//! and writes it back for the store.
//!
//! That is the *staged* variant. An inclusive single pass of a one-word
//! type (`i32`, `u32`, `f32`) between 16-byte aligned buffers runs the
//! *rows* variant instead, which keeps the tile in registers in rows of
//! 16-byte vectors and scans each row across the warp: two block barriers
//! instead of four, faster there on an H200; chapter 7 of the guide has
//! the figures for both.
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
//!    (`ld.relaxed.gpu.global`), or from `partials` (the aggregate in
//!    `partials[j]`, the inclusive prefix in `partials[tiles + j]`) after
//!    loading the word with an acquire load (`ld.acquire.gpu.global`), which
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
//! blocks fit on a multiprocessor the better. That is why the run is not
//! held in registers across the look-back, and why the 4-byte kernels of
//! `coop-host` are built with a cap of 64 registers a thread
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
//! # The deterministic pass
//!
//! The same single pass, but each tile's look-back combines the tiles
//! before it one after another ([in order](crate::device::look_back)),
//! starting from the nearest inclusive prefix, instead of reducing a
//! window of them as a tree: every tile's prefix is then the left fold
//! `((t₀ ∘ t₁) ∘ t₂) ∘ …` of the tiles' totals, whichever tiles had
//! published their inclusive prefixes when it looked, and a tile's total
//! is computed by the same code every time (the staged variant, whatever
//! the buffers' alignment). Nothing depends on timing or on the device: the
//! tiles and every combination's order are fixed by the input's length
//! and the block's thread count alone (the host's default for the latter
//! depends on the element type only), and the CPU backend runs the same
//! code, so a float scan has the same bits on every GPU and on the CPU
//! backend. It reads the input once, as the single pass does; the fold
//! costs a shuffle and a combination for each tile it passes.
//!
//! # The control word
//!
//! `control` bit 0 is set for an exclusive scan (rank `i` gets the
//! elements before `i`; element 0 the operator's identity); bits 1 and 2
//! give the pass, [`SINGLE_PASS`] (0) or [`ORDERED`] (any other value);
//! bit 3, [`PREFIXED`], puts a value in front of
//! element 0, the combination of the count of values that bits 4 and up
//! give ([`fronts`]). `status` has two `u64`s per tile, `partials` two
//! (aggregates, then inclusive prefixes) and, with [`PREFIXED`], the values in front after them;
//! and `epoch` is in `1..2^30`. A launch without
//! [`shared_memory_bytes`] of dynamic shared memory stops with a message
//! that says so.

use crate::device::look_back::look_back_over;
pub use crate::device::look_back::status_words;
#[doc(hidden)]
pub use crate::device::look_back::{AGGREGATE, INCLUSIVE, look_back};

use crate::collectives;
use crate::device::arguments::holds;
use crate::device::staging::{Staging, bytes_per_thread};

mod rows;
use crate::device::vector::Vectorized;
use crate::op::Operator;
use crate::{Out, Shuffle, ThreadBlock, TiledPartition, this_grid};

/// The pass of a single-pass scan (decoupled look-back).
pub const SINGLE_PASS: u32 = 0;
/// The deterministic pass: the single pass with each tile's look-back
/// [in order](crate::device::look_back) (the tiles' totals combined one
/// after another), so that the result's bits depend on the input's length
/// and the block's thread count alone.
pub const ORDERED: u32 = 1 << 1;
/// The control bit of an exclusive scan.
pub const EXCLUSIVE: u32 = 1;
/// The control bit of a scan with a value in front of element 0 (an
/// inclusive scan from an initial value; an exclusive one whose element 0
/// is that value): the value is the combination, in order, of the last
/// [`fronts`] elements of `partials`, which holds that many more than two
/// a tile.
pub const PREFIXED: u32 = 1 << 3;
/// The shift of the count of values in front in the control word of a
/// [`PREFIXED`] scan (`control >> FRONTS_SHIFT`; 0 counts as 1).
pub const FRONTS_SHIFT: u32 = 4;

/// How many values in front of element 0 a scan with control word
/// `control` combines (0 without [`PREFIXED`]).
///
/// ```
/// use coop::device::scan::{fronts, FRONTS_SHIFT, PREFIXED};
/// assert_eq!(fronts(0), 0);
/// assert_eq!(fronts(PREFIXED), 1);
/// assert_eq!(fronts(PREFIXED | 3 << FRONTS_SHIFT), 3);
/// ```
pub const fn fronts(control: u32) -> usize {
    if control & PREFIXED == 0 {
        0
    } else if control >> FRONTS_SHIFT == 0 {
        1
    } else {
        (control >> FRONTS_SHIFT) as usize
    }
}

/// Most items a thread scans.
const MAX_ITEMS: usize = 32;

/// Most rows a thread holds.
const MAX_ROWS: usize = 12;

/// Bytes of elements each thread holds.
const THREAD_BYTES: usize = 128;
/// Bytes of one vector: a thread's run is a whole number of them.
const ROW_BYTES: usize = 16;

/// Elements of `T` in one 16-byte vector (at least 1, at most a thread's
/// items): a thread's run of [`items_per_thread`] is a whole number of
/// them, so that runs of the primitive types move as whole vectors.
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
    if row > items { items } else { row }
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
/// grid a launch needs (at least 1).
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
    if n == 0 { 1 } else { n }
}

/// Bytes of dynamic shared memory a launch of a scan kernel over elements
/// of `T` needs for blocks of `threads` threads: the block's tile, staged
/// (see the [module docs](self)); 0 for a type whose runs are not whole
/// 16-byte chunks. `coop_host::scan::Scanner` launches with it.
///
/// ```
/// use coop::device::scan::shared_memory_bytes;
/// assert_eq!(shared_memory_bytes::<u32>(256), 256 * 128);
/// assert_eq!(shared_memory_bytes::<f64>(128), 128 * 128);
/// assert_eq!(shared_memory_bytes::<[u8; 24]>(256), 0);
/// ```
pub const fn shared_memory_bytes<T>(threads: u32) -> u32 {
    // At least what the kernel binds (`staging::bytes_per_thread`, which
    // also needs the type's bytes to be its words).
    let run = items_per_thread::<T>() * core::mem::size_of::<T>();
    if run.is_multiple_of(16) && run <= THREAD_BYTES {
        (threads as usize * run) as u32
    } else {
        0
    }
}

/// What a scan kernel says when its launch gave too little dynamic shared
/// memory for the tile.
const STAGING_TOO_SMALL: &core::ffi::CStr = c"device_scan: the launch's dynamic shared memory is smaller than the block's tile: launch with `coop::device::scan::shared_memory_bytes::<T>(threads)` bytes of it (`coop_host::scan::Scanner` does)";

/// A scan of `input` into `output` (of the same length) with `op`, for the
/// primitive element types, whose full tiles arrive by `cp.async` and
/// leave as 16-byte vector stores where both buffers start 16-byte
/// aligned; see the [module docs](self) for the passes and the parameters.
/// The block's thread count must be a multiple of 32, and the launch must
/// give [`shared_memory_bytes`] of dynamic shared memory.
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
    let vector = (input.as_ptr() as usize).is_multiple_of(16)
        && (output.as_mut_ptr() as usize).is_multiple_of(16);
    run(
        &block, input, &output, op, control, status, partials, epoch, vector,
    )
}

/// [`scan`] for element types without a vector form (user structs): the
/// tile moves element by element (coalesced where the type is staged).
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
    run(
        &block, input, &output, op, control, status, partials, epoch, false,
    )
}

/// Faults (at the caller's caller) unless `output` holds `len` elements.
#[inline(always)]
#[track_caller]
fn output_fits<T: Copy>(len: usize, output: &Out<T>) {
    holds(
        c"device_scan: the output (as long as the input)",
        output.as_mut_ptr() as *const u8,
        output.len(),
        len,
        core::panic::Location::caller(),
    );
}

/// The pass `control` names over this block's tile; `vector`: full tiles
/// move as 16-byte chunks (`T`'s bytes are its words, both buffers
/// aligned).
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn run<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    input: &[T],
    output: &Out<T>,
    op: O,
    control: u32,
    status: Out<u64>,
    partials: Out<T>,
    epoch: u32,
    vector: bool,
) {
    // One copy of the pass for each kind of result and each pass, so that
    // the choice is made once, not inside every item's loop, and the
    // deterministic pass's look-back takes no registers from the single
    // pass's.
    macro_rules! pass {
        ($exclusive:literal, $ordered:literal) => {
            run_pass::<T, O, $exclusive, $ordered>(
                block, input, output, op, control, status, partials, epoch, vector,
            )
        };
    }
    match (control & EXCLUSIVE != 0, control & (3 << 1) != SINGLE_PASS) {
        (true, false) => pass!(true, false),
        (false, false) => pass!(false, false),
        (true, true) => pass!(true, true),
        (false, true) => pass!(false, true),
    }
}

/// [`run`] for an exclusive scan or an inclusive one, in the single pass
/// or the deterministic one (`ORDERED`).
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn run_pass<T: Shuffle, O: Operator<T>, const EXCLUSIVE_RESULTS: bool, const ORDERED: bool>(
    block: &ThreadBlock,
    input: &[T],
    output: &Out<T>,
    op: O,
    control: u32,
    status: Out<u64>,
    partials: Out<T>,
    epoch: u32,
    vector: bool,
) {
    let site = core::panic::Location::caller();
    let len = input.len();
    let items = items_per_thread::<T>();
    let threads = block.num_threads() as usize;
    let tile_len = threads * items;
    let tile = this_grid().block_rank();
    let t = block.thread_rank() as usize;
    let prefixed = fronts(control);
    if prefixed > 0 {
        holds(
            c"device_scan: partials (two values a tile, then the values in front)",
            partials.as_mut_ptr() as *const u8,
            partials.len(),
            2 * len.div_ceil(tile_len) + prefixed,
            site,
        );
    }
    // The deterministic pass keeps to the staged variant, whose tiles'
    // totals do not depend on the buffers' alignment.
    if !ORDERED && !EXCLUSIVE_RESULTS && vector && rows::applies::<T>() {
        return rows::single_pass_inclusive(
            block, input, output, op, tile, &status, &partials, epoch, prefixed, site,
        );
    }
    let first = tile * tile_len;
    let full = first + tile_len <= len;
    // Elements of the tile below the end of the input.
    let valid = if full { tile_len } else { len - first };
    let staged = bytes_per_thread::<T>(items) > 0;
    let mut x = [op.identity(); MAX_ITEMS];
    let staging = if staged {
        let staging = Staging::<T>::bind(block, items, STAGING_TOO_SMALL, site);
        if full && vector {
            // SAFETY: a full tile lies inside `input`, whose start is
            // 16-byte aligned, as is the tile's (`tile_len` elements are
            // a whole number of 16-byte chunks).
            staging.copy_in(block, unsafe { input.as_ptr().add(first) }, site);
        } else {
            let identity = op.identity();
            staging.store_each(
                block,
                |e| {
                    if e < valid {
                        input[first + e]
                    } else {
                        identity
                    }
                },
                site,
            );
        }
        staging.landed(block, "scan", site);
        staging.read_run(block, &mut x, site);
        Some(staging)
    } else {
        // A type that is not staged: the thread's own elements directly.
        let mut i = 0;
        while i < items {
            if t * items + i < valid {
                x[i] = input[first + t * items + i];
            }
            i += 1;
        }
        None
    };
    // The run again, after the look-back: from the staging, for a type
    // of more than one word or in the deterministic pass (whose
    // look-backs hold more registers); the run of a one-word type, or one
    // that is not staged, stayed in registers in the single pass (chapter
    // 7 of the guide has the figures).
    let reload = |x: &mut [T; MAX_ITEMS]| {
        if let (Some(staging), true) = (&staging, T::WORDS > 1 || ORDERED) {
            staging.read_run(block, x, site);
        }
    };
    scan_run::<T, O, EXCLUSIVE_RESULTS>(
        block,
        op,
        &mut x,
        site,
        |warp, total| {
            look_back_after::<T, O, ORDERED>(
                warp, tile, total, op, &status, &partials, epoch, prefixed,
            )
        },
        reload,
    );
    if let Some(staging) = staging {
        staging.write_run(block, &x, site);
        block.sync_named("scan", site);
        if full && vector {
            // SAFETY: a full tile of `output`, which is as long as
            // `input`, from an element 16-byte aligned as for the copy in.
            unsafe { staging.write_out(block, output, first, site) };
        } else {
            staging.write_each(
                block,
                valid,
                op.identity(),
                // SAFETY: `e < valid`, so `first + e < input.len()`, which
                // `output_fits` checked.
                |e, v| unsafe { output.write_in_bounds(first + e, v) },
                site,
            );
        }
    } else {
        let mut i = 0;
        while i < items {
            if t * items + i < valid {
                // SAFETY: below the input's length, which `output_fits`
                // checked.
                unsafe { output.write_in_bounds(first + t * items + i, x[i]) };
            }
            i += 1;
        }
    }
}

/// Scans the thread's run of items in place (inclusive, or exclusive with
/// `EXCLUSIVE_RESULTS`): the run's total in registers, the runs' totals
/// across the warp (shuffles), the warps' totals through the block with
/// `prefix` (called by warp 0 with the block's total) in front; then
/// `reload` (which brings the run back from shared memory where it is
/// staged, so that no register holds it while warp 0 looks back) and the
/// run scanned with what comes before it in front. Returns what comes
/// before the tile and the tile's total.
#[inline(always)]
fn scan_run<T: Shuffle, O: Operator<T>, const EXCLUSIVE_RESULTS: bool>(
    block: &ThreadBlock,
    op: O,
    x: &mut [T; MAX_ITEMS],
    site: crate::backend::Site,
    prefix: impl FnOnce(&TiledPartition<32>, T) -> T,
    reload: impl FnOnce(&mut [T; MAX_ITEMS]),
) -> (T, T) {
    let items = items_per_thread::<T>();
    let warp = block.tiled_partition_at::<32>(site);
    let lane = warp.thread_rank_at(site);
    let mut total = x[0];
    let mut i = 1;
    while i < items {
        total = op.combine(total, x[i]);
        i += 1;
    }
    let inclusive = collectives::warp_inclusive_scan(&warp, total, op, site);
    let within = warp.shfl_up_at(inclusive, 1, site);
    let within = if lane == 0 { op.identity() } else { within };
    // Lane 31's inclusive scan is the warp's total.
    let (before, p, block_total) =
        collectives::prefix_of_warps(block, &warp, inclusive, 31, op, "scan", site, prefix);
    reload(x);
    let mut running = op.combine(before, within);
    let mut i = 0;
    while i < items {
        let next = op.combine(running, x[i]);
        x[i] = if EXCLUSIVE_RESULTS { running } else { next };
        running = next;
        i += 1;
    }
    (p, block_total)
}

/// The value in front of element 0: the last `count` elements of
/// `partials` combined in order (the identity for none).
#[inline(always)]
fn front_of<T: Shuffle, O: Operator<T>>(op: O, partials: &Out<T>, count: usize) -> T {
    let mut front = op.identity();
    let mut i = partials.len() - count;
    while i < partials.len() {
        front = op.combine(front, partials.read(i));
        i += 1;
    }
    front
}

/// [`look_back`] for tile `tile`, with the value in front of element 0
/// when `prefixed` is not 0 (the last `prefixed` elements of `partials`
/// combined): tile 0 publishes that value combined with its total as its
/// inclusive prefix, and returns the value as what comes before it.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn look_back_after<T: Shuffle, O: Operator<T>, const ORDERED: bool>(
    warp: &TiledPartition<32>,
    tile: usize,
    total: T,
    op: O,
    status: &Out<u64>,
    partials: &Out<T>,
    epoch: u32,
    prefixed: usize,
) -> T {
    // The tiles' values come first; the values in front follow them.
    let tiles = (partials.len() - prefixed) / 2;
    let (front, total) = if prefixed > 0 && tile == 0 {
        let front = front_of(op, partials, prefixed);
        (Some(front), op.combine(front, total))
    } else {
        (None, total)
    };
    let before =
        look_back_over::<T, O, 2, ORDERED>(warp, tile, total, op, status, partials, tiles, epoch);
    front.unwrap_or(before)
}
