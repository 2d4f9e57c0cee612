//! A warp tile's items sorted in registers (the place of CUB's
//! `WarpMergeSort`): stable, by any strict order, over the first `valid`
//! places of `N × ITEMS`, held striped (member `r` holds places `r`, `r +
//! N`, `r + 2N`, ...).
//!
//! # How
//!
//! A bitonic sorting network in the form whose comparators all put the
//! item that goes first at the lower place (each merge's first step
//! compares place `p` with its mirror in the run, `p ^ (k - 1)`, the
//! others `p` with `p ^ j`). Every item carries its place, and ties in the
//! order go to the lower place, so the network sorts by a total order and
//! the result is stable; places from `valid` on go after every valid item,
//! in their order, so they end where they started.
//!
//! With striped places, `p ^ j` for `j < N` is the same item of another
//! member (a shuffle), and for `j ≥ N` another item of the same member (a
//! compare in registers). A member's items are rounded up to a power of
//! two: the places past `N × ITEMS` would go after every item, and a
//! comparator puts its first-going item at its lower place, so they never
//! move and their comparators are left out. Every item index is a
//! constant of the unrolled code, so the items stay in registers.

use crate::backend::target::Target;
use crate::backend::{Faults, Site, site};
use crate::block::items::for_items;
use crate::{Shuffle, TileSize, TiledPartition, ValidTileSize};

/// An item on its way through the network: its key, its value and the
/// place it started at.
#[derive(Clone, Copy)]
struct Item<K, V> {
    key: K,
    value: V,
    place: u32,
}

/// The order the network sorts by: `less` on the keys of valid places,
/// ties to the lower place, every valid place before every place from
/// `valid` on, and those by place.
#[inline(always)]
fn goes_first<K: Copy, V>(
    a: &Item<K, V>,
    b: &Item<K, V>,
    valid: u32,
    less: &impl Fn(K, K) -> bool,
) -> bool {
    let (a_valid, b_valid) = (a.place < valid, b.place < valid);
    if a_valid && b_valid {
        less(a.key, b.key) || (!less(b.key, a.key) && a.place < b.place)
    } else {
        a_valid || (!b_valid && a.place < b.place)
    }
}

/// The tile's members and the order, for the network's steps.
struct Network<'t, K, V, L, const N: u32>
where
    TileSize<N>: ValidTileSize,
{
    tile: &'t TiledPartition<N>,
    lane: u32,
    valid: u32,
    less: L,
    site: Site,
    _items: core::marker::PhantomData<(K, V)>,
}

impl<K, V, L, const N: u32> Network<'_, K, V, L, N>
where
    K: Shuffle,
    V: Shuffle,
    L: Fn(K, K) -> bool,
    TileSize<N>: ValidTileSize,
{
    /// Another member's item, `mask` lanes away.
    #[inline(always)]
    fn lane_item(&self, item: Item<K, V>, mask: u32) -> Item<K, V> {
        Item {
            key: self.tile.shfl_xor_at(item.key, mask, self.site),
            value: self.tile.shfl_xor_at(item.value, mask, self.site),
            place: self.tile.shfl_xor_at(item.place, mask, self.site),
        }
    }

    /// A comparator between this member's item and the same item of the
    /// member `mask` lanes away: each keeps the one its place gets. The
    /// two compare in the same order (lower place first), so they agree
    /// even for an order that is not strict.
    #[inline(always)]
    fn across(&self, mine: Item<K, V>, mask: u32) -> Item<K, V> {
        let theirs = self.lane_item(mine, mask);
        let lower = self.lane < (self.lane ^ mask);
        let (lo, hi) = if lower {
            (&mine, &theirs)
        } else {
            (&theirs, &mine)
        };
        // The lower place keeps the first-going item, the higher the
        // other: when `lo` goes first the pair is in order and both keep
        // their own; otherwise both take the other's.
        if goes_first(lo, hi, self.valid, &self.less) {
            mine
        } else {
            theirs
        }
    }

    /// A comparator between items `a < b` of this member.
    #[inline(always)]
    fn within(&self, items: &mut [Item<K, V>], a: usize, b: usize) {
        if !goes_first(&items[a], &items[b], self.valid, &self.less) {
            items.swap(a, b);
        }
    }

    /// The steps of every merge of runs no longer than `N` places, and the
    /// last steps (`j < N`) of a longer one: comparators across lanes
    /// only, item by item. With `merges`, every merge of runs up to `N`
    /// places; without, the steps `j = N / 2, ..., 1` of a longer one.
    #[inline(always)]
    fn lanes<const ITEMS: usize>(&self, items: &mut [Item<K, V>; ITEMS], merges: bool) {
        for_items!(i < ITEMS => {
            let mut item = items[i];
            if merges {
                let mut k = 2;
                while k <= N {
                    item = self.across(item, k - 1);
                    let mut j = k / 4;
                    while j > 0 {
                        item = self.across(item, j);
                        j /= 2;
                    }
                    k *= 2;
                }
            } else {
                let mut j = N / 2;
                while j > 0 {
                    item = self.across(item, j);
                    j /= 2;
                }
            }
            items[i] = item;
        });
    }

    /// A merge of runs of `m × N` places (`m` items a member, `m` a power
    /// of two from 2): the mirror step, the steps within members, then
    /// the steps across lanes.
    #[inline(always)]
    fn merge<const ITEMS: usize>(&self, items: &mut [Item<K, V>; ITEMS], m: usize) {
        // Place (i, lane) mirrors (i ^ (m - 1), lane ^ (N - 1)): item
        // `i < i ^ (m - 1)` is the lower place of its pair, the other the
        // higher. A partner past ITEMS is past every item: no step.
        let before = *items;
        for_items!(i < ITEMS => {
            let partner = i ^ (m - 1);
            if partner < ITEMS {
                let theirs = self.lane_item(before[partner], N - 1);
                let mine = before[i];
                items[i] = if i < partner {
                    if goes_first(&mine, &theirs, self.valid, &self.less) { mine } else { theirs }
                } else if goes_first(&theirs, &mine, self.valid, &self.less) {
                    mine
                } else {
                    theirs
                };
            }
        });
        for_distances(m, |d| {
            for_items!(i < ITEMS => {
                if i & d == 0 && (i | d) < ITEMS {
                    self.within(items, i, i | d);
                }
            });
        });
        self.lanes(items, false);
    }
}

/// `step(d)` for the item distances of a merge of `m` items a member:
/// `m / 4`, ..., 1, each a constant of its own call.
#[inline(always)]
fn for_distances(m: usize, mut step: impl FnMut(usize)) {
    macro_rules! distances {
        ($($d:literal)*) => {$(
            if $d * 4 <= m {
                step($d);
            }
        )*};
    }
    distances!(512 256 128 64 32 16 8 4 2 1);
}

/// The network over the tile's striped items.
#[inline(always)]
fn sort_striped<K, V, L, const N: u32, const ITEMS: usize>(
    tile: &TiledPartition<N>,
    keys: [K; ITEMS],
    values: [V; ITEMS],
    valid: usize,
    less: L,
    site: Site,
) -> ([K; ITEMS], [V; ITEMS])
where
    K: Shuffle,
    V: Shuffle,
    L: Fn(K, K) -> bool,
    TileSize<N>: ValidTileSize,
{
    if ITEMS > 1024 {
        Target::check_failed(c"coop::warp::sort: more than 1024 items a member", site);
    }
    let lane = tile.thread_rank_at(site);
    let places = N as usize * ITEMS;
    let net = Network {
        tile,
        lane,
        valid: valid.min(places) as u32,
        less,
        site,
        _items: core::marker::PhantomData,
    };
    let mut items: [Item<K, V>; ITEMS] = core::array::from_fn(|i| Item {
        key: keys[i],
        value: values[i],
        place: i as u32 * N + lane,
    });
    net.lanes(&mut items, true);
    let rounded = ITEMS.next_power_of_two();
    macro_rules! merges {
        ($($m:literal)*) => {$(
            if $m <= rounded {
                net.merge(&mut items, $m);
            }
        )*};
    }
    merges!(2 4 8 16 32 64 128 256 512 1024);
    (items.map(|x| x.key), items.map(|x| x.value))
}

/// The tile's keys sorted stably by `less` (a strict order: `less(a, b)`
/// when `a` goes before `b`), striped: member `r` holds places `r`, `r +
/// N`, `r + 2N`, ... of the tile's `N × ITEMS`, before and after. Only
/// the first `valid` places take part; the places from `valid` on keep
/// their items. Every member of the tile calls it, with the same `valid`.
///
/// Registers and shuffles only (no shared memory, no barrier): a bitonic
/// network whose items carry their places, `log2(P) × (log2(P) + 1) / 2`
/// steps for `P` the tile's places rounded up to a power of two; a step
/// with a distance below `N` is one shuffle of each item's key and place
/// (see the module's notes). It has CUB's `WarpMergeSort::StableSort`'s
/// results; its items are striped where CUB's are blocked, so that a tile
/// loads and stores them coalesced.
///
/// ```
/// use coop::prelude::*;
/// use coop::warp;
///
/// /// Each warp sorts its 160 keys (a partial last one too), descending.
/// #[kernel]
/// pub fn sort_warps(block: ThreadBlock, keys: &[i32], out: Out<i32>) {
///     let w = block.tiled_partition::<32>();
///     let first = (block.group_index().x * w.meta_group_size() + w.meta_group_rank()) as usize * 160;
///     let lane = w.thread_rank() as usize;
///     let items: [i32; 5] = core::array::from_fn(|i| keys.get(first + i * 32 + lane).copied().unwrap_or(0));
///     let valid = keys.len().saturating_sub(first);
///     let sorted = warp::sort(&w, items, valid, |a: i32, b: i32| a > b);
///     for (i, key) in sorted.into_iter().enumerate() {
///         if first + i * 32 + lane < keys.len() {
///             out.write(first + i * 32 + lane, key);
///         }
///     }
/// }
///
/// let keys: Vec<i32> = (0..1000).map(|i| (i * 7919) % 1013 - 500).collect();
/// let mut out = vec![0i32; 1000];
/// coop_host::Cpu::new().launch(sort_warps, coop_host::LaunchConfig::new(2, 128), (&keys[..], &mut out))?;
/// for (tile, sorted) in keys.chunks(160).zip(out.chunks(160)) {
///     let mut expected = tile.to_vec();
///     expected.sort_by(|a, b| b.cmp(a));
///     assert_eq!(sorted, &expected[..]);
/// }
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "WarpMergeSort")]
#[doc(alias = "StableSort")]
pub fn sort<K, const N: u32, const ITEMS: usize>(
    tile: &TiledPartition<N>,
    keys: [K; ITEMS],
    valid: usize,
    less: impl Fn(K, K) -> bool,
) -> [K; ITEMS]
where
    K: Shuffle,
    TileSize<N>: ValidTileSize,
{
    sort_striped(tile, keys, [(); ITEMS], valid, less, site!()).0
}

/// [`sort`] of keys with values: `values[i]` goes with `keys[i]`, sorted
/// by the keys alone, stably (CUB's `WarpMergeSort::StableSort` of pairs).
/// Each step shuffles the values too.
///
/// ```
/// use coop::prelude::*;
/// use coop::warp;
///
/// /// Ids by ascending score in tiles of 8 lanes × 2, ties in id order.
/// #[kernel]
/// pub fn rank_ids(block: ThreadBlock, scores: &[f32], ids: Out<u32>) {
///     let tile = block.tiled_partition::<8>();
///     let first = tile.meta_group_rank() as usize * 16;
///     let r = tile.thread_rank() as usize;
///     let keys: [f32; 2] = core::array::from_fn(|i| scores[first + i * 8 + r]);
///     let who: [u32; 2] = core::array::from_fn(|i| (first + i * 8 + r) as u32);
///     let (_, who) = warp::sort_pairs(&tile, keys, who, 16, |a: f32, b: f32| a < b);
///     for i in 0..2 {
///         ids.write(first + i * 8 + r, who[i]);
///     }
/// }
///
/// let scores: Vec<f32> = (0..32).map(|i| ((i * 5) % 7) as f32 * 0.5).collect();
/// let mut ids = vec![0u32; 32];
/// coop_host::Cpu::new().launch(rank_ids, coop_host::LaunchConfig::new(1, 16), (&scores[..], &mut ids))?;
/// let mut expected: Vec<u32> = (0..16).collect();
/// expected.sort_by(|&a, &b| scores[a as usize].total_cmp(&scores[b as usize]));
/// assert_eq!(ids[..16], expected[..]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "WarpMergeSort")]
#[doc(alias = "StableSort")]
pub fn sort_pairs<K, V, const N: u32, const ITEMS: usize>(
    tile: &TiledPartition<N>,
    keys: [K; ITEMS],
    values: [V; ITEMS],
    valid: usize,
    less: impl Fn(K, K) -> bool,
) -> ([K; ITEMS], [V; ITEMS])
where
    K: Shuffle,
    V: Shuffle,
    TileSize<N>: ValidTileSize,
{
    sort_striped(tile, keys, values, valid, less, site!())
}
