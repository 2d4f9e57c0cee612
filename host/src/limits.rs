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
    /// Most threads per block, given the kernel's register use and launch
    /// bounds.
    pub max_threads_per_block: u32,
    /// Shared memory the kernel declares statically (bytes).
    pub static_shared_bytes: u32,
    /// The kernel's `#[kernel(max_threads = N)]`, if it has one
    /// ([`Kernel::LAUNCH_BOUNDS`](coop::Kernel::LAUNCH_BOUNDS)).
    pub max_threads_bound: Option<u32>,
    /// The kernel's `#[kernel(block = (x, y, z))]`, if it has one: the
    /// one block shape its launches may have.
    pub required_block: Option<Dim3>,
}

impl KernelLimits {
    /// The limits of a kernel without launch bounds: `max_threads_per_block`
    /// threads a block and `static_shared_bytes` of static shared memory.
    ///
    /// ```
    /// use coop_host::KernelLimits;
    /// let k = KernelLimits::new(1024, 0);
    /// assert_eq!(k.max_threads_bound, None);
    /// ```
    pub const fn new(max_threads_per_block: u32, static_shared_bytes: u32) -> Self {
        KernelLimits {
            max_threads_per_block,
            static_shared_bytes,
            max_threads_bound: None,
            required_block: None,
        }
    }
}

/// What ptxas made of one kernel for this GPU, from the driver's function
/// attributes: [`Module::kernel_resources`](crate::Module::kernel_resources).
/// Compare `registers` with the kernel's `#[kernel(max_registers = ..)]`
/// or bounds; `local_bytes` above 0 means registers spilled to local
/// memory (or arrays the compiler could not keep in registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelResources {
    /// Registers a thread.
    pub registers: u32,
    /// Local memory a thread (bytes): spills and stack.
    pub local_bytes: u32,
    /// Static shared memory a block (bytes).
    pub static_shared_bytes: u32,
    /// Most threads a block, given the registers and launch bounds.
    pub max_threads_per_block: u32,
}

/// The block size that keeps the most threads of a kernel running on each
/// multiprocessor, and the grid that fills the device at that size: what
/// [`Module::occupancy_block_size`](crate::Module::occupancy_block_size),
/// [`Cpu::occupancy_block_size`](crate::Cpu::occupancy_block_size) and
/// [`Program::occupancy_block_size`](crate::Program::occupancy_block_size)
/// return (CUDA's `cudaOccupancyMaxPotentialBlockSize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockSizeChoice {
    /// Threads a block: a multiple of 32, at most the kernel's limit.
    pub block_threads: u32,
    /// Blocks of that size one multiprocessor runs at once.
    pub blocks_per_multiprocessor: u32,
    /// `blocks_per_multiprocessor` times the multiprocessors: the smallest
    /// grid that keeps every multiprocessor as full as it gets, and the
    /// most blocks a cooperative launch of that size may have.
    pub grid_blocks: u32,
}

/// Searches block sizes from `max_threads` (rounded down to a warp) down
/// to one warp for the one whose resident blocks (`resident(threads)`)
/// hold the most threads; on a tie the larger block wins. `None` when no
/// size fits at all.
pub(crate) fn choose_block_size<E>(
    max_threads: u32,
    multiprocessors: u32,
    mut resident: impl FnMut(u32) -> Result<u32, E>,
) -> Result<Option<BlockSizeChoice>, E> {
    let mut best: Option<BlockSizeChoice> = None;
    let mut threads = max_threads / 32 * 32;
    while threads >= 32 {
        let blocks = resident(threads)?;
        let running = blocks * threads;
        if blocks > 0
            && best.is_none_or(|b| running > b.blocks_per_multiprocessor * b.block_threads)
        {
            best = Some(BlockSizeChoice {
                block_threads: threads,
                blocks_per_multiprocessor: blocks,
                grid_blocks: blocks.saturating_mul(multiprocessors),
            });
        }
        threads -= 32;
    }
    Ok(best)
}

/// The error of an occupancy search that found no block size that fits.
pub(crate) fn no_block_size_fits(
    call: &'static str,
    kernel: &str,
    shared_at_one_warp: u32,
) -> Error {
    Error::InvalidArgument {
        call,
        problem: format!(
            "no block of `{kernel}` fits a multiprocessor, not even one warp with {shared_at_one_warp} \
             bytes of dynamic shared memory: ask for less shared memory a block"
        ),
    }
}

#[cfg(test)]
mod block_size_tests {
    use super::*;

    #[test]
    fn the_fullest_multiprocessor_wins_and_ties_go_to_larger_blocks() {
        let sm = DeviceLimits::cpu_backend();
        let pick = |shared: u32| {
            choose_block_size::<()>(1024, 132, |t| Ok(sm.resident_blocks(t, shared)))
                .unwrap()
                .unwrap()
        };
        // Threads alone: 1024 fills the 2048 threads of a multiprocessor.
        assert_eq!(pick(0).block_threads, 1024);
        assert_eq!(pick(0).blocks_per_multiprocessor, 2);
        assert_eq!(pick(0).grid_blocks, 264);
        // 100 KiB a block: two blocks fit whatever their size, so the
        // largest block holds the most threads.
        assert_eq!(pick(100 * 1024).blocks_per_multiprocessor, 2);
        assert_eq!(pick(100 * 1024).block_threads, 1024);
        // A thread limit of 100: 96 is the largest warp multiple, but 21
        // blocks of 96 hold 2016 threads where 32 blocks of 64 (the most
        // blocks a multiprocessor runs) hold all 2048.
        let c = choose_block_size::<()>(100, 1, |t| Ok(sm.resident_blocks(t, 0)))
            .unwrap()
            .unwrap();
        assert_eq!((c.block_threads, c.blocks_per_multiprocessor), (64, 32));
        // Nothing fits: None.
        assert_eq!(choose_block_size::<()>(1024, 1, |_| Ok(0)), Ok(None));
        // A resident count that only a mid-sized block reaches.
        let c = choose_block_size::<()>(1024, 1, |t| Ok(if t == 384 { 5 } else { 1 }))
            .unwrap()
            .unwrap();
        assert_eq!((c.block_threads, c.blocks_per_multiprocessor), (384, 5));
    }
}
