//! Kernels of the reduction benchmark (`examples/bench/reduce_bench.rs`),
//! the same work as `examples/bench/cub_reduce.cu` does with CUB.

use coop::prelude::*;

/// Reductions per launch in [`block_reduce_f32`] and [`block_reduce_i32`].
pub const BLOCK_REDUCE_REPS: u32 = 64;
const _: () = assert!(
    BLOCK_REDUCE_REPS.is_multiple_of(4),
    "the kernels below unroll by four"
);

/// Each block reduces `BLOCK_REDUCE_REPS` independent sets of one value per
/// thread; thread 0 writes their total. A kernel that does little besides
/// block reductions, to compare with CUB's `BlockReduce`.
///
/// The loop is unrolled by four by hand: nvcc unrolls the CUB kernel's loop
/// by four on its own (its SASS shows four reductions per trip), rustc
/// leaves this one rolled, and in a kernel this small the loop's own
/// instructions show in the timings (chapter 7 of the guide).
#[kernel]
pub fn block_reduce_f32(block: ThreadBlock, input: &[f32], out: Out<f32>) {
    let grid = this_grid();
    let v = input[grid.thread_rank()];
    let mut acc = 0.0f32;
    let mut i = 0;
    while i < BLOCK_REDUCE_REPS {
        acc += reduce(&block, v + i as f32, op::Sum);
        acc += reduce(&block, v + (i + 1) as f32, op::Sum);
        acc += reduce(&block, v + (i + 2) as f32, op::Sum);
        acc += reduce(&block, v + (i + 3) as f32, op::Sum);
        i += 4;
    }
    if block.thread_rank() == 0 {
        out.write(grid.block_rank(), acc);
    }
}

/// [`block_reduce_f32`] for `i32` (whose warp sums are one `redux.sync`),
/// unrolled the same way.
#[kernel]
pub fn block_reduce_i32(block: ThreadBlock, input: &[i32], out: Out<i32>) {
    let grid = this_grid();
    let v = input[grid.thread_rank()];
    let mut acc = 0i32;
    let mut i = 0;
    while i < BLOCK_REDUCE_REPS as i32 {
        acc = acc.wrapping_add(reduce(&block, v.wrapping_add(i), op::Sum));
        acc = acc.wrapping_add(reduce(&block, v.wrapping_add(i + 1), op::Sum));
        acc = acc.wrapping_add(reduce(&block, v.wrapping_add(i + 2), op::Sum));
        acc = acc.wrapping_add(reduce(&block, v.wrapping_add(i + 3), op::Sum));
        i += 4;
    }
    if block.thread_rank() == 0 {
        out.write(grid.block_rank(), acc);
    }
}
