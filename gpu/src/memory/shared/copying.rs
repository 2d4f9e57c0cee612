//! [`Copying`]: the phase of a shared array that an asynchronous copy from
//! global memory is filling (CUDA's `cooperative_groups::memcpy_async`,
//! `wait` and `wait_prior`).
//!
//! [`Shared::copy_async`] (or [`Published::copy_async`], after a barrier
//! that ends every thread's reading) has the block's threads start copying
//! a slice of a kernel buffer into the array and returns it in flight:
//! nothing can read it, and no other copy can start into it, until
//! [`Copying::wait`] (or [`wait_prior`](Copying::wait_prior), which lets
//! the newest copies stay in flight) has waited for the copy and passed a
//! block barrier, which returns the array [`Published`]. Meanwhile the
//! threads do other work: the copy overlaps it.
//!
//! On the GPU each thread copies chunks of 16 bytes (8 or 4 where the
//! source is less aligned) with `cp.async`, sm_80 and later, the chunks
//! dealt to the threads in turn; the source's last partial chunk, the
//! zeros of a filling copy, and a source aligned to less than 4 bytes go
//! by ordinary loads and stores, which the wait's barrier publishes with
//! the copies. The CPU
//! backend reads the source when the copy starts and writes the array when
//! the wait lands it; an access to the array before then (through
//! [`RawShared`](super::RawShared)) is reported, naming the copy.

use super::phase::Published;
use super::{Region, Shared, SharedArray, SharedElem};
use crate::ThreadBlock;
use crate::backend::target::{SharedBase, Target};
use crate::backend::{AsyncCopies, Faults, SharedMemory, Site, site};
use core::marker::PhantomData;

/// A shared array an asynchronous copy is filling; see the
/// [module](self). Waiting returns it [`Published`].
///
/// ```
/// use coop::prelude::*;
/// use coop::shared::Shared;
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// Each block sums its tile of 256 values, staged through shared memory
/// /// by an asynchronous copy (the last tile is partial: zeros fill it).
/// #[kernel]
/// pub fn tile_sums(block: ThreadBlock, input: &[f32], sums: Out<f32>, tile: Shared<[f32; 256]>) {
///     let b = block.group_index().x as usize;
///     let start = (b * 256).min(input.len());
///     let end = (start + 256).min(input.len());
///     let copying = tile.copy_async_filled(&block, &input[start..end]);
///     // ... other work overlaps the copy ...
///     let tile = copying.wait(&block);
///     let t = block.thread_rank() as usize;
///     let total = reduce(&block, tile.get(t), op::Sum);
///     if t == 0 {
///         sums.write(b, total);
///     }
/// }
///
/// let input: Vec<f32> = (0..1000).map(|i| (i % 10) as f32).collect();
/// let mut sums = vec![0f32; 4];
/// Cpu::new().launch(tile_sums, LaunchConfig::new(4, 256), (&input[..], &mut sums))?;
/// let expected: Vec<f32> = input.chunks(256).map(|c| c.iter().sum()).collect();
/// assert_eq!(sums, expected);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[must_use = "the copy must be waited for before the array is used: call `.wait(&block)`"]
pub struct Copying<A: SharedArray + ?Sized> {
    pub(super) region: Region,
    /// The copy's group of each thread (the CPU backend's number; 0 on a
    /// GPU).
    pub(super) group: u32,
    _array: PhantomData<*const A>,
}

/// What a [`Copying`] array lacks: the wait for its copy. Nothing
/// implements it; it exists for the error message.
#[diagnostic::on_unimplemented(
    message = "a shared array that an asynchronous copy is filling cannot be read or written",
    label = "the copy may not have landed yet",
    note = "wait for the copy first: `.wait(&block)` (or `.wait_prior::<N>(&block)`) returns the array `Published` once the copy has landed, after a block barrier",
    note = "another copy into the array starts from that `Published` array, with its `copy_async`"
)]
pub trait CopyLanded {}

impl<A: SharedArray + ?Sized> Copying<A> {
    /// Does not exist: the copy may not have landed. Calling it is a
    /// compile error that says so.
    ///
    /// ```compile_fail,E0277
    /// use coop::prelude::*;
    /// use coop::shared::Shared;
    ///
    /// #[kernel]
    /// pub fn too_early(block: ThreadBlock, input: &[u32], out: Out<u32>, s: Shared<[u32; 64]>) {
    ///     let copying = s.copy_async(&block, &input[..64]);
    ///     out.write(0, copying.get(0)); // error: the copy is in flight
    /// }
    /// ```
    #[doc(hidden)]
    pub fn get(&self, _index: A::Index) -> A::Elem
    where
        Self: CopyLanded,
    {
        unreachable!("`CopyLanded` has no implementations")
    }

    /// Does not exist: another copy into the array must wait until this
    /// one has landed. Calling it is a compile error that says so.
    #[doc(hidden)]
    pub fn copy_async(self, _block: &ThreadBlock, _src: &[A::Elem]) -> Copying<A>
    where
        Self: CopyLanded,
    {
        unreachable!("`CopyLanded` has no implementations")
    }

    /// Waits until the copy has landed and every thread of the block has
    /// waited (a block barrier): every element is then visible to every
    /// thread. Every thread of the block calls it. PTX: `cp.async.wait_group
    /// 0` and `barrier.sync 0`.
    ///
    /// See [`Copying`] for an example.
    #[inline(always)]
    #[track_caller]
    pub fn wait(self, block: &ThreadBlock) -> Published<A> {
        let site = site!();
        Target::wait_copies::<0>(Some(self.group), "wait", site);
        block.sync_named("wait", site);
        Published::new(self.region)
    }

    /// Waits until the copy has landed, leaving in flight the `N` copies
    /// the block started after it (at most eight), then a block barrier:
    /// the next tiles load while this one is used. Copies must be waited
    /// for in the order they were started: with fewer than `N` copies
    /// started after this one it would still be in flight, which the CPU
    /// backend reports. PTX: `cp.async.wait_group N` and `barrier.sync 0`.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::Shared;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Two tiles in flight at once: the second loads while the first is summed.
    /// #[kernel]
    /// pub fn two_tiles(block: ThreadBlock, input: &[u32], out: Out<u32>,
    ///                  a: Shared<[u32; 64]>, b: Shared<[u32; 64]>) {
    ///     let first = a.copy_async(&block, &input[..64]);
    ///     let second = b.copy_async(&block, &input[64..128]);
    ///     let a = first.wait_prior::<1>(&block); // `second` may still be in flight
    ///     let t = block.thread_rank() as usize;
    ///     let x = a.get(t);
    ///     let b = second.wait(&block);
    ///     out.write(t, x + b.get(t));
    /// }
    ///
    /// let input: Vec<u32> = (0..128).collect();
    /// let mut out = vec![0u32; 64];
    /// Cpu::new().launch(two_tiles, LaunchConfig::new(1, 64), (&input[..], &mut out))?;
    /// assert_eq!(out[5], 5 + 69);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn wait_prior<const N: u32>(self, block: &ThreadBlock) -> Published<A> {
        const { assert!(N <= 8, "wait_prior::<N> keeps at most 8 copies in flight") };
        let site = site!();
        Target::wait_copies::<N>(Some(self.group), "wait_prior", site);
        block.sync_named("wait_prior", site);
        Published::new(self.region)
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

impl<A: SharedArray + ?Sized> Shared<A> {
    /// Starts copying `src` into the array's first `src.len()` elements
    /// (at most the array's length; `src` longer is refused): every thread
    /// of the block calls it with the same slice, and takes its share of
    /// the chunks. The rest of the array is left as it was. Returns the
    /// array in flight; see [`Copying`].
    #[inline(always)]
    #[track_caller]
    pub fn copy_async(self, block: &ThreadBlock, src: &[A::Elem]) -> Copying<A> {
        start(self.region, block, src, false, site!())
    }

    /// As [`copy_async`](Self::copy_async), with every element past
    /// `src.len()` set to zero: a partial last tile reads as zeros (CUDA's
    /// zero-filling `cp.async` form).
    #[inline(always)]
    #[track_caller]
    pub fn copy_async_filled(self, block: &ThreadBlock, src: &[A::Elem]) -> Copying<A> {
        start(self.region, block, src, true, site!())
    }
}

impl<A: SharedArray + ?Sized> Published<A> {
    /// A block barrier (every thread's reads of the array are done), then
    /// [`Shared::copy_async`]: the next tile into the same array.
    #[inline(always)]
    #[track_caller]
    pub fn copy_async(self, block: &ThreadBlock, src: &[A::Elem]) -> Copying<A> {
        let site = site!();
        block.sync_named("copy_async", site);
        start(self.region(), block, src, false, site)
    }

    /// A block barrier, then [`Shared::copy_async_filled`].
    #[inline(always)]
    #[track_caller]
    pub fn copy_async_filled(self, block: &ThreadBlock, src: &[A::Elem]) -> Copying<A> {
        let site = site!();
        block.sync_named("copy_async_filled", site);
        start(self.region(), block, src, true, site)
    }
}

/// Issues the calling thread's share of the copy and commits it.
#[inline(always)]
pub(super) fn start<A: SharedArray + ?Sized>(
    region: Region,
    block: &ThreadBlock,
    src: &[A::Elem],
    fill: bool,
    site: Site,
) -> Copying<A> {
    if src.len() > region.len {
        too_long(site);
    }
    // Ordinary stores (a source's tail, zeros) are published by the wait's
    // block barrier, as the copies are.
    let group = issue_group(
        region.base,
        0,
        region.len,
        src,
        fill,
        (block.thread_rank(), block.num_threads()),
        site,
    );
    Copying {
        region,
        group,
        _array: PhantomData,
    }
}

#[cold]
#[inline(never)]
fn too_long(site: Site) -> ! {
    Target::check_failed(
        c"copy_async: the source slice is longer than the shared array; copy at most the array's length",
        site,
    )
}

/// The calling thread's share (`rank` of `threads`) of a copy of `src`
/// into the `capacity` elements of the array at `base` from element
/// `first` (zeros after `src` with `fill`), committed as one group of its
/// copies; returns the group (the CPU backend's number).
#[inline(always)]
pub(crate) fn issue_group<E: SharedElem>(
    base: SharedBase,
    first: u32,
    capacity: usize,
    src: &[E],
    fill: bool,
    (rank, threads): (u32, u32),
    site: Site,
) -> u32 {
    let plan = CopyPlan::new(first, capacity, src, fill);
    issue::<E>(plan, base, first, src, rank, threads, None, site);
    Target::commit_copies(site)
}

/// How a copy of `src` into the `capacity` elements of an array from
/// element `first` goes: the source's whole chunks of `chunk` bytes (16, 8
/// or 4, as the source's alignment, the destination's and the capacity
/// allow; 0 where none does) by `cp.async`, the rest (the source's last
/// partial chunk, the zeros of a filling copy, everything where no chunk
/// size fits) by ordinary loads and stores, so that no copy reads a byte
/// past the source (compute-sanitizer's memcheck reports a `cp.async`
/// whose chunk runs past its buffer, even one told to read fewer bytes).
/// Every thread computes the same plan.
#[derive(Clone, Copy)]
pub(crate) struct CopyPlan {
    chunk: usize,
    /// Chunks copied by `cp.async`.
    whole: usize,
    /// Elements those chunks hold.
    copied: usize,
    /// Elements the copy writes in all.
    count: usize,
}

impl CopyPlan {
    #[inline(always)]
    pub(crate) fn new<E: SharedElem>(first: u32, capacity: usize, src: &[E], fill: bool) -> Self {
        let size = core::mem::size_of::<E>();
        let start = first as usize * size;
        let capacity_bytes = capacity * size;
        let address = src.as_ptr() as usize;
        let chunk = [16usize, 8, 4]
            .into_iter()
            .find(|&c| {
                address.is_multiple_of(c)
                    && start.is_multiple_of(c)
                    && capacity_bytes.is_multiple_of(c)
            })
            .unwrap_or(0);
        let whole = core::mem::size_of_val(src).checked_div(chunk).unwrap_or(0);
        CopyPlan {
            chunk,
            whole,
            copied: whole * chunk / size.max(1),
            count: if fill { capacity } else { src.len() },
        }
    }

    /// Whether ordinary stores write part of the array: a block barrier
    /// must publish them before another thread reads it (every wait's
    /// barrier does), and one must come before them where other threads
    /// may still read what they overwrite.
    #[inline(always)]
    pub(crate) fn stores(&self) -> bool {
        self.copied < self.count
    }
}

/// The calling thread's share (`rank` of `threads`) of copying `src` into
/// the array at `base` from element `first` as `plan` says: its chunks
/// (dealt to the threads in turn) by `cp.async` into its open group, and
/// its elements of the rest by ordinary stores. With `landing` (an
/// mbarrier's array and byte offset), the stores are published by the
/// thread's next arrival on that barrier (which the caller makes, with the
/// arrival that waits for the chunks) instead of a block barrier.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn issue<E: SharedElem>(
    plan: CopyPlan,
    base: SharedBase,
    first: u32,
    src: &[E],
    rank: u32,
    threads: u32,
    landing: Option<(SharedBase, u32)>,
    site: Site,
) {
    let start = first as usize * core::mem::size_of::<E>();
    let mut c = rank as usize;
    while c < plan.whole {
        let off = c * plan.chunk;
        Target::copy_chunk(
            base,
            (start + off) as u32,
            // SAFETY: the chunk lies inside the source slice.
            unsafe { (src.as_ptr() as *const u8).add(off) },
            plan.chunk as u32,
            site,
        );
        c += threads as usize;
    }
    // Element by element: the source's tail, then zeros.
    let mut i = plan.copied + rank as usize;
    while i < plan.count {
        let value = if i < src.len() {
            src[i]
        } else {
            // SAFETY: every bit pattern of a `SharedElem` is a value.
            unsafe { core::mem::zeroed() }
        };
        match landing {
            Some((bars, bar)) => {
                Target::shared_store_on_barrier(base, first + i as u32, value, bars, bar, site)
            }
            None => Target::shared_store(base, first + i as u32, value, site),
        }
        i += threads as usize;
    }
}
