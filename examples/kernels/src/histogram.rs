//! Atomics in practice: a 256-bin byte histogram (shared-memory atomics,
//! warp-aggregated) and stream compaction through one warp-aggregated
//! global counter.

use coop::prelude::*;
use coop::shared::{ByRank, Shared};

/// A 256-bin histogram of `input`, added to `hist` (which starts zeroed).
///
/// Each block counts into its own 256 bins in shared memory; a grid-stride
/// loop gives every thread its bytes. Within a warp, the lanes holding the
/// same byte agree on it with `match_any` and the lowest of them adds the
/// group's count, one atomic where there were as many as lanes (a skewed
/// input, where many lanes hold one value, is where this pays). At the end
/// each block adds its non-zero bins to `hist` with global atomics.
#[kernel]
pub fn histogram_256(block: ThreadBlock, input: &[u8], hist: Out<u32>, bins: Shared<[u32; 256]>) {
    let threads = block.num_threads() as usize;
    let zero = bins.own(ByRank::new());
    let mut n = 0;
    while zero.mine() + n * threads < 256 {
        zero.write_nth(n, 0);
        n += 1;
    }
    let bins = zero.atomics(&block);
    let warp = block.tiled_partition::<32>();
    let grid = this_grid();
    // Every lane of a warp runs the same number of rounds (the loop bound
    // is rounded up to whole warps), so that `match_any` sees them all.
    let stride = grid.num_threads();
    let rounds = input.len().div_ceil(stride);
    let mut i = grid.thread_rank();
    for _ in 0..rounds {
        // Lanes past the end match on 256, a value no byte has.
        let key = if i < input.len() {
            input[i] as u32
        } else {
            256
        };
        let same = warp.match_any(key);
        let leader = same.trailing_zeros();
        if key < 256 && warp.thread_rank() == leader {
            bins.add(key as usize, same.count_ones());
        }
        i += stride;
    }
    let bins = bins.publish(&block);
    let mut b = block.thread_rank() as usize;
    while b < 256 {
        let count = bins.get(b);
        if count > 0 {
            hist.atomic().add(b, count);
        }
        b += threads;
    }
}

/// Copies the elements of `input` that satisfy `keep` (here: odd values)
/// to the front of `out`, in no particular order, and their number to
/// `count[0]` (which starts at 0).
///
/// A warp's keeping lanes take their slots with one atomic: the lowest
/// of them adds the warp's count (`ballot`), and each lane's slot is the
/// warp's base plus the keeping lanes below it (`lanemask_lt`).
#[kernel]
pub fn compact_odd(block: ThreadBlock, input: &[u32], out: Out<u32>, count: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let grid = this_grid();
    let stride = grid.num_threads();
    let rounds = input.len().div_ceil(stride);
    let mut i = grid.thread_rank();
    for _ in 0..rounds {
        let keep = i < input.len() && input[i] % 2 == 1;
        let votes = warp.ballot(keep);
        if votes != 0 {
            let first = votes.trailing_zeros();
            let mut base = 0;
            if warp.thread_rank() == first {
                base = count.atomic().fetch_add(0, votes.count_ones());
            }
            let base = warp.shfl(base, first);
            if keep {
                let below = (votes & warp.lanemask_lt()).count_ones();
                out.write((base + below) as usize, input[i]);
            }
        }
        i += stride;
    }
}
