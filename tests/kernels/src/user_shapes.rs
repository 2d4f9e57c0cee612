//! Kernels shaped the way users write them: a guarded load, one or two
//! block collectives, a guarded store. The guard (`i < len`) splits warps,
//! and the compiler is free to copy everything between the two guards into
//! both arms of the first one, barriers included (it did, and an aligned
//! barrier hung an H100). Every block collective is here, alone and in
//! back-to-back pairs, in three guard placements:
//!
//! * `*_both`: load and store guarded by `i < input.len()`;
//! * `*_before`: only the load guarded; the output has a pair of words for
//!   every thread of the grid;
//! * `*_after`: only the store guarded, by `2 i < out.len()`; the input has
//!   a word for every thread of the grid.
//!
//! Thread `i` (its rank in the grid) writes the two words its collective
//! returns to `out[2 i]` and `out[2 i + 1]`. `coop_tests::user_shapes` has
//! the host reference of each collective.

use coop::prelude::*;
use coop::shared::{ByRank, Shared};

/// The largest block, and the shared array every kernel here binds.
pub const MAX_BLOCK: usize = 1024;

/// What each kernel's collective computes from the calling thread's value,
/// `x`; the block's shared array `s` for the collectives that publish.
#[inline(always)]
fn collective(
    which: Collective,
    block: &ThreadBlock,
    x: u32,
    s: Shared<[u32; MAX_BLOCK]>,
) -> [u32; 2] {
    let t = block.thread_rank() as usize;
    let b = block.num_threads() as usize;
    match which {
        Collective::Sync => {
            block.sync();
            [x, !x]
        }
        Collective::Reduce => [reduce(block, x, op::Sum), 0],
        Collective::ReduceWide => {
            let r = reduce(block, x as u64 * 0x1_0000_0001, op::Sum);
            [r as u32, (r >> 32) as u32]
        }
        Collective::InclusiveScan => [inclusive_scan(block, x, op::Sum), 0],
        Collective::ExclusiveScan => [exclusive_scan(block, x, op::Sum), 0],
        Collective::Scans => [
            inclusive_scan(block, x, op::Sum),
            exclusive_scan(block, x, op::Sum),
        ],
        Collective::ReduceThenScan => {
            let m = reduce(block, x, op::Max);
            [m, exclusive_scan(block, x ^ m, op::Sum)]
        }
        Collective::Publish => {
            let mine = s.own(ByRank::new());
            mine.write(t, x);
            let all = mine.publish(block);
            [all.get((t + 1) % b), all.get(b - 1 - t)]
        }
        Collective::PublishTwice => {
            let mine = s.own(ByRank::new());
            mine.write(t, x);
            let all = mine.publish(block);
            let y = all.get((t + 1) % b);
            let mine = all.own(block, ByRank::new());
            mine.write(t, y.wrapping_mul(2).wrapping_add(1));
            let all = mine.publish(block);
            [y, all.get((t + 2) % b)]
        }
        Collective::PublishThenReduce => {
            let mine = s.own(ByRank::new());
            mine.write(t, x);
            let all = mine.publish(block);
            let y = all.get(b - 1 - t);
            [y, reduce(block, y, op::Min)]
        }
        Collective::SyncCount => [block.sync_count(x & 1 == 1), 0],
        Collective::SyncAll => [block.sync_all(x & 0xf != 0xf) as u32, 0],
        Collective::SyncAny => [block.sync_any(x & 0x3f == 0x21) as u32, 0],
        Collective::TileLaneMasks => {
            let tile = block.tiled_partition::<8>();
            let before = (tile.ballot(x & 1 == 1) & tile.lanemask_lt()).count_ones();
            let masks = tile.lanemask_ge() | (tile.lanemask_gt() << 8) | (tile.lanemask_le() << 16);
            [before, masks | (tile.lanemask_eq() << 24)]
        }
    }
}

/// The block collectives the kernels exercise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective {
    /// `block.sync()`: `[x, !x]`.
    Sync,
    /// `reduce(&block, x, Sum)` of `u32` (one `redux.sync` per warp):
    /// `[sum, 0]`.
    Reduce,
    /// `reduce` of the `u64` `x * (2^32 + 1)` (butterfly shuffles):
    /// `[low word, high word]`.
    ReduceWide,
    /// `inclusive_scan(&block, x, Sum)`: `[scan, 0]`.
    InclusiveScan,
    /// `exclusive_scan(&block, x, Sum)`: `[scan, 0]`.
    ExclusiveScan,
    /// Both scans back to back: `[inclusive, exclusive]`.
    Scans,
    /// `m = reduce(Max)`, then `exclusive_scan(x ^ m, Sum)`: `[m, scan]`.
    ReduceThenScan,
    /// `s[t] = x`, `publish`: `[s[(t + 1) % b], s[b - 1 - t]]`.
    Publish,
    /// `s[t] = x`, `publish`, `y = s[(t + 1) % b]`, `own`,
    /// `s[t] = 2 y + 1`, `publish`: `[y, s[(t + 2) % b]]`.
    PublishTwice,
    /// `s[t] = x`, `publish`, `y = s[b - 1 - t]`, `reduce(y, Min)`:
    /// `[y, min]`.
    PublishThenReduce,
    /// `block.sync_count(x odd)`: `[count, 0]`.
    SyncCount,
    /// `block.sync_all(x & 0xf != 0xf)`: `[all, 0]`.
    SyncAll,
    /// `block.sync_any(x & 0x3f == 0x21)`: `[any, 0]`.
    SyncAny,
    /// In a tile of 8: how many lanes before the caller have `x` odd
    /// (`ballot & lanemask_lt`), and the `ge | gt << 8 | le << 16 | eq << 24`
    /// masks.
    TileLaneMasks,
}

macro_rules! user_shaped {
    ($($which:ident: $both:ident, $before:ident, $after:ident;)*) => {$(
        /// Guarded load and store (see the module docs).
        #[kernel]
        pub fn $both(block: ThreadBlock, input: &[u32], out: Out<u32>, s: Shared<[u32; MAX_BLOCK]>) {
            let i = this_grid().thread_rank();
            let x = if i < input.len() { input[i] } else { 0 };
            let r = collective(Collective::$which, &block, x, s);
            if i < input.len() {
                out.write(2 * i, r[0]);
                out.write(2 * i + 1, r[1]);
            }
        }

        /// Guarded load only (see the module docs).
        #[kernel]
        pub fn $before(block: ThreadBlock, input: &[u32], out: Out<u32>, s: Shared<[u32; MAX_BLOCK]>) {
            let i = this_grid().thread_rank();
            let x = if i < input.len() { input[i] } else { 0 };
            let r = collective(Collective::$which, &block, x, s);
            out.write(2 * i, r[0]);
            out.write(2 * i + 1, r[1]);
        }

        /// Guarded store only (see the module docs).
        #[kernel]
        pub fn $after(block: ThreadBlock, input: &[u32], out: Out<u32>, s: Shared<[u32; MAX_BLOCK]>) {
            let i = this_grid().thread_rank();
            let r = collective(Collective::$which, &block, input[i], s);
            if 2 * i < out.len() {
                out.write(2 * i, r[0]);
                out.write(2 * i + 1, r[1]);
            }
        }
    )*};
}

user_shaped! {
    Sync: shape_sync_both, shape_sync_before, shape_sync_after;
    Reduce: shape_reduce_both, shape_reduce_before, shape_reduce_after;
    ReduceWide: shape_reduce_wide_both, shape_reduce_wide_before, shape_reduce_wide_after;
    InclusiveScan: shape_inclusive_scan_both, shape_inclusive_scan_before, shape_inclusive_scan_after;
    ExclusiveScan: shape_exclusive_scan_both, shape_exclusive_scan_before, shape_exclusive_scan_after;
    Scans: shape_scans_both, shape_scans_before, shape_scans_after;
    ReduceThenScan: shape_reduce_then_scan_both, shape_reduce_then_scan_before, shape_reduce_then_scan_after;
    Publish: shape_publish_both, shape_publish_before, shape_publish_after;
    PublishTwice: shape_publish_twice_both, shape_publish_twice_before, shape_publish_twice_after;
    PublishThenReduce: shape_publish_then_reduce_both, shape_publish_then_reduce_before, shape_publish_then_reduce_after;
    SyncCount: shape_sync_count_both, shape_sync_count_before, shape_sync_count_after;
    SyncAll: shape_sync_all_both, shape_sync_all_before, shape_sync_all_after;
    SyncAny: shape_sync_any_both, shape_sync_any_before, shape_sync_any_after;
    TileLaneMasks: shape_lane_masks_both, shape_lane_masks_before, shape_lane_masks_after;
}

/// The kernel that hung an H100, as its user wrote it: a per-block
/// inclusive and exclusive scan of `u32`, with a guarded load and a
/// guarded store.
#[kernel]
pub fn block_scans(block: ThreadBlock, input: &[u32], inclusive: Out<u32>, exclusive: Out<u32>) {
    let i = this_grid().thread_rank();
    let x = if i < input.len() { input[i] } else { 0 };
    let inc = inclusive_scan(&block, x, op::Sum);
    let exc = exclusive_scan(&block, x, op::Sum);
    if i < input.len() {
        inclusive.write(i, inc);
        exclusive.write(i, exc);
    }
}

/// Per block: `out[block]` = the sum of its elements of `input` (0 past the
/// end), the way CUDA's reductions write it: each warp's sum stored by its
/// leader in the warp's slot of a `TileLeaders::<32>` array, a barrier, then
/// the first warp adds the slots. 1-D blocks of whole warps.
#[kernel]
pub fn tile_leader_sums(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    partials: Shared<[u32; 32]>,
) {
    let warp = block.tiled_partition::<32>();
    let g = this_grid().thread_rank();
    let v = if g < input.len() { input[g] } else { 0 };
    let sum = reduce(&warp, v, op::Sum);
    let slots = partials.own(TileLeaders::<32>);
    if warp.thread_rank() == 0 {
        slots.set(sum);
    }
    let slots = slots.publish(&block);
    if warp.meta_group_rank() == 0 {
        let lane = warp.thread_rank() as usize;
        let v = if lane < warp.meta_group_size() as usize {
            slots.get(lane)
        } else {
            0
        };
        let total = reduce(&warp, v, op::Sum);
        if lane == 0 {
            out.write(this_grid().block_rank(), total);
        }
    }
}

/// Runs of 512 values summed by 128-thread tiles in a grid-stride loop:
/// each tile copies its run into its own row (`tile_row`, zeros past the
/// input), waits with the tile's barrier, reduces the row over the tile,
/// and its first thread writes `sums[run]`. Blocks of 128 to 1024 threads.
#[kernel]
pub fn tile_run_sums(
    block: ThreadBlock,
    input: &[u32],
    sums: Out<u32>,
    rows: Shared<[[u32; 512]; 8]>,
) {
    let tile = block.tiled_partition::<128>();
    let runs = input.len().div_ceil(512);
    let run = |k: usize| &input[(k * 512).min(input.len())..(k * 512 + 512).min(input.len())];
    let per_block = (block.num_threads() / 128) as usize;
    let stride = this_grid().num_blocks() * per_block;
    let mut k = this_grid().block_rank() * per_block + (block.thread_rank() / 128) as usize;
    if k >= runs {
        return;
    }
    let r = tile.thread_rank() as usize;
    let mut row = rows
        .tile_row(&block, &tile)
        .copy_async_filled(&tile, run(k))
        .wait(&tile);
    loop {
        let part = row
            .get(r)
            .wrapping_add(row.get(r + 128))
            .wrapping_add(row.get(r + 256))
            .wrapping_add(row.get(r + 384));
        let sum = reduce(&tile, part, op::Sum);
        if r == 0 {
            sums.write(k, sum);
        }
        k += stride;
        if k >= runs {
            break;
        }
        row = row.copy_async_filled(&tile, run(k)).wait(&tile);
    }
}

/// Per thread of rank `r` in a block of `n` (at most 1024): elements `2r`
/// and `2r + 1` of a shared array, owned under a user's map
/// (`coop::shared::ByFunction`), get `1000 b + 2r` and `1000 b + 2r + 1`
/// (`b` the block); after the barrier `out[g]` is element `(2r + 3) mod 2n`.
#[kernel]
pub fn owned_pairs(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 2048]>) {
    let map = coop::shared::ByFunction::new(|i, _| i as u32 / 2, |r, k, _| 2 * r as usize + k);
    let mine = buf.own(map);
    let r = block.thread_rank();
    let base = 1000 * this_grid().block_rank() as u32;
    mine.write_nth(0, base + 2 * r);
    mine.write_nth(1, base + 2 * r + 1);
    let all = mine.publish(&block);
    let n = 2 * block.num_threads() as usize;
    out.write(this_grid().thread_rank(), all.get((2 * r as usize + 3) % n));
}
