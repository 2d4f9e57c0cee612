//! The dot product of the shared-memory dot product tutorial (after "CUDA
//! by Example") three ways. Each thread first sums a grid-stride slice of
//! `a[i] * b[i]`; then
//!
//! * [`dot`]: each warp adds up its 32 partial sums with `shfl_down`, and
//!   lane 0 of every warp writes one partial result;
//! * [`dot_shared_tree`]: the tutorial's shared-memory tree, one partial
//!   result per block;
//! * [`dot_reduce`]: [`reduce`] over the block, one partial result per
//!   block.

use coop::prelude::*;
use coop::shared::{ByRank, Shared};

/// This thread's share of the product: `a[i] * b[i]` summed over the
/// indices `i` that a grid-stride loop gives it.
#[inline(always)]
fn grid_stride_products(a: &[f32], b: &[f32]) -> f32 {
    let grid = this_grid();
    let n = a.len().min(b.len());
    let mut sum = 0.0f32;
    let mut i = grid.thread_rank();
    while i < n {
        sum += a[i] * b[i];
        i += grid.num_threads();
    }
    sum
}

/// `partial[w]` = the sum of `a[i] * b[i]` over the indices that warp `w`
/// of the grid visited. `partial` needs one element per warp of the launch.
#[kernel]
pub fn dot(block: ThreadBlock, a: &[f32], b: &[f32], partial: Out<f32>) {
    let grid = this_grid();
    let mut sum = grid_stride_products(a, b);

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

/// Threads per block of [`dot_shared_tree`]: the size of its shared cache.
pub const TREE_THREADS: usize = 256;

/// The shared-memory dot product tutorial's kernel as written there: each
/// thread's grid-stride sum goes to its slot of a shared cache, and the
/// block halves the active threads each round until slot 0 holds the
/// block's sum, which goes to `partial[block]`. Launch with
/// [`TREE_THREADS`] threads per block.
///
/// Each round reads two slots, then writes one: reading happens in a
/// published phase and writing in an owned one, so every round costs two
/// barriers where the tutorial's racy-looking version has one.
#[kernel]
pub fn dot_shared_tree(
    block: ThreadBlock,
    a: &[f32],
    b: &[f32],
    partial: Out<f32>,
    cache: Shared<[f32; TREE_THREADS]>,
) {
    let grid = this_grid();
    let temp = grid_stride_products(a, b);

    let r = block.thread_rank() as usize;
    let mine = cache.own(ByRank::new());
    mine.set(temp);
    let mut all = mine.publish(&block);
    let mut half = TREE_THREADS / 2;
    while half > 0 {
        let sum = if r < half {
            all.get(r) + all.get(r + half)
        } else {
            0.0
        };
        let mine = all.own(&block, ByRank::new());
        if r < half {
            mine.set(sum);
        }
        all = mine.publish(&block);
        half /= 2;
    }
    if r == 0 {
        partial.write(grid.block_rank(), all.get(0));
    }
}

/// The same product with the block reduction done by [`reduce`]: warp
/// shuffles, one shared slot per warp, two barriers in all.
#[kernel]
pub fn dot_reduce(block: ThreadBlock, a: &[f32], b: &[f32], partial: Out<f32>) {
    let grid = this_grid();
    let temp = grid_stride_products(a, b);
    let sum = reduce(&block, temp, op::Sum);
    if block.thread_rank() == 0 {
        partial.write(grid.block_rank(), sum);
    }
}
