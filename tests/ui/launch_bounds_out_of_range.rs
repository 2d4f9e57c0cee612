// A block has at most 1024 threads: a bound above it is an error in the
// kernel's source, not a launch that fails later.
use coop::prelude::*;

#[kernel(max_threads = 2048)]
pub fn scale(grid: Grid, input: &[f32], out: Out<f32>) {
    let i = grid.thread_rank();
    if i < input.len() {
        out.write(i, 2.0 * input[i]);
    }
}

fn main() {}
