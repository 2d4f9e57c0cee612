//! Asynchronous copies into shared memory, in the shapes users write them:
//! tiles of a buffer (the last partial) staged through a shared array by
//! `copy_async`/`copy_async_filled` and waited for, two tiles in flight at
//! once (`wait_prior`), and multi-stage pipelines over sources whose
//! alignment picks each copy path (bulk copies, 16/8/4-byte `cp.async`
//! chunks, plain stores). `coop_tests::async_cases` has the host
//! references.

use coop::memory::pipeline::{CopyEngine, Pipeline, Role};
use coop::prelude::*;
use coop::shared::{ByRank, Shared, TileLeaders};

/// Block `b` stages `input[offset + 256 b ..]` (at most 256 elements;
/// zeros past the end) and writes `2 x + t` of element `t` to `out[256 b +
/// t]`.
#[kernel]
pub fn copy_tiles_u32(
    block: ThreadBlock,
    input: &[u32],
    offset: u32,
    out: Out<u32>,
    tile: Shared<[u32; 256]>,
) {
    let b = block.group_index().x as usize;
    let start = (offset as usize + b * 256).min(input.len());
    let end = (start + 256).min(input.len());
    let tile = tile
        .copy_async_filled(&block, &input[start..end])
        .wait(&block);
    let t = block.thread_rank() as usize;
    let mut k = t;
    while k < 256 {
        out.write(
            b * 256 + k,
            tile.get(k).wrapping_mul(2).wrapping_add(k as u32),
        );
        k += block.num_threads() as usize;
    }
}

/// As [`copy_tiles_u32`] for bytes (chunks of 4, 8 or 16 bytes, or plain
/// stores for an odd offset), tiles of 1000 bytes: `x ^ 0x5a`.
#[kernel]
pub fn copy_tiles_u8(
    block: ThreadBlock,
    input: &[u8],
    offset: u32,
    out: Out<u8>,
    tile: Shared<[u8; 1000]>,
) {
    let b = block.group_index().x as usize;
    let start = (offset as usize + b * 1000).min(input.len());
    let end = (start + 1000).min(input.len());
    let tile = tile
        .copy_async_filled(&block, &input[start..end])
        .wait(&block);
    let mut k = block.thread_rank() as usize;
    while k < 1000 {
        out.write(b * 1000 + k, tile.get(k) ^ 0x5a);
        k += block.num_threads() as usize;
    }
}

/// Two tiles in flight: the second loads while the first is read
/// (`wait_prior::<1>`), then a third into the first array after it.
#[kernel]
pub fn copy_three_tiles(
    block: ThreadBlock,
    input: &[f64],
    out: Out<f64>,
    a: Shared<[f64; 128]>,
    b: Shared<[f64; 128]>,
) {
    let t = block.thread_rank() as usize;
    let part = |k: usize| {
        let s = (k * 128).min(input.len());
        &input[s..(s + 128).min(input.len())]
    };
    let first = a.copy_async_filled(&block, part(0));
    let second = b.copy_async_filled(&block, part(1));
    let a = first.wait_prior::<1>(&block);
    let x = a.get(t);
    let third = a.copy_async_filled(&block, part(2));
    let b = second.wait_prior::<1>(&block);
    let y = b.get(t);
    let a = third.wait(&block);
    out.write(t, x + 2.0 * y + 3.0 * a.get(t));
}

macro_rules! pipeline_sum {
    ($($name:ident: $t:ty, $tile:literal, $stages:literal, $engine:ident;)*) => {$(
        /// Block `b` streams tiles `b, b + blocks, ...` of `input[offset..]`
        /// through the ring (partial last tile zero-filled) and stores the
        /// tiles' element-wise wrapping sum: `out[blocks_size * b + t]`
        /// = the sum over its tiles of element `t`. Tiles move by
        /// `CopyEngine::` as the kernel's line in `pipeline_sum!` says.
        #[kernel]
        pub fn $name(
            block: ThreadBlock,
            input: &[$t],
            offset: u32,
            out: Out<$t>,
            ring: Pipeline<[[$t; $tile]; $stages]>,
        ) {
            let mut stages = ring.start_with(&block, CopyEngine::$engine);
            let data = &input[(offset as usize).min(input.len())..];
            let tiles = data.len().div_ceil($tile);
            let b = block.group_index().x as usize;
            let blocks = this_grid().num_blocks();
            let tile = |k: usize| &data[k * $tile..((k + 1) * $tile).min(data.len())];
            let mut next_load = b;
            while next_load < tiles && !stages.is_full() {
                stages.load_filled(&block, tile(next_load));
                next_load += blocks;
            }
            let threads = block.num_threads() as usize;
            let t = block.thread_rank() as usize;
            let mut acc = [0 as $t; 8]; // tiles of up to 1024, blocks of 128 threads or more
            while stages.loaded() > 0 {
                let stage = stages.next(&block);
                let mut k = t;
                let mut j = 0;
                while k < $tile {
                    acc[j] = acc[j].wrapping_add(stage.get(k));
                    k += threads;
                    j += 1;
                }
                stage.release();
                if next_load < tiles {
                    stages.load_filled(&block, tile(next_load));
                    next_load += blocks;
                }
            }
            let mut k = t;
            let mut j = 0;
            while k < $tile {
                out.write(b * $tile + k, acc[j]);
                k += threads;
                j += 1;
            }
        }
    )*};
}

pipeline_sum! {
    pipeline_sum_u32_1024x4: u32, 1024, 4, Threads;
    pipeline_sum_u32_1024x4_bulk: u32, 1024, 4, Bulk;
    pipeline_sum_u32_256x2: u32, 256, 2, Bulk;
    pipeline_sum_u8_512x3: u8, 512, 3, Threads;
    pipeline_sum_u8_512x3_bulk: u8, 512, 3, Bulk;
    pipeline_sum_u64_256x1: u64, 256, 1, Threads;
}

macro_rules! specialized_sum {
    ($($name:ident: $t:ty, $tile:literal, $stages:literal, $engine:ident, $producers:literal;)*) => {$(
        /// `pipeline_sum_*`'s sums through a warp-specialized pipeline: the
        /// block's first tile of threads (its size in `specialized_sum!`)
        /// loads the block's tiles, the other threads add them up, each
        /// its share of the tile's elements.
        #[kernel]
        pub fn $name(
            block: ThreadBlock,
            input: &[$t],
            offset: u32,
            out: Out<$t>,
            ring: Pipeline<[[$t; $tile]; $stages]>,
        ) {
            let producers = block.tiled_partition::<$producers>();
            let data = &input[(offset as usize).min(input.len())..];
            let tiles = data.len().div_ceil($tile);
            let b = block.group_index().x as usize;
            let blocks = this_grid().num_blocks();
            match ring.start_specialized_with(&block, &producers, CopyEngine::$engine) {
                Role::Producer(mut producer) => {
                    let mut k = b;
                    while k < tiles {
                        producer.load_filled(
                            &producers,
                            &data[k * $tile..((k + 1) * $tile).min(data.len())],
                        );
                        k += blocks;
                    }
                }
                Role::Consumer(mut consumer) => {
                    let (first, step) = (consumer.rank() as usize, consumer.num_threads() as usize);
                    let mut acc = [0 as $t; 16]; // tiles of up to 1024, 64 consumers or more
                    let mut k = b;
                    while k < tiles {
                        let stage = consumer.next(&producers);
                        let (mut i, mut j) = (first, 0);
                        while i < $tile {
                            acc[j] = acc[j].wrapping_add(stage.get(i));
                            i += step;
                            j += 1;
                        }
                        k += blocks;
                    }
                    let (mut i, mut j) = (first, 0);
                    while i < $tile {
                        out.write(b * $tile + i, acc[j]);
                        i += step;
                        j += 1;
                    }
                }
            }
        }
    )*};
}

specialized_sum! {
    specialized_sum_u32_1024x4_w32: u32, 1024, 4, Threads, 32;
    specialized_sum_u32_1024x4_w32_bulk: u32, 1024, 4, Bulk, 32;
    specialized_sum_u32_256x2_w64_bulk: u32, 256, 2, Bulk, 64;
    specialized_sum_u8_512x3_w32: u8, 512, 3, Threads, 32;
    specialized_sum_u8_512x3_w64_bulk: u8, 512, 3, Bulk, 64;
    specialized_sum_u64_256x1_w32: u64, 256, 1, Threads, 32;
}

/// Consumer groups taking tiles in turn: warp 0 loads block `b`'s tiles
/// (`b`, `b + blocks`, …, the last partial one filled with zeros) into a
/// ring of 6; the consumers form `groups` groups, and the group that takes
/// a tile writes `2 x + group` for each of its elements `x` to the tile's
/// place in `out`, so that the output shows which group took each tile.
#[kernel]
pub fn specialized_turns_u32(
    block: ThreadBlock,
    input: &[u32],
    groups: u32,
    out: Out<u32>,
    ring: Pipeline<[[u32; 256]; 6]>,
) {
    let warp = block.tiled_partition::<32>();
    let tiles = input.len().div_ceil(256);
    let b = block.group_index().x as usize;
    let blocks = this_grid().num_blocks();
    match ring.start_specialized_in_turns(&block, &warp, groups) {
        Role::Producer(mut producer) => {
            let mut k = b;
            while k < tiles {
                producer.load_filled(&warp, &input[k * 256..((k + 1) * 256).min(input.len())]);
                k += blocks;
            }
        }
        Role::Consumer(mut consumer) => {
            let g = consumer.group();
            let (first, step) = (consumer.rank() as usize, consumer.num_threads() as usize);
            let mut k = b + g as usize * blocks;
            while k < tiles {
                let stage = consumer.next(&warp);
                let mut i = first;
                while i < 256 {
                    out.write(k * 256 + i, stage.get(i).wrapping_mul(2).wrapping_add(g));
                    i += step;
                }
                drop(stage);
                k += consumer.groups() as usize * blocks;
            }
        }
    }
}

/// A consumer that takes one tile more than the producers load: the CPU
/// backend reports the wait that nothing ends (a GPU would hang).
#[kernel]
pub fn specialized_takes_too_many(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    ring: Pipeline<[[u32; 64]; 2]>,
) {
    let warp = block.tiled_partition::<32>();
    match ring.start_specialized(&block, &warp) {
        Role::Producer(mut producer) => {
            producer.load(&warp, &input[..64]);
        }
        Role::Consumer(mut consumer) => {
            let t = consumer.rank() as usize;
            let first = consumer.next(&warp).get(t);
            let second = consumer.next(&warp).get(t);
            out.write(t, first + second);
        }
    }
}

/// A streaming copy through a pipeline: block `b` copies tiles `b, b +
/// blocks, ...` of 2048 floats from `input` to `output`, four stages in
/// flight, moved by the bulk-copy engine on sm_90 (the streaming
/// benchmark's `stream_bulk`).
#[kernel]
pub fn pipeline_copy(
    block: ThreadBlock,
    input: &[f32],
    output: Out<f32>,
    ring: Pipeline<[[f32; 2048]; 4]>,
) {
    let mut stages = ring.start_with(&block, CopyEngine::Bulk);
    let tiles = input.len().div_ceil(2048);
    let b = block.group_index().x as usize;
    let blocks = this_grid().num_blocks();
    let tile = |k: usize| &input[k * 2048..((k + 1) * 2048).min(input.len())];
    let mut next_load = b;
    while next_load < tiles && !stages.is_full() {
        stages.load(&block, tile(next_load));
        next_load += blocks;
    }
    let threads = block.num_threads() as usize;
    let t = block.thread_rank() as usize;
    let mut current = b;
    while stages.loaded() > 0 {
        let stage = stages.next(&block);
        let base = current * 2048;
        let mut k = t;
        while k < 2048 && base + k < input.len() {
            output.write(base + k, stage.get(k));
            k += threads;
        }
        stage.release();
        current += blocks;
        if next_load < tiles {
            stages.load(&block, tile(next_load));
            next_load += blocks;
        }
    }
}

/// `Stage::store`: block `b` copies tiles `b, b + blocks, ...` of 1000
/// elements of `input[offset..]` to `out[shift..]` through three stages,
/// loaded by the bulk-copy engine where it can (`engine` 1) or by the
/// threads (`engine` 0), each stored from its stage. The loads of an odd
/// `offset` go by the threads; the stores to an odd `shift` too; a
/// partial last tile's length not a multiple of 4 leaves a few elements
/// after the engine's chunks to the threads.
#[kernel]
pub fn pipeline_store(
    block: ThreadBlock,
    input: &[u32],
    offset: u32,
    shift: u32,
    engine: u32,
    out: Out<u32>,
    ring: Pipeline<[[u32; 1000]; 3]>,
) {
    let engine = if engine == 1 {
        CopyEngine::Bulk
    } else {
        CopyEngine::Threads
    };
    let mut stages = ring.start_with(&block, engine);
    let body = &input[(offset as usize).min(input.len())..];
    let tiles = body.len().div_ceil(1000);
    let blocks = this_grid().num_blocks();
    let tile = |k: usize| &body[k * 1000..((k + 1) * 1000).min(body.len())];
    let mut next_load = block.group_index().x as usize;
    while next_load < tiles && !stages.is_full() {
        stages.load(&block, tile(next_load));
        next_load += blocks;
    }
    let mut current = block.group_index().x as usize;
    while stages.loaded() > 0 {
        let at = shift as usize + current * 1000;
        let len = tile(current).len();
        stages.next(&block).store(&block, &out, at, len);
        current += blocks;
        if next_load < tiles {
            stages.load(&block, tile(next_load));
            next_load += blocks;
        }
    }
}

/// A `Stage::store` of more elements than a stage holds (refused, naming
/// the call and the rule).
#[kernel]
pub fn stage_store_too_long(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    ring: Pipeline<[[u32; 64]; 1]>,
) {
    let mut stages = ring.start(&block);
    stages.load(&block, &input[..64]);
    stages.next(&block).store(&block, &out, 0, 65);
}

/// The asynchronous reductions: every warp adds its sum to `sums[0]`,
/// every block combines its maximum into `maxima[0]` and every 128-thread
/// tile its bits (`1 << (x % 32)`) into `bits[0]`, with
/// `reduce_update_async`; every 128-thread tile stores its sum (wrapping)
/// in `tile_sums[tile]` with `reduce_store_async`. Threads past the input
/// contribute the identity.
#[kernel]
pub fn async_reductions(
    grid: Grid,
    block: ThreadBlock,
    input: &[u32],
    sums: Out<u64>,
    maxima: Out<u32>,
    bits: Out<u32>,
    tile_sums: Out<u32>,
) {
    let i = grid.thread_rank();
    let real = i < input.len();
    let x = if real { input[i] } else { 0 };
    let warp = block.tiled_partition::<32>();
    reduce_update_async(&warp, &sums.atomic(), 0, x as u64, op::Sum);
    reduce_update_async(&block, &maxima.atomic(), 0, x, op::Max);
    let tile = block.tiled_partition::<128>();
    let bit = if real { 1u32 << (x % 32) } else { 0 };
    reduce_update_async(&tile, &bits.atomic(), 0, bit, op::BitOr);
    let t = this_grid().block_rank() * (block.num_threads() as usize / 128)
        + tile.meta_group_rank() as usize;
    reduce_store_async(&tile, &tile_sums, t, x, op::Sum);
}

/// The asynchronous reductions into shared memory, a block at a time:
/// every warp adds its sum to bin `warp % 4` of a shared array in its
/// atomic phase and the block combines its maximum into a shared counter
/// (`reduce_update_async`); every warp appends its multiples of 3 to the
/// block's list through another shared counter (`exclusive_scan_update`);
/// every 64-thread tile stores its sum in its slot of a shared array under
/// `TileLeaders<64>` (`reduce_store_async`). Block `b` writes its bins to
/// `bins[4 b..]`, its maximum to `maxima[b]`, its list's length to
/// `counts[b]`, the list to `lists[b * threads..]` and its tiles' sums to
/// `tile_sums[b * tiles..]`. Threads past the input contribute the
/// identity and keep nothing.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn shared_async_reductions(
    grid: Grid,
    block: ThreadBlock,
    input: &[u32],
    bins: Out<u64>,
    maxima: Out<u32>,
    counts: Out<u32>,
    lists: Out<u32>,
    tile_sums: Out<u32>,
    shared_bins: Shared<[u64; 4]>,
    counters: Shared<[u32; 2]>,
    slots: Shared<[u32; 16]>,
) {
    let i = grid.thread_rank();
    let real = i < input.len();
    let x = if real { input[i] } else { 0 };
    let t = block.thread_rank() as usize;
    let threads = block.num_threads() as usize;
    let b = this_grid().block_rank();
    let zero_bins = shared_bins.own(ByRank::new());
    let zero_counters = counters.own(ByRank::new());
    if t < 4 {
        zero_bins.write(t, 0);
    }
    if t < 2 {
        zero_counters.write(t, 0);
    }
    let shared_bins = zero_bins.atomics(&block);
    let counters = zero_counters.atomics(&block);
    let warp = block.tiled_partition::<32>();
    let bin = warp.meta_group_rank() as usize % 4;
    reduce_update_async(&warp, &shared_bins, bin, x as u64, op::Sum);
    reduce_update_async(&block, &counters, 0, x, op::Max);
    let keep = real && x % 3 == 0;
    let at = exclusive_scan_update(&warp, &counters, 1, keep as u32, op::Sum);
    if keep {
        lists.write(b * threads + at as usize, x);
    }
    let tile = block.tiled_partition::<64>();
    let owned = slots.own(TileLeaders::<64>);
    reduce_store_async(&tile, &owned, tile.meta_group_rank() as usize, x, op::Sum);
    let shared_bins = shared_bins.publish(&block);
    let counters = counters.publish(&block);
    let owned = owned.publish(&block);
    if t < 4 {
        bins.write(b * 4 + t, shared_bins.get(t));
    }
    if t == 0 {
        maxima.write(b, counters.get(0));
        counts.write(b, counters.get(1));
    }
    let tiles = threads / 64;
    if t < tiles {
        tile_sums.write(b * tiles + t, owned.get(t));
    }
}

/// Scans with an update: each thread keeps its input when it is a multiple
/// of 3 and appends it to a list with `exclusive_scan_update` over its
/// block (`block_out`, counter `used[0]`), its warp (`warp_out`, `used[1]`)
/// and its 64-thread tile (`tile_out`, `used[2]`); threads with an odd
/// input append it over the threads that reach the branch together
/// (`coalesced_threads`, `odd_out`, `used[3]`). Every warp also takes the
/// running maximum with `inclusive_scan_update` into `used[4]`, each
/// thread's result in `maxima[g]`. Threads past the input keep nothing.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn scan_updates(
    grid: Grid,
    block: ThreadBlock,
    input: &[u32],
    used: Out<u32>,
    block_out: Out<u32>,
    warp_out: Out<u32>,
    tile_out: Out<u32>,
    odd_out: Out<u32>,
    maxima: Out<u32>,
) {
    let g = grid.thread_rank();
    let real = g < input.len();
    let x = if real { input[g] } else { 0 };
    let keep = real && x % 3 == 0;
    let counters = used.atomic();
    let at = exclusive_scan_update(&block, &counters, 0, keep as u32, op::Sum);
    if keep {
        block_out.write(at as usize, x);
    }
    let warp = block.tiled_partition::<32>();
    let at = exclusive_scan_update(&warp, &counters, 1, keep as u32, op::Sum);
    if keep {
        warp_out.write(at as usize, x);
    }
    let tile = block.tiled_partition::<64>();
    let at = exclusive_scan_update(&tile, &counters, 2, keep as u32, op::Sum);
    if keep {
        tile_out.write(at as usize, x);
    }
    if real && x % 2 == 1 {
        let odd = coalesced_threads();
        let at = exclusive_scan_update(&odd, &counters, 3, 1u32, op::Sum);
        odd_out.write(at as usize, x);
    }
    let m = inclusive_scan_update(&warp, &counters, 4, x, op::Max);
    if real {
        maxima.write(g, m);
    }
}

macro_rules! tile_rows {
    ($($name:ident: tile $n:literal, row $c:literal, rows $r:literal;)*) => {$(
        /// Each tile of
        #[doc = stringify!($n)]
        /// threads walks the runs of
        #[doc = stringify!($c)]
        /// values of `input[offset..]` (the last partial, zero-filled) in a
        /// grid-stride loop, two rows taking turns (`wait_prior::<1>`: the
        /// next run lands while this one is read), and writes `3 x + j` of
        /// the run read backwards: `out[run C + j] = 3 row[C - 1 - j] + j`.
        /// `coop_tests::async_cases` has the host reference;
        /// `tests/reference/tile_copies.cu` the CUDA twin.
        #[kernel]
        pub fn $name(
            block: ThreadBlock,
            input: &[u32],
            offset: u32,
            out: Out<u32>,
            a: Shared<[[u32; $c]; $r]>,
            b: Shared<[[u32; $c]; $r]>,
        ) {
            let tile = block.tiled_partition::<$n>();
            let data = &input[(offset as usize).min(input.len())..];
            let runs = data.len().div_ceil($c);
            let run = |k: usize| {
                let s = (k * $c).min(data.len());
                &data[s..(s + $c).min(data.len())]
            };
            let per_block = (block.num_threads() / $n) as usize;
            let stride = this_grid().num_blocks() * per_block;
            let mut k = this_grid().block_rank() * per_block
                + (block.thread_rank() / $n) as usize;
            let mut now = a.tile_row(&block, &tile).copy_async_filled(&tile, run(k));
            let mut next = b
                .tile_row(&block, &tile)
                .copy_async_filled(&tile, run(k + stride));
            let lane = tile.thread_rank() as usize;
            while k < runs {
                let row = now.wait_prior::<1>(&tile);
                let mut j = lane;
                while j < $c {
                    out.write(k * $c + j, row.get($c - 1 - j).wrapping_mul(3).wrapping_add(j as u32));
                    j += $n;
                }
                now = next;
                next = row.copy_async_filled(&tile, run(k + 2 * stride));
                k += stride;
            }
            let _ = now.wait_prior::<1>(&tile);
            let _ = next.wait(&tile);
        }
    )*};
}

tile_rows! {
    tile_rows_t8: tile 8, row 33, rows 32;
    tile_rows_t32: tile 32, row 96, rows 8;
    tile_rows_t64: tile 64, row 50, rows 4;
    tile_rows_t128: tile 128, row 256, rows 2;
}

/// As the `tile_rows_*` kernels with one part of `len` values a warp of a
/// dynamic shared array (`tile_slice`), one run at a time: `out[run len +
/// j] = 3 part[len - 1 - j] + j`, zeros past the input.
#[kernel]
pub fn tile_slices_dynamic(
    block: ThreadBlock,
    input: &[u32],
    offset: u32,
    len: u32,
    out: Out<u32>,
    buf: Shared<[u32]>,
) {
    let warp = block.tiled_partition::<32>();
    let len = len as usize;
    let data = &input[(offset as usize).min(input.len())..];
    let runs = data.len().div_ceil(len);
    let run = |k: usize| {
        let s = (k * len).min(data.len());
        &data[s..(s + len).min(data.len())]
    };
    let per_block = (block.num_threads() / 32) as usize;
    let stride = this_grid().num_blocks() * per_block;
    let mut k = this_grid().block_rank() * per_block + (block.thread_rank() / 32) as usize;
    let mut part = buf
        .tile_slice(&block, &warp, len)
        .copy_async_filled(&warp, run(k))
        .wait(&warp);
    while k < runs {
        let mut j = warp.thread_rank() as usize;
        while j < len {
            out.write(
                k * len + j,
                part.get(len - 1 - j).wrapping_mul(3).wrapping_add(j as u32),
            );
            j += 32;
        }
        k += stride;
        part = part.copy_async_filled(&warp, run(k)).wait(&warp);
    }
}

/// The clusters walk windows of `blocks x 128` values of `input[offset..]`
/// (`blocks` the cluster's) in a grid-stride loop: block `r` of the cluster
/// copies part `r` of the window (128 values, zero-filled past the input)
/// into one of two arrays that take turns (`wait_prior_shared::<1>`: the
/// next window lands while this one is read), and each thread reads its
/// element and the one at the mirror position of the window, which another
/// block copied: `out[w W + j] = 3 x[w W + j] + x[w W + W - 1 - j]`, `W`
/// the window's width. `coop_tests::async_cases` has the host reference;
/// `tests/reference/cluster_copies.cu` the CUDA twin.
#[kernel]
pub fn cluster_windows(
    cluster: Cluster,
    block: ThreadBlock,
    input: &[u32],
    offset: u32,
    out: Out<u32>,
    a: Shared<[u32; 128]>,
    b: Shared<[u32; 128]>,
) {
    let blocks = cluster.num_blocks() as usize;
    let width = blocks * 128;
    let data = &input[(offset as usize).min(input.len())..];
    let windows = data.len().div_ceil(width);
    let r = cluster.block_rank() as usize;
    let part = |w: usize| {
        let s = (w * width + r * 128).min(data.len());
        &data[s..(s + 128).min(data.len())]
    };
    let clusters = this_grid().num_blocks() / blocks;
    let mut w = block.group_index().x as usize / blocks;
    let mut now = a.copy_async_filled(&block, part(w));
    let mut next = b.copy_async_filled(&block, part(w + clusters));
    let threads = block.num_threads() as usize;
    while w < windows {
        let window = now.wait_prior_shared::<1>(&cluster);
        let mut j = block.thread_rank() as usize;
        while j < 128 {
            let mirror = width - 1 - (r * 128 + j);
            let x = window.get(j).wrapping_mul(3);
            let y = window.get_from((mirror / 128) as u32, mirror % 128);
            out.write(w * width + r * 128 + j, x.wrapping_add(y));
            j += threads;
        }
        now = next;
        next = window.copy_async_filled(&cluster, &block, part(w + 2 * clusters));
        w += clusters;
    }
    let _ = now.wait_prior::<1>(&block);
    let _ = next.wait(&block);
}
