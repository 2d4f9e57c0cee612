//! Atomic operations on a kernel's device buffers: [`AtomicOut`], the
//! atomic view of an [`Out`] buffer, whose every operation is one PTX
//! `atom` (or `red`, when the result is not used) with the
//! [`Scope`] and [`Ordering`] you choose.
//!
//! | method | CUDA | PTX | types |
//! |---|---|---|---|
//! | [`fetch_add`](AtomicOut::fetch_add) / [`add`](AtomicOut::add) | `atomicAdd` | `atom.add` / `red.add` | `u32 i32 u64 i64 f32 f64` |
//! | [`fetch_sub`](AtomicOut::fetch_sub) / [`sub`](AtomicOut::sub) | `atomicSub` | `atom.add` of the negation | `u32 i32 u64 i64 f32 f64` |
//! | [`fetch_min`](AtomicOut::fetch_min), [`fetch_max`](AtomicOut::fetch_max) / [`min`](AtomicOut::min), [`max`](AtomicOut::max) | `atomicMin`, `atomicMax` | `atom.min`, `atom.max` | `u32 i32 u64 i64` |
//! | [`fetch_and`](AtomicOut::fetch_and), [`fetch_or`](AtomicOut::fetch_or), [`fetch_xor`](AtomicOut::fetch_xor) / [`and`](AtomicOut::and), [`or`](AtomicOut::or), [`xor`](AtomicOut::xor) | `atomicAnd`, `atomicOr`, `atomicXor` | `atom.and`, `.or`, `.xor` | `u32 i32 u64 i64` |
//! | [`swap`](AtomicOut::swap) | `atomicExch` | `atom.exch` | all six |
//! | [`compare_exchange`](AtomicOut::compare_exchange) | `atomicCAS` | `atom.cas` | all six (bits compared) |
//! | [`fetch_inc`](AtomicOut::fetch_inc), [`fetch_dec`](AtomicOut::fetch_dec) | `atomicInc`, `atomicDec` | `atom.inc`, `atom.dec` | `u32` |
//! | [`load`](AtomicOut::load), [`store`](AtomicOut::store) | `cuda::atomic_ref` | `ld.relaxed`/`.acquire`, `st.relaxed`/`.release` | all six |
//!
//! Every operation names PTX's `.global` state space (`red.relaxed.gpu.global.add.u32`),
//! which ptxas compiles to the global-memory atomics (`REDG`, `ATOMG`)
//! rather than the generic `ATOM` that checks the address's window at run
//! time: a contended counter goes faster (the binary-partition sample's
//! three counters, chapter 7 of the guide).
//!
//! Operations the hardware does not have (a float minimum, a `u64`
//! increment with wrap) are compile errors that say what to use instead.
//!
//! ```
//! use coop::prelude::*;
//! use coop_host::{Cpu, LaunchConfig};
//!
//! /// Counts the even inputs: every thread adds to one counter.
//! #[kernel]
//! pub fn count_even(grid: Grid, input: &[u32], count: Out<u32>) {
//!     let i = grid.thread_rank();
//!     if i < input.len() && input[i] % 2 == 0 {
//!         count.atomic().add(0, 1); // red.relaxed.gpu.global.add.u32
//!     }
//! }
//!
//! let input: Vec<u32> = (0..1000).collect();
//! let mut count = vec![0u32];
//! Cpu::new().launch(count_even, LaunchConfig::new(4, 256), (&input[..], &mut count))?;
//! assert_eq!(count, [500]);
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! **Scope** says which threads the operation is atomic for: [`Scope::Block`]
//! is enough when only one block touches the element, [`Scope::Cluster`]
//! when only the blocks of one cluster do, [`Scope::Device`]
//! (the default, CUDA's `atomicAdd`) when any thread of the launch may, and
//! [`Scope::System`] for memory the host or another GPU also updates.
//! **Ordering** says what the operation orders besides itself: counters and
//! histograms need none ([`Ordering::Relaxed`], the default); a flag that
//! publishes data written before it needs [`Ordering::Release`] on the
//! writer and [`Ordering::Acquire`] on the reader.
//!
//! On the CPU backend the operations have the same results (one emulated
//! thread runs at a time); `f32` additions flush subnormal values to zero
//! there as PTX's `atom.add.f32` does on the GPU.
//!
//! For shared memory, a `Shared` array has an atomic phase:
//! [`Owned::atomics`](crate::memory::shared::Owned::atomics).

use crate::Out;
use crate::backend::target::Target;
use crate::backend::{
    AtomicOp, Atomics, Faults, GlobalAccess, GlobalMemory, Rmw, Site, Word, site,
};
pub use crate::backend::{Ordering, Scope};
use core::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}

/// An element type the GPU updates atomically: `u32`, `i32`, `u64`, `i64`,
/// `f32` and `f64`, each of which has add, exchange, compare-and-swap,
/// load and store.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic operations on the GPU",
    label = "not an atomic element type",
    note = "atomics exist for u32, i32, u64, i64, f32 and f64; for a smaller type, update the 32-bit word that holds it with `compare_exchange`"
)]
pub trait AtomicElem: Copy + sealed::Sealed {
    #[doc(hidden)]
    const WORD: Word;
    #[doc(hidden)]
    fn to_bits(self) -> u64;
    #[doc(hidden)]
    fn from_bits(bits: u64) -> Self;
    #[doc(hidden)]
    fn negate(self) -> Self;
}

/// The integer element types, which also have minimum, maximum and the
/// bitwise operations: `u32`, `i32`, `u64`, `i64`.
#[diagnostic::on_unimplemented(
    message = "the GPU has no atomic minimum, maximum or bitwise operation on `{Self}`",
    label = "not an atomic integer type",
    note = "these exist for u32, i32, u64 and i64; for floats, loop on `compare_exchange`, or map non-negative floats to their bits (`f32::to_bits` keeps the order of non-negative values) and use the integer operation"
)]
pub trait AtomicInteger: AtomicElem {}

/// `u32`, the one type with increment and decrement with wrap-around.
#[diagnostic::on_unimplemented(
    message = "the GPU has atomic increment and decrement with wrap-around for `u32` only, not `{Self}`",
    label = "not `u32`",
    note = "for other types use `fetch_add(index, 1)` and `fetch_sub(index, 1)`"
)]
pub trait AtomicWrapping: AtomicInteger {}

macro_rules! elems {
    ($($t:ty => $word:ident, $to:expr, $from:expr, $neg:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl AtomicElem for $t {
            const WORD: Word = Word::$word;
            #[inline(always)]
            fn to_bits(self) -> u64 {
                let f: fn($t) -> u64 = $to;
                f(self)
            }
            #[inline(always)]
            fn from_bits(bits: u64) -> Self {
                let f: fn(u64) -> $t = $from;
                f(bits)
            }
            #[inline(always)]
            fn negate(self) -> Self {
                let f: fn($t) -> $t = $neg;
                f(self)
            }
        }
    )*};
}

elems! {
    u32 => U32, |x| x as u64, |b| b as u32, |x| x.wrapping_neg();
    i32 => S32, |x| x as u32 as u64, |b| b as u32 as i32, |x| x.wrapping_neg();
    u64 => U64, |x| x, |b| b, |x| x.wrapping_neg();
    i64 => S64, |x| x as u64, |b| b as i64, |x| x.wrapping_neg();
    f32 => F32, |x| x.to_bits() as u64, |b| f32::from_bits(b as u32), |x| -x;
    f64 => F64, |x| x.to_bits(), f64::from_bits, |x| -x;
}

impl AtomicInteger for u32 {}
impl AtomicInteger for i32 {}
impl AtomicInteger for u64 {}
impl AtomicInteger for i64 {}
impl AtomicWrapping for u32 {}

/// The atomic view of an [`Out`] buffer, from [`Out::atomic`]: every
/// thread may update any element, each update atomic for the threads of
/// the view's [`Scope`], ordered as its [`Ordering`] says. See the
/// [module](self) for the operations and their PTX.
///
/// Each operation takes an index and panics outside the buffer, naming
/// the index, the length and the caller's `file:line`, as [`Out::write`]
/// does.
#[must_use = "an atomic view does nothing until one of its operations is called"]
pub struct AtomicOut<'a, T> {
    ptr: *mut T,
    len: usize,
    scope: Scope,
    ordering: Ordering,
    _buffer: PhantomData<&'a [core::cell::UnsafeCell<T>]>,
}

impl<T> Clone for AtomicOut<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

/// A view is a pointer, a length, a scope and an ordering: copying it makes
/// another view of the same buffer.
impl<T> Copy for AtomicOut<'_, T> {}

impl<'a, T: AtomicElem> Out<'a, T> {
    /// The buffer's atomic view, at [`Scope::Device`] and
    /// [`Ordering::Relaxed`] (CUDA's `atomicAdd` and friends); see
    /// [`AtomicOut`].
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// A 4-bin histogram of the inputs' low two bits.
    /// #[kernel]
    /// pub fn bins(grid: Grid, input: &[u32], hist: Out<u32>) {
    ///     let i = grid.thread_rank();
    ///     if i < input.len() {
    ///         hist.atomic().add((input[i] % 4) as usize, 1);
    ///     }
    /// }
    ///
    /// let input: Vec<u32> = (0..103).collect();
    /// let mut hist = vec![0u32; 4];
    /// Cpu::new().launch(bins, LaunchConfig::new(2, 64), (&input[..], &mut hist))?;
    /// assert_eq!(hist, [26, 26, 26, 25]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn atomic(&self) -> AtomicOut<'a, T> {
        AtomicOut {
            ptr: self.as_mut_ptr(),
            len: self.len(),
            scope: Scope::Device,
            ordering: Ordering::Relaxed,
            _buffer: PhantomData,
        }
    }
}

impl<T: AtomicElem> AtomicOut<'_, T> {
    /// The same view with another scope.
    ///
    /// ```
    /// use coop::atomic::Scope;
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Each block counts its own threads into its own element: block
    /// /// scope is enough.
    /// #[kernel]
    /// pub fn per_block(block: ThreadBlock, counts: Out<u64>) {
    ///     let b = block.group_index().x as usize;
    ///     counts.atomic().with_scope(Scope::Block).add(b, 1);
    /// }
    ///
    /// let mut counts = vec![0u64; 3];
    /// Cpu::new().launch(per_block, LaunchConfig::new(3, 96), (&mut counts,))?;
    /// assert_eq!(counts, [96; 3]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn with_scope(self, scope: Scope) -> Self {
        AtomicOut { scope, ..self }
    }

    /// The same view with another ordering.
    ///
    /// ```
    /// use coop::atomic::Ordering;
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Thread 0 of each block writes a result, then raises a flag with
    /// /// release ordering: whoever sees the flag (acquire) sees the result.
    /// #[kernel]
    /// pub fn publish(block: ThreadBlock, results: Out<u32>, flags: Out<u32>) {
    ///     if block.thread_rank() == 0 {
    ///         let b = block.group_index().x as usize;
    ///         results.write(b, 7 * b as u32);
    ///         flags.atomic().with_ordering(Ordering::Release).store(b, 1);
    ///     }
    /// }
    ///
    /// let (mut results, mut flags) = (vec![0u32; 2], vec![0u32; 2]);
    /// Cpu::new().launch(publish, LaunchConfig::new(2, 32), (&mut results, &mut flags))?;
    /// assert_eq!((results, flags), (vec![0, 7], vec![1, 1]));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn with_ordering(self, ordering: Ordering) -> Self {
        AtomicOut { ordering, ..self }
    }

    /// The view's scope.
    #[inline(always)]
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// The view's ordering.
    #[inline(always)]
    pub fn ordering(&self) -> Ordering {
        self.ordering
    }

    /// Elements in the buffer.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element `index`'s address, checked.
    #[inline(always)]
    fn at(
        &self,
        index: usize,
        call: &'static core::ffi::CStr,
        op: AtomicOp,
        site: Site,
    ) -> *mut u8 {
        if index >= self.len {
            Target::index_out_of_bounds(call, self.ptr as *const u8, index, self.len, site);
        }
        let kind = GlobalAccess::Atomic {
            block_scope: self.scope == Scope::Block,
            cluster_scope: self.scope == Scope::Cluster,
            acquire: matches!(self.ordering, Ordering::Acquire | Ordering::AcqRel),
            release: matches!(self.ordering, Ordering::Release | Ordering::AcqRel),
            op,
        };
        Target::global_access(self.ptr as *const u8, index, kind, site);
        // SAFETY: in bounds of the live buffer.
        unsafe { self.ptr.add(index) as *mut u8 }
    }

    #[inline(always)]
    pub(crate) fn rmw(
        &self,
        index: usize,
        op: Rmw,
        value: T,
        call: &'static core::ffi::CStr,
        site: Site,
    ) -> T {
        let p = self.at(index, call, AtomicOp::Update, site);
        // SAFETY: `p` is an in-bounds element of the buffer, aligned for
        // `T`; `op` is one the public traits allow for `T`.
        T::from_bits(unsafe {
            Target::atomic_rmw(
                p,
                T::WORD,
                op,
                value.to_bits(),
                self.scope,
                self.ordering,
                site,
            )
        })
    }

    #[inline(always)]
    pub(crate) fn reduce(
        &self,
        index: usize,
        op: Rmw,
        value: T,
        call: &'static core::ffi::CStr,
        site: Site,
    ) {
        let p = self.at(index, call, AtomicOp::Update, site);
        // SAFETY: as in `rmw`.
        unsafe {
            Target::atomic_reduce(
                p,
                T::WORD,
                op,
                value.to_bits(),
                self.scope,
                self.ordering,
                site,
            )
        }
    }

    /// Adds `value` to element `index` and returns the old value (integers
    /// wrap). PTX `atom.add`; CUDA `atomicAdd`.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Each even input takes the next free slot of `out`: stream compaction.
    /// #[kernel]
    /// pub fn compact(grid: Grid, input: &[u32], out: Out<u32>, count: Out<u32>) {
    ///     let i = grid.thread_rank();
    ///     if i < input.len() && input[i] % 2 == 0 {
    ///         let slot = count.atomic().fetch_add(0, 1);
    ///         out.write(slot as usize, input[i]);
    ///     }
    /// }
    ///
    /// let input: Vec<u32> = (0..64).collect();
    /// let (mut out, mut count) = (vec![0u32; 32], vec![0u32]);
    /// Cpu::new().launch(compact, LaunchConfig::new(1, 64), (&input[..], &mut out, &mut count))?;
    /// out.sort();
    /// assert_eq!((count[0], out[31]), (32, 62));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "atomicAdd")]
    #[doc(alias = "atom.add")]
    pub fn fetch_add(&self, index: usize, value: T) -> T {
        self.rmw(index, Rmw::Add, value, c"AtomicOut::fetch_add", site!())
    }

    /// Adds `value` to element `index`, with no result: PTX `red.add`,
    /// cheaper than [`fetch_add`](Self::fetch_add) when the old value is
    /// not needed.
    ///
    /// See the [module](self) for an example.
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "red.add")]
    pub fn add(&self, index: usize, value: T) {
        self.reduce(index, Rmw::Add, value, c"AtomicOut::add", site!())
    }

    /// Subtracts `value` from element `index` and returns the old value:
    /// an atomic add of `-value` (integers wrap). CUDA `atomicSub`.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn take(grid: Grid, left: Out<i64>) {
    ///     let _ = grid;
    ///     left.atomic().fetch_sub(0, 3);
    /// }
    ///
    /// let mut left = vec![100i64];
    /// Cpu::new().launch(take, LaunchConfig::new(1, 10), (&mut left,))?;
    /// assert_eq!(left, [70]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "atomicSub")]
    pub fn fetch_sub(&self, index: usize, value: T) -> T {
        self.rmw(
            index,
            Rmw::Add,
            value.negate(),
            c"AtomicOut::fetch_sub",
            site!(),
        )
    }

    /// [`fetch_sub`](Self::fetch_sub) with no result (`red.add` of
    /// `-value`).
    #[inline(always)]
    #[track_caller]
    pub fn sub(&self, index: usize, value: T) {
        self.reduce(index, Rmw::Add, value.negate(), c"AtomicOut::sub", site!())
    }

    /// Stores `value` in element `index` and returns the old value. PTX
    /// `atom.exch`; CUDA `atomicExch`.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Every thread swaps its rank in; the old values are all distinct.
    /// #[kernel]
    /// pub fn chain(grid: Grid, slot: Out<u32>, previous: Out<u32>) {
    ///     let r = grid.thread_rank();
    ///     previous.write(r, slot.atomic().swap(0, r as u32 + 1));
    /// }
    ///
    /// let (mut slot, mut previous) = (vec![0u32], vec![0u32; 8]);
    /// Cpu::new().launch(chain, LaunchConfig::new(1, 8), (&mut slot, &mut previous))?;
    /// previous.push(slot[0]);
    /// previous.sort();
    /// assert_eq!(previous, (0..=8).collect::<Vec<u32>>());
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "atomicExch")]
    #[doc(alias = "atom.exch")]
    pub fn swap(&self, index: usize, value: T) -> T {
        self.rmw(index, Rmw::Exchange, value, c"AtomicOut::swap", site!())
    }

    /// Stores `new` in element `index` if it holds `current` (bits
    /// compared: `-0.0` is not `0.0`, a NaN can match itself); returns
    /// `Ok(current)` when it did, `Err(actual)` otherwise. PTX `atom.cas`;
    /// CUDA `atomicCAS`.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// An atomic float maximum, which the GPU has no instruction for.
    /// #[kernel]
    /// pub fn max_f32(grid: Grid, input: &[f32], best: Out<f32>) {
    ///     let i = grid.thread_rank();
    ///     if i < input.len() {
    ///         let atomic = best.atomic();
    ///         let mut seen = atomic.load(0);
    ///         while input[i] > seen {
    ///             match atomic.compare_exchange(0, seen, input[i]) {
    ///                 Ok(_) => break,
    ///                 Err(actual) => seen = actual,
    ///             }
    ///         }
    ///     }
    /// }
    ///
    /// let input: Vec<f32> = (0..100).map(|i| ((i * 37) % 101) as f32).collect();
    /// let mut best = vec![f32::MIN];
    /// Cpu::new().launch(max_f32, LaunchConfig::new(1, 128), (&input[..], &mut best))?;
    /// assert_eq!(best, [100.0]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "atomicCAS")]
    #[doc(alias = "atom.cas")]
    pub fn compare_exchange(&self, index: usize, current: T, new: T) -> Result<T, T> {
        let site = site!();
        let p = self.at(
            index,
            c"AtomicOut::compare_exchange",
            AtomicOp::Update,
            site,
        );
        let expected = current.to_bits();
        // SAFETY: as in `rmw`; every element type has compare-and-swap.
        let old = unsafe {
            Target::atomic_cas(
                p,
                T::WORD,
                expected,
                new.to_bits(),
                self.scope,
                self.ordering,
                site,
            )
        };
        let width = if T::WORD.wide() {
            u64::MAX
        } else {
            u32::MAX as u64
        };
        if old & width == expected & width {
            Ok(T::from_bits(old))
        } else {
            Err(T::from_bits(old))
        }
    }

    /// Element `index`, read atomically (`ld.relaxed` or, with an acquiring
    /// ordering, `ld.acquire`).
    ///
    /// See [`compare_exchange`](Self::compare_exchange) for an example.
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, index: usize) -> T {
        let site = site!();
        let p = self.at(index, c"AtomicOut::load", AtomicOp::Load, site);
        // SAFETY: as in `rmw`.
        T::from_bits(unsafe { Target::atomic_load(p, T::WORD, self.scope, self.ordering, site) })
    }

    /// Stores `value` in element `index` atomically (`st.relaxed` or, with
    /// a releasing ordering, `st.release`).
    ///
    /// See [`with_ordering`](Self::with_ordering) for an example.
    #[inline(always)]
    #[track_caller]
    pub fn store(&self, index: usize, value: T) {
        let site = site!();
        let p = self.at(index, c"AtomicOut::store", AtomicOp::Store, site);
        // SAFETY: as in `rmw`.
        unsafe {
            Target::atomic_store(p, T::WORD, value.to_bits(), self.scope, self.ordering, site)
        }
    }
}

impl<T: AtomicElem> AtomicOut<'_, T> {
    /// Stores the smaller of element `index` and `value`; returns the old
    /// value. PTX `atom.min`; CUDA `atomicMin`.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn lowest(grid: Grid, input: &[i32], low: Out<i32>) {
    ///     let i = grid.thread_rank();
    ///     if i < input.len() {
    ///         low.atomic().min(0, input[i]);
    ///     }
    /// }
    ///
    /// let input = [5, -3, 9, -8, 2];
    /// let mut low = vec![i32::MAX];
    /// Cpu::new().launch(lowest, LaunchConfig::new(1, 32), (&input[..], &mut low))?;
    /// assert_eq!(low, [-8]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "atomicMin")]
    pub fn fetch_min(&self, index: usize, value: T) -> T
    where
        T: AtomicInteger,
    {
        self.rmw(index, Rmw::Min, value, c"AtomicOut::fetch_min", site!())
    }

    /// [`fetch_min`](Self::fetch_min) with no result (`red.min`).
    #[inline(always)]
    #[track_caller]
    pub fn min(&self, index: usize, value: T)
    where
        T: AtomicInteger,
    {
        self.reduce(index, Rmw::Min, value, c"AtomicOut::min", site!())
    }

    /// Stores the larger of element `index` and `value`; returns the old
    /// value. PTX `atom.max`; CUDA `atomicMax`.
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "atomicMax")]
    pub fn fetch_max(&self, index: usize, value: T) -> T
    where
        T: AtomicInteger,
    {
        self.rmw(index, Rmw::Max, value, c"AtomicOut::fetch_max", site!())
    }

    /// [`fetch_max`](Self::fetch_max) with no result (`red.max`).
    #[inline(always)]
    #[track_caller]
    pub fn max(&self, index: usize, value: T)
    where
        T: AtomicInteger,
    {
        self.reduce(index, Rmw::Max, value, c"AtomicOut::max", site!())
    }

    /// `element & value`; returns the old value. PTX `atom.and`.
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "atomicAnd")]
    pub fn fetch_and(&self, index: usize, value: T) -> T
    where
        T: AtomicInteger,
    {
        self.rmw(index, Rmw::And, value, c"AtomicOut::fetch_and", site!())
    }

    /// [`fetch_and`](Self::fetch_and) with no result (`red.and`).
    #[inline(always)]
    #[track_caller]
    pub fn and(&self, index: usize, value: T)
    where
        T: AtomicInteger,
    {
        self.reduce(index, Rmw::And, value, c"AtomicOut::and", site!())
    }

    /// `element | value`; returns the old value. PTX `atom.or`.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// A bitmap of which inputs occur (values below 64).
    /// #[kernel]
    /// pub fn seen(grid: Grid, input: &[u32], bits: Out<u64>) {
    ///     let i = grid.thread_rank();
    ///     if i < input.len() {
    ///         bits.atomic().or(0, 1u64 << input[i]);
    ///     }
    /// }
    ///
    /// let mut bits = vec![0u64];
    /// Cpu::new().launch(seen, LaunchConfig::new(1, 32), (&[3u32, 5, 3, 63][..], &mut bits))?;
    /// assert_eq!(bits, [(1 << 3) | (1 << 5) | (1 << 63)]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "atomicOr")]
    pub fn fetch_or(&self, index: usize, value: T) -> T
    where
        T: AtomicInteger,
    {
        self.rmw(index, Rmw::Or, value, c"AtomicOut::fetch_or", site!())
    }

    /// [`fetch_or`](Self::fetch_or) with no result (`red.or`).
    #[inline(always)]
    #[track_caller]
    pub fn or(&self, index: usize, value: T)
    where
        T: AtomicInteger,
    {
        self.reduce(index, Rmw::Or, value, c"AtomicOut::or", site!())
    }

    /// `element ^ value`; returns the old value. PTX `atom.xor`.
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "atomicXor")]
    pub fn fetch_xor(&self, index: usize, value: T) -> T
    where
        T: AtomicInteger,
    {
        self.rmw(index, Rmw::Xor, value, c"AtomicOut::fetch_xor", site!())
    }

    /// [`fetch_xor`](Self::fetch_xor) with no result (`red.xor`).
    #[inline(always)]
    #[track_caller]
    pub fn xor(&self, index: usize, value: T)
    where
        T: AtomicInteger,
    {
        self.reduce(index, Rmw::Xor, value, c"AtomicOut::xor", site!())
    }
}

impl<T: AtomicElem> AtomicOut<'_, T> {
    /// `old >= limit ? 0 : old + 1`, a counter that wraps after `limit`;
    /// returns the old value. PTX `atom.inc.u32`; CUDA `atomicInc`.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// A ring of 4 slots, taken in turn by 10 threads.
    /// #[kernel]
    /// pub fn ring(grid: Grid, next: Out<u32>) {
    ///     let _ = grid;
    ///     next.atomic().fetch_inc(0, 3);
    /// }
    ///
    /// let mut next = vec![0u32];
    /// Cpu::new().launch(ring, LaunchConfig::new(1, 10), (&mut next,))?;
    /// assert_eq!(next, [10 % 4]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "atomicInc")]
    pub fn fetch_inc(&self, index: usize, limit: T) -> T
    where
        T: AtomicWrapping,
    {
        self.rmw(index, Rmw::Inc, limit, c"AtomicOut::fetch_inc", site!())
    }

    /// `old == 0 || old > limit ? limit : old - 1`; returns the old value.
    /// PTX `atom.dec.u32`; CUDA `atomicDec`.
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "atomicDec")]
    pub fn fetch_dec(&self, index: usize, limit: T) -> T
    where
        T: AtomicWrapping,
    {
        self.rmw(index, Rmw::Dec, limit, c"AtomicOut::fetch_dec", site!())
    }
}
