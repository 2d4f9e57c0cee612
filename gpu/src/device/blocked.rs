//! A thread's run of consecutive elements held in registers (CUB's
//! *blocked* arrangement: thread `t` of a tile holds its elements
//! `t × items .. (t + 1) × items`), as the single-pass algorithms that
//! test or combine neighbours ([`select`](crate::device::select),
//! [`runs`](crate::device::runs)) walk it: [`each_item!`] writes a loop over
//! the run out item by item, and [`load_run`] moves a run from global
//! memory 16 bytes a load.

pub(crate) use crate::block::chunks::{each_item, load_run, loads_by_chunks};

/// Most items a thread's run holds.
pub(crate) const MAX_ITEMS: usize = crate::block::chunks::RUN_ITEMS;

/// Items a thread takes of elements of `size` bytes: `most`, or as many as
/// fit in `bytes` (at least 1). A zero size takes `most`.
pub(crate) const fn items_within(size: usize, most: usize, bytes: usize) -> usize {
    if size == 0 || size * most <= bytes {
        return most;
    }
    let items = bytes / size;
    if items == 0 { 1 } else { items }
}
