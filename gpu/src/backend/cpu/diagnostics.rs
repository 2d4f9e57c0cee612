//! How the CPU backend names a broken rule: the threads involved, the
//! calls they wait at, the `file:line` of each, and the error a launch
//! returns.

use super::report::{AccessKind, SharedAccess, Site};
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
/// dim.y`), shown as ranges: `threads 0-15, 20`. In a violation of a 2-D
/// or 3-D block they are shown by their index in the block instead, as
/// ranges per coordinate: `threads (0-15, 0-7)` for the first 8 rows of a
/// 16-wide block.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Threads {
    ranks: Vec<u32>,
    /// The block's shape when it has more than one dimension, packed as
    /// `x | y << 11 | z << 22` (CUDA's block extents fit: x, y up to 1024,
    /// z up to 64); 0 for a 1-D block. Packed so that a `Violation` stays
    /// small.
    shape: u32,
}

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
        Threads { ranks, shape: 0 }
    }

    /// The same set, named by index in a block of shape `dims` (by rank
    /// when the block is 1-D).
    ///
    /// ```
    /// use coop::cpu::Threads;
    /// use coop::Dim3;
    /// let top = Threads::from_ranks(0..128).in_block(Dim3::new(16, 16, 1));
    /// assert_eq!(top.to_string(), "threads (0-15, 0-7)");
    /// let some = Threads::from_ranks([0, 1, 17]).in_block(Dim3::new(16, 16, 1));
    /// assert_eq!(some.to_string(), "threads (0-1, 0), (1, 1)");
    /// ```
    pub fn in_block(mut self, dims: Dim3) -> Self {
        let fits = dims.x < 1 << 11 && dims.y < 1 << 11 && dims.z < 1 << 10;
        self.shape = if fits && (dims.y > 1 || dims.z > 1) {
            dims.x | dims.y << 11 | dims.z << 22
        } else {
            0
        };
        self
    }

    pub(crate) fn push(&mut self, rank: u32) {
        if let Err(at) = self.ranks.binary_search(&rank) {
            self.ranks.insert(at, rank);
        }
    }

    /// The ranks, ascending.
    ///
    /// ```
    /// use coop::cpu::Threads;
    /// assert_eq!(Threads::from_ranks([5, 1, 5]).ranks(), [1, 5]);
    /// ```
    pub fn ranks(&self) -> &[u32] {
        &self.ranks
    }

    /// Whether the set is empty.
    ///
    /// ```
    /// use coop::cpu::Threads;
    /// assert!(Threads::default().is_empty());
    /// assert!(!Threads::from_ranks([0]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.ranks.is_empty()
    }
}

/// Thread `rank` of a block of shape `dims`: `thread 5`, or `thread (5,
/// 2)` in a 2-D or 3-D block.
fn thread(rank: u32, dims: Dim3) -> String {
    Threads::new(vec![rank]).in_block(dims).to_string()
}

/// One thread's access of an element of a global buffer, as a diagnostic
/// names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalAccess {
    /// The thread's block.
    pub block: Dim3,
    /// The thread's rank in its block.
    pub thread: u32,
    /// What it did.
    pub kind: AccessKind,
    /// Where in the kernel's source.
    pub site: Site,
}

/// What is missing between a block's release and another block's read
/// ([`Violation::UnsynchronizedRead`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SyncGap {
    /// The reader's side (its own atomic, or one of its block's threads'
    /// before a block barrier) read the value that carried the release,
    /// but with relaxed ordering and no fence after it: it observed the
    /// flag without acquiring it.
    RelaxedObserve {
        /// The relaxed atomic that read the flag.
        atomic: Site,
    },
    /// The flag the reader acquired was stored with relaxed ordering by a
    /// thread that had acquired the writer's release: a chain of flags
    /// passes a release on only when each store releases.
    RelaxedLink {
        /// The relaxed store of the flag the reader acquired.
        store: Site,
    },
    /// The reader acquired the flag the writer raised, but the writer's
    /// release was at the cluster's scope (a `fence_cluster()` before a
    /// relaxed store, or a store at `Scope::Cluster`), and the reader's
    /// block is in another cluster.
    ClusterRelease {
        /// The writer's release at the cluster's scope.
        release: Site,
    },
    /// The reader's relaxed atomic read the flag another cluster's block
    /// released at the device's scope, but the fence after it was at the
    /// cluster's scope, which acquires only what its own cluster released.
    ClusterFence {
        /// The fence at the cluster's scope.
        fence: Site,
    },
    /// The reader acquired flags, but none of them carries a release the
    /// writer's block made after the write (the flag was raised before the
    /// write, or after it but before the writer's fence, or by a thread
    /// that never saw the writer's release).
    NoReleaseAfterWrite,
}

impl fmt::Display for Threads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.ranks.len() == 1 {
            "thread "
        } else {
            "threads "
        })?;
        match self.shape {
            0 => f.write_str(&ranges(&self.ranks)),
            s => {
                let dims = Dim3::new(s & 0x7ff, (s >> 11) & 0x7ff, s >> 22);
                f.write_str(&by_index(&self.ranks, dims))
            }
        }
    }
}

/// `0-3, 7`: the sorted `values` as ranges.
fn ranges(values: &[u32]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < values.len() {
        let (start, mut end) = (values[i], values[i]);
        while i + 1 < values.len() && values[i + 1] == end + 1 {
            i += 1;
            end += 1;
        }
        if !out.is_empty() {
            out.push_str(", ");
        }
        if start == end {
            out.push_str(&start.to_string());
        } else {
            out.push_str(&format!("{start}-{end}"));
        }
        i += 1;
    }
    out
}

/// The ranks as block indices: each row's x ranges, consecutive rows (and
/// then planes) with the same ranges merged: `(0-15, 0-7)`, `(0-1, 0),
/// (1, 1)`, `(0-7, 0-3, 1)`.
fn by_index(ranks: &[u32], dims: Dim3) -> String {
    // (z, y) -> the x values of that row.
    let mut rows: Vec<((u32, u32), Vec<u32>)> = Vec::new();
    for &r in ranks {
        let (x, y, z) = (r % dims.x, (r / dims.x) % dims.y, r / (dims.x * dims.y));
        match rows.last_mut() {
            Some((key, xs)) if *key == (z, y) => xs.push(x),
            _ => rows.push(((z, y), vec![x])),
        }
    }
    // Merge runs of consecutive rows of one plane with the same x values.
    let mut groups: Vec<(String, u32, u32, u32)> = Vec::new(); // (xs, y0, y1, z)
    for ((z, y), xs) in rows {
        let xs = ranges(&xs);
        match groups.last_mut() {
            Some((gx, _, y1, gz)) if *gx == xs && *gz == z && *y1 + 1 == y => *y1 = y,
            _ => groups.push((xs, y, y, z)),
        }
    }
    let span = |a: u32, b: u32| {
        if a == b {
            a.to_string()
        } else {
            format!("{a}-{b}")
        }
    };
    groups
        .iter()
        .map(|(xs, y0, y1, z)| {
            let xs = if xs.contains(", ") {
                format!("{{{xs}}}")
            } else {
                xs.clone()
            };
            if dims.z > 1 {
                format!("({xs}, {}, {z})", span(*y0, *y1))
            } else {
                format!("({xs}, {})", span(*y0, *y1))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Threads found at the same place: the same call at the same `site`, or
/// (with no site) returned from the kernel.
///
/// ```
/// use coop::cpu::{Arrival, Threads};
///
/// let returned = Arrival {
///     threads: Threads::from_ranks(16..32),
///     call: "returned from the kernel",
///     site: None,
///     callers: Vec::new(),
/// };
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
    /// Where the function holding `site` was called from, innermost
    /// first, for a call inside a helper function of the kernel's crate
    /// (found from the first of the threads' stacks, when the build has
    /// line information; empty otherwise).
    pub callers: Vec<PanicLocation>,
}

impl fmt::Display for Arrival {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.site {
            Some(site) => {
                write!(f, "{} at `{}` ({site}", self.threads, self.call)?;
                for (i, caller) in self.callers.iter().enumerate() {
                    let word = if i == 0 { ", called from" } else { ", from" };
                    write!(f, "{word} {caller}")?;
                }
                f.write_str(")")
            }
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
    /// is too small for the kernel ([`Emulator::with_step_budget`](crate::backend::cpu::Emulator::with_step_budget)).
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
    /// Two threads of a cluster wrote one element of a block's shared array
    /// between the same two cluster barriers (`ClusterWrites::write_to`).
    ClusterRace {
        /// The array's parameter name.
        array: &'static str,
        /// The element.
        element: String,
        /// The rank in the cluster of the block whose array it is.
        owner: u32,
        /// The earlier writer: its block, its rank in the block, where.
        first: (Dim3, u32, Site),
        /// The later writer.
        second: (Dim3, u32, Site),
    },
    /// A collective of a multi-warp tile whose argument must be the same
    /// in every thread of the tile (`shfl`'s source rank) was given
    /// different ones.
    NotUniform {
        /// The collective.
        call: &'static str,
        /// Where.
        site: Site,
        /// Each group of threads and the value it passed.
        values: Vec<(Threads, u32)>,
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
    /// A thread accessed a shared element that an asynchronous copy is
    /// still writing: on the GPU it reads (or is overwritten by) whatever
    /// the copy has moved so far.
    AsyncCopyInFlight {
        /// The array's parameter name.
        array: &'static str,
        /// The element (`[i]` or `[row][column]`).
        element: String,
        /// The access.
        access: SharedAccess,
        /// The copy: the thread that started it and where.
        copy: SharedAccess,
    },
    /// The block's threads returned while an asynchronous copy into its
    /// shared memory was still in flight: nothing waited for it, and on
    /// the GPU it may still be writing into shared memory that belongs to
    /// the next block there.
    AsyncCopyNotWaited {
        /// The array's parameter name.
        array: &'static str,
        /// The thread that started the copy.
        thread: u32,
        /// Where it started it.
        site: Site,
    },
    /// A thread arrived at its group's split barrier
    /// (`ThreadBlock::barrier_arrive`, `Cluster::barrier_arrive`) and then,
    /// before the matching `barrier_wait`, arrived again, called another
    /// collective of the group, or returned. CUDA leaves each undefined:
    /// on the GPU the barrier's phases no longer match the threads'.
    ArrivalNotWaited {
        /// The thread.
        thread: u32,
        /// Its `barrier_arrive`.
        arrive: Site,
        /// The group's type (`"ThreadBlock"`, `"Cluster"`).
        group: &'static str,
        /// What it did instead of waiting.
        then: AfterArrival,
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
    /// Two threads touched one element of a global buffer (an `Out<T>`
    /// parameter), at least one with a plain write, with nothing ordering
    /// them: threads of one block between the same barriers, or threads of
    /// two blocks (nothing orders blocks within a launch). Atomic accesses
    /// do not race with each other.
    GlobalRace {
        /// The buffer's parameter name.
        buffer: &'static str,
        /// The element.
        element: usize,
        /// The access of the earlier block (or the earlier access in one
        /// block).
        first: GlobalAccess,
        /// The other access.
        second: GlobalAccess,
    },
    /// A thread read an element of a global buffer after acquiring a flag
    /// (an `Acquire` or `AcqRel` atomic, or a fence after an atomic), but
    /// the element's writer never released it: no `Release` or `AcqRel`
    /// atomic and no fence of the writer (at a scope holding the reader)
    /// came after the write. An acquire orders the reader only after what
    /// the writer published with a release, so the read races with the
    /// write, and on the GPU may see the old value although the flag is
    /// set.
    UnreleasedWrite {
        /// The buffer's parameter name.
        buffer: &'static str,
        /// The element.
        element: usize,
        /// The write (or atomic update) no release published.
        write: GlobalAccess,
        /// The read after the acquire.
        read: GlobalAccess,
        /// The writer's relaxed atomic update after the write, at the
        /// device's scope: the flag it raised without release ordering.
        flag: Option<Site>,
    },
    /// A thread read an element of a global buffer that another block
    /// wrote and released, but the reader never synchronized with that
    /// release: what it acquired (if anything) does not carry the writer's
    /// release after the write. On the GPU it may read the old value.
    /// `gap` says which link of the chain is missing.
    UnsynchronizedRead {
        /// The buffer's parameter name.
        buffer: &'static str,
        /// The element.
        element: usize,
        /// The write (or atomic update), which a release of its block
        /// published.
        write: GlobalAccess,
        /// The read.
        read: GlobalAccess,
        /// What is missing between the release and the read.
        gap: SyncGap,
    },
    /// A thread indexed a kernel parameter's buffer past its end (an
    /// `Out::write`, an atomic, or `input[i]` on a `&[T]` parameter).
    OutOfBounds {
        /// The buffer's parameter name; for a slice index, every `&[T]`
        /// or `Out<T>` parameter of that length (`"input"`, `"a` or
        /// `b"`).
        buffer: String,
        /// The operation (`"Out::write"`, `"AtomicOut::fetch_add"`,
        /// `"index"`).
        call: &'static str,
        /// The index.
        index: usize,
        /// The buffer's length.
        len: usize,
        /// The thread.
        thread: u32,
        /// Where.
        location: Option<PanicLocation>,
    },
    /// Threads spin: they keep reading the same few locations while no
    /// thread of the block writes anything, and every other thread waits
    /// at a collective or has returned, so nothing they wait for can
    /// change.
    SpinForever {
        /// The spinning threads and the call of their loop at which they
        /// were stopped.
        spinning: Vec<Arrival>,
        /// Where the other threads are.
        others: Vec<Arrival>,
        /// Reads each spinning thread made without anything changing.
        reads: u64,
        /// Whether a spinning thread reads global memory (another block
        /// could only change it if blocks ran at once).
        global: bool,
        /// Whether the launch was cooperative (every block ran at once,
        /// and none could write what the spinning threads read).
        cooperative: bool,
    },
    /// Blocks of a cooperative launch that never all meet at one grid
    /// sync: some returned from the kernel, or wait at another grid sync,
    /// while others wait. Every thread of every block must reach each
    /// `CooperativeGrid::sync`, and the same call.
    GridSyncNotReached {
        /// Each group of waiting blocks and its grid sync.
        waiting: Vec<BlockArrival>,
        /// The blocks whose threads all returned from the kernel.
        returned: Vec<Dim3>,
    },
    /// Blocks of one cluster that never all meet at one cluster sync: some
    /// returned from the kernel, or wait at another `Cluster::sync`, while
    /// others wait.
    ClusterSyncNotReached {
        /// Each group of waiting blocks and its cluster sync.
        waiting: Vec<BlockArrival>,
        /// The blocks of the cluster whose threads all returned.
        returned: Vec<Dim3>,
    },
    /// A thread named a block of its cluster that does not exist
    /// (`get_from`, `write_to`, `add_to` with a rank of `blocks` or more;
    /// CUDA's `map_shared_rank` past `cluster.num_blocks()`).
    PeerOutsideCluster {
        /// The thread, by its rank in its block.
        thread: u32,
        /// The rank it named.
        rank: u32,
        /// The blocks of the cluster.
        blocks: u32,
        /// Where.
        site: Site,
    },
    /// A thread read or wrote the shared array of a block of its cluster
    /// that had already returned: a block's shared memory ends with it, so
    /// the sharing must end (`unshare` / `publish`, a cluster barrier)
    /// before any block of the cluster returns.
    PeerReturned {
        /// The thread, by its rank in its block.
        thread: u32,
        /// The cluster rank of the block that returned.
        rank: u32,
        /// Where the thread reached the peer's array.
        site: Site,
    },
}

/// What a thread did between a split barrier's `barrier_arrive` and the
/// `barrier_wait` it owed (see [`Violation::ArrivalNotWaited`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AfterArrival {
    /// It called `barrier_arrive` again, here.
    Arrived(Site),
    /// It called a collective of the group (a barrier, a block collective,
    /// a phase change), named as the kernel wrote it.
    Collective {
        /// The call.
        call: &'static str,
        /// Where.
        site: Site,
    },
    /// It returned from the kernel.
    Returned,
}

/// Blocks that wait at the same grid or cluster sync.
///
/// ```
/// use coop::cpu::BlockArrival;
/// use coop::Dim3;
///
/// let at = BlockArrival {
///     blocks: (0..3).map(|x| Dim3::new(x, 0, 0)).collect(),
///     site: std::panic::Location::caller(),
///     call: "share",
/// };
/// assert!(at.to_string().starts_with("blocks 0-2 at `share` ("));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockArrival {
    /// The blocks, by index, in rank order.
    pub blocks: Vec<Dim3>,
    /// The sync's call.
    pub site: Site,
    /// The call the kernel wrote there (`Cluster::sync`, or a
    /// distributed-shared-memory phase change such as `share` whose
    /// barrier it is).
    pub call: &'static str,
}

impl fmt::Display for BlockArrival {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.call.ends_with("::sync") {
            // The sync itself: the report's first words name it.
            write!(f, "{} at ({})", blocks(&self.blocks), self.site)
        } else {
            write!(
                f,
                "{} at `{}` ({})",
                blocks(&self.blocks),
                self.call,
                self.site
            )
        }
    }
}

/// "`Cluster::sync` never reached by every block of the cluster: blocks
/// 0-1 at (file:line); block 2 returned from the kernel. ..."
fn sync_not_reached(
    f: &mut fmt::Formatter<'_>,
    group: &str,
    call: &str,
    waiting: &[BlockArrival],
    returned: &[Dim3],
) -> fmt::Result {
    // The call the kernel wrote, where every waiting block wrote the same.
    let call = match waiting.first() {
        Some(first) if waiting.iter().all(|a| a.call == first.call) => first.call,
        _ => call,
    };
    write!(f, "`{call}` never reached by every block of the {group}: ")?;
    for (i, a) in waiting.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{a}")?;
    }
    if !returned.is_empty() {
        write!(f, "; {} returned from the kernel", blocks(returned))?;
    }
    write!(
        f,
        ". Every thread of every block of the {group} must reach each `{call}`, and the same \
         call{}",
        if returned.is_empty() {
            " (the blocks above wait at different ones)"
        } else {
            ": move the return after the last sync, or let every block make the call"
        }
    )
}

/// A list of blocks: `block 3`, `blocks 0-5, 9` in a 1-D grid, or by index
/// (the first eight, then how many more).
fn blocks(list: &[Dim3]) -> String {
    let noun = if list.len() == 1 { "block" } else { "blocks" };
    if list.iter().all(|b| b.y == 0 && b.z == 0) {
        let xs: Vec<u32> = list.iter().map(|b| b.x).collect();
        return format!("{noun} {}", ranges(&xs));
    }
    let mut out = format!("{noun} ");
    for (i, b) in list.iter().take(8).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&b.to_string());
    }
    if list.len() > 8 {
        out.push_str(&format!(" and {} more", list.len() - 8));
    }
    out
}

/// How to see through helper functions, at the end of the messages that
/// name call sites.
const HELPER: &str = ". (A call inside a helper function is named at the helper's line, with \
     the lines it was called from when the build has line information; mark the helper \
     `#[track_caller]` to name the caller's line instead)";

fn list(f: &mut fmt::Formatter<'_>, arrivals: &[Arrival]) -> fmt::Result {
    for (i, a) in arrivals.iter().enumerate() {
        if i > 0 {
            f.write_str("; ")?;
        }
        write!(f, "{a}")?;
    }
    Ok(())
}

impl Violation {
    /// Names the threads of every set in the violation by their index in a
    /// block of shape `dims` (see [`Threads::in_block`]).
    pub(crate) fn in_block(mut self, dims: Dim3) -> Self {
        let shape = |t: &mut Threads| *t = core::mem::take(t).in_block(dims);
        match &mut self {
            Violation::BarrierNotReached { waiting, exited } => {
                waiting.iter_mut().for_each(|a| shape(&mut a.threads));
                shape(exited);
            }
            Violation::DivergentBarriers { waiting } => {
                waiting.iter_mut().for_each(|a| shape(&mut a.threads));
            }
            Violation::DivergentCollective {
                group,
                arrivals,
                missing,
                ..
            } => {
                shape(group);
                arrivals.iter_mut().for_each(|a| shape(&mut a.threads));
                shape(missing);
            }
            Violation::SpinForever {
                spinning, others, ..
            } => {
                spinning.iter_mut().for_each(|a| shape(&mut a.threads));
                others.iter_mut().for_each(|a| shape(&mut a.threads));
            }
            _ => {}
        }
        self
    }

    /// The violation's description, naming single threads by their index
    /// in a block of shape `dims`, in a launch of clusters of shape
    /// `cluster` (`(1, 1, 1)`: none).
    pub(crate) fn render(
        &self,
        f: &mut fmt::Formatter<'_>,
        dims: Dim3,
        cluster: Dim3,
    ) -> fmt::Result {
        let who = |rank: u32| thread(rank, dims);
        // "thread 3 writes it at file:line", one side of a race.
        let did =
            |rank: u32, kind: AccessKind, site: Site| format!("{} {kind} it at {site}", who(rank));
        match self {
            Violation::BarrierNotReached { waiting, exited } => {
                write!(f, "block barrier never reached by every thread: ")?;
                list(f, waiting)?;
                write!(
                    f,
                    "; {exited} returned from the kernel. Every thread of a block must reach \
                     each block barrier (`ThreadBlock::sync`, and the one inside every block \
                     collective and phase change: `reduce`, the scans, `publish`, `own`, and \
                     `CooperativeGrid::sync`): move the call out of the branch, or let every \
                     thread make it"
                )
            }
            Violation::GridSyncNotReached { waiting, returned } => {
                sync_not_reached(f, "grid", "CooperativeGrid::sync", waiting, returned)
            }
            Violation::ClusterSyncNotReached { waiting, returned } => {
                sync_not_reached(f, "cluster", "Cluster::sync", waiting, returned)
            }
            Violation::PeerOutsideCluster {
                thread,
                rank,
                blocks,
                site,
            } => write!(
                f,
                "{} names block rank {rank} of the cluster at {site}, but the cluster has {blocks} \
                 block{}: a peer's shared array exists only for ranks 0 to {} \
                 (`cluster.num_blocks()`); wrap the rank (`% cluster.num_blocks()`) or test it \
                 before the call",
                who(*thread),
                if *blocks == 1 { "" } else { "s" },
                blocks.saturating_sub(1)
            ),
            Violation::PeerReturned { thread, rank, site } => write!(
                f,
                "{} reaches the shared array of block {rank} of the cluster at {site}, but that \
                 block has returned, and a block's shared memory ends with it. End the sharing \
                 with a cluster barrier (`unshare(&cluster)` or `publish(&cluster)`) before any \
                 block of the cluster returns",
                who(*thread)
            ),
            Violation::DivergentBarriers { waiting } => {
                write!(f, "threads of one block wait at different barriers: ")?;
                list(f, waiting)?;
                write!(
                    f,
                    ". All threads of a block must reach the same block barrier call \
                     (`ThreadBlock::sync`, a block collective, a phase change){HELPER}"
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
                     in the branch, call the collective outside it{HELPER}"
                )
            }
            Violation::PartialTile {
                tile_size,
                parent_size,
                thread,
                site,
            } => {
                write!(
                    f,
                    "{} made tiles of {tile_size} threads at {site} from a group of \
                     {parent_size} threads, which is not a multiple of {tile_size}: the last \
                     tile would be partial (a block's reductions and scans split it into \
                     warps as well). Use a block size that is a multiple of the tile size",
                    who(*thread)
                )?;
                if *tile_size <= 32 {
                    write!(
                        f,
                        ", or `block.ragged_partition::<{tile_size}>()`, whose last tile \
                         holds the {} remaining threads",
                        parent_size % tile_size
                    )?;
                }
                Ok(())
            }
            Violation::OutOfSteps {
                thread,
                steps,
                site,
            } => write!(
                f,
                "{} took {steps} steps without finishing (last at {site}): it \
                 spins forever, or needs a larger budget (Emulator::with_step_budget)",
                who(*thread)
            ),
            Violation::ReadOutsideGroup {
                call,
                thread,
                source,
                site,
            } => write!(
                f,
                "`{call}` at {site}: {} reads {}, outside its tile",
                who(*thread),
                who(*source)
            ),
            Violation::ClusterRace {
                array,
                element,
                owner,
                first,
                second,
            } => write!(
                f,
                "data race on `{array}{element}` in the shared memory of block {owner} of the \
                 cluster: block {} {} writes it at {}, then block {} {} writes it at {}, with no \
                 cluster barrier between them. Between two cluster barriers each element takes \
                 at most one writer: give every element one writer, or add into it with \
                 `share_atomics` / `add_to`",
                first.0,
                who(first.1),
                first.2,
                second.0,
                who(second.1),
                second.2
            ),
            Violation::NotUniform { call, site, values } => {
                write!(
                    f,
                    "`{call}` at {site} of a multi-warp tile is given different source ranks: "
                )?;
                // A source of the thread's own (`rank + 1`) gives every
                // thread a group of its own: name a few, then count.
                const NAMED: usize = 3;
                let shown = if values.len() > NAMED + 1 {
                    NAMED
                } else {
                    values.len()
                };
                for (i, (threads, v)) in values.iter().take(shown).enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{threads} ask for rank {v}")?;
                }
                if shown < values.len() {
                    let rest = &values[shown..];
                    let threads: usize = rest.iter().map(|(t, _)| t.ranks().len()).sum();
                    let mut sources: Vec<u32> = values.iter().map(|&(_, v)| v).collect();
                    sources.sort_unstable();
                    sources.dedup();
                    write!(
                        f,
                        ", and {threads} more threads in {} groups ask for other ranks: {} \
                         different source ranks in all",
                        rest.len(),
                        sources.len()
                    )?;
                }
                f.write_str(
                    ". A tile of more than one warp passes values through shared memory, from \
                     one source rank to every thread: give every thread of the tile the same \
                     source, or split the tile into warp tiles (`tiled_partition::<32>()`), whose \
                     `shfl` takes one per thread",
                )
            }
            Violation::Panic {
                thread,
                message,
                location: Some(at),
            } => write!(f, "{} panicked at {at}: {message}", who(*thread)),
            Violation::Panic {
                thread: t, message, ..
            } => write!(f, "{} panicked: {message}", who(*t)),
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
                "data race on `{array}{element}` in shared memory: {}, then {} with no barrier \
                 between them. Separate the two accesses with a block barrier (`publish`, `own`, \
                 `ThreadBlock::sync`), or with `TiledPartition::sync` when both threads are in \
                 one tile",
                did(first.thread, first.kind, first.site),
                did(second.thread, second.kind, second.site)
            ),
            Violation::AsyncCopyInFlight {
                array,
                element,
                access,
                copy,
            } => write!(
                f,
                "{} {} `{array}{element}` at {} while the asynchronous copy into it that {} \
                 started at {} has not landed. Wait for the copy first (`wait` or `wait_prior` \
                 of the copy, `next` of a pipeline), which is also the barrier after which every \
                 thread of the block sees it",
                who(access.thread),
                access.kind,
                access.site,
                who(copy.thread),
                copy.site
            ),
            Violation::AsyncCopyNotWaited {
                array,
                thread,
                site,
            } => write!(
                f,
                "the block returned with the asynchronous copy into `{array}` that {} started at \
                 {site} still in flight: nothing waited for it, and on the GPU it can land in the \
                 shared memory of the next block to run there. Wait for every copy before the \
                 kernel returns (`wait` of the copy; `next` of a pipeline for every tile loaded)",
                who(*thread),
            ),
            Violation::ArrivalNotWaited {
                thread,
                arrive,
                group,
                then,
            } => {
                write!(
                    f,
                    "{} called `{group}::barrier_arrive` at {arrive} and then, before its \
                     `barrier_wait`, ",
                    who(*thread)
                )?;
                match then {
                    AfterArrival::Arrived(site) => {
                        write!(f, "called `{group}::barrier_arrive` again at {site}")?
                    }
                    AfterArrival::Collective { call, site } => {
                        write!(f, "called `{call}` at {site}")?
                    }
                    AfterArrival::Returned => f.write_str("returned from the kernel")?,
                }
                write!(
                    f,
                    ". Each arrival's token must be passed to `{group}::barrier_wait` before the \
                     thread arrives again, calls another collective of the group, or returns: \
                     on the GPU the barrier's phases no longer match the threads'"
                )
            }
            Violation::UninitializedRead {
                array,
                element,
                access,
            } => write!(
                f,
                "{} {} `{array}{element}` at {} before any thread of the block wrote it: shared \
                 memory starts uninitialised. Write it first, with a barrier (`publish`, \
                 `ThreadBlock::sync`) between the write and the read when another thread writes it",
                who(access.thread),
                access.kind,
                access.site
            ),
            Violation::GlobalRace {
                buffer,
                element,
                first,
                second,
            } if first.block == second.block => write!(
                f,
                "data race on `{buffer}[{element}]` in global memory: {}, then {} with no \
                 barrier between them. Let one thread write each element, separate the accesses \
                 with a block barrier, or make both atomic (`Out::atomic`)",
                did(first.thread, first.kind, first.site),
                did(second.thread, second.kind, second.site)
            ),
            Violation::GlobalRace {
                buffer,
                element,
                first,
                second,
            } if first.kind == AccessKind::Atomic
                && second.kind == AccessKind::Atomic
                && cluster.volume() > 1 =>
            {
                write!(
                    f,
                    "data race on `{buffer}[{element}]` in global memory between blocks: block \
                     {}, {}; block {}, {}, and one of them at the block's scope \
                     (`Scope::Block`, PTX `.cta`) or the cluster's (`Scope::Cluster`, \
                     `.cluster`), which make an atomic indivisible only among the threads of \
                     one block or of one cluster (of {} blocks). Update an element that blocks \
                     of several clusters update at the device's scope (`Scope::Device`, the \
                     default), or give each cluster elements of its own",
                    first.block,
                    did(first.thread, first.kind, first.site),
                    second.block,
                    did(second.thread, second.kind, second.site),
                    cluster.volume(),
                )
            }
            Violation::GlobalRace {
                buffer,
                element,
                first,
                second,
            } if first.kind == AccessKind::Atomic && second.kind == AccessKind::Atomic => write!(
                f,
                "data race on `{buffer}[{element}]` in global memory between blocks: block {}, \
                 {}; block {}, {}, and one of them at the block's scope \
                 (`with_scope(Scope::Block)`, PTX `.cta`; in a launch without clusters \
                 `Scope::Cluster` is the block's too), which makes an atomic indivisible only \
                 among the threads of one block. Update an element that several blocks update \
                 at the device's scope (`Scope::Device`, the default), or give each block \
                 elements of its own",
                first.block,
                did(first.thread, first.kind, first.site),
                second.block,
                did(second.thread, second.kind, second.site)
            ),
            Violation::GlobalRace {
                buffer,
                element,
                first,
                second,
            } if cluster.volume() > 1 => write!(
                f,
                "data race on `{buffer}[{element}]` in global memory between blocks: block {}, \
                 {}; block {}, {}. The two blocks are in different clusters (of {} blocks), and \
                 `Cluster::sync` orders only the blocks of one cluster: nothing orders two \
                 clusters of a launch unless the kernel says so. Let one block write each \
                 element (index by the block's rank in the grid, `grid.block_rank()`, not only \
                 by its rank in the cluster, `cluster.block_rank()`); or, where one cluster needs \
                 what another wrote, put a grid sync between the accesses \
                 (`CooperativeGrid::sync` in a `#[kernel(cooperative)]`) or split the kernel \
                 into two launches; or raise a flag with release ordering and load it with \
                 acquire; or make both accesses atomic (`Out::atomic`)",
                first.block,
                did(first.thread, first.kind, first.site),
                second.block,
                did(second.thread, second.kind, second.site),
                cluster.volume(),
            ),
            Violation::GlobalRace {
                buffer,
                element,
                first,
                second,
            } => write!(
                f,
                "data race on `{buffer}[{element}]` in global memory between blocks: block {}, \
                 {}; block {}, {}. A block barrier orders only the threads of one block, and \
                 nothing orders two blocks of a launch unless the kernel says so: let one block \
                 write each element (index by the block, not only by the thread); or, where one \
                 block needs what another wrote, put a grid sync between the accesses \
                 (`CooperativeGrid::sync` in a `#[kernel(cooperative)]`) or split the kernel \
                 into two launches; or, where a flag tells the reader that the data is ready, \
                 store the flag with release ordering and load it with acquire \
                 (`flags.atomic().with_ordering(Ordering::Release).store(..)`, \
                 `Ordering::Acquire` on the load); or make both accesses atomic \
                 (`Out::atomic`)",
                first.block,
                did(first.thread, first.kind, first.site),
                second.block,
                did(second.thread, second.kind, second.site)
            ),
            Violation::UnsynchronizedRead {
                buffer,
                element,
                write,
                read,
                gap,
            } => {
                write!(
                    f,
                    "data race on `{buffer}[{element}]` in global memory between blocks: block {}, \
                     {}, and a release of that block published it; block {}, {}, but never \
                     synchronized with that release, so on the GPU it may read the old value: ",
                    write.block,
                    did(write.thread, write.kind, write.site),
                    read.block,
                    did(read.thread, read.kind, read.site),
                )?;
                match gap {
                    SyncGap::RelaxedObserve { atomic } => write!(
                        f,
                        "the atomic at {atomic} read the flag the writer released, but with \
                         relaxed ordering and no fence after it. Give it acquire ordering \
                         (`.with_ordering(Ordering::Acquire)`, or `Ordering::AcqRel` for a \
                         read-modify-write such as `fetch_add` or `fetch_inc`), or put a \
                         `fence_device()` right after it (before the block barrier that tells \
                         the other threads)"
                    ),
                    SyncGap::ClusterRelease { release } => write!(
                        f,
                        "the writer released at {release} at the cluster's scope, which orders \
                         nothing for the blocks of other clusters, and block {} is in another \
                         cluster than block {}. Release at the device's scope: `fence_device()` \
                         instead of `fence_cluster()`, or the flag's atomics at `Scope::Device` \
                         (the default) rather than `Scope::Cluster`",
                        read.block, write.block
                    ),
                    SyncGap::ClusterFence { fence } => write!(
                        f,
                        "its relaxed atomic read the flag block {} released, but the fence at \
                         {fence} is at the cluster's scope and acquires only what the blocks of \
                         its own cluster released. Use `fence_device()` there, or load the flag \
                         with acquire ordering at the device's scope",
                        write.block
                    ),
                    SyncGap::RelaxedLink { store } => write!(
                        f,
                        "the flag it acquired was stored at {store} with relaxed ordering, which \
                         passes on nothing the storing thread had acquired. Store that flag with \
                         release ordering (`.with_ordering(Ordering::Release)`): in a chain of \
                         flags every store releases and every load acquires"
                    ),
                    _ => write!(
                        f,
                        "nothing it acquired carries a release the writer's block made after \
                         the write: the flag it waited for was raised before such a release (a \
                         fence or release after the flag's store publishes nothing through that \
                         flag), or by a thread that had not acquired the writer's flag. Between \
                         the write and the store of the flag the reader waits for, release: \
                         store the flag with release ordering \
                         (`.with_ordering(Ordering::Release)`), or put a `fence_device()` before \
                         it"
                    ),
                }
            }
            Violation::UnreleasedWrite {
                buffer,
                element,
                write,
                read,
                flag,
            } => {
                let same_block = write.block == read.block;
                let side = |a: &GlobalAccess| {
                    if same_block {
                        did(a.thread, a.kind, a.site)
                    } else {
                        format!("block {}, {}", a.block, did(a.thread, a.kind, a.site))
                    }
                };
                write!(
                    f,
                    "data race on `{buffer}[{element}]` in global memory: {}, then {} after an \
                     acquire, but no release published the write. An acquire orders the reader \
                     only after what the writer released: ",
                    side(write),
                    side(read),
                )?;
                let (scope, fence) = if same_block {
                    ("any scope", "fence_block()")
                } else {
                    ("the device's scope", "fence_device()")
                };
                match flag {
                    Some(flag) => write!(
                        f,
                        "the flag raised at {flag} is relaxed; store it with release ordering \
                         (`.with_ordering(Ordering::Release)`, at {scope}), or put a `{fence}` \
                         between the write and the flag"
                    ),
                    None => write!(
                        f,
                        "after the write, store the flag with release ordering \
                         (`.with_ordering(Ordering::Release)`, at {scope}), or put a `{fence}` \
                         between the write and the flag"
                    ),
                }
            }
            Violation::OutOfBounds {
                buffer,
                call,
                index,
                len,
                thread: t,
                location,
            } => {
                // The words of the panic (and of the GPU's report), then the
                // parameter.
                write!(f, "{} panicked", who(*t))?;
                if let Some(at) = location {
                    write!(f, " at {at}")?;
                }
                if *call == "index" {
                    write!(
                        f,
                        ": index out of bounds: the len is {len} but the index is {index}"
                    )?;
                } else {
                    write!(
                        f,
                        ": {call}: index {index} is out of bounds for a buffer of {len} elements"
                    )?;
                }
                write!(
                    f,
                    " (the kernel's parameter `{buffer}`). Guard the access with \
                     `if i < {}.len()`, or launch no more threads than elements",
                    buffer.split('`').next().unwrap_or(buffer)
                )
            }
            Violation::SpinForever {
                spinning,
                others,
                reads,
                global,
                cooperative,
            } => {
                list(f, spinning)?;
                write!(
                    f,
                    " spin{}: {reads} reads of the same locations while no thread of the block \
                     wrote anything",
                    if spinning.len() == 1 && spinning[0].threads.ranks().len() == 1 {
                        "s"
                    } else {
                        ""
                    }
                )?;
                if !others.is_empty() {
                    f.write_str(", and the others cannot write: ")?;
                    list(f, others)?;
                }
                f.write_str(". What the loop waits for is never written")?;
                if *cooperative {
                    f.write_str(
                        " (the blocks of a cooperative launch, and those of a cluster, run at \
                         once, and every other block has returned, waits at a barrier, or \
                         spins too)",
                    )?;
                } else if *global {
                    f.write_str(
                        "; the CPU backend runs each block to its end before a later one \
                         starts, and a GPU need not run them at once either, so a block must \
                         not wait for a later block",
                    )?;
                }
                f.write_str(
                    ". (A loop that ends by itself after more reads: raise \
                     Emulator::with_spin_limit)",
                )
            }
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.render(f, Dim3::new(1, 1, 1), Dim3::new(1, 1, 1))
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
    /// The launch's block shape: single threads of a 2-D or 3-D block are
    /// named by index, `thread (3, 1)`.
    pub block_dim: Dim3,
    /// What happened.
    pub violation: Box<Violation>,
    /// The seeded schedule under which it happened (schedule exploration,
    /// `Emulator::with_schedules`); `None` for rank order.
    pub schedule: Option<u64>,
    /// The launch's cluster shape (`(1, 1, 1)` without clusters): a race
    /// between blocks of different clusters says so.
    pub cluster_dim: Dim3,
}

impl fmt::Display for EmulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel `{}`, block {}: ", self.kernel, self.block)?;
        self.violation.render(f, self.block_dim, self.cluster_dim)?;
        if let Some(seed) = self.schedule {
            write!(
                f,
                " [under schedule seed {seed}; replay it with \
                 `Emulator::new().with_schedule_seed({seed})`]"
            )?;
        }
        Ok(())
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
