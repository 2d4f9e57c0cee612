//! The CPU backend as a device: [`Cpu`] launches `#[kernel]`s on host
//! memory through coop's emulator, with a GPU launch's checks.

use crate::args::CpuArgs;
use crate::limits::{choose_block_size, no_block_size_fits};
use crate::{BlockSizeChoice, DeviceLimits, Error, KernelLimits, LaunchConfig, LaunchProblem};
use coop::cpu::{Emulator, Report};
use coop::kernel::params::ParamList;
use coop::Kernel;

/// The CPU backend as a device: launches the same `#[kernel]`s as a
/// [`Gpu`](crate::Gpu), with host buffers, through the same typed call.
///
/// Each launch runs every thread of every block with the hardware's
/// semantics, deterministically, and reports a broken rule of the model
/// (a barrier not reached by the whole block, a divergent shuffle, a
/// partial tile, a kernel that spins forever) as
/// [`Error::Emulation`], naming the kernel, the block, the threads and the
/// `file:line` of the calls.
///
/// ```
/// use coop::prelude::*;
/// use coop_host::{Cpu, LaunchConfig};
///
/// #[kernel]
/// pub fn double(grid: Grid, input: &[u32], out: Out<u32>) {
///     let i = grid.thread_rank();
///     if i < input.len() {
///         out.write(i, 2 * input[i]);
///     }
/// }
///
/// let input = vec![1, 2, 3];
/// let mut out = vec![0u32; 3];
/// Cpu::new().launch(double, LaunchConfig::new(1, 32), (&input, &mut out)).unwrap();
/// assert_eq!(out, [2, 4, 6]);
/// ```
#[derive(Clone, Debug)]
pub struct Cpu {
    emulator: Emulator,
    limits: DeviceLimits,
}

impl Default for Cpu {
    fn default() -> Self {
        Cpu {
            emulator: Emulator::default(),
            limits: DeviceLimits::cpu_backend(),
        }
    }
}

impl Cpu {
    /// The CPU backend with default settings.
    pub fn new() -> Self {
        Cpu::default()
    }

    /// The CPU backend with `emulator`'s settings (step budget, stack size).
    pub fn with_emulator(emulator: Emulator) -> Self {
        Cpu {
            emulator,
            ..Cpu::default()
        }
    }

    /// The same backend, checking launches against `limits` instead of
    /// [`DeviceLimits::cpu_backend`]: to refuse what a given GPU refuses
    /// (pass its [`Gpu::limits`](crate::Gpu::limits)), or to emulate a
    /// device of more multiprocessors, which holds a larger cooperative
    /// grid.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, DeviceLimits};
    ///
    /// #[kernel(cooperative)]
    /// pub fn phases(grid: CooperativeGrid) {
    ///     grid.sync();
    /// }
    ///
    /// let h100_sized = Cpu::new().with_limits(DeviceLimits {
    ///     multiprocessors: 132,
    ///     ..DeviceLimits::cpu_backend()
    /// });
    /// assert_eq!(h100_sized.max_cooperative_blocks(phases, 256, 0), 132 * 8);
    /// ```
    pub fn with_limits(mut self, limits: DeviceLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits launches are checked against:
    /// [`DeviceLimits::cpu_backend`], those of an sm_90 GPU with one
    /// multiprocessor, unless set with [`with_limits`](Self::with_limits).
    pub fn limits(&self) -> DeviceLimits {
        self.limits.clone()
    }

    /// How many blocks of `kernel` of `block_threads` threads, each with
    /// `dynamic_shared_bytes` of dynamic shared memory, one emulated
    /// multiprocessor holds at once ([`DeviceLimits::resident_blocks`]):
    /// what [`Module::resident_blocks`](crate::Module::resident_blocks)
    /// gives on a GPU, from threads and shared memory alone (the CPU
    /// backend knows no register counts).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn nothing(block: ThreadBlock) {}
    ///
    /// assert_eq!(coop_host::Cpu::new().resident_blocks(nothing, 256, 0), 8);
    /// ```
    pub fn resident_blocks<K: Kernel>(
        &self,
        _kernel: K,
        block_threads: u32,
        dynamic_shared_bytes: u32,
    ) -> u32 {
        if K::LAUNCH_BOUNDS
            .max_threads
            .is_some_and(|bound| block_threads > bound)
        {
            return 0;
        }
        let shared = (K::STATIC_SHARED_BYTES as u32).saturating_add(dynamic_shared_bytes);
        self.limits.resident_blocks(block_threads, shared)
    }

    /// The block size at which `kernel` keeps the most threads running on
    /// each emulated multiprocessor, given its shared memory and launch
    /// bounds, with `dynamic_shared_bytes(block_threads)` bytes of dynamic
    /// shared memory a block; and the grid that fills the emulated device
    /// at that size. The same search as on a GPU
    /// ([`Module::occupancy_block_size`](crate::Module::occupancy_block_size)),
    /// over [`resident_blocks`](Self::resident_blocks) (no registers here).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{BlockSizeChoice, Cpu};
    ///
    /// #[kernel]
    /// pub fn stage(block: ThreadBlock, tile: Shared<[f32]>) {}
    ///
    /// #[kernel(max_threads = 256)]
    /// pub fn bounded(grid: Grid) {}
    ///
    /// let cpu = Cpu::new(); // one multiprocessor of an sm_90 GPU
    /// // 4 bytes a thread: a block of 1024 takes 4 KiB, two fit.
    /// let choice = cpu.occupancy_block_size(stage, |threads| 4 * threads)?;
    /// assert_eq!(
    ///     choice,
    ///     BlockSizeChoice { block_threads: 1024, blocks_per_multiprocessor: 2, grid_blocks: 2 }
    /// );
    /// // 100 KiB a block whatever its size: two fit in 228 KiB, so the
    /// // largest block holds the most threads.
    /// let choice = cpu.occupancy_block_size(stage, |_| 100 * 1024)?;
    /// assert_eq!((choice.block_threads, choice.blocks_per_multiprocessor), (1024, 2));
    /// // 120 KiB: one fits.
    /// assert_eq!(cpu.occupancy_block_size(stage, |_| 120 * 1024)?.blocks_per_multiprocessor, 1);
    /// // The kernel's bound caps the search.
    /// assert_eq!(cpu.occupancy_block_size(bounded, |_| 0)?.block_threads, 256);
    /// // Too much shared memory for any block: a typed error.
    /// assert!(cpu.occupancy_block_size(stage, |_| 1 << 20).is_err());
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[doc(alias = "cudaOccupancyMaxPotentialBlockSize")]
    pub fn occupancy_block_size<K: Kernel>(
        &self,
        kernel: K,
        dynamic_shared_bytes: impl Fn(u32) -> u32,
    ) -> Result<BlockSizeChoice, Error> {
        let max_threads = kernel_limits::<K>(&self.limits).max_threads_per_block;
        choose_block_size::<Error>(max_threads, self.limits.multiprocessors, |threads| {
            Ok(self.resident_blocks(kernel, threads, dynamic_shared_bytes(threads)))
        })?
        .ok_or_else(|| {
            no_block_size_fits(
                "Cpu::occupancy_block_size",
                K::NAME,
                dynamic_shared_bytes(32),
            )
        })
    }

    /// The most blocks of `block_threads` threads, each with
    /// `dynamic_shared_bytes` of dynamic shared memory, that a cooperative
    /// launch of `kernel` may have: what the emulated device holds at once
    /// ([`DeviceLimits::resident_blocks`] times its multiprocessors). A
    /// larger cooperative grid is refused, as on a GPU.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, Error, LaunchConfig, LaunchProblem};
    ///
    /// #[kernel(cooperative)]
    /// pub fn phases(grid: CooperativeGrid) {
    ///     grid.sync();
    /// }
    ///
    /// let cpu = Cpu::new(); // one multiprocessor of an sm_90 GPU
    /// assert_eq!(cpu.max_cooperative_blocks(phases, 256, 0), 8);
    /// cpu.launch(phases, LaunchConfig::new(8, 256), ())?;
    /// let err = cpu.launch(phases, LaunchConfig::new(9, 256), ()).unwrap_err();
    /// assert!(matches!(
    ///     err,
    ///     Error::InvalidLaunch { problem: LaunchProblem::GridNotCoResident { max: 8, .. }, .. }
    /// ));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn max_cooperative_blocks<K: Kernel>(
        &self,
        kernel: K,
        block_threads: u32,
        dynamic_shared_bytes: u32,
    ) -> u32 {
        self.resident_blocks(kernel, block_threads, dynamic_shared_bytes)
            .saturating_mul(self.limits.multiprocessors)
    }

    /// How many clusters of `config`'s shape (its block, dynamic shared
    /// memory and cluster) of `kernel` the emulated device holds at once:
    /// the blocks [`max_cooperative_blocks`](Self::max_cooperative_blocks)
    /// counts, in whole clusters (the CPU backend does not know how a GPU
    /// groups its multiprocessors, so a GPU's figure, which
    /// [`Module::max_active_clusters`](crate::Module::max_active_clusters)
    /// gives, may be lower). Fails as a launch would on a configuration the
    /// device refuses, or one without cluster dimensions.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel(cooperative)]
    /// pub fn rounds(grid: CooperativeGrid, cluster: Cluster, out: Out<u32>) {
    ///     cluster.sync();
    ///     grid.sync();
    ///     if this_thread_block().thread_rank() == 0 {
    ///         out.write(grid.block_rank(), cluster.block_rank());
    ///     }
    /// }
    ///
    /// let cpu = Cpu::new(); // one multiprocessor: 8 blocks of 256 at once
    /// let config = LaunchConfig::new(4, 256).with_cluster(4);
    /// assert_eq!(cpu.max_active_clusters(rounds, config)?, 2);
    /// let mut out = vec![0u32; 8];
    /// cpu.launch(rounds, LaunchConfig::new(8, 256).with_cluster(4), (&mut out,))?;
    /// assert_eq!(out, [0, 1, 2, 3, 0, 1, 2, 3]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn max_active_clusters<K: Kernel>(
        &self,
        kernel: K,
        config: LaunchConfig,
    ) -> Result<u32, Error> {
        config
            .validate(&self.limits, &kernel_limits::<K>(&self.limits))
            .map_err(|problem| Error::InvalidLaunch {
                kernel: K::NAME,
                problem,
            })?;
        if config.cluster == coop::Dim3::new(1, 1, 1) {
            return Err(Error::InvalidArgument {
                call: "Cpu::max_active_clusters",
                problem: "`config` has no cluster dimensions: give it some with \
                          `LaunchConfig::with_cluster`"
                    .into(),
            });
        }
        let blocks = self.max_cooperative_blocks(
            kernel,
            config.block.volume() as u32,
            config.shared_memory_bytes,
        );
        Ok(blocks / config.cluster.volume() as u32)
    }

    /// Launches `kernel` with `args`, one per non-handle parameter in order,
    /// checked against its signature at compile time, and runs it to the
    /// end. The configuration is checked as for a GPU launch.
    pub fn launch<K, A>(
        &self,
        kernel: K,
        config: LaunchConfig,
        mut args: A,
    ) -> Result<Report, Error>
    where
        K: Kernel,
        A: CpuArgs<K::Params>,
        K::Params: ParamList,
    {
        let limits = &self.limits;
        let kernel_limits = kernel_limits::<K>(limits);
        config
            .validate(limits, &kernel_limits)
            .map_err(|problem| Error::InvalidLaunch {
                kernel: K::NAME,
                problem,
            })?;
        if K::COOPERATIVE {
            if !limits.cooperative_launch {
                return Err(Error::InvalidLaunch {
                    kernel: K::NAME,
                    problem: LaunchProblem::CooperativeUnsupported,
                });
            }
            let shared = kernel_limits
                .static_shared_bytes
                .saturating_add(config.shared_memory_bytes);
            let per = limits.resident_blocks(config.block.volume() as u32, shared);
            if config.cluster != coop::Dim3::new(1, 1, 1) {
                // In clusters: whole clusters of the blocks that fit, the
                // figure `max_active_clusters` gives, checked first as on
                // a GPU.
                let active =
                    per.saturating_mul(limits.multiprocessors) / config.cluster.volume() as u32;
                crate::launch::check_clusters_co_resident(&config, active, shared).map_err(
                    |problem| Error::InvalidLaunch {
                        kernel: K::NAME,
                        problem,
                    },
                )?;
            }
            crate::launch::check_co_resident(
                &config,
                per,
                limits.multiprocessors,
                kernel_limits.static_shared_bytes,
            )
            .map_err(|problem| Error::InvalidLaunch {
                kernel: K::NAME,
                problem,
            })?;
        }
        let words = args.words().map_err(|argument| Error::WrongDevice {
            kernel: K::NAME,
            device: "CPU",
            argument,
        })?;
        // SAFETY: `launch_with_shared` needs the words of host buffers that
        // stay alive and unaliased (but read-only ones) for the call, and of
        // values. `args.words()` made them, and only because every argument
        // is in host memory (`CpuArg` returns no words otherwise); `args` is
        // owned by this call and not touched until the launch has returned,
        // and an output is a `&mut` borrow, so no one else aliases it.
        let report = unsafe {
            self.emulator.launch_with_cluster(
                kernel,
                config.grid,
                config.block,
                config.cluster,
                config.shared_memory_bytes,
                words,
            )
        }?;
        Ok(report)
    }
}

/// A kernel's limits on the CPU backend: no register limit (the device's
/// thread limit is the kernel's), its launch bound, its static shared
/// memory.
fn kernel_limits<K: Kernel>(limits: &DeviceLimits) -> KernelLimits {
    let bound = K::LAUNCH_BOUNDS.max_threads;
    KernelLimits {
        max_threads_per_block: limits.max_threads_per_block.min(bound.unwrap_or(u32::MAX)),
        static_shared_bytes: K::STATIC_SHARED_BYTES as u32,
        max_threads_bound: bound,
        required_block: K::LAUNCH_BOUNDS.block,
    }
}
