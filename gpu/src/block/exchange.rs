//! A tile rearranged between the blocked and striped arrangements, or
//! scattered by ranks, through a shared array (CUB's `BlockExchange`).
//!
//! Every call writes each thread's items to the scratch, waits at one
//! block barrier, and reads the items back in the other arrangement. Place
//! `p` of the tile is element `p ^ ((p / 32) mod 32)` of its row of 32
//! (when the tile is whole rows): a warp storing its blocked items, `ITEMS`
//! apart, and a warp reading consecutive places both touch 32 different
//! elements of a row's 32, so that 4-byte items meet no bank conflict for
//! power-of-two `ITEMS`.

use super::items::for_items;
use crate::ThreadBlock;
use crate::backend::target::Target;
use crate::backend::{Faults, SharedMemory, Site, site};
use crate::memory::shared::{Published, RawShared, SharedArray, SharedElem, TileScratch};

/// What a too-short scratch array is told.
const SHORT_SCRATCH: &core::ffi::CStr =
    c"coop::block: the scratch array has fewer elements than the block's threads × ITEMS";

/// The scratch, claimed after the barrier its phase needs, and the tile's
/// places: `threads × ITEMS`, checked to fit the array.
#[inline(always)]
pub(crate) fn claim<A, const ITEMS: usize>(
    block: &ThreadBlock,
    scratch: impl TileScratch<A>,
    call: &'static str,
    site: Site,
) -> (RawShared<A>, Tile)
where
    A: SharedArray + ?Sized,
{
    let raw = scratch.__claim(block, call, site);
    let threads = block.num_threads() as usize;
    let places = threads * ITEMS;
    if places > raw.len() {
        Target::check_failed(SHORT_SCRATCH, site);
    }
    let tile = Tile {
        thread: block.thread_rank() as usize,
        threads,
        whole_rows: places.is_multiple_of(32),
    };
    (raw, tile)
}

/// Where this thread's items sit in the tile.
#[derive(Clone, Copy)]
pub(crate) struct Tile {
    pub thread: usize,
    pub threads: usize,
    whole_rows: bool,
}

impl Tile {
    /// Place of item `i` in the blocked arrangement.
    #[inline(always)]
    pub fn blocked(&self, items: usize, i: usize) -> usize {
        self.thread * items + i
    }

    /// Place of item `i` in the striped arrangement.
    #[inline(always)]
    pub fn striped(&self, i: usize) -> usize {
        i * self.threads + self.thread
    }

    /// Place of item `i` in the warp-striped arrangement: warp `w` holds
    /// places `w × 32 × items ..`, striped over its lanes (lane `l` item
    /// `i` at `i × 32 + l` of those). Blocks of whole warps.
    #[inline(always)]
    pub fn warp_striped(&self, items: usize, i: usize) -> usize {
        (self.thread & !31) * items + i * 32 + (self.thread & 31)
    }

    /// The scratch element that holds place `p`.
    #[inline(always)]
    pub fn element(&self, p: usize) -> u32 {
        let p = p as u32;
        if self.whole_rows {
            (p & !31) | ((p ^ (p >> 5)) & 31)
        } else {
            p
        }
    }
}

#[inline(always)]
pub(crate) fn put<A, T>(raw: &RawShared<A>, tile: &Tile, place: usize, value: T, site: Site)
where
    A: SharedArray<Elem = T> + ?Sized,
    T: SharedElem,
{
    Target::shared_store(raw.region().base, tile.element(place), value, site);
}

#[inline(always)]
pub(crate) fn take<A, T>(raw: &RawShared<A>, tile: &Tile, place: usize, site: Site) -> T
where
    A: SharedArray<Elem = T> + ?Sized,
    T: SharedElem,
{
    Target::shared_load(raw.region().base, tile.element(place), site)
}

/// The blocked tile in the striped arrangement: thread `t`'s item `i`
/// becomes element `i × threads + t` of the tile. One barrier after the
/// scratch's own (if it is a `Published` view); returns the scratch
/// `Published`.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
/// use coop::shared::Shared;
///
/// #[kernel]
/// pub fn stripe(block: ThreadBlock, out: Out<u32>, tile: Shared<[u32; 128]>) {
///     let t = block.thread_rank();
///     // Thread t holds 4t, 4t + 1, 4t + 2, 4t + 3 (blocked).
///     let blocked = [4 * t, 4 * t + 1, 4 * t + 2, 4 * t + 3];
///     let (striped, _) = block::blocked_to_striped(&block, blocked, tile);
///     // Now it holds t, t + 32, t + 64, t + 96.
///     out.write_array(4 * t as usize, striped);
/// }
///
/// let mut out = vec![0u32; 128];
/// coop_host::Cpu::new().launch(stripe, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
/// assert_eq!(out[4..8], [1, 33, 65, 97]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockExchange")]
#[doc(alias = "BlockedToStriped")]
pub fn blocked_to_striped<T, A, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    scratch: impl TileScratch<A>,
) -> ([T; ITEMS], Published<A>)
where
    T: SharedElem,
    A: SharedArray<Elem = T> + ?Sized,
{
    exchange(
        block,
        items,
        scratch,
        "block::blocked_to_striped",
        site!(),
        |tile, i| tile.blocked(ITEMS, i),
        |tile, i| tile.striped(i),
    )
}

/// The striped tile in the blocked arrangement: thread `t` ends with
/// elements `t × ITEMS .. (t + 1) × ITEMS` of the tile. One barrier after
/// the scratch's own; returns the scratch `Published`.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
/// use coop::shared::Shared;
///
/// /// Coalesced loads, then each thread sums its 4 consecutive elements.
/// #[kernel]
/// pub fn quad_sums(block: ThreadBlock, input: &[u32], out: Out<u32>, tile: Shared<[u32; 256]>) {
///     let first = block.group_index().x as usize * 256;
///     let striped: [u32; 4] = block::load_striped(&block, input, first, 0);
///     let (mine, _) = block::striped_to_blocked(&block, striped, tile);
///     let t = block.thread_rank() as usize;
///     out.write(first / 4 + t, mine.iter().sum());
/// }
///
/// let input: Vec<u32> = (0..512).collect();
/// let mut out = vec![0u32; 128];
/// coop_host::Cpu::new().launch(quad_sums, coop_host::LaunchConfig::new(2, 64), (&input[..], &mut out))?;
/// assert_eq!(out[1], 4 + 5 + 6 + 7);
/// assert_eq!(out[64], 256 + 257 + 258 + 259);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockExchange")]
#[doc(alias = "StripedToBlocked")]
pub fn striped_to_blocked<T, A, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    scratch: impl TileScratch<A>,
) -> ([T; ITEMS], Published<A>)
where
    T: SharedElem,
    A: SharedArray<Elem = T> + ?Sized,
{
    exchange(
        block,
        items,
        scratch,
        "block::striped_to_blocked",
        site!(),
        |tile, i| tile.striped(i),
        |tile, i| tile.blocked(ITEMS, i),
    )
}

/// Item `i` of every thread goes to place `ranks[i]` of the tile, which
/// then comes back blocked: thread `t` ends with places `t × ITEMS ..
/// (t + 1) × ITEMS`. The ranks of the whole block are a permutation of
/// `0 .. threads × ITEMS` (as [`radix_rank`](super::radix_rank) gives):
/// a rank past the tile stops the kernel; on the CPU backend two items
/// ranked alike are a race and a place no item is ranked to is a read of
/// an element never written, each reported with this call's line. One
/// barrier after the scratch's own; returns the scratch `Published`.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
/// use coop::shared::Shared;
///
/// /// Reverses a tile of 64: item i of thread t goes to 63 - (2t + i).
/// #[kernel]
/// pub fn reverse(block: ThreadBlock, out: Out<u32>, tile: Shared<[u32; 64]>) {
///     let t = block.thread_rank();
///     let items = [2 * t, 2 * t + 1];
///     let ranks = [63 - 2 * t, 62 - 2 * t];
///     let (mine, _) = block::scatter_to_blocked(&block, items, ranks, tile);
///     out.write_array(2 * t as usize, mine);
/// }
///
/// let mut out = vec![0u32; 64];
/// coop_host::Cpu::new().launch(reverse, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
/// assert_eq!(out[..3], [63, 62, 61]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockExchange")]
#[doc(alias = "ScatterToBlocked")]
pub fn scatter_to_blocked<T, A, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    ranks: [u32; ITEMS],
    scratch: impl TileScratch<A>,
) -> ([T; ITEMS], Published<A>)
where
    T: SharedElem,
    A: SharedArray<Elem = T> + ?Sized,
{
    exchange(
        block,
        items,
        scratch,
        "block::scatter_to_blocked",
        site!(),
        ranked(&ranks, site!()),
        |tile, i| tile.blocked(ITEMS, i),
    )
}

/// [`scatter_to_blocked`], the tile coming back striped: thread `t` ends
/// with places `t`, `t + threads`, ... (ready for coalesced stores).
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
/// use coop::shared::Shared;
///
/// /// Each thread's two items swap places with the other half's.
/// #[kernel]
/// pub fn halves(block: ThreadBlock, out: Out<u32>, tile: Shared<[u32; 64]>) {
///     let t = block.thread_rank();
///     let items = [2 * t, 2 * t + 1];
///     let ranks = [(2 * t + 32) % 64, (2 * t + 33) % 64];
///     let (striped, _) = block::scatter_to_striped(&block, items, ranks, tile);
///     block::store_striped(&block, striped, &out, 0);
/// }
///
/// let mut out = vec![0u32; 64];
/// coop_host::Cpu::new().launch(halves, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
/// assert_eq!(out[..2], [32, 33]);
/// assert_eq!(out[32..34], [0, 1]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockExchange")]
#[doc(alias = "ScatterToStriped")]
pub fn scatter_to_striped<T, A, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    ranks: [u32; ITEMS],
    scratch: impl TileScratch<A>,
) -> ([T; ITEMS], Published<A>)
where
    T: SharedElem,
    A: SharedArray<Elem = T> + ?Sized,
{
    exchange(
        block,
        items,
        scratch,
        "block::scatter_to_striped",
        site!(),
        ranked(&ranks, site!()),
        |tile, i| tile.striped(i),
    )
}

/// Where item `i` goes by its rank; a rank past the tile stops the
/// kernel.
#[inline(always)]
pub(crate) fn ranked<const ITEMS: usize>(
    ranks: &[u32; ITEMS],
    site: Site,
) -> impl Fn(&Tile, usize) -> usize + '_ {
    move |tile, i| {
        let rank = ranks[i] as usize;
        if rank >= tile.threads * ITEMS {
            Target::check_failed(
                c"coop::block: a rank is past the tile (ranks are places 0 .. threads × ITEMS)",
                site,
            );
        }
        rank
    }
}

/// Claims the scratch, then [`shuffle_items`].
#[inline(always)]
fn exchange<T, A, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    scratch: impl TileScratch<A>,
    call: &'static str,
    site: Site,
    to: impl Fn(&Tile, usize) -> usize,
    from: impl Fn(&Tile, usize) -> usize,
) -> ([T; ITEMS], Published<A>)
where
    T: SharedElem,
    A: SharedArray<Elem = T> + ?Sized,
{
    let (raw, tile) = claim::<A, ITEMS>(block, scratch, call, site);
    let out = shuffle_items(block, &raw, &tile, items, call, site, to, from);
    (out, raw.handed_back())
}

/// Item `i` of each thread to place `to(i)` of the tile in the scratch,
/// one block barrier, and item `i` back from place `from(i)`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn shuffle_items<T, A, const ITEMS: usize>(
    block: &ThreadBlock,
    raw: &RawShared<A>,
    tile: &Tile,
    items: [T; ITEMS],
    call: &'static str,
    site: Site,
    to: impl Fn(&Tile, usize) -> usize,
    from: impl Fn(&Tile, usize) -> usize,
) -> [T; ITEMS]
where
    T: SharedElem,
    A: SharedArray<Elem = T> + ?Sized,
{
    for_items!(i < ITEMS => {
        put(raw, tile, to(tile, i), items[i], site);
    });
    block.sync_named(call, site);
    let mut out = items;
    for_items!(i < ITEMS => {
        out[i] = take(raw, tile, from(tile, i), site);
    });
    out
}
