//! Reductions and scans over a whole block: per-warp results meet in the
//! block's scratch in shared memory.
//!
//! Layout of the scratch: slots for partial results in its first 1024 bytes,
//! word-major (word `j` of slot `i` is 32-bit word `stride * j + i`: 128
//! slots of up to two words, or 32 of up to eight), so that lanes reading
//! or writing consecutive slots touch consecutive banks; then the total, in
//! the next 32 bytes; then the warps' prefixes of a block scan (32 slots of
//! up to two words, stride 32), in the last 256. No collective writes the
//! total or the prefixes before its first barrier, so a slow thread can
//! still be reading the previous ones. Values move with
//! `st.shared`/`ld.shared` on the scratch's shared-window address: generic
//! loads and stores, which a plain pointer gives, are slower. A collective
//! that reads the partials' slots after its first barrier ends with a
//! second, which keeps the next block collective from overwriting slots
//! that slower warps are still reading.

use crate::backend::Site;
use crate::groups::scratch::{load, load4, store_if};
use crate::op::Operator;
use crate::{Shuffle, ThreadBlock};

/// Lanes per run in the first stage of a block reduction of values of at
/// most two words (three butterfly steps): each warp leaves one partial
/// result per run.
const RUN: u32 = 8;
/// Partial results per warp in that case: 4, which warp 0 reads as one
/// 16-byte vector per word.
const PER_WARP: u32 = 32 / RUN;
/// Slots for those partials (a multiple of 4: every run of 4 slots of every
/// word is 16-byte aligned).
const SMALL_SLOTS: u32 = 32 * PER_WARP;
/// Byte offset of the total: past the partials of either layout.
const TOTAL: u32 = 1024;
/// Slot of warp 0's prefix in a block scan of values of up to two words
/// (stride 32): past the total, in a region no collective writes before
/// its first barrier.
const PREFIXES: u32 = (TOTAL + 32) / 4;

// The partials of either layout fit below the total, and the total's 32
// bytes fit in the backend's scratch.
const _: () = assert!(SMALL_SLOTS * 2 * 4 <= TOTAL && 32 * 8 * 4 <= TOTAL);
const _: () = assert!(TOTAL as usize + 32 <= crate::backend::BLOCK_SCRATCH_BYTES);
const _: () = assert!((PREFIXES as usize + 64) * 4 <= crate::backend::BLOCK_SCRATCH_BYTES);

/// Two stages with a barrier after each, in one of three variants chosen
/// at compile time from the type and operator:
///
/// - **redux** (32-bit integer sum, min, max, and, or, xor): one
///   `redux.sync` reduces each warp; lane 0 stores the warp's result; after
///   the barrier every lane of warp 0 loads one warp's result (lanes past
///   the last warp select the identity) and one more `redux.sync` combines
///   them.
/// - **runs** (other values of one or two words): each warp combines runs
///   of 8 lanes (three butterfly steps, neighbours first, so each run's
///   result is its lanes in rank order) and the first lane of each run
///   stores it: 4 per warp, up to 128 in all. After the barrier lane `l` of
///   warp 0 loads partials `4l..4l + 4` (one 16-byte load per word), folds
///   them, and warp 0 combines its lanes in five steps, or two in blocks
///   of up to four warps (lanes past the last warp hold only the identity,
///   so the steps that would fold them in are skipped).
/// - **warps** (larger values): each warp reduces fully (five steps) so
///   that its one result fits the scratch; warp 0 combines them as above,
///   in two steps where there are at most four.
///
/// In all three, lane 0 stores the total and, after a second barrier,
/// every thread reads it. Warp 0's test goes through `vote.sync.all` so
/// that ptxas treats it as warp-uniform after the non-aligned barrier.
///
/// Performance: in a kernel that does little else, a block reduction's
/// time follows its instruction count, and most instructions are the first
/// stage's, executed by every warp; the runs variant stops that stage after
/// three steps of five at the cost of one load and three combines in warp
/// 0. Chapter 7 of the guide has the figures against CUB's `BlockReduce`
/// and the variants measured and dropped.
#[inline(always)]
pub(super) fn reduce<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    value: T,
    op: O,
    site: Site,
) -> T {
    if let Some(total) = reduce_into_warp0(block, value, op, "reduce", site) {
        store_if(block.thread_rank() == 0, 1, TOTAL / 4, total, site);
    }
    block.sync_named("reduce", site);
    // Written by warp 0 before the barrier; the next block collective writes
    // it only after its first barrier, which every reader must reach.
    load(1, TOTAL / 4, value, site)
}

/// The two stages of [`reduce`], up to its first barrier and warp 0's
/// combine: the total in lanes 0 to 3 of warp 0 at least (in all its
/// lanes where the block has more than four warps or the operator has a
/// `redux`), `None` in the other warps.
/// Without `reduce`'s second barrier, warp 0 may still be reading the
/// scratch when the others return, so no block collective may follow in
/// the same kernel.
#[inline(always)]
pub(crate) fn reduce_into_warp0<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    value: T,
    op: O,
    call: &'static str,
    site: Site,
) -> Option<T> {
    let warp = block.tiled_partition_at::<32>(site);
    let lane = warp.thread_rank_at(site);
    let w = warp.meta_group_rank();
    let warps = warp.meta_group_size();
    let small = op.redux().is_none() && T::WORDS <= 2;
    let stride = if small { SMALL_SLOTS } else { 32 };
    if small {
        let partial = super::warp::neighbours_first(&warp, value, op, RUN, site);
        store_if(
            lane.is_multiple_of(RUN),
            stride,
            w * PER_WARP + lane / RUN,
            partial,
            site,
        );
    } else {
        let partial = super::warp::reduce(&warp, value, op, site);
        store_if(lane == 0, stride, w, partial, site);
    }
    block.sync_named(call, site);
    // `w == 0` through `vote.sync.all`: the same value (a warp's threads
    // share `w`), but one that ptxas knows is the same in the whole warp,
    // so warp 0's stage needs no reconvergence point after it. After a
    // non-aligned barrier ptxas cannot assume a converged warp, and a plain
    // `w == 0` costs a reconvergence barrier (BSSY/BSYNC) around the stage.
    if warp.all_at(w == 0, site) {
        // Lane `l` takes what warp `l` wrote before the barrier: its 4
        // partials, or its one result.
        let mine = if small {
            if lane >= warps {
                op.identity()
            } else {
                let [a, b, c, d] = load4(stride, lane * PER_WARP, value, site);
                op.combine(op.combine(a, b), op.combine(c, d))
            }
        } else {
            // Every lane loads (slots 0..32 exist) and lanes past the last
            // warp take the identity instead: a select, not a branch around
            // the load that would split warp 0 just before its `redux.sync`
            // or butterfly (the runs variant above keeps its branch; both
            // choices are measured in chapter 7 of the guide).
            let v = load(stride, lane, value, site);
            if lane < warps { v } else { op.identity() }
        };
        // Only lanes `0..warps` hold partials: two steps for up to 4 warps.
        Some(super::warp::reduce_below(&warp, mine, op, warps, site))
    } else {
        None
    }
}

/// A block scan. Returns (inclusive, exclusive); `EXCLUSIVE` says whether
/// the caller uses the second (when it does not, no shuffle shifts the
/// warps' scans by one lane, and the second is a copy of the first).
///
/// For values of up to two words the block's threads form runs of `S`
/// consecutive threads, `S` 4 in blocks of 2 to 4 warps and 32 (a whole
/// warp) in the others: each run scans its values (`log2 S` shuffle
/// steps) and its last lane stores the run's total; after a barrier warp
/// 0 alone scans the runs' totals (at most 32) and stores what comes
/// before each run in the prefixes' region; after a second barrier every
/// thread loads its run's. That region is written only between a scan's
/// two barriers, so a slow thread still loading from it cannot meet the
/// next collective's first stores, and two barriers suffice. Larger
/// values take [`scan_by_warps`].
///
/// Performance: in a block of 4 warps, runs of 4 take 14 shuffle steps in
/// all (two in every warp, then warp 0's five and its shift) where runs
/// of a warp take 23 (five in every warp, then warp 0's two and its
/// shift), with the same eight on the longest path; on an H100 that made
/// 128-thread scans 6-14 % faster. The warp count picks the run length
/// once, a uniform branch (a block size declared to `#[kernel]` keeps one
/// path); in a kernel whose block size is known only at run time the
/// second path costs 64-thread blocks a few percent whichever path they
/// take, less with runs than without. Chapter 7 of the guide has the
/// figures against CUB's `BlockScan`.
#[inline(always)]
pub(super) fn scan<const EXCLUSIVE: bool, T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    value: T,
    op: O,
    call: &'static str,
    site: Site,
) -> (T, T) {
    if T::WORDS > 2 {
        return scan_by_warps(block, value, op, call, site);
    }
    let warp = block.tiled_partition_at::<32>(site);
    match warp.meta_group_size() {
        2..=4 => scan_in_runs::<EXCLUSIVE, 4, T, O>(block, &warp, value, op, call, site),
        _ => scan_in_runs::<EXCLUSIVE, 32, T, O>(block, &warp, value, op, call, site),
    }
}

/// The exclusive block scan of the device-wide kernels, whose block size
/// is chosen at launch (usually 256 threads or more): [`scan`] with runs
/// of a whole warp only, so that their code keeps one path.
#[inline(always)]
pub(crate) fn exclusive_scan_by_warps<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    value: T,
    op: O,
    site: Site,
) -> T {
    if T::WORDS > 2 {
        return scan_by_warps(block, value, op, "exclusive_scan", site).1;
    }
    let warp = block.tiled_partition_at::<32>(site);
    scan_in_runs::<true, 32, T, O>(block, &warp, value, op, "exclusive_scan", site).1
}

/// [`scan`] with runs of `S` threads (a power of two, at least the warp
/// count unless it is 32).
#[inline(always)]
fn scan_in_runs<const EXCLUSIVE: bool, const S: u32, T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    warp: &crate::TiledPartition<32>,
    value: T,
    op: O,
    call: &'static str,
    site: Site,
) -> (T, T) {
    let lane = warp.thread_rank_at(site);
    let w = warp.meta_group_rank();
    let in_run = lane % S;
    let inclusive = super::warp::inclusive_scan_in_runs::<S, T, O>(warp, value, op, site);
    let exclusive_in_run = if EXCLUSIVE {
        let within = warp.shfl_up_at(inclusive, 1, site);
        if in_run == 0 { op.identity() } else { within }
    } else {
        inclusive
    };
    // Run `r` of the block: 32 / S runs a warp.
    let run = w * (32 / S) + lane / S;
    store_if(in_run == S - 1, 32, run, inclusive, site);
    block.sync_named(call, site);
    // See `reduce_into_warp0` for why the test goes through a vote.
    if warp.all_at(w == 0, site) {
        let runs = warp.meta_group_size() * (32 / S);
        let totals = if S == 32 {
            // One run a warp: as many totals as warps.
            scan_of_warp_totals(warp, value, op, site)
        } else {
            // Written before the barrier by run `lane`'s last thread.
            let total = if lane < runs {
                load(32, lane, value, site)
            } else {
                op.identity()
            };
            super::warp::inclusive_scan(warp, total, op, site)
        };
        let shifted = warp.shfl_up_at(totals, 1, site);
        let before = if lane == 0 { op.identity() } else { shifted };
        store_if(lane < runs, 32, PREFIXES + lane, before, site);
    }
    block.sync_named(call, site);
    // Written by warp 0 between the barriers.
    let before_run = load(32, PREFIXES + run, value, site);
    (
        op.combine(before_run, inclusive),
        op.combine(before_run, exclusive_in_run),
    )
}

/// [`scan`] for values of more than two words: every warp scans its
/// values; the last lane of each stores the warp's total; after a barrier
/// each warp scans the totals to find what comes before it, and a second
/// barrier keeps the next collective from overwriting totals a slower
/// warp is still reading.
#[inline(always)]
fn scan_by_warps<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    value: T,
    op: O,
    call: &'static str,
    site: Site,
) -> (T, T) {
    let warp = block.tiled_partition_at::<32>(site);
    let lane = warp.thread_rank_at(site);
    let inclusive = super::warp::inclusive_scan(&warp, value, op, site);
    store_if(lane == 31, 32, warp.meta_group_rank(), inclusive, site);
    block.sync_named(call, site);
    // Lane w of `totals` holds warps 0..=w combined; this warp needs 0..w.
    let totals = scan_of_warp_totals(&warp, value, op, site);
    let w = warp.meta_group_rank();
    let before_warp = warp.shfl_at(totals, w.wrapping_sub(1) & 31, site);
    let before_warp = if w == 0 { op.identity() } else { before_warp };
    let within = warp.shfl_up_at(inclusive, 1, site);
    let exclusive_in_warp = if lane == 0 { op.identity() } else { within };
    block.sync_named(call, site);
    (
        op.combine(before_warp, inclusive),
        op.combine(before_warp, exclusive_in_warp),
    )
}

/// After the barrier that follows the warps' stores of their totals (slot
/// `w`, stride 32): lane `l` loads warp `l`'s total (lanes past the last
/// warp take the identity) and the warp scans them, so that lane `w` holds
/// warps `0..=w` combined. `like` gives the type its shape.
#[inline(always)]
fn scan_of_warp_totals<T: Shuffle, O: Operator<T>>(
    warp: &crate::TiledPartition<32>,
    like: T,
    op: O,
    site: Site,
) -> T {
    let lane = warp.thread_rank_at(site);
    let warps = warp.meta_group_size();
    let total = if lane < warps {
        // Written before the barrier by warp `lane`.
        load(32, lane, like, site)
    } else {
        op.identity()
    };
    super::warp::inclusive_scan_below(warp, total, op, warps, site)
}

/// [`scan`] whose block total, from one thread, goes through `update`
/// (an atomic's fetch), and whose results start from what it returns:
/// `prefix_of_warps` with the update as the prefix, so still two barriers.
/// Returns (inclusive, exclusive).
#[inline(always)]
pub(super) fn scan_update<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    value: T,
    op: O,
    update: impl FnOnce(T) -> T,
    site: Site,
) -> (T, T) {
    let warp = block.tiled_partition_at::<32>(site);
    let lane = warp.thread_rank_at(site);
    let inclusive = super::warp::inclusive_scan(&warp, value, op, site);
    let within = warp.shfl_up_at(inclusive, 1, site);
    let exclusive = if lane == 0 { op.identity() } else { within };
    let (before, _, _) = prefix_of_warps(
        block,
        &warp,
        inclusive,
        31,
        op,
        "scan_update",
        site,
        |warp, total| {
            if warp.thread_rank_at(site) == 0 {
                update(total)
            } else {
                op.identity()
            }
        },
    );
    (op.combine(before, inclusive), op.combine(before, exclusive))
}

/// The block's part of a tile of a device-wide scan, whose warps scanned
/// their values themselves: lane `from` of each warp holds the warp's
/// total in `warp_total`; `prefix` (called by warp 0, every lane, with the
/// block's total) gives what comes before the whole block. Returns, in
/// every lane, what comes before the warp (the prefix, then the totals of
/// the warps before it), the prefix, and the block's total (without it).
///
/// Two barriers: one before the warps' totals are read, one before the
/// prefix is. The prefix goes through the total's slot, which no
/// collective writes before its first barrier, so no second barrier is
/// needed before the next collective.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn prefix_of_warps<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    warp: &crate::TiledPartition<32>,
    warp_total: T,
    from: u32,
    op: O,
    call: &'static str,
    site: Site,
    prefix: impl FnOnce(&crate::TiledPartition<32>, T) -> T,
) -> (T, T, T) {
    let lane = warp.thread_rank_at(site);
    let w = warp.meta_group_rank();
    let warps = warp.meta_group_size();
    store_if(lane == from, 32, w, warp_total, site);
    block.sync_named(call, site);
    // Lane w of `totals` holds warps 0..=w combined; this warp needs 0..w.
    let totals = scan_of_warp_totals(warp, warp_total, op, site);
    let before_warp = warp.shfl_at(totals, w.wrapping_sub(1) & 31, site);
    let before_warp = if w == 0 { op.identity() } else { before_warp };
    let block_total = warp.shfl_at(totals, warps - 1, site);
    // See `reduce_into_warp0` for why the test goes through a vote.
    if warp.all_at(w == 0, site) {
        let p = prefix(warp, block_total);
        store_if(lane == 0, 1, TOTAL / 4, p, site);
    }
    block.sync_named(call, site);
    // Written by lane 0 of warp 0 before the barrier.
    let p = load(1, TOTAL / 4, warp_total, site);
    (op.combine(p, before_warp), p, block_total)
}

/// The first half of [`prefix_of_warps`], for a caller with work to do
/// between the halves: lane `from` of each warp holds the warp's total in
/// `warp_total`; returns, in every lane, the totals of the warps before
/// this one combined (the identity in warp 0) and the block's total. One
/// barrier, before the totals are read; they stay in the scratch's slots,
/// which the next collective writes only after a barrier of its own
/// ([`from_warp0`]'s, where one follows). (`prefix_of_warps` keeps its own
/// body: built from the halves, the scans' and selections' kernels came
/// out of ptxas with more spills.)
#[inline(always)]
pub(crate) fn warps_before<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    warp: &crate::TiledPartition<32>,
    warp_total: T,
    from: u32,
    op: O,
    call: &'static str,
    site: Site,
) -> (T, T) {
    let lane = warp.thread_rank_at(site);
    let w = warp.meta_group_rank();
    let warps = warp.meta_group_size();
    store_if(lane == from, 32, w, warp_total, site);
    block.sync_named(call, site);
    // Lane w of `totals` holds warps 0..=w combined; this warp needs 0..w.
    let totals = scan_of_warp_totals(warp, warp_total, op, site);
    let before_warp = warp.shfl_at(totals, w.wrapping_sub(1) & 31, site);
    let before_warp = if w == 0 { op.identity() } else { before_warp };
    let block_total = warp.shfl_at(totals, warps - 1, site);
    (before_warp, block_total)
}

/// What `value` (called by warp 0, every lane) gives lane 0 of warp 0,
/// in every thread of the block, after a barrier: the second half of
/// [`prefix_of_warps`]. The value goes through the total's slot, which no
/// collective writes before its first barrier; `like` is any value of the
/// type (what a load without a store would give).
#[inline(always)]
pub(crate) fn from_warp0<T: Shuffle>(
    block: &ThreadBlock,
    warp: &crate::TiledPartition<32>,
    value: impl FnOnce(&crate::TiledPartition<32>) -> T,
    like: T,
    call: &'static str,
    site: Site,
) -> T {
    let lane = warp.thread_rank_at(site);
    let w = warp.meta_group_rank();
    // See `reduce_into_warp0` for why the test goes through a vote.
    if warp.all_at(w == 0, site) {
        let p = value(warp);
        store_if(lane == 0, 1, TOTAL / 4, p, site);
    }
    block.sync_named(call, site);
    // Written by lane 0 of warp 0 before the barrier.
    load(1, TOTAL / 4, like, site)
}
