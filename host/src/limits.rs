//! What a launch is checked against: the limits of the device
//! ([`DeviceLimits`], read from the driver for a GPU, fixed for the CPU
//! backend) and of the compiled kernel ([`KernelLimits`]).

use crate::{Dim3, Error};
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::CudaContext;
use std::sync::Arc;

/// The limits a launch is checked against before the driver sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// The device's name, as the driver reports it.
    pub name: String,
    /// Compute capability as `10 * major + minor` (80 for sm_80).
    pub sm: u32,
    /// Most threads in one block.
    pub max_threads_per_block: u32,
    /// Largest block extent in each dimension.
    pub max_block_dim: Dim3,
    /// Largest grid extent in each dimension.
    pub max_grid_dim: Dim3,
    /// Shared memory one block may use without opting in (bytes).
    pub max_shared_per_block: u32,
    /// Shared memory one block may use after opting in (bytes).
    pub max_shared_per_block_optin: u32,
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
    /// Most threads resident on one multiprocessor.
    pub max_threads_per_multiprocessor: u32,
    /// Most blocks resident on one multiprocessor.
    pub max_blocks_per_multiprocessor: u32,
    /// Shared memory of one multiprocessor (bytes), shared by its resident
    /// blocks.
    pub max_shared_per_multiprocessor: u32,
    /// Shared memory the system keeps per resident block (bytes).
    pub reserved_shared_per_block: u32,
    /// Whether the device takes cooperative launches (grid syncs).
    pub cooperative_launch: bool,
}

impl DeviceLimits {
    /// The limits of the CPU backend: the launch limits of an sm_90 GPU
    /// (threads per block, block and grid extents, shared memory with and
    /// without opting in), so that the CPU backend refuses a launch as such
    /// a GPU would, and one multiprocessor of such a GPU (2048 threads, 32
    /// blocks, 228 KiB of shared memory, 1 KiB of it kept per block), for
    /// the co-residency check of cooperative launches.
    /// `Cpu::with_limits` emulates another device.
    ///
    /// ```
    /// let cpu = coop_host::DeviceLimits::cpu_backend();
    /// assert_eq!((cpu.sm, cpu.max_threads_per_block), (90, 1024));
    /// assert_eq!(cpu.max_shared_per_block_optin, 227 * 1024);
    /// assert_eq!((cpu.multiprocessors, cpu.max_threads_per_multiprocessor), (1, 2048));
    /// ```
    pub fn cpu_backend() -> DeviceLimits {
        DeviceLimits {
            name: "coop CPU backend".into(),
            sm: 90,
            max_threads_per_block: 1024,
            max_block_dim: Dim3::new(1024, 1024, 64),
            max_grid_dim: Dim3::new(i32::MAX as u32, 65535, 65535),
            max_shared_per_block: 48 * 1024,
            max_shared_per_block_optin: 227 * 1024,
            multiprocessors: 1,
            max_threads_per_multiprocessor: 2048,
            max_blocks_per_multiprocessor: 32,
            max_shared_per_multiprocessor: 228 * 1024,
            reserved_shared_per_block: 1024,
            cooperative_launch: true,
        }
    }

    /// The limits of the device of `ctx`, from the driver.
    pub(crate) fn from_driver(ctx: &Arc<CudaContext>) -> Result<DeviceLimits, Error> {
        let attr = |a: Attr| -> Result<u32, Error> {
            ctx.attribute(a)
                .map(|v| v.max(0) as u32)
                .map_err(Error::driver(format!("reading device attribute {a:?}")))
        };
        let (major, minor) = ctx
            .compute_capability()
            .map_err(Error::driver("reading the compute capability"))?;
        Ok(DeviceLimits {
            name: ctx
                .name()
                .map_err(Error::driver("reading the device name"))?,
            sm: (10 * major + minor).max(0) as u32,
            max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block_dim: Dim3::new(
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ),
            max_grid_dim: Dim3::new(
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ),
            max_shared_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            max_shared_per_block_optin: attr(
                Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
            multiprocessors: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            max_threads_per_multiprocessor: attr(
                Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
            )?,
            max_blocks_per_multiprocessor: attr(
                Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
            )?,
            max_shared_per_multiprocessor: attr(
                Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            )?,
            reserved_shared_per_block: attr(
                Attr::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
            )?,
            cooperative_launch: attr(Attr::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)? != 0,
        })
    }

    /// How many blocks of `block_threads` threads, each with
    /// `shared_bytes` of shared memory (static and dynamic), one
    /// multiprocessor of this device holds at once, counting threads (in
    /// whole warps), blocks and shared memory but not registers (which the
    /// driver's occupancy figure for a compiled kernel adds: the CPU
    /// backend's kernels have none). 0 when one block does not fit.
    ///
    /// ```
    /// let cpu = coop_host::DeviceLimits::cpu_backend();
    /// assert_eq!(cpu.resident_blocks(256, 0), 8); // 2048 threads
    /// assert_eq!(cpu.resident_blocks(32, 0), 32); // 32 blocks
    /// assert_eq!(cpu.resident_blocks(100, 0), 16); // 4 warps each
    /// assert_eq!(cpu.resident_blocks(64, 100 * 1024), 2); // (100 + 1) KiB each
    /// ```
    pub fn resident_blocks(&self, block_threads: u32, shared_bytes: u32) -> u32 {
        if block_threads == 0 || block_threads > self.max_threads_per_block {
            return 0;
        }
        let by_threads = self.max_threads_per_multiprocessor / block_threads.next_multiple_of(32);
        let by_shared = if shared_bytes == 0 {
            u32::MAX
        } else {
            self.max_shared_per_multiprocessor
                / shared_bytes.saturating_add(self.reserved_shared_per_block)
        };
        by_threads
            .min(by_shared)
            .min(self.max_blocks_per_multiprocessor)
    }
}

/// What a compiled kernel allows, from the driver's function attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelLimits {
    /// Most threads per block, given the kernel's register use.
    pub max_threads_per_block: u32,
    /// Shared memory the kernel declares statically (bytes).
    pub static_shared_bytes: u32,
}
