// The GPU has no atomic minimum of a float: the view's `min` needs an
// integer element type, and the error says what to do instead.
use coop::prelude::*;

#[kernel]
pub fn lowest(grid: Grid, input: &[f32], low: Out<f32>) {
    let i = grid.thread_rank();
    if i < input.len() {
        low.atomic().min(0, input[i]);
    }
}

fn main() {}
