//! The first pass of a device-wide reduction, as a function a kernel calls:
//! each block reduces a share of the input to one value.
//!
//! `coop_host::reduce` runs it twice (every block, then one block over the
//! blocks' results) for the built-in operators and types; a kernel crate
//! wraps it in a `#[kernel]` for its own operators and types:
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

use crate::op::Operator;
use crate::{reduce, this_grid, Out, Shuffle, ThreadBlock};

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
/// For a commutative operator each block streams a contiguous share with
/// 16-byte loads (the unaligned head and tail of `input` go to the first
/// threads); otherwise each thread folds a contiguous range and the order of
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
    let grid = this_grid();
    let acc = if O::COMMUTATIVE {
        strided(input, op, &block)
    } else {
        contiguous(input, op, grid.thread_rank(), grid.num_threads())
    };
    let total = reduce(&block, acc, op);
    if block.thread_rank() == 0 {
        partials.write(grid.block_rank(), total);
    }
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
    let (t, threads) = (grid.thread_rank(), grid.num_threads());
    let acc = if O::COMMUTATIVE {
        let mut acc = op.identity();
        let mut i = t;
        while i < input.len() {
            acc = op.combine(acc, input[i]);
            i += threads;
        }
        acc
    } else {
        contiguous(input, op, t, threads)
    };
    let total = reduce(&block, acc, op);
    if block.thread_rank() == 0 {
        partials.write(grid.block_rank(), total);
    }
}

/// Each block streams a contiguous share of the vector body (CUB's "even
/// share"): in each step its threads load four consecutive runs of
/// `block size` chunks, thread `t` the `t`-th chunk of each run, so every
/// load instruction of a warp reads 512 contiguous bytes.
#[inline(always)]
fn strided<T: Vectorized, O: Operator<T>>(input: &[T], op: O, block: &ThreadBlock) -> T {
    let grid = this_grid();
    let t = grid.thread_rank();
    // SAFETY: every bit pattern of the primitive element types is valid in
    // a chunk of them; `align_to` keeps the chunks in bounds.
    let (head, body, tail) = unsafe { input.align_to::<T::Chunk>() };
    let mut a0 = op.identity();
    if t < head.len() {
        a0 = op.combine(a0, head[t]);
    }
    if t < tail.len() {
        a0 = op.combine(a0, tail[t]);
    }
    let bt = block.num_threads() as usize;
    let step = 4 * bt;
    let per_block = body.len().div_ceil(grid.num_blocks()).div_ceil(step) * step;
    let start = (grid.block_rank() * per_block).min(body.len());
    let end = (start + per_block).min(body.len());
    // Four independent accumulators keep four loads in flight per thread.
    let (mut a1, mut a2, mut a3) = (op.identity(), op.identity(), op.identity());
    let mut i = start + block.thread_rank() as usize;
    let four = |i: usize| (body[i], body[i + bt], body[i + 2 * bt], body[i + 3 * bt]);
    if i + 3 * bt < end {
        // Software-pipelined: the next four loads are issued before this
        // step's chunks are folded, so the folds never hold them back
        // (ptxas otherwise may start folding the first chunk before issuing
        // the last load, and the loads wait on each other).
        let mut c = four(i);
        i += step;
        while i + 3 * bt < end {
            let next = four(i);
            a0 = T::fold_chunk(c.0, a0, op);
            a1 = T::fold_chunk(c.1, a1, op);
            a2 = T::fold_chunk(c.2, a2, op);
            a3 = T::fold_chunk(c.3, a3, op);
            c = next;
            i += step;
        }
        a0 = T::fold_chunk(c.0, a0, op);
        a1 = T::fold_chunk(c.1, a1, op);
        a2 = T::fold_chunk(c.2, a2, op);
        a3 = T::fold_chunk(c.3, a3, op);
    }
    while i < end {
        a0 = T::fold_chunk(body[i], a0, op);
        i += bt;
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
