//! Reductions whose result goes to memory instead of back to the threads:
//! cooperative groups' `reduce_update_async` (the group's result combined
//! atomically into an element) and `reduce_store_async` (stored to it),
//! into global memory or into a shared array. One thread of the group
//! makes the update after the reduction; nothing waits for it, so the
//! group goes on at once.
//!
//! And scans whose total updates an element atomically, every thread's
//! result starting from the element's value before the update:
//! cooperative groups' `inclusive_scan_update` and `exclusive_scan_update`,
//! the building block of groups that append to a shared output.
//!
//! | target | updates (`reduce_update_async`, scan updates) | stores (`reduce_store_async`) |
//! |---|---|---|
//! | global memory | [`AtomicOut`] (`out.atomic()`), element `usize` | [`Out`], element `usize` |
//! | a shared array | its [`Atomics`] phase, the array's index | its [`Owned`] phase, an element the storing thread owns |

use crate::backend::Rmw;
use crate::memory::atomic::{AtomicElem, AtomicInteger, AtomicOut};
use crate::memory::shared::{Atomics, Owned, Ownership, SharedArray};
use crate::op::{BitAnd, BitOr, BitXor, Max, Min, Operator, Sum};
use crate::{Out, Shuffle};

use super::Group;

mod sealed {
    pub trait UpdateTarget {}
    pub trait StoreTarget {}
}

/// An operator that one atomic instruction can combine into an element of
/// memory: [`Sum`] for every atomic type, [`Min`], [`Max`], [`BitAnd`],
/// [`BitOr`] and [`BitXor`] for the integers.
///
/// ```
/// use coop::AtomicUpdate;
/// use coop::op;
/// fn updates<T: coop::memory::atomic::AtomicElem, O: AtomicUpdate<T>>(_: O) {}
/// updates::<f64, _>(op::Sum);
/// updates::<u32, _>(op::Max);
/// updates::<i64, _>(op::BitXor);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic instruction that combines a `{T}` into memory",
    label = "no atomic form of this operator for this type",
    note = "reduce_update_async and the scan updates end with one atomic instruction: op::Sum (u32, i32, u64, i64, f32, f64), op::Min and op::Max (u32, i32, u64, i64), op::BitAnd, op::BitOr and op::BitXor (u32, i32, u64, i64)",
    note = "for another operator or type, `reduce` and then update from one thread: `if group.thread_rank() == 0 {{ ... }}`"
)]
pub trait AtomicUpdate<T: AtomicElem>: Operator<T> {
    /// The atomic instruction's operation.
    #[doc(hidden)]
    const RMW: Rmw;
}

impl<T: AtomicElem> AtomicUpdate<T> for Sum
where
    Sum: Operator<T>,
{
    const RMW: Rmw = Rmw::Add;
}

macro_rules! integer_updates {
    ($($op:ident => $rmw:ident),*) => {$(
        impl<T: AtomicInteger> AtomicUpdate<T> for $op
        where
            $op: Operator<T>,
        {
            const RMW: Rmw = Rmw::$rmw;
        }
    )*};
}
integer_updates!(Min => Min, Max => Max, BitAnd => And, BitOr => Or, BitXor => Xor);

/// Memory that [`reduce_update_async`], [`inclusive_scan_update`] and
/// [`exclusive_scan_update`] combine a group's result into: an element of
/// global memory through an [`AtomicOut`] view (`out.atomic()`, with its
/// scope and ordering; the element a `usize`), or an element of a shared
/// array in its [`Atomics`] phase (block scope; the element named by the
/// array's index, `(row, column)` for a 2-D array).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not memory a group's result can be combined into atomically",
    label = "not an atomic view of global memory or a shared array's atomic phase",
    note = "global memory: pass `&out.atomic()` (an `AtomicOut`); a shared array: its `Atomics` phase, from `.atomics(&block)` of its `Owned` or `Published` phase",
    note = "to store the result without combining it, use `reduce_store_async` with an `Out` or an `Owned` phase"
)]
pub trait UpdateTarget<T: AtomicElem>: sealed::UpdateTarget {
    /// How the target names an element.
    type Index: Copy;
    /// Combines `value` into element `index` with `op` (one `red`).
    #[doc(hidden)]
    #[track_caller]
    fn combine(&self, index: Self::Index, op: Rmw, value: T);
    /// Combines `value` into element `index` with `op` and returns the
    /// element's value before (one `atom`); `call` names the user's call
    /// in the report of an index out of bounds.
    #[doc(hidden)]
    #[track_caller]
    fn fetch_combine(
        &self,
        index: Self::Index,
        op: Rmw,
        value: T,
        call: &'static core::ffi::CStr,
    ) -> T;
}

impl<T: AtomicElem> sealed::UpdateTarget for AtomicOut<'_, T> {}
impl<T: AtomicElem> UpdateTarget<T> for AtomicOut<'_, T> {
    type Index = usize;
    #[inline(always)]
    #[track_caller]
    fn combine(&self, index: usize, op: Rmw, value: T) {
        self.reduce(
            index,
            op,
            value,
            c"reduce_update_async",
            crate::backend::site!(),
        )
    }
    #[inline(always)]
    #[track_caller]
    fn fetch_combine(&self, index: usize, op: Rmw, value: T, call: &'static core::ffi::CStr) -> T {
        self.rmw(index, op, value, call, crate::backend::site!())
    }
}

impl<A: SharedArray + ?Sized> sealed::UpdateTarget for Atomics<A> {}
impl<A: SharedArray + ?Sized> UpdateTarget<A::Elem> for Atomics<A>
where
    A::Elem: AtomicElem,
{
    type Index = A::Index;
    #[inline(always)]
    #[track_caller]
    fn combine(&self, index: A::Index, op: Rmw, value: A::Elem) {
        self.reduce(index, op, value, crate::backend::site!())
    }
    #[inline(always)]
    #[track_caller]
    fn fetch_combine(
        &self,
        index: A::Index,
        op: Rmw,
        value: A::Elem,
        _call: &'static core::ffi::CStr,
    ) -> A::Elem {
        self.rmw(index, op, value, crate::backend::site!())
    }
}

/// Memory that [`reduce_store_async`] stores a group's result to: an
/// element of global memory through an [`Out`] (the element a `usize`),
/// or an element of a shared array in an [`Owned`] phase, which the
/// group's storing thread (its thread of rank 0) must own under the
/// phase's map, checked as every write of the phase is
/// ([`TileLeaders`](crate::memory::shared::TileLeaders) gives each tile's
/// leader the slot of its tile).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not memory a group's result can be stored to",
    label = "not an `Out` or a shared array's `Owned` phase",
    note = "global memory: pass the kernel's `Out`; a shared array: an `Owned` phase (`.own(map)`) whose map gives the group's thread of rank 0 the element, such as `TileLeaders`",
    note = "to combine the result into an element atomically, use `reduce_update_async`"
)]
pub trait StoreTarget<T>: sealed::StoreTarget {
    /// How the target names an element.
    type Index: Copy;
    /// Stores `value` to element `index`.
    #[doc(hidden)]
    #[track_caller]
    fn store(&self, index: Self::Index, value: T);
}

impl<T: Copy> sealed::StoreTarget for Out<'_, T> {}
impl<T: Copy> StoreTarget<T> for Out<'_, T> {
    type Index = usize;
    #[inline(always)]
    #[track_caller]
    fn store(&self, index: usize, value: T) {
        self.write(index, value)
    }
}

impl<A: SharedArray + ?Sized, M: Ownership<A>> sealed::StoreTarget for Owned<A, M> {}
impl<A: SharedArray + ?Sized, M: Ownership<A>> StoreTarget<A::Elem> for Owned<A, M> {
    type Index = A::Index;
    #[inline(always)]
    #[track_caller]
    fn store(&self, index: A::Index, value: A::Elem) {
        self.write(index, value)
    }
}

/// Combines every thread's `value` with `op` and, from one thread of the
/// group, combines the result atomically into element `index` of `target`
/// ([`UpdateTarget`]: global memory through an [`AtomicOut`], with the
/// view's scope and ordering, or a shared array in its [`Atomics`]
/// phase): CUDA's `cg::reduce_update_async`. No thread gets the result,
/// and nothing waits for the update; in global memory another launch, or
/// a grid barrier, sees it, in a shared array the barrier that ends the
/// atomic phase. An operator without an atomic form is a compile error
/// that says what to use.
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
/// Into a shared array, through its atomic phase: each warp combines its
/// threads' values into the bin of its choice with one shared atomic a
/// warp, and the block's bins go out after a barrier.
///
/// ```
/// use coop::prelude::*;
/// use coop::shared::{ByRank, Shared};
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// The block's inputs summed into 4 bins, a warp's share going to bin
/// /// `warp % 4`.
/// #[kernel]
/// pub fn warp_bins(block: ThreadBlock, input: &[u32], out: Out<u32>, bins: Shared<[u32; 4]>) {
///     let t = block.thread_rank() as usize;
///     let zero = bins.own(ByRank::new());
///     if t < 4 {
///         zero.write(t, 0);
///     }
///     let bins = zero.atomics(&block); // barrier: every bin is 0
///     let warp = block.tiled_partition::<32>();
///     let bin = warp.meta_group_rank() as usize % 4;
///     reduce_update_async(&warp, &bins, bin, input[t], op::Sum);
///     let bins = bins.publish(&block); // barrier: every update is done
///     if t < 4 {
///         out.write(t, bins.get(t));
///     }
/// }
///
/// let input: Vec<u32> = (0..256).collect();
/// let mut out = vec![0u32; 4];
/// Cpu::new().launch(warp_bins, LaunchConfig::new(1, 256), (&input[..], &mut out))?;
/// let warp_sum = |w: u32| (w * 32..w * 32 + 32).sum::<u32>();
/// assert_eq!(out[1], warp_sum(1) + warp_sum(5));
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
pub fn reduce_update_async<G, T, O, X>(group: &G, target: &X, index: X::Index, value: T, op: O)
where
    G: Group,
    T: Shuffle + AtomicElem,
    O: AtomicUpdate<T>,
    X: UpdateTarget<T>,
{
    let total = super::reduce(group, value, op);
    if crate::ThreadGroup::thread_rank(group) == 0 {
        target.combine(index, O::RMW, total);
    }
}

/// Combines every thread's `value` with `op` and, from one thread of the
/// group, stores the result in element `index` of `target`
/// ([`StoreTarget`]: an [`Out`] in global memory, or a shared array's
/// [`Owned`] phase): CUDA's `cg::reduce_store_async`. No thread gets the result, and nothing waits
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
///
/// Into a shared array: each tile's leader owns its tile's slot under
/// [`TileLeaders`](crate::memory::shared::TileLeaders), so the store is a
/// write of the array's [`Owned`] phase, checked like any other; the
/// block reads the slots after the phase is published.
///
/// ```
/// use coop::prelude::*;
/// use coop::shared::{Shared, TileLeaders};
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// The smallest of each warp's maxima.
/// #[kernel]
/// pub fn min_of_maxima(block: ThreadBlock, input: &[i32], out: Out<i32>, maxima: Shared<[i32; 8]>) {
///     let warp = block.tiled_partition::<32>();
///     let slots = maxima.own(TileLeaders::<32>);
///     let x = input[block.thread_rank() as usize];
///     reduce_store_async(&warp, &slots, warp.meta_group_rank() as usize, x, op::Max);
///     let slots = slots.publish(&block);
///     if block.thread_rank() == 0 {
///         let warps = warp.meta_group_size() as usize;
///         out.write(0, (0..warps).map(|w| slots.get(w)).min().unwrap());
///     }
/// }
///
/// let input: Vec<i32> = (0..256).map(|i| (i * 7919) % 1000 - 500).collect();
/// let mut out = vec![0i32];
/// Cpu::new().launch(min_of_maxima, LaunchConfig::new(1, 256), (&input[..], &mut out))?;
/// let expected = input.chunks(32).map(|c| *c.iter().max().unwrap()).min().unwrap();
/// assert_eq!(out[0], expected);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "cg::reduce_store_async")]
pub fn reduce_store_async<G, T, O, X>(group: &G, target: &X, index: X::Index, value: T, op: O)
where
    G: Group,
    T: Shuffle,
    O: Operator<T>,
    X: StoreTarget<T>,
{
    let total = super::reduce(group, value, op);
    if crate::ThreadGroup::thread_rank(group) == 0 {
        target.store(index, total);
    }
}

/// An inclusive scan of every thread's `value` with `op`, whose total the
/// group's last thread combines atomically into element `index` of
/// `target` (an [`UpdateTarget`], as for [`reduce_update_async`]); every
/// thread gets its scan combined after the element's value before that
/// update (CUDA's `cg::inclusive_scan_update`). Groups that
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
pub fn inclusive_scan_update<G, T, O, X>(
    group: &G,
    target: &X,
    index: X::Index,
    value: T,
    op: O,
) -> T
where
    G: Group,
    T: Shuffle + AtomicElem,
    O: AtomicUpdate<T>,
    X: UpdateTarget<T>,
{
    let call = (c"inclusive_scan_update", "inclusive_scan_update");
    scan_update(group, target, index, value, op, call).0
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
pub fn exclusive_scan_update<G, T, O, X>(
    group: &G,
    target: &X,
    index: X::Index,
    value: T,
    op: O,
) -> T
where
    G: Group,
    T: Shuffle + AtomicElem,
    O: AtomicUpdate<T>,
    X: UpdateTarget<T>,
{
    let call = (c"exclusive_scan_update", "exclusive_scan_update");
    scan_update(group, target, index, value, op, call).1
}

/// The two scan updates' shared body: the group's scan, whose total one
/// thread fetches into element `index` of `target`, named `call` (as C
/// and Rust strings) in the CPU backend's diagnostics and in the report of
/// an index out of bounds. Returns (inclusive, exclusive).
#[inline(always)]
#[track_caller]
fn scan_update<G, T, O, X>(
    group: &G,
    target: &X,
    index: X::Index,
    value: T,
    op: O,
    (cname, call): (&'static core::ffi::CStr, &'static str),
) -> (T, T)
where
    G: Group,
    T: Shuffle + AtomicElem,
    O: AtomicUpdate<T>,
    X: UpdateTarget<T>,
{
    let site = core::panic::Location::caller();
    <crate::backend::target::Target as crate::backend::Naming>::entering(call, site);
    let update = |total| target.fetch_combine(index, O::RMW, total, cname);
    group.scan_update_in(value, op, update, site)
}
