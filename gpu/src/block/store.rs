//! A block's tile stored from registers into an [`Out`] (CUB's
//! `BlockStore`), guarded: elements past the output's end are not stored,
//! so a partial last tile needs no special case.

use super::chunks::Words16;
use super::exchange::blocked_to_striped;
use super::items::for_items;
use super::load::vectorizes;
use crate::memory::shared::{Published, SharedArray, SharedElem, TileScratch};
use crate::{Out, Shuffle, ThreadBlock};

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

/// Stores the blocked tile at `out[first..]` as [`store_blocked`] does,
/// each thread's run written 16 bytes a store (`st.global.v4`, CUB's
/// `BLOCK_STORE_VECTORIZE`) where the run lies whole inside `out` at a
/// 16-byte aligned address and is a whole number of 16-byte chunks of
/// 4-, 8- or 16-byte elements (as for
/// [`load_vectorized`](super::load_vectorized)); element by element
/// otherwise, elements past `out`'s end not stored. On the CPU backend
/// every element counts as written by its thread, as with
/// [`store_blocked`]. The alignment is checked for each run at run time:
/// any `first` and any sub-view of a buffer are fine (CUB's vectorized
/// store of a full tile takes the pointer's alignment as given, and faults
/// with a misaligned address when it is not).
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// /// Each thread writes its rank to its run of 4.
/// #[kernel]
/// pub fn runs(block: ThreadBlock, out: Out<u32>) {
///     let t = block.thread_rank();
///     block::store_vectorized(&block, [t; 4], &out, 0);
/// }
///
/// let mut out = vec![0u32; 126]; // 32 threads × 4 would be 128: the last 2 are not stored
/// coop_host::Cpu::new().launch(runs, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
/// assert_eq!(out[..6], [0, 0, 0, 0, 1, 1]);
/// assert_eq!(out[125], 31);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockStore")]
#[doc(alias = "BLOCK_STORE_VECTORIZE")]
#[doc(alias = "StoreDirectBlockedVectorized")]
pub fn store_vectorized<T: Shuffle, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    out: &Out<'_, T>,
    first: usize,
) {
    let t = block.thread_rank() as usize;
    if vectorizes::<T>(ITEMS)
        && let Some(start) = first.checked_add(t * ITEMS)
        && start.checked_add(ITEMS).is_some_and(|end| end <= out.len())
        && (out.as_mut_ptr().wrapping_add(start) as usize).is_multiple_of(16)
    {
        // The run's 32-bit words in memory order (a `Shuffle` value's
        // words are its bytes: `vectorizes` checks it).
        let mut words = [0u32; 32];
        let mut n = 0;
        for_items!(i < ITEMS => {
            let _ = items[i].map_words(|w| {
                words[n] = w;
                n += 1;
                w
            });
        });
        let lanes = 16 / core::mem::size_of::<T>();
        let chunks = ITEMS / lanes;
        let mut k = 0;
        while k < chunks {
            let chunk = Words16([
                words[4 * k],
                words[4 * k + 1],
                words[4 * k + 2],
                words[4 * k + 3],
            ]);
            // SAFETY: elements `start + k × lanes ..` of the run lie in
            // `out` (checked above); a chunk is `lanes` whole elements'
            // bytes with no padding (`vectorizes`), and its first element
            // is 16-byte aligned (the run's start is, and chunks are 16
            // bytes).
            unsafe { out.write_chunk(start + k * lanes, lanes, chunk) };
            k += 1;
        }
        return;
    }
    store_blocked(block, items, out, first)
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
