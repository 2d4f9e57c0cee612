//! Kernels shaped the way users write grid-stride loops: each iteration a
//! guarded load, several collectives of one group (a multi-warp tile, a
//! cluster, the whole grid) and a guarded store. The second round of new
//! users ran exactly such a kernel on a 128-thread tile (a scan, a
//! reduction, `invoke_one` a leader's store), and compute-sanitizer's
//! racecheck reported its shared memory; these are the shapes the GPU
//! suite runs under compute-sanitizer. `coop_tests::loop_shapes` has the
//! host references.

use coop::prelude::*;
use coop::shared::{ByRank, Shared};

macro_rules! tile_loop {
    ($($name:ident: $n:literal;)*) => {$(
        /// A grid-stride loop over chunks of one block each: per iteration
        /// an inclusive scan of the tile, the tile's maximum of the scan, a
        /// broadcast from the tile's last thread, and `invoke_one` storing
        /// the maximum for the tile (see the module docs).
        #[kernel]
        pub fn $name(block: ThreadBlock, input: &[u32], scans: Out<u32>, maxima: Out<u32>) {
            let tile = block.tiled_partition::<$n>();
            let grid = this_grid();
            let threads = block.num_threads() as usize;
            let mut base = grid.block_rank() * threads;
            while base < input.len() {
                let i = base + block.thread_rank() as usize;
                let x = if i < input.len() { input[i] } else { 0 };
                let scan = inclusive_scan(&tile, x, op::Sum);
                let top = reduce(&tile, scan, op::Max);
                let last = tile.shfl(scan, $n - 1);
                if i < input.len() {
                    scans.write(i, scan ^ last);
                }
                let first = i - tile.thread_rank() as usize;
                tile.invoke_one(|| {
                    if first < input.len() {
                        maxima.write(first / $n, top)
                    }
                });
                base += grid.num_threads();
            }
        }
    )*};
}

tile_loop! {
    tile_loop_64: 64;
    tile_loop_128: 128;
    tile_loop_256: 256;
    tile_loop_512: 512;
}

/// A grid-stride loop in clusters: per iteration each block writes its
/// chunk into a shared array, publishes it, shares it with its cluster,
/// reads the next block's element of the same rank, ends the sharing, and
/// reduces the block's sums; thread `t` stores `x + next` and the block's
/// total of those.
#[kernel]
pub fn cluster_loop(
    cluster: Cluster,
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    totals: Out<u32>,
    s: Shared<[u32; 128]>,
) {
    let grid = this_grid();
    let t = block.thread_rank() as usize;
    let mut mine = s.own(ByRank::new());
    // Every block of a cluster makes as many rounds as the others (each
    // round is a cluster barrier): rounds over the whole grid, not over
    // the block's own chunks.
    let mut round = 0;
    while round < input.len() {
        let base = round + grid.block_rank() * 128;
        let i = base + t;
        let x = if i < input.len() { input[i] } else { 0 };
        mine.write(t, x);
        let shared = mine.publish(&block).share(&cluster);
        let next = (cluster.block_rank() + 1) % cluster.num_blocks();
        let y = x.wrapping_add(shared.get_from(next, t));
        mine = shared.unshare(&cluster).own(&block, ByRank::new());
        let total = reduce(&block, y, op::Sum);
        if i < input.len() {
            out.write(i, y);
        }
        if t == 0 && base < input.len() {
            totals.write(base / 128, total);
        }
        round += grid.num_threads();
    }
}

/// A grid-stride loop in one cooperative launch: per iteration every block
/// reduces its chunk, thread 0 stores the block's sum, the grid syncs,
/// every thread reads the sum of all blocks' sums for the round, and the
/// grid syncs again before the next round overwrites them.
#[kernel(cooperative)]
pub fn grid_loop(
    grid: CooperativeGrid,
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    sums: Out<u32>,
) {
    let t = block.thread_rank() as usize;
    let threads = block.num_threads() as usize;
    let blocks = grid.num_blocks();
    let b = grid.block_rank();
    let mut round = 0;
    let mut base = b * threads;
    let rounds = input.len().div_ceil(threads * blocks);
    while round < rounds {
        let i = base + t;
        let x = if i < input.len() { input[i] } else { 0 };
        let sum = reduce(&block, x, op::Sum);
        if t == 0 {
            sums.write(b, sum);
        }
        grid.sync();
        let mut all = 0u32;
        let mut k = 0;
        while k < blocks {
            all = all.wrapping_add(sums.read(k));
            k += 1;
        }
        if i < input.len() {
            out.write(i, all ^ x);
        }
        grid.sync();
        base += threads * blocks;
        round += 1;
    }
}
