//! A histogram with more bins than one block's shared memory holds, three
//! ways: every element adding into global memory; each block counting
//! into its own copy of all bins in shared memory (when they fit), then
//! adding them into global memory; and the bins spread over the blocks of
//! a cluster (sm_90), each element adding into the shared memory of the
//! block that holds its bin (distributed shared memory).
//!
//! Bin `k % bins` for key `k`; the global histogram must start at zero.

use coop::prelude::*;
use coop::shared::{ByRank, Owned, Shared};

/// The block's threads zero their elements of `part`.
#[inline(always)]
fn zeroed(block: &ThreadBlock, part: Shared<[u32]>) -> Owned<[u32], ByRank> {
    let len = part.len();
    let owned = part.own(ByRank::new());
    let threads = block.num_threads() as usize;
    let mut nth = 0;
    while block.thread_rank() as usize + nth * threads < len {
        owned.write_nth(nth, 0);
        nth += 1;
    }
    owned
}

/// Every element adds 1 into its global bin.
#[kernel]
pub fn wide_histogram_global(grid: Grid, keys: &[u32], bins: Out<u32>) {
    let n = bins.len() as u32;
    let counts = bins.atomic();
    let mut i = grid.thread_rank();
    while i < keys.len() {
        counts.add((keys[i] % n) as usize, 1);
        i += grid.num_threads();
    }
}

/// Each block counts into its own copy of all bins (`part`, dynamic shared
/// memory of `bins.len()` words), then adds its nonzero counts into the
/// global histogram.
#[kernel]
pub fn wide_histogram_block(block: ThreadBlock, keys: &[u32], bins: Out<u32>, part: Shared<[u32]>) {
    let grid = this_grid();
    let n = bins.len() as u32;
    let counts = zeroed(&block, part).atomics(&block);
    let mut i = grid.thread_rank();
    while i < keys.len() {
        counts.add((keys[i] % n) as usize, 1);
        i += grid.num_threads();
    }
    let done = counts.publish(&block);
    let global = bins.atomic();
    let mut k = block.thread_rank() as usize;
    while k < done.len() {
        let c = done.get(k);
        if c != 0 {
            global.add(k, c);
        }
        k += block.num_threads() as usize;
    }
}

/// The bins spread over the cluster: block `r` of the cluster holds bins
/// `r * part.len()` to `(r + 1) * part.len()`; each element adds 1 into the
/// shared memory of the block holding its bin; then each block adds its
/// nonzero counts into the global histogram.
#[kernel]
pub fn wide_histogram_cluster(
    cluster: Cluster,
    block: ThreadBlock,
    keys: &[u32],
    bins: Out<u32>,
    part: Shared<[u32]>,
) {
    let grid = this_grid();
    let per = part.len() as u32;
    let n = per * cluster.num_blocks();
    let counts = zeroed(&block, part).share_atomics(&cluster);
    let mut i = grid.thread_rank();
    while i < keys.len() {
        let bin = keys[i] % n;
        counts.add_to(bin / per, (bin % per) as usize, 1);
        i += grid.num_threads();
    }
    let done = counts.publish(&cluster);
    let global = bins.atomic();
    let first = (cluster.block_rank() * per) as usize;
    let mut k = block.thread_rank() as usize;
    while k < done.len() {
        let c = done.get(k);
        if c != 0 {
            global.add(first + k, c);
        }
        k += block.num_threads() as usize;
    }
}
