//! Segmented reductions as functions a kernel calls: one result per
//! segment of an input, the segments given by offsets (CSR style: segment
//! `s` is `input[offsets[s]..offsets[s + 1]]`), any [`Operator`], segments
//! of any length from 0 to the whole input in one call.
//!
//! Each segment is reduced by the strategy its length calls for, chosen on
//! the GPU while the kernel runs (the host never reads the offsets), in
//! three launches of the same kernel, `phase` telling them apart:
//!
//! | phase | segments | who reduces one | how |
//! |---|---|---|---|
//! | [`SMALL`] | up to [`WARP_MAX`] elements | a warp, with 31 others | each warp takes 32 consecutive segments, whose elements lie one after another: it walks their range 32 elements a step (one coalesced load, the next step's already in flight), finds where segments start in the step (a `redux.sync.or` of the lanes' start bits), scans the step segment by segment with five shuffles, and each lane takes its segment's part of the step with one more. Segments of 1 element and of 200 cost the same per element. Longer segments are listed for the next phases with an atomic |
//! | [`MEDIUM`] | up to [`BLOCK_MAX`] elements | a warp | each warp takes listed segments in turn, four loads in flight a lane, and combines its lanes |
//! | [`LARGE`] | longer | many blocks | the listed segments, end to end, are cut into one even share a block (at least 4096 elements); a block reduces the piece of each segment in its share, one block reduction a piece, and the block that finishes a segment's last piece (a ticket per segment) combines its pieces in order |
//!
//! Values combine in input order within a segment, so an operator that is
//! not commutative gives the ordered result. An empty segment gives the
//! operator's identity. Offsets are `u32` or `u64`; a segment whose
//! offsets decrease or pass the end of the input is reduced as empty and
//! the first such segment is recorded in `work[2]` (plus one; 0 when none),
//! which `coop_host::segmented` turns into an error.
//!
//! ```
//! use coop::prelude::*;
//! use coop::device::segmented::{segmented_reduce, LARGE, MEDIUM, SMALL};
//!
//! /// The product of each segment, modulo 2^32.
//! #[kernel]
//! pub fn segment_products(
//!     block: ThreadBlock,
//!     input: &[u32],
//!     offsets: &[u32],
//!     output: Out<u32>,
//!     phase: u32,
//!     work: Out<u64>,
//!     partials: Out<u32>,
//! ) {
//!     segmented_reduce(block, input, offsets, output, op::Product, phase, work, partials)
//! }
//!
//! let input: Vec<u32> = (1..=10).collect();
//! let offsets = [0u32, 3, 3, 4, 10];
//! let mut output = vec![0u32; 4];
//! let n = coop::device::segmented::work_len(input.len(), 4);
//! let (mut work, mut partials) = (vec![0u64; n], vec![0u32; coop::device::segmented::partials_len(input.len(), 4)]);
//! let cpu = coop_host::Cpu::new();
//! for phase in [SMALL, MEDIUM, LARGE] {
//!     let config = coop_host::LaunchConfig::new(2, 128);
//!     cpu.launch(segment_products, config, (&input, &offsets[..], &mut output, phase, &mut work, &mut partials))?;
//! }
//! assert_eq!(output, [6, 1, 4, 5 * 6 * 7 * 8 * 9 * 10]);
//! # Ok::<(), coop_host::Error>(())
//! ```

use crate::device::vector::Align16;
use crate::memory::atomic::Ordering;
use crate::memory::fence_device;
use crate::op::{BitOr, Max, Operator};
use crate::{Out, Shuffle, ThreadBlock, TiledPartition, reduce, this_grid};

/// The first phase: warps reduce the segments of at most [`WARP_MAX`]
/// elements and list the others.
pub const SMALL: u32 = 0;
/// The second phase: a warp reduces each listed segment of at most
/// [`BLOCK_MAX`] elements.
pub const MEDIUM: u32 = 1;
/// The third phase: blocks reduce even shares of the listed longer
/// segments.
pub const LARGE: u32 = 2;

/// The longest segment the first phase reduces, a warp walking through 32
/// segments at once.
pub const WARP_MAX: usize = 256;
/// The longest segment a warp reduces alone.
pub const BLOCK_MAX: usize = 65_536;

/// `work[0]`: segments listed for [`MEDIUM`].
const MEDIUM_COUNT: usize = 0;
/// `work[1]`: segments listed for [`LARGE`] (upper 24 bits) and their
/// elements (lower 40), taken together by one atomic add so that the list
/// is in order of first element.
const LARGE_COUNT: usize = 1;
/// `work[2]`: `u64::MAX - s` for the first segment `s` with offsets out of
/// order, 0 for none.
const BAD_SEGMENT: usize = 2;

/// The index in `work` of the word that records a segment with offsets out
/// of order; [`first_bad_segment`] reads it.
pub const BAD_SEGMENT_WORD: usize = BAD_SEGMENT;

/// The first segment whose offsets decrease or pass the end of the input,
/// from the word at [`BAD_SEGMENT_WORD`] after the first phase.
///
/// ```
/// assert_eq!(coop::device::segmented::first_bad_segment(0), None);
/// assert_eq!(coop::device::segmented::first_bad_segment(u64::MAX - 7), Some(7));
/// ```
pub const fn first_bad_segment(word: u64) -> Option<usize> {
    if word == 0 {
        None
    } else {
        Some((u64::MAX - word) as usize)
    }
}
/// Where the lists start.
const LISTS: usize = 3;
const CHUNK_BITS: u32 = 40;

/// The most segments of each of the two listed kinds that an input of
/// `len` elements in `segments` segments can have.
const fn capacities(len: usize, segments: usize) -> (usize, usize) {
    let medium = len / (WARP_MAX + 1);
    let large = len / (BLOCK_MAX + 1);
    (
        if medium < segments { medium } else { segments },
        if large < segments { large } else { segments },
    )
}

/// Elements of `work` (`u64`) a segmented reduction of `len` elements in
/// `segments` segments needs: three counters and the lists.
///
/// ```
/// assert_eq!(coop::device::segmented::work_len(100, 10), 3);
/// assert!(coop::device::segmented::work_len(1 << 20, 1) >= 3 + 4);
/// ```
pub const fn work_len(len: usize, segments: usize) -> usize {
    let (medium, large) = capacities(len, segments);
    LISTS + medium + 3 * large
}

/// Elements at the start of `work` that must be zero before the first
/// phase of a reduction of `len` elements in `segments` segments: the
/// counters and the tickets. The rest of `work` needs no clearing; the
/// phases leave the tickets at zero again.
///
/// ```
/// assert_eq!(coop::device::segmented::cleared_len(100, 10), 3);
/// ```
pub const fn cleared_len(len: usize, segments: usize) -> usize {
    let (_, large) = capacities(len, segments);
    LISTS + large
}

/// Elements of `partials` the same reduction needs: one per piece of a
/// long segment that a block of the third phase reduces (at least 1).
pub const fn partials_len(len: usize, segments: usize) -> usize {
    let (_, large) = capacities(len, segments);
    len / MIN_SHARE + large + 2
}

/// An offset type: `u32` or `u64`.
pub trait Offset: Copy + sealed::Sealed {
    #[doc(hidden)]
    fn view(offsets: &[Self]) -> Offsets<'_>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

impl Offset for u32 {
    #[inline(always)]
    fn view(offsets: &[u32]) -> Offsets<'_> {
        Offsets {
            words: offsets,
            wide: false,
            len: offsets.len(),
        }
    }
}

impl Offset for u64 {
    #[inline(always)]
    fn view(offsets: &[u64]) -> Offsets<'_> {
        // SAFETY: a `u64` is two `u32` words with no padding; the words live
        // as long as the offsets.
        let words = unsafe {
            core::slice::from_raw_parts(offsets.as_ptr() as *const u32, 2 * offsets.len())
        };
        Offsets {
            words,
            wide: true,
            len: offsets.len(),
        }
    }
}

/// Offsets of either width, read through one code path (the width is
/// tested, the same in every thread, at each read), so that a kernel
/// serves both.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Offsets<'a> {
    words: &'a [u32],
    wide: bool,
    len: usize,
}

impl<'a> Offsets<'a> {
    /// Offsets given as `u32` words: one a word, or two (low first) a
    /// `u64` offset when `wide`.
    #[inline(always)]
    pub fn from_words(words: &'a [u32], wide: bool) -> Self {
        let len = if wide { words.len() / 2 } else { words.len() };
        Offsets { words, wide, len }
    }

    /// Offsets it holds.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Offset `i`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> usize {
        if self.wide {
            (self.words[2 * i] as u64 | (self.words[2 * i + 1] as u64) << 32) as usize
        } else {
            self.words[i] as usize
        }
    }
}

/// One phase of the segmented reduction of `input` into `output` (one
/// element per segment), segments given by `offsets` (one more than
/// segments); see the [module docs](self). Launch it three times, with
/// [`SMALL`], [`MEDIUM`] and [`LARGE`] in that order, over the same
/// buffers: `work` of [`work_len`] elements whose first [`cleared_len`]
/// are zero before the first phase, `partials` of [`partials_len`]. Any grid works;
/// the block's thread count must be a multiple of 32.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "DeviceSegmentedReduce")]
pub fn segmented_reduce<T: Shuffle, O: Operator<T>, Off: Offset>(
    block: ThreadBlock,
    input: &[T],
    offsets: &[Off],
    output: Out<T>,
    op: O,
    phase: u32,
    work: Out<u64>,
    partials: Out<T>,
) {
    segmented_reduce_view(
        block,
        input,
        Off::view(offsets),
        output,
        op,
        phase,
        work,
        partials,
    )
}

/// [`segmented_reduce`] over offsets of either width behind one code path
/// (coop-host's kernels serve `u32` and `u64` offsets with one kernel).
#[doc(hidden)]
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn segmented_reduce_view<T: Shuffle, O: Operator<T>>(
    block: ThreadBlock,
    input: &[T],
    offsets: Offsets<'_>,
    output: Out<T>,
    op: O,
    phase: u32,
    work: Out<u64>,
    partials: Out<T>,
) {
    let segments = offsets.len.saturating_sub(1).min(output.len());
    let (medium_cap, large_cap) = capacities(input.len(), segments);
    let lists = Lists {
        work: &work,
        medium_cap,
        large_cap,
    };
    match phase {
        SMALL => small(&block, input, offsets, segments, &output, op, &lists),
        MEDIUM => medium(&block, input, offsets, &output, op, &lists),
        _ => large(&block, input, offsets, &output, op, &lists, &partials),
    }
}

/// Where the lists lie in `work`.
struct Lists<'a, 'b> {
    work: &'a Out<'b, u64>,
    medium_cap: usize,
    large_cap: usize,
}

/// The layout of `work`: the three counters, the long segments' tickets
/// (zero before each reduction, like the counters: see [`cleared_len`]),
/// then the lists, which each reduction writes before it reads them.
impl Lists<'_, '_> {
    fn large_ticket(&self, e: usize) -> usize {
        LISTS + e
    }
    fn medium(&self, i: usize) -> usize {
        LISTS + self.large_cap + i
    }
    fn large_segment(&self, e: usize) -> usize {
        LISTS + self.large_cap + self.medium_cap + e
    }
    fn large_first_element(&self, e: usize) -> usize {
        LISTS + 2 * self.large_cap + self.medium_cap + e
    }
}

/// The first phase: see the module docs.
#[inline(always)]
#[track_caller]
fn small<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    input: &[T],
    offsets: Offsets<'_>,
    segments: usize,
    output: &Out<T>,
    op: O,
    lists: &Lists<'_, '_>,
) {
    let warp = block.tiled_partition::<32>();
    let lane = warp.thread_rank() as usize;
    let grid = this_grid();
    let warps_per_block = warp.meta_group_size() as usize;
    let mut batch = grid.block_rank() * warps_per_block + warp.meta_group_rank() as usize;
    let warps = grid.num_blocks() * warps_per_block;
    let atomics = lists.work.atomic();
    let n = input.len();
    // The end of the last segment, where segments past the last end.
    let last = if segments == 0 {
        0
    } else {
        offsets.get(segments).min(n)
    };
    while batch * 32 < segments {
        let s = batch * 32 + lane;
        let (mut start, mut end) = (last, last);
        if s < segments {
            (start, end) = (offsets.get(s), offsets.get(s + 1));
            if start > end || end > n {
                // Out of order: reduced as empty, and recorded (the
                // largest word is the first segment; 0 is none).
                atomics.max(BAD_SEGMENT, u64::MAX - s as u64);
                end = start.min(n);
                start = end;
            }
        }
        let len = end - start;
        let listed = len > WARP_MAX;
        if listed {
            if len > BLOCK_MAX {
                let packed = atomics.fetch_add(LARGE_COUNT, 1 << CHUNK_BITS | len as u64);
                let e = (packed >> CHUNK_BITS) as usize;
                lists.work.write(lists.large_segment(e), s as u64);
                lists.work.write(
                    lists.large_first_element(e),
                    packed & ((1 << CHUNK_BITS) - 1),
                );
            } else {
                let i = atomics.fetch_add(MEDIUM_COUNT, 1) as usize;
                lists.work.write(lists.medium(i), s as u64);
            }
        }
        let acc = walk(&warp, input, start, end, listed, op);
        if s < segments && !listed {
            output.write(s, acc);
        }
        batch += warps;
    }
}

/// The warp's walk over its 32 segments' elements (lane `l` holds segment
/// `[start, end)`; listed segments are skipped): every lane returns its
/// segment's reduction.
#[inline(always)]
fn walk<T: Shuffle, O: Operator<T>>(
    warp: &TiledPartition<32>,
    input: &[T],
    start: usize,
    end: usize,
    listed: bool,
    op: O,
) -> T {
    let lane = warp.thread_rank() as usize;
    let hi = warp.shfl(end, 31);
    let mut base = warp.shfl(start, 0);
    let mut acc = op.identity();
    // The step starting at `at`: one element a lane (the identity past the
    // step's end).
    let load = |at: usize| {
        let i = at + lane;
        if i < (at + 32).min(hi) {
            input[i]
        } else {
            op.identity()
        }
    };
    // Two steps' loads in flight: the next step is loaded before this one
    // is scanned (and dropped when a listed segment makes the walk jump).
    let mut next = load(base);
    while base < hi {
        // Inside a listed segment: jump past it.
        let hole = warp.ballot(listed && start <= base && base < end);
        if hole != 0 {
            base = warp.shfl(end, hole.trailing_zeros());
            next = load(base);
            continue;
        }
        let step_end = (base + 32).min(hi);
        let x = next;
        next = load(step_end);
        // Where segments start in the step, and the step's own start.
        let mine = if start >= base && start < step_end {
            1u32 << (start - base)
        } else {
            0
        };
        let heads = reduce(warp, mine, BitOr) | 1;
        // The lane where this lane's run starts: the highest head at or
        // below it.
        let below = heads & (u32::MAX >> (31 - lane));
        let run_start = 31 - below.leading_zeros() as usize;
        let mut v = x;
        let mut d = 1;
        while d < 32 {
            let y = warp.shfl_up(v, d as u32);
            if lane >= run_start + d {
                v = op.combine(y, v);
            }
            d *= 2;
        }
        // This lane's segment's part of the step ends at `last`.
        let piece_end = end.min(step_end);
        let piece_start = start.max(base);
        let last = if piece_end > piece_start {
            piece_end - 1 - base
        } else {
            0
        };
        let part = warp.shfl(v, last as u32);
        if piece_end > piece_start {
            acc = op.combine(acc, part);
        }
        base = step_end;
    }
    acc
}

/// This thread's fold of `input[lo..hi]` as one of `threads`: strided for
/// a commutative operator (four accumulators, four loads in flight), a
/// contiguous range otherwise, so that the threads in rank order keep the
/// input's order.
#[inline(always)]
fn fold_range<T: Shuffle, O: Operator<T>>(
    input: &[T],
    lo: usize,
    hi: usize,
    t: usize,
    threads: usize,
    op: O,
) -> T {
    if O::COMMUTATIVE {
        let size = core::mem::size_of::<T>();
        if size == 4 {
            return fold_vectors::<T, O, u32, 4>(input, lo, hi, t, threads, op);
        }
        if size == 8 {
            return fold_vectors::<T, O, u64, 2>(input, lo, hi, t, threads, op);
        }
        // Four loads in flight a thread, one accumulator each (measured on
        // an H100: eight loads a thread halved the chunks' speed).
        let (mut a0, mut a1, mut a2, mut a3) =
            (op.identity(), op.identity(), op.identity(), op.identity());
        let mut i = lo + t;
        while i + 3 * threads < hi {
            let (x0, x1, x2, x3) = (
                input[i],
                input[i + threads],
                input[i + 2 * threads],
                input[i + 3 * threads],
            );
            a0 = op.combine(a0, x0);
            a1 = op.combine(a1, x1);
            a2 = op.combine(a2, x2);
            a3 = op.combine(a3, x3);
            i += 4 * threads;
        }
        while i < hi {
            a0 = op.combine(a0, input[i]);
            i += threads;
        }
        op.combine(op.combine(a0, a1), op.combine(a2, a3))
    } else {
        let per = (hi - lo).div_ceil(threads);
        let start = (lo + t * per).min(hi);
        let stop = (start + per).min(hi);
        let mut acc = op.identity();
        let mut i = start;
        while i < stop {
            acc = op.combine(acc, input[i]);
            i += 1;
        }
        acc
    }
}

/// [`fold_range`] of a commutative operator on elements of 4 or 8 bytes
/// (`W`, `L` lanes to 16 bytes): the part of `input[lo..hi]` that lies in
/// whole 16-byte vectors is loaded a vector at a time (`ld.global.v4`),
/// four in flight a thread; the elements before the first vector and
/// after the last go to the first threads, one each.
#[inline(always)]
fn fold_vectors<T: Shuffle, O: Operator<T>, W: Copy, const L: usize>(
    input: &[T],
    lo: usize,
    hi: usize,
    t: usize,
    threads: usize,
    op: O,
) -> T {
    let size = core::mem::size_of::<T>();
    let element = |w: W| -> T {
        // SAFETY: `W` and `T` have the same size (the caller's choice of
        // `W`), and the word's bits are those of an element of `input`.
        unsafe { core::mem::transmute_copy::<W, T>(&w) }
    };
    let base = input.as_ptr() as usize;
    // The first index at or after `lo` whose address is 16-byte aligned,
    // if the elements' addresses reach one (they do when the buffer is
    // aligned to the element's size).
    let skip = (16 - (base + lo * size) % 16) % 16;
    let v_lo = if skip.is_multiple_of(size) {
        (lo + skip / size).min(hi)
    } else {
        hi
    };
    let vectors = (hi - v_lo) / L;
    let v_hi = v_lo + vectors * L;
    let (mut a0, mut a1, mut a2, mut a3) =
        (op.identity(), op.identity(), op.identity(), op.identity());
    // The head and the tail: fewer than `L` elements each.
    if lo + t < v_lo {
        a0 = op.combine(a0, input[lo + t]);
    }
    if v_hi + t < hi {
        a1 = op.combine(a1, input[v_hi + t]);
    }
    let vector = |v: usize| -> [W; L] {
        // SAFETY: vector `v` (below `vectors`) holds elements `v_lo + v * L`
        // to `v_lo + v * L + L - 1`, all below `hi <= input.len()`, and its
        // address is 16-byte aligned (`v_lo` was chosen so).
        unsafe {
            (input.as_ptr().add(v_lo + v * L) as *const Align16<[W; L]>)
                .read()
                .0
        }
    };
    let fold = |acc: T, words: [W; L]| {
        let mut acc = acc;
        for w in words {
            acc = op.combine(acc, element(w));
        }
        acc
    };
    let mut v = t;
    while v + 3 * threads < vectors {
        let (x0, x1, x2, x3) = (
            vector(v),
            vector(v + threads),
            vector(v + 2 * threads),
            vector(v + 3 * threads),
        );
        a0 = fold(a0, x0);
        a1 = fold(a1, x1);
        a2 = fold(a2, x2);
        a3 = fold(a3, x3);
        v += 4 * threads;
    }
    while v < vectors {
        a0 = fold(a0, vector(v));
        v += threads;
    }
    op.combine(op.combine(a0, a1), op.combine(a2, a3))
}

/// The second phase: each warp reduces listed segments in turn, one at a
/// time (four loads in flight a lane), then combines its lanes.
#[inline(always)]
#[track_caller]
fn medium<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    input: &[T],
    offsets: Offsets<'_>,
    output: &Out<T>,
    op: O,
    lists: &Lists<'_, '_>,
) {
    let grid = this_grid();
    let warp = block.tiled_partition::<32>();
    let lane = warp.thread_rank() as usize;
    let per_block = warp.meta_group_size() as usize;
    let warps = grid.num_blocks() * per_block;
    let count = lists.work.read(MEDIUM_COUNT) as usize;
    let mut i = grid.block_rank() * per_block + warp.meta_group_rank() as usize;
    while i < count {
        let s = lists.work.read(lists.medium(i)) as usize;
        let (lo, hi) = (offsets.get(s), offsets.get(s + 1));
        let total = reduce(&warp, fold_range(input, lo, hi, lane, 32, op), op);
        if lane == 0 {
            output.write(s, total);
        }
        i += warps;
    }
}

/// The third phase: the listed long segments, laid end to end in list
/// order, are cut into one even share a block; a block reduces the piece
/// of each segment its share holds (a block barrier a piece, two or three
/// a block where segments are long), and the block that finishes a
/// segment's last piece (a ticket per segment) combines its pieces in
/// order.
#[inline(always)]
#[track_caller]
fn large<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    input: &[T],
    offsets: Offsets<'_>,
    output: &Out<T>,
    op: O,
    lists: &Lists<'_, '_>,
    partials: &Out<T>,
) {
    let grid = this_grid();
    let packed = lists.work.read(LARGE_COUNT);
    let entries = (packed >> CHUNK_BITS) as usize;
    let total = (packed & ((1 << CHUNK_BITS) - 1)) as usize;
    if entries == 0 {
        return;
    }
    let blocks = large_blocks(grid.num_blocks(), total);
    let b = grid.block_rank();
    if b >= blocks {
        return;
    }
    let share = |b: usize| share_start(total, blocks, b);
    let (start, end) = (share(b), share(b + 1));
    let (t, bt) = (block.thread_rank() as usize, block.num_threads() as usize);
    let tickets = lists.work.atomic();
    // The entry holding the share's first element: the last whose first
    // element is at or below it (the list is in order of first element).
    let (mut e, mut hi_e) = (0, entries);
    while hi_e - e > 1 {
        let mid = (e + hi_e) / 2;
        if lists.work.read(lists.large_first_element(mid)) as usize <= start {
            e = mid;
        } else {
            hi_e = mid;
        }
    }
    loop {
        let s = lists.work.read(lists.large_segment(e)) as usize;
        let first = lists.work.read(lists.large_first_element(e)) as usize;
        let (seg_lo, seg_hi) = (offsets.get(s), offsets.get(s + 1));
        let len = seg_hi - seg_lo;
        let (from, to) = (start.max(first), end.min(first + len));
        let piece = reduce(
            block,
            fold_range(
                input,
                seg_lo + (from - first),
                seg_lo + (to - first),
                t,
                bt,
                op,
            ),
            op,
        );
        // The blocks whose shares hold the segment's first and last
        // elements; each of them, and every block between, holds a piece.
        let (b0, b1) = (
            share_owner(total, blocks, first),
            share_owner(total, blocks, first + len - 1),
        );
        if b0 == b1 {
            if t == 0 {
                output.write(s, piece);
            }
        } else {
            // Segment e's pieces lie in partials[e + b0 ..= e + b1]:
            // segment e + 1's start at e + 1 + b1 or later.
            let mut last = false;
            if t == 0 {
                partials.write(e + b, piece);
                fence_device(); // the piece's result is visible before its ticket
                last = tickets.fetch_add(lists.large_ticket(e), 1) as usize == b1 - b0;
            }
            if reduce(block, last as u32, Max) != 0 {
                fence_device(); // every piece's result, from every thread
                let count = b1 - b0 + 1;
                let parts = partials_view(partials, e + b0, count);
                let sum = reduce(block, fold_range(parts, 0, count, t, bt, op), op);
                if t == 0 {
                    output.write(s, sum);
                    tickets
                        .with_ordering(Ordering::Relaxed)
                        .store(lists.large_ticket(e), 0); // ready for the next call
                }
            }
        }
        if first + len >= end || e + 1 >= entries {
            break;
        }
        e += 1;
    }
}

/// The fewest elements of long segments a block of the third phase
/// takes.
const MIN_SHARE: usize = 4096;

/// The blocks the third phase spreads `total` elements over: the grid's,
/// but at least [`MIN_SHARE`] elements each (and at most 2^22 blocks, so
/// that `total * blocks` fits 64 bits: `total` is below 2^40).
#[inline(always)]
fn large_blocks(grid_blocks: usize, total: usize) -> usize {
    grid_blocks.min(total.div_ceil(MIN_SHARE)).clamp(1, 1 << 22)
}

/// The first element of block `b`'s share of `total` elements over
/// `blocks` blocks.
#[inline(always)]
fn share_start(total: usize, blocks: usize, b: usize) -> usize {
    ((total as u64 * b as u64) / blocks as u64) as usize
}

/// The block whose share holds element `x` (below `total`).
#[inline(always)]
fn share_owner(total: usize, blocks: usize, x: usize) -> usize {
    let mut b = ((x as u64 * blocks as u64) / total as u64) as usize;
    while b + 1 < blocks && share_start(total, blocks, b + 1) <= x {
        b += 1;
    }
    while b > 0 && share_start(total, blocks, b) > x {
        b -= 1;
    }
    b
}

/// `partials[first..first + count]` as a slice, to fold.
#[inline(always)]
fn partials_view<'a, T: Copy>(partials: &'a Out<'_, T>, first: usize, count: usize) -> &'a [T] {
    assert!(
        first + count <= partials.len(),
        "segmented_reduce: partials too short"
    );
    // SAFETY: in bounds (checked above); every piece's block wrote its result
    // before taking its ticket, the fences order those writes before this
    // read, and no block writes these pieces any more in this launch.
    unsafe { core::slice::from_raw_parts(partials.as_mut_ptr().add(first) as *const T, count) }
}
