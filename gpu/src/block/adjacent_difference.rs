//! Each item of a blocked tile combined with its neighbour (CUB's
//! `BlockAdjacentDifference`): differences of consecutive elements, or any
//! function of an item and the one before or after it. The neighbours
//! across threads meet as in [`discontinuity`](super::discontinuity).

use super::neighbours::{lefts, rights};
use crate::backend::site;
use crate::{Shuffle, ThreadBlock};

/// `difference(item, left)` for each item and the item before it in the
/// tile. The tile's first item combines with `before` (the last item of
/// the tile before, given by every thread; only thread 0's counts), and
/// stays as it is when `before` is `None`.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// /// Gaps between consecutive sorted values.
/// #[kernel]
/// pub fn gaps(block: ThreadBlock, sorted: &[i32], out: Out<i32>) {
///     let items: [i32; 4] = block::load_blocked(&block, sorted, 0, 0);
///     let d = block::subtract_left(&block, items, |x, left| x - left, None);
///     block::store_blocked(&block, d, &out, 0);
/// }
///
/// let sorted: Vec<i32> = (0..128).map(|i| i * i).collect();
/// let mut out = vec![0i32; 128];
/// coop_host::Cpu::new().launch(gaps, coop_host::LaunchConfig::new(1, 32), (&sorted[..], &mut out))?;
/// assert_eq!(out[..4], [0, 1, 3, 5]);
/// assert_eq!(out[100], 199);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockAdjacentDifference")]
#[doc(alias = "SubtractLeft")]
pub fn subtract_left<T: Shuffle, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    difference: impl Fn(T, T) -> T,
    before: Option<T>,
) -> [T; ITEMS] {
    let left = lefts(block, &items, before, "block::subtract_left", site!());
    core::array::from_fn(|i| match left[i] {
        Some(left) => difference(items[i], left),
        None => items[i],
    })
}

/// `difference(item, right)` for each item and the item after it in the
/// tile. The tile's last item combines with `after` (the first item of the
/// tile after, given by every thread; only the last thread's counts), and
/// stays as it is when `after` is `None`.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// /// How much each value falls to the next.
/// #[kernel]
/// pub fn drops(block: ThreadBlock, values: &[i64], out: Out<i64>) {
///     let items: [i64; 2] = block::load_blocked(&block, values, 0, 0);
///     let d = block::subtract_right(&block, items, |x, right| x - right, Some(0));
///     block::store_blocked(&block, d, &out, 0);
/// }
///
/// let values: Vec<i64> = (0..64).rev().map(|i| 3 * i).collect();
/// let mut out = vec![0i64; 64];
/// coop_host::Cpu::new().launch(drops, coop_host::LaunchConfig::new(1, 32), (&values[..], &mut out))?;
/// assert!(out[..63].iter().all(|&d| d == 3));
/// assert_eq!(out[63], 0 - 0); // the last value, 0, minus `after`
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockAdjacentDifference")]
#[doc(alias = "SubtractRight")]
pub fn subtract_right<T: Shuffle, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    difference: impl Fn(T, T) -> T,
    after: Option<T>,
) -> [T; ITEMS] {
    let right = rights(block, &items, after, "block::subtract_right", site!());
    core::array::from_fn(|i| match right[i] {
        Some(right) => difference(items[i], right),
        None => items[i],
    })
}

/// [`subtract_left`] of a partial tile: the blocked tile's first `valid`
/// items are its items, the rest padding, which stays as it is (CUB's
/// `SubtractLeftPartialTile`). The tile's first item combines with
/// `before` as in [`subtract_left`].
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// /// Gaps between consecutive sorted values, 40 of them in a tile of 64.
/// #[kernel]
/// pub fn gaps(block: ThreadBlock, sorted: &[u32], out: Out<u32>) {
///     let items: [u32; 2] = block::load_blocked(&block, sorted, 0, 1000);
///     let d = block::subtract_left_partial(&block, items, |x, left| x - left, None, sorted.len());
///     block::store_blocked(&block, d, &out, 0);
/// }
///
/// let sorted: Vec<u32> = (0..40).map(|i| 2 * i).collect();
/// let mut out = vec![0u32; 64];
/// coop_host::Cpu::new().launch(gaps, coop_host::LaunchConfig::new(1, 32), (&sorted[..], &mut out))?;
/// assert_eq!(out[..3], [0, 2, 2]);
/// assert_eq!(out[39], 2);
/// assert_eq!(out[40..44], [1000; 4]); // the padding (the fill value) stays as it is
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockAdjacentDifference")]
#[doc(alias = "SubtractLeftPartialTile")]
pub fn subtract_left_partial<T: Shuffle, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    difference: impl Fn(T, T) -> T,
    before: Option<T>,
    valid: usize,
) -> [T; ITEMS] {
    let left = lefts(
        block,
        &items,
        before,
        "block::subtract_left_partial",
        site!(),
    );
    let first = block.thread_rank() as usize * ITEMS;
    core::array::from_fn(|i| match left[i] {
        Some(left) if first + i < valid => difference(items[i], left),
        _ => items[i],
    })
}

/// [`subtract_right`] of a partial tile: the blocked tile's first `valid`
/// items are its items, the rest padding, which stays as it is, as does
/// item `valid - 1`, which has no item after it (CUB's
/// `SubtractRightPartialTile`). A `valid` of `threads × ITEMS` or more is
/// a whole tile with no tile after it.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// /// How far each of 45 readings is from the next.
/// #[kernel]
/// pub fn steps(block: ThreadBlock, readings: &[f32], out: Out<f32>) {
///     let items: [f32; 2] = block::load_blocked(&block, readings, 0, f32::NAN);
///     let d = block::subtract_right_partial(&block, items, |x, next| next - x, readings.len());
///     block::store_blocked(&block, d, &out, 0);
/// }
///
/// let readings: Vec<f32> = (0..45).map(|i| (i * i) as f32).collect();
/// let mut out = vec![0f32; 45];
/// coop_host::Cpu::new().launch(steps, coop_host::LaunchConfig::new(1, 32), (&readings[..], &mut out))?;
/// assert_eq!(out[..3], [1.0, 3.0, 5.0]);
/// assert_eq!(out[44], 1936.0); // the last reading stays as it is
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockAdjacentDifference")]
#[doc(alias = "SubtractRightPartialTile")]
pub fn subtract_right_partial<T: Shuffle, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    difference: impl Fn(T, T) -> T,
    valid: usize,
) -> [T; ITEMS] {
    let right = rights(
        block,
        &items,
        None,
        "block::subtract_right_partial",
        site!(),
    );
    let first = block.thread_rank() as usize * ITEMS;
    core::array::from_fn(|i| match right[i] {
        Some(right) if first + i + 1 < valid => difference(items[i], right),
        _ => items[i],
    })
}
