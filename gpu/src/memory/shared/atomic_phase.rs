//! [`Atomics`]: the phase of a shared array in which any thread may update
//! any element atomically, between two block barriers.

use super::phase::element;
use super::{Owned, Ownership, Published, RawShared, Region, SharedArray};
use crate::ThreadBlock;
use crate::backend::target::Target;
use crate::backend::{Rmw, SharedMemory, Site, site};
use crate::memory::atomic::{AtomicElem, AtomicInteger, AtomicWrapping};
use core::marker::PhantomData;

/// A shared array in its atomic phase: every thread may update any element
/// with the atomic operations below (PTX `atom.shared`/`red.shared`, block
/// scope), and nothing else: plain reads and writes of the array do not
/// compile until [`publish`](Self::publish) or [`own`](Self::own) ends the
/// phase with a block barrier. Entered from a writing phase
/// ([`Owned::atomics`]) or a published one ([`Published::atomics`]), both
/// through a barrier, so that the elements start from values every thread
/// sees.
///
/// ```
/// use coop::prelude::*;
/// use coop::shared::{ByRank, Shared};
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// A 16-bin histogram of the inputs' low four bits, per block in shared
/// /// memory, then added to the output.
/// #[kernel]
/// pub fn histogram(block: ThreadBlock, input: &[u8], hist: Out<u32>, bins: Shared<[u32; 16]>) {
///     let t = block.thread_rank() as usize;
///     let zero = bins.own(ByRank::new());
///     if t < 16 {
///         zero.write(t, 0);
///     }
///     let bins = zero.atomics(&block); // barrier: every bin is 0
///     let mut i = this_grid().thread_rank();
///     while i < input.len() {
///         bins.add((input[i] & 15) as usize, 1);
///         i += this_grid().num_threads();
///     }
///     let bins = bins.publish(&block); // barrier: every update is done
///     if t < 16 {
///         hist.atomic().add(t, bins.get(t));
///     }
/// }
///
/// let input: Vec<u8> = (0..=255).collect();
/// let mut hist = vec![0u32; 16];
/// Cpu::new().launch(histogram, LaunchConfig::new(2, 64), (&input[..], &mut hist))?;
/// assert_eq!(hist, [16; 16]);
/// # Ok::<(), coop_host::Error>(())
/// ```
///
/// Reading an element in the phase does not compile, and says why:
///
/// ```compile_fail
/// use coop::prelude::*;
/// use coop::shared::{ByRank, Shared};
///
/// #[kernel]
/// pub fn peek(block: ThreadBlock, out: Out<u32>, bins: Shared<[u32; 32]>) {
///     let t = block.thread_rank() as usize;
///     let zero = bins.own(ByRank::new());
///     zero.set(0);
///     let bins = zero.atomics(&block);
///     bins.add(t % 4, 1);
///     out.write(t, bins.get(0)); // error: a plain read during the atomic phase
/// }
/// ```
#[must_use = "a shared array's phase is how its elements are reached: dropping it leaves the array unreachable until the kernel ends"]
pub struct Atomics<A: SharedArray + ?Sized> {
    region: Region,
    _array: PhantomData<*const A>,
}

/// What an [`Atomics`] phase lacks: plain reads and writes, which would
/// race with other threads' atomic updates. Nothing implements it; it
/// exists for the error message.
#[diagnostic::on_unimplemented(
    message = "a shared array in its atomic phase cannot be read or written plainly",
    label = "plain access while other threads may be updating the element",
    note = "other threads may still be updating it: end the phase with `.publish(&block)`, a block barrier that returns a `Published` view whose `get` reads any element, or `.own(&block, map)` to write",
    note = "during the phase, use the atomic operations (`add`, `fetch_add`, `swap`, `compare_exchange`, ...), which return the old value where you need it"
)]
pub trait PlainAccess {}

impl<A: SharedArray + ?Sized> Atomics<A> {
    #[inline(always)]
    pub(super) fn new(region: Region) -> Self {
        Atomics {
            region,
            _array: PhantomData,
        }
    }

    /// Elements in the array.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.region.len
    }

    /// Whether the array has no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.region.len == 0
    }

    /// Ends the phase with a block barrier: every thread's updates are
    /// done and visible, and any element can be read. Every thread of the
    /// block must call it, as for any barrier.
    ///
    /// See [`Atomics`] for an example.
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__syncthreads")]
    pub fn publish(self, block: &ThreadBlock) -> Published<A> {
        block.sync_named("Atomics::publish", site!());
        Published::new(self.region)
    }

    /// Ends the phase with a block barrier and starts a writing phase
    /// under `map`.
    #[inline(always)]
    #[track_caller]
    pub fn own<M: Ownership<A>>(self, block: &ThreadBlock, map: M) -> Owned<A, M> {
        let site = site!();
        block.sync_named("Atomics::own", site);
        Owned::new(self.region, map, site)
    }

    /// Gives up the phase checks for raw access; see [`RawShared`].
    #[inline(always)]
    pub fn into_raw(self) -> RawShared<A> {
        RawShared::new(self.region)
    }

    /// Not available: a plain read races with other threads' updates until
    /// the phase ends. Calling it is a compile error that says so.
    #[doc(hidden)]
    pub fn get(&self, _index: A::Index) -> A::Elem
    where
        Self: PlainAccess,
    {
        unreachable!("`PlainAccess` has no implementations")
    }

    /// Not available, as [`get`](Self::get).
    #[doc(hidden)]
    pub fn write(&self, _index: A::Index, _value: A::Elem)
    where
        Self: PlainAccess,
    {
        unreachable!("`PlainAccess` has no implementations")
    }
}

impl<A: SharedArray + ?Sized> Atomics<A>
where
    A::Elem: AtomicElem,
{
    #[inline(always)]
    pub(crate) fn rmw(&self, index: A::Index, op: Rmw, value: A::Elem, site: Site) -> A::Elem {
        let i = element::<A>(&self.region, index, site);
        A::Elem::from_bits(Target::shared_atomic_rmw(
            self.region.base,
            i,
            A::Elem::WORD,
            op,
            value.to_bits(),
            site,
        ))
    }

    #[inline(always)]
    pub(crate) fn reduce(&self, index: A::Index, op: Rmw, value: A::Elem, site: Site) {
        let i = element::<A>(&self.region, index, site);
        Target::shared_atomic_reduce(
            self.region.base,
            i,
            A::Elem::WORD,
            op,
            value.to_bits(),
            site,
        )
    }

    /// [`add`](Self::add) of element `i` of the flat array, without the
    /// bounds check (the device-wide histogram's hot loop, whose counter
    /// indices are in range by construction).
    ///
    /// # Safety
    ///
    /// `i` is below [`len`](Self::len).
    #[inline(always)]
    #[track_caller]
    pub(crate) unsafe fn add_unchecked(&self, i: u32, value: A::Elem) {
        Target::shared_atomic_reduce(
            self.region.base,
            i,
            A::Elem::WORD,
            Rmw::Add,
            value.to_bits(),
            site!(),
        )
    }

    /// Adds `value` to element `index` (integers wrap; `f32` flushes
    /// subnormal values to zero), returning the old value:
    /// `atom.shared.add`.
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "atomicAdd")]
    pub fn fetch_add(&self, index: A::Index, value: A::Elem) -> A::Elem {
        self.rmw(index, Rmw::Add, value, site!())
    }

    /// Adds `value` to element `index`: `red.shared.add`. See [`Atomics`]
    /// for an example.
    #[inline(always)]
    #[track_caller]
    pub fn add(&self, index: A::Index, value: A::Elem) {
        self.reduce(index, Rmw::Add, value, site!())
    }

    /// Subtracts `value`, returning the old value (an add of `-value`).
    #[inline(always)]
    #[track_caller]
    pub fn fetch_sub(&self, index: A::Index, value: A::Elem) -> A::Elem {
        self.rmw(index, Rmw::Add, value.negate(), site!())
    }

    /// Subtracts `value` (`red.shared.add` of `-value`).
    #[inline(always)]
    #[track_caller]
    pub fn sub(&self, index: A::Index, value: A::Elem) {
        self.reduce(index, Rmw::Add, value.negate(), site!())
    }

    /// Stores `value`, returning the old value: `atom.shared.exch`.
    #[inline(always)]
    #[track_caller]
    pub fn swap(&self, index: A::Index, value: A::Elem) -> A::Elem {
        self.rmw(index, Rmw::Exchange, value, site!())
    }

    /// Stores `new` if the element holds `current` (bits compared):
    /// `Ok(current)` if it did, `Err(actual)` otherwise.
    /// `atom.shared.cas`.
    #[inline(always)]
    #[track_caller]
    pub fn compare_exchange(
        &self,
        index: A::Index,
        current: A::Elem,
        new: A::Elem,
    ) -> Result<A::Elem, A::Elem> {
        let site = site!();
        let i = element::<A>(&self.region, index, site);
        let expected = current.to_bits();
        let old = Target::shared_atomic_cas(
            self.region.base,
            i,
            A::Elem::WORD,
            expected,
            new.to_bits(),
            site,
        );
        let width = if A::Elem::WORD.wide() {
            u64::MAX
        } else {
            u32::MAX as u64
        };
        if old & width == expected & width {
            Ok(A::Elem::from_bits(old))
        } else {
            Err(A::Elem::from_bits(old))
        }
    }
}

/// The integer operations of the phase, each as a pair: `$fetch` returns
/// the old value (`atom.shared`), `$red` does not (`red.shared`).
macro_rules! integer_pairs {
    ($($fetch:ident, $red:ident, $op:ident, $what:literal;)*) => {
        impl<A: SharedArray + ?Sized> Atomics<A>
        where
            A::Elem: AtomicElem,
        {
            $(
                #[doc = concat!($what, ", returning the old value (`atom.shared`).")]
                #[inline(always)]
                #[track_caller]
                pub fn $fetch(&self, index: A::Index, value: A::Elem) -> A::Elem
                where
                    A::Elem: AtomicInteger,
                {
                    self.rmw(index, Rmw::$op, value, site!())
                }

                #[doc = concat!($what, " (`red.shared`).")]
                #[inline(always)]
                #[track_caller]
                pub fn $red(&self, index: A::Index, value: A::Elem)
                where
                    A::Elem: AtomicInteger,
                {
                    self.reduce(index, Rmw::$op, value, site!())
                }
            )*
        }
    };
}

integer_pairs! {
    fetch_min, min, Min, "The smaller of the element and `value`";
    fetch_max, max, Max, "The larger of the element and `value`";
    fetch_and, and, And, "`element & value`";
    fetch_or, or, Or, "`element | value`";
    fetch_xor, xor, Xor, "`element ^ value`";
}

impl<A: SharedArray + ?Sized> Atomics<A>
where
    A::Elem: AtomicElem,
{
    /// `old >= limit ? 0 : old + 1`, returning the old value
    /// (`atom.shared.inc.u32`).
    #[inline(always)]
    #[track_caller]
    pub fn fetch_inc(&self, index: A::Index, limit: A::Elem) -> A::Elem
    where
        A::Elem: AtomicWrapping,
    {
        self.rmw(index, Rmw::Inc, limit, site!())
    }

    /// `old == 0 || old > limit ? limit : old - 1`, returning the old value
    /// (`atom.shared.dec.u32`).
    #[inline(always)]
    #[track_caller]
    pub fn fetch_dec(&self, index: A::Index, limit: A::Elem) -> A::Elem
    where
        A::Elem: AtomicWrapping,
    {
        self.rmw(index, Rmw::Dec, limit, site!())
    }
}

impl<A: SharedArray + ?Sized, M: Ownership<A>> Owned<A, M> {
    /// Ends the writing phase with a block barrier and starts an
    /// [`Atomics`] phase: every element written so far is visible, and any
    /// thread may update any element atomically.
    ///
    /// See [`Atomics`] for an example.
    #[inline(always)]
    #[track_caller]
    pub fn atomics(self, block: &ThreadBlock) -> Atomics<A> {
        block.sync_named("Owned::atomics", site!());
        Atomics::new(self.region())
    }
}

impl<A: SharedArray + ?Sized> Published<A> {
    /// Ends the reading phase with a block barrier (every read of it comes
    /// before) and starts an [`Atomics`] phase.
    #[inline(always)]
    #[track_caller]
    pub fn atomics(self, block: &ThreadBlock) -> Atomics<A> {
        block.sync_named("Published::atomics", site!());
        Atomics::new(self.region())
    }
}
