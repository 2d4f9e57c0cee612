#![no_std]
use coop::prelude::*;

/// y = a x + y, one element a thread.
#[kernel]
pub fn saxpy(grid: Grid, a: f32, x: &[f32], y: &[f32], out: Out<f32>) {
    let i = grid.thread_rank();
    if i < x.len() {
        out.write(i, a.mul_add(x[i], y[i]));
    }
}

/// The block sums of `x`, one block reduction each.
#[kernel]
pub fn block_sums(block: ThreadBlock, x: &[f32], out: Out<f32>) {
    let i = this_grid().thread_rank();
    let v = if i < x.len() { x[i] } else { 0.0 };
    let total = reduce(&block, v, op::Sum);
    if block.thread_rank() == 0 {
        out.write(block.group_index().x as usize, total);
    }
}
