//! [`Storing`]: the phase of a shared array that the copy engine is
//! reading, to store it into an array in global memory or to combine it
//! into one (tensor stores and bulk tensor reductions, TMA, sm_90).
//!
//! The threads write a tile into a shared array in an [`Owned`] phase;
//! [`Owned::store_tensor`] (or [`reduce_tensor`](Owned::reduce_tensor))
//! ends the phase with a block barrier and has one thread hand the tile to
//! the copy engine, which writes it into the array a
//! [`TensorOut`] map describes. Until the engine has read the tile, the
//! array is [`Storing`]: every thread may still read it (and start more
//! stores of it), nobody may write it. [`Storing::wait`] waits for the
//! engine's reads and returns the array [`Published`], whose
//! [`own`](Published::own) starts the next writing phase after a barrier.
//! Dropping a [`Storing`] waits in the same way, so a block never leaves
//! the kernel while the engine still reads its shared memory. The plain
//! bulk stores and reductions of a whole array into a kernel buffer
//! (`store_bulk`, `reduce_bulk`, in `bulk_out.rs`) give the same phase.
//!
//! ```
//! use coop::prelude::*;
//! use coop::memory::tensor::TensorOut;
//! use coop::shared::{RowMajor, Shared};
//! use coop_host::{Cpu, LaunchConfig, TensorMapMut};
//!
//! /// Each block writes its 16 x 16 tile of a multiplication table.
//! #[kernel]
//! pub fn table(block: ThreadBlock, out: TensorOut<[[u32; 16]; 16]>, tile: Shared<[[u32; 16]; 16]>) {
//!     let (b, t) = (block.group_index(), block.thread_index());
//!     let (row, col) = (16 * b.y + t.y, 16 * b.x + t.x);
//!     let mine = tile.own(RowMajor); // thread (x, y) owns [y][x]
//!     mine.set(row * col);
//!     let _storing = mine.store_tensor(&block, &out, [16 * b.y as i32, 16 * b.x as i32]);
//! }
//!
//! let mut products = vec![0u32; 40 * 40];
//! let map = TensorMapMut::<[[u32; 16]; 16]>::cpu(&mut products, [40, 40])?;
//! Cpu::new().launch(table, LaunchConfig::new((3, 3), (16, 16)), (&map,))?;
//! drop(map);
//! assert_eq!(products[7 * 40 + 39], 7 * 39); // tiles over the edges are stored in part
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! On the GPU every thread orders its writes for the copy engine
//! (`fence.proxy.async.shared::cta`) before the barrier, thread 0 of the
//! block issues `cp.async.bulk.tensor` (or `cp.reduce.async.bulk.tensor`)
//! and waits for its reads with `cp.async.bulk.wait_group.read`. The
//! array must start on a 128-byte boundary, as the copy engine requires:
//! coop aligns every static shared array of 128 bytes or more so, and
//! refuses a smaller one at compile time. The CPU backend writes (or
//! combines) the tile when the call is made, reading each element that
//! lands inside the array as the issuing thread: an element no thread
//! wrote is reported at the call.

use super::phase::{Owned, Published};
use super::{Ownership, Region, SharedArray};
use crate::ThreadBlock;
use crate::backend::target::{SharedBase, Target};
use crate::backend::{AsyncCopies, Site, site};
use crate::kernel::TensorMapData;
use crate::memory::tensor::{TensorElem, TensorOut, TensorOutCall, TensorReduce, check_tensor_out};
use crate::memory::tile::TileArray;
use core::marker::PhantomData;

/// A shared array the copy engine is reading for a tensor store or
/// reduction; see the [module](self). Readable by every thread; writable
/// again after [`wait`](Self::wait) and a barrier.
pub struct Storing<A: SharedArray + ?Sized> {
    region: Region,
    /// Whether the calling thread issued the engine's reads (and waits for
    /// them).
    issuer: bool,
    _array: PhantomData<*const A>,
}

/// What a [`Storing`] array lacks: the end of the copy engine's reads of
/// it. Nothing implements it; it exists for the error message.
#[diagnostic::on_unimplemented(
    message = "a shared array that the copy engine is storing cannot be written",
    label = "the copy engine may still be reading it",
    note = "wait for the engine's reads first: `.wait(&block)` returns the array `Published`, and its `.own(&block, map)` starts the next writing phase after a block barrier",
    note = "reading the array while it is stored is fine: `Storing::get`"
)]
pub trait TensorStoreRead {}

/// The element types and shapes a tile stored from a shared array can have:
/// a shared array that is also a [`TileArray`] of [`TensorElem`]s
/// (`[E; N]` or `[[E; C]; R]`).
pub trait StorableArray:
    SharedArray<Elem = <Self as StorableArray>::E> + TileArray<Elem = <Self as StorableArray>::E>
{
    /// The element type.
    type E: TensorElem;
}

impl<T> StorableArray for T
where
    T: SharedArray + TileArray<Elem = <T as SharedArray>::Elem>,
    <T as SharedArray>::Elem: TensorElem,
{
    type E = <T as SharedArray>::Elem;
}

impl<A: StorableArray, M: Ownership<A>> Owned<A, M> {
    /// Ends the writing phase and stores the array's tile into `out`'s
    /// array at element coordinates `at` (outermost first, `[row, column]`
    /// for a 2-D array) through the copy engine (TMA,
    /// `cp.async.bulk.tensor`, sm_90). Every thread of the block calls it
    /// with the same map and coordinates: each orders its writes for the
    /// copy engine, a block barrier follows, and one thread issues the
    /// store. Elements of the tile past the array's far edges are not
    /// written; the coordinates must be 0 or more and the innermost one a
    /// multiple of 16 bytes (the copy engine faults otherwise; coop refuses
    /// both at the call, on the GPU and the CPU backend). The writes to
    /// global memory land by the end of the launch.
    ///
    /// See the [module](self) for an example.
    #[inline(always)]
    #[track_caller]
    pub fn store_tensor(
        self,
        block: &ThreadBlock,
        out: &TensorOut<A>,
        at: <A as TileArray>::Coords,
    ) -> Storing<A> {
        store_from(self.region(), block, out, at, site!())
    }

    /// As [`store_tensor`](Self::store_tensor), combining the tile into
    /// `out`'s array with `op` instead of overwriting it (a bulk tensor
    /// reduction, `cp.reduce.async.bulk.tensor`): each element of the
    /// array becomes `op(element, tile's element)`, atomically, so the
    /// tiles of several blocks may land on the same elements. The
    /// operators and element types the copy engine combines are
    /// [`TensorReduce`]'s.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::memory::tensor::TensorOut;
    /// use coop::shared::{RowMajor, Shared};
    /// use coop_host::{Cpu, LaunchConfig, TensorMapMut};
    ///
    /// /// Every block adds its number plus one into each element of an 8 x 32 array.
    /// #[kernel]
    /// pub fn counts(block: ThreadBlock, total: TensorOut<[[u32; 32]; 8]>, tile: Shared<[[u32; 32]; 8]>) {
    ///     let mine = tile.own(RowMajor);
    ///     mine.set(block.group_index().x + 1);
    ///     let _ = mine.reduce_tensor(&block, &total, [0, 0], op::Sum);
    /// }
    ///
    /// let mut sums = vec![100u32; 8 * 32];
    /// let map = TensorMapMut::<[[u32; 32]; 8]>::cpu(&mut sums, [8, 32])?;
    /// Cpu::new().launch(counts, LaunchConfig::new(5, (32, 8)), (&map,))?;
    /// drop(map);
    /// assert!(sums.iter().all(|&s| s == 100 + 1 + 2 + 3 + 4 + 5));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn reduce_tensor<O: TensorReduce<A::E>>(
        self,
        block: &ThreadBlock,
        out: &TensorOut<A>,
        at: <A as TileArray>::Coords,
        op: O,
    ) -> Storing<A> {
        reduce_from(self.region(), block, out, at, op, site!())
    }
}

impl<A: StorableArray, M: Ownership<A>> Owned<A, M> {
    /// [`store_tensor`](Self::store_tensor), and in the same block barrier
    /// the hand-over of `previous`, another array the copy engine is
    /// storing, to a new writing phase under `map`: thread 0 waits for the
    /// engine's reads of `previous` before the barrier, so the threads may
    /// write it as soon as the call returns. Two arrays taken in turn this
    /// way (one written while the engine reads the other) cost one barrier
    /// a tile, where `store_tensor` then [`Storing::wait`] and
    /// [`own`](Published::own) cost two.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::memory::tensor::TensorOut;
    /// use coop::shared::{ByRank, Shared};
    /// use coop_host::{Cpu, LaunchConfig, TensorMapMut};
    ///
    /// /// Row k of 64 holds k * 1000 + column, written through two arrays in turn.
    /// #[kernel]
    /// pub fn rows(block: ThreadBlock, out: TensorOut<[u32; 64]>, count: u32,
    ///             a: Shared<[u32; 64]>, b: Shared<[u32; 64]>) {
    ///     let t = block.thread_rank();
    ///     let mine = a.own(ByRank::new());
    ///     mine.set(t);
    ///     let mut stored = mine.store_tensor(&block, &out, [0]);
    ///     let mut mine = b.own(ByRank::new()); // untouched so far: no barrier
    ///     for k in 1..count {
    ///         mine.set(k * 1000 + t);
    ///         (stored, mine) = mine.store_tensor_reusing(&block, &out, [64 * k as i32], stored, ByRank::new());
    ///     }
    /// }
    ///
    /// let mut data = vec![0u32; 5 * 64];
    /// let map = TensorMapMut::<[u32; 64]>::cpu(&mut data, [5 * 64])?;
    /// Cpu::new().launch(rows, LaunchConfig::new(1, 64), (&map, 5u32))?;
    /// drop(map);
    /// assert_eq!((data[7], data[3 * 64 + 7], data[4 * 64 + 63]), (7, 3007, 4063));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn store_tensor_reusing<B: SharedArray + ?Sized, N: Ownership<B>>(
        self,
        block: &ThreadBlock,
        out: &TensorOut<A>,
        at: <A as TileArray>::Coords,
        previous: Storing<B>,
        map: N,
    ) -> (Storing<A>, Owned<B, N>) {
        let site = site!();
        let region = previous.region;
        // Thread 0's wait for the engine's reads of `previous` comes before
        // the barrier of `store_from`.
        drop(previous);
        let storing = store_from(self.region(), block, out, at, site);
        (storing, Owned::new(region, map, site))
    }
}

impl<A: StorableArray> Published<A> {
    /// [`Owned::store_tensor`] of a published array: the same fence and
    /// block barrier (the barrier that published the array came before the
    /// fence the copy engine needs), then the store. Ending a writing phase
    /// with `Owned::store_tensor` directly saves that barrier.
    #[inline(always)]
    #[track_caller]
    pub fn store_tensor(
        self,
        block: &ThreadBlock,
        out: &TensorOut<A>,
        at: <A as TileArray>::Coords,
    ) -> Storing<A> {
        store_from(self.region(), block, out, at, site!())
    }

    /// [`Owned::reduce_tensor`] of a published array, with the barrier
    /// [`store_tensor`](Self::store_tensor) has.
    #[inline(always)]
    #[track_caller]
    pub fn reduce_tensor<O: TensorReduce<A::E>>(
        self,
        block: &ThreadBlock,
        out: &TensorOut<A>,
        at: <A as TileArray>::Coords,
        op: O,
    ) -> Storing<A> {
        reduce_from(self.region(), block, out, at, op, site!())
    }
}

/// The tile of the array at `region` stored into `out` at `at`, from every
/// thread: the checks, the fence and the barrier, then thread 0's store.
#[inline(always)]
fn store_from<A: StorableArray>(
    region: Region,
    block: &ThreadBlock,
    out: &TensorOut<A>,
    at: <A as TileArray>::Coords,
    site: Site,
) -> Storing<A> {
    begin::<A>(block, TensorOutCall::ArrayStore, at, site);
    let storing = Storing::<A>::issued_by(region, block);
    if storing.issuer {
        issue_store(region.base, out, at, site);
    }
    storing
}

/// As [`store_from`], combining the tile into `out` with `op`.
#[inline(always)]
fn reduce_from<A: StorableArray, O: TensorReduce<A::E>>(
    region: Region,
    block: &ThreadBlock,
    out: &TensorOut<A>,
    at: <A as TileArray>::Coords,
    op: O,
    site: Site,
) -> Storing<A> {
    begin::<A>(block, TensorOutCall::ArrayReduce, at, site);
    let storing = Storing::<A>::issued_by(region, block);
    if storing.issuer {
        issue_reduce(region.base, out, at, op, site);
    }
    storing
}

/// Every thread's part before one thread issues: the checks, the fence
/// that orders its writes for the copy engine, and the block barrier.
#[inline(always)]
fn begin<A: StorableArray>(
    block: &ThreadBlock,
    call: TensorOutCall,
    at: <A as TileArray>::Coords,
    site: Site,
) {
    const {
        assert!(
            <A as SharedArray>::BYTES >= 128,
            "the copy engine reads a tile from a shared array that starts on a 128-byte boundary, which coop gives arrays of 128 bytes or more: make the tile at least 128 bytes"
        )
    };
    check_tensor_out::<A>(call, at, site);
    Target::shared_writes_to_copy_engine(site);
    block.sync_named(
        match call {
            TensorOutCall::ArrayReduce => "reduce_tensor",
            _ => "store_tensor",
        },
        site,
    );
}

/// Thread 0's store of the tile at `src` into `out` at `at`.
#[inline(always)]
fn issue_store<A: StorableArray>(
    src: SharedBase,
    out: &TensorOut<A>,
    at: <A as TileArray>::Coords,
    site: Site,
) {
    let map = acquired(out, site);
    let coords = <A as TileArray>::inner_first(at);
    Target::tensor_store(src, 0, map, coords, <A as TileArray>::RANK as u32, site)
}

/// Thread 0's reduction of the tile at `src` into `out` at `at` with `op`.
#[inline(always)]
fn issue_reduce<A: StorableArray, O: TensorReduce<A::E>>(
    src: SharedBase,
    out: &TensorOut<A>,
    at: <A as TileArray>::Coords,
    op: O,
    site: Site,
) {
    let map = acquired(out, site);
    let coords = <A as TileArray>::inner_first(at);
    // The operator is a type: its value carries nothing.
    let _ = op;
    let rank = <A as TileArray>::RANK as u32;
    Target::tensor_reduce(src, 0, map, coords, rank, O::OP, O::combine_element, site)
}

/// `out`'s map, acquired for the copy engine by the calling thread.
#[inline(always)]
fn acquired<A: StorableArray>(out: &TensorOut<A>, site: Site) -> *const TensorMapData {
    if out.word.first_use() {
        Target::tensor_map_acquire(out.word.data(), site);
    }
    out.word.data()
}

impl<A: StorableArray> Storing<A> {
    /// The phase after the barrier: thread 0 issues the engine's reads.
    #[inline(always)]
    pub(super) fn issued_by(region: Region, block: &ThreadBlock) -> Self {
        Storing {
            region,
            issuer: block.thread_rank() == 0,
            _array: PhantomData,
        }
    }

    /// Whether the calling thread issues the engine's reads.
    #[inline(always)]
    pub(super) fn issues(&self) -> bool {
        self.issuer
    }

    /// The array's region.
    #[inline(always)]
    pub(super) fn region(&self) -> Region {
        self.region
    }

    /// Stores the same tile again, into `out`'s array at `at` (another
    /// place, or another array): every thread calls it with the same
    /// arguments, one issues it. No barrier: nothing has written the array
    /// since the first store's.
    #[inline(always)]
    #[track_caller]
    pub fn store_tensor(
        &self,
        _block: &ThreadBlock,
        out: &TensorOut<A>,
        at: <A as TileArray>::Coords,
    ) {
        let site = site!();
        check_tensor_out::<A>(TensorOutCall::ArrayStore, at, site);
        if self.issuer {
            issue_store(self.region.base, out, at, site);
        }
    }

    /// Combines the same tile again, into `out`'s array at `at` with `op`;
    /// see [`Owned::reduce_tensor`].
    #[inline(always)]
    #[track_caller]
    pub fn reduce_tensor<O: TensorReduce<A::E>>(
        &self,
        _block: &ThreadBlock,
        out: &TensorOut<A>,
        at: <A as TileArray>::Coords,
        op: O,
    ) {
        let site = site!();
        check_tensor_out::<A>(TensorOutCall::ArrayReduce, at, site);
        if self.issuer {
            issue_reduce(self.region.base, out, at, op, site);
        }
    }
}

impl<A: SharedArray + ?Sized> Storing<A> {
    /// Reads element `index` (panics outside the array): the copy engine
    /// only reads the array, so the threads may too.
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, index: A::Index) -> A::Elem {
        Published::<A>::from_region(self.region).get(index)
    }

    /// Waits until the copy engine has read the array (the issuing thread
    /// waits; no barrier) and returns it [`Published`]: its
    /// [`own`](Published::own) starts the next writing phase with a block
    /// barrier, which comes after the issuing thread's wait. PTX:
    /// `cp.async.bulk.wait_group.read 0` in thread 0.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::memory::tensor::TensorOut;
    /// use coop::shared::{ByRank, Shared};
    /// use coop_host::{Cpu, LaunchConfig, TensorMapMut};
    ///
    /// /// Block 0 stores two rows of 64 through the same shared array.
    /// #[kernel]
    /// pub fn two_rows(block: ThreadBlock, out: TensorOut<[u32; 64]>, row: Shared<[u32; 64]>) {
    ///     let t = block.thread_rank();
    ///     let mine = row.own(ByRank::new());
    ///     mine.set(t);
    ///     let storing = mine.store_tensor(&block, &out, [0]);
    ///     let mine = storing.wait(&block).own(&block, ByRank::new());
    ///     mine.set(1000 + t);
    ///     let _ = mine.store_tensor(&block, &out, [64]);
    /// }
    ///
    /// let mut data = vec![0u32; 128];
    /// let map = TensorMapMut::<[u32; 64]>::cpu(&mut data, [128])?;
    /// Cpu::new().launch(two_rows, LaunchConfig::new(1, 64), (&map,))?;
    /// drop(map);
    /// assert_eq!((data[5], data[69]), (5, 1005));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn wait(self, _block: &ThreadBlock) -> Published<A> {
        let region = self.region;
        drop(self);
        Published::from_region(region)
    }

    /// Does not exist: the copy engine may still be reading the array.
    /// Calling it is a compile error that says so.
    ///
    /// ```compile_fail,E0277
    /// use coop::prelude::*;
    /// use coop::memory::tensor::TensorOut;
    /// use coop::shared::{ByRank, Shared};
    ///
    /// #[kernel]
    /// pub fn too_early(block: ThreadBlock, out: TensorOut<[u32; 64]>, row: Shared<[u32; 64]>) {
    ///     let mine = row.own(ByRank::new());
    ///     mine.set(1);
    ///     let storing = mine.store_tensor(&block, &out, [0]);
    ///     storing.write(0, 2); // error: the engine may still read it
    /// }
    /// ```
    #[doc(hidden)]
    pub fn write(&self, _index: A::Index, _value: A::Elem)
    where
        Self: TensorStoreRead,
    {
        unreachable!("`TensorStoreRead` has no implementations")
    }

    /// Does not exist: a new writing phase starts from the array that
    /// [`wait`](Self::wait) returns. Calling it is a compile error that
    /// says so.
    #[doc(hidden)]
    pub fn own<M: Ownership<A>>(self, _block: &ThreadBlock, _map: M) -> Owned<A, M>
    where
        Self: TensorStoreRead,
    {
        unreachable!("`TensorStoreRead` has no implementations")
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

impl<A: SharedArray + ?Sized> Drop for Storing<A> {
    /// The issuing thread waits until the copy engine has read the array.
    #[inline(always)]
    #[track_caller]
    fn drop(&mut self) {
        if self.issuer {
            Target::tensor_stores_read(site!());
        }
    }
}
