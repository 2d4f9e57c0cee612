// `#[kernel(cooperative)]` is for a kernel that syncs its grid: it takes
// the `CooperativeGrid` that does.
use coop::prelude::*;

#[kernel(cooperative)]
pub fn one_phase(grid: Grid, out: Out<u32>) {
    out.write(grid.thread_rank(), 1);
}

fn main() {}
