//! A sum in two steps: each thread loads one element, each warp adds its 32
//! values with a butterfly of `shfl_xor`, and lane 0 of each warp writes the
//! warp's sum. The host (or a second launch) adds the partial sums.

use coop::prelude::*;

/// `partial[w]` = the sum of the 32 elements of warp `w` of the grid
/// (missing elements count as 0).
#[kernel]
pub fn warp_sums(block: ThreadBlock, input: &[f32], partial: Out<f32>) {
    let grid = this_grid();
    let i = grid.thread_rank();
    let mut v = if i < input.len() { input[i] } else { 0.0 };
    let warp = block.tiled_partition::<32>();
    for offset in [16, 8, 4, 2, 1] {
        v += warp.shfl_xor(v, offset);
    }
    if warp.thread_rank() == 0 {
        partial.write(i / 32, v);
    }
}
