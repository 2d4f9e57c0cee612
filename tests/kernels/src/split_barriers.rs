//! Split barriers of the GPU suite: a block's `barrier_arrive` and
//! `barrier_wait` over several rounds with work between them, and a
//! cluster's. `reference/collectives.cu` has the CUDA twins (cooperative
//! groups' `barrier_arrive` and `barrier_wait`).

use coop::prelude::*;

/// Rounds of [`split_rounds`].
pub const SPLIT_ROUNDS: u32 = 5;

/// Per thread `g` (rank `t` in a block of `n`): each round `r` writes
/// `input[g] + r` into slot `t` of buffer `r % 2`, arrives, mixes its own
/// value into `acc` while the others arrive, waits, and adds the slots of
/// threads `t + 1` and `t + 33` (mod `n`). `out[g]` is `acc`.
#[kernel]
pub fn split_rounds(block: ThreadBlock, input: &[u32], out: Out<u32>, slots: Shared<[u32; 2048]>) {
    let slots = slots.into_raw();
    let n = block.num_threads() as usize;
    let t = block.thread_rank() as usize;
    let g = this_grid().thread_rank();
    let mine = input[g];
    let mut acc = 0u32;
    for r in 0..SPLIT_ROUNDS {
        let base = (r as usize % 2) * 1024;
        // SAFETY: each thread writes its own slot of this round's buffer;
        // the reads of it two rounds ago came before the readers' last
        // arrival, which this thread waited for.
        unsafe { slots.write(base + t, mine.wrapping_add(r)) };
        let arrival = block.barrier_arrive();
        acc = acc.wrapping_mul(31).wrapping_add(mine ^ r);
        block.barrier_wait(arrival);
        // SAFETY: written before every thread's arrival, not written again
        // before the readers' next arrival.
        let (a, b) = unsafe {
            (
                slots.read(base + (t + 1) % n),
                slots.read(base + (t + 33) % n),
            )
        };
        acc = acc.wrapping_add(a).wrapping_add(b.rotate_left(3));
    }
    out.write(g, acc);
}

/// Per thread `g` of grid block `b` in a cluster: two rounds; in round `r`
/// each block's first thread writes `100 * b + 10 * r + rank` into
/// `stage[r * blocks + b]`, every thread arrives at the cluster's split
/// barrier, computes its partner (the next block of its cluster), waits,
/// and reads the partner's value; `out[2 g + r]` holds it.
#[kernel]
pub fn cluster_split_rounds(cluster: Cluster, stage: Out<u32>, out: Out<u32>) {
    let grid = this_grid();
    let g = grid.thread_rank();
    let b = grid.block_rank();
    let blocks = grid.num_blocks();
    let first = this_thread_block().thread_rank() == 0;
    for r in 0..2usize {
        if first {
            stage.write(
                r * blocks + b,
                100 * b as u32 + 10 * r as u32 + cluster.block_rank(),
            );
        }
        let arrival = cluster.barrier_arrive();
        let base = b - cluster.block_rank() as usize;
        let partner = base + (cluster.block_rank() as usize + 1) % cluster.num_blocks() as usize;
        cluster.barrier_wait(arrival);
        out.write(2 * g + r, stage.read(r * blocks + partner));
    }
}

/// [`cluster_split_rounds`] for a cooperative launch's grid: in round `r`
/// each block's first thread writes `100 * b + 10 * r` into
/// `stage[r * blocks + b]`; after the grid's split barrier every thread
/// reads the next block's into `out[2 g + r]`.
#[kernel(cooperative)]
pub fn grid_split_rounds(grid: CooperativeGrid, stage: Out<u32>, out: Out<u32>) {
    let g = grid.thread_rank();
    let b = grid.block_rank();
    let blocks = grid.num_blocks();
    let first = this_thread_block().thread_rank() == 0;
    for r in 0..2usize {
        if first {
            stage.write(r * blocks + b, 100 * b as u32 + 10 * r as u32);
        }
        let arrival = grid.barrier_arrive();
        let partner = (b + 1) % blocks;
        grid.barrier_wait(arrival);
        out.write(2 * g + r, stage.read(r * blocks + partner));
    }
}
