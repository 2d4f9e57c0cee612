//! A group's tile sorted by merging (CUB's `BlockMergeSort` and
//! `WarpMergeSort`): stable, by any strict order, over `valid` items of
//! `members × ITEMS`, held blocked (member `r` holds places `r × ITEMS ..`).
//!
//! # How
//!
//! Each member first sorts its own items in registers (an odd-even
//! transposition network: `ITEMS` rounds of neighbour exchanges, stable
//! because equal neighbours never swap). Then runs of `ITEMS`, `2 ×
//! ITEMS`, ... items are merged pairwise until one run holds the tile: in
//! each round every member puts its items in the scratch, the group
//! synchronizes, and each member finds where its `ITEMS` outputs start in
//! the pair of runs it merges by a binary search along the diagonal of
//! the merge matrix (the *merge path*), then merges `ITEMS` items from
//! there, taking the first run's item on ties. Items past `valid` take no
//! part: the runs are cut at `valid`, so no fill value is needed.
//!
//! The pieces are written against a [`MergeScratch`] and a `sync`
//! closure, so that a warp (its lanes, `bar.warp.sync`) and a block (its
//! threads, `barrier.sync`) sort with the same code, and the device-wide
//! segmented sort merges runs in global memory with the same search and
//! merge.

use super::exchange::{Tile, claim, put, take};
use super::items::for_items;
use crate::backend::{Site, site};
use crate::memory::shared::{Published, RawShared, SharedArray, SharedElem, TileScratch};
use crate::{ThreadBlock, TiledPartition};

/// Where a group's members exchange items while they merge: place `p` of
/// the tile holds a key and its value.
pub(crate) trait MergeScratch<K, V> {
    /// Puts `key` and `value` at place `place`.
    fn put(&self, place: usize, key: K, value: V);
    /// The key at place `place`.
    fn key(&self, place: usize) -> K;
    /// The value at place `place` (`like`: any value of `V`).
    fn value(&self, place: usize, like: V) -> V;
}

/// Sorts a member's first `n` items in registers, stably: an odd-even
/// transposition network of `ITEMS` rounds, where item `i + 1` moves in
/// front of item `i` only when `less(item[i + 1], item[i])`.
#[inline(always)]
pub(crate) fn sort_items<K: Copy, V: Copy, const ITEMS: usize>(
    keys: &mut [K; ITEMS],
    values: &mut [V; ITEMS],
    n: usize,
    less: &impl Fn(K, K) -> bool,
) {
    for_items!(round < ITEMS => {
        for_items!(i < ITEMS - 1 => {
            if i % 2 == round % 2 {
                let (a, b) = (keys[i], keys[i + 1]);
                let swap = i + 1 < n && less(b, a);
                keys[i] = if swap { b } else { a };
                keys[i + 1] = if swap { a } else { b };
                let (x, y) = (values[i], values[i + 1]);
                values[i] = if swap { y } else { x };
                values[i + 1] = if swap { x } else { y };
            }
        });
    });
}

/// How many of the first `diag` items of the stable merge of run `A`
/// (`a_len` items, the `i`-th at `key(a + i)`) and run `B` (`b_len`
/// items from `b`) come from `A`: a binary search along the merge path.
#[inline(always)]
pub(crate) fn merge_path<K: Copy>(
    diag: usize,
    a: usize,
    a_len: usize,
    b: usize,
    b_len: usize,
    key: &impl Fn(usize) -> K,
    less: &impl Fn(K, K) -> bool,
) -> usize {
    let mut lo = diag.saturating_sub(b_len);
    let mut hi = if diag < a_len { diag } else { a_len };
    while lo < hi {
        let mid = (lo + hi) / 2;
        // `A[mid]` is among the first `diag` unless `B[diag - 1 - mid]`,
        // the `B` item it would follow, is strictly smaller.
        if less(key(b + diag - 1 - mid), key(a + mid)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// [`merge_path`] by the 32 lanes of `warp` together, each of which
/// returns the answer: every round the lanes test 32 points of the range
/// left at once (one ballot), so that the search takes `⌈log32⌉` rounds
/// of loads instead of `⌈log2⌉` loads one after another (the long
/// segments' merge passes search in global memory).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn merge_path_warp<K: Copy>(
    warp: &TiledPartition<32>,
    diag: usize,
    a: usize,
    a_len: usize,
    b: usize,
    b_len: usize,
    key: &impl Fn(usize) -> K,
    less: &impl Fn(K, K) -> bool,
    site: Site,
) -> usize {
    let lane = warp.thread_rank_at(site) as usize;
    let mut lo = diag.saturating_sub(b_len);
    let mut hi = if diag < a_len { diag } else { a_len };
    // `A[m]` is past the first `diag` exactly when `B[diag - 1 - m]` is
    // strictly smaller: false, then true, along `m`. The answer is the
    // first `m` in `lo .. hi` where it holds (`hi` if none).
    let past = |m: usize| less(key(b + diag - 1 - m), key(a + m));
    while lo < hi {
        let step = (hi - lo).div_ceil(32);
        // Lane `l` tests the last point of the `l`-th of 32 steps.
        let m = lo + (lane + 1) * step - 1;
        let found = warp.ballot(m >= hi || past(m));
        if found == 0 {
            lo = hi;
        } else {
            let f = found.trailing_zeros() as usize;
            // The answer is in the `f`-th step: past its start, and at or
            // before its last point (or `hi`).
            hi = (lo + (f + 1) * step - 1).min(hi);
            lo += f * step;
            if step == 1 {
                lo = hi;
            }
        }
    }
    lo
}

/// `ITEMS` items of the stable merge of `a .. a_end` and `b .. b_end`
/// (places read through `key`), from those starting points: the keys, and
/// the place each came from. Outputs past both runs' ends repeat the last
/// key and are not to be used.
#[inline(always)]
#[allow(unused_assignments)] // the last item's next keys, which its test skips
pub(crate) fn serial_merge<K: Copy, const ITEMS: usize>(
    mut a: usize,
    a_end: usize,
    mut b: usize,
    b_end: usize,
    like: K,
    key: &impl Fn(usize) -> K,
    less: &impl Fn(K, K) -> bool,
) -> ([K; ITEMS], [u32; ITEMS]) {
    let mut ka = if a < a_end { key(a) } else { like };
    let mut kb = if b < b_end { key(b) } else { like };
    let mut out = [like; ITEMS];
    let mut from = [0u32; ITEMS];
    for_items!(i < ITEMS => {
        let take_b = b < b_end && (a >= a_end || less(kb, ka));
        if take_b {
            out[i] = kb;
            from[i] = b as u32;
            b += 1;
            // (The last output needs no next key.)
            if i + 1 < ITEMS && b < b_end {
                kb = key(b);
            }
        } else {
            out[i] = ka;
            from[i] = a as u32;
            a += 1;
            if i + 1 < ITEMS && a < a_end {
                ka = key(a);
            }
        }
    });
    (out, from)
}

/// Sorts the group's tile of `valid` items (at most `members × ITEMS`),
/// stably by `less`, into registers: member `rank` holds places `rank ×
/// ITEMS ..` in `keys` and `values` when it returns (items at places past
/// `valid` are left as they are). `sync` is the group's barrier; the
/// scratch holds at least `members × ITEMS` places. The group's calls to
/// `sync` depend on `valid` (unless `uniform`), `members` and `runs`
/// alone. When it returns,
/// other members may still read the scratch: `sync` before putting
/// anything else there.
///
/// With `uniform` the rounds are as many as a whole tile takes whatever
/// `valid` is (groups of one warp that sort tiles of different lengths at
/// once call `sync` alike). With `runs` `None` the members hold the tile's
/// items blocked in `keys` and `values`, in any order. With `Some(split)` the scratch already
/// holds them (and every member has passed a `sync` since they were
/// put), as two sorted runs, places `0 .. split` and `split .. valid`,
/// which one step merges.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sort_tile<K: Copy, V: Copy, const ITEMS: usize>(
    rank: usize,
    members: usize,
    valid: usize,
    uniform: bool,
    runs: Option<usize>,
    keys: &mut [K; ITEMS],
    values: &mut [V; ITEMS],
    less: &impl Fn(K, K) -> bool,
    scratch: &impl MergeScratch<K, V>,
    sync: &impl Fn(),
) {
    let first = rank * ITEMS;
    let mine = if valid > first {
        (valid - first).min(ITEMS)
    } else {
        0
    };
    if runs.is_none() {
        sort_items(keys, values, mine, less);
    }
    let key = |p: usize| scratch.key(p);
    let mut width = ITEMS;
    let mut in_scratch = runs.is_some();
    loop {
        if !in_scratch {
            if (width >= valid && !uniform) || width >= members * ITEMS {
                break;
            }
            if width > ITEMS {
                // The last round's reads of the scratch are done. (Before
                // the first, each member has only read its own places.)
                sync();
            }
            for_items!(i < ITEMS => {
                if i < mine {
                    scratch.put(first + i, keys[i], values[i]);
                }
            });
            sync();
        }
        if mine > 0 {
            // This member's outputs are places `first ..` of the merge of
            // runs `pair .. a_end` and `a_end .. b_end`.
            let (pair, a_end, b_end) = match runs {
                Some(split) => (0, split, valid),
                None => {
                    let pair = first / (2 * width) * (2 * width);
                    (
                        pair,
                        (pair + width).min(valid),
                        (pair + 2 * width).min(valid),
                    )
                }
            };
            let diag = first - pair;
            let taken = merge_path(diag, pair, a_end - pair, a_end, b_end - a_end, &key, less);
            let (merged, from) = serial_merge::<K, ITEMS>(
                pair + taken,
                a_end,
                a_end + diag - taken,
                b_end,
                keys[0],
                &key,
                less,
            );
            *keys = merged;
            for_items!(i < ITEMS => {
                if i < mine {
                    values[i] = scratch.value(from[i] as usize, values[i]);
                }
            });
        }
        if runs.is_some() {
            break;
        }
        width *= 2;
        in_scratch = false;
    }
}

/// The scratch of [`merge_sort`] and [`merge_sort_pairs`]: the claimed
/// array of keys, and of values (`B` is `()` for keys alone), with the
/// tile's places.
struct Claimed<'r, A: SharedArray + ?Sized, B> {
    keys: &'r RawShared<A>,
    values: B,
    tile: Tile,
    site: Site,
}

impl<K, A> MergeScratch<K, ()> for Claimed<'_, A, ()>
where
    K: SharedElem,
    A: SharedArray<Elem = K> + ?Sized,
{
    #[inline(always)]
    fn put(&self, place: usize, key: K, _: ()) {
        put(self.keys, &self.tile, place, key, self.site);
    }

    #[inline(always)]
    fn key(&self, place: usize) -> K {
        take(self.keys, &self.tile, place, self.site)
    }

    #[inline(always)]
    fn value(&self, _: usize, _: ()) {}
}

impl<K, V, A, B> MergeScratch<K, V> for Claimed<'_, A, &RawShared<B>>
where
    K: SharedElem,
    V: SharedElem,
    A: SharedArray<Elem = K> + ?Sized,
    B: SharedArray<Elem = V> + ?Sized,
{
    #[inline(always)]
    fn put(&self, place: usize, key: K, value: V) {
        put(self.keys, &self.tile, place, key, self.site);
        put(self.values, &self.tile, place, value, self.site);
    }

    #[inline(always)]
    fn key(&self, place: usize) -> K {
        take(self.keys, &self.tile, place, self.site)
    }

    #[inline(always)]
    fn value(&self, place: usize, _: V) -> V {
        take(self.values, &self.tile, place, self.site)
    }
}

/// The block's blocked tile, its first `valid` items (at most `threads ×
/// ITEMS`) sorted stably by `less` (a strict order: `less(a, b)` when `a`
/// goes before `b`), blocked: thread `t` ends with places `t × ITEMS ..
/// (t + 1) × ITEMS` of the sorted tile. Items at places from `valid` on
/// take no part and are left as they are. `scratch` is a [`TileScratch`]
/// of at least `threads × ITEMS` items, handed back `Published` (CUB's
/// `BlockMergeSort::StableSort`).
///
/// Each thread sorts its items in registers (an odd-even transposition
/// network: equal neighbours never swap), then runs of `ITEMS`, `2 ×
/// ITEMS`, ... are merged pairwise through the scratch, each thread
/// finding where its outputs start by a binary search along its pair's
/// merge path: `log2(threads)` rounds of two barriers. Keys of any
/// `Copy` type and any order, where [`RadixSort`](super::RadixSort) takes
/// numbers in their own order; the device-wide segmented sort merges
/// warps' and lane groups' tiles with the same code
/// (`coop::device::segmented_sort`).
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
/// use coop::shared::Shared;
///
/// /// Each block sorts its tile of points by distance from the origin
/// /// (ties in their order), a partial last tile too.
/// #[kernel]
/// pub fn by_distance(block: ThreadBlock, xs: &[i32], out: Out<i32>, tile: Shared<[i32; 256]>) {
///     let first = block.group_index().x as usize * 256;
///     let items: [i32; 4] = block::load_blocked(&block, xs, first, 0);
///     let valid = xs.len().saturating_sub(first).min(256);
///     let (sorted, _) = block::merge_sort(&block, items, valid, |a: i32, b: i32| a.abs() < b.abs(), tile);
///     block::store_blocked(&block, sorted, &out, first);
/// }
///
/// let xs: Vec<i32> = (0..300).map(|i| (i * 37 % 101) - 50).collect();
/// let mut out = vec![0i32; 300];
/// coop_host::Cpu::new().launch(by_distance, coop_host::LaunchConfig::new(2, 64), (&xs[..], &mut out))?;
/// let mut first = xs[..256].to_vec();
/// first.sort_by_key(|x| x.abs()); // stable, as the merge sort is
/// assert_eq!(out[..256], first[..]);
/// let mut last = xs[256..].to_vec();
/// last.sort_by_key(|x| x.abs());
/// assert_eq!(out[256..], last[..]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockMergeSort")]
#[doc(alias = "StableSort")]
pub fn merge_sort<T, A, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    valid: usize,
    less: impl Fn(T, T) -> bool,
    scratch: impl TileScratch<A>,
) -> ([T; ITEMS], Published<A>)
where
    T: SharedElem,
    A: SharedArray<Elem = T> + ?Sized,
{
    let site = site!();
    let call = "block::merge_sort";
    let (raw, tile) = claim::<A, ITEMS>(block, scratch, call, site);
    let scratch = Claimed {
        keys: &raw,
        values: (),
        tile,
        site,
    };
    let mut keys = items;
    let mut values = [(); ITEMS];
    let valid = valid.min(tile.threads * ITEMS);
    sort_tile(
        tile.thread,
        tile.threads,
        valid,
        false,
        None,
        &mut keys,
        &mut values,
        &less,
        &scratch,
        &|| block.sync_named(call, site),
    );
    (keys, raw.handed_back())
}

/// [`merge_sort`] of keys with values: `values[i]` goes with `keys[i]`,
/// sorted by the keys alone; `key_scratch` and `value_scratch` are
/// [`TileScratch`]es of at least `threads × ITEMS` elements, handed back
/// `Published` (CUB's `BlockMergeSort::StableSort` of pairs).
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
/// use coop::shared::Shared;
///
/// /// Names (as ids) by descending score; equal scores in id order.
/// #[kernel]
/// pub fn leaderboard(block: ThreadBlock, scores: &[u16], ids: Out<u32>,
///                    keys: Shared<[u16; 128]>, values: Shared<[u32; 128]>) {
///     let t = block.thread_rank();
///     let items: [u16; 2] = block::load_blocked(&block, scores, 0, 0);
///     let who = [2 * t, 2 * t + 1];
///     let (_, who, _, _) = block::merge_sort_pairs(&block, items, who, scores.len(),
///         |a: u16, b: u16| a > b, keys, values);
///     block::store_blocked(&block, who, &ids, 0);
/// }
///
/// let scores = [30u16, 99, 30, 5, 99, 70];
/// let mut ids = vec![0u32; 6];
/// coop_host::Cpu::new().launch(leaderboard, coop_host::LaunchConfig::new(1, 64), (&scores[..], &mut ids))?;
/// assert_eq!(ids, [1, 4, 5, 0, 2, 3]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockMergeSort")]
#[allow(clippy::type_complexity)]
pub fn merge_sort_pairs<K, V, A, B, const ITEMS: usize>(
    block: &ThreadBlock,
    keys: [K; ITEMS],
    values: [V; ITEMS],
    valid: usize,
    less: impl Fn(K, K) -> bool,
    key_scratch: impl TileScratch<A>,
    value_scratch: impl TileScratch<B>,
) -> ([K; ITEMS], [V; ITEMS], Published<A>, Published<B>)
where
    K: SharedElem,
    V: SharedElem,
    A: SharedArray<Elem = K> + ?Sized,
    B: SharedArray<Elem = V> + ?Sized,
{
    let site = site!();
    let call = "block::merge_sort_pairs";
    let (key_raw, tile) = claim::<A, ITEMS>(block, key_scratch, call, site);
    let (value_raw, _) = claim::<B, ITEMS>(block, value_scratch, call, site);
    let scratch = Claimed {
        keys: &key_raw,
        values: &value_raw,
        tile,
        site,
    };
    let (mut keys, mut values) = (keys, values);
    let valid = valid.min(tile.threads * ITEMS);
    sort_tile(
        tile.thread,
        tile.threads,
        valid,
        false,
        None,
        &mut keys,
        &mut values,
        &less,
        &scratch,
        &|| block.sync_named(call, site),
    );
    (keys, values, key_raw.handed_back(), value_raw.handed_back())
}
