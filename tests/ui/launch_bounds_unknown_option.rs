// `#[kernel]` takes `cooperative`, `max_threads`, `min_blocks` and
// `max_registers`; a misspelt option is refused with the list.
use coop::prelude::*;

#[kernel(max_thread = 256)]
pub fn scale(grid: Grid, input: &[f32], out: Out<f32>) {
    let i = grid.thread_rank();
    if i < input.len() {
        out.write(i, 2.0 * input[i]);
    }
}

fn main() {}
