//! Dynamic groups of the GPU suite: a warp split by a predicate and by a
//! label, and every collective of the resulting groups.
//! `reference/collectives.cu` has the CUDA twin (`cg::binary_partition`,
//! `cg::labeled_partition`), and the test compares them bit for bit.

use coop::prelude::*;

/// Words [`partitions`] writes per thread.
pub const PARTITION_FIELDS: usize = 16;

/// Per thread `g`: `preds[g]` splits its warp in two, `labels[g]` into
/// one group per label; `out[16 g..16 g + 16]` holds, for the predicate's
/// group, its rank, size, the last rank's value, `shfl_up(2)`,
/// `shfl_down(3)`, a ballot, any, all, a sum (`redux`) and an inclusive
/// scan; for the label's group, its rank, size, `match_any`, a 64-bit sum
/// (shuffles), an exclusive scan (0 at rank 0) and whether `match_all`
/// found one value.
#[kernel]
pub fn partitions(
    block: ThreadBlock,
    values: &[u32],
    preds: &[u32],
    labels: &[u32],
    out: Out<u32>,
) {
    let g = this_grid().thread_rank();
    let v = values[g];
    let warp = block.tiled_partition::<32>();
    let bin = warp.binary_partition(preds[g] != 0);
    let last = bin.num_threads() - 1;
    let fields_bin = [
        bin.thread_rank(),
        bin.num_threads(),
        bin.shfl(v, last),
        bin.shfl_up(v, 2),
        bin.shfl_down(v, 3),
        bin.ballot(v.is_multiple_of(3)),
        bin.any(v.is_multiple_of(5)) as u32,
        bin.all(v.is_multiple_of(2)) as u32,
        reduce(&bin, v, op::Sum),
        inclusive_scan(&bin, v, op::Sum),
    ];
    let lab = warp.labeled_partition(labels[g]);
    let wide = reduce(&lab, v as u64 * 3, op::Sum);
    let before = exclusive_scan(&lab, v, op::Sum);
    let fields_lab = [
        lab.thread_rank(),
        lab.num_threads(),
        lab.match_any(v % 4),
        wide as u32 ^ (wide >> 32) as u32,
        if lab.thread_rank() == 0 { 0 } else { before },
        lab.match_all(v / 100).is_some() as u32,
    ];
    for (k, f) in fields_bin.iter().chain(&fields_lab).enumerate() {
        out.write(PARTITION_FIELDS * g + k, *f);
    }
}

/// Warp-aggregated compaction: each thread with an even value takes a slot
/// through its coalesced group's one atomic; `count[0]` ends as the number
/// of even values and `out[..count]` holds them in some order.
#[kernel]
pub fn compact_even(grid: Grid, input: &[u32], count: Out<u32>, out: Out<u32>) {
    let i = grid.thread_rank();
    if i < input.len() && input[i].is_multiple_of(2) {
        let group = coalesced_threads();
        let base = group.invoke_one_broadcast(|| count.atomic().fetch_add(0, group.num_threads()));
        out.write((base + group.thread_rank()) as usize, input[i]);
    }
}
