//! The escape hatch: shared-memory access without phase checks.

use super::phase::element;
use super::{Region, SharedArray};
use crate::backend::target::Target;
use crate::backend::{site, SharedMemory};
use core::marker::PhantomData;

/// A shared array without phase checks: any thread may read or write any
/// element, for patterns the [`Owned`](super::Owned) /
/// [`Published`](super::Published) phases cannot express (a tree
/// reduction that halves the active threads between barriers, a halo cell
/// written by a chosen thread, a warp that works alone in its own part of
/// the array).
///
/// # Contract
///
/// Between two block barriers, an element that one thread writes is not
/// read or written by any other thread, except by threads of the same tile
/// after a `TiledPartition::sync` that both called following the write.
/// Breaking it is a data race: the values read are unspecified. The CPU
/// backend checks the contract on every access and stops the launch at the
/// first race, naming both threads and both `file:line`s; indices are
/// still bounds-checked.
///
/// ```
/// use coop::prelude::*;
/// use coop::shared::Shared;
/// use coop_host::{Cpu, LaunchConfig};
///
/// // The first seed's block reduction: halve the active threads each round.
/// #[kernel]
/// pub fn tree_sum(block: ThreadBlock, input: &[f32], out: Out<f32>, cache: Shared<[f32; 256]>) {
///     let cache = cache.into_raw();
///     let r = block.thread_rank() as usize;
///     // SAFETY: each thread writes its own element; the barrier follows.
///     unsafe { cache.write(r, input[r]) };
///     block.sync();
///     let mut half = 128;
///     while half > 0 {
///         if r < half {
///             // SAFETY: in this round thread r alone writes element r, and
///             // element r + half is written by nobody.
///             unsafe { cache.write(r, cache.read(r) + cache.read(r + half)) };
///         }
///         block.sync();
///         half /= 2;
///     }
///     if r == 0 {
///         // SAFETY: after the last barrier nobody writes.
///         out.write(0, unsafe { cache.read(0) });
///     }
/// }
///
/// let input = vec![1.0f32; 256];
/// let mut out = vec![0.0f32; 1];
/// Cpu::new().launch(tree_sum, LaunchConfig::new(1, 256), (&input[..], &mut out))?;
/// assert_eq!(out, [256.0]);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct RawShared<A: SharedArray + ?Sized> {
    region: Region,
    _array: PhantomData<*const A>,
}

impl<A: SharedArray + ?Sized> Clone for RawShared<A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A: SharedArray + ?Sized> Copy for RawShared<A> {}

impl<A: SharedArray + ?Sized> RawShared<A> {
    #[inline(always)]
    pub(super) fn new(region: Region) -> Self {
        RawShared {
            region,
            _array: PhantomData,
        }
    }

    /// Reads element `index` (panics outside the array).
    ///
    /// # Safety
    ///
    /// No other thread writes the element between the barriers around this
    /// read (see the [contract](RawShared#contract)).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn read(&self, index: A::Index) -> A::Elem {
        let site = site!();
        let i = element::<A>(&self.region, index, site);
        Target::shared_load(self.region.base, i, site)
    }

    /// Writes `value` to element `index` (panics outside the array).
    ///
    /// # Safety
    ///
    /// No other thread reads or writes the element between the barriers
    /// around this write (see the [contract](RawShared#contract)).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn write(&self, index: A::Index, value: A::Elem) {
        let site = site!();
        let i = element::<A>(&self.region, index, site);
        Target::shared_store(self.region.base, i, value, site);
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
}
