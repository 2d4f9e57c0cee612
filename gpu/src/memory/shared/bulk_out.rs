//! A whole shared array stored into a kernel buffer, or combined into it,
//! by the bulk-copy engine (sm_90): [`Owned::store_bulk`] and
//! [`Owned::reduce_bulk`] (and [`Published`]'s), which end the writing
//! phase with a block barrier, have one thread hand the array to the
//! engine (`cp.async.bulk.global.shared::cta`,
//! `cp.reduce.async.bulk.global.shared::cta`) and give it back
//! [`Storing`], as the tensor stores do: readable by every thread, written
//! again after [`Storing::wait`].
//!
//! Where a tensor store writes a tile of a multi-dimensional array through
//! a map the host made, these write a run of consecutive elements of an
//! [`Out`] buffer: `out[at .. at + N]` for an array of `N` elements. A
//! reduction combines each element atomically, so the arrays of many
//! blocks can land on the same elements (CUDA's cooperative groups do the
//! same for one value a group with `reduce_update_async`; here it is a
//! whole array, one instruction). The engine needs the destination on a
//! multiple of 16 bytes: `at` a multiple of 4 elements of 4 bytes (2 of 8),
//! refused otherwise at the call, on the GPU and the CPU backend.
//!
//! ```
//! use coop::prelude::*;
//! use coop::shared::{ByRank, Shared};
//! use coop_host::{Cpu, LaunchConfig};
//!
//! /// Every block counts the values of its share of `input` into 64 bins in
//! /// shared memory, then adds its bins into `bins` with one bulk reduction.
//! #[kernel]
//! pub fn histogram(block: ThreadBlock, input: &[u32], bins: Out<u32>, part: Shared<[u32; 64]>) {
//!     let t = block.thread_rank() as usize; // 64 threads
//!     let mine = part.own(ByRank::new());
//!     mine.set(0);
//!     let counts = mine.publish(&block).atomics(&block);
//!     let mut i = this_grid().thread_rank();
//!     while i < input.len() {
//!         counts.add(input[i] as usize % 64, 1);
//!         i += this_grid().num_threads();
//!     }
//!     let done = counts.publish(&block);
//!     let _ = done.reduce_bulk(&block, &bins, 0, op::Sum);
//! }
//!
//! let input: Vec<u32> = (0..5000).map(|i| i * 7).collect();
//! let mut bins = vec![0u32; 64];
//! Cpu::new().launch(histogram, LaunchConfig::new(3, 64), (&input[..], &mut bins))?;
//! let mut want = vec![0u32; 64];
//! for x in &input {
//!     want[*x as usize % 64] += 1;
//! }
//! assert_eq!(bins, want);
//! # Ok::<(), coop_host::Error>(())
//! ```

use super::phase::{Owned, Published};
use super::storing::{StorableArray, Storing};
use super::{Ownership, Region, SharedArray};
use crate::ThreadBlock;
use crate::backend::target::Target;
use crate::backend::{AsyncCopies, Faults, Rmw, Site, site};
use crate::memory::out::Out;
use crate::memory::tensor::{TensorElem, combine_in_place};
use core::ffi::CStr;

mod sealed {
    pub trait Sealed {}
}

/// An operator the bulk-copy engine applies when it combines a shared
/// array into a kernel buffer (`cp.reduce.async.bulk`, sm_90):
/// [`op::Sum`](crate::op::Sum) of `u32`, `i32`, `u64`, `i64`, `f32` and
/// `f64`; [`op::Min`](crate::op::Min) and [`op::Max`](crate::op::Max) of
/// `u32`, `i32`, `u64` and `i64`; [`op::BitAnd`](crate::op::BitAnd),
/// [`op::BitOr`](crate::op::BitOr) and [`op::BitXor`](crate::op::BitXor)
/// of the same four integers. Each element is combined atomically.
///
/// ```
/// use coop::shared::BulkReduce;
/// use coop::op;
/// fn combines<E: coop::memory::tensor::TensorElem, O: BulkReduce<E>>(_: O) {}
/// combines::<f64, _>(op::Sum);
/// combines::<i64, _>(op::Min);
/// ```
///
/// Other pairs are compile errors that list these:
///
/// ```compile_fail,E0277
/// use coop::shared::BulkReduce;
/// use coop::op;
/// fn combines<E: coop::memory::tensor::TensorElem, O: BulkReduce<E>>(_: O) {}
/// combines::<f32, _>(op::Max); // the engine has no float minimum or maximum
/// ```
#[diagnostic::on_unimplemented(
    message = "the bulk-copy engine cannot combine `{E}` elements with `{Self}`",
    label = "no bulk reduction for this operator and element",
    note = "a bulk reduction (`cp.reduce.async.bulk`) takes `op::Sum` of `u32`, `i32`, `u64`, `i64`, `f32` or `f64`; `op::Min` or `op::Max` of `u32`, `i32`, `u64` or `i64`; `op::BitAnd`, `op::BitOr` or `op::BitXor` of `u32`, `i32`, `u64` or `i64`",
    note = "for anything else, combine the array's elements with atomics (`AtomicOut`)"
)]
pub trait BulkReduce<E: TensorElem>: crate::op::Operator<E> + sealed::Sealed {
    /// The engine's operation.
    #[doc(hidden)]
    const OP: Rmw;
    /// The CPU backend's: `*global = op(*global, *tile)`.
    ///
    /// # Safety
    ///
    /// Both point to one (possibly unaligned) `E`, `global` writable.
    #[doc(hidden)]
    unsafe fn combine_element(global: *mut u8, tile: *const u8);
}

macro_rules! bulk_reduces {
    ($($op:ident => $kind:ident: $($t:ty),*);* $(;)?) => {$(
        impl sealed::Sealed for crate::op::$op {}
        $(impl BulkReduce<$t> for crate::op::$op {
            const OP: Rmw = Rmw::$kind;
            unsafe fn combine_element(global: *mut u8, tile: *const u8) {
                // SAFETY: the caller's: one `$t` each.
                unsafe { combine_in_place::<$t, _>(&crate::op::$op, global, tile) }
            }
        })*
    )*};
}
bulk_reduces! {
    Sum => Add: u32, i32, u64, i64, f32, f64;
    Min => Min: u32, i32, u64, i64;
    Max => Max: u32, i32, u64, i64;
    BitAnd => And: u32, i32, u64, i64;
    BitOr => Or: u32, i32, u64, i64;
    BitXor => Xor: u32, i32, u64, i64;
}

impl<A: StorableArray, M: Ownership<A>> Owned<A, M> {
    /// Ends the writing phase and stores the whole array into
    /// `out[at .. at + N]` (`N` its elements, in their order) through the
    /// bulk-copy engine: every thread of the block calls it with the same
    /// buffer and `at`; each orders its writes for the engine, a block
    /// barrier follows, and one thread issues the store. `at` must be a
    /// multiple of 16 bytes' worth of elements and the run inside `out`
    /// (refused at the call otherwise, naming the rule). The writes land by
    /// the end of the launch.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::{ByRank, Shared};
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Block b writes the squares of b * 128 .. b * 128 + 128.
    /// #[kernel]
    /// pub fn squares(block: ThreadBlock, out: Out<u64>, tile: Shared<[u64; 128]>) {
    ///     let b = block.group_index().x as u64;
    ///     let mine = tile.own(ByRank::new());
    ///     let x = b * 128 + block.thread_rank() as u64;
    ///     mine.set(x * x);
    ///     let _ = mine.store_bulk(&block, &out, 128 * b as usize);
    /// }
    ///
    /// let mut out = vec![0u64; 384];
    /// Cpu::new().launch(squares, LaunchConfig::new(3, 128), (&mut out,))?;
    /// assert!(out.iter().enumerate().all(|(i, &s)| s == (i * i) as u64));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn store_bulk(self, block: &ThreadBlock, out: &Out<A::E>, at: usize) -> Storing<A> {
        let site = site!();
        bulk_from(self.region(), block, out, at, Bulk::Store, site)
    }

    /// As [`store_bulk`](Self::store_bulk), combining each element into
    /// `out`'s with `op`, atomically (`cp.reduce.async.bulk`): the arrays
    /// of several blocks may land on the same elements. The operators and
    /// elements the engine combines are [`BulkReduce`]'s. See the
    /// [module](self) for an example.
    #[inline(always)]
    #[track_caller]
    pub fn reduce_bulk<O: BulkReduce<A::E>>(
        self,
        block: &ThreadBlock,
        out: &Out<A::E>,
        at: usize,
        op: O,
    ) -> Storing<A> {
        let _ = op;
        let site = site!();
        let call = Bulk::Reduce(O::OP, O::combine_element);
        bulk_from(self.region(), block, out, at, call, site)
    }
}

impl<A: StorableArray> Published<A> {
    /// [`Owned::store_bulk`] of a published array: the fence the engine
    /// needs and one more block barrier, then the store.
    #[inline(always)]
    #[track_caller]
    pub fn store_bulk(self, block: &ThreadBlock, out: &Out<A::E>, at: usize) -> Storing<A> {
        let site = site!();
        bulk_from(self.region(), block, out, at, Bulk::Store, site)
    }

    /// [`Owned::reduce_bulk`] of a published array, with the barrier
    /// [`store_bulk`](Self::store_bulk) has.
    #[inline(always)]
    #[track_caller]
    pub fn reduce_bulk<O: BulkReduce<A::E>>(
        self,
        block: &ThreadBlock,
        out: &Out<A::E>,
        at: usize,
        op: O,
    ) -> Storing<A> {
        let _ = op;
        let site = site!();
        let call = Bulk::Reduce(O::OP, O::combine_element);
        bulk_from(self.region(), block, out, at, call, site)
    }
}

impl<A: StorableArray> Storing<A> {
    /// Stores the same array again, into `out[at .. at + N]`: every thread
    /// calls it with the same arguments, one issues it; no barrier, as
    /// nothing has written the array since the first store's.
    #[inline(always)]
    #[track_caller]
    pub fn store_bulk(&self, _block: &ThreadBlock, out: &Out<A::E>, at: usize) {
        let site = site!();
        check::<A>(out, at, c"Storing::store_bulk", site);
        if self.issues() {
            issue::<A>(self.region(), out, at, Bulk::Store, site);
        }
    }

    /// Combines the same array again into `out[at .. at + N]` with `op`;
    /// see [`Owned::reduce_bulk`].
    #[inline(always)]
    #[track_caller]
    pub fn reduce_bulk<O: BulkReduce<A::E>>(
        &self,
        _block: &ThreadBlock,
        out: &Out<A::E>,
        at: usize,
        op: O,
    ) {
        let _ = op;
        let site = site!();
        check::<A>(out, at, c"Storing::reduce_bulk", site);
        if self.issues() {
            let call = Bulk::Reduce(O::OP, O::combine_element);
            issue::<A>(self.region(), out, at, call, site);
        }
    }
}

/// A bulk store, or a reduction with the engine's operation and the CPU
/// backend's combination.
#[derive(Clone, Copy)]
enum Bulk {
    Store,
    Reduce(Rmw, crate::backend::async_copies::CombineElement),
}

/// Every thread's part, then one thread's issue: the checks, the fence
/// that orders the thread's writes for the engine, the block barrier.
#[inline(always)]
fn bulk_from<A: StorableArray>(
    region: Region,
    block: &ThreadBlock,
    out: &Out<A::E>,
    at: usize,
    call: Bulk,
    site: Site,
) -> Storing<A> {
    let (name, what) = match call {
        Bulk::Store => ("store_bulk", c"store_bulk"),
        Bulk::Reduce(..) => ("reduce_bulk", c"reduce_bulk"),
    };
    check::<A>(out, at, what, site);
    Target::shared_writes_to_copy_engine(site);
    block.sync_named(name, site);
    let storing = Storing::<A>::issued_by(region, block);
    if storing.issues() {
        issue::<A>(region, out, at, call, site);
    }
    storing
}

/// The rules of a bulk store of `A` into `out` at `at`, for the call
/// `call` (its name, for the report): the array a multiple of 16 bytes on a 128-byte boundary
/// (compile time), the run inside the buffer, `at` on 16 bytes.
#[inline(always)]
fn check<A: StorableArray>(out: &Out<A::E>, at: usize, call: &'static CStr, site: Site) {
    const {
        assert!(
            <A as SharedArray>::BYTES >= 128 && <A as SharedArray>::BYTES.is_multiple_of(16),
            "the bulk-copy engine reads a shared array of a multiple of 16 bytes that starts on a 128-byte boundary, which coop gives arrays of 128 bytes or more: make the array at least 128 bytes, a multiple of 16"
        )
    };
    let n = <A as SharedArray>::BYTES / core::mem::size_of::<A::E>();
    if at > out.len() || out.len() - at < n {
        Target::index_out_of_bounds(
            call,
            out.as_mut_ptr() as *const u8,
            at.saturating_add(n - 1),
            out.len(),
            site,
        );
    }
    if !(at * core::mem::size_of::<A::E>()).is_multiple_of(16) {
        Target::check_failed(
            c"store_bulk, reduce_bulk: the first element `at` must lie on a multiple of 16 bytes (a multiple of 4 elements of 4 bytes, 2 of 8); the bulk-copy engine faults on any other",
            site,
        );
    }
    #[cfg(target_arch = "nvptx64")]
    if !(out.as_mut_ptr() as usize).is_multiple_of(16) {
        Target::check_failed(
            c"store_bulk, reduce_bulk: the buffer does not start on a multiple of 16 bytes (a view into another buffer?); the bulk-copy engine needs it",
            site,
        );
    }
    if !Target::BULK {
        Target::check_failed(
            c"store_bulk, reduce_bulk: bulk copies need sm_90 or newer",
            site,
        );
    }
}

/// The issuing thread's store or reduction of the array at `region` into
/// `out` at `at`.
#[inline(always)]
fn issue<A: StorableArray>(region: Region, out: &Out<A::E>, at: usize, call: Bulk, site: Site) {
    let bytes = <A as SharedArray>::BYTES as u32;
    let elem = core::mem::size_of::<A::E>() as u32;
    let buffer = out.as_mut_ptr() as *mut u8;
    match call {
        Bulk::Store => Target::bulk_store(region.base, 0, buffer, at, bytes, elem, site),
        Bulk::Reduce(op, combine) => Target::bulk_reduce(
            region.base,
            0,
            buffer,
            at,
            bytes,
            elem,
            op,
            <A::E as TensorElem>::DATA_TYPE,
            combine,
            site,
        ),
    }
}
