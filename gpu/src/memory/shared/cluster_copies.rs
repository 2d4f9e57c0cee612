//! A cluster's tile copied in parts (CUDA's `memcpy_async` with
//! `wait(cluster)`): each block of the cluster copies its part of the tile
//! into its own array ([`Shared::copy_async`](super::Shared::copy_async),
//! `cp.async`), and one cluster barrier after the copies
//! ([`Copying::wait_shared`]) shares every block's part with the whole
//! cluster as a [`ClusterShared`] view. [`ClusterShared::copy_async`] is
//! the way back: a cluster barrier (no block reads the parts any more),
//! then the next copy into the same array.
//!
//! `cp.async` writes only the issuing block's shared memory, so a tile
//! spread over a cluster is always copied part by part, each block its
//! own; one cluster barrier then does what a block barrier does for one
//! block's copy.

use super::SharedArray;
use super::cluster_phase::ClusterShared;
use super::copying::{Copying, start};
use crate::backend::target::Target;
use crate::backend::{AsyncCopies, site};
use crate::{Cluster, ThreadBlock};

/// What a [`Copying`] array lacks to be read by other blocks: the wait
/// for its copy and the cluster's barrier. Nothing implements it; it
/// exists for the error message.
#[diagnostic::on_unimplemented(
    message = "another block's shared array cannot be read while an asynchronous copy is filling it",
    label = "the copy may not have landed, and the other blocks may not have waited for theirs",
    note = "wait for the copies and share them with the cluster first: `.wait_shared(&cluster)` (or `.wait_prior_shared::<N>(&cluster)`) is the copy's wait and a cluster barrier, and returns a `ClusterShared` whose `get_from(rank, index)` reads block `rank`'s array"
)]
pub trait ClusterCopyLanded {}

impl<A: SharedArray + ?Sized> Copying<A> {
    /// Does not exist: neither this block's copy nor the other blocks'
    /// may have landed. Calling it is a compile error that says so.
    ///
    /// ```compile_fail,E0277
    /// use coop::prelude::*;
    /// use coop::shared::Shared;
    ///
    /// #[kernel]
    /// pub fn too_early(cluster: Cluster, block: ThreadBlock, input: &[u32], out: Out<u32>,
    ///                  part: Shared<[u32; 64]>) {
    ///     let copying = part.copy_async(&block, &input[..64]);
    ///     out.write(0, copying.get_from(1, 0));
    /// }
    /// ```
    #[doc(hidden)]
    pub fn get_from(&self, _rank: u32, _index: A::Index) -> A::Elem
    where
        Self: ClusterCopyLanded,
    {
        unreachable!("`ClusterCopyLanded` has no implementations")
    }

    /// Waits until the block's copy has landed, then a cluster barrier:
    /// every block's array, as its copy left it, may then be read by every
    /// block of the cluster through the [`ClusterShared`] view (CUDA's
    /// `cooperative_groups::wait(cluster)`). Every thread of every block
    /// of the cluster calls it. PTX: `cp.async.wait_group 0`, then
    /// `barrier.cluster.arrive` and `barrier.cluster.wait`; no block
    /// barrier is needed besides.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::Shared;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// A cluster of 2 blocks of 64 threads reverses windows of 128
    /// /// values: each block copies its half of the window, and each
    /// /// thread reads its element from the other end, in the other block.
    /// #[kernel]
    /// pub fn reverse_windows(cluster: Cluster, block: ThreadBlock, input: &[u32], out: Out<u32>,
    ///                        part: Shared<[u32; 64]>) {
    ///     let r = cluster.block_rank() as usize;
    ///     let start = block.group_index().x as usize / 2 * 128;
    ///     let mine = &input[start + r * 64..start + r * 64 + 64];
    ///     let window = part.copy_async(&block, mine).wait_shared(&cluster);
    ///     let t = block.thread_rank() as usize;
    ///     out.write(start + r * 64 + t, window.get_from(1 - r as u32, 63 - t));
    ///     let _ = window.unshare(&cluster); // no block returns while others read
    /// }
    ///
    /// let input: Vec<u32> = (0..256).collect();
    /// let mut out = vec![0u32; 256];
    /// Cpu::new().launch(reverse_windows, LaunchConfig::new(4, 64).with_cluster(2), (&input[..], &mut out))?;
    /// assert_eq!((out[0], out[127], out[128], out[200]), (127, 0, 255, 183));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "memcpy_async")]
    pub fn wait_shared(self, cluster: &Cluster) -> ClusterShared<A> {
        let site = site!();
        Target::wait_copies::<0>(Some(self.group), "wait_shared", site);
        cluster.sync_named("wait_shared", site);
        ClusterShared::new(self.region)
    }

    /// As [`wait_shared`](Self::wait_shared), leaving in flight the `N`
    /// copies the block started after this one (at most eight): the
    /// cluster reads this tile while its blocks' next parts land (CUDA's
    /// `cooperative_groups::wait_prior<N>(cluster)`). Copies are waited for
    /// in the order they were started, as with
    /// [`wait_prior`](Self::wait_prior). PTX: `cp.async.wait_group N`, then
    /// the cluster barrier.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::Shared;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Two windows of 2 x 32 values in flight at once; each thread adds
    /// /// its element of the other block's part of both windows.
    /// #[kernel]
    /// pub fn two_windows(cluster: Cluster, block: ThreadBlock, input: &[u32], out: Out<u32>,
    ///                    a: Shared<[u32; 32]>, b: Shared<[u32; 32]>) {
    ///     let r = cluster.block_rank() as usize;
    ///     let first = a.copy_async(&block, &input[r * 32..r * 32 + 32]);
    ///     let second = b.copy_async(&block, &input[64 + r * 32..64 + r * 32 + 32]);
    ///     let a = first.wait_prior_shared::<1>(&cluster); // `second` may still be landing
    ///     let t = block.thread_rank() as usize;
    ///     let x = a.get_from(1 - r as u32, t);
    ///     let b = second.wait_shared(&cluster);
    ///     out.write(r * 32 + t, x + b.get_from(1 - r as u32, t));
    ///     let _ = (a.unshare(&cluster), b.unshare(&cluster));
    /// }
    ///
    /// let input: Vec<u32> = (0..128).collect();
    /// let mut out = vec![0u32; 64];
    /// Cpu::new().launch(two_windows, LaunchConfig::new(2, 32).with_cluster(2), (&input[..], &mut out))?;
    /// assert_eq!((out[0], out[32]), (32 + 96, 64));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn wait_prior_shared<const N: u32>(self, cluster: &Cluster) -> ClusterShared<A> {
        const {
            assert!(
                N <= 8,
                "wait_prior_shared::<N> keeps at most 8 copies in flight"
            )
        };
        let site = site!();
        Target::wait_copies::<N>(Some(self.group), "wait_prior_shared", site);
        cluster.sync_named("wait_prior_shared", site);
        ClusterShared::new(self.region)
    }
}

impl<A: SharedArray + ?Sized> ClusterShared<A> {
    /// A cluster barrier (every block's reads of every block's array are
    /// done), then [`Shared::copy_async`](super::Shared::copy_async) into
    /// the block's own array: the cluster's next tile, part by part. Every
    /// thread of every block of the cluster calls it, each block with its
    /// own part.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::Shared;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// One cluster of 2 blocks walks windows of 2 x 32 values, two
    /// /// arrays taking turns, and adds up the other block's parts.
    /// #[kernel]
    /// pub fn windows(cluster: Cluster, block: ThreadBlock, input: &[u32], out: Out<u32>,
    ///                a: Shared<[u32; 32]>, b: Shared<[u32; 32]>) {
    ///     let r = cluster.block_rank() as usize;
    ///     let part = |w: usize| &input[w * 64 + r * 32..w * 64 + r * 32 + 32];
    ///     let t = block.thread_rank() as usize;
    ///     let mut sum = 0;
    ///     let mut now = a.copy_async(&block, part(0));
    ///     let mut next = b.copy_async(&block, part(1));
    ///     for w in 0..4 {
    ///         let window = now.wait_prior_shared::<1>(&cluster);
    ///         sum += window.get_from(1 - r as u32, t);
    ///         now = next;
    ///         next = window.copy_async(&cluster, &block, part((w + 2) % 4));
    ///     }
    ///     let _ = now.wait_prior::<1>(&block);
    ///     let _ = next.wait(&block);
    ///     out.write(r * 32 + t, sum);
    /// }
    ///
    /// let input: Vec<u32> = (0..256).collect();
    /// let mut out = vec![0u32; 64];
    /// Cpu::new().launch(windows, LaunchConfig::new(2, 32).with_cluster(2), (&input[..], &mut out))?;
    /// let other = |r: usize, t: usize| (0..4).map(|w| input[w * 64 + (1 - r) * 32 + t]).sum::<u32>();
    /// assert_eq!((out[0], out[33]), (other(0, 0), other(1, 1)));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn copy_async(self, cluster: &Cluster, block: &ThreadBlock, src: &[A::Elem]) -> Copying<A> {
        let site = site!();
        cluster.sync_named("copy_async", site);
        start(self.region, block, src, false, site)
    }

    /// A cluster barrier, then
    /// [`Shared::copy_async_filled`](super::Shared::copy_async_filled):
    /// the array's elements past `src` are set to zero.
    #[inline(always)]
    #[track_caller]
    pub fn copy_async_filled(
        self,
        cluster: &Cluster,
        block: &ThreadBlock,
        src: &[A::Elem],
    ) -> Copying<A> {
        let site = site!();
        cluster.sync_named("copy_async_filled", site);
        start(self.region, block, src, true, site)
    }
}
