//! Which items of a blocked tile differ from their neighbour (CUB's
//! `BlockDiscontinuity`): the heads and tails of the runs of equal items.
//! A thread's first item's neighbour before it is the previous thread's
//! last item, and its last item's neighbour after it the next thread's
//! first ([`neighbours`](super::neighbours): two barriers).

use super::neighbours::{lefts, rights};
use crate::backend::site;
use crate::{Shuffle, ThreadBlock};

/// Head flags of the blocked tile: item `i` is a head when
/// `differ(previous, item)` holds for the item before it in the tile. The
/// tile's first item compares with `before` (the last item of the tile
/// before, given by every thread; only thread 0's counts), and is a head
/// when `before` is `None`.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// /// Marks where each run of equal keys starts.
/// #[kernel]
/// pub fn heads(block: ThreadBlock, keys: &[u32], out: Out<u32>) {
///     let items: [u32; 4] = block::load_blocked(&block, keys, 0, 0);
///     let flags = block::flag_heads(&block, items, |a, b| a != b, None);
///     block::store_blocked(&block, flags.map(u32::from), &out, 0);
/// }
///
/// let keys: Vec<u32> = (0..128).map(|i| i / 3).collect();
/// let mut out = vec![0u32; 128];
/// coop_host::Cpu::new().launch(heads, coop_host::LaunchConfig::new(1, 32), (&keys[..], &mut out))?;
/// assert_eq!(out[..7], [1, 0, 0, 1, 0, 0, 1]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockDiscontinuity")]
#[doc(alias = "FlagHeads")]
pub fn flag_heads<T: Shuffle, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    differ: impl Fn(T, T) -> bool,
    before: Option<T>,
) -> [bool; ITEMS] {
    let left = lefts(block, &items, before, "block::flag_heads", site!());
    heads(&items, &differ, &left)
}

/// Tail flags of the blocked tile: item `i` is a tail when
/// `differ(item, next)` holds for the item after it in the tile. The
/// tile's last item compares with `after` (the first item of the tile
/// after, given by every thread; only the last thread's counts), and is a
/// tail when `after` is `None`. In a partial tile padded with fill values,
/// mark the last valid item yourself (`flags[i] |= place + 1 == valid`).
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// /// Marks where each run of equal keys ends.
/// #[kernel]
/// pub fn tails(block: ThreadBlock, keys: &[u32], out: Out<u32>) {
///     let items: [u32; 2] = block::load_blocked(&block, keys, 0, 0);
///     let flags = block::flag_tails(&block, items, |a, b| a != b, None);
///     block::store_blocked(&block, flags.map(u32::from), &out, 0);
/// }
///
/// let keys: Vec<u32> = (0..64).map(|i| i / 4).collect();
/// let mut out = vec![0u32; 64];
/// coop_host::Cpu::new().launch(tails, coop_host::LaunchConfig::new(1, 32), (&keys[..], &mut out))?;
/// assert_eq!(out[..8], [0, 0, 0, 1, 0, 0, 0, 1]);
/// assert_eq!(out[63], 1); // the tile's last item, `after` being None
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockDiscontinuity")]
#[doc(alias = "FlagTails")]
pub fn flag_tails<T: Shuffle, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    differ: impl Fn(T, T) -> bool,
    after: Option<T>,
) -> [bool; ITEMS] {
    let right = rights(block, &items, after, "block::flag_tails", site!());
    tails(&items, &differ, &right)
}

/// [`flag_tails`] of a partial tile: the blocked tile's first `valid`
/// items are its items, the rest padding. Item `valid - 1` is a tail, an
/// item before it is one when `differ(item, next)` holds, and the padding
/// is flagged `false`. A `valid` of `threads × ITEMS` or more is a whole
/// tile with no tile after it.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// /// Marks where each run of equal keys ends, in a tile of 64 places
/// /// holding 50 keys.
/// #[kernel]
/// pub fn tails(block: ThreadBlock, keys: &[u32], out: Out<u32>) {
///     let items: [u32; 2] = block::load_blocked(&block, keys, 0, 0);
///     let flags = block::flag_tails_partial(&block, items, |a, b| a != b, keys.len());
///     block::store_blocked(&block, flags.map(u32::from), &out, 0);
/// }
///
/// let keys = vec![3u32; 50]; // one run: the fill values 0 after it do not end it
/// let mut out = vec![9u32; 64];
/// coop_host::Cpu::new().launch(tails, coop_host::LaunchConfig::new(1, 32), (&keys[..], &mut out))?;
/// assert_eq!(out.iter().position(|&f| f == 1), Some(49));
/// assert_eq!(out.iter().sum::<u32>(), 1);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockDiscontinuity")]
#[doc(alias = "FlagTails")]
pub fn flag_tails_partial<T: Shuffle, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    differ: impl Fn(T, T) -> bool,
    valid: usize,
) -> [bool; ITEMS] {
    let right = rights(block, &items, None, "block::flag_tails_partial", site!());
    partial_tails(block, &items, &differ, &right, valid)
}

/// [`flag_heads`] and [`flag_tails`] of the same tile, in one call.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// /// Runs of length 1: items that are both a head and a tail.
/// #[kernel]
/// pub fn singles(block: ThreadBlock, keys: &[i32], out: Out<u32>) {
///     let items: [i32; 2] = block::load_blocked(&block, keys, 0, 0);
///     let (heads, tails) = block::flag_heads_and_tails(&block, items, |a, b| a != b, None, None);
///     let single = [heads[0] && tails[0], heads[1] && tails[1]];
///     block::store_blocked(&block, single.map(u32::from), &out, 0);
/// }
///
/// let mut keys = vec![7i32; 64];
/// keys[10] = 1; // a run of one
/// keys[20] = 2;
/// keys[21] = 2; // a run of two
/// let mut out = vec![0u32; 64];
/// coop_host::Cpu::new().launch(singles, coop_host::LaunchConfig::new(1, 32), (&keys[..], &mut out))?;
/// assert_eq!(out.iter().sum::<u32>(), 1);
/// assert_eq!(out[10], 1);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockDiscontinuity")]
#[doc(alias = "FlagHeadsAndTails")]
pub fn flag_heads_and_tails<T: Shuffle, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    differ: impl Fn(T, T) -> bool,
    before: Option<T>,
    after: Option<T>,
) -> ([bool; ITEMS], [bool; ITEMS]) {
    let (call, site) = ("block::flag_heads_and_tails", site!());
    let left = lefts(block, &items, before, call, site);
    let right = rights(block, &items, after, call, site);
    (
        heads(&items, &differ, &left),
        tails(&items, &differ, &right),
    )
}

/// [`flag_heads_and_tails`] of a partial tile: heads as [`flag_heads`]
/// gives them (the padding's flags mean nothing), tails as
/// [`flag_tails_partial`] gives them.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
///
/// /// 1 for a run's first key, 2 for its last, 3 for a run of one.
/// #[kernel]
/// pub fn ends(block: ThreadBlock, keys: &[i32], out: Out<u32>) {
///     let items: [i32; 3] = block::load_blocked(&block, keys, 0, 0);
///     let (heads, tails) =
///         block::flag_heads_and_tails_partial(&block, items, |a, b| a != b, None, keys.len());
///     let marks: [u32; 3] = core::array::from_fn(|i| u32::from(heads[i]) + 2 * u32::from(tails[i]));
///     block::store_blocked(&block, marks, &out, 0); // stores the first keys.len() places
/// }
///
/// let keys = [4, 4, 4, 1, 2, 0]; // the last key equals the fill value after it
/// let mut out = vec![0u32; 6];
/// coop_host::Cpu::new().launch(ends, coop_host::LaunchConfig::new(1, 32), (&keys[..], &mut out))?;
/// assert_eq!(out, [1, 0, 2, 3, 3, 3]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockDiscontinuity")]
#[doc(alias = "FlagHeadsAndTails")]
pub fn flag_heads_and_tails_partial<T: Shuffle, const ITEMS: usize>(
    block: &ThreadBlock,
    items: [T; ITEMS],
    differ: impl Fn(T, T) -> bool,
    before: Option<T>,
    valid: usize,
) -> ([bool; ITEMS], [bool; ITEMS]) {
    let (call, site) = ("block::flag_heads_and_tails_partial", site!());
    let left = lefts(block, &items, before, call, site);
    let right = rights(block, &items, None, call, site);
    (
        heads(&items, &differ, &left),
        partial_tails(block, &items, &differ, &right, valid),
    )
}

/// Tails of a partial tile's first `valid` items (blocked); `false` past
/// them.
#[inline(always)]
fn partial_tails<T: Shuffle, const ITEMS: usize>(
    block: &ThreadBlock,
    items: &[T; ITEMS],
    differ: &impl Fn(T, T) -> bool,
    right: &[Option<T>; ITEMS],
    valid: usize,
) -> [bool; ITEMS] {
    let first = block.thread_rank() as usize * ITEMS;
    core::array::from_fn(|i| {
        let place = first + i;
        if place + 1 < valid {
            right[i].is_none_or(|right| differ(items[i], right))
        } else {
            place + 1 == valid
        }
    })
}

/// An item is a head when it has no item before it or differs from it.
#[inline(always)]
fn heads<T: Shuffle, const ITEMS: usize>(
    items: &[T; ITEMS],
    differ: &impl Fn(T, T) -> bool,
    left: &[Option<T>; ITEMS],
) -> [bool; ITEMS] {
    core::array::from_fn(|i| left[i].is_none_or(|left| differ(left, items[i])))
}

/// An item is a tail when it has no item after it or differs from it.
#[inline(always)]
fn tails<T: Shuffle, const ITEMS: usize>(
    items: &[T; ITEMS],
    differ: &impl Fn(T, T) -> bool,
    right: &[Option<T>; ITEMS],
) -> [bool; ITEMS] {
    core::array::from_fn(|i| right[i].is_none_or(|right| differ(items[i], right)))
}
