//! The CPU backend's launcher: its settings ([`Emulator`]) and the loop
//! that runs a grid's blocks one after the other through the engine.

use super::diagnostics::{EmulationError, Violation};
use super::engine::scheduler::{self, Counts, Geometry, Stacks};
use super::report::{Report, SharedSite};
use crate::kernel::params::ParamList;
use crate::{Dim3, Kernel};

/// Settings of the CPU backend.
///
/// ```
/// use coop::cpu::Emulator;
/// let cpu = coop_host::Cpu::with_emulator(Emulator::new().with_step_budget(1 << 20));
/// # let _ = cpu;
/// ```
#[derive(Clone, Debug)]
pub struct Emulator {
    step_budget: u64,
    stack_size: usize,
}

impl Default for Emulator {
    fn default() -> Self {
        Emulator {
            step_budget: Self::DEFAULT_STEP_BUDGET,
            stack_size: Self::DEFAULT_STACK_SIZE,
        }
    }
}

impl Emulator {
    /// Steps (handle-method calls) one thread may take before the launch
    /// is stopped as spinning forever: 2^24.
    ///
    /// ```
    /// assert_eq!(coop::cpu::Emulator::DEFAULT_STEP_BUDGET, 16_777_216);
    /// ```
    pub const DEFAULT_STEP_BUDGET: u64 = 1 << 24;
    /// Stack of each emulated thread: 256 KiB (reserved, touched as used).
    ///
    /// ```
    /// assert_eq!(coop::cpu::Emulator::DEFAULT_STACK_SIZE, 256 * 1024);
    /// ```
    pub const DEFAULT_STACK_SIZE: usize = 256 * 1024;

    /// The default settings.
    ///
    /// ```
    /// let emulator = coop::cpu::Emulator::new();
    /// assert_eq!(emulator.step_budget(), coop::cpu::Emulator::DEFAULT_STEP_BUDGET);
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops a launch when one thread has called handle methods more than
    /// `steps` times: how a kernel that spins forever is reported instead
    /// of hanging. (A loop that calls no coop method at all cannot be
    /// interrupted.)
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// use coop::cpu::{Emulator, Violation};
    ///
    /// #[kernel]
    /// pub fn forever(block: ThreadBlock) {
    ///     let warp = block.tiled_partition::<32>();
    ///     while !warp.all(false) {}
    /// }
    ///
    /// let cpu = Cpu::with_emulator(Emulator::new().with_step_budget(1000));
    /// let err = cpu.launch(forever, LaunchConfig::new(1, 32), ()).unwrap_err();
    /// let coop_host::Error::Emulation(e) = err else { panic!("{err}") };
    /// assert!(matches!(*e.violation, Violation::OutOfSteps { thread: 0, steps: 1000, .. }));
    /// ```
    pub fn with_step_budget(mut self, steps: u64) -> Self {
        self.step_budget = steps;
        self
    }

    /// The stack size of each emulated thread, for kernels with deep
    /// recursion or large locals.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// use coop::cpu::Emulator;
    ///
    /// #[kernel]
    /// pub fn big_locals(grid: Grid, out: Out<u32>) {
    ///     let table = [grid.thread_rank() as u32; 100_000]; // 400 KB on the stack
    ///     out.write(grid.thread_rank(), table[99_999]);
    /// }
    ///
    /// let cpu = Cpu::with_emulator(Emulator::new().with_stack_size(2 << 20));
    /// let mut out = vec![0u32; 4];
    /// cpu.launch(big_locals, LaunchConfig::new(1, 4), (&mut out,))?;
    /// assert_eq!(out, [0, 1, 2, 3]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = bytes.max(16 * 1024);
        self
    }

    /// The step budget in force.
    ///
    /// ```
    /// use coop::cpu::Emulator;
    /// assert_eq!(Emulator::new().with_step_budget(500).step_budget(), 500);
    /// ```
    pub fn step_budget(&self) -> u64 {
        self.step_budget
    }

    /// Runs `kernel` over a grid of `grid` blocks of `block` threads.
    ///
    /// # Safety
    ///
    /// `words` are those of host buffers that stay alive and unaliased
    /// (except read-only ones) for the call, and of values, as
    /// `coop_host::Cpu` builds them.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::cpu::Emulator;
    /// use coop::kernel::NoWord;
    ///
    /// #[kernel]
    /// pub fn add(grid: Grid, x: u32, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), grid.thread_rank() as u32 + x);
    /// }
    ///
    /// // coop_host::Cpu builds these words from typed arguments; by hand, each
    /// // parameter is (word0, word1): a value and nothing, a pointer and a length.
    /// let mut out = vec![0u32; 4];
    /// let words = ((10u32, NoWord), (out.as_mut_ptr(), out.len()));
    /// // SAFETY: `out` lives and is not otherwise used during the launch.
    /// let report = unsafe { Emulator::new().launch(add, Dim3::new(1, 1, 1), Dim3::new(4, 1, 1), words) }?;
    /// assert_eq!(out, [10, 11, 12, 13]);
    /// assert_eq!(report.threads, 4);
    /// # Ok::<(), coop::cpu::EmulationError>(())
    /// ```
    pub unsafe fn launch<K: Kernel>(
        &self,
        kernel: K,
        grid: Dim3,
        block: Dim3,
        words: <K::Params as ParamList>::Words,
    ) -> Result<Report, EmulationError> {
        // SAFETY: forwarded.
        unsafe { self.launch_with_shared(kernel, grid, block, 0, words) }
    }

    /// [`launch`](Self::launch) with `dynamic_shared` bytes of dynamic
    /// shared memory per block (what a `Shared<[E]>` parameter binds).
    ///
    /// # Safety
    ///
    /// As for [`launch`](Self::launch).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::cpu::Emulator;
    /// use coop::shared::Shared;
    ///
    /// #[kernel]
    /// pub fn size(block: ThreadBlock, out: Out<u32>, buf: Shared<[u64]>) {
    ///     out.write(0, buf.len() as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 1];
    /// let words = ((out.as_mut_ptr(), out.len()),);
    /// // SAFETY: `out` lives and is not otherwise used during the launch.
    /// unsafe { Emulator::new().launch_with_shared(size, Dim3::new(1, 1, 1), Dim3::new(1, 1, 1), 80, words) }?;
    /// assert_eq!(out, [10]);
    /// # Ok::<(), coop::cpu::EmulationError>(())
    /// ```
    pub unsafe fn launch_with_shared<K: Kernel>(
        &self,
        _kernel: K,
        grid: Dim3,
        block: Dim3,
        dynamic_shared: u32,
        words: <K::Params as ParamList>::Words,
    ) -> Result<Report, EmulationError> {
        let fail = |block: Dim3, violation| EmulationError {
            kernel: K::NAME,
            block,
            violation: Box::new(violation),
        };
        if grid.volume() == 0 || block.volume() == 0 || block.volume() > 1024 {
            return Err(fail(Dim3::new(0, 0, 0), Violation::Shape { grid, block }));
        }
        // SAFETY: the caller vouches for the words (see above).
        let body = move || unsafe { K::run_lane(words) };
        let mut stacks = Stacks::new(self.stack_size);
        let mut counts = Counts::default();
        for z in 0..grid.z {
            for y in 0..grid.y {
                for x in 0..grid.x {
                    let geometry = Geometry {
                        block: Dim3::new(x, y, z),
                        block_dim: block,
                        grid_dim: grid,
                        dynamic_shared,
                    };
                    scheduler::run_block(
                        geometry,
                        &body,
                        self.step_budget,
                        &mut stacks,
                        &mut counts,
                    )
                    .map_err(|v| fail(geometry.block, v.in_block(block)))?;
                }
            }
        }
        Ok(Report {
            blocks: grid.volume(),
            threads: grid.volume() * block.volume(),
            warp_collectives: counts.collectives,
            block_barriers: counts.barriers,
            steps: counts.steps,
            shared: {
                let mut sites: Vec<SharedSite> = counts.shared.into_values().collect();
                sites.sort_by_key(|s| (s.site.file(), s.site.line(), s.site.column(), s.kind));
                sites
            },
        })
    }
}
