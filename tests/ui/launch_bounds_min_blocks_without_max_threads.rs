// `min_blocks` counts blocks of `max_threads` threads: without
// `max_threads` it means nothing (ptxas would ignore it), so coop asks
// for both, as CUDA's `__launch_bounds__(threads, blocks)` does.
use coop::prelude::*;

#[kernel(min_blocks = 4)]
pub fn scale(grid: Grid, input: &[f32], out: Out<f32>) {
    let i = grid.thread_rank();
    if i < input.len() {
        out.write(i, 2.0 * input[i]);
    }
}

fn main() {}
