//! The CPU backend: runs `#[kernel]` functions on the host, thread by
//! thread, with the semantics of the GPU's instructions, and reports the
//! rules of the model a kernel breaks instead of hanging.
//!
//! Every kernel thread runs as a coroutine on the calling OS thread. A
//! block's threads run in rank order until each reaches a collective (a
//! barrier, shuffle, vote or match) or returns; collectives whose whole
//! group has arrived are then completed with the result the hardware gives,
//! and the threads go on. When a collective can never complete (a thread
//! returned before a barrier, two halves of a tile wait at different
//! shuffles) the launch stops with an [`EmulationError`] naming the kernel,
//! the block, the threads and the `file:line` of each call. Blocks run one
//! after the other. Nothing depends on the host's scheduling, so the same
//! launch gives the same results and the same diagnostics every time.
//!
//! Launch kernels on the CPU through `coop_host::Cpu` (or
//! `coop_host::Device`), which checks argument types like a GPU launch; the
//! [`Emulator`] here is the engine underneath.

use crate::backend::host::scheduler::{self, Counts, Geometry, Stacks};
use crate::kernel::params::ParamList;
use crate::{Dim3, Kernel};
use core::fmt;

/// Where in a kernel's source a call was made (`file:line:column`).
///
/// ```
/// let site: coop::emulator::Site = core::panic::Location::caller();
/// assert!(site.file().ends_with(".rs"));
/// ```
pub type Site = &'static core::panic::Location<'static>;

/// Settings of the CPU backend.
///
/// ```
/// use coop::emulator::Emulator;
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

/// What a launch did.
///
/// ```
/// use coop::prelude::*;
///
/// #[kernel]
/// pub fn two_steps(block: ThreadBlock) {
///     let warp = block.tiled_partition::<32>();
///     warp.sync();
///     block.sync();
/// }
///
/// let report = coop_host::Cpu::new().launch(two_steps, coop_host::LaunchConfig::new(3, 64), ())?;
/// assert_eq!((report.blocks, report.threads), (3, 192));
/// assert_eq!(report.warp_collectives, 3 * 2); // one per warp
/// assert_eq!(report.block_barriers, 3); // one per block
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Blocks run.
    pub blocks: u64,
    /// Threads run.
    pub threads: u64,
    /// Warp collectives completed (one per tile per call).
    pub warp_collectives: u64,
    /// Block barriers completed (one per block per call).
    pub block_barriers: u64,
    /// Steps taken by all threads (calls of handle methods).
    pub steps: u64,
    /// Shared-memory traffic per access site, in source order: how many
    /// warp-wide requests each site made and how many bank transactions
    /// they needed (see [`SharedSite`]).
    pub shared: Vec<SharedSite>,
}

impl Report {
    /// The shared-memory sites on source line `line` (of any file), in
    /// column order.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::{ByRank, Shared};
    ///
    /// #[kernel]
    /// pub fn copy(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
    ///     let r = block.thread_rank() as usize;
    ///     let mine = buf.own(ByRank::new());
    ///     mine.set(r as u32); let all = mine.publish(&block); out.write(r, all.get(r)); // line 8
    /// }
    ///
    /// let mut out = vec![0u32; 64];
    /// let report = coop_host::Cpu::new().launch(copy, coop_host::LaunchConfig::new(1, 64), (&mut out,))?;
    /// let sites = report.shared_at_line(line!() - 5);
    /// assert_eq!(sites.len(), 2); // the store, then the load
    /// assert_eq!((sites[0].requests, sites[0].transactions), (2, 2)); // one per warp
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn shared_at_line(&self, line: u32) -> Vec<&SharedSite> {
        let mut sites: Vec<&SharedSite> = self
            .shared
            .iter()
            .filter(|s| s.site.line() == line)
            .collect();
        sites.sort_by_key(|s| s.site.column());
        sites
    }
}

/// A shared-memory access's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AccessKind {
    /// A load.
    Read,
    /// A store.
    Write,
}

impl fmt::Display for AccessKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AccessKind::Read => "reads",
            AccessKind::Write => "writes",
        })
    }
}

/// One thread's access of a shared element, as a diagnostic names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedAccess {
    /// The thread's rank in its block.
    pub thread: u32,
    /// Load or store.
    pub kind: AccessKind,
    /// Where in the kernel.
    pub site: Site,
}

/// The shared-memory traffic of one access site of a launch.
///
/// The threads of a warp that execute a site together make one request;
/// shared memory serves it in as many transactions as the largest number
/// of distinct 4-byte words any one of its 32 banks must deliver (bank =
/// word address mod 32; threads reading the same word share it). A
/// conflict-free request takes 1 transaction; 32 threads reading down one
/// column of a 32 x 32 `f32` tile take 32. `transactions / requests` is
/// the profiler's `shared_load_transactions_per_request` (and store).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedSite {
    /// The access's place in the kernel.
    pub site: Site,
    /// The array's parameter name.
    pub array: &'static str,
    /// Loads or stores.
    pub kind: AccessKind,
    /// Warp-wide requests.
    pub requests: u64,
    /// Bank transactions they took.
    pub transactions: u64,
}

impl SharedSite {
    /// Average transactions per request: 1.0 without bank conflicts.
    ///
    /// ```
    /// let site = coop::emulator::SharedSite {
    ///     site: core::panic::Location::caller(),
    ///     array: "tile",
    ///     kind: coop::emulator::AccessKind::Read,
    ///     requests: 4,
    ///     transactions: 128,
    /// };
    /// assert_eq!(site.transactions_per_request(), 32.0);
    /// ```
    pub fn transactions_per_request(&self) -> f64 {
        self.transactions as f64 / self.requests.max(1) as f64
    }
}

impl Emulator {
    /// Steps (handle-method calls) one thread may take before the launch
    /// is stopped as spinning forever: 2^24.
    ///
    /// ```
    /// assert_eq!(coop::emulator::Emulator::DEFAULT_STEP_BUDGET, 16_777_216);
    /// ```
    pub const DEFAULT_STEP_BUDGET: u64 = 1 << 24;
    /// Stack of each emulated thread: 256 KiB (reserved, touched as used).
    ///
    /// ```
    /// assert_eq!(coop::emulator::Emulator::DEFAULT_STACK_SIZE, 256 * 1024);
    /// ```
    pub const DEFAULT_STACK_SIZE: usize = 256 * 1024;

    /// The default settings.
    ///
    /// ```
    /// let emulator = coop::emulator::Emulator::new();
    /// assert_eq!(emulator.step_budget(), coop::emulator::Emulator::DEFAULT_STEP_BUDGET);
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
    /// use coop::emulator::{Emulator, Violation};
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
    /// use coop::emulator::Emulator;
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
    /// use coop::emulator::Emulator;
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
    /// use coop::emulator::Emulator;
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
    /// # Ok::<(), coop::emulator::EmulationError>(())
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
    /// use coop::emulator::Emulator;
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
    /// # Ok::<(), coop::emulator::EmulationError>(())
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
                    .map_err(|v| fail(geometry.block, v))?;
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

/// A set of threads of one block, by rank (`x + y * dim.x + z * dim.x *
/// dim.y`), shown as ranges: `threads 0-15, 20`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Threads(Vec<u32>);

impl Threads {
    /// A set of the given ranks.
    ///
    /// ```
    /// use coop::emulator::Threads;
    /// assert_eq!(Threads::from_ranks([3, 0, 1, 2, 7]).to_string(), "threads 0-3, 7");
    /// ```
    pub fn from_ranks(ranks: impl IntoIterator<Item = u32>) -> Self {
        Threads::new(ranks.into_iter().collect())
    }

    pub(crate) fn new(mut ranks: Vec<u32>) -> Self {
        ranks.sort_unstable();
        ranks.dedup();
        Threads(ranks)
    }

    pub(crate) fn push(&mut self, rank: u32) {
        if let Err(at) = self.0.binary_search(&rank) {
            self.0.insert(at, rank);
        }
    }

    /// The ranks, ascending.
    ///
    /// ```
    /// use coop::emulator::Threads;
    /// assert_eq!(Threads::from_ranks([5, 1, 5]).ranks(), [1, 5]);
    /// ```
    pub fn ranks(&self) -> &[u32] {
        &self.0
    }

    /// Whether the set is empty.
    ///
    /// ```
    /// use coop::emulator::Threads;
    /// assert!(Threads::default().is_empty());
    /// assert!(!Threads::from_ranks([0]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Threads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.len() == 1 {
            "thread "
        } else {
            "threads "
        })?;
        let mut i = 0;
        while i < self.0.len() {
            let start = self.0[i];
            let mut end = start;
            while i + 1 < self.0.len() && self.0[i + 1] == end + 1 {
                i += 1;
                end += 1;
            }
            if start != self.0[0] {
                f.write_str(", ")?;
            }
            if start == end {
                write!(f, "{start}")?;
            } else {
                write!(f, "{start}-{end}")?;
            }
            i += 1;
        }
        Ok(())
    }
}

/// Threads found at the same place: the same call at the same `site`, or
/// (with no site) returned from the kernel.
///
/// ```
/// use coop::emulator::{Arrival, Threads};
///
/// let returned = Arrival { threads: Threads::from_ranks(16..32), call: "returned from the kernel", site: None };
/// assert_eq!(returned.to_string(), "threads 16-31 returned from the kernel");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// Who.
    pub threads: Threads,
    /// The handle method they wait in (`"ThreadBlock::sync"`, `"shfl"`,
    /// ...), or `"returned from the kernel"`.
    pub call: &'static str,
    /// Where in the kernel's source.
    pub site: Option<Site>,
}

impl fmt::Display for Arrival {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.site {
            Some(site) => write!(f, "{} at `{}` ({site})", self.threads, self.call),
            None => write!(f, "{} {}", self.threads, self.call),
        }
    }
}

/// A rule of the model a kernel broke, as the CPU backend saw it.
///
/// ```
/// use coop::emulator::Violation;
/// use coop::prelude::*;
///
/// #[kernel]
/// pub fn half_sync(block: ThreadBlock) {
///     if block.thread_rank() < 32 {
///         block.sync(); // the other 32 threads never get here
///     }
/// }
///
/// let err = coop_host::Cpu::new().launch(half_sync, coop_host::LaunchConfig::new(1, 64), ()).unwrap_err();
/// let coop_host::Error::Emulation(e) = err else { panic!("{err}") };
/// let Violation::BarrierNotReached { waiting, exited } = &*e.violation else { panic!("{e}") };
/// assert_eq!(waiting[0].threads.ranks(), (0..32).collect::<Vec<_>>());
/// assert_eq!(exited.ranks(), (32..64).collect::<Vec<_>>());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Violation {
    /// Some threads wait at a block barrier that others will never reach,
    /// because they returned: `if c { block.sync() }`.
    BarrierNotReached {
        /// Where the waiting threads are.
        waiting: Vec<Arrival>,
        /// The threads that returned from the kernel.
        exited: Threads,
    },
    /// The block's threads wait at different block barriers: `if c {
    /// block.sync() } else { block.sync() }`, undefined in CUDA.
    DivergentBarriers {
        /// Each group and its barrier.
        waiting: Vec<Arrival>,
    },
    /// Part of a tile reached a collective that the rest of the tile did not
    /// (it waits elsewhere or returned): a shuffle or vote in divergent
    /// code.
    DivergentCollective {
        /// The collective that cannot complete.
        call: &'static str,
        /// Where it was called.
        site: Site,
        /// The threads it names (the tile).
        group: Threads,
        /// Where each of them is instead.
        arrivals: Vec<Arrival>,
        /// Threads it names that the block does not have.
        missing: Threads,
    },
    /// A tile was made from a group whose size is not a multiple of the tile
    /// size, so the last tile would be partial.
    PartialTile {
        /// The tile size.
        tile_size: u32,
        /// The parent group's size (the block's thread count).
        parent_size: u32,
        /// The first thread that made such a tile.
        thread: u32,
        /// Where.
        site: Site,
    },
    /// A thread used up its step budget: it spins forever, or the budget
    /// is too small for the kernel ([`Emulator::with_step_budget`]).
    OutOfSteps {
        /// The thread.
        thread: u32,
        /// Its budget.
        steps: u64,
        /// The call at which it ran out.
        site: Site,
    },
    /// A shuffle read a lane outside its tile (cannot happen through coop's
    /// tile API).
    ReadOutsideGroup {
        /// The shuffle.
        call: &'static str,
        /// The reading thread.
        thread: u32,
        /// The thread it read.
        source: u32,
        /// Where.
        site: Site,
    },
    /// A thread panicked (an index out of bounds, an `Out::write` past the
    /// end, an assertion); on the GPU this is a `trap`.
    Panic {
        /// The thread.
        thread: u32,
        /// The panic's message.
        message: String,
    },
    /// The launch shape is empty or has more than 1024 threads per block.
    Shape {
        /// Blocks asked for.
        grid: Dim3,
        /// Threads per block asked for.
        block: Dim3,
    },
    /// The host could not provide what the emulation needs.
    Resources {
        /// What.
        what: String,
    },
    /// Two threads touched one shared element between the same barriers,
    /// at least one of them writing.
    SharedRace {
        /// The array's parameter name.
        array: &'static str,
        /// The element (`[i]` or `[row][column]`).
        element: String,
        /// The earlier access.
        first: SharedAccess,
        /// The later access, by another thread.
        second: SharedAccess,
    },
    /// A thread read a shared element that no thread of its block had
    /// written: on the GPU it holds garbage.
    UninitializedRead {
        /// The array's parameter name.
        array: &'static str,
        /// The element.
        element: String,
        /// The read.
        access: SharedAccess,
    },
}

fn list(f: &mut fmt::Formatter<'_>, arrivals: &[Arrival]) -> fmt::Result {
    for (i, a) in arrivals.iter().enumerate() {
        if i > 0 {
            f.write_str("; ")?;
        }
        write!(f, "{a}")?;
    }
    Ok(())
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::BarrierNotReached { waiting, exited } => {
                write!(f, "block barrier never reached by every thread: ")?;
                list(f, waiting)?;
                write!(
                    f,
                    "; {exited} returned from the kernel. Every thread of a block must reach \
                     each `ThreadBlock::sync`: move the barrier out of the branch"
                )
            }
            Violation::DivergentBarriers { waiting } => {
                write!(f, "threads of one block wait at different barriers: ")?;
                list(f, waiting)?;
                write!(
                    f,
                    ". All threads of a block must reach the same `ThreadBlock::sync` call"
                )
            }
            Violation::DivergentCollective {
                call,
                site,
                group,
                arrivals,
                missing,
            } => {
                write!(
                    f,
                    "`{call}` at {site} names {group} of its tile, but not all of them reach it: "
                )?;
                list(f, arrivals)?;
                if !missing.is_empty() {
                    write!(f, "; {missing} do not exist in this block")?;
                }
                write!(
                    f,
                    ". Every thread of a tile must call each of its collectives: compute \
                     in the branch, call the collective outside it"
                )
            }
            Violation::PartialTile {
                tile_size,
                parent_size,
                thread,
                site,
            } => write!(
                f,
                "thread {thread} made tiles of {tile_size} threads at {site} from a group of \
                 {parent_size} threads, which is not a multiple of {tile_size}: the last tile \
                 would be partial. Use a block size that is a multiple of the tile size"
            ),
            Violation::OutOfSteps {
                thread,
                steps,
                site,
            } => write!(
                f,
                "thread {thread} took {steps} steps without finishing (last at {site}): it \
                 spins forever, or needs a larger budget (Emulator::with_step_budget)"
            ),
            Violation::ReadOutsideGroup {
                call,
                thread,
                source,
                site,
            } => write!(
                f,
                "`{call}` at {site}: thread {thread} reads thread {source}, outside its tile"
            ),
            Violation::Panic { thread, message } => {
                write!(f, "thread {thread} panicked: {message}")
            }
            Violation::Shape { grid, block } => write!(
                f,
                "cannot emulate a grid of {grid} blocks of {block} threads: every dimension \
                 must be at least 1, and a block has at most 1024 threads"
            ),
            Violation::Resources { what } => write!(f, "the CPU backend could not allocate {what}"),
            Violation::SharedRace {
                array,
                element,
                first,
                second,
            } => write!(
                f,
                "data race on `{array}{element}` in shared memory: thread {} {} it at {}, then \
                 thread {} {} it at {} with no barrier between them. Separate the two accesses \
                 with a block barrier (`publish`, `own`, `ThreadBlock::sync`), or with \
                 `TiledPartition::sync` when both threads are in one tile",
                first.thread, first.kind, first.site, second.thread, second.kind, second.site
            ),
            Violation::UninitializedRead {
                array,
                element,
                access,
            } => write!(
                f,
                "thread {} reads `{array}{element}` at {} before any thread of the block wrote \
                 it: shared memory starts uninitialised",
                access.thread, access.site
            ),
        }
    }
}

/// A launch on the CPU backend that stopped at a broken rule.
///
/// ```
/// use coop::prelude::*;
///
/// #[kernel]
/// pub fn divergent_vote(block: ThreadBlock, out: Out<u32>) {
///     let warp = block.tiled_partition::<32>();
///     if warp.thread_rank() % 2 == 0 {
///         out.write(block.thread_rank() as usize, warp.ballot(true));
///     }
/// }
///
/// let mut out = vec![0u32; 64];
/// let err = coop_host::Cpu::new()
///     .launch(divergent_vote, coop_host::LaunchConfig::new(2, 64), (&mut out,))
///     .unwrap_err();
/// let coop_host::Error::Emulation(e) = err else { panic!("{err}") };
/// assert_eq!(e.kernel, "divergent_vote");
/// assert_eq!(e.block, Dim3::new(0, 0, 0));
/// let msg = e.to_string();
/// assert!(msg.starts_with("kernel `divergent_vote`, block (0, 0, 0): `ballot` at "), "{msg}");
/// assert!(msg.contains("threads 0-31 of its tile"), "{msg}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmulationError {
    /// The kernel.
    pub kernel: &'static str,
    /// The block in which the rule was broken.
    pub block: Dim3,
    /// What happened.
    pub violation: Box<Violation>,
}

impl fmt::Display for EmulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kernel `{}`, block {}: {}",
            self.kernel, self.block, self.violation
        )
    }
}

impl std::error::Error for EmulationError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_sets_read_as_ranges() {
        assert_eq!(Threads::new(vec![3]).to_string(), "thread 3");
        assert_eq!(
            Threads::new(vec![5, 0, 1, 2, 3, 7, 8]).to_string(),
            "threads 0-3, 5, 7-8"
        );
    }
}
