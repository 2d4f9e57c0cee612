//! Shared arrays that other blocks of the cluster fill by the copy engine
//! (sm_90): a block sends a whole shared array into another block's
//! [`Inbox`], or combines it into the inbox's elements, with one
//! instruction (`cp.async.bulk.shared::cluster.shared::cta`,
//! `cp.reduce.async.bulk.shared::cluster.shared::cta`), and the receiving
//! block learns that every array it expects has landed from the inbox's
//! mbarrier, which counts their bytes.
//!
//! A round of exchanges has three steps, each called by every thread of
//! every block of the cluster:
//!
//! 1. [`Inbox::open`] (arrays replace the inbox's elements; at most one a
//!    round) or [`Inbox::open_reduce`] (arrays are combined into it with an
//!    operator; the inbox starts at the operator's identity) says how many
//!    arrays this block's inbox receives in the round, and passes a
//!    cluster barrier, after which any block may send into any inbox. It
//!    gives an [`Exchange`].
//! 2. [`Exchange::send`] / [`Exchange::reduce`] hand one of the block's
//!    published arrays to the copy engine for block `rank`'s inbox. The
//!    array stays borrowed by the exchange, so it cannot be written again
//!    until the round ends (the engine may still be reading it).
//! 3. [`Exchange::wait`] waits until every array this block's inbox
//!    expects has landed, then passes a cluster barrier (after which every
//!    block's arrays have been read, so they can be written again and a
//!    block may return); it gives the inbox [`Received`], readable by every
//!    thread, which [`Received::reopen`] turns into the next round.
//!
//! What the types keep: the inbox cannot be read before its wait (an
//! [`Exchange`] has no `get`), a sent array cannot be written before the
//! round ends, and a round always ends (dropping an `Exchange` waits and
//! passes the barrier). What the CPU backend reports, naming the calls: an
//! inbox that expects more arrays than are sent (the wait that nothing can
//! end), more arrays than it was opened for, two arrays sent into a copy
//! inbox in one round, a rank outside the cluster. A GPU would hang, or end
//! with either array.
//!
//! The operators and elements the engine combines in shared memory are
//! fewer than into global memory: [`ClusterReduce`] lists them.
//!
//! An array a block sends into its own inbox does not go by the engine,
//! which on an H200 faults with an illegal instruction on such a copy in a
//! launch without clusters, and which compute-sanitizer's memcheck reports
//! as a write outside the remote block in a cluster
//! (`docs/results/dsmem-probe-h200.txt`): the block's threads land it
//! themselves in the wait, after the other blocks' arrays, one such array
//! a round. So the same kernel runs with clusters and without (a cluster
//! of one block, as `coop_host` launches `with_cluster(1)`).
//!
//! ```
//! use coop::prelude::*;
//! use coop::shared::{ByRank, Inbox, Shared};
//! use coop_host::{Cpu, LaunchConfig};
//!
//! /// Each block counts its share of `input` into 64 bins; block 0 of each
//! /// cluster receives every block's bins, combined by the copy engine, and
//! /// writes the cluster's histogram.
//! #[kernel]
//! pub fn cluster_histogram(cluster: Cluster, block: ThreadBlock, input: &[u32], bins: Out<u32>,
//!                          part: Shared<[u32; 64]>, merged: Inbox<[u32; 64]>) {
//!     let t = block.thread_rank() as usize; // 64 threads
//!     let mine = part.own(ByRank::new());
//!     mine.set(0);
//!     let counts = mine.publish(&block).atomics(&block);
//!     let mut i = this_grid().thread_rank();
//!     while i < input.len() {
//!         counts.add(input[i] as usize % 64, 1);
//!         i += this_grid().num_threads();
//!     }
//!     let counted = counts.publish(&block);
//!     let expected = if cluster.block_rank() == 0 { cluster.num_blocks() } else { 0 };
//!     let mut exchange = merged.open_reduce(&cluster, &block, op::Sum, expected);
//!     exchange.reduce(&block, 0, &counted); // into block 0's inbox
//!     let total = exchange.wait(&cluster, &block);
//!     if cluster.block_rank() == 0 {
//!         let c = block.group_index().x as usize / cluster.num_blocks() as usize;
//!         bins.write(c * 64 + t, total.get(t));
//!     }
//! }
//!
//! let input: Vec<u32> = (0..5000).map(|i| i * 7).collect();
//! let mut bins = vec![0u32; 128]; // two clusters of 4 blocks
//! Cpu::new().launch(cluster_histogram, LaunchConfig::new(8, 64).with_cluster(4), (&input[..], &mut bins))?;
//! let mut want = vec![0u32; 64];
//! for x in &input {
//!     want[*x as usize % 64] += 1;
//! }
//! let sums: Vec<u32> = (0..64).map(|b| bins[b] + bins[64 + b]).collect();
//! assert_eq!(sums, want);
//! # Ok::<(), coop_host::Error>(())
//! ```

use super::phase::Published;
use super::{Region, SharedArray, SharedElem, SharedParam};
use crate::backend::async_copies::{BulkCombine, CombineElement};
use crate::backend::target::{SharedBase, Target};
use crate::backend::{AsyncCopies, ElemShape, Faults, Naming, Rmw, SharedMemory, Site, site};
use crate::memory::tensor::{TensorElem, combine_in_place};
use crate::op::Operator;
use crate::{Cluster, ThreadBlock};
use core::marker::PhantomData;
use core::mem::ManuallyDrop;

mod sealed {
    pub trait Sealed {}
}

/// A shared array that other blocks of the cluster send arrays into, as a
/// kernel parameter (no argument at launch): `Inbox<[E; N]>` or
/// `Inbox<[[E; C]; R]>`, of a multiple of 16 bytes. `#[kernel]` places it
/// in shared memory with the mbarrier that counts what lands. See the
/// [module](self).
pub struct Inbox<A: SharedArray> {
    base: SharedBase,
    _array: PhantomData<*const A>,
}

/// Bytes of the inbox's array before its barrier.
const fn array_bytes<A: SharedArray>() -> usize {
    A::BYTES.next_multiple_of(16)
}

// SAFETY: the declaration holds the array and, after it, the 8-byte
// mbarrier (16 bytes kept), 128-byte aligned from 128 bytes on, 16 below
// (what the bulk-copy engine needs of a shared source or destination); the
// handles stay inside it.
unsafe impl<A: SharedArray> SharedParam for Inbox<A> {
    const BYTES: usize = array_bytes::<A>() + 16;
    const ALIGN: usize = if A::BYTES >= 128 { 128 } else { 16 };
    #[inline(always)]
    #[track_caller]
    unsafe fn __bind_static(binding: crate::backend::target::StaticBinding) -> Self {
        let base = Target::static_shared(
            binding,
            Self::BYTES,
            Self::ALIGN,
            ElemShape {
                size: core::mem::size_of::<A::Elem>() as u32,
                cols: A::COLS as u32,
            },
            site!(),
        );
        Inbox {
            base,
            _array: PhantomData,
        }
    }
}

/// The kind of an [`Exchange`] whose arrays replace the inbox's elements
/// ([`Inbox::open`]); the other kind is the operator of
/// [`Inbox::open_reduce`].
#[derive(Clone, Copy, Debug)]
pub struct Copies;

/// An operator the bulk-copy engine applies when it combines a shared array
/// into another block's ([`Exchange::reduce`]): [`op::Sum`](crate::op::Sum)
/// of `u32`, `i32`, `u64` and `i64`; [`op::Min`](crate::op::Min),
/// [`op::Max`](crate::op::Max), [`op::BitAnd`](crate::op::BitAnd),
/// [`op::BitOr`](crate::op::BitOr) and [`op::BitXor`](crate::op::BitXor) of
/// `u32` and `i32` (`cp.reduce.async.bulk.shared::cluster`; the engine has
/// no floats there, and no other 64-bit operation).
///
/// ```
/// use coop::shared::ClusterReduce;
/// use coop::op;
/// fn combines<E: coop::memory::tensor::TensorElem, O: ClusterReduce<E>>(_: O) {}
/// combines::<u64, _>(op::Sum);
/// combines::<i32, _>(op::Max);
/// ```
///
/// Other pairs are compile errors that list these:
///
/// ```compile_fail,E0277
/// use coop::shared::ClusterReduce;
/// use coop::op;
/// fn combines<E: coop::memory::tensor::TensorElem, O: ClusterReduce<E>>(_: O) {}
/// combines::<f32, _>(op::Sum); // no float reductions into shared memory
/// ```
#[diagnostic::on_unimplemented(
    message = "the copy engine cannot combine `{E}` elements with `{Self}` in another block's shared memory",
    label = "no bulk reduction into shared memory for this operator and element",
    note = "a bulk reduction into a block's inbox (`cp.reduce.async.bulk.shared::cluster`) takes `op::Sum` of `u32`, `i32`, `u64` or `i64`; `op::Min`, `op::Max`, `op::BitAnd`, `op::BitOr` or `op::BitXor` of `u32` or `i32`",
    note = "an inbox opened by `open_reduce(.., op, ..)` combines the arrays sent by `reduce` with `op`; one opened by `open` takes a whole array a round, sent by `send`",
    note = "for floats, send the arrays whole or read the other blocks' arrays after `share` (`ClusterShared::get_from`) and combine them"
)]
pub trait ClusterReduce<E: TensorElem>: Operator<E> + Copy + sealed::Sealed {
    /// The engine's operation.
    #[doc(hidden)]
    const OP: Rmw;
    /// The CPU backend's: `*inbox = op(*inbox, *sent)`.
    ///
    /// # Safety
    ///
    /// Both point to one (possibly unaligned) `E`, `inbox` writable.
    #[doc(hidden)]
    unsafe fn combine_element(inbox: *mut u8, sent: *const u8);
}

macro_rules! cluster_reduces {
    ($($op:ident => $kind:ident: $($t:ty),*);* $(;)?) => {$(
        impl sealed::Sealed for crate::op::$op {}
        $(impl ClusterReduce<$t> for crate::op::$op {
            const OP: Rmw = Rmw::$kind;
            unsafe fn combine_element(inbox: *mut u8, sent: *const u8) {
                // SAFETY: the caller's: one `$t` each.
                unsafe { combine_in_place::<$t, _>(&crate::op::$op, inbox, sent) }
            }
        })*
    )*};
}
cluster_reduces! {
    Sum => Add: u32, i32, u64, i64;
    Min => Min: u32, i32;
    Max => Max: u32, i32;
    BitAnd => And: u32, i32;
    BitOr => Or: u32, i32;
    BitXor => Xor: u32, i32;
}

/// What an [`Exchange`] lacks to be read: its wait. Nothing implements it;
/// it exists for the error message.
#[diagnostic::on_unimplemented(
    message = "an inbox cannot be read before the arrays sent into it have landed",
    label = "the copy engine may still be writing it",
    note = "wait for the round first: `.wait(&cluster, &block)` returns the inbox `Received` once every array it expects has landed, after a cluster barrier"
)]
pub trait InboxLanded {}

/// The byte offset of an inbox's mbarrier in its declaration.
const fn bar<A: SharedArray>() -> u32 {
    array_bytes::<A>() as u32
}

/// The rules of every inbox: at compile time, an array of a multiple of 16
/// bytes; at run time, the bulk-copy engine.
#[inline(always)]
fn check<A: SharedArray>(site: Site) {
    const {
        assert!(
            A::BYTES >= 16 && A::BYTES.is_multiple_of(16),
            "the bulk-copy engine moves whole shared arrays of a multiple of 16 bytes: make the inbox's array a multiple of 16 bytes"
        )
    };
    if !Target::BULK {
        Target::check_failed(
            c"Inbox: copies into another block's shared memory need the bulk-copy engine of sm_90 or newer",
            site,
        );
    }
}

/// Every thread's part of opening round `round` of an inbox: the barrier's
/// initialisation (round 0), the identity in every element (a reduction),
/// the bytes the round expects, and the cluster barrier after which others
/// send.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn open_round<A: SharedArray>(
    base: SharedBase,
    round: u32,
    cluster: &Cluster,
    block: &ThreadBlock,
    arrays: u32,
    identity: Option<A::Elem>,
    call: &'static str,
    site: Site,
) {
    check::<A>(site);
    let first = block.thread_rank() == 0;
    if let Some(identity) = identity {
        if round > 0 {
            // The last round's reads of the inbox end before the identity.
            block.sync_named(call, site);
        }
        let n = (A::BYTES / core::mem::size_of::<A::Elem>()) as u32;
        let mut i = block.thread_rank();
        while i < n {
            Target::shared_store(base, i, identity, site);
            i += block.num_threads();
        }
        // The engine combines into these elements: order the writes for it.
        Target::shared_writes_to_copy_engine(site);
    }
    if first {
        if round == 0 {
            Target::barrier_init(base, bar::<A>(), 1, site);
            Target::barriers_initialized(site);
        }
        Target::barrier_expect(base, bar::<A>(), arrays * A::BYTES as u32, site);
        Target::barrier_arrive(base, bar::<A>(), site);
    }
    cluster.sync_named(call, site);
}

/// The arrays a round's inbox may expect: at most one for copies, and no
/// more than the bytes an mbarrier counts.
#[inline(always)]
fn check_arrays<A: SharedArray>(arrays: u32, copies: bool, site: Site) {
    if copies && arrays > 1 {
        Target::check_failed(
            c"Inbox::open: an inbox whose arrays replace its elements receives at most one a round (two would land over each other); combine several with `open_reduce`",
            site,
        );
    }
    if (arrays as u64) * (A::BYTES as u64) >= 1 << 20 {
        Target::check_failed(
            c"Inbox::open_reduce: the arrays a round expects must be fewer than 2^20 bytes together (what an mbarrier counts)",
            site,
        );
    }
}

impl<A: SharedArray> Inbox<A> {
    /// Opens the inbox's first round for `arrays` arrays (0 or 1) that
    /// replace its elements, sent by [`Exchange::send`]; every thread of
    /// every block of the cluster calls it (each block with its own count),
    /// and a cluster barrier follows. More than one array is refused at the
    /// call, on the GPU and the CPU backend.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::{ByRank, Inbox, Shared};
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Block r sends its array to block r + 1 of the cluster (the last to
    /// /// block 0); every block writes what it received.
    /// #[kernel]
    /// pub fn pass_on(cluster: Cluster, block: ThreadBlock, out: Out<u32>,
    ///                mine: Shared<[u32; 32]>, inbox: Inbox<[u32; 32]>) {
    ///     let r = cluster.block_rank();
    ///     let t = block.thread_rank();
    ///     let own = mine.own(ByRank::new());
    ///     own.set(100 * r + t);
    ///     let sent = own.publish(&block);
    ///     let mut exchange = inbox.open(&cluster, &block, 1);
    ///     exchange.send(&block, (r + 1) % cluster.num_blocks(), &sent);
    ///     let got = exchange.wait(&cluster, &block);
    ///     out.write(this_grid().thread_rank(), got.get(t as usize));
    /// }
    ///
    /// let mut out = vec![0u32; 96];
    /// Cpu::new().launch(pass_on, LaunchConfig::new(3, 32).with_cluster(3), (&mut out,))?;
    /// assert_eq!((out[0], out[32 + 1], out[64 + 2]), (200, 1, 102));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn open<'a>(
        self,
        cluster: &Cluster,
        block: &ThreadBlock,
        arrays: u32,
    ) -> Exchange<'a, A, Copies> {
        let site = site!();
        check_arrays::<A>(arrays, true, site);
        open_round::<A>(
            self.base,
            0,
            cluster,
            block,
            arrays,
            None,
            "Inbox::open",
            site,
        );
        Exchange::new(self.base, 0, cluster, Copies, copy_in)
    }

    /// Opens the inbox's first round for `arrays` arrays that are combined
    /// into its elements with `op` by [`Exchange::reduce`], each element
    /// atomically: every element starts as `op`'s identity (written by the
    /// block's threads), so after the wait it holds the combination of the
    /// arrays that landed, in no particular order. Every thread of every
    /// block of the cluster calls it, each block with its own count; a
    /// cluster barrier follows. See the [module](self) for an example.
    #[inline(always)]
    #[track_caller]
    pub fn open_reduce<'a, O>(
        self,
        cluster: &Cluster,
        block: &ThreadBlock,
        op: O,
        arrays: u32,
    ) -> Exchange<'a, A, O>
    where
        A::Elem: TensorElem,
        O: ClusterReduce<A::Elem>,
    {
        let site = site!();
        check_arrays::<A>(arrays, false, site);
        let identity = Some(op.identity());
        open_round::<A>(
            self.base,
            0,
            cluster,
            block,
            arrays,
            identity,
            "Inbox::open_reduce",
            site,
        );
        Exchange::new(self.base, 0, cluster, op, combine_in::<A::Elem, O>)
    }
}

/// A round of an inbox: the block's sends into the cluster's inboxes, and
/// its own inbox in flight until [`wait`](Self::wait). `K` is [`Copies`]
/// or the operator the arrays are combined with. Arrays sent are borrowed
/// for `'a`, until the round ends. See the [module](self).
#[must_use = "an inbox's round ends with `.wait(&cluster, &block)`, which gives the arrays that landed; dropping it waits too and passes a cluster barrier"]
pub struct Exchange<'a, A: SharedArray, K> {
    base: SharedBase,
    round: u32,
    blocks: u32,
    /// The block's rank in its cluster.
    rank: u32,
    kind: K,
    /// How an element of an array sent into the block's own inbox lands:
    /// `land(kind, inbox, element, sent, site)`.
    land: Land<K, A::Elem>,
    /// The array the block sent into its own inbox this round, landed by
    /// the wait.
    own: Option<Region>,
    _sent: PhantomData<(&'a (), *const A)>,
}

/// How an element `sent` lands at element `i` of the inbox at `inbox`, by
/// the kind `K` of its round.
type Land<K, E> = fn(&K, SharedBase, u32, E, Site);

/// An element sent into an inbox of copies replaces the inbox's.
fn copy_in<E: SharedElem>(_: &Copies, inbox: SharedBase, i: u32, sent: E, site: Site) {
    Target::shared_store(inbox, i, sent, site);
}

/// An element sent into an inbox of `op` is combined into the inbox's.
fn combine_in<E: SharedElem, O: Operator<E>>(
    op: &O,
    inbox: SharedBase,
    i: u32,
    sent: E,
    site: Site,
) {
    let held: E = Target::shared_load(inbox, i, site);
    Target::shared_store(inbox, i, op.combine(held, sent), site);
}

impl<'a, A: SharedArray, K: Copy> Exchange<'a, A, K> {
    #[inline(always)]
    fn new(
        base: SharedBase,
        round: u32,
        cluster: &Cluster,
        kind: K,
        land: Land<K, A::Elem>,
    ) -> Self {
        Exchange {
            base,
            round,
            blocks: cluster.num_blocks(),
            rank: cluster.block_rank(),
            kind,
            land,
            own: None,
            _sent: PhantomData,
        }
    }

    /// Every thread's part of a send: the checks, the fence that orders the
    /// array's writes for the engine, the block barrier; then one thread
    /// issues it.
    ///
    /// An array sent into the block's own inbox does not go by the engine:
    /// in a launch without clusters an sm_90 GPU faults with an illegal
    /// instruction on a shared-to-cluster copy even into the issuing block,
    /// and in a cluster compute-sanitizer's memcheck reports one as a write
    /// outside the remote block (H200, `docs/results/dsmem-probe-h200.txt`).
    /// Thread 0 completes its bytes on the inbox's barrier at once, and the
    /// block's threads land it element by element in the wait, once the
    /// other blocks' arrays have landed (so that no thread's plain
    /// read-modify-write meets the engine's): one such array a round.
    #[inline(always)]
    fn issue(
        &mut self,
        block: &ThreadBlock,
        rank: u32,
        array: Region,
        reduce: Option<BulkCombine>,
        call: &'static str,
        site: Site,
    ) {
        if rank >= self.blocks {
            Target::check_failed(
                if reduce.is_some() {
                    c"Exchange::reduce: the block rank is outside the cluster (0 to the cluster's blocks - 1)"
                } else {
                    c"Exchange::send: the block rank is outside the cluster (0 to the cluster's blocks - 1)"
                },
                site,
            );
        }
        if rank == self.rank {
            if self.own.is_some() {
                Target::check_failed(
                    if reduce.is_some() {
                        c"Exchange::reduce: a block sends at most one array into its own inbox a round"
                    } else {
                        c"Exchange::send: a block sends at most one array into its own inbox a round"
                    },
                    site,
                );
            }
            self.own = Some(array);
            if block.thread_rank() == 0 {
                Target::barrier_complete(self.base, bar::<A>(), A::BYTES as u32, site);
            }
            return;
        }
        Target::shared_writes_to_copy_engine(site);
        block.sync_named(call, site);
        if block.thread_rank() == 0 {
            Target::bulk_to_block(
                self.base,
                rank,
                array.base,
                A::BYTES as u32,
                self.base,
                bar::<A>(),
                reduce,
                site,
            );
        }
    }

    /// Waits until every array this block's inbox expects in the round has
    /// landed, then passes a cluster barrier: every block's sends of the
    /// round have then been read and landed, so the arrays sent may be
    /// written again. Every thread of every block of the cluster calls it.
    /// Returns the inbox [`Received`].
    #[inline(always)]
    #[track_caller]
    pub fn wait(self, cluster: &Cluster, block: &ThreadBlock) -> Received<A, K> {
        let site = site!();
        let me = ManuallyDrop::new(self);
        Target::entering("Exchange::wait", site);
        me.wait_landed(site);
        if let Some(own) = me.own {
            // Each thread its elements, as `open_round` wrote the identity;
            // the cluster barrier below publishes them.
            let n = (A::BYTES / core::mem::size_of::<A::Elem>()) as u32;
            let mut i = block.thread_rank();
            while i < n {
                let sent: A::Elem = Target::shared_load(own.base, i, site);
                (me.land)(&me.kind, me.base, i, sent, site);
                i += block.num_threads();
            }
        }
        cluster.sync_named("Exchange::wait", site);
        Received {
            region: me.region(),
            round: me.round + 1,
            kind: me.kind,
            land: me.land,
            _array: PhantomData,
        }
    }

    #[inline(always)]
    fn wait_landed(&self, site: Site) {
        while !Target::barrier_test(self.base, bar::<A>(), self.round & 1, site) {}
    }

    #[inline(always)]
    fn region(&self) -> Region {
        Region {
            base: self.base,
            len: A::BYTES / core::mem::size_of::<A::Elem>(),
        }
    }

    /// Not available: the inbox is read after [`wait`](Self::wait), once
    /// what was sent has landed. Calling it is a compile error that says
    /// so.
    ///
    /// ```compile_fail
    /// use coop::prelude::*;
    /// use coop::shared::{Inbox, Published};
    ///
    /// #[kernel]
    /// pub fn too_early(cluster: Cluster, block: ThreadBlock, out: Out<u32>, inbox: Inbox<[u32; 32]>) {
    ///     let exchange = inbox.open(&cluster, &block, 0);
    ///     out.write(0, exchange.get(0)); // error: the inbox is in flight
    /// }
    /// ```
    #[doc(hidden)]
    pub fn get(&self, _index: A::Index) -> A::Elem
    where
        Self: InboxLanded,
    {
        unreachable!("`InboxLanded` has no implementations")
    }
}

impl<'a, A: SharedArray> Exchange<'a, A, Copies> {
    /// Sends the block's published array `array` into block `rank`'s inbox,
    /// where it replaces the elements: every thread of the block calls it
    /// with the same array and rank; each orders the array's writes for the
    /// copy engine, a block barrier follows, and one thread issues the copy.
    /// The array stays borrowed until the round ends. `rank` outside the
    /// cluster is refused at the call. See [`Inbox::open`] for an example.
    #[inline(always)]
    #[track_caller]
    pub fn send(&mut self, block: &ThreadBlock, rank: u32, array: &'a Published<A>) {
        let site = site!();
        self.issue(block, rank, array.region(), None, "Exchange::send", site);
    }
}

impl<'a, A: SharedArray, O: Copy> Exchange<'a, A, O> {
    /// Combines the block's published array `array` into block `rank`'s
    /// inbox with the round's operator, element by element, atomically:
    /// every thread of the block calls it with the same array and rank, as
    /// for [`send`](Exchange::send). See the [module](self) for an example.
    #[inline(always)]
    #[track_caller]
    pub fn reduce(&mut self, block: &ThreadBlock, rank: u32, array: &'a Published<A>)
    where
        A::Elem: TensorElem,
        O: ClusterReduce<A::Elem>,
    {
        let site = site!();
        let combine: CombineElement = O::combine_element;
        let reduce = BulkCombine {
            op: O::OP,
            kind: <A::Elem as TensorElem>::DATA_TYPE,
            combine,
        };
        let call = "Exchange::reduce";
        self.issue(block, rank, array.region(), Some(reduce), call, site);
    }
}

impl<A: SharedArray, K> Drop for Exchange<'_, A, K> {
    #[inline(always)]
    #[track_caller]
    fn drop(&mut self) {
        let site: Site = site!();
        if Target::unwinding() {
            return;
        }
        // Arrays may still be landing in this block, or being read from it:
        // no block goes on until the round is over.
        Target::entering("Exchange (dropped)", site);
        while !Target::barrier_test(self.base, bar::<A>(), self.round & 1, site) {}
        crate::this_cluster().sync_named("Exchange (dropped)", site);
    }
}

/// An inbox whose round has ended: every array it expected has landed.
/// Readable by every thread; [`reopen`](Self::reopen) starts the next
/// round, [`into_published`](Self::into_published) gives the array for
/// the ordinary phases.
pub struct Received<A: SharedArray, K> {
    region: Region,
    round: u32,
    kind: K,
    land: Land<K, A::Elem>,
    _array: PhantomData<*const A>,
}

impl<A: SharedArray, K: Copy> Received<A, K> {
    /// Reads element `index` (panics outside the array).
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, index: A::Index) -> A::Elem {
        Published::<A>::new(self.region).get(index)
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

    /// The next round, as [`Inbox::open`] (`identity` `None`) or
    /// [`Inbox::open_reduce`] opens the first: every thread's reads of this
    /// round come before the next round's arrays land (its cluster
    /// barrier), and before the identity (a block barrier first).
    #[inline(always)]
    fn next_round<'a>(
        self,
        cluster: &Cluster,
        block: &ThreadBlock,
        arrays: u32,
        identity: Option<A::Elem>,
        call: &'static str,
        site: Site,
    ) -> Exchange<'a, A, K> {
        check_arrays::<A>(arrays, identity.is_none(), site);
        let base = self.region.base;
        open_round::<A>(
            base, self.round, cluster, block, arrays, identity, call, site,
        );
        Exchange::new(base, self.round, cluster, self.kind, self.land)
    }

    /// The array as an ordinary [`Published`] one (its next phase by
    /// `own`, a bulk store, and so on); the inbox takes no more rounds.
    #[inline(always)]
    pub fn into_published(self) -> Published<A> {
        Published::new(self.region)
    }
}

impl<A: SharedArray> Received<A, Copies> {
    /// Opens the next round for `arrays` arrays (0 or 1), as
    /// [`Inbox::open`]: every thread of every block of the cluster calls it
    /// once its reads of this round are done, and a cluster barrier
    /// follows, after which the inbox may be written again.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::{ByRank, Inbox, Shared};
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Three rounds: each block passes what it received to the next block,
    /// /// so after `n` rounds of a cluster of `n` every array is back home.
    /// #[kernel]
    /// pub fn around(cluster: Cluster, block: ThreadBlock, out: Out<u32>,
    ///               a: Shared<[u32; 32]>, b: Shared<[u32; 32]>, inbox: Inbox<[u32; 32]>) {
    ///     let (r, n, t) = (cluster.block_rank(), cluster.num_blocks(), block.thread_rank());
    ///     let own = a.own(ByRank::new());
    ///     own.set(r);
    ///     let first = own.publish(&block);
    ///     let mut exchange = inbox.open(&cluster, &block, 1);
    ///     exchange.send(&block, (r + 1) % n, &first);
    ///     let mut got = exchange.wait(&cluster, &block);
    ///     let relay = b.own(ByRank::new());
    ///     let mut relay = { relay.set(got.get(t as usize)); relay.publish(&block) };
    ///     for _ in 1..n {
    ///         let mut exchange = got.reopen(&cluster, &block, 1);
    ///         exchange.send(&block, (r + 1) % n, &relay);
    ///         got = exchange.wait(&cluster, &block);
    ///         let next = relay.own(&block, ByRank::new());
    ///         next.set(got.get(t as usize));
    ///         relay = next.publish(&block);
    ///     }
    ///     out.write(this_grid().thread_rank(), relay.get(t as usize));
    /// }
    ///
    /// let mut out = vec![9u32; 96];
    /// Cpu::new().launch(around, LaunchConfig::new(3, 32).with_cluster(3), (&mut out,))?;
    /// assert_eq!((out[0], out[32], out[64]), (0, 1, 2));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn reopen<'a>(
        self,
        cluster: &Cluster,
        block: &ThreadBlock,
        arrays: u32,
    ) -> Exchange<'a, A, Copies> {
        let site = site!();
        self.next_round(cluster, block, arrays, None, "Received::reopen", site)
    }
}

impl<A: SharedArray, O> Received<A, O>
where
    A::Elem: TensorElem,
    O: ClusterReduce<A::Elem>,
{
    /// Opens the next round for `arrays` arrays combined with the same
    /// operator, as [`Inbox::open_reduce`]: a block barrier (this round's
    /// reads end), the identity in every element, the cluster barrier.
    #[inline(always)]
    #[track_caller]
    pub fn reopen<'a>(
        self,
        cluster: &Cluster,
        block: &ThreadBlock,
        arrays: u32,
    ) -> Exchange<'a, A, O> {
        let site = site!();
        let identity = Some(self.kind.identity());
        self.next_round(cluster, block, arrays, identity, "Received::reopen", site)
    }
}
