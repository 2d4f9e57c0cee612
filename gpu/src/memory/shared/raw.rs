//! The escape hatch: shared-memory access without phase checks.

use super::copying::{CopyPlan, issue};
use super::phase::element;
use super::{Region, SharedArray};
use crate::ThreadBlock;
use crate::backend::target::Target;
use crate::backend::{AsyncCopies, Faults, SharedMemory, site};
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

    #[inline(always)]
    pub(super) fn raw_region(&self) -> Region {
        self.region
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

    /// Starts an asynchronous copy of `src` into the elements from
    /// `first` on (a block-wide call, every thread with the same
    /// arguments; see [`Shared::copy_async`](super::Shared::copy_async)),
    /// without the [`Copying`](super::Copying) phase: the threads go on
    /// using the array through this handle, and
    /// [`wait_copies`](Self::wait_copies) waits for every copy the block
    /// started.
    ///
    /// # Safety
    ///
    /// No thread reads or writes the copied elements until
    /// `wait_copies` has returned (the CPU backend reports an access to an
    /// element a copy has not landed in, naming the copy), and the copy
    /// fits the array from `first`.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::Shared;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn halves(block: ThreadBlock, input: &[u32], out: Out<u32>, s: Shared<[u32; 128]>) {
    ///     let s = s.into_raw();
    ///     let t = block.thread_rank() as usize;
    ///     // SAFETY: nobody touches elements 64..128 before the wait.
    ///     unsafe { s.copy_async(&block, 64, &input[64..128]) };
    ///     unsafe { s.write(t, input[t] * 10) }; // the first half by hand meanwhile
    ///     s.wait_copies(&block);
    ///     // SAFETY: after the barrier of `wait_copies` nobody writes.
    ///     out.write(t, unsafe { s.read(t) + s.read(t + 64) });
    /// }
    ///
    /// let input: Vec<u32> = (0..128).collect();
    /// let mut out = vec![0u32; 64];
    /// Cpu::new().launch(halves, LaunchConfig::new(1, 64), (&input[..], &mut out))?;
    /// assert_eq!(out[3], 30 + 67);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub unsafe fn copy_async(&self, block: &ThreadBlock, first: usize, src: &[A::Elem]) {
        let site = site!();
        if first + src.len() > self.region.len {
            Target::check_failed(
                c"RawShared::copy_async: the copy runs past the end of the shared array",
                site,
            );
        }
        // Ordinary stores (a source's tail) are published by `wait_copies`'s
        // barrier, as the copies are.
        let plan = CopyPlan::new(first as u32, src.len(), src, false);
        issue::<A::Elem>(
            plan,
            self.region.base,
            first as u32,
            src,
            block.thread_rank(),
            block.num_threads(),
            None,
            site,
        );
        Target::commit_copies(site);
    }

    /// Waits for every asynchronous copy the block started into shared
    /// memory, then a block barrier: the copies' elements are visible to
    /// every thread. PTX: `cp.async.wait_group 0`, `barrier.sync 0`.
    #[inline(always)]
    #[track_caller]
    pub fn wait_copies(&self, block: &ThreadBlock) {
        let site = site!();
        Target::wait_copies::<0>(None, "wait_copies", site);
        block.sync_named("wait_copies", site);
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
