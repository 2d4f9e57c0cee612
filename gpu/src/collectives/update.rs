//! Reductions whose result goes to global memory instead of back to the
//! threads: cooperative groups' `reduce_update_async` (the group's result
//! combined atomically into an element) and `reduce_store_async` (stored
//! to it). One thread of the group makes the update after the reduction;
//! nothing waits for it, so the group goes on at once.
//!
//! And scans whose total updates an element atomically, every thread's
//! result starting from the element's value before the update:
//! cooperative groups' `inclusive_scan_update` and `exclusive_scan_update`,
//! the building block of groups that append to a shared output.

use crate::memory::atomic::{AtomicElem, AtomicInteger, AtomicOut};
use crate::op::{BitAnd, BitOr, BitXor, Max, Min, Operator, Sum};
use crate::{Out, Shuffle};

use super::Group;

/// An operator that one atomic instruction can combine into an element of
/// global memory: [`Sum`] for every atomic type, [`Min`], [`Max`],
/// [`BitAnd`], [`BitOr`] and [`BitXor`] for the integers.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic instruction that combines a `{T}` into memory",
    label = "no atomic form of this operator for this type",
    note = "reduce_update_async and the scan updates end with one atomic instruction: op::Sum (u32, i32, u64, i64, f32, f64), op::Min and op::Max (u32, i32, u64, i64), op::BitAnd, op::BitOr and op::BitXor (u32, i32, u64, i64)",
    note = "for another operator or type, `reduce` and then update from one thread: `if group.thread_rank() == 0 {{ ... }}`"
)]
pub trait AtomicUpdate<T: AtomicElem>: Operator<T> {
    /// Combines `value` into element `index` of `target` (one `red`).
    #[doc(hidden)]
    #[track_caller]
    fn update(target: &AtomicOut<'_, T>, index: usize, value: T);
    /// Combines `value` into element `index` of `target` and returns the
    /// element's value before (one `atom`).
    #[doc(hidden)]
    #[track_caller]
    fn fetch_update(target: &AtomicOut<'_, T>, index: usize, value: T) -> T;
}

impl<T: AtomicElem> AtomicUpdate<T> for Sum
where
    Sum: Operator<T>,
{
    #[inline(always)]
    #[track_caller]
    fn update(target: &AtomicOut<'_, T>, index: usize, value: T) {
        target.add(index, value)
    }
    #[inline(always)]
    #[track_caller]
    fn fetch_update(target: &AtomicOut<'_, T>, index: usize, value: T) -> T {
        target.fetch_add(index, value)
    }
}

macro_rules! integer_updates {
    ($($op:ident => $method:ident, $fetch:ident),*) => {$(
        impl<T: AtomicInteger> AtomicUpdate<T> for $op
        where
            $op: Operator<T>,
        {
            #[inline(always)]
            #[track_caller]
            fn update(target: &AtomicOut<'_, T>, index: usize, value: T) {
                target.$method(index, value)
            }
            #[inline(always)]
            #[track_caller]
            fn fetch_update(target: &AtomicOut<'_, T>, index: usize, value: T) -> T {
                target.$fetch(index, value)
            }
        }
    )*};
}
integer_updates!(
    Min => min, fetch_min,
    Max => max, fetch_max,
    BitAnd => and, fetch_and,
    BitOr => or, fetch_or,
    BitXor => xor, fetch_xor
);

/// Combines every thread's `value` with `op` and, from one thread of the
/// group, combines the result atomically into element `index` of `target`
/// (with the view's scope and ordering): CUDA's
/// `cg::reduce_update_async`. No thread gets the result, and nothing waits
/// for the update; another launch, or a grid barrier, sees it. An operator
/// without an atomic form is a compile error that says what to use.
///
/// ```
/// use coop::prelude::*;
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// The sum of the input and its largest element: a warp's share of each
/// /// goes to the two counters with one atomic a warp.
/// #[kernel]
/// pub fn sum_and_max(grid: Grid, block: ThreadBlock, input: &[u32], sum: Out<u64>, max: Out<u32>) {
///     let i = grid.thread_rank();
///     let x = if i < input.len() { input[i] } else { 0 };
///     let warp = block.tiled_partition::<32>();
///     reduce_update_async(&warp, &sum.atomic(), 0, x as u64, op::Sum);
///     reduce_update_async(&warp, &max.atomic(), 0, x, op::Max);
/// }
///
/// let input: Vec<u32> = (0..1000).map(|i| (i * 7919) % 1009).collect();
/// let (mut sum, mut max) = (vec![0u64], vec![0u32]);
/// Cpu::new().launch(sum_and_max, LaunchConfig::for_elements(1000, 128), (&input[..], &mut sum, &mut max))?;
/// assert_eq!(sum[0], input.iter().map(|&x| x as u64).sum::<u64>());
/// assert_eq!(max[0], *input.iter().max().unwrap());
/// # Ok::<(), coop_host::Error>(())
/// ```
///
/// ```compile_fail,E0277
/// use coop::prelude::*;
///
/// #[kernel]
/// pub fn products(block: ThreadBlock, input: &[u32], out: Out<u32>) {
///     let x = input[block.thread_rank() as usize];
///     // error: no atomic instruction multiplies into memory
///     reduce_update_async(&block, &out.atomic(), 0, x, op::Product);
/// }
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "cg::reduce_update_async")]
pub fn reduce_update_async<G, T, O>(
    group: &G,
    target: &AtomicOut<'_, T>,
    index: usize,
    value: T,
    op: O,
) where
    G: Group,
    T: Shuffle + AtomicElem,
    O: AtomicUpdate<T>,
{
    let total = super::reduce(group, value, op);
    if crate::ThreadGroup::thread_rank(group) == 0 {
        O::update(target, index, total);
    }
}

/// Combines every thread's `value` with `op` and, from one thread of the
/// group, stores the result in element `index` of `target`: CUDA's
/// `cg::reduce_store_async`. No thread gets the result, and nothing waits
/// for the store. Any operator and any element type.
///
/// ```
/// use coop::prelude::*;
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// One maximum a 64-thread tile.
/// #[kernel]
/// pub fn tile_maxima(block: ThreadBlock, input: &[f32], out: Out<f32>) {
///     let tile = block.tiled_partition::<64>();
///     let x = input[block.thread_rank() as usize];
///     reduce_store_async(&tile, &out, tile.meta_group_rank() as usize, x, op::Max);
/// }
///
/// let input: Vec<f32> = (0..256).map(|i| ((i * 37) % 101) as f32).collect();
/// let mut out = vec![0f32; 4];
/// Cpu::new().launch(tile_maxima, LaunchConfig::new(1, 256), (&input[..], &mut out))?;
/// for (t, m) in out.iter().enumerate() {
///     assert_eq!(*m, input[t * 64..(t + 1) * 64].iter().cloned().fold(f32::MIN, f32::max));
/// }
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "cg::reduce_store_async")]
pub fn reduce_store_async<G, T, O>(group: &G, target: &Out<'_, T>, index: usize, value: T, op: O)
where
    G: Group,
    T: Shuffle,
    O: Operator<T>,
{
    let total = super::reduce(group, value, op);
    if crate::ThreadGroup::thread_rank(group) == 0 {
        target.write(index, total);
    }
}

/// An inclusive scan of every thread's `value` with `op`, whose total the
/// group's last thread combines atomically into element `index` of
/// `target`; every thread gets its scan combined after the element's value
/// before that update (CUDA's `cg::inclusive_scan_update`). Groups that
/// append to one output take their places this way: the element counts
/// what all of them appended so far. Operators are those of
/// [`reduce_update_async`] (one atomic instruction).
///
/// ```
/// use coop::prelude::*;
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// Each warp reserves room for its threads' items at the end of a shared
/// /// list: `ends[g]` is where thread `g`'s items end in it.
/// #[kernel]
/// pub fn reserve(block: ThreadBlock, counts: &[u32], used: Out<u32>, ends: Out<u32>) {
///     let g = this_grid().thread_rank();
///     let warp = block.tiled_partition::<32>();
///     let end = inclusive_scan_update(&warp, &used.atomic(), 0, counts[g], op::Sum);
///     ends.write(g, end);
/// }
///
/// let counts: Vec<u32> = (0..128).map(|i| i % 3).collect();
/// let (mut used, mut ends) = (vec![0u32], vec![0u32; 128]);
/// Cpu::new().launch(reserve, LaunchConfig::new(2, 64), (&counts[..], &mut used, &mut ends))?;
/// assert_eq!(used[0], counts.iter().sum::<u32>());
/// // Every thread's range `end - count .. end` is its own: sorted, they tile the list.
/// let mut ranges: Vec<(u32, u32)> = (0..128).map(|g| (ends[g] - counts[g], ends[g])).collect();
/// ranges.sort();
/// assert!(ranges.windows(2).all(|w| w[0].1 == w[1].0));
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "cg::inclusive_scan_update")]
pub fn inclusive_scan_update<G, T, O>(
    group: &G,
    target: &AtomicOut<'_, T>,
    index: usize,
    value: T,
    op: O,
) -> T
where
    G: Group,
    T: Shuffle + AtomicElem,
    O: AtomicUpdate<T>,
{
    scan_update(group, target, index, value, op, "inclusive_scan_update").0
}

/// An exclusive scan of every thread's `value` with `op`, whose total the
/// group's last thread combines atomically into element `index` of
/// `target`; every thread gets its scan combined after the element's value
/// before that update (CUDA's `cg::exclusive_scan_update`): with
/// [`op::Sum`](crate::op::Sum), each thread's offset in a list that other
/// groups append to as well.
///
/// ```
/// use coop::prelude::*;
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// Stream compaction: each block appends its even inputs to `out`, in
/// /// any order between blocks, in order within a block.
/// #[kernel]
/// pub fn evens(block: ThreadBlock, input: &[u32], used: Out<u32>, out: Out<u32>) {
///     let x = input[this_grid().thread_rank()];
///     let keep = x % 2 == 0;
///     let at = exclusive_scan_update(&block, &used.atomic(), 0, keep as u32, op::Sum);
///     if keep {
///         out.write(at as usize, x);
///     }
/// }
///
/// let input: Vec<u32> = (0..256).map(|i| (i * 7) % 100).collect();
/// let (mut used, mut out) = (vec![0u32], vec![0u32; 256]);
/// Cpu::new().launch(evens, LaunchConfig::new(4, 64), (&input[..], &mut used, &mut out))?;
/// let n = used[0] as usize;
/// let mut kept = out[..n].to_vec();
/// let mut expected: Vec<u32> = input.iter().copied().filter(|x| x % 2 == 0).collect();
/// kept.sort();
/// expected.sort();
/// assert_eq!(kept, expected);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "cg::exclusive_scan_update")]
pub fn exclusive_scan_update<G, T, O>(
    group: &G,
    target: &AtomicOut<'_, T>,
    index: usize,
    value: T,
    op: O,
) -> T
where
    G: Group,
    T: Shuffle + AtomicElem,
    O: AtomicUpdate<T>,
{
    scan_update(group, target, index, value, op, "exclusive_scan_update").1
}

/// The two scan updates' shared body: the group's scan, whose total one
/// thread fetches into element `index` of `target`, named `call` in the CPU
/// backend's diagnostics. Returns (inclusive, exclusive).
#[inline(always)]
#[track_caller]
fn scan_update<G, T, O>(
    group: &G,
    target: &AtomicOut<'_, T>,
    index: usize,
    value: T,
    op: O,
    call: &'static str,
) -> (T, T)
where
    G: Group,
    T: Shuffle + AtomicElem,
    O: AtomicUpdate<T>,
{
    let site = core::panic::Location::caller();
    <crate::backend::target::Target as crate::backend::Naming>::entering(call, site);
    let update = |total| O::fetch_update(target, index, total);
    group.scan_update_in(value, op, update, site)
}
