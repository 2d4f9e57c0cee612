//! A block's tile stored from registers into an [`Out`] (CUB's
//! `BlockStore`), guarded: elements past the output's end are not stored,
//! so a partial last tile needs no special case.

use super::exchange::blocked_to_striped;
use super::items::for_items;
use crate::memory::shared::{Published, SharedArray, SharedElem, TileScratch};
use crate::{Out, ThreadBlock};

/// Stores `value` at `first + at`, if that is inside `out`.
#[inline(always)]
#[track_caller]
fn element<T: Copy>(out: &Out<'_, T>, first: usize, at: usize, value: T) {
    if let Some(e) = first.checked_add(at) {
        if e < out.len() {
            out.write(e, value);
        }
    }
}

/// Stores the blocked tile at `out[first..]`: thread `t`'s item `i` goes
/// to `first + t × ITEMS + i`, where that is inside `out`.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// #[kernel]
/// pub fn runs(block: ThreadBlock, out: Out<u32>) {
///     let t = block.thread_rank();
///     block::store_blocked(&block, [t; 3], &out, 0);
/// }
///
/// let mut out = vec![0u32; 90]; // 32 threads × 3 would be 96: the last 6 are not stored
/// coop_host::Cpu::new().launch(runs, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
/// assert_eq!(out[..7], [0, 0, 0, 1, 1, 1, 2]);
/// assert_eq!(out[89], 29);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockStore")]
#[doc(alias = "StoreDirectBlocked")]
pub fn store_blocked<T: Copy, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    out: &Out<'_, T>,
    first: usize,
) {
    let t = block.thread_rank() as usize;
    for_items!(i < ITEMS => {
        element(out, first, t * ITEMS + i, items[i]);
    });
}

/// Stores the striped tile at `out[first..]`: thread `t`'s item `i` goes
/// to `first + i × threads + t`, where that is inside `out`. Consecutive
/// threads store consecutive elements (coalesced).
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// #[kernel]
/// pub fn stripes(block: ThreadBlock, out: Out<u32>) {
///     let t = block.thread_rank();
///     block::store_striped(&block, [t, 100 + t], &out, 0);
/// }
///
/// let mut out = vec![0u32; 64];
/// coop_host::Cpu::new().launch(stripes, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
/// assert_eq!(out[..2], [0, 1]);
/// assert_eq!(out[32..34], [100, 101]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockStore")]
#[doc(alias = "StoreDirectStriped")]
pub fn store_striped<T: Copy, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    out: &Out<'_, T>,
    first: usize,
) {
    let t = block.thread_rank() as usize;
    let threads = block.num_threads() as usize;
    for_items!(i < ITEMS => {
        element(out, first, i * threads + t, items[i]);
    });
}

/// Stores the warp-striped tile at `out[first..]`: warp `w`'s lane `l`
/// item `i` to `out[first + w × 32 × ITEMS + i × 32 + l]`, nothing past
/// the end of `out`. A warp's stores are consecutive (coalesced), with no
/// exchange. Blocks of whole warps.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// #[kernel]
/// pub fn lanes(block: ThreadBlock, out: Out<u32>) {
///     let t = block.thread_rank();
///     block::store_warp_striped(&block, [t, 1000 + t], &out, 0);
/// }
///
/// let mut out = vec![0u32; 128];
/// coop_host::Cpu::new().launch(lanes, coop_host::LaunchConfig::new(1, 64), (&mut out,))?;
/// assert_eq!(out[30..34], [30, 31, 1000, 1001]);
/// assert_eq!(out[64..66], [32, 33]); // warp 1
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockStore")]
#[doc(alias = "BLOCK_STORE_WARP_TRANSPOSE")]
pub fn store_warp_striped<T: Copy, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    out: &Out<'_, T>,
    first: usize,
) {
    let t = block.thread_rank() as usize;
    for_items!(i < ITEMS => {
        element(out, first, (t & !31) * ITEMS + i * 32 + (t & 31), items[i]);
    });
}

/// Stores the blocked tile at `out[first..]` with coalesced stores:
/// [`blocked_to_striped`] through `scratch` (at least `threads × ITEMS`
/// elements; see [`TileScratch`]), then [`store_striped`]. Returns the
/// scratch, `Published`.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
/// use coop::shared::Shared;
///
/// /// Thread t writes its run 4t .. 4t + 4 of the output, coalesced.
/// #[kernel]
/// pub fn iota(block: ThreadBlock, out: Out<u32>, tile: Shared<[u32; 128]>) {
///     let t = block.thread_rank();
///     let run = [4 * t, 4 * t + 1, 4 * t + 2, 4 * t + 3];
///     let _ = block::store_transposed(&block, run, &out, 0, tile);
/// }
///
/// let mut out = vec![0u32; 128];
/// coop_host::Cpu::new().launch(iota, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
/// assert_eq!(out, (0..128).collect::<Vec<u32>>());
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockStore")]
#[doc(alias = "BLOCK_STORE_TRANSPOSE")]
pub fn store_transposed<T, A, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    out: &Out<'_, T>,
    first: usize,
    scratch: impl TileScratch<A>,
) -> Published<A>
where
    T: SharedElem,
    A: SharedArray<Elem = T> + ?Sized,
{
    let (striped, scratch) = blocked_to_striped(block, items, scratch);
    store_striped(block, striped, out, first);
    scratch
}
