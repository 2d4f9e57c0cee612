//! Streaming a buffer through shared memory, three ways: the streaming
//! benchmark's kernels (`examples/bench/async_copy_bench.rs`), beside their
//! CUDA C++ twins in `examples/bench/async_copy.cu`. Each copies `input` to
//! `output`; the block-tiled ones move tiles of 2048 floats, block `b`
//! taking tiles `b`, `b + blocks`, and so on.
//!
//! - [`stream_direct`]: no shared memory, a grid-stride loop of loads and
//!   stores (the baseline every staged copy is measured against);
//! - [`stream_staged`]: one tile at a time, `copy_async` then `wait`;
//! - [`stream_tiles`]: each warp on its own, runs of 256 floats through
//!   two rows of its own (`tile_row`, `wait_prior::<1>`): the next run
//!   lands while the warp stores this one, and no warp waits for another;
//! - [`stream_pipeline`]: a ring of four stages (`Pipeline`), the next
//!   tiles loading while the block stores the current one;
//! - [`stream_bulk`]: the same ring, its tiles moved by the bulk-copy
//!   engine (sm_90);
//! - [`stream_engine`]: a ring of four stages of 4 KiB in blocks of one
//!   warp, each tile loaded and stored by the bulk-copy engine (sm_90,
//!   [`Stage::store`](coop::memory::pipeline::Stage::store)): no element
//!   passes through a register;
//! - [`stream_specialized`]: the same ring, warp-specialized: the block's
//!   first warp moves the tiles by the bulk-copy engine, the other threads
//!   store them ([`stream_specialized_threads`]: the warp's threads copy
//!   the tiles' chunks with `cp.async`);
//! - [`stream_tensor`]: the buffer as rows of 256 floats, tiles of 8 rows
//!   loaded *and stored* by the copy engine (tensor copies, sm_90): no
//!   element passes through a register;
//! - [`stencil_bulk`]: not a copy but the smoothing-stencil tutorial's
//!   3-point stencil through [`stream_bulk`]'s ring, each thread's runs of
//!   four outputs from one vector load of its tile's stage, and the two
//!   halo inputs from global memory.

use coop::memory::pipeline::{CopyEngine, Pipeline, Role};
use coop::memory::tensor::{TensorMap, TensorOut};
use coop::prelude::*;
use coop::shared::Shared;

/// Floats in a tile.
pub const TILE: usize = 2048;

/// `output[i] = input[i]`, a grid-stride loop.
#[kernel]
pub fn stream_direct(grid: Grid, input: &[f32], output: Out<f32>) {
    let mut i = grid.thread_rank();
    while i < input.len() {
        output.write(i, input[i]);
        i += grid.num_threads();
    }
}

/// Floats in a warp's run in [`stream_tiles`].
pub const WARP_RUN: usize = 256;

/// `output[i] = input[i]`, each warp taking runs of [`WARP_RUN`] floats in
/// a grid-stride loop through two rows of its own (blocks of up to 256
/// threads): the warp's copy of the next run lands while it stores this
/// one, and its waits are the warp's barrier, never the block's.
#[kernel]
pub fn stream_tiles(
    block: ThreadBlock,
    input: &[f32],
    output: Out<f32>,
    a: Shared<[[f32; WARP_RUN]; 8]>,
    b: Shared<[[f32; WARP_RUN]; 8]>,
) {
    let warp = block.tiled_partition::<32>();
    let runs = input.len().div_ceil(WARP_RUN);
    let run = |k: usize| {
        let s = (k * WARP_RUN).min(input.len());
        &input[s..(s + WARP_RUN).min(input.len())]
    };
    let per_block = (block.num_threads() / 32) as usize;
    let stride = this_grid().num_blocks() * per_block;
    let mut k = this_grid().block_rank() * per_block + (block.thread_rank() / 32) as usize;
    let mut now = a.tile_row(&block, &warp).copy_async(&warp, run(k));
    let mut next = b.tile_row(&block, &warp).copy_async(&warp, run(k + stride));
    let lane = warp.thread_rank() as usize;
    while k < runs {
        let row = now.wait_prior::<1>(&warp);
        let len = run(k).len();
        let mut i = lane;
        while i < len {
            output.write(k * WARP_RUN + i, row.get(i));
            i += 32;
        }
        now = next;
        next = row.copy_async(&warp, run(k + 2 * stride));
        k += stride;
    }
    let _ = now.wait_prior::<1>(&warp);
    let _ = next.wait(&warp);
}

/// `output[i] = input[i]`, each tile staged in shared memory by an
/// asynchronous copy and waited for before the block stores it.
#[kernel]
pub fn stream_staged(
    block: ThreadBlock,
    input: &[f32],
    output: Out<f32>,
    tile: Shared<[f32; TILE]>,
) {
    let tiles = input.len().div_ceil(TILE);
    let blocks = this_grid().num_blocks();
    let part = |k: usize| &input[k * TILE..((k + 1) * TILE).min(input.len())];
    let mut k = block.group_index().x as usize;
    if k >= tiles {
        return;
    }
    let t = block.thread_rank() as usize;
    let threads = block.num_threads() as usize;
    let mut copying = tile.copy_async(&block, part(k));
    loop {
        let staged = copying.wait(&block);
        let base = k * TILE;
        let len = part(k).len();
        let mut i = t;
        while i < len {
            output.write(base + i, staged.get(i));
            i += threads;
        }
        k += blocks;
        if k >= tiles {
            break;
        }
        copying = staged.copy_async(&block, part(k));
    }
}

/// `output[i] = input[i]` through a ring of four stages: up to four tiles
/// in flight while the block stores the oldest; every thread copies its
/// chunks of each tile (`CopyEngine::Threads`).
#[kernel]
pub fn stream_pipeline(
    block: ThreadBlock,
    input: &[f32],
    output: Out<f32>,
    ring: Pipeline<[[f32; TILE]; 4]>,
) {
    through_ring(&block, input, &output, ring, CopyEngine::Threads);
}

/// Floats in a tile of [`stream_engine`] (4 KiB).
pub const ENGINE_TILE: usize = 1024;

/// `output[i] = input[i]` through a ring of four stages of
/// [`ENGINE_TILE`] floats, each tile loaded into its stage and stored from
/// there by the bulk-copy engine (sm_90): the block's threads only wait.
/// Launch it with blocks of one warp, two a multiprocessor: on an H200
/// that streams faster than more blocks or larger tiles (chapter 7).
#[kernel]
pub fn stream_engine(
    block: ThreadBlock,
    input: &[f32],
    output: Out<f32>,
    ring: Pipeline<[[f32; ENGINE_TILE]; 4]>,
) {
    let mut stages = ring.start(&block);
    let tiles = input.len().div_ceil(ENGINE_TILE);
    let blocks = this_grid().num_blocks() as usize;
    let part = |k: usize| &input[k * ENGINE_TILE..((k + 1) * ENGINE_TILE).min(input.len())];
    let mut next_load = block.group_index().x as usize;
    while next_load < tiles && !stages.is_full() {
        stages.load(&block, part(next_load));
        next_load += blocks;
    }
    let mut current = block.group_index().x as usize;
    while stages.loaded() > 0 {
        let len = part(current).len();
        stages
            .next(&block)
            .store(&block, &output, current * ENGINE_TILE, len);
        current += blocks;
        if next_load < tiles {
            stages.load(&block, part(next_load));
            next_load += blocks;
        }
    }
}

/// As [`stream_pipeline`], each tile moved by the bulk-copy engine
/// (`CopyEngine::Bulk`, sm_90).
#[kernel]
pub fn stream_bulk(
    block: ThreadBlock,
    input: &[f32],
    output: Out<f32>,
    ring: Pipeline<[[f32; TILE]; 4]>,
) {
    through_ring(&block, input, &output, ring, CopyEngine::Bulk);
}

/// As [`stream_bulk`], warp-specialized: the block's first warp loads
/// each tile by the bulk-copy engine once the other threads have released
/// its stage, and those threads store the tiles (launch it with a warp more
/// than the storing threads).
#[kernel]
pub fn stream_specialized(
    block: ThreadBlock,
    input: &[f32],
    output: Out<f32>,
    ring: Pipeline<[[f32; TILE]; 4]>,
) {
    through_roles(&block, input, &output, ring, CopyEngine::Bulk);
}

/// As [`stream_specialized`], the producer warp's 32 threads copying each
/// tile's 16-byte chunks with `cp.async` (`CopyEngine::Threads`, the path
/// before sm_90).
#[kernel]
pub fn stream_specialized_threads(
    block: ThreadBlock,
    input: &[f32],
    output: Out<f32>,
    ring: Pipeline<[[f32; TILE]; 4]>,
) {
    through_roles(&block, input, &output, ring, CopyEngine::Threads);
}

#[inline(always)]
fn through_roles(
    block: &ThreadBlock,
    input: &[f32],
    output: &Out<f32>,
    ring: Pipeline<[[f32; TILE]; 4]>,
    engine: CopyEngine,
) {
    let warp = block.tiled_partition::<32>();
    let tiles = input.len().div_ceil(TILE);
    let blocks = this_grid().num_blocks();
    let part = |k: usize| &input[k * TILE..((k + 1) * TILE).min(input.len())];
    let first = block.group_index().x as usize;
    match ring.start_specialized_with(block, &warp, engine) {
        Role::Producer(mut producer) => {
            let mut k = first;
            while k < tiles {
                producer.load(&warp, part(k));
                k += blocks;
            }
        }
        Role::Consumer(mut consumer) => {
            let (t, threads) = (consumer.rank() as usize, consumer.num_threads() as usize);
            let mut k = first;
            while k < tiles {
                let stage = consumer.next(&warp);
                let (base, len) = (k * TILE, part(k).len());
                let mut i = t;
                while i < len {
                    output.write(base + i, stage.get(i));
                    i += threads;
                }
                k += blocks;
            }
        }
    }
}

/// Floats in a row of [`stream_tensor`]'s 2-D view of the buffer.
pub const ROW: usize = 256;

/// The tile of [`stream_tensor`]: 8 rows of [`ROW`] floats ([`TILE`]).
pub type RowTile = [[f32; ROW]; 8];

/// `output = input`, both seen as `rows` rows of [`ROW`] floats, through a
/// ring of four stages: the copy engine loads each tile of 8 rows into a
/// stage and stores it from there into `output` (tensor copies, sm_90).
/// Block `b` moves tiles `b`, `b + blocks`, and so on.
#[kernel]
pub fn stream_tensor(
    block: ThreadBlock,
    input: TensorMap<RowTile>,
    output: TensorOut<RowTile>,
    rows: u32,
    ring: Pipeline<[RowTile; 4]>,
) {
    let mut stages = ring.start(&block);
    let tiles = (rows as usize).div_ceil(8);
    let blocks = this_grid().num_blocks() as usize;
    let at = |k: usize| [(8 * k) as i32, 0];
    let mut next_load = block.group_index().x as usize;
    while next_load < tiles && !stages.is_full() {
        stages.load_tensor(&block, &input, at(next_load));
        next_load += blocks;
    }
    let mut current = block.group_index().x as usize;
    while stages.loaded() > 0 {
        stages
            .next(&block)
            .store_tensor(&block, &output, at(current));
        current += blocks;
        if next_load < tiles {
            stages.load_tensor(&block, &input, at(next_load));
            next_load += blocks;
        }
    }
}

#[inline(always)]
fn through_ring(
    block: &ThreadBlock,
    input: &[f32],
    output: &Out<f32>,
    ring: Pipeline<[[f32; TILE]; 4]>,
    engine: CopyEngine,
) {
    let mut stages = ring.start_with(block, engine);
    let tiles = input.len().div_ceil(TILE);
    let blocks = this_grid().num_blocks();
    let part = |k: usize| &input[k * TILE..((k + 1) * TILE).min(input.len())];
    let mut next_load = block.group_index().x as usize;
    while next_load < tiles && !stages.is_full() {
        stages.load(block, part(next_load));
        next_load += blocks;
    }
    let t = block.thread_rank() as usize;
    let threads = block.num_threads() as usize;
    let mut current = block.group_index().x as usize;
    while stages.loaded() > 0 {
        let stage = stages.next(block);
        let base = current * TILE;
        let len = part(current).len();
        let mut i = t;
        while i < len {
            output.write(base + i, stage.get(i));
            i += threads;
        }
        stage.release();
        current += blocks;
        if next_load < tiles {
            stages.load(block, part(next_load));
            next_load += blocks;
        }
    }
}

/// The smoothing stencil `output[k] = (input[k-1] + 2 input[k] +
/// input[k+1]) / 4` (zeros outside the array) through a ring of four
/// stages of [`TILE`] floats moved by the bulk-copy engine, as in
/// [`stream_bulk`]: each thread computes runs of four outputs of the tile
/// from one vector load of the stage (`Stage::get_array`) and the two
/// inputs on either side, and stores them with one vector store
/// (`Out::write_array`); a tile whose length is not a multiple of four
/// (the array's last) ends with outputs one at a time. The two inputs just
/// outside the tile (its halo), which every thread reads before waiting
/// for the tile, come from global memory, where the neighbouring tiles'
/// loads bring them into the cache. The host's version is
/// `coop_examples::checks::stencil::smooth_host`. Launch it with blocks of
/// 256 threads: it takes about 60 registers, which its bounds (four blocks
/// a multiprocessor) leave it.
/// Chapter 7 of the guide has its figures against the one-output-a-thread
/// version before it, which fitted six blocks at 40 registers.
#[kernel(max_threads = 256, min_blocks = 4)]
pub fn stencil_bulk(
    block: ThreadBlock,
    input: &[f32],
    output: Out<f32>,
    ring: Pipeline<[[f32; TILE]; 4]>,
) {
    let mut stages = ring.start(&block);
    let n = input.len();
    let tiles = n.div_ceil(TILE);
    let blocks = this_grid().num_blocks() as usize;
    let part = |k: usize| &input[k * TILE..((k + 1) * TILE).min(n)];
    let mut next_load = block.group_index().x as usize;
    while next_load < tiles && !stages.is_full() {
        stages.load(&block, part(next_load));
        next_load += blocks;
    }
    let t = block.thread_rank() as usize;
    let threads = block.num_threads() as usize;
    let mut current = block.group_index().x as usize;
    while stages.loaded() > 0 {
        let base = current * TILE;
        let len = (n - base).min(TILE);
        // The tile's halo: one input on either side (every thread reads the
        // same two, from the cache), before the wait for the tile.
        let before = if base > 0 { input[base - 1] } else { 0.0 };
        let after = if base + len < n {
            input[base + len]
        } else {
            0.0
        };
        let stage = stages.next(&block);
        // Runs of four: outputs `i .. i + 4` from inputs `i - 1 .. i + 5`.
        // In-tile positions in 32 bits (a tile has 2048).
        let whole = (len - len % 4) as u32;
        let mut i = 4 * t as u32;
        while i < whole {
            let [a, b, c, d] = stage.get_array::<4>(i as usize);
            let left = if i > 0 {
                stage.get(i as usize - 1)
            } else {
                before
            };
            let right = if i + 4 < len as u32 {
                stage.get(i as usize + 4)
            } else {
                after
            };
            output.write_array(
                base + i as usize,
                [
                    (left + 2.0 * a + b) * 0.25,
                    (a + 2.0 * b + c) * 0.25,
                    (b + 2.0 * c + d) * 0.25,
                    (c + 2.0 * d + right) * 0.25,
                ],
            );
            i += 4 * threads as u32;
        }
        // The last tile's few outputs after its last run of four.
        let mut i = whole as usize + t;
        while i < len {
            let left = if i > 0 { stage.get(i - 1) } else { before };
            let right = if i + 1 < len { stage.get(i + 1) } else { after };
            output.write(base + i, (left + 2.0 * stage.get(i) + right) * 0.25);
            i += threads;
        }
        stage.release();
        current += blocks;
        if next_load < tiles {
            stages.load(&block, part(next_load));
            next_load += blocks;
        }
    }
}
