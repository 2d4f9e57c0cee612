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
//! use coop::grid_reduce::reduce_blocks;
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

use crate::memory::fence_device;
use crate::op::{Max, Operator};
use crate::reduce::reduce_into_warp0;
use crate::{reduce, this_grid, Out, Shuffle, ThreadBlock};
use core::sync::atomic::{AtomicU32, Ordering};

/// 16 bytes of `A`, aligned to 16 so that one load instruction moves them
/// (`ld.global.v4.f32` and the like).
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug)]
pub struct Align16<A>(pub A);

/// An element type that loads as whole 16-byte vectors.
pub trait Vectorized: Shuffle {
    /// 16 bytes of elements.
    type Chunk: Copy;
    /// Folds the chunk's elements, in order, into `acc`.
    fn fold_chunk<O: Operator<Self>>(chunk: Self::Chunk, acc: Self, op: O) -> Self;
}

macro_rules! vectorized {
    ($($t:ty: $k:literal),*) => {$(
        impl Vectorized for $t {
            type Chunk = Align16<[$t; $k]>;
            #[inline(always)]
            fn fold_chunk<O: Operator<Self>>(chunk: Self::Chunk, acc: Self, op: O) -> Self {
                let mut acc = acc;
                let mut i = 0;
                while i < $k {
                    acc = op.combine(acc, chunk.0[i]);
                    i += 1;
                }
                acc
            }
        }
    )*};
}
vectorized!(u8: 16, i8: 16, u16: 8, i16: 8, u32: 4, i32: 4, f32: 4, u64: 2, i64: 2, f64: 2, usize: 2, isize: 2, u128: 1, i128: 1);

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
    let acc = match one_block_small(input, op, &block) {
        Some(acc) => acc,
        None => vector_share(input, op, &block),
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
    let acc = scalar_share(input, op, grid.thread_rank(), grid.num_threads());
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
/// use coop::grid_reduce::reduce_grid;
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
    if let Some(acc) = one_block_small(input, op, &block) {
        let index = if tickets.is_empty() { 0 } else { 1 };
        return store_block_result(&block, acc, op, &partials, index);
    }
    let acc = vector_share(input, op, &block);
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
        scalar_share(input, op, grid.thread_rank(), grid.num_threads()),
        op,
        partials,
        tickets,
    )
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
    let (t, bt) = (block.thread_rank() as usize, block.num_threads() as usize);
    store_block_result(
        &block,
        scalar_share(parts, op, t, bt),
        op,
        &partials,
        blocks,
    );
    if first {
        counter.store(0, Ordering::Relaxed); // ready for the next launch
    }
}

/// Elements a thread loads on the path for small inputs.
const SMALL_PER_THREAD: usize = 16;

/// In a launch of one block, for a commutative operator and at most
/// [`SMALL_PER_THREAD`] elements a thread: thread `t`'s fold of elements
/// `t, t + threads, ...`, all loaded (one element a load, so no alignment
/// is needed) before a tree of combines. A small input is all start-up:
/// this path runs about a third of the instructions of the tile loop's
/// (the unaligned head and tail, the tile bookkeeping). `None` otherwise.
#[inline(always)]
fn one_block_small<T: Shuffle, O: Operator<T>>(
    input: &[T],
    op: O,
    block: &ThreadBlock,
) -> Option<T> {
    let bt = block.num_threads() as usize;
    if !O::COMMUTATIVE || this_grid().num_blocks() != 1 || input.len() > SMALL_PER_THREAD * bt {
        return None;
    }
    // 32-bit index arithmetic: the input has at most 16 x 1024 elements.
    let (t, bt, len) = (block.thread_rank(), bt as u32, input.len() as u32);
    let mut v: [T; SMALL_PER_THREAD] = core::array::from_fn(|k| {
        let i = t + k as u32 * bt;
        if i < len {
            // SAFETY: checked just above.
            unsafe { *input.get_unchecked(i as usize) }
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

/// This thread's fold of its share of `input`: tiles of 16-byte chunks for
/// a commutative operator ([`strided`]), a contiguous range otherwise, so
/// that the threads' results in rank order keep the order of `input`.
#[inline(always)]
fn vector_share<T: Vectorized, O: Operator<T>>(input: &[T], op: O, block: &ThreadBlock) -> T {
    if O::COMMUTATIVE {
        strided(input, op, block)
    } else {
        let grid = this_grid();
        contiguous(input, op, grid.thread_rank(), grid.num_threads())
    }
}

/// Thread `t` of `threads`' fold of `input`: strided (coalesced) for a
/// commutative operator, a contiguous range otherwise, so that the
/// threads' results in rank order keep the order of `input`.
#[inline(always)]
fn scalar_share<T: Shuffle, O: Operator<T>>(input: &[T], op: O, t: usize, threads: usize) -> T {
    if O::COMMUTATIVE {
        let mut acc = op.identity();
        let mut i = t;
        while i < input.len() {
            acc = op.combine(acc, input[i]);
            i += threads;
        }
        acc
    } else {
        contiguous(input, op, t, threads)
    }
}

/// The vector body goes in tiles of `4 × block size` chunks, tile `k` to
/// block `k mod blocks`: in each step a block's threads load one tile as four
/// consecutive runs of `block size` chunks, thread `t` the `t`-th chunk of
/// each run, so every load instruction of a warp reads 512 contiguous bytes.
/// Finding a block's tiles takes no division, so the first loads leave
/// early; the unaligned head and tail of `input` (fewer than 16 bytes each)
/// go to the grid's first threads after them.
#[inline(always)]
fn strided<T: Vectorized, O: Operator<T>>(input: &[T], op: O, block: &ThreadBlock) -> T {
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
        let mut c = four(base + t);
        base += stride;
        while base + tile <= len {
            let next = four(base + t);
            a0 = T::fold_chunk(c.0, a0, op);
            a1 = T::fold_chunk(c.1, a1, op);
            a2 = T::fold_chunk(c.2, a2, op);
            a3 = T::fold_chunk(c.3, a3, op);
            c = next;
            base += stride;
        }
        a0 = T::fold_chunk(c.0, a0, op);
        a1 = T::fold_chunk(c.1, a1, op);
        a2 = T::fold_chunk(c.2, a2, op);
        a3 = T::fold_chunk(c.3, a3, op);
    }
    // The last, partial tile starts at `base` of one block only.
    let mut i = base + t;
    while i < len {
        a0 = T::fold_chunk(body[i], a0, op);
        i += bt;
    }
    let g = grid.thread_rank();
    if g < head.len() {
        a1 = op.combine(a1, head[g]);
    }
    if g < tail.len() {
        a2 = op.combine(a2, tail[g]);
    }
    op.combine(op.combine(a0, a1), op.combine(a2, a3))
}

#[inline(always)]
fn contiguous<T: Shuffle, O: Operator<T>>(input: &[T], op: O, t: usize, threads: usize) -> T {
    let per_thread = input.len().div_ceil(threads);
    let start = (t * per_thread).min(input.len());
    let end = (start + per_thread).min(input.len());
    input[start..end]
        .iter()
        .fold(op.identity(), |acc, &x| op.combine(acc, x))
}
