//! The phases of a shared array between barriers: [`Owned`] (each thread
//! writes and reads the elements it owns) and [`Published`] (every thread
//! reads every element). Moving from one to the other takes a block
//! barrier, so a thread can never read an element while its owner may
//! still be writing it.

use super::{Ownership, RawShared, Region, SharedArray};
use crate::backend::target::Target;
use crate::backend::{Faults, Registers, SharedMemory, Site, site};
use crate::{Dim3, ThreadBlock};
use core::marker::PhantomData;

/// A shared array while each thread writes the elements it owns under the
/// ownership map `M`. No other thread reads or writes them until
/// [`publish`](Self::publish), whose barrier ends the phase.
///
/// ```
/// use coop::prelude::*;
/// use coop::shared::{ByRank, Shared};
/// use coop_host::{Cpu, LaunchConfig};
///
/// #[kernel]
/// pub fn reverse(block: ThreadBlock, input: &[u32], out: Out<u32>, buf: Shared<[u32; 64]>) {
///     let r = block.thread_rank() as usize;
///     let mine = buf.own(ByRank::new());
///     mine.set(input[r]); // writes buf[r]
///     let all = mine.publish(&block); // barrier
///     out.write(r, all.get(63 - r));
/// }
///
/// let input: Vec<u32> = (0..64).collect();
/// let mut out = vec![0u32; 64];
/// Cpu::new().launch(reverse, LaunchConfig::new(1, 64), (&input[..], &mut out))?;
/// assert_eq!(out, (0..64).rev().collect::<Vec<u32>>());
/// # Ok::<(), coop_host::Error>(())
/// ```
///
/// Reading a neighbour's element needs the barrier first; it is a compile
/// error that says so:
///
/// ```compile_fail
/// use coop::prelude::*;
/// use coop::shared::{ByRank, Shared};
///
/// #[kernel]
/// pub fn too_early(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
///     let r = block.thread_rank() as usize;
///     let mine = buf.own(ByRank::new());
///     mine.set(r as u32);
///     out.write(r, mine.get((r + 1) % 64)); // error: read before `publish`
/// }
/// ```
#[must_use = "a shared array's phase is how its elements are reached: dropping it leaves the array unreachable until the kernel ends"]
pub struct Owned<A: SharedArray + ?Sized, M: Ownership<A>> {
    region: Region,
    map: M,
    thread: Dim3,
    dims: Dim3,
    _array: PhantomData<*const A>,
}

/// A shared array after a block barrier: every thread may read every
/// element; nobody writes until the next barrier
/// ([`own`](Self::own)).
///
/// ```
/// use coop::prelude::*;
/// use coop::shared::{ByRank, Shared};
/// use coop_host::{Cpu, LaunchConfig};
///
/// #[kernel]
/// pub fn rotate_twice(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 32]>) {
///     let r = block.thread_rank() as usize;
///     let mine = buf.own(ByRank::new());
///     mine.set(r as u32);
///     let all = mine.publish(&block);
///     let next = all.get((r + 1) % 32);
///     let mine = all.own(&block, ByRank::new()); // barrier: reads are done
///     mine.set(next);
///     let all = mine.publish(&block);
///     out.write(r, all.get((r + 1) % 32));
/// }
///
/// let mut out = vec![0u32; 32];
/// Cpu::new().launch(rotate_twice, LaunchConfig::new(1, 32), (&mut out,))?;
/// assert_eq!(out, (0..32).map(|r| (r + 2) % 32).collect::<Vec<u32>>());
/// # Ok::<(), coop_host::Error>(())
/// ```
///
/// A published array cannot be written:
///
/// ```compile_fail
/// use coop::prelude::*;
/// use coop::shared::{ByRank, Shared};
///
/// #[kernel]
/// pub fn write_after_publish(block: ThreadBlock, buf: Shared<[u32; 32]>) {
///     let mine = buf.own(ByRank::new());
///     mine.set(1);
///     let all = mine.publish(&block);
///     let _ = all.get(0);
///     mine.set(2); // `mine` was moved into `publish`
/// }
/// ```
#[must_use = "a shared array's phase is how its elements are reached: dropping it leaves the array unreachable until the kernel ends"]
pub struct Published<A: SharedArray + ?Sized> {
    region: Region,
    _array: PhantomData<*const A>,
}

#[inline(always)]
pub(super) fn element<A: SharedArray + ?Sized>(
    region: &Region,
    index: A::Index,
    site: Site,
) -> u32 {
    match A::flat(index, region.len) {
        Some(i) => i,
        None => Target::shared_index_out_of_bounds(index, region.len, A::COLS, site),
    }
}

/// What an [`Owned`] phase lacks: the barrier that lets a thread read
/// other threads' elements. Nothing implements it; it exists for the error
/// message.
#[diagnostic::on_unimplemented(
    message = "a shared array in its writing phase cannot be read at any index",
    label = "read before the barrier",
    note = "other threads may still be writing: end the phase with `.publish(&block)`, a block barrier that returns a `Published` view whose `get` reads any element",
    note = "in the writing phase a thread reads only its own elements, with `read`"
)]
pub trait ReadAnyElement {}

/// What a [`Published`] view lacks: the barrier after which no thread is
/// still reading. Nothing implements it; it exists for the error message.
#[diagnostic::on_unimplemented(
    message = "a published shared array cannot be written",
    label = "write while other threads may be reading",
    note = "start a new writing phase with `.own(&block, map)`: a block barrier after which each thread writes the elements `map` gives it"
)]
pub trait WriteOwnElement {}

impl<A: SharedArray + ?Sized, M: Ownership<A>> Owned<A, M> {
    #[inline(always)]
    pub(super) fn new(region: Region, map: M, site: Site) -> Self {
        Owned {
            region,
            map,
            thread: Target::thread_index(site),
            dims: Target::block_dim(site),
            _array: PhantomData,
        }
    }

    #[inline(always)]
    fn owned_element(&self, index: A::Index, reads: bool, site: Site) -> u32 {
        let i = element::<A>(&self.region, index, site);
        if !self.map.owns(index, self.thread, self.dims) {
            self.not_owned(index, reads, site)
        }
        i
    }

    /// Reports the calling thread's access to `index`, which another
    /// thread owns, naming that owner.
    #[inline(always)]
    fn not_owned(&self, index: A::Index, reads: bool, site: Site) -> ! {
        Target::shared_element_not_owned(
            index,
            reads,
            self.thread,
            || self.map.owner(index, self.dims),
            site,
        )
    }

    /// The first element the calling thread owns: `rank` under
    /// [`ByRank`](super::ByRank), `(y, x)` under
    /// [`RowMajor`](super::RowMajor), `(x, y)` under
    /// [`ColumnMajor`](super::ColumnMajor).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::{ColumnMajor, Shared};
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn which(block: ThreadBlock, out: Out<u32>, tile: Shared<[[u32; 4]; 4]>) {
    ///     let mine = tile.own(ColumnMajor);
    ///     let (row, col) = mine.mine();
    ///     out.write(block.thread_rank() as usize, (10 * row + col) as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 16];
    /// Cpu::new().launch(which, LaunchConfig::new(1, (4, 4)), (&mut out,))?;
    /// assert_eq!(&out[..5], [0, 10, 20, 30, 1]); // thread (x, y) owns [x][y]
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn mine(&self) -> A::Index {
        self.map.first(self.thread, self.dims)
    }

    /// Writes `value` to element `index`, which the calling thread must own
    /// (it panics naming the owner otherwise, and outside the array).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::{RowMajor, Shared};
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// // 32 x 8 threads fill a 32 x 32 tile, four rows each.
    /// #[kernel]
    /// pub fn fill(block: ThreadBlock, out: Out<u32>, tile: Shared<[[u32; 32]; 32]>) {
    ///     let t = block.thread_index();
    ///     let mine = tile.own(RowMajor);
    ///     for j in (0..32).step_by(8) {
    ///         let (row, col) = (t.y as usize + j, t.x as usize);
    ///         mine.write((row, col), (32 * row + col) as u32);
    ///     }
    ///     let all = mine.publish(&block);
    ///     for j in (0..32).step_by(8) {
    ///         let (row, col) = (t.y as usize + j, t.x as usize);
    ///         out.write(32 * row + col, all.get((col, row))); // transposed
    ///     }
    /// }
    ///
    /// let mut out = vec![0u32; 1024];
    /// Cpu::new().launch(fill, LaunchConfig::new(1, (32, 8)), (&mut out,))?;
    /// assert_eq!(out[1], 32);
    /// assert_eq!(out[32], 1);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn write(&self, index: A::Index, value: A::Elem) {
        let site = site!();
        let i = self.owned_element(index, false, site);
        Target::shared_store(self.region.base, i, value, site);
    }

    /// Reads element `index`, which the calling thread must own: its own
    /// earlier writes are visible without a barrier.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::{ByRank, Shared};
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn accumulate(block: ThreadBlock, out: Out<u32>, acc: Shared<[u32; 32]>) {
    ///     let r = block.thread_rank() as usize;
    ///     let mine = acc.own(ByRank::new());
    ///     mine.write(r, 0);
    ///     for k in 1..=4 {
    ///         mine.write(r, mine.read(r) + k);
    ///     }
    ///     out.write(r, mine.read(r));
    /// }
    ///
    /// let mut out = vec![0u32; 32];
    /// Cpu::new().launch(accumulate, LaunchConfig::new(1, 32), (&mut out,))?;
    /// assert!(out.iter().all(|&v| v == 10));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn read(&self, index: A::Index) -> A::Elem {
        let site = site!();
        let i = self.owned_element(index, true, site);
        Target::shared_load(self.region.base, i, site)
    }

    /// Writes the calling thread's `n`-th element
    /// ([`Ownership::nth`](super::Ownership::nth)): `(i, j)` under
    /// [`RowMajor`](super::RowMajor) is `[y + i * dim_y][x + j * dim_x]`.
    /// The element is the thread's own by construction, so only the bounds
    /// are checked: cheaper than [`write`](Self::write) in a hot loop.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::{RowMajor, Shared};
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// // 8 x 2 threads fill an 8 x 8 tile, four rows each.
    /// #[kernel]
    /// pub fn fill(block: ThreadBlock, out: Out<u32>, tile: Shared<[[u32; 8]; 8]>) {
    ///     let mine = tile.own(RowMajor);
    ///     for i in 0..4 {
    ///         mine.write_nth((i, 0), block.thread_rank() + 100 * i as u32);
    ///     }
    ///     let tile = mine.publish(&block);
    ///     let t = block.thread_index();
    ///     out.write(block.thread_rank() as usize, tile.get((t.y as usize + 2, t.x as usize)));
    /// }
    ///
    /// let mut out = vec![0u32; 16];
    /// Cpu::new().launch(fill, LaunchConfig::new(1, (8, 2)), (&mut out,))?;
    /// assert_eq!(out[9], 109); // row 3 = thread row 1 + 2, its second pass
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn write_nth(&self, n: M::Nth, value: A::Elem) {
        let site = site!();
        let index = self.map.nth(n, self.thread, self.dims);
        self.check_owns_some(index, false, site);
        let i = element::<A>(&self.region, index, site);
        Target::shared_store(self.region.base, i, value, site);
    }

    /// Reports a thread that owns no element under the map (a tile's other
    /// threads under [`TileLeaders`](super::TileLeaders)) at its `n`-th
    /// element, naming the element's owner.
    #[inline(always)]
    fn check_owns_some(&self, index: A::Index, reads: bool, site: Site) {
        let owned = if M::NTH_CHECKED {
            self.map.owns(index, self.thread, self.dims)
        } else {
            self.map.owns_some(self.thread, self.dims)
        };
        if !owned {
            self.not_owned(index, reads, site)
        }
    }

    /// Reads the calling thread's `n`-th element; see
    /// [`write_nth`](Self::write_nth).
    #[inline(always)]
    #[track_caller]
    pub fn read_nth(&self, n: M::Nth) -> A::Elem {
        let site = site!();
        let index = self.map.nth(n, self.thread, self.dims);
        self.check_owns_some(index, true, site);
        let i = element::<A>(&self.region, index, site);
        Target::shared_load(self.region.base, i, site)
    }

    /// Writes the calling thread's first element ([`mine`](Self::mine)).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::{ByRank, Shared};
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn squares(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 16]>) {
    ///     let r = block.thread_rank();
    ///     let mine = buf.own(ByRank::new());
    ///     mine.set(r * r);
    ///     out.write(r as usize, mine.read(mine.mine()));
    /// }
    ///
    /// let mut out = vec![0u32; 16];
    /// Cpu::new().launch(squares, LaunchConfig::new(1, 16), (&mut out,))?;
    /// assert_eq!(out[5], 25);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn set(&self, value: A::Elem) {
        let site = site!();
        let i = self.owned_element(self.mine(), false, site);
        Target::shared_store(self.region.base, i, value, site);
    }

    /// Not available: reading any element needs the barrier of
    /// [`publish`](Self::publish) first. Calling it is a compile error that
    /// says so (use [`read`](Self::read) for the thread's own elements).
    ///
    /// ```compile_fail
    /// use coop::prelude::*;
    /// use coop::shared::{ByRank, Shared};
    ///
    /// #[kernel]
    /// pub fn too_early(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
    ///     let r = block.thread_rank() as usize;
    ///     let mine = buf.own(ByRank::new());
    ///     mine.set(r as u32);
    ///     out.write(r, mine.get((r + 1) % 64)); // error: read before `publish`
    /// }
    /// ```
    #[doc(hidden)]
    pub fn get(&self, _index: A::Index) -> A::Elem
    where
        Self: ReadAnyElement,
    {
        unreachable!("`ReadAnyElement` has no implementations")
    }

    /// Ends the phase with a block barrier ([`ThreadBlock::sync`]): every
    /// thread's writes are then visible to every thread of the block. Every
    /// thread of the block must call it, as for any barrier.
    ///
    /// See [`Owned`] for an example.
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__syncthreads")]
    #[doc(alias = "barrier.sync")]
    pub fn publish(self, block: &ThreadBlock) -> Published<A> {
        block.sync_named("Owned::publish", site!());
        Published {
            region: self.region,
            _array: PhantomData,
        }
    }

    /// Hands the array over to another ownership map with one block barrier:
    /// every element keeps its value, and from then on only its owner under
    /// `map` reads or writes it. This is the barrier a transposition
    /// through shared memory needs when each thread reads the element it
    /// will then overwrite (CUDA's `s[x][y] = v; __syncthreads(); s[k][j] +=
    /// ...;`): one barrier, where [`publish`](Self::publish) followed by
    /// [`Published::own`] would cost two. Every thread of the block must
    /// call it, as for any barrier.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::{ColumnMajor, RowMajor, Shared};
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Thread (x, y) writes [x][y]; after one barrier it owns [y][x],
    /// /// which it reads (another thread wrote it) and doubles in place.
    /// #[kernel]
    /// pub fn transpose_double(block: ThreadBlock, out: Out<u32>, tile: Shared<[[u32; 8]; 8]>) {
    ///     let t = block.thread_index();
    ///     let mine = tile.own(ColumnMajor);
    ///     mine.set(10 * t.x + t.y); // [x][y]
    ///     let mine = mine.own(&block, RowMajor); // barrier; now [y][x] is mine
    ///     let (row, col) = (t.y as usize, t.x as usize);
    ///     mine.write((row, col), 2 * mine.read((row, col)));
    ///     let all = mine.publish(&block);
    ///     out.write(block.thread_rank() as usize, all.get((row, col)));
    /// }
    ///
    /// let mut out = vec![0u32; 64];
    /// Cpu::new().launch(transpose_double, LaunchConfig::new(1, (8, 8)), (&mut out,))?;
    /// assert_eq!(out[8 * 2 + 5], 2 * (10 * 2 + 5)); // thread (5, 2) reads [2][5], written by (2, 5)
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    ///
    /// Under the new map a thread still reaches only its own elements: an
    /// element it owned before but not now is another thread's.
    ///
    /// ```compile_fail
    /// use coop::prelude::*;
    /// use coop::shared::{ByRank, Shared};
    ///
    /// #[kernel]
    /// pub fn stale(block: ThreadBlock, buf: Shared<[u32; 64]>) {
    ///     let mine = buf.own(ByRank::new());
    ///     mine.set(1);
    ///     let theirs = mine.own(&block, ByRank::offset(1));
    ///     mine.set(2); // `mine` was moved into `own`
    /// }
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__syncthreads")]
    #[doc(alias = "barrier.sync")]
    pub fn own<N: Ownership<A>>(self, block: &ThreadBlock, map: N) -> Owned<A, N> {
        let site = site!();
        block.sync_named("Owned::own", site);
        Owned::new(self.region, map, site)
    }

    /// Gives up the phase checks for raw access; see [`RawShared`].
    #[inline(always)]
    pub fn into_raw(self) -> RawShared<A> {
        RawShared::new(self.region)
    }

    /// The array, for the next phase.
    #[inline(always)]
    pub(super) fn region(&self) -> Region {
        self.region
    }
}

impl<A: SharedArray + ?Sized> Published<A> {
    #[inline(always)]
    pub(super) fn from_region(region: Region) -> Self {
        Published {
            region,
            _array: PhantomData,
        }
    }

    #[inline(always)]
    pub(super) fn new(region: Region) -> Self {
        Published {
            region,
            _array: PhantomData,
        }
    }

    /// The array, for the next phase.
    #[inline(always)]
    pub(super) fn region(&self) -> Region {
        self.region
    }

    /// Reads element `index` (panics outside the array).
    ///
    /// See [`Published`] for an example.
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, index: A::Index) -> A::Elem {
        let site = site!();
        let i = element::<A>(&self.region, index, site);
        Target::shared_load(self.region.base, i, site)
    }

    /// Elements in the array.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::{ByRank, Shared};
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn count(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32]>) {
    ///     let mine = buf.own(ByRank::new());
    ///     mine.set(1);
    ///     let all = mine.publish(&block);
    ///     if block.thread_rank() == 0 {
    ///         out.write(0, all.len() as u32);
    ///     }
    /// }
    ///
    /// let mut out = vec![0u32; 1];
    /// let cfg = LaunchConfig::new(1, 32).with_shared_memory(32 * 4);
    /// Cpu::new().launch(count, cfg, (&mut out,))?;
    /// assert_eq!(out, [32]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.region.len
    }

    /// Whether the array has no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.region.len == 0
    }

    /// Not available: writing needs the barrier of [`own`](Self::own)
    /// first, since other threads may still be reading. Calling it is a
    /// compile error that says so.
    ///
    /// ```compile_fail
    /// use coop::prelude::*;
    /// use coop::shared::{ByRank, Shared};
    ///
    /// #[kernel]
    /// pub fn too_late(block: ThreadBlock, buf: Shared<[u32; 64]>) {
    ///     let r = block.thread_rank() as usize;
    ///     let mine = buf.own(ByRank::new());
    ///     mine.set(r as u32);
    ///     let all = mine.publish(&block);
    ///     all.write(r, 0); // error: write while others read
    /// }
    /// ```
    #[doc(hidden)]
    pub fn write(&self, _index: A::Index, _value: A::Elem)
    where
        Self: WriteOwnElement,
    {
        unreachable!("`WriteOwnElement` has no implementations")
    }

    /// Starts a new writing phase after a block barrier, which every
    /// thread's reads of this phase come before.
    ///
    /// See [`Published`] for an example.
    #[inline(always)]
    #[track_caller]
    pub fn own<M: Ownership<A>>(self, block: &ThreadBlock, map: M) -> Owned<A, M> {
        let site = site!();
        block.sync_named("Published::own", site);
        Owned::new(self.region, map, site)
    }

    /// Gives up the phase checks for raw access; see [`RawShared`].
    #[inline(always)]
    pub fn into_raw(self) -> RawShared<A> {
        RawShared::new(self.region)
    }
}
