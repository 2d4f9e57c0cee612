//! [`LaunchProblem`]: why a launch configuration was refused before it
//! reached the driver.

use crate::Dim3;

/// Why a launch configuration was refused before reaching the driver.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LaunchProblem {
    /// A grid dimension is zero.
    #[error("the grid {grid} has a zero dimension; every dimension must be at least 1")]
    EmptyGrid {
        /// The grid asked for.
        grid: Dim3,
    },
    /// A grid dimension is over the device's limit.
    #[error("the grid's {axis} dimension is {requested}, over this device's limit of {max}")]
    GridTooLarge {
        /// `x`, `y` or `z`.
        axis: char,
        /// The extent asked for.
        requested: u32,
        /// The device's limit.
        max: u32,
    },
    /// A block dimension is zero.
    #[error("the block {block} has a zero dimension; every dimension must be at least 1")]
    EmptyBlock {
        /// The block asked for.
        block: Dim3,
    },
    /// A block dimension is over the device's limit.
    #[error("the block's {axis} dimension is {requested}, over this device's limit of {max}")]
    BlockTooLarge {
        /// `x`, `y` or `z`.
        axis: char,
        /// The extent asked for.
        requested: u32,
        /// The device's limit.
        max: u32,
    },
    /// The kernel fixes its block's shape (`#[kernel(block = (x, y, z))]`,
    /// PTX's `.reqntid`) and the launch asks for another.
    #[error(
        "the block {block} is not the kernel's shape: its `#[kernel(block = {})]` asks every \
         launch for blocks of {required}; launch that shape, or change it in the kernel's source",
        shape_as_written(*required)
    )]
    BlockShape {
        /// The block asked for.
        block: Dim3,
        /// The kernel's shape.
        required: Dim3,
    },
    /// The block has more threads than the device or kernel allows.
    #[error(
        "the block {block} has {threads} threads; at most {max} are allowed{}",
        limit.reason(*max)
    )]
    TooManyThreads {
        /// The block asked for.
        block: Dim3,
        /// Its thread count.
        threads: u64,
        /// The limit.
        max: u32,
        /// What sets the limit.
        limit: ThreadLimit,
    },
    /// A cooperative kernel's grid has more blocks than the device holds at
    /// once for this kernel, so that a grid sync would wait forever for
    /// blocks that cannot start.
    #[error(
        "the cooperative launch asks for {blocks} blocks, but at most {max} fit on this device \
         at once for this kernel ({per_multiprocessor} per multiprocessor at {block_threads} \
         threads and {shared_bytes} bytes of shared memory a block, times {multiprocessors} \
         multiprocessor{}); a grid sync needs every block resident: launch at most {max} blocks \
         (`max_cooperative_blocks` gives the figure) and let each thread loop over its share of \
         the data",
        if *multiprocessors == 1 { "" } else { "s" }
    )]
    GridNotCoResident {
        /// Blocks asked for.
        blocks: u64,
        /// The most blocks resident at once.
        max: u64,
        /// Blocks one multiprocessor holds (the driver's occupancy figure
        /// on a GPU).
        per_multiprocessor: u32,
        /// The device's multiprocessors.
        multiprocessors: u32,
        /// Threads per block.
        block_threads: u32,
        /// Shared memory per block (static and dynamic).
        shared_bytes: u32,
    },
    /// Cluster dimensions on a GPU before sm_90, which has no clusters.
    #[error("this device (sm_{sm}) has no thread block clusters: they need sm_90 or later; launch without `with_cluster`")]
    ClustersUnsupported {
        /// The device's compute capability, `10 * major + minor`.
        sm: u32,
    },
    /// Cluster dimensions for kernels whose PTX was built for an SM before
    /// sm_90, where coop's cluster calls fall back to one block a cluster:
    /// the launch would run, with wrong results.
    #[error(
        "the kernels were built for sm_{ptx_sm} (the newest PTX of the module that this sm_{device_sm} \
         device takes), where clusters do not exist and coop's cluster calls act on the block \
         alone: build the kernel crate for sm_90 too (PtxBuilder's default targets, or \
         COOP_PTX_TARGETS=80,90)"
    )]
    ClusterPtxTooOld {
        /// The SM the loaded PTX was built for.
        ptx_sm: u32,
        /// The device's SM.
        device_sm: u32,
    },
    /// A cluster dimension does not divide the grid's.
    #[error("the cluster's {axis} dimension is {cluster}, which does not divide the grid's {grid}: a grid is made of whole clusters")]
    ClusterDoesNotDivideGrid {
        /// `x`, `y` or `z`.
        axis: char,
        /// The cluster's extent.
        cluster: u32,
        /// The grid's extent.
        grid: u32,
    },
    /// More blocks in a cluster than any GPU allows.
    #[error(
        "a cluster of {blocks} blocks: at most {max} are allowed (8 on every GPU with clusters, \
         up to 16 on sm_90 GPUs as a non-portable size)"
    )]
    ClusterTooLarge {
        /// Blocks asked for.
        blocks: u64,
        /// The limit.
        max: u32,
    },
    /// No cluster of this shape fits on the GPU at once (the driver's
    /// cluster occupancy is 0): a cluster's blocks must all run together
    /// on one group of multiprocessors.
    #[error(
        "no cluster of {} blocks of {block_threads} threads with {shared_bytes} bytes of shared \
         memory each fits on this GPU at once (a cluster's blocks run together on one group of \
         multiprocessors): use a smaller cluster, fewer threads or less shared memory a block \
         (`Module::max_active_clusters` gives the figure)", cluster.volume()
    )]
    ClusterNotSchedulable {
        /// The cluster's shape in blocks.
        cluster: Dim3,
        /// Threads a block.
        block_threads: u32,
        /// Static plus dynamic shared memory a block, in bytes.
        shared_bytes: u32,
    },
    /// A cooperative launch in clusters of more clusters than fit on the
    /// GPU at once (its grid syncs would wait forever for the clusters
    /// that never start).
    #[error(
        "a cooperative launch needs every block on the GPU at once, but its grid is {clusters} \
         clusters of {} blocks and at most {max} such clusters fit at once ({block_threads} \
         threads and {shared_bytes} bytes of shared memory a block): launch at most {max} \
         clusters (`Module::max_active_clusters` gives the figure), or use smaller clusters, \
         fewer threads or less shared memory a block", cluster.volume()
    )]
    ClustersNotCoResident {
        /// Clusters asked for.
        clusters: u64,
        /// The most clusters of this shape resident at once.
        max: u32,
        /// The cluster's shape in blocks.
        cluster: Dim3,
        /// Threads a block.
        block_threads: u32,
        /// Static plus dynamic shared memory a block, in bytes.
        shared_bytes: u32,
    },
    /// The device does not take cooperative launches.
    #[error("this device cannot launch a cooperative kernel (its grid syncs need the driver's cooperative launch)")]
    CooperativeUnsupported,
    /// Static plus dynamic shared memory is over the device's limit.
    #[error(
        "the launch asks for {dynamic} bytes of dynamic shared memory on top of the kernel's \
         {static_bytes} static bytes; this device allows at most {max} bytes per block"
    )]
    TooMuchSharedMemory {
        /// Dynamic bytes asked for.
        dynamic: u32,
        /// The kernel's static bytes.
        static_bytes: u32,
        /// The device's opt-in limit.
        max: u32,
    },
}

/// A shape as `#[kernel(block = ..)]` writes it: `256`, `(32, 8)` or
/// `(8, 8, 4)`.
fn shape_as_written(shape: Dim3) -> String {
    match (shape.y, shape.z) {
        (1, 1) => shape.x.to_string(),
        (_, 1) => format!("({}, {})", shape.x, shape.y),
        _ => format!("({}, {}, {})", shape.x, shape.y, shape.z),
    }
}

/// What sets the most threads a block may have, in
/// [`LaunchProblem::TooManyThreads`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ThreadLimit {
    /// The device (1024 threads on every GPU coop runs on).
    Device,
    /// The kernel's register use: a block's threads must find their
    /// registers on one multiprocessor.
    Registers,
    /// The kernel's own `#[kernel(max_threads = N)]` (its `.maxntid`).
    LaunchBounds,
}

impl ThreadLimit {
    /// The end of [`LaunchProblem::TooManyThreads`]'s message for a limit
    /// of `max` threads.
    fn reason(self, max: u32) -> String {
        match self {
            ThreadLimit::Device => " on this device".into(),
            ThreadLimit::Registers => {
                " for this kernel (its register use lowers the device's limit)".into()
            }
            ThreadLimit::LaunchBounds => format!(
                " for this kernel, by its `#[kernel(max_threads = {max})]`: launch smaller \
                 blocks, or raise the bound in the kernel's source"
            ),
        }
    }
}
