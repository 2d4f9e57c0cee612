//! Split barriers: a group's barrier taken in two steps,
//! [`barrier_arrive`](crate::ThreadBlock::barrier_arrive) and
//! [`barrier_wait`](crate::ThreadBlock::barrier_wait), with work in
//! between that does not need the other threads (CUDA's
//! `T::barrier_arrive` and `T::barrier_wait` for a block, a cluster and a
//! cooperative launch's grid).
//!
//! `barrier_arrive` says "my writes so far are done" and returns at once
//! with an [`ArrivalToken`]; `barrier_wait` takes the token back and
//! returns once every thread of the group has arrived, with their writes
//! before their arrival visible. The token keeps the protocol:
//!
//! - it is consumed by the wait, so a thread cannot wait twice for one
//!   arrival (use of a moved value);
//! - it is `#[must_use]`, so an arrival nobody waits for is a warning, and
//!   an error under `#![deny(unused_must_use)]`;
//! - its type names the group, so a block's token cannot end a cluster's
//!   wait.
//!
//! What the types cannot see, the CPU backend reports with the lines: a
//! thread that arrives again, calls another collective of the group
//! (`sync`, `reduce`, a phase change) or returns before it waits
//! ([`Violation::ArrivalNotWaited`](crate::cpu::Violation::ArrivalNotWaited)),
//! a thread that never arrives, and a race between an access a thread
//! makes after its arrive and an access another thread makes after its
//! wait: between its two calls a thread is ordered with nobody.
//!
//! ```
//! use coop::prelude::*;
//! use coop_host::{Cpu, LaunchConfig};
//!
//! /// Each thread publishes its value, works on its own while the others
//! /// arrive, then reads its neighbour's.
//! #[kernel]
//! pub fn neighbours(block: ThreadBlock, input: &[u32], out: Out<u32>, values: Shared<[u32; 64]>) {
//!     let values = values.into_raw();
//!     let t = block.thread_rank() as usize;
//!     // SAFETY: each thread writes its own element before the barrier.
//!     unsafe { values.write(t, input[t]) };
//!     let arrival = block.barrier_arrive();
//!     let own = input[t] * 10; // independent work, overlapping the barrier
//!     block.barrier_wait(arrival);
//!     // SAFETY: nobody writes after the barrier.
//!     let right = unsafe { values.read((t + 1) % 64) };
//!     out.write(t, own + right);
//! }
//!
//! let input: Vec<u32> = (0..64).collect();
//! let mut out = vec![0u32; 64];
//! Cpu::new().launch(neighbours, LaunchConfig::new(1, 64), (&input[..], &mut out))?;
//! assert_eq!(out[0], 1);
//! assert_eq!(out[63], 630);
//! # Ok::<(), coop_host::Error>(())
//! ```

use crate::backend::target::Target;
use crate::backend::{Barriers, site};
use crate::{Cluster, CooperativeGrid, ThreadBlock};
use core::marker::PhantomData;

/// A thread's arrival at group `G`'s split barrier, owed to `G`'s
/// `barrier_wait` (CUDA's `arrival_token`).
///
/// Neither `Copy` nor `Clone`: the wait consumes it. Dropping it without
/// the wait leaves the thread's barrier phase open, which CUDA leaves
/// undefined; the compiler warns and the CPU backend reports it.
///
/// ```
/// use coop::prelude::*;
/// use coop::ArrivalToken;
///
/// #[kernel]
/// pub fn arrive_and_wait(block: ThreadBlock, out: Out<u32>) {
///     let token: ArrivalToken<ThreadBlock> = block.barrier_arrive();
///     block.barrier_wait(token);
///     out.write(block.thread_rank() as usize, 1);
/// }
///
/// let mut out = vec![0u32; 32];
/// coop_host::Cpu::new().launch(arrive_and_wait, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
/// assert_eq!(out, [1; 32]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[must_use = "an arrival must be passed to the group's `barrier_wait` before the thread arrives \
              again, calls another collective of the group or returns"]
#[doc(alias = "arrival_token")]
pub struct ArrivalToken<G> {
    /// What the wait needs of the arrival (the grid barrier word as the
    /// block's arrival found it; 0 for the block and the cluster).
    arrival: u32,
    _group: PhantomData<G>,
    /// Not `Send`: a token belongs to the thread that arrived.
    _thread: PhantomData<*const ()>,
}

impl<G> ArrivalToken<G> {
    #[inline(always)]
    fn new(arrival: u32) -> Self {
        ArrivalToken {
            arrival,
            _group: PhantomData,
            _thread: PhantomData,
        }
    }
}

impl<G> core::fmt::Debug for ArrivalToken<G> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("ArrivalToken")
    }
}

impl ThreadBlock {
    /// Arrives at the block's split barrier and returns at once: the
    /// calling thread's writes so far are released to every thread that
    /// then waits for this phase. Pass the token to
    /// [`barrier_wait`](Self::barrier_wait); in between, the thread may do
    /// work that needs no other thread, but must not arrive again, call
    /// another collective of the block or return.
    ///
    /// Every thread of the block arrives. On the GPU nothing happens here
    /// and the wait is the block barrier (`barrier.sync`), as in CUDA's
    /// `thread_block`: the threads are released once every thread has
    /// reached its wait, and what the split buys is the freedom to place
    /// work between the two calls. The CPU backend checks the weaker
    /// promise, that nothing between a thread's arrive and its wait is
    /// ordered with the other threads, so that a kernel it accepts stays
    /// correct where the hardware splits the barrier (the cluster's and
    /// the grid's).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// /// Thread 0 writes a value; the others see it after the wait.
    /// #[kernel]
    /// pub fn broadcast(block: ThreadBlock, value: u32, out: Out<u32>, slot: Shared<[u32; 1]>) {
    ///     let slot = slot.into_raw();
    ///     if block.thread_rank() == 0 {
    ///         // SAFETY: one writer, before the barrier.
    ///         unsafe { slot.write(0, value) };
    ///     }
    ///     let arrival = block.barrier_arrive();
    ///     block.barrier_wait(arrival);
    ///     // SAFETY: written before the barrier, only read after it.
    ///     out.write(block.thread_rank() as usize, unsafe { slot.read(0) });
    /// }
    ///
    /// let mut out = vec![0u32; 64];
    /// coop_host::Cpu::new().launch(broadcast, coop_host::LaunchConfig::new(1, 64), (7u32, &mut out))?;
    /// assert_eq!(out, [7; 64]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "thread_block::barrier_arrive")]
    pub fn barrier_arrive(&self) -> ArrivalToken<ThreadBlock> {
        Target::arrive_block(site!());
        ArrivalToken::new(0)
    }

    /// Waits until every thread of the block has arrived at the phase of
    /// the split barrier that `token` records; their writes before their
    /// arrival are then visible to the caller. See
    /// [`barrier_arrive`](Self::barrier_arrive).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn twice(block: ThreadBlock, out: Out<u32>) {
    ///     for _ in 0..2 {
    ///         let token = block.barrier_arrive();
    ///         block.barrier_wait(token);
    ///     }
    ///     out.write(block.thread_rank() as usize, 2);
    /// }
    ///
    /// let mut out = vec![0u32; 96];
    /// coop_host::Cpu::new().launch(twice, coop_host::LaunchConfig::new(1, 96), (&mut out,))?;
    /// assert_eq!(out, [2; 96]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "thread_block::barrier_wait")]
    pub fn barrier_wait(&self, token: ArrivalToken<ThreadBlock>) {
        let _ = token.arrival;
        Target::wait_block(site!());
    }
}

impl Cluster {
    /// Arrives at the cluster's split barrier and returns at once: the
    /// calling thread's writes so far (in its block's shared memory, in
    /// peers' through distributed shared memory, in global memory) are
    /// released to every thread of the cluster that then waits. Pass the
    /// token to [`barrier_wait`](Self::barrier_wait). Every thread of every
    /// block of the cluster arrives.
    ///
    /// On sm_90 this is `barrier.cluster.arrive.release`; before sm_90,
    /// where each block is its own cluster, the block's split barrier.
    /// The CPU backend checks the arrival and completes the barrier at the
    /// wait, as a cluster barrier: it does not report a race between an
    /// access after one thread's arrive and an access after another's wait
    /// (it does for the block's split barrier).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// /// Each block writes its rank; after the cluster's split barrier its
    /// /// first thread reads the next block's.
    /// #[kernel]
    /// pub fn ring(cluster: Cluster, ranks: Out<u32>, next: Out<u32>) {
    ///     let block = this_grid().block_rank();
    ///     let first = this_thread_block().thread_rank() == 0;
    ///     if first {
    ///         ranks.write(block, cluster.block_rank());
    ///     }
    ///     let arrival = cluster.barrier_arrive();
    ///     let base = block - cluster.block_rank() as usize; // work in between
    ///     cluster.barrier_wait(arrival);
    ///     if first {
    ///         let partner = base + (cluster.block_rank() as usize + 1) % cluster.num_blocks() as usize;
    ///         next.write(block, ranks.read(partner));
    ///     }
    /// }
    ///
    /// let (mut ranks, mut next) = (vec![0u32; 4], vec![0u32; 4]);
    /// let config = coop_host::LaunchConfig::new(4, 32).with_cluster(2);
    /// coop_host::Cpu::new().launch(ring, config, (&mut ranks, &mut next))?;
    /// assert_eq!(next, [1, 0, 1, 0]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "barrier.cluster.arrive")]
    pub fn barrier_arrive(&self) -> ArrivalToken<Cluster> {
        Target::arrive_cluster(site!());
        ArrivalToken::new(0)
    }

    /// Waits until every thread of every block of the cluster has arrived
    /// at the split barrier's phase that `token` records. See
    /// [`barrier_arrive`](Self::barrier_arrive).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn meet(cluster: Cluster, out: Out<u32>) {
    ///     let token = cluster.barrier_arrive();
    ///     cluster.barrier_wait(token);
    ///     out.write(this_grid().thread_rank(), cluster.num_blocks());
    /// }
    ///
    /// let mut out = vec![0u32; 8];
    /// let config = coop_host::LaunchConfig::new(4, 2).with_cluster(4);
    /// coop_host::Cpu::new().launch(meet, config, (&mut out,))?;
    /// assert_eq!(out, [4; 8]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "barrier.cluster.wait")]
    pub fn barrier_wait(&self, token: ArrivalToken<Cluster>) {
        let _ = token.arrival;
        Target::wait_cluster(site!());
    }
}

impl CooperativeGrid {
    /// Arrives at the grid's split barrier (in a cooperative launch) and
    /// returns once the calling block has arrived: the writes its threads
    /// made before are released to every thread of the grid that then
    /// waits. Pass the token to [`barrier_wait`](Self::barrier_wait); in
    /// between, the block can work on what needs no other block. Every
    /// thread of every block arrives.
    ///
    /// On the GPU the arrival is [`sync`](Self::sync)'s first half: a
    /// block barrier, then one atomic add per block on the driver's grid
    /// barrier word; the wait polls the word and passes a block barrier.
    /// The CPU backend checks the arrival and completes the barrier at the
    /// wait, as a grid sync.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// /// Every block writes its rank; while the other blocks arrive, each
    /// /// squares its own; after the wait it reads the next block's.
    /// #[kernel(cooperative)]
    /// pub fn overlap(grid: CooperativeGrid, ranks: Out<u32>, out: Out<u32>) {
    ///     let b = grid.block_rank();
    ///     let first = this_thread_block().thread_rank() == 0;
    ///     if first {
    ///         ranks.write(b, b as u32);
    ///     }
    ///     let arrival = grid.barrier_arrive();
    ///     let square = (b * b) as u32; // needs no other block
    ///     grid.barrier_wait(arrival);
    ///     if first {
    ///         out.write(b, square + ranks.read((b + 1) % grid.num_blocks()));
    ///     }
    /// }
    ///
    /// let (mut ranks, mut out) = (vec![0u32; 3], vec![0u32; 3]);
    /// coop_host::Cpu::new()
    ///     .launch(overlap, coop_host::LaunchConfig::new(3, 32), (&mut ranks, &mut out))?;
    /// assert_eq!(out, [1, 3, 4]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "grid_group::barrier_arrive")]
    pub fn barrier_arrive(&self) -> ArrivalToken<CooperativeGrid> {
        ArrivalToken::new(Target::arrive_grid(site!()))
    }

    /// Waits until every thread of the grid has arrived at the split
    /// barrier's phase that `token` records. See
    /// [`barrier_arrive`](Self::barrier_arrive).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel(cooperative)]
    /// pub fn meet(grid: CooperativeGrid, out: Out<u32>) {
    ///     let token = grid.barrier_arrive();
    ///     grid.barrier_wait(token);
    ///     out.write(grid.thread_rank(), 1);
    /// }
    ///
    /// let mut out = vec![0u32; 8];
    /// coop_host::Cpu::new().launch(meet, coop_host::LaunchConfig::new(2, 4), (&mut out,))?;
    /// assert_eq!(out, [1; 8]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "grid_group::barrier_wait")]
    pub fn barrier_wait(&self, token: ArrivalToken<CooperativeGrid>) {
        Target::wait_grid(token.arrival, site!());
    }
}
