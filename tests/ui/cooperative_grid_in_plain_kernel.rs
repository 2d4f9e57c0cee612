// A `CooperativeGrid` exists only in a kernel declared cooperative, which
// coop_host launches with every block resident at once.
use coop::prelude::*;

#[kernel]
pub fn two_phases(grid: CooperativeGrid, out: Out<u32>) {
    out.write(grid.thread_rank(), 1);
    grid.sync();
}

fn main() {}
