//! Multi-warp tiles of the GPU suite: every member and collective of
//! `TiledPartition<N>` for N = 64 to 1024, one kernel per size, compared
//! with the host (`tests/multi_warp_cases.rs`) and the CPU backend.

use coop::prelude::*;

/// Words each kernel writes per thread.
pub const MULTI_WARP_FIELDS: usize = 13;

macro_rules! multi_warp_kernel {
    ($name:ident, $n:literal) => {
        /// Per thread `g`: the tile's rank, size, meta-group rank and size;
        /// rank 5's value; any and all of two predicates; a 32-bit sum
        /// (`redux` per warp), a 64-bit sum (shuffles per warp), inclusive
        /// and exclusive scans; the caller's warp as a sub-tile (its
        /// meta-group rank); a sum over a sub-tile of half the size made
        /// from the tile.
        #[kernel]
        pub fn $name(block: ThreadBlock, values: &[u32], out: Out<u32>) {
            let g = this_grid().thread_rank();
            let v = values[g];
            let tile = block.tiled_partition::<$n>();
            let wide = reduce(&tile, v as u64 * 7, op::Sum);
            let warp = tile.tiled_partition::<32>();
            let half = tile.tiled_partition::<{ $n / 2 }>();
            let fields = [
                tile.thread_rank(),
                tile.num_threads(),
                tile.meta_group_rank(),
                tile.meta_group_size(),
                tile.shfl(v, 5),
                tile.any(v % 97 == 0) as u32,
                tile.all(v < 999) as u32,
                reduce(&tile, v, op::Sum),
                wide as u32 ^ (wide >> 32) as u32,
                inclusive_scan(&tile, v, op::Sum),
                exclusive_scan(&tile, v, op::Sum),
                warp.meta_group_rank(),
                reduce(&half, v, op::Max),
            ];
            for (k, f) in fields.iter().enumerate() {
                out.write(MULTI_WARP_FIELDS * g + k, *f);
            }
        }
    };
}

multi_warp_kernel!(multi_warp_64, 64);
multi_warp_kernel!(multi_warp_128, 128);
multi_warp_kernel!(multi_warp_256, 256);
multi_warp_kernel!(multi_warp_512, 512);
multi_warp_kernel!(multi_warp_1024, 1024);

/// The shape users write: a guarded load, a multi-warp tile's reduction
/// and inclusive scan, a guarded store, on any length (the last tile only
/// partly in range): `out[2i]` = the tile's sum, `out[2i + 1]` = the scan.
#[kernel]
pub fn guarded_tile_scans_128(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let i = this_grid().thread_rank();
    let x = if i < input.len() { input[i] } else { 0 };
    let tile = block.tiled_partition::<128>();
    let total = reduce(&tile, x, op::Sum);
    let running = inclusive_scan(&tile, x, op::Sum);
    if i < input.len() {
        out.write(2 * i, total);
        out.write(2 * i + 1, running);
    }
}
