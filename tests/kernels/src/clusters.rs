//! Clusters of the GPU suite: every rank of `Cluster`, and a value passed
//! between the blocks of a cluster through global memory across
//! `Cluster::sync`. `reference/collectives.cu` has the CUDA twin
//! (`cg::this_cluster()`).

use coop::prelude::*;

/// Words [`cluster_ranks`] writes per thread.
pub const CLUSTER_FIELDS: usize = 10;

/// Per thread `g`: the cluster's block rank, blocks, extent in x, block
/// index in x, thread rank and threads; then, after each block's first
/// thread wrote `100 * grid block + cluster rank` into `stage` and the
/// cluster synced, what the next block of the cluster wrote, and 1; then
/// the thread's index in x among the cluster's threads and the cluster's
/// extent in threads in x.
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
        cluster.thread_index().x,
        cluster.dim_threads().x,
    ];
    for (k, f) in fields.iter().enumerate() {
        out.write(CLUSTER_FIELDS * g + k, *f);
    }
}

/// Distributed shared memory, read: each block fills its 128-element array
/// with `1000 * grid block + thread`; after `share`, thread `t` reads
/// element `t` of the array of the block `1 + t % 3` ranks further on in
/// its cluster.
#[kernel]
pub fn dsm_rotate(
    cluster: Cluster,
    block: ThreadBlock,
    out: Out<u32>,
    s: coop::shared::Shared<[u32; 128]>,
) {
    let r = block.thread_rank();
    let b = this_grid().block_rank() as u32;
    let mine = s.own(coop::shared::ByRank::new());
    mine.set(1000 * b + r);
    let shared = mine.publish(&block).share(&cluster);
    let from = (cluster.block_rank() + 1 + r % 3) % cluster.num_blocks();
    out.write(this_grid().thread_rank(), shared.get_from(from, r as usize));
    let _ = shared.unshare(&cluster);
}

/// Distributed shared memory, atomics: a histogram of `bins` = 256 per
/// cluster block, spread over the cluster: each thread adds 1 to its
/// value's bin in the block that holds it; each block then adds its part
/// into the global histogram.
#[kernel]
pub fn dsm_histogram(
    cluster: Cluster,
    block: ThreadBlock,
    input: &[u32],
    bins: Out<u32>,
    part: coop::shared::Shared<[u32; 256]>,
) {
    let n = cluster.num_blocks();
    let zero = part.own(coop::shared::ByRank::new());
    let threads = block.num_threads() as usize;
    let mut nth = 0;
    while block.thread_rank() as usize + nth * threads < 256 {
        zero.write_nth(nth, 0);
        nth += 1;
    }
    let counts = zero.share_atomics(&cluster);
    let mut i = this_grid().thread_rank();
    while i < input.len() {
        let bin = input[i] % (256 * n);
        counts.add_to(bin / 256, (bin % 256) as usize, 1);
        i += this_grid().num_threads();
    }
    let done = counts.publish(&cluster);
    let mut k = block.thread_rank() as usize;
    while k < 256 {
        let total = done.get(k);
        if total != 0 {
            bins.atomic()
                .add(cluster.block_rank() as usize * 256 + k, total);
        }
        k += block.num_threads() as usize;
    }
}

/// Distributed shared memory, writes: thread `t` of each block writes
/// `1000 * grid block + t` into element `t` of the next block's 128-element
/// array of its cluster; after the barrier each block reads its own.
#[kernel]
pub fn dsm_pass_on(
    cluster: Cluster,
    block: ThreadBlock,
    out: Out<u32>,
    s: coop::shared::Shared<[u32; 128]>,
) {
    let r = block.thread_rank();
    let b = this_grid().block_rank() as u32;
    let writes = s.own(coop::shared::ByRank::new()).share_writes(&cluster);
    let next = (cluster.block_rank() + 1) % cluster.num_blocks();
    writes.write_to(next, r as usize, 1000 * b + r);
    let mine = writes.publish(&cluster);
    out.write(this_grid().thread_rank(), mine.get(r as usize));
}

/// Threads a block of [`cluster_grid_rounds`].
pub const ROUND_THREADS: usize = 64;

/// A cooperative launch in clusters, grid syncs and cluster syncs in one
/// kernel: `rounds` rounds; in each, thread `t` of every block puts its
/// value (at first `1000 * grid block + t`) into the block's shared array;
/// after `share`, thread `t` of the cluster's first block adds element `t`
/// of every block of the cluster into `sums[(round * clusters + cluster) *
/// 64 + t]`; after the grid sync, each thread's new value is the next
/// cluster's sum of its `t` plus its block's rank in the cluster.
/// `out[64 * b + t]`: the last value of thread `t` of block `b`.
#[kernel(cooperative)]
pub fn cluster_grid_rounds(
    grid: CooperativeGrid,
    cluster: Cluster,
    block: ThreadBlock,
    rounds: u32,
    sums: Out<u32>,
    out: Out<u32>,
    values: coop::shared::Shared<[u32; ROUND_THREADS]>,
) {
    let b = grid.block_rank();
    let t = block.thread_rank() as usize;
    let n = cluster.num_blocks() as usize;
    let clusters = grid.num_blocks() / n;
    let c = b / n;
    let mut mine = 1000 * b as u32 + t as u32;
    let mut owned = values.own(coop::shared::ByRank::new());
    for round in 0..rounds as usize {
        owned.set(mine);
        let shared = owned.publish(&block).share(&cluster);
        if cluster.block_rank() == 0 {
            let sum = (0..n as u32).map(|p| shared.get_from(p, t)).sum();
            sums.write((round * clusters + c) * ROUND_THREADS + t, sum);
        }
        owned = shared
            .unshare(&cluster)
            .own(&block, coop::shared::ByRank::new());
        grid.sync();
        let next = (c + 1) % clusters;
        mine = sums.read((round * clusters + next) * ROUND_THREADS + t) + cluster.block_rank();
    }
    out.write(ROUND_THREADS * b + t, mine);
}
