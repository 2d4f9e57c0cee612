//! Sorting each block's tile with `coop::block`: coalesced loads through
//! shared memory, the block's radix sort, coalesced stores, as a kernel
//! that sorts the runs a merge or a segmented sort starts from would.
//! `examples/bench/tile_sort.cu` has CUB twins of the same names and
//! parameters (`BlockLoad`, `BlockRadixSort`, `BlockStore`), and
//! `examples/bench/tile_sort_bench.rs` times the two.

use coop::block::{self, RadixSort};
use coop::prelude::*;
use coop::shared::Shared;

/// Sorts each tile of `THREADS × ITEMS` keys of `keys` into `out`; keys
/// past the end are `fill`, which sorts last.
macro_rules! tile_sort_keys {
    ($(#[$doc:meta])* $name:ident, $key:ty, $threads:literal, $items:literal, $fill:expr) => {
        $(#[$doc])*
        #[kernel]
        pub fn $name(
            block: ThreadBlock,
            keys: &[$key],
            out: Out<$key>,
            tile: Shared<[$key; $threads * $items]>,
        ) {
            let first = block.group_index().x as usize * ($threads * $items);
            let (items, tile) =
                block::load_transposed::<_, _, $items>(&block, keys, first, $fill, tile);
            let (sorted, tile) = RadixSort::ascending().keys(&block, items, tile);
            let _ = block::store_transposed(&block, sorted, &out, first, tile);
        }
    };
}

tile_sort_keys!(
    /// Tiles of 512 `u32` keys: 128 threads × 4.
    tile_sort_u32_128x4, u32, 128, 4, u32::MAX
);
tile_sort_keys!(
    /// Tiles of 2048 `u32` keys: 256 threads × 8.
    tile_sort_u32_256x8, u32, 256, 8, u32::MAX
);
tile_sort_keys!(
    /// Tiles of 512 `u64` keys: 128 threads × 4.
    tile_sort_u64_128x4, u64, 128, 4, u64::MAX
);

/// Sorts each tile of `THREADS × ITEMS` keys warp-striped: loads and
/// stores without an exchange, the sort without its first and last.
macro_rules! tile_sort_warp_striped {
    ($(#[$doc:meta])* $name:ident, $key:ty, $threads:literal, $items:literal, $fill:expr) => {
        $(#[$doc])*
        #[kernel]
        pub fn $name(
            block: ThreadBlock,
            keys: &[$key],
            out: Out<$key>,
            tile: Shared<[$key; $threads * $items]>,
        ) {
            let first = block.group_index().x as usize * ($threads * $items);
            let items: [$key; $items] = block::load_warp_striped(&block, keys, first, $fill);
            let (sorted, _) = RadixSort::ascending().warp_striped().keys(&block, items, tile);
            block::store_warp_striped(&block, sorted, &out, first);
        }
    };
}

tile_sort_warp_striped!(
    /// Tiles of 512 `u32` keys, 128 threads × 4, warp-striped.
    tile_sort_u32_128x4_ws, u32, 128, 4, u32::MAX
);
tile_sort_warp_striped!(
    /// Tiles of 2048 `u32` keys, 256 threads × 8, warp-striped.
    tile_sort_u32_256x8_ws, u32, 256, 8, u32::MAX
);

/// Sorts each tile of 512 `u32` keys (128 threads × 4) with the `u32`
/// values beside them.
#[kernel]
pub fn tile_sort_pairs_u32_128x4(
    block: ThreadBlock,
    keys: &[u32],
    values: &[u32],
    keys_out: Out<u32>,
    values_out: Out<u32>,
    key_tile: Shared<[u32; 512]>,
    value_tile: Shared<[u32; 512]>,
) {
    let first = block.group_index().x as usize * 512;
    let (k, key_tile) = block::load_transposed::<_, _, 4>(&block, keys, first, u32::MAX, key_tile);
    let (v, value_tile) = block::load_transposed::<_, _, 4>(&block, values, first, 0, value_tile);
    let (k, v, key_tile, value_tile) =
        RadixSort::ascending().pairs(&block, k, v, key_tile, value_tile);
    let _ = block::store_transposed(&block, k, &keys_out, first, key_tile);
    let _ = block::store_transposed(&block, v, &values_out, first, value_tile);
}

/// Each warp sorts its tile of 256 `u32` keys (32 lanes × 8, striped:
/// coalesced loads and stores straight from registers) with
/// `coop::warp::sort`; keys past the end take no part.
#[kernel]
pub fn warp_sort_u32_32x8(block: ThreadBlock, keys: &[u32], out: Out<u32>) {
    let w = block.tiled_partition::<32>();
    let tile = (block.group_index().x * w.meta_group_size() + w.meta_group_rank()) as usize;
    let first = tile * 256;
    let lane = w.thread_rank() as usize;
    let items: [u32; 8] =
        core::array::from_fn(|i| keys.get(first + i * 32 + lane).copied().unwrap_or(0));
    let valid = keys.len().saturating_sub(first);
    let sorted = coop::warp::sort(&w, items, valid, |a: u32, b: u32| a < b);
    for (i, key) in sorted.into_iter().enumerate() {
        if first + i * 32 + lane < keys.len() {
            out.write(first + i * 32 + lane, key);
        }
    }
}

/// Each block's histogram of its tile of 1024 bytes (128 threads × 8,
/// striped loads) by value, with `coop::block::histogram`: 256 counts a
/// block in `counts`, from `256 × block`.
#[kernel]
pub fn block_histogram_u8_128x8(
    block: ThreadBlock,
    samples: &[u8],
    counts: Out<u32>,
    bins: Shared<[u32; 256]>,
) {
    let first = block.group_index().x as usize * 1024;
    let t = block.thread_rank() as usize;
    let items: [u8; 8] = block::load_striped(&block, samples, first, 0);
    let valid = samples.len().saturating_sub(first);
    let bins_of: [u32; 8] = core::array::from_fn(|i| {
        if i * 128 + t < valid {
            u32::from(items[i])
        } else {
            256
        }
    });
    let bins = block::histogram(&block, bins_of, bins);
    let row = block.group_index().x as usize * 256;
    counts.write(row + t, bins.get(t));
    counts.write(row + t + 128, bins.get(t + 128));
}
