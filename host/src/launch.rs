//! The shape of a launch ([`LaunchConfig`]) and its check against the
//! device's and the kernel's limits before the driver sees it
//! ([`LaunchProblem`] says what was wrong).

use crate::{DeviceLimits, Dim3, KernelLimits, LaunchProblem, ThreadLimit};

/// The shape of a launch: blocks in the grid, threads in a block, and
/// dynamic shared memory per block.
///
/// ```
/// use coop_host::LaunchConfig;
/// let cfg = LaunchConfig::new(32, 256);                 // 1-D
/// let tiles = LaunchConfig::new((64, 64), (16, 16));     // 2-D
/// let with_smem = LaunchConfig::new(8, 128).with_shared_memory(4096);
/// assert_eq!(cfg.block.x, 256);
/// assert_eq!(tiles.grid.y, 64);
/// assert_eq!(with_smem.shared_memory_bytes, 4096);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use = "a launch configuration does nothing until passed to a launch"]
pub struct LaunchConfig {
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads in each block.
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes.
    pub shared_memory_bytes: u32,
    /// Blocks per cluster in each dimension (1, 1, 1: no clusters).
    pub cluster: Dim3,
}

impl LaunchConfig {
    /// `grid` blocks of `block` threads; `u32`, `(u32, u32)` and
    /// `(u32, u32, u32)` convert into [`Dim3`].
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Self {
        LaunchConfig {
            grid: grid.into(),
            block: block.into(),
            shared_memory_bytes: 0,
            cluster: Dim3::new(1, 1, 1),
        }
    }

    /// Enough blocks of `block_size` threads to give each of `n` elements a
    /// thread (at least one block).
    ///
    /// ```
    /// let cfg = coop_host::LaunchConfig::for_elements(1000, 256);
    /// assert_eq!(cfg.grid.x, 4);
    /// ```
    pub fn for_elements(n: usize, block_size: u32) -> Self {
        let blocks = n
            .div_ceil(block_size.max(1) as usize)
            .clamp(1, u32::MAX as usize);
        LaunchConfig::new(blocks as u32, block_size)
    }

    /// The same launch in clusters of `cluster` blocks (sm_90 and later):
    /// the GPU runs each cluster's blocks at once, and `Cluster::sync`
    /// waits for all of them. Each dimension must divide the grid's, and a
    /// cluster holds at most 16 blocks (8 is the portable limit; sm_90
    /// GPUs take up to 16, which coop allows on the kernel when asked for);
    /// a launch that breaks either, on a GPU before sm_90, or whose
    /// clusters do not fit on the GPU at once
    /// ([`Module::max_active_clusters`](crate::Module::max_active_clusters)),
    /// is refused with [`LaunchProblem`]s that say so.
    ///
    /// ```
    /// use coop_host::{DeviceLimits, KernelLimits, LaunchConfig, LaunchProblem};
    /// let device = DeviceLimits::cpu_backend(); // sm_90
    /// let kernel = KernelLimits::new(1024, 0);
    /// assert!(LaunchConfig::new(8, 128).with_cluster(4).validate(&device, &kernel).is_ok());
    /// assert!(matches!(
    ///     LaunchConfig::new(6, 128).with_cluster(4).validate(&device, &kernel),
    ///     Err(LaunchProblem::ClusterDoesNotDivideGrid { .. })
    /// ));
    /// assert!(matches!(
    ///     LaunchConfig::new(32, 128).with_cluster(32).validate(&device, &kernel),
    ///     Err(LaunchProblem::ClusterTooLarge { blocks: 32, max: 16 })
    /// ));
    /// assert!(LaunchConfig::new(32, 128).with_cluster(16).validate(&device, &kernel).is_ok());
    /// ```
    pub fn with_cluster(mut self, cluster: impl Into<Dim3>) -> Self {
        self.cluster = cluster.into();
        self
    }

    /// The same launch with `bytes` of dynamic shared memory per block.
    pub fn with_shared_memory(mut self, bytes: u32) -> Self {
        self.shared_memory_bytes = bytes;
        self
    }

    /// Checks the configuration against the device's and the kernel's
    /// limits. `Ok` means the driver will not reject it for its shape.
    ///
    /// ```
    /// use coop_host::{DeviceLimits, KernelLimits, LaunchConfig, LaunchProblem};
    /// let device = DeviceLimits::cpu_backend(); // those of an sm_90 GPU
    /// let kernel = KernelLimits::new(1024, 0);
    /// assert!(LaunchConfig::new(4, 256).validate(&device, &kernel).is_ok());
    /// assert!(matches!(
    ///     LaunchConfig::new(4, (32, 64)).validate(&device, &kernel),
    ///     Err(LaunchProblem::TooManyThreads { .. })
    /// ));
    /// ```
    pub fn validate(
        &self,
        device: &DeviceLimits,
        kernel: &KernelLimits,
    ) -> Result<(), LaunchProblem> {
        for (axis, g, max) in axes(self.grid, device.max_grid_dim) {
            if g == 0 {
                return Err(LaunchProblem::EmptyGrid { grid: self.grid });
            }
            if g > max {
                return Err(LaunchProblem::GridTooLarge {
                    axis,
                    requested: g,
                    max,
                });
            }
        }
        for (axis, b, max) in axes(self.block, device.max_block_dim) {
            if b == 0 {
                return Err(LaunchProblem::EmptyBlock { block: self.block });
            }
            if b > max {
                return Err(LaunchProblem::BlockTooLarge {
                    axis,
                    requested: b,
                    max,
                });
            }
        }
        if let Some(required) = kernel.required_block {
            if self.block != required {
                return Err(LaunchProblem::BlockShape {
                    block: self.block,
                    required,
                });
            }
        }
        let threads = self.block.volume();
        let bound = kernel.max_threads_bound.unwrap_or(u32::MAX);
        let max_threads = device
            .max_threads_per_block
            .min(kernel.max_threads_per_block)
            .min(bound);
        if threads > max_threads as u64 {
            let limit = if bound == max_threads {
                ThreadLimit::LaunchBounds
            } else if kernel.max_threads_per_block < device.max_threads_per_block {
                ThreadLimit::Registers
            } else {
                ThreadLimit::Device
            };
            return Err(LaunchProblem::TooManyThreads {
                block: self.block,
                threads,
                max: max_threads,
                limit,
            });
        }
        if self.cluster != Dim3::new(1, 1, 1) {
            if device.sm < 90 {
                return Err(LaunchProblem::ClustersUnsupported { sm: device.sm });
            }
            for (axis, c, g) in axes(self.cluster, self.grid) {
                if c == 0 || !g.is_multiple_of(c) {
                    return Err(LaunchProblem::ClusterDoesNotDivideGrid {
                        axis,
                        cluster: c,
                        grid: g,
                    });
                }
            }
            let blocks = self.cluster.volume();
            if blocks > MAX_NON_PORTABLE_CLUSTER_BLOCKS as u64 {
                return Err(LaunchProblem::ClusterTooLarge {
                    blocks,
                    max: MAX_NON_PORTABLE_CLUSTER_BLOCKS,
                });
            }
        }
        let total_shared = kernel.static_shared_bytes as u64 + self.shared_memory_bytes as u64;
        if total_shared > device.max_shared_per_block_optin as u64 {
            return Err(LaunchProblem::TooMuchSharedMemory {
                dynamic: self.shared_memory_bytes,
                static_bytes: kernel.static_shared_bytes,
                max: device.max_shared_per_block_optin,
            });
        }
        Ok(())
    }
}

/// Whether a cooperative launch of `config` fits on a device of
/// `multiprocessors` that each hold `per_multiprocessor` of its blocks.
pub(crate) fn check_co_resident(
    config: &LaunchConfig,
    per_multiprocessor: u32,
    multiprocessors: u32,
    static_shared_bytes: u32,
) -> Result<(), LaunchProblem> {
    let max = per_multiprocessor as u64 * multiprocessors as u64;
    let blocks = config.grid.volume();
    if blocks > max {
        return Err(LaunchProblem::GridNotCoResident {
            blocks,
            max,
            per_multiprocessor,
            multiprocessors,
            block_threads: config.block.volume() as u32,
            shared_bytes: static_shared_bytes.saturating_add(config.shared_memory_bytes),
        });
    }
    Ok(())
}

/// Checks that a cooperative launch in clusters fits on the device at once:
/// no more clusters than `active` (the driver's figure for the kernel, its
/// block and its cluster shape) of `shared_bytes` a block.
pub(crate) fn check_clusters_co_resident(
    config: &LaunchConfig,
    active: u32,
    shared_bytes: u32,
) -> Result<(), LaunchProblem> {
    let clusters = config.grid.volume() / config.cluster.volume().max(1);
    if clusters > active as u64 {
        return Err(LaunchProblem::ClustersNotCoResident {
            clusters,
            max: active,
            cluster: config.cluster,
            block_threads: config.block.volume() as u32,
            shared_bytes,
        });
    }
    Ok(())
}

/// Blocks a cluster may hold on every GPU that has clusters (CUDA's
/// portable cluster size).
pub const MAX_CLUSTER_BLOCKS: u32 = 8;

/// Blocks a cluster may hold on sm_90 GPUs when the kernel allows
/// non-portable cluster sizes, which coop does for larger clusters.
pub const MAX_NON_PORTABLE_CLUSTER_BLOCKS: u32 = 16;

fn axes(d: Dim3, max: Dim3) -> [(char, u32, u32); 3] {
    [('x', d.x, max.x), ('y', d.y, max.y), ('z', d.z, max.z)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An sm_90 GPU's launch limits.
    fn sm_90() -> DeviceLimits {
        DeviceLimits::cpu_backend()
    }

    const KERNEL: KernelLimits = KernelLimits::new(1024, 1024);

    #[test]
    fn accepts_the_limits_themselves() {
        let d = sm_90();
        assert_eq!(LaunchConfig::new(1, 1024).validate(&d, &KERNEL), Ok(()));
        assert_eq!(
            LaunchConfig::new((2147483647, 65535, 65535), (16, 16, 4)).validate(&d, &KERNEL),
            Ok(())
        );
        assert_eq!(
            LaunchConfig::new(1, 32)
                .with_shared_memory(232448 - 1024)
                .validate(&d, &KERNEL),
            Ok(())
        );
    }

    #[test]
    fn names_each_broken_limit() {
        let d = sm_90();
        let check = |cfg: LaunchConfig| cfg.validate(&d, &KERNEL).unwrap_err();
        assert_eq!(
            check(LaunchConfig::new(0, 32)),
            LaunchProblem::EmptyGrid {
                grid: Dim3::new(0, 1, 1)
            }
        );
        assert_eq!(
            check(LaunchConfig::new(1, (32, 0))),
            LaunchProblem::EmptyBlock {
                block: Dim3::new(32, 0, 1)
            }
        );
        assert_eq!(
            check(LaunchConfig::new((1, 65536), 32)),
            LaunchProblem::GridTooLarge {
                axis: 'y',
                requested: 65536,
                max: 65535
            }
        );
        assert_eq!(
            check(LaunchConfig::new(1, (1, 1, 65))),
            LaunchProblem::BlockTooLarge {
                axis: 'z',
                requested: 65,
                max: 64
            }
        );
        let e = check(LaunchConfig::new(1, (32, 33)));
        assert_eq!(
            e,
            LaunchProblem::TooManyThreads {
                block: Dim3::new(32, 33, 1),
                threads: 1056,
                max: 1024,
                limit: ThreadLimit::Device
            }
        );
        assert_eq!(
            e.to_string(),
            "the block (32, 33, 1) has 1056 threads; at most 1024 are allowed on this device"
        );
        let e = check(LaunchConfig::new(1, 32).with_shared_memory(232448));
        assert!(matches!(
            e,
            LaunchProblem::TooMuchSharedMemory {
                dynamic: 232448,
                static_bytes: 1024,
                max: 232448
            }
        ));
        assert!(
            e.to_string().contains("at most 232448 bytes per block"),
            "{e}"
        );
    }

    #[test]
    fn a_register_heavy_kernel_lowers_the_thread_limit() {
        let heavy = KernelLimits::new(512, 0);
        let e = LaunchConfig::new(1, 1024)
            .validate(&sm_90(), &heavy)
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("at most 512 are allowed for this kernel"),
            "{e}"
        );
    }

    #[test]
    fn for_elements_rounds_up_and_never_launches_nothing() {
        assert_eq!(LaunchConfig::for_elements(0, 256).grid.x, 1);
        assert_eq!(LaunchConfig::for_elements(257, 256).grid.x, 2);
        assert_eq!(LaunchConfig::for_elements(256, 256).grid.x, 1);
    }
}
