//! Clusters of the GPU suite: every rank of `Cluster`, and a value passed
//! between the blocks of a cluster through global memory across
//! `Cluster::sync`. `reference/collectives.cu` has the CUDA twin
//! (`cg::this_cluster()`).

use coop::prelude::*;

/// Words [`cluster_ranks`] writes per thread.
pub const CLUSTER_FIELDS: usize = 8;

/// Per thread `g`: the cluster's block rank, blocks, extent in x, block
/// index in x, thread rank and threads; then, after each block's first
/// thread wrote `100 * grid block + cluster rank` into `stage` and the
/// cluster synced, what the next block of the cluster wrote, and 1.
#[kernel]
pub fn cluster_ranks(cluster: Cluster, stage: Out<u32>, out: Out<u32>) {
    let grid = this_grid();
    let g = grid.thread_rank();
    let b = grid.block_rank();
    if this_thread_block().thread_rank() == 0 {
        stage.write(b, 100 * b as u32 + cluster.block_rank());
    }
    cluster.sync();
    let base = b - cluster.block_rank() as usize;
    let next = base + (cluster.block_rank() as usize + 1) % cluster.num_blocks() as usize;
    let fields = [
        cluster.block_rank(),
        cluster.num_blocks(),
        cluster.dim_blocks().x,
        cluster.block_index().x,
        cluster.thread_rank(),
        cluster.num_threads(),
        stage.read(next),
        1,
    ];
    for (k, f) in fields.iter().enumerate() {
        out.write(CLUSTER_FIELDS * g + k, *f);
    }
}
