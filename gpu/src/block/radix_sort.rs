//! A block's tile of keys, or keys and values, sorted by their bits (CUB's
//! `BlockRadixSort` and `BlockRadixRank`).
//!
//! # How
//!
//! The tile is sorted [`RANK_BITS`] bits at a time, lowest digit first,
//! each pass stable. A pass ranks the keys by their digit, then moves
//! them, and their values, to their ranks through the scratch arrays.
//!
//! [`RadixSort`] keeps its keys *warp-striped* between passes (warp `w`
//! holds places `w × 32 × ITEMS ..`, lane `l` item `j` the place `j × 32 +
//! l` of those): one exchange at the start takes the blocked tile there,
//! and the last pass's keys come back blocked. In that arrangement a warp
//! ranks its keys item by item in their order: the lanes of one digit
//! find each other with one ballot a bit of the digit, lane `d` keeps the
//! warp's running count of digit `d`, and a key's rank in its warp is that
//! count (a shuffle) plus the lanes below it with its digit. The warps'
//! counts meet in the block's scratch, two 16-bit counts a word (one
//! barrier), and a warp scan over the 16 digits says where each starts: a
//! pass is two barriers, this one and its exchange's (CUB's
//! `BlockRadixRankMatch` ranks warp-striped keys the same way).
//!
//! [`radix_rank`] ranks a blocked tile in its own order, without a
//! scratch to move the keys through. It counts a thread's keys of each of
//! the 16 digits in 16-bit fields of 8 registers. One block-wide
//! exclusive scan of those 8 words (two barriers) gives each thread the
//! keys of each digit in the threads before it, and the block's total of
//! each digit, whose running sum says where each digit starts. A key's
//! rank is then the field of its digit (where the digit starts, plus its
//! keys in the threads before) plus the keys of its digit before it in
//! its own thread.
//!
//! The fields hold counts up to `2^16 - 1`, so a tile has fewer than
//! `2^16` keys (every block of at most 1024 threads × 32 items).

use super::exchange::{Tile, claim, put, shuffle_items, take};
use super::items::for_items;
use super::radix_key::{DESCENDING, RadixKey};
use crate::ThreadBlock;
use crate::backend::target::Target;
use crate::backend::{Faults, Site, WarpCollectives, site};
use crate::collectives::block::prefix_of_warps;
use crate::collectives::warp::inclusive_scan;
use crate::groups::scratch::{load, store_if};
use crate::memory::shared::{Published, SharedArray, SharedElem, TileScratch};
use crate::op::Operator;
use crate::op::Sum;

/// Bits of the digit one ranking sorts by: 4, sixteen digits.
pub const RANK_BITS: u32 = 4;

/// A thread's or block's counts of each of the 16 digits, in 16-bit
/// fields: digit `d` in bits `16 (d mod 2) ..` of word `d / 2`.
type Counts = [u32; 8];

/// Field-wise sums of [`Counts`] (no field carries into the next: every
/// count is below `2^16`).
#[derive(Clone, Copy)]
struct CountsSum;

impl Operator<Counts> for CountsSum {
    const COMMUTATIVE: bool = true;
    const SPECULATE: bool = true;
    #[inline(always)]
    fn combine(&self, a: Counts, b: Counts) -> Counts {
        core::array::from_fn(|k| a[k].wrapping_add(b[k]))
    }
    #[inline(always)]
    fn identity(&self) -> Counts {
        [0; 8]
    }
}

/// Field `d` of `counts` (a select over the 8 words: an array indexed by a
/// value that is not a constant would live in local memory).
#[inline(always)]
fn field(counts: &Counts, d: u32) -> u32 {
    let mut word = 0;
    for (k, &w) in counts.iter().enumerate() {
        if k as u32 == d / 2 {
            word = w;
        }
    }
    (word >> (16 * (d % 2))) & 0xffff
}

/// Adds one to field `d` of `counts`.
#[inline(always)]
fn bump(counts: &mut Counts, d: u32) {
    let one = 1u32 << (16 * (d % 2));
    for (k, w) in counts.iter_mut().enumerate() {
        if k as u32 == d / 2 {
            *w += one;
        }
    }
}

const SHORT_TILE: &core::ffi::CStr =
    c"coop::block: a radix ranking or sort takes fewer than 65536 keys a tile (threads × ITEMS)";
const BAD_DIGIT: &core::ffi::CStr =
    c"coop::block::radix_rank: the digit `shift .. shift + width` is not within the key's bits, or `width` is not 1 to RANK_BITS (4)";

/// The rank of each key of the blocked tile in the tile stably sorted by
/// the digit of bits `shift .. shift + width` (`width` 1 to
/// [`RANK_BITS`]) of its bits made to sort as its values do
/// ([`RadixKey`]), in descending order of the digit if `descending`:
/// keys of equal digits keep their order in the tile. The ranks are a
/// permutation of `0 .. threads × ITEMS`, for
/// [`scatter_to_blocked`](super::scatter_to_blocked) or
/// [`scatter_to_striped`](super::scatter_to_striped). Two barriers,
/// through the block's own scratch; blocks are whole warps and tiles have
/// fewer than `2^16` keys.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// /// Ranks by the lowest 4 bits.
/// #[kernel]
/// pub fn ranks(block: ThreadBlock, keys: &[u32], out: Out<u32>) {
///     let items: [u32; 2] = block::load_blocked(&block, keys, 0, 0);
///     let r = block::radix_rank(&block, items, 0, 4, false);
///     block::store_blocked(&block, r, &out, 0);
/// }
///
/// let keys: Vec<u32> = (0..64).map(|i| 63 - i).collect();
/// let mut out = vec![0u32; 64];
/// coop_host::Cpu::new().launch(ranks, coop_host::LaunchConfig::new(1, 32), (&keys[..], &mut out))?;
/// // Digits 15, 14, ..., 0 four times: the first key with digit 15 (63)
/// // comes after the 60 keys of lower digits.
/// assert_eq!(out[0], 60);
/// assert_eq!(out[15], 0); // 48: digit 0, the first of four
/// assert_eq!(out[63], 3); // 0: digit 0, the last of four
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockRadixRank")]
#[doc(alias = "RankKeys")]
pub fn radix_rank<K: RadixKey, const ITEMS: usize>(
    block: &ThreadBlock,
    keys: [K; ITEMS],
    shift: u32,
    width: u32,
    descending: bool,
) -> [u32; ITEMS] {
    let site = site!();
    if width == 0 || width > RANK_BITS || shift >= K::BITS || width > K::BITS - shift {
        Target::check_failed(BAD_DIGIT, site);
    }
    let control = if descending { DESCENDING } else { 0 };
    rank(
        block,
        &keys,
        shift,
        width,
        control,
        "block::radix_rank",
        site,
    )
}

#[inline(always)]
fn rank<K: RadixKey, const ITEMS: usize>(
    block: &ThreadBlock,
    keys: &[K; ITEMS],
    shift: u32,
    width: u32,
    control: u32,
    call: &'static str,
    site: Site,
) -> [u32; ITEMS] {
    if block.num_threads() as usize * ITEMS >= 1 << 16 {
        Target::check_failed(SHORT_TILE, site);
    }
    let mut counts: Counts = [0; 8];
    for_items!(i < ITEMS => {
        bump(&mut counts, keys[i].digit(shift, width, control));
    });
    let warp = block.tiled_partition_at::<32>(site);
    let inclusive = inclusive_scan(&warp, counts, CountsSum, site);
    // This warp's lanes before this one: its inclusive scan less its own
    // counts (taken now, so that the counts die before the barriers).
    let lanes_before: Counts = core::array::from_fn(|k| inclusive[k].wrapping_sub(counts[k]));
    let (warps_before, _, total) = prefix_of_warps(
        block,
        &warp,
        inclusive,
        31,
        CountsSum,
        call,
        site,
        |_, _| [0; 8],
    );
    // The keys of each digit in the threads before this one, plus where
    // each digit starts in the tile: the running sum of the block's totals
    // of the digits below it.
    let mut starts: Counts = core::array::from_fn(|k| warps_before[k] + lanes_before[k]);
    let mut running = 0u32;
    for d in 0..16u32 {
        let k = (d / 2) as usize;
        let s = 16 * (d % 2);
        starts[k] += running << s;
        running += (total[k] >> s) & 0xffff;
    }
    // Each key's rank: its digit's field, plus the keys of its digit
    // before it in this thread. Up to 16 items those are counted by
    // comparing digits pair by pair: moving the fields on key by key would
    // repeat the counting's increments, which the compiler then keeps in
    // registers across the barriers instead of computing them again.
    let mut digits = [0u32; ITEMS];
    for_items!(i < ITEMS => {
        digits[i] = keys[i].digit(shift, width, control);
    });
    let mut ranks = [0u32; ITEMS];
    if ITEMS <= 16 {
        for_items!(i < ITEMS => {
            let mut same = 0;
            for_items!(j < i => {
                same += u32::from(digits[j] == digits[i]);
            });
            ranks[i] = field(&starts, digits[i]) + same;
        });
    } else {
        for_items!(i < ITEMS => {
            ranks[i] = field(&starts, digits[i]);
            bump(&mut starts, digits[i]);
        });
    }
    ranks
}

/// Place of item `i` blocked.
#[inline(always)]
fn blocked<const ITEMS: usize>(tile: &Tile, i: usize) -> usize {
    tile.blocked(ITEMS, i)
}

/// Place of item `i` warp-striped.
#[inline(always)]
fn warp_striped<const ITEMS: usize>(tile: &Tile, i: usize) -> usize {
    tile.warp_striped(ITEMS, i)
}

/// Where a pass's keys come from: warp-striped between passes, blocked
/// after the last.
#[inline(always)]
fn arrangement<const ITEMS: usize>(tile: &Tile, i: usize, last: bool) -> usize {
    if last {
        tile.blocked(ITEMS, i)
    } else {
        tile.warp_striped(ITEMS, i)
    }
}

/// The sort's ranking: the rank of each key of the *warp-striped* tile
/// (warp `w`, lane `l`, item `j` at place `w × 32 × ITEMS + j × 32 + l`)
/// in the tile stably sorted by the digit of bits `shift .. shift +
/// width`. Item by item, the lanes find the lanes of their digit with one
/// ballot a bit; lane `d` (below 16) keeps the warp's running count of
/// digit `d`, which a key's rank in its warp starts from (a shuffle), plus
/// the lanes below it with its digit. The warps' counts meet in the
/// block's scratch (two 16-bit counts a word): one barrier, after which
/// lane `d` of each warp adds up digit `d` over the warps before and over
/// all, and a warp scan over the digits says where each digit starts.
/// The next block collective's writes of the scratch come after a
/// barrier of the sort's exchange, which every thread reaches after
/// these reads.
#[inline(always)]
fn rank_striped<K: RadixKey, const ITEMS: usize>(
    block: &ThreadBlock,
    keys: &[K; ITEMS],
    shift: u32,
    width: u32,
    control: u32,
    call: &'static str,
    site: Site,
) -> [u32; ITEMS] {
    if block.num_threads() as usize * ITEMS >= 1 << 16 {
        Target::check_failed(SHORT_TILE, site);
    }
    let warp = block.tiled_partition_at::<32>(site);
    let lane = warp.thread_rank_at(site);
    let w = warp.meta_group_rank();
    let warps = warp.meta_group_size();
    let below = (1u32 << lane) - 1;
    let counted = lane < 1 << width;
    let mut digits = [0u32; ITEMS];
    let mut ranks = [0u32; ITEMS];
    let mut running = 0u32;
    for_items!(j < ITEMS => {
        let d = keys[j].digit(shift, width, control);
        digits[j] = d;
        // Lanes whose digit is `d`, and lanes whose digit is this lane's
        // number (the count lane `d` keeps).
        let mut peers = u32::MAX;
        let mut of_lane = u32::MAX;
        for k in 0..RANK_BITS {
            if k < width {
                let bit = Target::vote_ballot(u32::MAX, (d >> k) & 1 != 0, site);
                peers &= if (d >> k) & 1 != 0 { bit } else { !bit };
                of_lane &= if (lane >> k) & 1 != 0 { bit } else { !bit };
            }
        }
        ranks[j] = warp.shfl_at(running, d, site) + (peers & below).count_ones();
        if counted {
            running += of_lane.count_ones();
        }
    });
    // Lane `d` of the first 8 stores digits `d` and `d + 8`.
    let high = warp.shfl_xor_at(running, 8, site);
    store_if(lane < 8, 1, w * 8 + lane, running | (high << 16), site);
    block.sync_named(call, site);
    let (mut before, mut total) = (0u32, 0u32);
    if counted {
        let half = 16 * (lane >> 3);
        let mut v = 0;
        while v < warps {
            // Written before the barrier by lane `lane mod 8` of warp `v`.
            let c = (load(1, v * 8 + (lane & 7), 0u32, site) >> half) & 0xffff;
            if v < w {
                before += c;
            }
            total += c;
            v += 1;
        }
    }
    let start = inclusive_scan(&warp, total, Sum, site) - total;
    let base = start + before;
    for_items!(j < ITEMS => {
        ranks[j] += warp.shfl_at(base, digits[j], site);
    });
    ranks
}

/// A block radix sort's order and bits: ascending or descending, over all
/// of a key's bits or a range `begin_bit..end_bit` of them (the keys'
/// bits made to sort as their values do; see [`RadixKey`]). Sorts are
/// stable: keys that are equal in the bits sorted keep their order in
/// the tile.
///
/// [`keys`](Self::keys) sorts a blocked tile of keys,
/// [`pairs`](Self::pairs) a tile of keys and the values that go with them;
/// both return the tile blocked, thread `t` holding places `t × ITEMS ..
/// (t + 1) × ITEMS` of the sorted tile. A pass a digit of [`RANK_BITS`]:
/// 8 for 32-bit keys, 16 for 64-bit ones, each of two barriers, after one
/// exchange of the tile into the passes' arrangement. Pad a
/// partial tile with keys that sort last (`u32::MAX` ascending, or
/// `f32::NAN`), and they stay past the valid ones.
///
/// ```
/// use coop::prelude::*;
/// use coop::block::{self, RadixSort};
/// use coop::shared::Shared;
///
/// /// Sorts each block's 256 scores, highest first, with their ids.
/// #[kernel]
/// pub fn rank_scores(
///     block: ThreadBlock,
///     scores: &[f32],
///     ids_out: Out<u32>,
///     scores_out: Out<f32>,
///     key_tile: Shared<[f32; 256]>,
///     id_tile: Shared<[u32; 256]>,
/// ) {
///     let t = block.thread_rank();
///     let first = block.group_index().x as usize * 256;
///     let keys: [f32; 4] = block::load_blocked(&block, scores, first, f32::NEG_INFINITY);
///     let base = first as u32 + 4 * t;
///     let ids = [base, base + 1, base + 2, base + 3];
///     let (keys, ids, _, _) = RadixSort::descending().pairs(&block, keys, ids, key_tile, id_tile);
///     block::store_blocked(&block, keys, &scores_out, first);
///     block::store_blocked(&block, ids, &ids_out, first);
/// }
///
/// let scores: Vec<f32> = (0..256).map(|i| ((i * 73) % 256) as f32 * 0.5).collect();
/// let (mut ids, mut sorted) = (vec![0u32; 256], vec![0f32; 256]);
/// coop_host::Cpu::new().launch(rank_scores, coop_host::LaunchConfig::new(1, 64), (&scores[..], &mut ids, &mut sorted))?;
/// assert_eq!(sorted[0], 127.5);
/// assert!(sorted.windows(2).all(|w| w[0] >= w[1]));
/// assert!(ids.iter().zip(&sorted).all(|(&i, &s)| scores[i as usize] == s));
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(alias = "BlockRadixSort")]
pub struct RadixSort {
    control: u32,
    bits: Option<(u32, u32)>,
    warp_striped: bool,
}

const BAD_BITS: &core::ffi::CStr =
    c"coop::block::RadixSort: the bit range `begin_bit..end_bit` is not within the key's bits (begin_bit <= end_bit <= the key's bits)";

impl RadixSort {
    /// Smallest key first.
    pub const fn ascending() -> Self {
        RadixSort {
            control: 0,
            bits: None,
            warp_striped: false,
        }
    }

    /// Largest key first.
    pub const fn descending() -> Self {
        RadixSort {
            control: DESCENDING,
            bits: None,
            warp_striped: false,
        }
    }

    /// Sorts by bits `begin_bit..end_bit` of the keys' bits made to sort
    /// as their values do (the lowest bit 0), instead of all of them; an
    /// empty range leaves the tile as it is. A range past the key's bits
    /// stops the kernel when it sorts.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::block::{self, RadixSort};
    /// use coop::shared::Shared;
    ///
    /// /// Orders the tile by the high byte only: equal high bytes keep
    /// /// their order.
    /// #[kernel]
    /// pub fn by_high_byte(block: ThreadBlock, keys: &[u16], out: Out<u16>, tile: Shared<[u16; 64]>) {
    ///     let items: [u16; 2] = block::load_blocked(&block, keys, 0, 0);
    ///     let (sorted, _) = RadixSort::ascending().bits(8, 16).keys(&block, items, tile);
    ///     block::store_blocked(&block, sorted, &out, 0);
    /// }
    ///
    /// let keys: Vec<u16> = (0..64).map(|i| ((64 - i) << 8 | i) as u16).collect();
    /// let mut out = vec![0u16; 64];
    /// coop_host::Cpu::new().launch(by_high_byte, coop_host::LaunchConfig::new(1, 32), (&keys[..], &mut out))?;
    /// assert_eq!(out[0], keys[63]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub const fn bits(self, begin_bit: u32, end_bit: u32) -> Self {
        RadixSort {
            bits: Some((begin_bit, end_bit)),
            ..self
        }
    }

    /// Takes the tile and gives it back *warp-striped* instead of blocked
    /// (warp `w` holds places `w × 32 × ITEMS ..`, lane `l` item `i` the
    /// place `i × 32 + l` of those): the arrangement the passes rank in,
    /// so the sort needs no exchange before its first pass and none after
    /// its last, and [`load_warp_striped`](super::load_warp_striped) and
    /// [`store_warp_striped`](super::store_warp_striped) move the tile
    /// to and from global memory coalesced without one either (CUB's
    /// `BLOCK_LOAD_WARP_TRANSPOSE` and `SortBlockedToStriped` do the
    /// same work with exchanges). Stability is in the warp-striped order
    /// of places.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::block::{self, RadixSort};
    /// use coop::shared::Shared;
    ///
    /// /// Each block sorts its 512 keys: no exchange but the passes'.
    /// #[kernel]
    /// pub fn sort_tiles(block: ThreadBlock, keys: &[u32], out: Out<u32>, tile: Shared<[u32; 512]>) {
    ///     let first = block.group_index().x as usize * 512;
    ///     let items: [u32; 4] = block::load_warp_striped(&block, keys, first, u32::MAX);
    ///     let (sorted, _) = RadixSort::ascending().warp_striped().keys(&block, items, tile);
    ///     block::store_warp_striped(&block, sorted, &out, first);
    /// }
    ///
    /// let keys: Vec<u32> = (0..700u32).map(|i| i.wrapping_mul(2654435761) >> 8).collect();
    /// let mut out = vec![0u32; 700];
    /// coop_host::Cpu::new().launch(sort_tiles, coop_host::LaunchConfig::new(2, 128), (&keys[..], &mut out))?;
    /// let mut first = keys[..512].to_vec();
    /// first.sort();
    /// assert_eq!(out[..512], first[..]);
    /// let mut rest = keys[512..].to_vec();
    /// rest.sort();
    /// assert_eq!(out[512..], rest[..]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[doc(alias = "SortBlockedToStriped")]
    pub const fn warp_striped(self) -> Self {
        RadixSort {
            warp_striped: true,
            ..self
        }
    }

    /// The blocked tile of keys, sorted, blocked; `scratch` is a
    /// [`TileScratch`] of at least `threads × ITEMS` keys, handed back
    /// `Published`. See [`RadixSort`] for the order and the cost.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::block::{self, RadixSort};
    /// use coop::shared::Shared;
    ///
    /// #[kernel]
    /// pub fn sort(block: ThreadBlock, keys: &[i64], out: Out<i64>, tile: Shared<[i64; 96]>) {
    ///     let items: [i64; 3] = block::load_blocked(&block, keys, 0, i64::MAX);
    ///     let (sorted, _) = RadixSort::ascending().keys(&block, items, tile);
    ///     block::store_blocked(&block, sorted, &out, 0);
    /// }
    ///
    /// let keys: Vec<i64> = (0..90).map(|i| (i * 7919 % 97) - 48).collect();
    /// let mut out = vec![0i64; 90];
    /// coop_host::Cpu::new().launch(sort, coop_host::LaunchConfig::new(1, 32), (&keys[..], &mut out))?;
    /// let mut expected = keys.clone();
    /// expected.sort();
    /// assert_eq!(out, expected);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "SortKeys")]
    pub fn keys<K, A, const ITEMS: usize>(
        self,
        block: &ThreadBlock,
        keys: [K; ITEMS],
        scratch: impl TileScratch<A>,
    ) -> ([K; ITEMS], Published<A>)
    where
        K: RadixKey,
        A: SharedArray<Elem = K> + ?Sized,
    {
        let site = site!();
        let call = "block::RadixSort::keys";
        let (begin, end) = self.range::<K>(site);
        let (raw, tile) = claim::<A, ITEMS>(block, scratch, call, site);
        let mut keys = keys;
        if begin < end {
            // Refuses a block of a partial warp before any exchange.
            let _ = block.tiled_partition_at::<32>(site);
            // Blocked to warp-striped, the order the passes rank in.
            keys = shuffle_items(
                block,
                &raw,
                &tile,
                keys,
                call,
                site,
                blocked::<ITEMS>,
                warp_striped::<ITEMS>,
            );
        }
        let mut shift = begin;
        while shift < end {
            let width = (end - shift).min(RANK_BITS);
            // The ranking's barrier also separates the previous pass's
            // reads of the scratch from this pass's writes.
            let ranks = rank_striped(block, &keys, shift, width, self.control, call, site);
            let last = shift + width == end && !self.warp_striped;
            keys = shuffle_items(
                block,
                &raw,
                &tile,
                keys,
                call,
                site,
                |_: &Tile, i| ranks[i] as usize,
                |tile: &Tile, i| arrangement::<ITEMS>(tile, i, last),
            );
            shift += width;
        }
        (keys, raw.handed_back())
    }

    /// The blocked tile of keys and their values (`values[i]` goes with
    /// `keys[i]`), sorted by the keys, blocked; `key_scratch` and
    /// `value_scratch` are [`TileScratch`]es of at least `threads × ITEMS`
    /// elements, handed back `Published`. See [`RadixSort`] for an example,
    /// the order and the cost.
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "SortPairs")]
    #[allow(clippy::type_complexity)]
    pub fn pairs<K, V, A, B, const ITEMS: usize>(
        self,
        block: &ThreadBlock,
        keys: [K; ITEMS],
        values: [V; ITEMS],
        key_scratch: impl TileScratch<A>,
        value_scratch: impl TileScratch<B>,
    ) -> ([K; ITEMS], [V; ITEMS], Published<A>, Published<B>)
    where
        K: RadixKey,
        V: SharedElem,
        A: SharedArray<Elem = K> + ?Sized,
        B: SharedArray<Elem = V> + ?Sized,
    {
        let site = site!();
        let call = "block::RadixSort::pairs";
        let (begin, end) = self.range::<K>(site);
        let (key_raw, tile) = claim::<A, ITEMS>(block, key_scratch, call, site);
        let (value_raw, _) = claim::<B, ITEMS>(block, value_scratch, call, site);
        let mut keys = keys;
        let mut values = values;
        if begin < end && !self.warp_striped {
            let _ = block.tiled_partition_at::<32>(site);
            for_items!(i < ITEMS => {
                put(&value_raw, &tile, tile.blocked(ITEMS, i), values[i], site);
            });
            keys = shuffle_items(
                block,
                &key_raw,
                &tile,
                keys,
                call,
                site,
                blocked::<ITEMS>,
                warp_striped::<ITEMS>,
            );
            for_items!(i < ITEMS => {
                values[i] = take(&value_raw, &tile, tile.warp_striped(ITEMS, i), site);
            });
        }
        let mut shift = begin;
        while shift < end {
            let width = (end - shift).min(RANK_BITS);
            let ranks = rank_striped(block, &keys, shift, width, self.control, call, site);
            let last = shift + width == end && !self.warp_striped;
            // The values move with the keys, behind the keys' barrier.
            // Ranks from `rank_striped` are a permutation of the tile's
            // places.
            let to = |_: &Tile, i: usize| ranks[i] as usize;
            for_items!(i < ITEMS => {
                put(&value_raw, &tile, to(&tile, i), values[i], site);
            });
            let from = |tile: &Tile, i: usize| arrangement::<ITEMS>(tile, i, last);
            keys = shuffle_items(block, &key_raw, &tile, keys, call, site, to, from);
            for_items!(i < ITEMS => {
                values[i] = take(&value_raw, &tile, from(&tile, i), site);
            });
            shift += width;
        }
        (keys, values, key_raw.handed_back(), value_raw.handed_back())
    }

    /// The bit range to sort, checked against the key's bits.
    #[inline(always)]
    fn range<K: RadixKey>(&self, site: Site) -> (u32, u32) {
        let (begin, end) = self.bits.unwrap_or((0, K::BITS));
        if begin > end || end > K::BITS {
            Target::check_failed(BAD_BITS, site);
        }
        (begin, end)
    }
}
