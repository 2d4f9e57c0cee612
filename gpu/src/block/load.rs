//! A block's tile loaded from a slice into registers (CUB's `BlockLoad`),
//! guarded: elements past the slice's end take a fill value, so a partial
//! last tile needs no special case.

use super::chunks::{RUN_ITEMS, load_run, loads_by_chunks};
use super::exchange::striped_to_blocked;
use super::items::for_items;
use crate::memory::shared::{Published, SharedArray, SharedElem, TileScratch};
use crate::{Shuffle, ThreadBlock};

/// Element `first + at` of `input`, or `fill` past its end.
#[inline(always)]
fn element<T: Copy>(input: &[T], first: usize, at: usize, fill: T) -> T {
    match first.checked_add(at) {
        Some(e) if e < input.len() => input[e],
        _ => fill,
    }
}

/// The tile from `input[first..]` in the blocked arrangement: thread `t`'s
/// item `i` is `input[first + t × ITEMS + i]`, or `fill` past the end of
/// `input`. Each thread reads its own run of consecutive elements, so a
/// warp's loads are `ITEMS` elements apart: prefer [`load_transposed`]
/// for large tiles of global memory.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// #[kernel]
/// pub fn run_sums(block: ThreadBlock, input: &[u32], out: Out<u32>) {
///     let first = block.group_index().x as usize * 128;
///     let run: [u32; 4] = block::load_blocked(&block, input, first, 0);
///     out.write(first / 4 + block.thread_rank() as usize, run.iter().sum());
/// }
///
/// let input: Vec<u32> = (0..200).collect(); // the second tile is partial
/// let mut out = vec![0u32; 64];
/// coop_host::Cpu::new().launch(run_sums, coop_host::LaunchConfig::new(2, 32), (&input[..], &mut out))?;
/// assert_eq!(out[1], 4 + 5 + 6 + 7);
/// assert_eq!(out[49], 196 + 197 + 198 + 199);
/// assert_eq!(out[50], 0); // past the end: fill
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[doc(alias = "BlockLoad")]
#[doc(alias = "LoadDirectBlocked")]
pub fn load_blocked<T: Copy, const ITEMS: usize>(
    block: &ThreadBlock,
    input: &[T],
    first: usize,
    fill: T,
) -> [T; ITEMS] {
    let t = block.thread_rank() as usize;
    let mut items = [fill; ITEMS];
    for_items!(i < ITEMS => {
        items[i] = element(input, first, t * ITEMS + i, fill);
    });
    items
}

/// Whether a thread's run of `ITEMS` elements of `T` goes by 16-byte
/// vector accesses: elements of 4, 8 or 16 bytes that are all value (a
/// chunk holds whole elements), a run of whole chunks of at most 128
/// bytes.
#[inline(always)]
pub(super) const fn vectorizes<T: Shuffle>(items: usize) -> bool {
    let size = core::mem::size_of::<T>();
    (size == 4 || size == 8 || size == 16) && loads_by_chunks::<T>(items, 128)
}

/// The tile from `input[first..]` in the blocked arrangement, as
/// [`load_blocked`] gives it, each thread's run read 16 bytes a load
/// (`ld.global.v4`, CUB's `BLOCK_LOAD_VECTORIZE`) where the run lies whole
/// inside `input` at a 16-byte aligned address and is a whole number of
/// 16-byte chunks of 4-, 8- or 16-byte elements (up to 128 bytes: 4, 8,
/// 12 or 16 `u32`s; 2, 4, 6 or 8 `u64`s); element by element otherwise
/// (a partial last tile, an offset view, other sizes), with the same
/// result. A thread's four 16-byte loads of 16 `u32`s are four
/// instructions where [`load_blocked`] issues sixteen.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// /// Each thread sums its run of 8; the last tile is partial.
/// #[kernel]
/// pub fn run_sums(block: ThreadBlock, input: &[u32], out: Out<u32>) {
///     let first = block.group_index().x as usize * 256;
///     let run: [u32; 8] = block::load_vectorized(&block, input, first, 0);
///     out.write(first / 8 + block.thread_rank() as usize, run.iter().sum());
/// }
///
/// let input: Vec<u32> = (0..500).collect();
/// let mut out = vec![0u32; 64];
/// coop_host::Cpu::new().launch(run_sums, coop_host::LaunchConfig::new(2, 32), (&input[..], &mut out))?;
/// assert_eq!(out[1], (8..16).sum::<u32>());
/// assert_eq!(out[62], 496 + 497 + 498 + 499); // partial: the rest is fill
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[doc(alias = "BlockLoad")]
#[doc(alias = "BLOCK_LOAD_VECTORIZE")]
#[doc(alias = "LoadDirectBlockedVectorized")]
pub fn load_vectorized<T: Shuffle, const ITEMS: usize>(
    block: &ThreadBlock,
    input: &[T],
    first: usize,
    fill: T,
) -> [T; ITEMS] {
    let t = block.thread_rank() as usize;
    if vectorizes::<T>(ITEMS)
        && let Some(start) = first.checked_add(t * ITEMS)
        && start
            .checked_add(ITEMS)
            .is_some_and(|end| end <= input.len())
    {
        // SAFETY: `start + ITEMS <= input.len()`.
        let src = unsafe { input.as_ptr().add(start) };
        if (src as usize).is_multiple_of(16) {
            let mut run = [fill; RUN_ITEMS];
            // SAFETY: `src` is 16-byte aligned and starts `ITEMS` elements
            // of `input`; `vectorizes` implies `loads_by_chunks`.
            unsafe { load_run(src, ITEMS, &mut run) };
            let mut items = [fill; ITEMS];
            items.copy_from_slice(&run[..ITEMS]);
            return items;
        }
    }
    load_blocked(block, input, first, fill)
}

/// The tile from `input[first..]` in the warp-striped arrangement: warp
/// `w` takes the `32 × ITEMS` elements from `first + w × 32 × ITEMS`,
/// its lane `l` item `i` the element `i × 32 + l` of those, or `fill` past
/// the end of `input`. A warp's loads are consecutive (coalesced) with no
/// exchange through shared memory; [`RadixSort::warp_striped`](super::RadixSort::warp_striped)
/// sorts a tile held this way. Blocks of whole warps.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// #[kernel]
/// pub fn firsts(block: ThreadBlock, input: &[u32], out: Out<u32>) {
///     let items: [u32; 2] = block::load_warp_striped(&block, input, 0, 0);
///     out.write(block.thread_rank() as usize, items[0]);
/// }
///
/// let input: Vec<u32> = (0..128).collect();
/// let mut out = vec![0u32; 64];
/// coop_host::Cpu::new().launch(firsts, coop_host::LaunchConfig::new(1, 64), (&input[..], &mut out))?;
/// assert_eq!(out[..2], [0, 1]);
/// assert_eq!(out[32..34], [64, 65]); // warp 1 starts at 2 × 32
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[doc(alias = "BlockLoad")]
#[doc(alias = "BLOCK_LOAD_WARP_TRANSPOSE")]
pub fn load_warp_striped<T: Copy, const ITEMS: usize>(
    block: &ThreadBlock,
    input: &[T],
    first: usize,
    fill: T,
) -> [T; ITEMS] {
    let t = block.thread_rank() as usize;
    let mut items = [fill; ITEMS];
    for_items!(i < ITEMS => {
        items[i] = element(input, first, (t & !31) * ITEMS + i * 32 + (t & 31), fill);
    });
    items
}

/// The tile from `input[first..]` in the striped arrangement: thread `t`'s
/// item `i` is `input[first + i × threads + t]`, or `fill` past the end of
/// `input`. Consecutive threads read consecutive elements (coalesced).
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// #[kernel]
/// pub fn columns(block: ThreadBlock, input: &[u32], out: Out<u32>) {
///     let items: [u32; 3] = block::load_striped(&block, input, 0, 0);
///     out.write(block.thread_rank() as usize, items[0] + items[1] + items[2]);
/// }
///
/// let input: Vec<u32> = (0..96).collect();
/// let mut out = vec![0u32; 32];
/// coop_host::Cpu::new().launch(columns, coop_host::LaunchConfig::new(1, 32), (&input[..], &mut out))?;
/// assert_eq!(out[5], 5 + 37 + 69);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[doc(alias = "BlockLoad")]
#[doc(alias = "LoadDirectStriped")]
pub fn load_striped<T: Copy, const ITEMS: usize>(
    block: &ThreadBlock,
    input: &[T],
    first: usize,
    fill: T,
) -> [T; ITEMS] {
    let t = block.thread_rank() as usize;
    let threads = block.num_threads() as usize;
    let mut items = [fill; ITEMS];
    for_items!(i < ITEMS => {
        items[i] = element(input, first, i * threads + t, fill);
    });
    items
}

/// The tile from `input[first..]` in the blocked arrangement, read with
/// coalesced loads: [`load_striped`], then [`striped_to_blocked`] through
/// `scratch` (at least `threads × ITEMS` elements; see
/// [`TileScratch`]). Returns the items and the scratch, `Published`.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
/// use coop::shared::Shared;
///
/// /// Each thread's run of 8 consecutive elements, loaded coalesced.
/// #[kernel]
/// pub fn run_maxima(block: ThreadBlock, input: &[i32], out: Out<i32>, tile: Shared<[i32; 256]>) {
///     let (run, _) = block::load_transposed::<_, _, 8>(&block, input, 0, i32::MIN, tile);
///     let t = block.thread_rank() as usize;
///     out.write(t, run.into_iter().max().unwrap());
/// }
///
/// let input: Vec<i32> = (0..256).map(|i| (i * 37) % 101).collect();
/// let mut out = vec![0i32; 32];
/// coop_host::Cpu::new().launch(run_maxima, coop_host::LaunchConfig::new(1, 32), (&input[..], &mut out))?;
/// assert_eq!(out[3], *input[24..32].iter().max().unwrap());
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockLoad")]
#[doc(alias = "BLOCK_LOAD_TRANSPOSE")]
pub fn load_transposed<T, A, const ITEMS: usize>(
    block: &ThreadBlock,
    input: &[T],
    first: usize,
    fill: T,
    scratch: impl TileScratch<A>,
) -> ([T; ITEMS], Published<A>)
where
    T: SharedElem,
    A: SharedArray<Elem = T> + ?Sized,
{
    let striped = load_striped::<T, ITEMS>(block, input, first, fill);
    striped_to_blocked(block, striped, scratch)
}
