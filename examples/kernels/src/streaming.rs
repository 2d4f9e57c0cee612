//! Streaming a buffer through shared memory, three ways: the streaming
//! benchmark's kernels (`examples/bench/async_copy_bench.rs`), beside their
//! CUDA C++ twins in `examples/bench/async_copy.cu`. Each copies `input` to
//! `output`; the block-tiled ones move tiles of 2048 floats, block `b`
//! taking tiles `b`, `b + blocks`, and so on.
//!
//! - [`stream_direct`]: no shared memory, a grid-stride loop of loads and
//!   stores (the baseline every staged copy is measured against);
//! - [`stream_staged`]: one tile at a time, `copy_async` then `wait`;
//! - [`stream_pipeline`]: a ring of four stages (`Pipeline`), the next
//!   tiles loading while the block stores the current one;
//! - [`stream_bulk`]: the same ring, its tiles moved by the bulk-copy
//!   engine (sm_90).

use coop::memory::pipeline::{CopyEngine, Pipeline};
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
