//! Distributed shared memory: a shared array that the other blocks of the
//! block's cluster reach (sm_90), in two phases entered and left through
//! the cluster's barrier: [`ClusterShared`] (any block of the cluster reads
//! any block's array) and [`ClusterAtomics`] (any block of the cluster adds
//! atomically into any block's array). A block's shared memory ends with
//! the block, so each phase ends with a cluster barrier before any block
//! may return; and no block writes its array while the others may read it.

use super::phase::element;
use super::{Owned, Ownership, Published, Region, SharedArray};
use crate::Cluster;
use crate::backend::elements::SharedElem;
use crate::backend::target::Target;
use crate::backend::{SharedMemory, Word, site};
use core::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}

/// Elements another block of the cluster can load: one 4- or 8-byte
/// `ld.shared::cluster`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read from another block's shared memory",
    note = "a block reads another block's element with one 4- or 8-byte load: u32, i32, f32, u64, i64 or f64"
)]
pub trait RemoteElem: SharedElem + sealed::Sealed {}

/// Elements another block of the cluster can add to atomically: one
/// `red.shared::cluster.add`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be added to in another block's shared memory",
    note = "the GPU adds atomically into another block's shared memory for u32, i32, u64 and f32"
)]
pub trait RemoteAdd: RemoteElem {
    #[doc(hidden)]
    const WORD: Word;
    #[doc(hidden)]
    fn bits(self) -> u64;
}

macro_rules! remote {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl RemoteElem for $t {}
    )*};
}
remote!(u32, i32, f32, u64, i64, f64);

impl RemoteAdd for u32 {
    const WORD: Word = Word::U32;
    fn bits(self) -> u64 {
        self as u64
    }
}
impl RemoteAdd for i32 {
    const WORD: Word = Word::S32;
    fn bits(self) -> u64 {
        self as u32 as u64
    }
}
impl RemoteAdd for u64 {
    const WORD: Word = Word::U64;
    fn bits(self) -> u64 {
        self
    }
}
impl RemoteAdd for f32 {
    const WORD: Word = Word::F32;
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}

/// A published shared array that every block of the cluster may read:
/// [`get_from`](Self::get_from) reads block `rank`'s copy. Made by
/// [`Published::share`], ended by [`unshare`](Self::unshare) (each a
/// cluster barrier).
///
/// ```
/// use coop::prelude::*;
/// use coop::shared::{ByRank, Shared};
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// Each block fills its array; after the cluster's barrier every thread
/// /// reads its element of the next block's array.
/// #[kernel]
/// pub fn rotate(cluster: Cluster, block: ThreadBlock, out: Out<u32>, s: Shared<[u32; 32]>) {
///     let r = block.thread_rank();
///     let mine = s.own(ByRank::new());
///     mine.set(100 * cluster.block_rank() + r);
///     let shared = mine.publish(&block).share(&cluster);
///     let next = (cluster.block_rank() + 1) % cluster.num_blocks();
///     out.write(this_grid().thread_rank(), shared.get_from(next, r as usize));
///     let _ = shared.unshare(&cluster); // no block returns while others read
/// }
///
/// let mut out = vec![0u32; 128];
/// Cpu::new().launch(rotate, LaunchConfig::new(4, 32).with_cluster(2), (&mut out,))?;
/// assert_eq!((out[0], out[32], out[64 + 5]), (100, 0, 105));
/// # Ok::<(), coop_host::Error>(())
/// ```
#[must_use = "a shared array's phase is how its elements are reached; a shared phase also keeps the array alive for the cluster until `unshare`"]
pub struct ClusterShared<A: SharedArray + ?Sized> {
    pub(super) region: Region,
    _array: PhantomData<*const A>,
}

/// What a [`Published`] array lacks to be read by other blocks: the
/// cluster barrier of [`Published::share`]. Nothing implements it; it
/// exists for the error message.
#[diagnostic::on_unimplemented(
    message = "another block's shared array can only be read once the cluster shares it",
    label = "read of another block's array before the cluster's barrier",
    note = "the other block may still be writing it: share the published array with `.share(&cluster)`, a cluster barrier that returns a `ClusterShared` view whose `get_from(rank, index)` reads block `rank`'s array"
)]
pub trait ReadOtherBlocks {}

impl<A: SharedArray + ?Sized> Published<A> {
    /// Does not exist: reading another block's array needs the cluster's
    /// barrier first ([`share`](Self::share)); this stub is here for the
    /// compile error that says so.
    #[doc(hidden)]
    pub fn get_from(&self, _rank: u32, _index: A::Index) -> A::Elem
    where
        Self: ReadOtherBlocks,
    {
        unreachable!("`ReadOtherBlocks` has no implementations")
    }

    /// Shares the array with the other blocks of `cluster`: a cluster
    /// barrier (every thread of every block of the cluster calls it), after
    /// which every block's array, as published, may be read by every
    /// block of the cluster.
    ///
    /// See [`ClusterShared`] for an example.
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "map_shared_rank")]
    pub fn share(self, cluster: &Cluster) -> ClusterShared<A> {
        cluster.sync_named("share", site!());
        ClusterShared {
            region: self.region(),
            _array: PhantomData,
        }
    }
}

impl<A: SharedArray + ?Sized> ClusterShared<A> {
    #[inline(always)]
    pub(super) fn new(region: Region) -> Self {
        ClusterShared {
            region,
            _array: PhantomData,
        }
    }

    /// Element `index` of the calling block's own array.
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, index: A::Index) -> A::Elem {
        let site = site!();
        let i = element::<A>(&self.region, index, site);
        Target::shared_load(self.region.base, i, site)
    }

    /// Element `index` of the array of block `rank` of the cluster
    /// (CUDA's `cluster.map_shared_rank(ptr, rank)[index]`): one load from
    /// that block's shared memory. A rank outside the cluster stops the
    /// kernel with a report of its `file:line`, on the GPU as on the CPU
    /// backend (there `Violation::PeerOutsideCluster`).
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "map_shared_rank")]
    pub fn get_from(&self, rank: u32, index: A::Index) -> A::Elem
    where
        A::Elem: RemoteElem,
    {
        let site = site!();
        let i = element::<A>(&self.region, index, site);
        Target::shared_load_remote(self.region.base, i, rank, site)
    }

    /// Ends the sharing with a cluster barrier: no block of the cluster
    /// reads the array after it, so each block may write its own again
    /// (through [`Published::own`]) or return.
    #[inline(always)]
    #[track_caller]
    pub fn unshare(self, cluster: &Cluster) -> Published<A> {
        cluster.sync_named("unshare", site!());
        Published::new(self.region)
    }
}

/// A shared array to which every block of the cluster adds atomically:
/// [`add_to`](Self::add_to) adds into block `rank`'s copy. Made by
/// [`Owned::share_atomics`] after each block wrote its copy's start
/// values, ended by [`publish`](Self::publish) (each a cluster barrier).
///
/// ```
/// use coop::prelude::*;
/// use coop::shared::{ByRank, Shared};
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// A histogram of 64 bins spread over the cluster's 2 blocks, 32 bins
/// /// each: every thread adds its value's bin into the block that holds it.
/// #[kernel]
/// pub fn histogram(cluster: Cluster, block: ThreadBlock, input: &[u32], bins: Out<u32>, part: Shared<[u32; 32]>) {
///     let r = block.thread_rank();
///     let zero = part.own(ByRank::new());
///     zero.set(0);
///     let counts = zero.share_atomics(&cluster);
///     let bin = input[this_grid().thread_rank()] % 64;
///     counts.add_to(bin / 32, (bin % 32) as usize, 1);
///     let done = counts.publish(&cluster);
///     let first = cluster.block_rank() * 32;
///     bins.atomic().add((first + r) as usize, done.get(r as usize));
/// }
///
/// let input: Vec<u32> = (0..256).collect();
/// let mut bins = vec![0u32; 64];
/// Cpu::new().launch(histogram, LaunchConfig::new(8, 32).with_cluster(2), (&input, &mut bins))?;
/// assert_eq!(bins, [4; 64]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[must_use = "a shared array's phase is how its elements are reached; a shared phase also keeps the array alive for the cluster until `publish`"]
pub struct ClusterAtomics<A: SharedArray + ?Sized> {
    region: Region,
    _array: PhantomData<*const A>,
}

impl<A: SharedArray + ?Sized, M: Ownership<A>> Owned<A, M> {
    /// Ends the writing phase with a cluster barrier (every thread of every
    /// block of the cluster calls it), after which every block of the
    /// cluster may add atomically into every block's array.
    ///
    /// See [`ClusterAtomics`] for an example.
    #[inline(always)]
    #[track_caller]
    pub fn share_atomics(self, cluster: &Cluster) -> ClusterAtomics<A> {
        cluster.sync_named("share_atomics", site!());
        ClusterAtomics {
            region: self.region(),
            _array: PhantomData,
        }
    }
}

impl<A: SharedArray + ?Sized> ClusterAtomics<A> {
    /// Adds `value` atomically to element `index` of the array of block
    /// `rank` of the cluster (`red.shared::cluster.add`).
    #[inline(always)]
    #[track_caller]
    pub fn add_to(&self, rank: u32, index: A::Index, value: A::Elem)
    where
        A::Elem: RemoteAdd,
    {
        let site = site!();
        let i = element::<A>(&self.region, index, site);
        Target::shared_add_remote(self.region.base, i, rank, A::Elem::WORD, value.bits(), site);
    }

    /// Ends the phase with a cluster barrier: every addition, from any
    /// block, is then in place, and each block reads its own array.
    #[inline(always)]
    #[track_caller]
    pub fn publish(self, cluster: &Cluster) -> Published<A> {
        cluster.sync_named("publish", site!());
        Published::new(self.region)
    }
}

/// A shared array that the threads of the whole cluster write: each element
/// of each block's copy by at most one thread between the cluster barriers
/// that start and end the phase ([`Owned::share_writes`] and
/// [`publish`](Self::publish)). Nobody reads it meanwhile.
///
/// ```
/// use coop::prelude::*;
/// use coop::shared::{ByRank, Shared};
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// Each thread writes its value into the next block's array (a
/// /// transpose of the cluster's blocks); each block then reads its own.
/// #[kernel]
/// pub fn pass_on(cluster: Cluster, block: ThreadBlock, out: Out<u32>, s: Shared<[u32; 32]>) {
///     let r = block.thread_rank();
///     let writes = s.own(ByRank::new()).share_writes(&cluster);
///     let next = (cluster.block_rank() + 1) % cluster.num_blocks();
///     writes.write_to(next, r as usize, 100 * cluster.block_rank() + r);
///     let mine = writes.publish(&cluster);
///     out.write(this_grid().thread_rank(), mine.get(r as usize));
/// }
///
/// let mut out = vec![0u32; 96];
/// Cpu::new().launch(pass_on, LaunchConfig::new(3, 32).with_cluster(3), (&mut out,))?;
/// assert_eq!((out[0], out[32], out[64 + 7]), (200, 0, 107));
/// # Ok::<(), coop_host::Error>(())
/// ```
#[must_use = "a shared array's phase is how its elements are reached; a shared phase also keeps the array alive for the cluster until `publish`"]
pub struct ClusterWrites<A: SharedArray + ?Sized> {
    region: Region,
    _array: PhantomData<*const A>,
}

impl<A: SharedArray + ?Sized, M: Ownership<A>> Owned<A, M> {
    /// Ends the writing phase with a cluster barrier (every thread of every
    /// block of the cluster calls it), after which the cluster's threads
    /// write into any block's array, each element by at most one thread.
    ///
    /// See [`ClusterWrites`] for an example.
    #[inline(always)]
    #[track_caller]
    pub fn share_writes(self, cluster: &Cluster) -> ClusterWrites<A> {
        cluster.sync_named("share_writes", site!());
        ClusterWrites {
            region: self.region(),
            _array: PhantomData,
        }
    }
}

impl<A: SharedArray + ?Sized> ClusterWrites<A> {
    /// Stores `value` in element `index` of the array of block `rank` of
    /// the cluster (`st.shared::cluster`). A second writer of the element
    /// in this phase is a race, which the CPU backend reports with both
    /// writers.
    #[inline(always)]
    #[track_caller]
    pub fn write_to(&self, rank: u32, index: A::Index, value: A::Elem)
    where
        A::Elem: RemoteElem,
    {
        let site = site!();
        let i = element::<A>(&self.region, index, site);
        Target::shared_store_remote(self.region.base, i, rank, value, site);
    }

    /// Ends the phase with a cluster barrier: every write, from any block,
    /// is then in place, and each block reads its own array.
    #[inline(always)]
    #[track_caller]
    pub fn publish(self, cluster: &Cluster) -> Published<A> {
        cluster.sync_named("publish", site!());
        Published::new(self.region)
    }
}
