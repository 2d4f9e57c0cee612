//! Device-wide reductions as functions a kernel calls: each block reduces
//! its share of the input to one value, and then either a second launch of
//! one block reduces those ([`reduce_blocks`]), or the block that finishes
//! last does, in the same launch ([`reduce_grid`], which can also do the
//! first of two launches).
//!
//! `coop_host::reduce` runs [`reduce_grid`] for the built-in operators and
//! types, in one launch when the grid is one wave and in two past that; a
//! kernel crate wraps either in a `#[kernel]` for its own operators and
//! types, and `coop_host::reduce::Reducer::reduce_with` launches it:
//!
//! ```
//! use coop::prelude::*;
//! use coop::device::reduce::reduce_blocks;
//!
//! /// Largest absolute value: commutative, so the fast path.
//! #[derive(Clone, Copy)]
//! pub struct AbsMax;
//! impl coop::op::Operator<f32> for AbsMax {
//!     const COMMUTATIVE: bool = true;
//!     fn combine(&self, a: f32, b: f32) -> f32 { a.abs().max(b.abs()) }
//!     fn identity(&self) -> f32 { 0.0 }
//! }
//!
//! #[kernel]
//! pub fn abs_max(block: ThreadBlock, input: &[f32], partials: Out<f32>) {
//!     reduce_blocks(block, input, AbsMax, partials)
//! }
//!
//! let input: Vec<f32> = (0..10_000).map(|i| (i as f32 - 7_000.0) * 0.5).collect();
//! let mut partials = vec![0f32; 4];
//! coop_host::Cpu::new().launch(abs_max, coop_host::LaunchConfig::new(4, 64), (&input, &mut partials))?;
//! let mut total = vec![0f32; 1];
//! coop_host::Cpu::new().launch(abs_max, coop_host::LaunchConfig::new(1, 64), (&partials, &mut total))?;
//! assert_eq!(total[0], 3500.0);
//! # Ok::<(), coop_host::Error>(())
//! ```

pub use crate::device::vector::{Align16, Vectorized};

use crate::collectives::reduce_into_warp0;
use crate::device::map::{Identity, Map};
use crate::memory::fence_device;
use crate::op::{Max, Operator};
use crate::{Out, Shuffle, ThreadBlock, reduce, this_grid};
use core::sync::atomic::{AtomicU32, Ordering};

/// Reduces this block's share of `input` with `op` and writes it to
/// `partials[block rank]`. Launched over all of `input`, then over the
/// partials with one block, it reduces `input` to `partials[0]`.
///
/// For a commutative operator the blocks take turns over tiles of 16-byte
/// loads (the unaligned head and tail of `input` go to the first threads);
/// otherwise each thread folds a contiguous range and the order of
/// `input` is kept. An empty share gives the identity. The block's thread
/// count must be a multiple of 32.
#[inline(always)]
#[track_caller]
pub fn reduce_blocks<T: Vectorized, O: Operator<T>>(
    block: ThreadBlock,
    input: &[T],
    op: O,
    partials: Out<T>,
) {
    let acc = match one_block_small(input, Identity, op, &block) {
        Some(acc) => acc,
        None => vector_share(input, Identity, op, &block),
    };
    store_block_result(&block, acc, op, &partials, this_grid().block_rank());
}

/// [`reduce_blocks`] for element types without a vector form (user
/// structs): one element per load.
#[inline(always)]
#[track_caller]
pub fn reduce_blocks_scalar<T: Shuffle, O: Operator<T>>(
    block: ThreadBlock,
    input: &[T],
    op: O,
    partials: Out<T>,
) {
    let grid = this_grid();
    let acc = scalar_share(input, Identity, op, grid.thread_rank(), grid.num_threads());
    store_block_result(&block, acc, op, &partials, this_grid().block_rank());
}

/// A device-wide reduction in one launch: each block reduces its share of
/// `input` as [`reduce_blocks`] does and stores it in `partials[block
/// rank]`; the last block to finish then reduces those, in block order, and
/// stores the total in `partials[blocks]` (`blocks` = the grid's block
/// count). One launch instead of two saves the second launch's start-up,
/// which dominates small inputs.
///
/// `partials` needs at least `blocks + 1` elements and `tickets[0]` must be
/// 0 before the launch: the blocks count themselves on it with an atomic
/// add, and the last block sets it back to 0, so the same buffer serves the
/// next launch. Each block's thread 0 makes its partial visible device-wide
/// ([`fence_device`]) before taking its ticket, so the block holding the
/// last ticket sees every partial.
///
/// That ending costs each block a fence and an atomic round trip before it
/// leaves its multiprocessor, so one launch pays off for grids of one wave
/// (every block resident at once); past that, two launches are faster.
/// With an empty `tickets` it does the first of two, as [`reduce_blocks`]
/// does: each block stores its result in `partials[block rank]`, and a
/// second launch of one block over those (again without tickets) stores
/// the total in `partials[0]`. `coop_host::reduce::Reducer` picks per call.
///
/// A launch of one block over at most 16 elements a thread (a commutative
/// operator) skips the tiles: each thread loads its elements with scalar
/// loads and folds them as a tree; [`reduce_blocks`] does the same.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::reduce::reduce_grid;
///
/// #[kernel]
/// pub fn sum_once(block: ThreadBlock, input: &[u64], partials: Out<u64>, tickets: Out<u32>) {
///     reduce_grid(block, input, op::Sum, partials, tickets)
/// }
///
/// let input: Vec<u64> = (1..=10_000).collect();
/// let (mut partials, mut tickets) = (vec![0u64; 4 + 1], vec![0u32; 1]);
/// let config = coop_host::LaunchConfig::new(4, 64);
/// coop_host::Cpu::new().launch(sum_once, config, (&input, &mut partials, &mut tickets))?;
/// assert_eq!(partials[4], 50_005_000);
/// assert_eq!(tickets, [0]); // ready for the next launch
///
/// // Two launches: no tickets, then one block over the four partials.
/// let mut total = vec![0u64; 1];
/// coop_host::Cpu::new().launch(sum_once, config, (&input, &mut partials, &mut Vec::new()))?;
/// let second = coop_host::LaunchConfig::new(1, 64);
/// coop_host::Cpu::new().launch(sum_once, second, (&partials[..4], &mut total, &mut Vec::new()))?;
/// assert_eq!(total, [50_005_000]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
pub fn reduce_grid<T: Vectorized, O: Operator<T>>(
    block: ThreadBlock,
    input: &[T],
    op: O,
    partials: Out<T>,
    tickets: Out<u32>,
) {
    if let Some(acc) = one_block_small(input, Identity, op, &block) {
        let index = if tickets.is_empty() { 0 } else { 1 };
        return store_block_result(&block, acc, op, &partials, index);
    }
    let acc = vector_share(input, Identity, op, &block);
    finish_in_last_block(block, acc, op, partials, tickets)
}

/// [`reduce_grid`] for element types without a vector form (user
/// structs): one element per load.
#[inline(always)]
#[track_caller]
pub fn reduce_grid_scalar<T: Shuffle, O: Operator<T>>(
    block: ThreadBlock,
    input: &[T],
    op: O,
    partials: Out<T>,
    tickets: Out<u32>,
) {
    let grid = this_grid();
    finish_in_last_block(
        block,
        scalar_share(input, Identity, op, grid.thread_rank(), grid.num_threads()),
        op,
        partials,
        tickets,
    )
}

/// A transform-reduction in one launch: `op` over `map.apply(i, input[i])`
/// for every `i`, without storing the mapped values. Each block reduces
/// its share as [`reduce_grid`] does (16-byte loads, the map applied to
/// each element as it is folded) and the last block to finish reduces the
/// blocks' results into `partials[blocks]`.
///
/// It always finishes in its one launch, so `tickets` must have an
/// element (0 before the launch; the last block sets it back to 0); a
/// launch without tickets stops with a message. `coop_host`'s
/// `Reducer::transform_reduce_with` launches such a kernel with a grid of
/// at most one wave (every block resident at once), each block taking as
/// many tiles as it needs. `partials` has `blocks + 1` elements of the
/// map's output type.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::reduce::reduce_grid_map;
/// use coop::device::map;
///
/// /// The sum of squares of `i * x[i]`: an index-aware map.
/// #[kernel]
/// pub fn weighted_norm(block: ThreadBlock, input: &[f64], partials: Out<f64>, tickets: Out<u32>) {
///     let weighted = map::from_fn(|i: usize, x: f64| (i as f64 * x) * (i as f64 * x));
///     reduce_grid_map(block, input, weighted, op::Sum, partials, tickets)
/// }
///
/// let input = vec![0.5f64; 1000];
/// let (mut partials, mut tickets) = (vec![0f64; 3 + 1], vec![0u32; 1]);
/// let config = coop_host::LaunchConfig::new(3, 128);
/// coop_host::Cpu::new().launch(weighted_norm, config, (&input, &mut partials, &mut tickets))?;
/// let expected: f64 = (0..1000).map(|i| (i as f64 * 0.5).powi(2)).sum();
/// assert!((partials[3] - expected).abs() < 1e-9 * expected);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
pub fn reduce_grid_map<T: Vectorized, M: Map<T>, O: Operator<M::Output>>(
    block: ThreadBlock,
    input: &[T],
    map: M,
    op: O,
    partials: Out<M::Output>,
    tickets: Out<u32>,
) {
    needs_tickets(&tickets, "reduce_grid_map");
    if let Some(acc) = one_block_small(input, map, op, &block) {
        return store_block_result(&block, acc, op, &partials, 1);
    }
    let acc = vector_share(input, map, op, &block);
    finish_in_last_block(block, acc, op, partials, tickets)
}

/// [`reduce_grid_map`] for element types without a vector form (user
/// structs): one element per load.
#[inline(always)]
#[track_caller]
pub fn reduce_grid_map_scalar<T: Shuffle, M: Map<T>, O: Operator<M::Output>>(
    block: ThreadBlock,
    input: &[T],
    map: M,
    op: O,
    partials: Out<M::Output>,
    tickets: Out<u32>,
) {
    needs_tickets(&tickets, "reduce_grid_map_scalar");
    let grid = this_grid();
    finish_in_last_block(
        block,
        scalar_share(input, map, op, grid.thread_rank(), grid.num_threads()),
        op,
        partials,
        tickets,
    )
}

/// Stops the kernel, naming `call`, when `tickets` is empty: a
/// transform-reduction cannot do the first of two launches (its second
/// would map the partial results again).
#[inline(always)]
#[track_caller]
fn needs_tickets(tickets: &Out<u32>, call: &'static str) {
    assert!(
        !tickets.is_empty(),
        "{call}: a transform-reduction finishes in one launch and needs a tickets buffer of one \
         element (zero before the launch); launch it with Reducer::transform_reduce_with"
    );
}

/// Reduces `value` over the block and has thread 0 store the result in
/// `partials[index]`: the kernel's last block collective, which leaves out
/// the barrier that hands the result to every thread.
#[inline(always)]
#[track_caller]
fn store_block_result<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    value: T,
    op: O,
    partials: &Out<T>,
    index: usize,
) {
    let site = core::panic::Location::caller();
    if let Some(total) = reduce_into_warp0(block, value, op, "reduce_grid", site) {
        if block.thread_rank() == 0 {
            partials.write(index, total);
        }
    }
}

/// Reduces the threads' `acc` over the block and stores the result; in the
/// block that finishes last, reduces every block's and stores that (see
/// [`reduce_grid`]).
#[inline(always)]
#[track_caller]
fn finish_in_last_block<T: Shuffle, O: Operator<T>>(
    block: ThreadBlock,
    acc: T,
    op: O,
    partials: Out<T>,
    tickets: Out<u32>,
) {
    finish_with(block, acc, op, partials, tickets, |block, parts| {
        let (t, bt) = (block.thread_rank() as usize, block.num_threads() as usize);
        scalar_share(parts, Identity, op, t, bt)
    })
}

/// [`finish_in_last_block`] with the last block's threads' shares of the
/// blocks' results given by `share`.
#[inline(always)]
#[track_caller]
fn finish_with<T: Shuffle, O: Operator<T>>(
    block: ThreadBlock,
    acc: T,
    op: O,
    partials: Out<T>,
    tickets: Out<u32>,
    share: impl FnOnce(&ThreadBlock, &[T]) -> T,
) {
    let grid = this_grid();
    let blocks = grid.num_blocks();
    if tickets.is_empty() {
        // The first of two launches, as `reduce_blocks`.
        return store_block_result(&block, acc, op, &partials, grid.block_rank());
    }
    assert!(
        partials.len() > blocks && blocks <= u32::MAX as usize,
        "reduce_grid: partials need blocks + 1 elements"
    );
    if blocks == 1 {
        return store_block_result(&block, acc, op, &partials, 1);
    }
    let total = reduce(&block, acc, op);
    let first = block.thread_rank() == 0;
    // SAFETY: `tickets` has an element (it is not empty), aligned and live
    // for the launch; in the launch every access to it is atomic.
    let counter = unsafe { AtomicU32::from_ptr(tickets.as_mut_ptr()) };
    let mut last = false;
    if first {
        partials.write(grid.block_rank(), total);
        fence_device(); // the partial is visible before the ticket
        last = counter.fetch_add(1, Ordering::Relaxed) == blocks as u32 - 1;
    }
    // Every thread of the block learns whether it came last (the block
    // reduction is also a barrier).
    if reduce(&block, last as u32, Max) == 0 {
        return;
    }
    fence_device(); // every block's partial, from every thread
    // SAFETY: `partials` has `blocks + 1` elements (checked above); every
    // block wrote its partial before taking a ticket, and none writes the
    // first `blocks` any more.
    let parts = unsafe { core::slice::from_raw_parts(partials.as_mut_ptr() as *const T, blocks) };
    store_block_result(&block, share(&block, parts), op, &partials, blocks);
    if first {
        counter.store(0, Ordering::Relaxed); // ready for the next launch
    }
}

/// Elements a thread loads on the path for small inputs.
const SMALL_PER_THREAD: usize = 16;

/// In a launch of one block, for a commutative operator and at most
/// [`SMALL_PER_THREAD`] elements a thread: thread `t`'s fold of elements
/// `t, t + threads, ...`, mapped, all loaded (one element a load, so no
/// alignment is needed) before a tree of combines. A small input is all
/// start-up: this path runs about a third of the instructions of the tile
/// loop's (the unaligned head and tail, the tile bookkeeping). `None`
/// otherwise.
#[inline(always)]
fn one_block_small<T: Shuffle, M: Map<T>, O: Operator<M::Output>>(
    input: &[T],
    map: M,
    op: O,
    block: &ThreadBlock,
) -> Option<M::Output> {
    let bt = block.num_threads() as usize;
    if !O::COMMUTATIVE || this_grid().num_blocks() != 1 || input.len() > SMALL_PER_THREAD * bt {
        return None;
    }
    // 32-bit index arithmetic: the input has at most 16 x 1024 elements.
    let (t, bt, len) = (block.thread_rank(), bt as u32, input.len() as u32);
    let mut v: [M::Output; SMALL_PER_THREAD] = core::array::from_fn(|k| {
        let i = t + k as u32 * bt;
        if i < len {
            // SAFETY: checked just above.
            map.apply(i as usize, unsafe { *input.get_unchecked(i as usize) })
        } else {
            op.identity()
        }
    });
    let mut n = SMALL_PER_THREAD;
    while n > 1 {
        n /= 2;
        for k in 0..n {
            v[k] = op.combine(v[k], v[k + n]);
        }
    }
    Some(v[0])
}

/// This thread's fold of its share of `input`, mapped: tiles of 16-byte
/// chunks for a commutative operator ([`strided`]), a contiguous range
/// otherwise, so that the threads' results in rank order keep the order of
/// `input`.
#[inline(always)]
fn vector_share<T: Vectorized, M: Map<T>, O: Operator<M::Output>>(
    input: &[T],
    map: M,
    op: O,
    block: &ThreadBlock,
) -> M::Output {
    if O::COMMUTATIVE {
        strided(input, map, op, block)
    } else {
        let grid = this_grid();
        contiguous(input, map, op, grid.thread_rank(), grid.num_threads())
    }
}

/// Thread `t` of `threads`' fold of `input`, mapped: strided (coalesced)
/// for a commutative operator, a contiguous range otherwise, so that the
/// threads' results in rank order keep the order of `input`.
#[inline(always)]
fn scalar_share<T: Shuffle, M: Map<T>, O: Operator<M::Output>>(
    input: &[T],
    map: M,
    op: O,
    t: usize,
    threads: usize,
) -> M::Output {
    if O::COMMUTATIVE {
        let mut acc = op.identity();
        let mut i = t;
        while i < input.len() {
            acc = op.combine(acc, map.apply(i, input[i]));
            i += threads;
        }
        acc
    } else {
        contiguous(input, map, op, t, threads)
    }
}

/// The vector body goes in tiles of `4 × block size` chunks, tile `k` to
/// block `k mod blocks`: in each step a block's threads load one tile as four
/// consecutive runs of `block size` chunks, thread `t` the `t`-th chunk of
/// each run, so every load instruction of a warp reads 512 contiguous bytes.
/// Finding a block's tiles takes no division, so the first loads leave
/// early; the unaligned head and tail of `input` (fewer than 16 bytes each)
/// go to the grid's first threads after them. The map sees each element's
/// index in `input`.
#[inline(always)]
fn strided<T: Vectorized, M: Map<T>, O: Operator<M::Output>>(
    input: &[T],
    map: M,
    op: O,
    block: &ThreadBlock,
) -> M::Output {
    let grid = this_grid();
    // SAFETY: every bit pattern of the primitive element types is valid in
    // a chunk of them; `align_to` keeps the chunks in bounds.
    let (head, body, tail) = unsafe { input.align_to::<T::Chunk>() };
    let bt = block.num_threads() as usize;
    let tile = 4 * bt;
    let stride = grid.num_blocks() * tile;
    let len = body.len();
    let mut base = grid.block_rank() * tile;
    let t = block.thread_rank() as usize;
    // Index in `input` of chunk `i`'s first element.
    let first = |i: usize| head.len() + i * T::LANES;
    // Four independent accumulators keep four loads in flight per thread.
    let (mut a0, mut a1, mut a2, mut a3) =
        (op.identity(), op.identity(), op.identity(), op.identity());
    let four = |i: usize| {
        // SAFETY: each call passes `i = base + t` with `base + tile <= len`
        // and `t < bt`, so `i + 3 * bt < len`.
        unsafe {
            (
                *body.get_unchecked(i),
                *body.get_unchecked(i + bt),
                *body.get_unchecked(i + 2 * bt),
                *body.get_unchecked(i + 3 * bt),
            )
        }
    };
    if base + tile <= len {
        // Software-pipelined: the next tile's loads are issued before this
        // one's chunks are folded, so the folds never hold them back
        // (ptxas otherwise may start folding the first chunk before issuing
        // the last load, and the loads wait on each other).
        let mut i = base + t;
        let mut c = four(i);
        base += stride;
        while base + tile <= len {
            let next = four(base + t);
            a0 = T::fold_chunk(c.0, first(i), a0, map, op);
            a1 = T::fold_chunk(c.1, first(i + bt), a1, map, op);
            a2 = T::fold_chunk(c.2, first(i + 2 * bt), a2, map, op);
            a3 = T::fold_chunk(c.3, first(i + 3 * bt), a3, map, op);
            c = next;
            i = base + t;
            base += stride;
        }
        a0 = T::fold_chunk(c.0, first(i), a0, map, op);
        a1 = T::fold_chunk(c.1, first(i + bt), a1, map, op);
        a2 = T::fold_chunk(c.2, first(i + 2 * bt), a2, map, op);
        a3 = T::fold_chunk(c.3, first(i + 3 * bt), a3, map, op);
    }
    // The last, partial tile starts at `base` of one block only.
    let mut i = base + t;
    while i < len {
        a0 = T::fold_chunk(body[i], first(i), a0, map, op);
        i += bt;
    }
    let g = grid.thread_rank();
    if g < head.len() {
        a1 = op.combine(a1, map.apply(g, head[g]));
    }
    if g < tail.len() {
        let at = head.len() + len * T::LANES + g;
        a2 = op.combine(a2, map.apply(at, tail[g]));
    }
    op.combine(op.combine(a0, a1), op.combine(a2, a3))
}

#[inline(always)]
fn contiguous<T: Shuffle, M: Map<T>, O: Operator<M::Output>>(
    input: &[T],
    map: M,
    op: O,
    t: usize,
    threads: usize,
) -> M::Output {
    let per_thread = input.len().div_ceil(threads);
    let start = (t * per_thread).min(input.len());
    let end = (start + per_thread).min(input.len());
    let mut acc = op.identity();
    let mut i = start;
    while i < end {
        acc = op.combine(acc, map.apply(i, input[i]));
        i += 1;
    }
    acc
}

/// A reduction whose result depends on the input alone: block `b` of `B`
/// reduces the `b`-th of `B` equal spans of `input` (whole 16-byte chunks,
/// the last span shorter) and stores the result in `partials[b]`; a second
/// launch of one block over the partials stores the total in
/// `partials[0]`, as with [`reduce_blocks`].
///
/// Every combination's order is fixed by the element's index, the block
/// count and the block size. For a commutative operator, thread `t` folds
/// chunks `t, t + threads, ...`
/// of its span, element `j` of each chunk into its own accumulator `j`,
/// then the accumulators in order, then the block combines its threads'
/// results in a fixed tree; for another, each thread folds a contiguous
/// range of the span, in input order. The loads are 16-byte vectors where `input`
/// starts 16-byte aligned and four scalar loads of the same elements where
/// it does not, so that the alignment of a view changes nothing. Launched
/// with a block count that depends on the length alone (as
/// `coop_host::reduce::Reducer::deterministic` does), a float sum has the
/// same bits on every GPU and on the CPU backend.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::reduce::reduce_ordered;
/// use coop::device::map::Identity;
///
/// #[kernel]
/// pub fn sum_ordered(block: ThreadBlock, input: &[f32], partials: Out<f32>) {
///     reduce_ordered(block, input, Identity, op::Sum, partials)
/// }
///
/// let input: Vec<f32> = (0..50_000).map(|i| 1.0 / (1.0 + i as f32)).collect();
/// let run = |offset: usize| -> Result<f32, coop_host::Error> {
///     let cpu = coop_host::Cpu::new();
///     let mut partials = vec![0f32; 7];
///     cpu.launch(sum_ordered, coop_host::LaunchConfig::new(7, 128), (&input[offset..], &mut partials))?;
///     let mut total = vec![0f32; 1];
///     cpu.launch(sum_ordered, coop_host::LaunchConfig::new(1, 128), (&partials, &mut total))?;
///     Ok(total[0])
/// };
/// // The same bits whatever the alignment of the view.
/// let aligned: Vec<f32> = input[1..].to_vec();
/// assert_eq!(run(1)?.to_bits(), {
///     let cpu = coop_host::Cpu::new();
///     let mut partials = vec![0f32; 7];
///     cpu.launch(sum_ordered, coop_host::LaunchConfig::new(7, 128), (&aligned, &mut partials))?;
///     let mut total = vec![0f32; 1];
///     cpu.launch(sum_ordered, coop_host::LaunchConfig::new(1, 128), (&partials, &mut total))?;
///     total[0].to_bits()
/// });
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
pub fn reduce_ordered<T: Vectorized, M: Map<T>, O: Operator<M::Output>>(
    block: ThreadBlock,
    input: &[T],
    map: M,
    op: O,
    partials: Out<M::Output>,
) {
    let grid = this_grid();
    let b = grid.block_rank();
    let mine = ordered_share(&block, input, map, op, b, grid.num_blocks());
    store_block_result(&block, mine, op, &partials, b);
}

/// [`reduce_ordered`] in one launch: each block reduces its span as
/// [`reduce_ordered`] does and stores it in `partials[block rank]`, and the
/// block that finishes last (the tickets of [`reduce_grid`]) reduces those
/// in [`reduce_ordered`]'s order for one block, storing the total in
/// `partials[blocks]`. Which block finishes last changes nothing: the
/// result's bits depend on the input's length, the block count and the
/// block size alone, as with two launches of [`reduce_ordered`] (the bits
/// of the two forms may differ from each other). `coop_host`'s
/// deterministic sums run it. Needs a `tickets` buffer of one element, 0
/// before the launch (and after it); without one the kernel stops with a
/// message.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::reduce::reduce_ordered_grid;
/// use coop::device::map::Square;
///
/// #[kernel]
/// pub fn squares_once(block: ThreadBlock, input: &[f32], partials: Out<f32>, tickets: Out<u32>) {
///     reduce_ordered_grid(block, input, Square, op::Sum, partials, tickets)
/// }
///
/// let input: Vec<f32> = (0..50_000).map(|i| 1.0 / (1.0 + i as f32)).collect();
/// let run = |threads: usize| -> Result<u32, coop_host::Error> {
///     let cpu = coop_host::Cpu::with_emulator(coop::cpu::Emulator::new().with_host_threads(threads));
///     let (mut partials, mut tickets) = (vec![0f32; 7 + 1], vec![0u32; 1]);
///     let config = coop_host::LaunchConfig::new(7, 128);
///     cpu.launch(squares_once, config, (&input, &mut partials, &mut tickets))?;
///     assert_eq!(tickets, [0]); // ready for the next launch
///     Ok(partials[7].to_bits())
/// };
/// // Blocks one after another or several at once: the same bits.
/// assert_eq!(run(1)?, run(4)?);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
pub fn reduce_ordered_grid<T, M, O>(
    block: ThreadBlock,
    input: &[T],
    map: M,
    op: O,
    partials: Out<M::Output>,
    tickets: Out<u32>,
) where
    T: Vectorized,
    M: Map<T>,
    M::Output: Vectorized,
    O: Operator<M::Output>,
{
    assert!(
        !tickets.is_empty(),
        "reduce_ordered_grid finishes in one launch and needs a tickets buffer of one element \
         (zero before the launch); for two launches without one, call reduce_ordered"
    );
    let grid = this_grid();
    let blocks = grid.num_blocks();
    let mine = ordered_share(&block, input, map, op, grid.block_rank(), blocks);
    if blocks == 1 {
        return store_block_result(&block, mine, op, &partials, 1);
    }
    finish_with(block, mine, op, partials, tickets, |block, parts| {
        ordered_share(block, parts, Identity, op, 0, 1)
    })
}

/// The thread's share of block `b`'s span (of `blocks`) in
/// [`reduce_ordered`]'s fixed order, before the block's tree.
#[inline(always)]
fn ordered_share<T: Vectorized, M: Map<T>, O: Operator<M::Output>>(
    block: &ThreadBlock,
    input: &[T],
    map: M,
    op: O,
    b: usize,
    blocks: usize,
) -> M::Output {
    let lanes = T::LANES;
    let chunks = input.len().div_ceil(lanes);
    let span = chunks.div_ceil(blocks);
    let first = (b * span).min(chunks);
    let end = (first + span).min(chunks);
    let (t, bt) = (block.thread_rank() as usize, block.num_threads() as usize);
    if !O::COMMUTATIVE {
        // In input order: a contiguous range a thread, in rank order.
        let (lo, hi) = (
            (first * lanes).min(input.len()),
            (end * lanes).min(input.len()),
        );
        let per = (hi - lo).div_ceil(bt);
        let start = (lo + t * per).min(hi);
        let stop = (start + per).min(hi);
        let mut acc = op.identity();
        let mut i = start;
        while i < stop {
            acc = op.combine(acc, map.apply(i, input[i]));
            i += 1;
        }
        return acc;
    }
    let vector = (input.as_ptr() as usize).is_multiple_of(16);
    // Chunk `c` of the input: whole, through one vector load where the
    // input is aligned, element by element where not or at the end.
    let chunk = |c: usize| -> [M::Output; 16] {
        let at = c * lanes;
        let mut out = [op.identity(); 16];
        if vector && at + lanes <= input.len() {
            // SAFETY: `at + lanes <= len`, `at` is a multiple of `lanes`
            // and the input starts 16-byte aligned, so the chunk is whole
            // and aligned.
            let v = unsafe { *(input.as_ptr().add(at) as *const T::Chunk) };
            let mut j = 0;
            while j < lanes {
                out[j] = map.apply(at + j, T::lane(v, j));
                j += 1;
            }
        } else {
            let mut j = 0;
            while j < lanes {
                if at + j < input.len() {
                    out[j] = map.apply(at + j, input[at + j]);
                }
                j += 1;
            }
        }
        out
    };
    let mut acc = [op.identity(); 16];
    let mut fold = |x: [M::Output; 16]| {
        let mut j = 0;
        while j < lanes {
            acc[j] = op.combine(acc[j], x[j]);
            j += 1;
        }
    };
    // Four chunks' loads before their folds; the folds keep chunk order.
    let mut c = first + t;
    while c + 3 * bt < end {
        let (x0, x1, x2, x3) = (
            chunk(c),
            chunk(c + bt),
            chunk(c + 2 * bt),
            chunk(c + 3 * bt),
        );
        fold(x0);
        fold(x1);
        fold(x2);
        fold(x3);
        c += 4 * bt;
    }
    while c < end {
        fold(chunk(c));
        c += bt;
    }
    let mut mine = acc[0];
    let mut j = 1;
    while j < lanes {
        mine = op.combine(mine, acc[j]);
        j += 1;
    }
    mine
}
