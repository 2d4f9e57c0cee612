//! NVIDIA's small cooperative-groups samples in coop, each kernel after
//! the sample's own: `warpAggregatedAtomicsCG` (a filter whose output
//! slots come from one atomic a coalesced group, and per-bucket counters
//! and maxima through `labeled_partition`), `binaryPartitionCG` (odd and
//! even values counted and summed by the two halves of a
//! `binary_partition`) and `reductionMultiBlockCG` (a sum in one
//! cooperative launch: blocks reduce, the grid syncs, one thread adds the
//! blocks' sums), the cooperative-groups kernels of `reduction` (kernel
//! 6, `cg_reduce` and `multi_warp_cg_reduce`: each block's sum of a
//! grid-stride share) and `simpleCooperativeGroups` (sums of thread ranks
//! over a block and over its tiles of 16).
//!
//! `examples/bench/cg_samples.cu` holds the samples' kernels with coop's
//! parameter words; `cg_samples_bench` times both sides.

use coop::prelude::*;
use coop::Group;

/// Threads a block of the warp-aggregated-atomics sample.
pub const AGGREGATE_THREADS: u32 = 512;

/// `warpAggregatedAtomicsCG`'s filter: every positive `src[i]` goes to
/// `dst`, at a slot that the lanes taking the branch together claim with
/// one atomic add on `count[0]`; the order within `dst` is unspecified.
#[kernel]
pub fn filter_arr(grid: Grid, dst: Out<i32>, count: Out<i32>, src: &[i32]) {
    let mut i = grid.thread_rank();
    while i < src.len() {
        if src[i] > 0 {
            let active = coalesced_threads();
            let first = active
                .invoke_one_broadcast(|| count.atomic().fetch_add(0, active.num_threads() as i32));
            dst.write((first + active.thread_rank() as i32) as usize, src[i]);
        }
        i += grid.num_threads();
    }
}

/// `warpAggregatedAtomicsCG`'s buckets: each `i` with `src[i] <
/// counters.len()` goes to `indices` at a slot of bucket `src[i]`, claimed
/// from `counters[src[i]]` once by each group of lanes with the same
/// bucket.
#[kernel]
pub fn map_to_buckets(grid: Grid, src: &[i32], indices: Out<i32>, counters: Out<i32>) {
    let mut i = grid.thread_rank();
    while i < src.len() {
        let bucket = src[i];
        if (bucket as usize) < counters.len() {
            let same = coalesced_threads().labeled_partition(bucket);
            let first = same.invoke_one_broadcast(|| {
                counters
                    .atomic()
                    .fetch_add(bucket as usize, same.num_threads() as i32)
            });
            indices.write((first + same.thread_rank() as i32) as usize, i as i32);
        }
        i += grid.num_threads();
    }
}

/// `warpAggregatedAtomicsCG`'s maxima: `maxima[b]` becomes the largest
/// `values[i]` with `src[i] == b`, one atomic max a group of lanes with
/// the same bucket.
#[kernel]
pub fn max_in_buckets(grid: Grid, src: &[i32], values: &[i32], maxima: Out<i32>) {
    let mut i = grid.thread_rank();
    while i < src.len() {
        let bucket = src[i];
        if (bucket as usize) < maxima.len() {
            let same = coalesced_threads().labeled_partition(bucket);
            let largest = reduce(&same, values[i], op::Max);
            same.invoke_one(|| maxima.atomic().max(bucket as usize, largest));
        }
        i += grid.num_threads();
    }
}

/// `binaryPartitionCG`: `odds[0]` counts the odd values of `input`,
/// `sums[0]` adds them and `sums[1]` adds the even ones, through each
/// warp's two `binary_partition` groups. `input.len()` must be a multiple
/// of 32 (every lane of a warp reaches the partition) and below 2^32.
///
/// As the sample, the grid-stride index is 32 bits (its `int`): the
/// grid's rank and size are computed once, and the loop needs no 64-bit
/// arithmetic. Like the sample's, it assumes a grid of fewer than 2^32
/// threads (the benchmark's is 264 blocks of 1024); a larger grid needs
/// the `usize` index of the other kernels here. The lengths of `odds` and `sums` are checked once, before
/// the loop, which then carries no bounds checks.
#[kernel]
pub fn odd_even_count_and_sum(grid: Grid, input: &[i32], odds: Out<i32>, sums: Out<i32>) {
    assert!(
        !odds.is_empty() && sums.len() >= 2,
        "odd_even_count_and_sum: `odds` needs 1 element and `sums` 2"
    );
    let n = u32::try_from(input.len())
        .expect("odd_even_count_and_sum: `input` has 2^32 elements or more");
    let stride = grid.num_threads() as u32;
    let warp = this_thread_block().tiled_partition::<32>();
    let mut i = grid.thread_rank() as u32;
    while i < n {
        let elem = input[i as usize];
        let side = warp.binary_partition(elem & 1 == 1);
        if elem & 1 == 1 {
            let sum = reduce(&side, elem, op::Sum);
            side.invoke_one(|| {
                odds.atomic().add(0, side.num_threads() as i32);
                sums.atomic().add(0, sum);
            });
        } else {
            let sum = reduce(&side, elem, op::Sum);
            side.invoke_one(|| sums.atomic().add(1, sum));
        }
        warp.sync();
        // Saturating: past `u32::MAX` the loop is over (`n` is below it).
        i = i.saturating_add(stride);
    }
}

/// `reductionMultiBlockCG`: the sum of `input` in one cooperative launch,
/// in `partial[0]`. Each thread adds its grid-stride share in `f64`, each
/// block reduces its threads' sums into `partial[block]`, and after the
/// grid sync the grid's first thread adds the blocks' sums.
///
/// Blocks of 1024 threads, one a multiprocessor (`max_threads = 1024,
/// min_blocks = 1`: up to 64 registers, of which the loads kept in flight
/// take 48); the grid is the blocks that fit at once.
#[kernel(cooperative, max_threads = 1024, min_blocks = 1)]
pub fn reduce_single_pass(grid: CooperativeGrid, input: &[f32], partial: Out<f32>) {
    reduce_body::<4>(grid, input, partial)
}

/// [`reduce_single_pass`] held to 32 registers so that two blocks of 1024
/// share a multiprocessor, the grid nvcc's registers give the CUDA sample;
/// two loads in flight a thread, which 32 registers hold.
#[kernel(cooperative, max_threads = 1024, min_blocks = 2)]
pub fn reduce_single_pass_dense(grid: CooperativeGrid, input: &[f32], partial: Out<f32>) {
    reduce_body::<2>(grid, input, partial)
}

#[inline(always)]
fn reduce_body<const LOADS: usize>(grid: CooperativeGrid, input: &[f32], partial: Out<f32>) {
    let block = this_thread_block();
    let (n, stride) = (input.len(), grid.num_threads());
    let mut acc = 0.0f64;
    let mut i = grid.thread_rank();
    // `LOADS` loads in flight before their additions, as nvcc's unrolled
    // loop has them (LLVM does not unroll a loop whose stride is known only
    // at run time); the additions keep their order.
    while i + (LOADS - 1) * stride < n {
        let loads: [f32; LOADS] = core::array::from_fn(|k| input[i + k * stride]);
        for v in loads {
            acc += v as f64;
        }
        i += LOADS * stride;
    }
    while i < n {
        acc += input[i] as f64;
        i += stride;
    }
    let total = reduce(&block, acc, op::Sum);
    if block.thread_rank() == 0 {
        partial.write(grid.block_rank(), total as f32);
    }
    grid.sync();
    if block.thread_rank() == 0 && grid.block_rank() == 0 {
        // Four blocks' sums in flight at a time, added in order.
        let blocks = grid.num_blocks();
        let mut sum = partial.read(0);
        let mut b = 1;
        while b + 3 < blocks {
            let quad = [
                partial.read(b),
                partial.read(b + 1),
                partial.read(b + 2),
                partial.read(b + 3),
            ];
            for v in quad {
                sum += v;
            }
            b += 4;
        }
        while b < blocks {
            sum += partial.read(b);
            b += 1;
        }
        partial.write(0, sum);
    }
}

/// `shfl_scan`'s block scan (`shfl_scan_test`), in place: `data[g]`
/// becomes the sum of its block's elements up to `g`, one `inclusive_scan`
/// over the block (the sample's warp scans, warp totals through shared
/// memory and the uniform add of the warp offsets are what that call
/// does); the block's last thread writes the block's total to
/// `block_totals[block]` when `block_totals` has a slot for it.
#[kernel]
pub fn scan_blocks(block: ThreadBlock, data: InOut<i32>, block_totals: Out<i32>) {
    let g = this_grid().thread_rank();
    let value = inclusive_scan(&block, data.read(g), op::Sum);
    data.write(g, value);
    let b = this_grid().block_rank();
    if block.thread_rank() == block.num_threads() - 1 && b < block_totals.len() {
        block_totals.write(b, value);
    }
}

/// `shfl_scan`'s `uniform_add`: block `b` adds `block_offsets[b]` to the
/// elements of the block after it (`data[(b + 1) * threads + t]`), as the
/// sample launches it on `data + blockSize` with one block fewer than the
/// scan.
#[kernel]
pub fn uniform_add(block: ThreadBlock, data: InOut<i32>, block_offsets: &[i32]) {
    let b = this_grid().block_rank();
    let id = (b + 1) * block.num_threads() as usize + block.thread_rank() as usize;
    if id < data.len() {
        data.write(id, data.read(id) + block_offsets[b]);
    }
}

/// Threads a block of the `reduction` sample's kernels below (the
/// sample's default block).
pub const REDUCTION_THREADS: u32 = 256;

/// The grid-stride share of the `reduction` sample's kernel 6 for a
/// power-of-two length: two elements a pass, a block's width apart,
/// striding by twice the grid.
#[inline(always)]
fn paired_share(input: &[i32], block: &ThreadBlock) -> i32 {
    let grid = this_grid();
    let width = block.num_threads() as usize;
    let n = input.len();
    let mut sum = 0i32;
    let mut i = grid.block_rank() * 2 * width + block.thread_rank() as usize;
    while i < n {
        sum += input[i];
        if i + width < n {
            sum += input[i + width];
        }
        i += 2 * width * grid.num_blocks();
    }
    sum
}

/// `reduction`'s kernel 6 (`reduce6`, blocks of 256, a power-of-two
/// length): `partial[block]` = the block's sum of its grid-stride share
/// of `input`, two elements a pass. The sample's shared-memory tree and
/// its last warp's shuffles are one block `reduce` here.
#[kernel(block = 256)]
pub fn reduce6(block: ThreadBlock, input: &[i32], partial: Out<i32>) {
    let sum = reduce(&block, paired_share(input, &block), op::Sum);
    if block.thread_rank() == 0 {
        partial.write(this_grid().block_rank(), sum);
    }
}

/// `reduction`'s `cg_reduce` (kernel 8, any block size):
/// `partial[block]` = the block's sum of its grid-stride share of
/// `input`, one element a pass. The sample halves the block through
/// shared memory down to one warp and ends with `cg::reduce` on it; a
/// block `reduce` does both here.
#[kernel]
pub fn cg_reduce(block: ThreadBlock, input: &[i32], partial: Out<i32>) {
    let grid = this_grid();
    let mut sum = 0i32;
    let mut i = grid.thread_rank();
    while i < input.len() {
        sum += input[i];
        i += grid.num_threads();
    }
    let sum = reduce(&block, sum, op::Sum);
    if block.thread_rank() == 0 {
        partial.write(grid.block_rank(), sum);
    }
}

/// `reduction`'s `multi_warp_cg_reduce` (kernel 9, blocks of 256 in two
/// tiles of 128): each tile reduces its threads' shares (as
/// [`reduce6`] takes them) with one `reduce` over the multi-warp tile, its
/// leader stores the tile's sum in the tile's slot of `tile_sums`, and
/// after the block's barrier thread 0 adds the slots into
/// `partial[block]`.
#[kernel(block = 256)]
pub fn multi_warp_cg_reduce(
    block: ThreadBlock,
    input: &[i32],
    partial: Out<i32>,
    tile_sums: Shared<[i32; 2]>,
) {
    let half = block.tiled_partition::<128>();
    let sum = reduce(&half, paired_share(input, &block), op::Sum);
    let slots = tile_sums.own(TileLeaders::<128>);
    if half.thread_rank() == 0 {
        slots.set(sum); // slot `half.meta_group_rank()`
    }
    let slots = slots.publish(&block);
    if block.thread_rank() == 0 {
        let total = (0..half.meta_group_size() as usize)
            .map(|t| slots.get(t))
            .sum();
        partial.write(this_grid().block_rank(), total);
    }
}

/// `simpleCooperativeGroups`' `sumReduction`: the sum of every thread's
/// `value` over any group, for the group's thread of rank 0 (the sample
/// returns -1 to the others).
#[inline(always)]
fn sum_reduction<G: Group>(group: &G, value: i32) -> i32 {
    let sum = reduce(group, value, op::Sum);
    if group.thread_rank() == 0 {
        sum
    } else {
        -1
    }
}

/// `simpleCooperativeGroups`' `cgkernel` (one block of 64 in the sample):
/// `sums[0]` = the sum of the block's thread ranks, `sums[1 + t]` = the
/// sum of the thread ranks within tile `t` of 16 (the sample prints them;
/// 2016 and 120 for its block).
#[kernel]
pub fn cg_kernel(block: ThreadBlock, sums: Out<i32>) {
    let total = sum_reduction(&block, block.thread_rank() as i32);
    if block.thread_rank() == 0 {
        sums.write(0, total);
    }
    let tile = block.tiled_partition::<16>();
    let total = sum_reduction(&tile, tile.thread_rank() as i32);
    if tile.thread_rank() == 0 {
        sums.write(1 + tile.meta_group_rank() as usize, total);
    }
}
