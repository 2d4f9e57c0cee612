//! The warp functions of the warp functions and cooperative groups
//! tutorial, through a tile handle: votes (`ballot`, `any`, `all`) and the
//! four shuffles with the tutorial's width rule (a tile of 2, 4, 8, 16 or
//! 32 threads plays the role of `width`). Every thread writes [`FIELDS`]
//! values.

use coop::prelude::*;

/// Values each thread writes.
pub const FIELDS: usize = 8;

/// For a warp of threads holding `v = input[rank]`:
///
/// 0. `ballot(v > 0)` over the warp;
/// 1. `any(v == 0)`; 2. `all(v < 100)` over the warp;
/// 3. `shfl(v, 0)` in a tile of 8 (each group of 8 gets its first value);
/// 4. `shfl_up(v, 2)` in a tile of 16; 5. `shfl_down(v, 2)` in a tile of 16;
/// 6. `shfl_xor(v, 1)` over the warp (neighbours swap);
/// 7. the warp's sum by `shfl_xor` butterfly.
#[kernel]
pub fn warp_vote(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let rank = this_grid().thread_rank();
    let v = input[rank];
    let warp = block.tiled_partition::<32>();
    let eight = block.tiled_partition::<8>();
    let sixteen = block.tiled_partition::<16>();
    let mut sum = v;
    let mut mask = 16;
    while mask > 0 {
        sum = sum.wrapping_add(warp.shfl_xor(sum, mask));
        mask /= 2;
    }
    let results = [
        warp.ballot(v > 0),
        warp.any(v == 0) as u32,
        warp.all(v < 100) as u32,
        eight.shfl(v, 0),
        sixteen.shfl_up(v, 2),
        sixteen.shfl_down(v, 2),
        warp.shfl_xor(v, 1),
        sum,
    ];
    for (k, r) in results.into_iter().enumerate() {
        out.write(FIELDS * rank + k, r);
    }
}
