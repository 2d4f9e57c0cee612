//! The dot product of the first seed tutorial ("CUDA by Example"), with the
//! block's shared-memory tree replaced by warp shuffles: each thread sums a
//! grid-stride slice of `a[i] * b[i]`, each warp adds up its 32 partial sums
//! with `shfl_down`, and lane 0 of every warp writes one partial result.

use coop::prelude::*;

/// `partial[w]` = the sum of `a[i] * b[i]` over the indices that warp `w`
/// of the grid visited. `partial` needs one element per warp of the launch.
#[kernel]
pub fn dot(block: ThreadBlock, a: &[f32], b: &[f32], partial: Out<f32>) {
    let grid = this_grid();
    let n = a.len().min(b.len());
    let mut sum = 0.0f32;
    let mut i = grid.thread_rank();
    while i < n {
        sum += a[i] * b[i];
        i += grid.num_threads();
    }

    let warp = block.tiled_partition::<32>();
    let mut offset = 16;
    while offset > 0 {
        sum += warp.shfl_down(sum, offset);
        offset /= 2;
    }
    if warp.thread_rank() == 0 {
        let warps_per_block = warp.meta_group_size() as usize;
        let w = grid.block_rank() * warps_per_block + warp.meta_group_rank() as usize;
        partial.write(w, sum);
    }
}
