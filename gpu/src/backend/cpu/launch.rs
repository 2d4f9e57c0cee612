//! The CPU backend's launcher: its settings ([`Emulator`]), and the loop
//! that runs a grid's blocks through the engine, on several host threads
//! when the host has them, with the result and the first error the same as
//! if the blocks ran one after the other; a cooperative kernel's blocks all
//! at once, on one host thread.

use super::diagnostics::{EmulationError, Violation};
use super::engine::cooperative;
use super::engine::global_state::{Buffer, Buffers, LaunchGlobal};
use super::engine::happens_before::Flags;
use super::engine::lane::LaunchShared;
use super::engine::scheduler::{self, BlockRun, Counts, Geometry, Stacks};
use super::report::{Report, SharedSite};
use crate::kernel::params::ParamList;
use crate::{Dim3, Kernel};
use core::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

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
    spin_limit: u64,
    host_threads: Option<usize>,
    schedules: Schedules,
}

/// Which schedules a launch runs under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Schedules {
    /// Rank order only.
    Default,
    /// Rank order, then the seeded schedules 1 to `n`.
    Explore(u32),
    /// The one seeded schedule `seed` (a replay).
    Seed(u64),
}

impl Default for Emulator {
    fn default() -> Self {
        Emulator {
            step_budget: Self::DEFAULT_STEP_BUDGET,
            stack_size: Self::DEFAULT_STACK_SIZE,
            spin_limit: Self::DEFAULT_SPIN_LIMIT,
            host_threads: None,
            schedules: Schedules::Default,
        }
    }
}

/// The launch's words, shared by the host threads that run its blocks.
struct SyncWords<W>(W);

// SAFETY: the words are those of buffers a GPU's blocks would share: each
// thread reads the read-only ones and writes its own elements of the
// writable ones (a race on them is reported, as on the GPU it is a bug).
unsafe impl<W> Sync for SyncWords<W> {}
// SAFETY: as above.
unsafe impl<W> Send for SyncWords<W> {}

impl<W: Copy> SyncWords<W> {
    fn get(&self) -> W {
        self.0
    }
}

/// Blocks' outcomes, merged in block order.
struct Merge {
    /// The next block to merge.
    next: u32,
    pending: BTreeMap<u32, Result<Vec<super::engine::global_state::Touched>, Violation>>,
    global: LaunchGlobal,
    error: Option<(Dim3, Violation)>,
}

impl Emulator {
    /// Steps (handle-method calls other than reads of the thread's indices
    /// and the launch's shape) one thread may take before the launch
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
    /// Reads of the same few locations, with nothing written by any thread
    /// of the block meanwhile and nothing else able to run, after which a
    /// thread is reported as spinning forever: 2^20, tens of milliseconds
    /// of a spinning thread's time.
    ///
    /// ```
    /// assert_eq!(coop::cpu::Emulator::DEFAULT_SPIN_LIMIT, 1 << 20);
    /// ```
    pub const DEFAULT_SPIN_LIMIT: u64 = 1 << 20;
    /// Steps between two switches of thread under schedule exploration, on
    /// average.
    const PREEMPT_ONE_IN: u32 = 7;

    /// The default settings.
    ///
    /// ```
    /// let emulator = coop::cpu::Emulator::new();
    /// assert_eq!(emulator.step_budget(), coop::cpu::Emulator::DEFAULT_STEP_BUDGET);
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops a launch when one thread has called handle methods (other than
    /// reads of its indices and the launch's shape) more than `steps`
    /// times: how a kernel that loops forever is reported instead of
    /// hanging. (A loop that makes no such call cannot be interrupted.)
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

    /// Reports threads as spinning forever once they have read the same few
    /// locations `reads` times while no thread of their block wrote
    /// anything and every other thread waits or has returned (see
    /// [`Violation::SpinForever`]). A loop that legitimately reads one
    /// element that often without any thread writing needs a larger limit.
    ///
    /// ```
    /// use coop::cpu::{Emulator, Violation};
    /// use coop::prelude::*;
    /// use coop::shared::Shared;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn wait_for_flag(block: ThreadBlock, flag: Shared<[u32; 1]>) {
    ///     let flag = flag.into_raw();
    ///     if block.thread_rank() == 0 {
    ///         // SAFETY: nobody else touches the flag; it is never set.
    ///         unsafe { flag.write(0, 0) };
    ///         while unsafe { flag.read(0) } == 0 {}
    ///     }
    /// }
    ///
    /// let cpu = Cpu::with_emulator(Emulator::new().with_spin_limit(1024));
    /// let err = cpu.launch(wait_for_flag, LaunchConfig::new(1, 32), ()).unwrap_err();
    /// let coop_host::Error::Emulation(e) = err else { panic!("{err}") };
    /// let Violation::SpinForever { spinning, reads, .. } = &*e.violation else { panic!("{e}") };
    /// assert_eq!(spinning[0].threads.ranks(), [0]);
    /// assert_eq!(*reads, 1024);
    /// ```
    pub fn with_spin_limit(mut self, reads: u64) -> Self {
        self.spin_limit = reads.max(super::engine::lane::SPIN_SLICE);
        self
    }

    /// Runs the blocks of a launch on at most `threads` host threads (1:
    /// one after the other). The default is the host's available
    /// parallelism. The results and the first error reported are the same
    /// whatever the number, unless blocks wait for each other.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn ids(grid: Grid, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), grid.thread_rank() as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 64 * 8];
    /// let one = Cpu::with_emulator(coop::cpu::Emulator::new().with_host_threads(1));
    /// one.launch(ids, LaunchConfig::new(8, 64), (&mut out,))?;
    /// assert!(out.iter().enumerate().all(|(i, &x)| x == i as u32));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_host_threads(mut self, threads: usize) -> Self {
        self.host_threads = Some(threads.max(1));
        self
    }

    /// Schedule exploration: runs each launch under rank order and then
    /// under `count` more schedules, each interleaving the threads of every
    /// block differently (switching threads at random handle-method calls,
    /// and ordering them at random), to surface bugs that rank order hides:
    /// a race between threads that rank order happens to keep apart, a
    /// protocol that only works when one thread runs first. Writable
    /// buffers are restored before each run, so the outputs are those of
    /// the last run. A diagnostic names the schedule's seed; replay it with
    /// [`with_schedule_seed`](Self::with_schedule_seed). Costs a launch per
    /// schedule.
    ///
    /// ```
    /// use coop::cpu::Emulator;
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn count(block: ThreadBlock, total: Out<u32>) {
    ///     total.atomic().add(0, 1);
    /// }
    ///
    /// let mut total = vec![0u32];
    /// let cpu = Cpu::with_emulator(Emulator::new().with_schedules(8));
    /// cpu.launch(count, LaunchConfig::new(2, 64), (&mut total,))?;
    /// assert_eq!(total, [128]); // restored before each of the 9 runs
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_schedules(mut self, count: u32) -> Self {
        self.schedules = match count {
            0 => Schedules::Default,
            count => Schedules::Explore(count),
        };
        self
    }

    /// Runs each launch under the one seeded schedule `seed` (non-zero), as
    /// a diagnostic of [`with_schedules`](Self::with_schedules) names it:
    /// the same seed gives the same interleaving and the same diagnostic.
    ///
    /// ```
    /// use coop::cpu::Emulator;
    /// let replay = Emulator::new().with_schedule_seed(5);
    /// # let _ = replay;
    /// ```
    pub fn with_schedule_seed(mut self, seed: u64) -> Self {
        self.schedules = if seed == 0 {
            Schedules::Default
        } else {
            Schedules::Seed(seed)
        };
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
        kernel: K,
        grid: Dim3,
        block: Dim3,
        dynamic_shared: u32,
        words: <K::Params as ParamList>::Words,
    ) -> Result<Report, EmulationError> {
        // SAFETY: forwarded.
        unsafe {
            self.launch_with_cluster(
                kernel,
                grid,
                block,
                Dim3::new(1, 1, 1),
                dynamic_shared,
                words,
            )
        }
    }

    /// [`launch_with_shared`](Self::launch_with_shared) in clusters of
    /// `cluster` blocks (each dimension dividing the grid's): the blocks of
    /// each cluster run at once, so that `Cluster::sync` completes.
    ///
    /// # Safety
    ///
    /// As for [`launch`](Self::launch).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::cpu::Emulator;
    ///
    /// #[kernel]
    /// pub fn ranks(cluster: Cluster, out: Out<u32>) {
    ///     out.write(this_grid().thread_rank(), cluster.block_rank());
    /// }
    ///
    /// let mut out = vec![0u32; 4];
    /// let words = ((out.as_mut_ptr(), out.len()),);
    /// // SAFETY: `out` lives and is not otherwise used during the launch.
    /// unsafe { Emulator::new().launch_with_cluster(ranks, Dim3::new(4, 1, 1), Dim3::new(1, 1, 1), Dim3::new(2, 1, 1), 0, words) }?;
    /// assert_eq!(out, [0, 1, 0, 1]);
    /// # Ok::<(), coop::cpu::EmulationError>(())
    /// ```
    pub unsafe fn launch_with_cluster<K: Kernel>(
        &self,
        _kernel: K,
        grid: Dim3,
        block: Dim3,
        cluster: Dim3,
        dynamic_shared: u32,
        words: <K::Params as ParamList>::Words,
    ) -> Result<Report, EmulationError> {
        let fail = |at: Dim3, violation| EmulationError {
            kernel: K::NAME,
            block: at,
            block_dim: block,
            violation: Box::new(violation),
            schedule: None,
            cluster_dim: cluster,
        };
        if grid.volume() == 0 || block.volume() == 0 || block.volume() > 1024 {
            return Err(fail(Dim3::new(0, 0, 0), Violation::Shape { grid, block }));
        }
        let divides = |c: u32, g: u32| c > 0 && g.is_multiple_of(c);
        if !(divides(cluster.x, grid.x) && divides(cluster.y, grid.y) && divides(cluster.z, grid.z))
        {
            return Err(fail(Dim3::new(0, 0, 0), Violation::Shape { grid, block }));
        }
        let mut list = Vec::new();
        let mut names = K::PARAM_NAMES.iter();
        <K::Params as ParamList>::buffers(words, &mut |b| {
            let name = names.next().copied().unwrap_or("a buffer");
            if let Some(words) = b {
                list.push(Buffer { words, name });
            }
        });
        let buffers = Buffers::new(list);
        let words = SyncWords(words);
        // SAFETY: the caller vouches for the words (see above); blocks may
        // run on several host threads, each writing its own elements of the
        // writable buffers, as a GPU's blocks do.
        let body = move || unsafe { K::run_lane(words.get()) };
        let seeds: Vec<u64> = match self.schedules {
            Schedules::Default => vec![0],
            Schedules::Seed(seed) => vec![seed],
            Schedules::Explore(n) => (0..=n as u64).collect(),
        };
        // The writable buffers as the host passed them, restored before each
        // run of schedule exploration.
        let saved: Vec<(usize, Vec<u8>)> = if seeds.len() > 1 {
            buffers
                .writable()
                .map(|b| {
                    let bytes = b.words.len * b.words.elem;
                    // SAFETY: a live host buffer of `len` elements.
                    let data =
                        unsafe { core::slice::from_raw_parts(b.words.addr as *const u8, bytes) };
                    (b.words.addr, data.to_vec())
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut report = Report::default();
        for (run, &seed) in seeds.iter().enumerate() {
            if run > 0 {
                for (addr, data) in &saved {
                    // SAFETY: the same live buffer, not in use between runs.
                    unsafe {
                        core::ptr::copy_nonoverlapping(data.as_ptr(), *addr as *mut u8, data.len())
                    };
                }
            }
            let shared = LaunchShared {
                buffers: buffers.clone(),
                progress: Default::default(),
                budget: self.step_budget,
                spin_limit: self.spin_limit,
                preempt_one_in: if seed == 0 { 0 } else { Self::PREEMPT_ONE_IN },
                flags: Flags::new(seed != 0),
                body_lines: K::BODY_LINES,
            };
            let geometry = Geometry {
                block: Dim3::new(0, 0, 0),
                block_dim: block,
                grid_dim: grid,
                dynamic_shared,
                cluster_dim: cluster,
            };
            report = if K::COOPERATIVE || cluster.volume() > 1 {
                self.run_cooperative(&body, &shared, geometry, K::COOPERATIVE, seed)
            } else {
                self.run_grid(&body, &shared, geometry, seed)
            }
            .map_err(|error| {
                let (at, v) = *error;
                EmulationError {
                    schedule: (seed != 0).then_some(seed),
                    ..fail(at, v.in_block(block))
                }
            })?;
        }
        Ok(report)
    }

    /// Runs every block of the grid once, under schedule `seed` (0: rank
    /// order): on one host thread, or on several with the blocks merged in
    /// order, so that the first error is the same.
    fn run_grid(
        &self,
        body: &(dyn Fn() + Sync),
        launch: &LaunchShared,
        geometry: Geometry,
        seed: u64,
    ) -> Result<Report, Box<(Dim3, Violation)>> {
        let Geometry {
            block_dim: block,
            grid_dim: grid,
            dynamic_shared,
            ..
        } = geometry;
        let blocks = grid.volume();
        let total = blocks.min(u32::MAX as u64) as u32;
        let workers = self
            .host_threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .min(total as usize)
            .max(1);
        let state = Mutex::new(Merge {
            next: 0,
            pending: BTreeMap::new(),
            global: LaunchGlobal::default(),
            error: None,
        });
        let next = AtomicU32::new(0);
        let merged = AtomicU32::new(0);
        let stop = AtomicU32::new(u32::MAX);
        let work = |counts: &mut Counts| -> Result<(), ()> {
            let stacks = RefCell::new(Stacks::new(self.stack_size));
            loop {
                let b = next.fetch_add(1, Ordering::Relaxed);
                if b >= total || b > stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
                let geometry = Geometry {
                    block: super::engine::global_state::unrank(b, grid),
                    block_dim: block,
                    grid_dim: grid,
                    dynamic_shared,
                    cluster_dim: Dim3::new(1, 1, 1),
                };
                // Every earlier block has ended, or one failed (and with it
                // the launch): nothing this block waits for can still come.
                let earlier_done =
                    || merged.load(Ordering::Acquire) >= b || stop.load(Ordering::Relaxed) < b;
                let outcome = scheduler::run_block(
                    BlockRun {
                        geometry,
                        body,
                        launch,
                        seed: cooperative::block_seed(seed, b),
                        earlier_done: &earlier_done,
                    },
                    &stacks,
                    counts,
                );
                let mut guard = state.lock().unwrap_or_else(|e| e.into_inner());
                let m = &mut *guard;
                m.pending.insert(b, outcome);
                while let Some(outcome) = m.pending.remove(&m.next) {
                    let at = m.next;
                    let global = &mut m.global;
                    let result = outcome
                        .and_then(|touched| global.merge(&launch.buffers, grid, at, touched));
                    if let Err(v) = result {
                        m.error = Some((super::engine::global_state::unrank(at, grid), v));
                        stop.store(at, Ordering::Relaxed);
                        return Err(());
                    }
                    m.next += 1;
                    merged.store(m.next, Ordering::Release);
                }
            }
        };
        let mut counts = Counts::default();
        if workers == 1 {
            let _ = work(&mut counts);
        } else {
            let per_worker: Vec<Counts> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..workers)
                    .map(|_| {
                        s.spawn(|| {
                            let mut c = Counts::default();
                            let _ = work(&mut c);
                            c
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            });
            for c in per_worker {
                counts.add(c);
            }
        }
        let m = state.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(error) = m.error {
            return Err(Box::new(error));
        }
        Ok(report(geometry, counts))
    }

    /// Runs a cooperative launch (`grid_syncs`: every block at once, in
    /// clusters or not) or a clustered one (each cluster's blocks at once,
    /// one cluster after another), on this host thread, so that grid and
    /// cluster syncs complete.
    fn run_cooperative(
        &self,
        body: &(dyn Fn() + Sync),
        launch: &LaunchShared,
        geometry: Geometry,
        grid_syncs: bool,
        seed: u64,
    ) -> Result<Report, Box<(Dim3, Violation)>> {
        let stacks = RefCell::new(Stacks::new(self.stack_size));
        let mut counts = Counts::default();
        if grid_syncs {
            cooperative::run_grid(geometry, body, launch, seed, &stacks, &mut counts)?;
        } else {
            cooperative::run_clusters(geometry, body, launch, seed, &stacks, &mut counts)?;
        }
        Ok(report(geometry, counts))
    }
}

/// The report of a launch of shape `geometry` that ran to its end.
fn report(geometry: Geometry, counts: Counts) -> Report {
    let (grid, block) = (geometry.grid_dim, geometry.block_dim);
    Report {
        blocks: grid.volume(),
        threads: grid.volume() * block.volume(),
        warp_collectives: counts.collectives,
        block_barriers: counts.barriers,
        grid_syncs: counts.grid_syncs,
        cluster_syncs: counts.cluster_syncs,
        steps: counts.steps,
        shared: {
            let mut sites: Vec<SharedSite> = counts.shared.into_values().collect();
            sites.sort_by_key(|s| (s.site.file(), s.site.line(), s.site.column(), s.kind));
            sites
        },
    }
}
