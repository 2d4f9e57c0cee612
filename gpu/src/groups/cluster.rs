//! The calling block's cluster (`Cluster`, `this_cluster`): blocks that
//! the GPU runs at once on neighbouring multiprocessors (sm_90 and later),
//! with a barrier for all their threads.

use crate::Dim3;
use crate::backend::target::Target;
use crate::backend::{Barriers, Naming, Registers, site};

/// The blocks of the calling block's cluster (CUDA's `cluster_group`).
///
/// A launch with cluster dimensions (`LaunchConfig::with_cluster`, sm_90
/// and later) groups its blocks into clusters of that shape, which the GPU
/// runs at once; `sync` waits for every thread of every block of the
/// cluster. A launch without them is made of clusters of one block, whose
/// `sync` is the block's barrier. Obtain the handle as a kernel parameter
/// (`cluster: Cluster`) or with [`this_cluster`].
///
/// ```
/// use coop::prelude::*;
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// Each block writes its rank in the cluster; after the cluster's
/// /// barrier its first thread reads the next block's (of the same cluster).
/// #[kernel]
/// pub fn ring(cluster: Cluster, ranks: Out<u32>, next: Out<u32>) {
///     let block = this_grid().block_rank();
///     let first = this_thread_block().thread_rank() == 0;
///     if first {
///         ranks.write(block, cluster.block_rank());
///     }
///     cluster.sync();
///     if first {
///         let base = block - cluster.block_rank() as usize;
///         let partner = base + (cluster.block_rank() as usize + 1) % cluster.num_blocks() as usize;
///         next.write(block, ranks.read(partner));
///     }
/// }
///
/// let (mut ranks, mut next) = (vec![0u32; 8], vec![0u32; 8]);
/// Cpu::new().launch(ring, LaunchConfig::new(8, 32).with_cluster(4), (&mut ranks, &mut next))?;
/// assert_eq!(ranks, [0, 1, 2, 3, 0, 1, 2, 3]);
/// assert_eq!(next, [1, 2, 3, 0, 1, 2, 3, 0]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
#[doc(alias = "cluster_group")]
pub struct Cluster {
    _private: (),
}

/// The calling block's cluster: the same handle a `cluster: Cluster`
/// parameter receives, for functions called from a kernel.
///
/// ```
/// use coop::prelude::*;
///
/// #[kernel]
/// pub fn sizes(grid: Grid, out: Out<u32>) {
///     out.write(grid.thread_rank(), this_cluster().num_blocks());
/// }
///
/// let mut out = vec![0u32; 4];
/// coop_host::Cpu::new().launch(sizes, coop_host::LaunchConfig::new(4, 1).with_cluster(2), (&mut out,))?;
/// assert_eq!(out, [2; 4]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[doc(alias = "cg::this_cluster")]
pub fn this_cluster() -> Cluster {
    Cluster { _private: () }
}

impl Cluster {
    /// The calling block's index within its cluster (CUDA's
    /// `block_index()`, PTX `%cluster_ctaid`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn ys(cluster: Cluster, out: Out<u32>) {
    ///     out.write(this_grid().block_rank(), cluster.block_index().y);
    /// }
    ///
    /// let mut out = vec![0u32; 4];
    /// coop_host::Cpu::new().launch(ys, coop_host::LaunchConfig::new((2, 2), 1).with_cluster((1, 2)), (&mut out,))?;
    /// assert_eq!(out, [0, 0, 1, 1]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn block_index(&self) -> Dim3 {
        let b = Target::block_index(site!());
        let c = Target::cluster_dim(site!());
        Dim3::new(b.x % c.x, b.y % c.y, b.z % c.z)
    }

    /// The cluster's shape in blocks (CUDA's `dim_blocks()`, PTX
    /// `%cluster_nctaid`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn shape(cluster: Cluster, out: Out<u32>) {
    ///     let d = cluster.dim_blocks();
    ///     out.write(this_grid().block_rank(), d.x * 10 + d.y);
    /// }
    ///
    /// let mut out = vec![0u32; 4];
    /// coop_host::Cpu::new().launch(shape, coop_host::LaunchConfig::new((2, 2), 1).with_cluster((2, 1)), (&mut out,))?;
    /// assert_eq!(out, [21; 4]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn dim_blocks(&self) -> Dim3 {
        Target::cluster_dim(site!())
    }

    /// The calling block's rank in the cluster, `x` fastest (CUDA's
    /// `block_rank()`, PTX `%cluster_ctarank`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn ranks(cluster: Cluster, out: Out<u32>) {
    ///     out.write(this_grid().block_rank(), cluster.block_rank());
    /// }
    ///
    /// let mut out = vec![0u32; 6];
    /// coop_host::Cpu::new().launch(ranks, coop_host::LaunchConfig::new(6, 1).with_cluster(3), (&mut out,))?;
    /// assert_eq!(out, [0, 1, 2, 0, 1, 2]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn block_rank(&self) -> u32 {
        self.dim_blocks().linearize_u32(self.block_index())
    }

    /// Blocks in the cluster (CUDA's `num_blocks()`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn count(cluster: Cluster, out: Out<u32>) {
    ///     out.write(this_grid().block_rank(), cluster.num_blocks());
    /// }
    ///
    /// let mut out = vec![0u32; 4];
    /// coop_host::Cpu::new().launch(count, coop_host::LaunchConfig::new(4, 1), (&mut out,))?;
    /// assert_eq!(out, [1; 4]); // no cluster dimensions: clusters of one block
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn num_blocks(&self) -> u32 {
        self.dim_blocks().volume_u32()
    }

    /// The calling thread's index among the cluster's threads, in three
    /// dimensions (CUDA's `thread_index()`): its block's index in the
    /// cluster times the block's shape, plus its index in the block, each
    /// dimension on its own.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn xs(cluster: Cluster, out: Out<u32>) {
    ///     let t = cluster.thread_index();
    ///     out.write(this_grid().thread_rank(), t.x * 10 + t.y);
    /// }
    ///
    /// // Clusters of 2 x 1 blocks of 2 x 1 threads: x runs over the cluster.
    /// let mut out = vec![0u32; 8];
    /// coop_host::Cpu::new().launch(xs, coop_host::LaunchConfig::new(4, 2).with_cluster(2), (&mut out,))?;
    /// assert_eq!(out, [0, 10, 20, 30, 0, 10, 20, 30]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn thread_index(&self) -> Dim3 {
        let b = self.block_index();
        let d = Target::block_dim(site!());
        let t = Target::thread_index(site!());
        Dim3::new(b.x * d.x + t.x, b.y * d.y + t.y, b.z * d.z + t.z)
    }

    /// The cluster's shape in threads (CUDA's `dim_threads()`): its shape
    /// in blocks times the block's, each dimension on its own.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn shape(cluster: Cluster, out: Out<u32>) {
    ///     let d = cluster.dim_threads();
    ///     out.write(this_grid().thread_rank(), d.x * 100 + d.y * 10 + d.z);
    /// }
    ///
    /// // Clusters of 2 x 1 blocks of 4 x 2 threads: 8 x 2 x 1 threads.
    /// let mut out = vec![0u32; 16];
    /// coop_host::Cpu::new().launch(shape, coop_host::LaunchConfig::new(2, (4, 2)).with_cluster(2), (&mut out,))?;
    /// assert_eq!(out, [821; 16]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn dim_threads(&self) -> Dim3 {
        let c = self.dim_blocks();
        let d = Target::block_dim(site!());
        Dim3::new(c.x * d.x, c.y * d.y, c.z * d.z)
    }

    /// The calling thread's rank among the cluster's threads: its block's
    /// rank in the cluster times the block size, plus its rank in the block.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn ranks(cluster: Cluster, out: Out<u32>) {
    ///     out.write(this_grid().thread_rank(), cluster.thread_rank());
    /// }
    ///
    /// let mut out = vec![0u32; 8];
    /// coop_host::Cpu::new().launch(ranks, coop_host::LaunchConfig::new(4, 2).with_cluster(2), (&mut out,))?;
    /// assert_eq!(out, [0, 1, 2, 3, 0, 1, 2, 3]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn thread_rank(&self) -> u32 {
        let d = Target::block_dim(site!());
        let t = Target::thread_index(site!());
        self.block_rank() * d.volume_u32() + d.linearize_u32(t)
    }

    /// Threads in the cluster.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn count(cluster: Cluster, out: Out<u32>) {
    ///     out.write(this_grid().thread_rank(), cluster.num_threads());
    /// }
    ///
    /// let mut out = vec![0u32; 8];
    /// coop_host::Cpu::new().launch(count, coop_host::LaunchConfig::new(4, 2).with_cluster(4), (&mut out,))?;
    /// assert_eq!(out, [8; 8]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "size")]
    pub fn num_threads(&self) -> u32 {
        self.num_blocks() * Target::block_dim(site!()).volume_u32()
    }

    /// Every thread of every block of the cluster waits here; writes made
    /// before by any of them are visible to all after it (CUDA's
    /// `cluster.sync()`, PTX `barrier.cluster.arrive` and
    /// `barrier.cluster.wait`).
    ///
    /// Every thread of every block of the cluster must make the same call:
    /// the CPU backend reports a block that returned or waits at another
    /// one (`Violation::ClusterSyncNotReached`), and a thread that skipped
    /// it as for a block barrier.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// /// Block 0 of each cluster adds what its cluster's blocks wrote.
    /// #[kernel]
    /// pub fn cluster_sums(cluster: Cluster, parts: Out<u32>, sums: Out<u32>) {
    ///     let block = this_grid().block_rank();
    ///     let first = this_thread_block().thread_rank() == 0;
    ///     if first {
    ///         parts.write(block, block as u32);
    ///     }
    ///     cluster.sync();
    ///     if first && cluster.block_rank() == 0 {
    ///         let n = cluster.num_blocks() as usize;
    ///         sums.write(block / n, (block..block + n).map(|b| parts.read(b)).sum());
    ///     }
    /// }
    ///
    /// let (mut parts, mut sums) = (vec![0u32; 8], vec![0u32; 2]);
    /// coop_host::Cpu::new().launch(cluster_sums, coop_host::LaunchConfig::new(8, 32).with_cluster(4), (&mut parts, &mut sums))?;
    /// assert_eq!(sums, [6, 22]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "cluster_group::sync")]
    pub fn sync(&self) {
        self.sync_at(site!());
    }

    #[inline(always)]
    pub(crate) fn sync_at(&self, site: crate::backend::Site) {
        Target::sync_cluster(site);
    }

    /// The cluster barrier of the handle method `call` (a distributed
    /// shared memory phase change), which the CPU backend names.
    #[inline(always)]
    pub(crate) fn sync_named(&self, call: &'static str, site: crate::backend::Site) {
        Target::entering(call, site);
        Target::sync_cluster(site);
    }
}
