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
    let first = tile_start(&block, 288);
    let items: [u32; 3] = block::load_blocked(&block, keys, first, 0);
    let before = if first > 0 {
        Some(keys[first - 1])
    } else {
        None
    };
    let after = keys.get(first + 288).copied();
    let (h, t) = block::flag_heads_and_tails(&block, items, |a, b| a != b, before, after);
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
