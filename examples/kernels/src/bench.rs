//! Kernels of the reduction benchmark (`examples/reduce_bench.rs`), the
//! same work as `examples/bench/cub_reduce.cu` does with CUB.

use coop::prelude::*;

/// Reductions per launch in [`block_reduce_f32`] and [`block_reduce_i32`].
pub const BLOCK_REDUCE_REPS: u32 = 64;

/// Each block reduces `BLOCK_REDUCE_REPS` independent sets of one value per
/// thread; thread 0 writes their total. A kernel that does little besides
/// block reductions, to compare with CUB's `BlockReduce`.
#[kernel]
pub fn block_reduce_f32(block: ThreadBlock, input: &[f32], out: Out<f32>) {
    let grid = this_grid();
    let v = input[grid.thread_rank()];
    let mut acc = 0.0f32;
    for i in 0..BLOCK_REDUCE_REPS {
        acc += reduce(&block, v + i as f32, op::Sum);
    }
    if block.thread_rank() == 0 {
        out.write(grid.block_rank(), acc);
    }
}

/// [`block_reduce_f32`] for `i32` (whose warp sums are one `redux.sync`).
#[kernel]
pub fn block_reduce_i32(block: ThreadBlock, input: &[i32], out: Out<i32>) {
    let grid = this_grid();
    let v = input[grid.thread_rank()];
    let mut acc = 0i32;
    for i in 0..BLOCK_REDUCE_REPS {
        acc = acc.wrapping_add(reduce(&block, v.wrapping_add(i as i32), op::Sum));
    }
    if block.thread_rank() == 0 {
        out.write(grid.block_rank(), acc);
    }
}
