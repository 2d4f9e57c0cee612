//! Block-level building blocks (`coop::block`) in kernels of the shapes
//! users write: tiles loaded, sorted, flagged, differenced and exchanged
//! by whole blocks. `reference/block_tiles.cu` has CUDA twins of the same
//! names and parameters written with CUB's `BlockLoad`, `BlockStore`,
//! `BlockRadixSort`, `BlockMergeSort`, `BlockDiscontinuity`,
//! `BlockAdjacentDifference` and `BlockExchange`.
//!
//! Every kernel takes tile `b` of its input for block `b`: `THREADS ×
//! ITEMS` consecutive elements, the last tile maybe partial.

use coop::block::{self, RadixSort};
use coop::prelude::*;
use coop::shared::Shared;
use coop::warp;

/// Threads and items a thread of [`block_sort_u32`].
pub const SORT_U32: (u32, usize) = (128, 4);
/// Threads and items a thread of [`block_sort_pairs_f32`].
pub const PAIRS_F32: (u32, usize) = (64, 8);
/// Threads and items a thread of [`block_sort_i64_bits`].
pub const BITS_I64: (u32, usize) = (64, 3);
/// Threads and items a thread of [`block_sort_u8`].
pub const SORT_U8: (u32, usize) = (32, 16);
/// Threads and items a thread of [`block_flags_u32`].
pub const FLAGS_U32: (u32, usize) = (96, 3);
/// Threads and items a thread of [`block_differences_i32`].
pub const DIFFERENCES_I32: (u32, usize) = (64, 5);
/// Threads and items a thread of [`block_scatter_u64`].
pub const SCATTER_U64: (u32, usize) = (32, 7);
/// Threads and items a thread of [`block_rank_u32`].
pub const RANK_U32: (u32, usize) = (256, 2);
/// Threads and items a thread of [`block_merge_sort_i32`].
pub const MERGE_I32: (u32, usize) = (128, 4);
/// Threads and items a thread of [`block_merge_sort_pairs_u64`].
pub const MERGE_PAIRS_U64: (u32, usize) = (64, 5);
/// Threads and items a thread of [`block_histogram_u8`].
pub const HISTOGRAM_U8: (u32, usize) = (128, 8);
/// Threads and items a thread of [`block_histogram_u16`], and the tiles
/// a block counts.
pub const HISTOGRAM_U16: (u32, usize, usize) = (64, 4, 4);
/// Bins of [`block_histogram_u16`].
pub const HISTOGRAM_U16_BINS: usize = 1000;
/// Threads and items a thread of [`block_flags_partial_u32`].
pub const FLAGS_PARTIAL_U32: (u32, usize) = (96, 3);
/// Threads and items a thread of [`block_differences_partial_i32`].
pub const DIFFERENCES_PARTIAL_I32: (u32, usize) = (64, 5);
/// Threads a block, tile size and items a member of [`warp_sort_u32`].
pub const WARP_SORT_U32: (u32, u32, usize) = (128, 32, 7);
/// Threads a block, tile size and items a member of
/// [`warp_sort_pairs_i64`].
pub const WARP_SORT_PAIRS_I64: (u32, u32, usize) = (64, 16, 4);

/// The first element of this block's tile of `tile` elements.
fn tile_start(block: &ThreadBlock, tile: usize) -> usize {
    block.group_index().x as usize * tile
}

/// Ascending sort of each tile of 512 `u32` keys: coalesced loads (keys
/// past the end are `u32::MAX`), the block's radix sort, coalesced stores.
#[kernel]
pub fn block_sort_u32(block: ThreadBlock, keys: &[u32], out: Out<u32>, tile: Shared<[u32; 512]>) {
    let first = tile_start(&block, 512);
    let (items, tile) = block::load_transposed::<_, _, 4>(&block, keys, first, u32::MAX, tile);
    let (sorted, tile) = RadixSort::ascending().keys(&block, items, tile);
    let _ = block::store_transposed(&block, sorted, &out, first, tile);
}

/// Descending sort of each tile of 512 `f32` keys with their indices in
/// the input as values. Keys past the end are the NaN of all bits set,
/// the last key of a descending order (below `-inf` and every other
/// NaN), with index `u32::MAX`.
#[kernel]
pub fn block_sort_pairs_f32(
    block: ThreadBlock,
    keys: &[f32],
    keys_out: Out<f32>,
    indices_out: Out<u32>,
    key_tile: Shared<[f32; 512]>,
    index_tile: Shared<[u32; 512]>,
) {
    let first = tile_start(&block, 512);
    let items: [f32; 8] = block::load_blocked(&block, keys, first, f32::from_bits(u32::MAX));
    let base = (first + 8 * block.thread_rank() as usize) as u32;
    let indices: [u32; 8] = core::array::from_fn(|i| {
        if (base as usize + i) < keys.len() {
            base + i as u32
        } else {
            u32::MAX
        }
    });
    let (items, indices, _, _) =
        RadixSort::descending().pairs(&block, items, indices, key_tile, index_tile);
    block::store_blocked(&block, items, &keys_out, first);
    block::store_blocked(&block, indices, &indices_out, first);
}

/// Ascending sort of each tile of 192 `i64` keys by bits
/// `begin_bit..end_bit` of their ordered bits (keys past the end are
/// `i64::MAX`), in dynamic shared memory.
#[kernel]
pub fn block_sort_i64_bits(
    block: ThreadBlock,
    keys: &[i64],
    out: Out<i64>,
    begin_bit: u32,
    end_bit: u32,
    tile: Shared<[i64]>,
) {
    let first = tile_start(&block, 192);
    let items: [i64; 3] = block::load_blocked(&block, keys, first, i64::MAX);
    let (sorted, _) = RadixSort::ascending()
        .bits(begin_bit, end_bit)
        .keys(&block, items, tile);
    block::store_blocked(&block, sorted, &out, first);
}

/// Ascending sort of each tile of 512 bytes, loaded striped and sorted
/// after an exchange to blocked.
#[kernel]
pub fn block_sort_u8(block: ThreadBlock, keys: &[u8], out: Out<u8>, tile: Shared<[u8; 512]>) {
    let first = tile_start(&block, 512);
    let striped: [u8; 16] = block::load_striped(&block, keys, first, u8::MAX);
    let (items, tile) = block::striped_to_blocked(&block, striped, tile);
    let (sorted, tile) = RadixSort::ascending().keys(&block, items, tile);
    let (striped, _) = block::blocked_to_striped(&block, sorted, tile);
    block::store_striped(&block, striped, &out, first);
}

/// Head and tail flags (1 or 0) of each tile of 288 `u32` keys, each tile
/// compared with the last key of the tile before and the first of the
/// tile after (none at the input's ends). The input is whole tiles.
#[kernel]
pub fn block_flags_u32(block: ThreadBlock, keys: &[u32], heads: Out<u32>, tails: Out<u32>) {
    let (first, items, before, after) = flags_tile(&block, keys);
    let (h, t) = block::flag_heads_and_tails(&block, items, |a, b| a != b, before, after);
    block::store_blocked(&block, h.map(u32::from), &heads, first);
    block::store_blocked(&block, t.map(u32::from), &tails, first);
}

/// The flags kernels' tile of 288 keys: where it starts, its items, and
/// the keys before and after it (none at the input's ends).
#[inline(always)]
fn flags_tile(block: &ThreadBlock, keys: &[u32]) -> (usize, [u32; 3], Option<u32>, Option<u32>) {
    let first = tile_start(block, 288);
    let items: [u32; 3] = block::load_blocked(block, keys, first, 0);
    let before = if first > 0 {
        Some(keys[first - 1])
    } else {
        None
    };
    (first, items, before, keys.get(first + 288).copied())
}

/// [`block_flags_u32`] with the heads and the tails flagged apart
/// (`flag_heads`, then `flag_tails`): the same flags.
#[kernel]
pub fn block_flags_apart_u32(block: ThreadBlock, keys: &[u32], heads: Out<u32>, tails: Out<u32>) {
    let (first, items, before, after) = flags_tile(&block, keys);
    let h = block::flag_heads(&block, items, |a, b| a != b, before);
    let t = block::flag_tails(&block, items, |a, b| a != b, after);
    block::store_blocked(&block, h.map(u32::from), &heads, first);
    block::store_blocked(&block, t.map(u32::from), &tails, first);
}

/// `left[i] = x[i] - x[i - 1]` and `right[i] = x[i] - x[i + 1]`
/// (wrapping) over each tile of 320 `i32`, the tiles' neighbours taken
/// from the tiles around (none at the input's ends: the item stays). The
/// input is whole tiles.
#[kernel]
pub fn block_differences_i32(block: ThreadBlock, values: &[i32], left: Out<i32>, right: Out<i32>) {
    let first = tile_start(&block, 320);
    let items: [i32; 5] = block::load_blocked(&block, values, first, 0);
    let before = if first > 0 {
        Some(values[first - 1])
    } else {
        None
    };
    let after = values.get(first + 320).copied();
    let l = block::subtract_left(&block, items, |x, p| x.wrapping_sub(p), before);
    let r = block::subtract_right(&block, items, |x, n| x.wrapping_sub(n), after);
    block::store_blocked(&block, l, &left, first);
    block::store_blocked(&block, r, &right, first);
}

/// Each tile of 224 `u64`, loaded blocked, scattered so that place `p`
/// goes to `(5p + 3) mod 224`, and stored striped. The input is whole
/// tiles.
#[kernel]
pub fn block_scatter_u64(
    block: ThreadBlock,
    values: &[u64],
    out: Out<u64>,
    tile: Shared<[u64; 224]>,
) {
    let first = tile_start(&block, 224);
    let items: [u64; 7] = block::load_blocked(&block, values, first, 0);
    let t = block.thread_rank();
    let ranks: [u32; 7] = core::array::from_fn(|i| (5 * (7 * t + i as u32) + 3) % 224);
    let (striped, _) = block::scatter_to_striped(&block, items, ranks, tile);
    block::store_striped(&block, striped, &out, first);
}

/// Each key's rank in its tile of 512 `u32` sorted by the digit of bits
/// `shift .. shift + width` (descending if `descending` is not 0).
#[kernel]
pub fn block_rank_u32(
    block: ThreadBlock,
    keys: &[u32],
    ranks: Out<u32>,
    shift: u32,
    width: u32,
    descending: u32,
) {
    let first = tile_start(&block, 512);
    let items: [u32; 2] = block::load_blocked(&block, keys, first, u32::MAX);
    let r = block::radix_rank(&block, items, shift, width, descending != 0);
    block::store_blocked(&block, r, &ranks, first);
}

/// [`block_sort_u32`] with the tile warp-striped throughout: loads and
/// stores without an exchange, `RadixSort::warp_striped`.
#[kernel]
pub fn block_sort_warp_striped_u32(
    block: ThreadBlock,
    keys: &[u32],
    out: Out<u32>,
    tile: Shared<[u32; 512]>,
) {
    let first = tile_start(&block, 512);
    let items: [u32; 4] = block::load_warp_striped(&block, keys, first, u32::MAX);
    let (sorted, _) = RadixSort::ascending()
        .warp_striped()
        .keys(&block, items, tile);
    block::store_warp_striped(&block, sorted, &out, first);
}

/// Descending merge sort of each tile of 512 `i32` keys, its valid part
/// only (a partial last tile sorts its keys alone; the places past them
/// are not stored).
#[kernel]
pub fn block_merge_sort_i32(
    block: ThreadBlock,
    keys: &[i32],
    out: Out<i32>,
    tile: Shared<[i32; 512]>,
) {
    let first = tile_start(&block, 512);
    let valid = keys.len().saturating_sub(first).min(512);
    let items: [i32; 4] = block::load_blocked(&block, keys, first, 0);
    let (sorted, _) = block::merge_sort(&block, items, valid, |a: i32, b: i32| a > b, tile);
    block::store_blocked(&block, sorted, &out, first);
}

/// Merge sort of each tile of 320 `u64` keys by their low 16 bits alone
/// (keys equal there keep their order), with their indices in the input
/// as values.
#[kernel]
pub fn block_merge_sort_pairs_u64(
    block: ThreadBlock,
    keys: &[u64],
    keys_out: Out<u64>,
    indices_out: Out<u32>,
    key_tile: Shared<[u64; 320]>,
    index_tile: Shared<[u32; 320]>,
) {
    let first = tile_start(&block, 320);
    let valid = keys.len().saturating_sub(first).min(320);
    let items: [u64; 5] = block::load_blocked(&block, keys, first, 0);
    let base = (first + block.thread_rank() as usize * 5) as u32;
    let indices = core::array::from_fn(|i| base + i as u32);
    let low = |a: u64, b: u64| (a & 0xffff) < (b & 0xffff);
    let (items, indices, _, _) =
        block::merge_sort_pairs(&block, items, indices, valid, low, key_tile, index_tile);
    block::store_blocked(&block, items, &keys_out, first);
    block::store_blocked(&block, indices, &indices_out, first);
}

/// Each block's histogram of its tile of 1024 bytes (a partial last tile
/// too), by value: 256 counts a block, in `counts` from `256 × block`.
#[kernel]
pub fn block_histogram_u8(
    block: ThreadBlock,
    samples: &[u8],
    counts: Out<u32>,
    bins: Shared<[u32; 256]>,
) {
    let first = tile_start(&block, 1024);
    let t = block.thread_rank() as usize;
    let items: [u8; 8] = block::load_striped(&block, samples, first, 0);
    // Places past the input take bin 256, which counts nowhere.
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

/// Each block's histogram of 4 consecutive tiles of 256 `u16` samples by
/// `sample mod 1000`: the first tile by `histogram`, the others added by
/// `histogram_add`; 1000 counts a block, in `counts` from `1000 × block`.
#[kernel]
pub fn block_histogram_u16(
    block: ThreadBlock,
    samples: &[u16],
    counts: Out<u32>,
    bins: Shared<[u32; 1000]>,
) {
    let first = tile_start(&block, 1024);
    let bins_at = |tile: usize| -> [u32; 4] {
        let items: [u16; 4] = block::load_blocked(&block, samples, first + 256 * tile, 0);
        let place = first + 256 * tile + block.thread_rank() as usize * 4;
        core::array::from_fn(|i| {
            if place + i < samples.len() {
                u32::from(items[i]) % 1000
            } else {
                1000
            }
        })
    };
    let mut bins = block::histogram(&block, bins_at(0), bins);
    for tile in 1..4 {
        bins = block::histogram_add(&block, bins_at(tile), bins);
    }
    let row = block.group_index().x as usize * 1000;
    let mut bin = block.thread_rank() as usize;
    while bin < 1000 {
        counts.write(row + bin, bins.get(bin));
        bin += 64;
    }
}

/// Head and tail flags (1 or 0) of each tile of 288 `u32` keys, the last
/// tile maybe partial: heads compared with the last key of the tile
/// before, tails of the tile's valid keys (`flag_tails_partial`'s rule,
/// every tile's last valid key a tail).
#[kernel]
pub fn block_flags_partial_u32(block: ThreadBlock, keys: &[u32], heads: Out<u32>, tails: Out<u32>) {
    let first = tile_start(&block, 288);
    let items: [u32; 3] = block::load_blocked(&block, keys, first, 7);
    let before = if first > 0 {
        Some(keys[first - 1])
    } else {
        None
    };
    let valid = keys.len() - first;
    let (h, t) = block::flag_heads_and_tails_partial(&block, items, |a, b| a != b, before, valid);
    let t2 = block::flag_tails_partial(&block, items, |a, b| a != b, valid);
    let same = (0..3).all(|i| t[i] == t2[i]);
    block::store_blocked(&block, h.map(u32::from), &heads, first);
    block::store_blocked(
        &block,
        t.map(|x| u32::from(x) + 2 * u32::from(!same)),
        &tails,
        first,
    );
}

/// `left[i] = x[i] - x[i - 1]` and `right[i] = x[i] - x[i + 1]`
/// (wrapping) over each tile of 320 `i32`, the last maybe partial: the
/// partial-tile forms, the tile before's last value as the first's left
/// neighbour, padding (fill 5) kept as it is.
#[kernel]
pub fn block_differences_partial_i32(
    block: ThreadBlock,
    values: &[i32],
    left: Out<i32>,
    right: Out<i32>,
) {
    let first = tile_start(&block, 320);
    let items: [i32; 5] = block::load_blocked(&block, values, first, 5);
    let before = if first > 0 {
        Some(values[first - 1])
    } else {
        None
    };
    let valid = values.len() - first;
    let l = block::subtract_left_partial(&block, items, |x, p| x.wrapping_sub(p), before, valid);
    let r = block::subtract_right_partial(&block, items, |x, n| x.wrapping_sub(n), valid);
    block::store_blocked(&block, l, &left, first);
    block::store_blocked(&block, r, &right, first);
}

/// Each warp sorts its tile of 224 `u32` keys descending (a partial last
/// tile by its valid keys; places past them are not stored): striped
/// loads and stores, `warp::sort`.
#[kernel]
pub fn warp_sort_u32(block: ThreadBlock, keys: &[u32], out: Out<u32>) {
    let w = block.tiled_partition::<32>();
    let tile = (block.group_index().x * w.meta_group_size() + w.meta_group_rank()) as usize;
    let first = tile * 224;
    let lane = w.thread_rank() as usize;
    let items: [u32; 7] =
        core::array::from_fn(|i| keys.get(first + i * 32 + lane).copied().unwrap_or(0));
    let valid = keys.len().saturating_sub(first);
    let sorted = warp::sort(&w, items, valid, |a: u32, b: u32| a > b);
    for (i, key) in sorted.into_iter().enumerate() {
        if first + i * 32 + lane < keys.len() {
            out.write(first + i * 32 + lane, key);
        }
    }
}

/// Tiles of 16 lanes × 4 sort their 64 `i64` keys by the low 8 bits alone
/// (ties keep their order), with their indices as values: `warp::sort_pairs`.
#[kernel]
pub fn warp_sort_pairs_i64(
    block: ThreadBlock,
    keys: &[i64],
    keys_out: Out<i64>,
    indices_out: Out<u32>,
) {
    let q = block.tiled_partition::<16>();
    let tile = (block.group_index().x * q.meta_group_size() + q.meta_group_rank()) as usize;
    let first = tile * 64;
    let r = q.thread_rank() as usize;
    let items: [i64; 4] =
        core::array::from_fn(|i| keys.get(first + i * 16 + r).copied().unwrap_or(-1));
    let indices: [u32; 4] = core::array::from_fn(|i| (first + i * 16 + r) as u32);
    let valid = keys.len().saturating_sub(first);
    let low = |a: i64, b: i64| (a & 0xff) < (b & 0xff);
    let (items, indices) = warp::sort_pairs(&q, items, indices, valid, low);
    for i in 0..4 {
        let at = first + i * 16 + r;
        if at < keys.len() {
            keys_out.write(at, items[i]);
            indices_out.write(at, indices[i]);
        }
    }
}

/// Kernels that copy block `b`'s tile of `input[offset..]` (`$items` a
/// thread) to `out[shift..]` by `load_vectorized` and `store_vectorized`:
/// their runs go by 16-byte accesses where they are whole and aligned,
/// element by element elsewhere.
macro_rules! vectorized_copies {
    ($($(#[$doc:meta])* $name:ident: $t:ty, $items:literal, $fill:expr;)*) => {$(
        $(#[$doc])*
        #[kernel]
        pub fn $name(block: ThreadBlock, input: &[$t], offset: u32, shift: u32, out: Out<$t>) {
            let items = &input[offset as usize..];
            let first = block.group_index().x as usize * block.num_threads() as usize * $items;
            let run: [$t; $items] = block::load_vectorized(&block, items, first, $fill);
            block::store_vectorized(&block, run, &out, shift as usize + first);
        }
    )*};
}

vectorized_copies! {
    /// 8 `u32`s a thread: two chunks where offsets are multiples of 4.
    block_copy_vectorized_u32: u32, 8, u32::MAX;
    /// 6 `i64`s a thread: three chunks.
    block_copy_vectorized_i64: i64, 6, -1;
    /// 3 `f32`s a thread: not whole chunks, so always element by element.
    block_copy_vectorized_f32x3: f32, 3, f32::NAN;
}
