//! Cooperative kernels of the GPU suite. `reference/collectives.cu` has
//! CUDA twins of the same names and parameters, written with
//! `cg::grid_group`.

use coop::prelude::*;

/// Words [`grid_steps`] writes per thread into `ranks`: thread rank,
/// threads, block rank, blocks, grid extent in x, 1.
pub const GRID_FIELDS: usize = 6;

/// Each thread writes its grid ranks; then `steps` rounds of a wrapping
/// three-point stencil, `dst[i] = src[i - 1] + 3 src[i] + src[i + 1]`
/// (indices modulo the length), from `a` to `b` and back, with a grid sync
/// after each round: every round reads what other blocks wrote in the
/// round before, so a grid barrier that lets any block through early
/// changes the result.
#[kernel(cooperative)]
pub fn grid_steps(grid: CooperativeGrid, steps: u32, a: Out<u32>, b: Out<u32>, ranks: Out<u32>) {
    let g = grid.thread_rank();
    let fields = [
        g as u32,
        grid.num_threads() as u32,
        grid.block_rank() as u32,
        grid.num_blocks() as u32,
        grid.dim_blocks().x,
        1,
    ];
    for (k, &f) in fields.iter().enumerate() {
        ranks.write(GRID_FIELDS * g + k, f);
    }
    let n = a.len();
    for s in 0..steps {
        let (src, dst) = if s % 2 == 0 { (&a, &b) } else { (&b, &a) };
        let mut i = g;
        while i < n {
            let left = src.read((i + n - 1) % n);
            let right = src.read((i + 1) % n);
            let mid = src.read(i);
            dst.write(
                i,
                left.wrapping_add(mid.wrapping_mul(3)).wrapping_add(right),
            );
            i += grid.num_threads();
        }
        grid.sync();
    }
}
