//! Ragged tiles (`block.ragged_partition::<N>()`) in blocks whose thread
//! count need not be a multiple of `N`: every tile query, shuffle, vote,
//! reduction and scan of the calling thread's tile, one row of
//! [`RAGGED_FIELDS`] words per thread, for `tests/ragged_cases.rs` to
//! check against the host on both backends.

use coop::prelude::*;

/// Words per thread `g` in `out[RAGGED_FIELDS * g..]`, with `v = input[g]`:
/// 0 `num_threads`, 1 `thread_rank`, 2 `1000 * meta_group_rank +
/// meta_group_size`, 3 `reduce(v, Sum)` (u32), 4 the low word of
/// `reduce(3 v, Sum)` over u64, 5 `inclusive_scan(v, Sum)`, 6
/// `exclusive_scan(v, Max)`, 7 `shfl(v, rank + 3)`, 8 `shfl_up(v, 2)`, 9
/// `shfl_down(v, 3)`, 10 `shfl_xor(v, 5)`, 11 `ballot(v odd)`, 12
/// `any(v % 7 == 0) + 2 all(v > 0)`, 13 the size of `binary_partition(v
/// odd)`, 14 the low word of `exclusive_scan(v, Sum)` over u64.
pub const RAGGED_FIELDS: usize = 15;

macro_rules! ragged_kernel {
    ($name:ident, $n:literal) => {
        #[doc = concat!("Every ragged-tile call on tiles of ", stringify!($n), "; see [`RAGGED_FIELDS`].")]
        #[kernel]
        pub fn $name(block: ThreadBlock, input: &[u32], out: Out<u32>) {
            let tile = block.ragged_partition::<$n>();
            let g = this_grid().thread_rank();
            let v = input[g];
            let rank = tile.thread_rank();
            let row = [
                tile.num_threads(),
                rank,
                1000 * tile.meta_group_rank() + tile.meta_group_size(),
                reduce(&tile, v, op::Sum),
                reduce(&tile, 3 * v as u64, op::Sum) as u32,
                inclusive_scan(&tile, v, op::Sum),
                exclusive_scan(&tile, v, op::Max),
                tile.shfl(v, rank + 3),
                tile.shfl_up(v, 2),
                tile.shfl_down(v, 3),
                tile.shfl_xor(v, 5),
                tile.ballot(v % 2 == 1),
                tile.any(v % 7 == 0) as u32 + 2 * tile.all(v > 0) as u32,
                tile.binary_partition(v % 2 == 1).num_threads(),
                exclusive_scan(&tile, v as u64, op::Sum) as u32,
            ];
            for (k, word) in row.into_iter().enumerate() {
                out.write(RAGGED_FIELDS * g + k, word);
            }
        }
    };
}

ragged_kernel!(ragged_warps, 32);
ragged_kernel!(ragged_eights, 8);
