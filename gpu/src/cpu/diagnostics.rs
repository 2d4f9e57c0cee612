//! How the CPU backend names a broken rule: the threads involved, the
//! calls they wait at, the `file:line` of each, and the error a launch
//! returns.

use super::report::{SharedAccess, Site};
use crate::Dim3;
use core::fmt;

/// Where a kernel thread panicked: a source file, line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PanicLocation {
    /// The source file, as the compiler names it.
    pub file: String,
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1.
    pub column: u32,
}

impl fmt::Display for PanicLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
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
    /// use coop::cpu::Threads;
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
    /// use coop::cpu::Threads;
    /// assert_eq!(Threads::from_ranks([5, 1, 5]).ranks(), [1, 5]);
    /// ```
    pub fn ranks(&self) -> &[u32] {
        &self.0
    }

    /// Whether the set is empty.
    ///
    /// ```
    /// use coop::cpu::Threads;
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
/// use coop::cpu::{Arrival, Threads};
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
/// use coop::cpu::Violation;
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
    /// is too small for the kernel ([`Emulator::with_step_budget`](crate::cpu::Emulator::with_step_budget)).
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
        /// Where in the source the panic was raised (the kernel's line for
        /// coop's own checks, which are `#[track_caller]`).
        location: Option<PanicLocation>,
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
            Violation::Panic {
                thread,
                message,
                location: Some(at),
            } => write!(f, "thread {thread} panicked at {at}: {message}"),
            Violation::Panic {
                thread, message, ..
            } => write!(f, "thread {thread} panicked: {message}"),
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
