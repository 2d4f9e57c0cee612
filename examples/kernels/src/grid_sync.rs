//! Grid syncs against launches, in two examples:
//!
//! - a sum in one launch with a grid sync between its two phases, and the
//!   same sum in two launches: each block adds a grid-stride share of the
//!   input into `partial[block]`, then one block adds the partials;
//! - rounds of the smoothing-stencil tutorial's stencil, in one launch
//!   with a grid sync after each round, and one launch per round.
//!
//! The one-launch versions must be launched with every block resident at
//! once (`#[kernel(cooperative)]`, which coop_host checks); the others take
//! any grid, and pay a launch per phase instead.

use coop::prelude::*;

/// The calling block's share: element `grid rank`, then every
/// `threads of the grid` after it, added by the block.
#[inline(always)]
fn block_share(block: &ThreadBlock, rank: usize, threads: usize, input: &[f32]) -> f32 {
    let mut acc = 0.0f32;
    let mut i = rank;
    while i < input.len() {
        acc += input[i];
        i += threads;
    }
    reduce(block, acc, op::Sum)
}

/// Block 0's last phase: the sum of `partial[..blocks]`.
#[inline(always)]
fn finish(block: &ThreadBlock, blocks: usize, partial: impl Fn(usize) -> f32) -> f32 {
    let mut acc = 0.0f32;
    let mut b = block.thread_rank() as usize;
    while b < blocks {
        acc += partial(b);
        b += block.num_threads() as usize;
    }
    reduce(block, acc, op::Sum)
}

/// `total[0]` = the sum of `input`, in one cooperative launch: partials,
/// a grid sync, then block 0 adds them.
#[kernel(cooperative)]
pub fn sum_one_launch(grid: CooperativeGrid, input: &[f32], partial: Out<f32>, total: Out<f32>) {
    let block = this_thread_block();
    let s = block_share(&block, grid.thread_rank(), grid.num_threads(), input);
    if block.thread_rank() == 0 {
        partial.write(grid.block_rank(), s);
    }
    grid.sync();
    if grid.block_rank() == 0 {
        let t = finish(&block, grid.num_blocks(), |b| partial.read(b));
        if block.thread_rank() == 0 {
            total.write(0, t);
        }
    }
}

/// The first of two launches: `partial[block]` = the block's share.
#[kernel]
pub fn sum_partials(grid: Grid, input: &[f32], partial: Out<f32>) {
    let block = this_thread_block();
    let s = block_share(&block, grid.thread_rank(), grid.num_threads(), input);
    if block.thread_rank() == 0 {
        partial.write(grid.block_rank(), s);
    }
}

/// The second of two launches, one block: `total[0]` = the sum of
/// `partial`.
#[kernel]
pub fn sum_partials_finish(block: ThreadBlock, partial: &[f32], total: Out<f32>) {
    let t = finish(&block, partial.len(), |b| partial[b]);
    if block.thread_rank() == 0 {
        total.write(0, t);
    }
}

/// `rounds` grid syncs and nothing else, to time one.
#[kernel(cooperative)]
pub fn grid_syncs(grid: CooperativeGrid, rounds: u32, out: Out<u32>) {
    for _ in 0..rounds {
        grid.sync();
    }
    if grid.thread_rank() == 0 {
        out.write(0, rounds);
    }
}

/// An empty launch, to time one.
#[kernel]
pub fn nothing(grid: Grid, out: Out<u32>) {
    if grid.thread_rank() == usize::MAX {
        out.write(0, 0);
    }
}

/// One round of the smoothing stencil, `dst[k] = (src[k-1] + 2 src[k] +
/// src[k+1]) / 4` with zeros outside, grid-stride.
#[inline(always)]
fn smooth(rank: usize, threads: usize, src: impl Fn(usize) -> f32, n: usize, dst: &Out<f32>) {
    let mut k = rank;
    while k < n {
        let left = if k > 0 { src(k - 1) } else { 0.0 };
        let right = if k + 1 < n { src(k + 1) } else { 0.0 };
        dst.write(k, (left + 2.0 * src(k) + right) * 0.25);
        k += threads;
    }
}

/// `rounds` rounds of the stencil from `a` to `b` and back, in one
/// cooperative launch with a grid sync after each round: the result is in
/// `b` after an odd number of rounds, in `a` after an even one.
///
/// Blocks of up to 256 threads, eight a multiprocessor (`max_threads =
/// 256, min_blocks = 8`, CUDA's `__launch_bounds__(256, 8)`): the grid's
/// rank and size stay in registers across the rounds, which without the
/// bounds takes 37 registers on sm_80 and would leave room for fewer
/// co-resident blocks.
#[kernel(cooperative, max_threads = 256, min_blocks = 8)]
pub fn smooth_rounds(grid: CooperativeGrid, rounds: u32, a: Out<f32>, b: Out<f32>) {
    let n = a.len();
    for r in 0..rounds {
        let (src, dst) = if r % 2 == 0 { (&a, &b) } else { (&b, &a) };
        smooth(
            grid.thread_rank(),
            grid.num_threads(),
            |i| src.read(i),
            n,
            dst,
        );
        grid.sync();
    }
}

/// One round of the stencil from `src` to `dst`: launch once per round,
/// swapping the buffers.
#[kernel]
pub fn smooth_round(grid: Grid, src: &[f32], dst: Out<f32>) {
    smooth(
        grid.thread_rank(),
        grid.num_threads(),
        |i| src[i],
        src.len(),
        &dst,
    );
}
