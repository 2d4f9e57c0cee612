// A grid sync waits for every block, which only works when every block is
// on the GPU at once: `Grid` cannot sync, and the error says how to declare
// a kernel whose grid can.
use coop::prelude::*;

#[kernel]
pub fn two_phases(grid: Grid, out: Out<u32>) {
    out.write(grid.thread_rank(), 1);
    grid.sync();
}

fn main() {}
