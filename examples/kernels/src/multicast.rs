//! Tiles that every block of a cluster needs, loaded once a cluster by
//! the copy engine's multicast, against each block loading its own copy
//! (`examples/bench/multicast_bench.rs` times both).
//!
//! The input is `rows` rows of [`ROW`] floats, in tiles of 8 rows (8 KiB).
//! Cluster `c` of a launch of clusters of `n` blocks takes tiles `c`, `c +
//! clusters`, and so on; every block of the cluster reads every element of
//! each of them and adds up `(r + 1) x` for its rank `r`, so each block's
//! sum differs and needs every tile:
//!
//! - [`cluster_sums_multicast`]: a [`MulticastStages`] ring, one tensor
//!   copy a tile for the whole cluster;
//! - [`cluster_sums_each`]: the same kernel with a block pipeline, each
//!   block loading each tile itself (the L2 cache serves the cluster's
//!   other blocks).

use coop::memory::pipeline::{MulticastStages, Pipeline, Stage, Stages};
use coop::memory::tensor::TensorMap;
use coop::prelude::*;

/// Floats in a row.
pub const ROW: usize = 256;

/// A tile: 8 rows of [`ROW`] floats.
pub type RowTile = [[f32; ROW]; 8];

/// Ring of four 8 KiB stages.
type Ring = [RowTile; 4];

/// The block's share of one tile: `(r + 1) x` over the elements its
/// threads take.
#[inline(always)]
fn tile_sum(stage: &Stage<'_, Ring>, t: usize, threads: usize, scale: f32) -> f32 {
    let mut sum = 0.0f32;
    let mut i = t;
    while i < 8 * ROW {
        sum += stage.get(i) * scale;
        i += threads;
    }
    sum
}

/// The two rings the kernels take tiles from, as `cluster_sums` uses them.
trait Tiles {
    fn load(
        &mut self,
        cluster: &Cluster,
        block: &ThreadBlock,
        input: &TensorMap<RowTile>,
        k: usize,
    );
    fn take(&mut self, block: &ThreadBlock) -> Stage<'_, Ring>;
    fn loaded(&self) -> u32;
    fn is_full(&self) -> bool;
}

impl Tiles for MulticastStages<Ring> {
    #[inline(always)]
    fn load(&mut self, cluster: &Cluster, _: &ThreadBlock, input: &TensorMap<RowTile>, k: usize) {
        self.load_tensor(cluster, input, [(8 * k) as i32, 0])
    }
    #[inline(always)]
    fn take(&mut self, block: &ThreadBlock) -> Stage<'_, Ring> {
        self.next(block)
    }
    #[inline(always)]
    fn loaded(&self) -> u32 {
        MulticastStages::loaded(self)
    }
    #[inline(always)]
    fn is_full(&self) -> bool {
        MulticastStages::is_full(self)
    }
}

impl Tiles for Stages<Ring> {
    #[inline(always)]
    fn load(&mut self, _: &Cluster, block: &ThreadBlock, input: &TensorMap<RowTile>, k: usize) {
        self.load_tensor(block, input, [(8 * k) as i32, 0])
    }
    #[inline(always)]
    fn take(&mut self, block: &ThreadBlock) -> Stage<'_, Ring> {
        self.next(block)
    }
    #[inline(always)]
    fn loaded(&self) -> u32 {
        Stages::loaded(self)
    }
    #[inline(always)]
    fn is_full(&self) -> bool {
        Stages::is_full(self)
    }
}

/// The body of both kernels: the cluster's tiles through `stages`, the
/// block's sum into `sums[block]`.
#[inline(always)]
fn cluster_sums(
    cluster: &Cluster,
    block: &ThreadBlock,
    mut stages: impl Tiles,
    input: &TensorMap<RowTile>,
    rows: u32,
    sums: &Out<f32>,
) {
    let n = cluster.num_blocks() as usize;
    let tiles = (rows as usize).div_ceil(8);
    let clusters = this_grid().num_blocks() / n;
    let c = block.group_index().x as usize / n;
    let scale = (cluster.block_rank() + 1) as f32;
    let (t, threads) = (block.thread_rank() as usize, block.num_threads() as usize);
    let mut next = c;
    while next < tiles && !stages.is_full() {
        stages.load(cluster, block, input, next);
        next += clusters;
    }
    let mut sum = 0.0f32;
    while stages.loaded() > 0 {
        let stage = stages.take(block);
        sum += tile_sum(&stage, t, threads, scale);
        stage.release();
        if next < tiles {
            stages.load(cluster, block, input, next);
            next += clusters;
        }
    }
    let total = reduce(block, sum, op::Sum);
    if t == 0 {
        sums.write(block.group_index().x as usize, total);
    }
}

/// `sums[block] = (r + 1) ×` the sum of the cluster's tiles, each tile
/// multicast to the cluster's blocks.
#[kernel]
pub fn cluster_sums_multicast(
    cluster: Cluster,
    block: ThreadBlock,
    input: TensorMap<RowTile>,
    rows: u32,
    sums: Out<f32>,
    ring: Pipeline<Ring>,
) {
    let stages = ring.start_multicast(&cluster, &block);
    cluster_sums(&cluster, &block, stages, &input, rows, &sums);
}

/// As [`cluster_sums_multicast`], each block loading every tile of its
/// cluster itself.
#[kernel]
pub fn cluster_sums_each(
    cluster: Cluster,
    block: ThreadBlock,
    input: TensorMap<RowTile>,
    rows: u32,
    sums: Out<f32>,
    ring: Pipeline<Ring>,
) {
    let stages = ring.start(&block);
    cluster_sums(&cluster, &block, stages, &input, rows, &sums);
}
