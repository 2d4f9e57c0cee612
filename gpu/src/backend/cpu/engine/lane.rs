//! The emulated thread being run, and what it asks of its scheduler.

use super::global_state::{self, Buffers};
use super::happens_before::{self, FlagAccess, Flags, Shared, SyncView, Writer};
use super::shared_state::BlockShared;
use crate::Dim3;
use crate::backend::cpu::diagnostics::{AfterArrival, Violation};
use crate::backend::cpu::report::AccessKind;
use crate::backend::{AtomicOp, Ordering as AtomicOrdering, Redux, Scope, Site};
use core::cell::Cell;
use core::cell::RefCell;
use core::sync::atomic::{AtomicU64, Ordering};
use corosensei::Yielder;

/// Where a thread is in the launch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaneInfo {
    pub thread: Dim3,
    pub block: Dim3,
    pub block_dim: Dim3,
    pub grid_dim: Dim3,
    /// Rank in the block (`x` fastest); `rank % 32` is the lane in its warp.
    pub rank: u32,
    /// Bytes of dynamic shared memory the launch gave each block.
    pub dynamic_shared: u32,
    /// The launch's cluster shape in blocks (1, 1, 1 without clusters).
    pub cluster_dim: Dim3,
}

/// How a shuffle picks its source lane (PTX `shfl.sync` modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShflMode {
    Idx,
    Up,
    Down,
    Bfly,
}

/// Which vote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VoteKind {
    Ballot,
    Any,
    All,
}

/// A collective operation, with the calling thread's operands.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    /// A block barrier, of the handle method `call` (`ThreadBlock::sync`,
    /// or a block collective's own barrier).
    BlockSync {
        call: &'static str,
    },
    /// `CooperativeGrid::sync`: a barrier of the block that also waits for
    /// every other block of the grid.
    GridSync,
    /// `ThreadBlock::barrier_wait`: released once every thread of the block
    /// has arrived at the split barrier's phase the caller arrived at.
    BarrierWait,
    /// `coalesced_threads`: which lanes of the warp reached the call
    /// together.
    ActiveMask,
    /// `Cluster::sync`: a barrier of the block that also waits for every
    /// other block of its cluster.
    ClusterSync,
    /// `TiledPartition::sync` of a multi-warp tile of `size` threads.
    TileBarrier {
        size: u32,
        /// A collective's argument that must be the same in every thread
        /// of the tile, with the collective's name.
        uniform: Option<(&'static str, u32)>,
    },
    WarpSync {
        mask: u32,
    },
    Shfl {
        mode: ShflMode,
        mask: u32,
        value: u32,
        b: u32,
        c: u32,
    },
    Vote {
        kind: VoteKind,
        mask: u32,
        predicate: bool,
    },
    Match {
        all: bool,
        mask: u32,
        value: u64,
        wide: bool,
    },
    Redux {
        op: Redux,
        mask: u32,
        value: u32,
    },
}

impl Op {
    /// The member mask of a warp-level operation; `None` for the block
    /// barrier.
    pub fn warp_mask(&self) -> Option<u32> {
        match *self {
            Op::BlockSync { .. }
            | Op::GridSync
            | Op::BarrierWait
            | Op::ClusterSync
            | Op::ActiveMask
            | Op::TileBarrier { .. } => None,
            Op::WarpSync { mask }
            | Op::Shfl { mask, .. }
            | Op::Vote { mask, .. }
            | Op::Match { mask, .. }
            | Op::Redux { mask, .. } => Some(mask),
        }
    }

    /// The handle method that issued it, for diagnostics.
    pub fn name(&self) -> &'static str {
        match *self {
            Op::BlockSync { call } => call,
            Op::GridSync => "CooperativeGrid::sync",
            Op::BarrierWait => "ThreadBlock::barrier_wait",
            Op::ActiveMask => "coalesced_threads",
            Op::ClusterSync => "Cluster::sync",
            Op::TileBarrier { .. } => "TiledPartition::sync",
            Op::WarpSync { .. } => "TiledPartition::sync",
            Op::Shfl { mode, .. } => match mode {
                ShflMode::Idx => "shfl",
                ShflMode::Up => "shfl_up",
                ShflMode::Down => "shfl_down",
                ShflMode::Bfly => "shfl_xor",
            },
            Op::Vote { kind, .. } => match kind {
                VoteKind::Ballot => "ballot",
                VoteKind::Any => "any",
                VoteKind::All => "all",
            },
            Op::Match { all: false, .. } => "match_any",
            Op::Match { all: true, .. } => "match_all",
            Op::Redux { .. } => "reduce",
        }
    }

    /// Whether two threads' operations are the same collective: same
    /// instruction and mask (operands may differ).
    pub fn same_collective(&self, other: &Op) -> bool {
        match (self, other) {
            (Op::BlockSync { .. }, Op::BlockSync { .. }) => true,
            (Op::GridSync, Op::GridSync) => true,
            (Op::BarrierWait, Op::BarrierWait) => true,
            (Op::ActiveMask, Op::ActiveMask) => true,
            (Op::ClusterSync, Op::ClusterSync) => true,
            (Op::TileBarrier { size: a, .. }, Op::TileBarrier { size: b, .. }) => a == b,
            (Op::WarpSync { mask: a }, Op::WarpSync { mask: b }) => a == b,
            (
                Op::Shfl {
                    mode: m1,
                    mask: a,
                    c: c1,
                    ..
                },
                Op::Shfl {
                    mode: m2,
                    mask: b,
                    c: c2,
                    ..
                },
            ) => m1 == m2 && a == b && c1 == c2,
            (
                Op::Vote {
                    kind: k1, mask: a, ..
                },
                Op::Vote {
                    kind: k2, mask: b, ..
                },
            ) => k1 == k2 && a == b,
            (
                Op::Match {
                    all: x1,
                    mask: a,
                    wide: w1,
                    ..
                },
                Op::Match {
                    all: x2,
                    mask: b,
                    wide: w2,
                    ..
                },
            ) => x1 == x2 && a == b && w1 == w2,
            (
                Op::Redux {
                    op: o1, mask: a, ..
                },
                Op::Redux {
                    op: o2, mask: b, ..
                },
            ) => o1 == o2 && a == b,
            _ => false,
        }
    }
}

/// Where a thread of a block stands, as the scheduler sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum State {
    /// To be resumed with this value (a collective's result).
    Ready(u64),
    /// Stopped at the collective `op`, called at `site`: set by the thread
    /// itself before it suspends.
    Waiting { op: Op, site: Site },
    /// Stopped in a loop that reads without anything changing.
    Spinning {
        site: Site,
        reads: u64,
        global: bool,
    },
    /// Returned from the kernel (or stopped by a panic).
    Done,
}

/// What a suspended thread asks of the scheduler.
#[derive(Debug)]
pub(crate) enum Request {
    /// Wait for the rest of the group at the collective the thread's
    /// [`State`] names, then resume with the result.
    Collective,
    /// The thread made a tile whose parent does not split evenly.
    PartialTile {
        size: u32,
        parent_size: u32,
        site: Site,
    },
    /// The thread used up its step budget.
    OutOfSteps { steps: u64, site: Site },
    /// The thread has read the same few locations `reads` times while
    /// nothing in the block changed: let the others run.
    Spin {
        site: Site,
        reads: u64,
        global: bool,
    },
    /// Schedule exploration: let another thread run here.
    Preempt,
    /// The thread broke a rule that stops the launch.
    Stop(Box<Violation>),
}

pub(crate) type LaneYielder = Yielder<u64, Request>;

/// What every block of a launch shares.
pub(crate) struct LaunchShared {
    /// The launch's buffer parameters, by name.
    pub buffers: Buffers,
    /// Writes to global memory by every block so far (on a cache line of
    /// its own: every host thread writes it).
    pub progress: Progress,
    /// Steps one thread may take.
    pub budget: u64,
    /// Reads of unchanging memory after which a spinning thread is
    /// stopped.
    pub spin_limit: u64,
    /// With schedule exploration: one in how many steps lets another
    /// thread run (0: never).
    pub preempt_one_in: u32,
    /// What the launch's atomic locations carry from the releases that
    /// stored them.
    pub flags: Flags,
    /// The kernel's file and the lines of its body (`Kernel::BODY_LINES`).
    pub body_lines: (&'static str, u32, u32),
}

impl LaunchShared {
    /// Whether `site` lies in the kernel's own body (not in a helper it
    /// calls): no caller of it is the kernel's.
    pub fn in_kernel_body(&self, site: Site) -> bool {
        let (file, first, last) = self.body_lines;
        site.file() == file && (first..=last).contains(&site.line())
    }
}

/// A counter alone on its cache line.
#[repr(align(128))]
#[derive(Default)]
pub(crate) struct Progress(pub AtomicU64);

/// Reads a thread made since anything in its block (or, for global
/// memory, the launch) last changed, and of which locations.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SpinTrack {
    reads: u64,
    /// The progress counters when counting started.
    seen: u64,
    locations: [usize; SPIN_LOCATIONS],
    used: u8,
    global: bool,
}

/// How many distinct locations a spin loop may poll.
const SPIN_LOCATIONS: usize = 4;

/// A spinning thread lets the others run every this many reads.
pub(crate) const SPIN_SLICE: u64 = 256;

/// What bounds a thread's weak loads under schedule exploration besides
/// the versions its knowledge observed: the launch's clock at its last
/// device fence.
#[derive(Default)]
pub(crate) struct WeakLoads {
    fence_time: u64,
}

/// The context of one emulated thread.
pub(crate) struct LaneCtx {
    pub info: LaneInfo,
    /// Where the thread stands: the thread sets it to the collective it
    /// waits at; the scheduler reads it once the warp has run, and sets it
    /// to the result.
    pub state: Cell<State>,
    /// The block's scratch, shared by all its threads.
    pub scratch: *mut u8,
    /// The block's shared arrays and their race detector.
    pub shared: *const RefCell<BlockShared>,
    /// The shared memory of the blocks of the block's cluster, by rank in
    /// the cluster (`peer_count` of them; none without clusters).
    pub peers: *const RefCell<BlockShared>,
    pub peer_count: u32,
    /// What the launch's blocks share.
    pub launch: *const LaunchShared,
    pub yielder: Cell<*const LaneYielder>,
    pub steps: Cell<u64>,
    /// The launch's step budget and preemption rate, copied here so that
    /// counting a step reads only this thread's context.
    pub budget: u64,
    pub preempt_one_in: u32,
    pub spin: RefCell<SpinTrack>,
    /// Schedule exploration's random state (xorshift), 0 when off.
    pub rng: Cell<u64>,
    /// Set while the block's end unwinds the thread's stack.
    pub unwinding: Cell<bool>,
    /// Whether the thread made an acquiring atomic access to global memory
    /// (`Acquire`, `AcqRel`, at the device's scope or wider) or a fence
    /// since the launch began or the last grid sync: its reads of global
    /// memory may follow a flag protocol, and are not checked against
    /// other blocks' writes.
    pub ordered: Cell<bool>,
    /// Whether the thread made an atomic access to global memory at the
    /// device's scope or wider since the launch began or the last grid
    /// sync: a fence after it orders the thread's later reads after what
    /// other blocks published (a fence after no such access, or after one
    /// at the block's scope, observed nothing another block released).
    pub observed: Cell<bool>,
    /// Whether the thread made an atomic access to global memory (any
    /// scope) since the block's last barrier.
    pub block_atomic: Cell<bool>,
    /// Whether the thread made an acquiring atomic access to global memory
    /// (any scope), or a fence after an atomic access, since the block's
    /// last barrier: its reads of global memory may follow a flag another
    /// thread of the block raised, and are not checked against the block's
    /// other threads' writes in the interval.
    pub block_acquired: Cell<bool>,
    /// The releases of other blocks the thread synchronized with, what its
    /// relaxed atomics observed, and the broken link of a chain of flags
    /// it acquired ([`happens_before`]).
    /// Made at its first synchronizing access (most threads never make
    /// one, and a small context keeps switches between threads cheap).
    pub sync: RefCell<Option<Box<SyncView>>>,
    /// Its knowledge at its last fence at the device's scope, with that
    /// release: what a relaxed store or update after it carries.
    pub fenced: RefCell<Shared>,
    /// That fence, when it was at the cluster's scope (in a launch in
    /// clusters): what it releases reaches the cluster's blocks only.
    pub fenced_in_cluster: Cell<Option<Site>>,
    /// Its block's rank in the grid.
    pub block_rank: u32,
    /// Under schedule exploration, made at its first atomic: what bounds
    /// the values its loads may return.
    pub weak: RefCell<Option<Box<WeakLoads>>>,
    /// Where the thread's current collective was called from, when the
    /// scheduler asked ([`CAPTURE_CALLERS`]).
    pub callers: RefCell<Vec<crate::backend::cpu::PanicLocation>>,
    /// The last collective the thread entered by the name the kernel wrote
    /// (`inclusive_scan`, `reduce`, `any`, ...) and its call site: the
    /// barriers and warp instructions it is made of, which share that
    /// site, are reported by that name.
    pub named: Cell<Option<(Site, &'static str)>>,
    /// Where the thread arrived at its cluster's or grid's split barrier
    /// (`Cluster::barrier_arrive`, `CooperativeGrid::barrier_arrive`), and
    /// the group's type, until its `barrier_wait`.
    pub group_arrival: Cell<Option<(Site, &'static str)>>,
}

impl LaneCtx {
    fn launch(&self) -> &LaunchShared {
        // SAFETY: the launch outlives its blocks' lanes.
        unsafe { &*self.launch }
    }
}

/// The next value of a xorshift64 generator (never 0 from a non-zero
/// state).
pub(crate) fn xorshift(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

std::thread_local! {
    static CURRENT: Cell<*const LaneCtx> = const { Cell::new(core::ptr::null()) };
}

/// Makes `ctx` the current lane of this OS thread until [`leave`].
pub(crate) fn enter(ctx: &LaneCtx) {
    CURRENT.with(|c| c.set(ctx));
}

pub(crate) fn leave() {
    CURRENT.with(|c| c.set(core::ptr::null()));
}

#[cold]
#[track_caller]
fn outside_kernel() -> ! {
    panic!(
        "coop: a handle method was called outside a kernel launch. Handle methods act on the \
         threads of a launched kernel: launch the kernel through coop_host, on the GPU or on \
         the CPU backend (`coop_host::Cpu`)"
    )
}

pub(crate) fn current_ctx() -> &'static LaneCtx {
    current()
}

#[inline]
fn current() -> &'static LaneCtx {
    let ptr = CURRENT.with(|c| c.get());
    if ptr.is_null() {
        outside_kernel()
    }
    // SAFETY: set by the scheduler to a context that outlives the resume
    // during which the lane runs.
    unsafe { &*ptr }
}

/// Reads the current lane's context (its indices and the launch's shape),
/// which is not a step: reading them changes nothing, and they are read
/// far more often than anything else.
#[inline]
pub(crate) fn info<R>(read: impl FnOnce(&LaneInfo) -> R) -> R {
    read(&current().info)
}

/// Counts one step of the current lane and reads its context.
#[track_caller]
pub(crate) fn step<R>(site: Site, read: impl FnOnce(&LaneInfo) -> R) -> R {
    read(&count_step(site).info)
}

/// Where region `region` (the array at `own` in the calling block) lives
/// in block `rank` of the calling block's cluster: distributed shared
/// memory. A rank outside the cluster, an array the peer has not bound, or
/// a peer whose threads have all returned stops the launch.
pub(crate) fn remote_shared(region: u32, own: *mut u8, rank: u32, site: Site) -> *mut u8 {
    let ctx = count_step(site);
    let count = ctx.peer_count.max(1);
    if rank >= count {
        let thread = ctx.info.rank;
        abort(Request::Stop(Box::new(Violation::PeerOutsideCluster {
            thread,
            rank,
            blocks: count,
            site,
        })));
    }
    if ctx.peer_count == 0 {
        return own;
    }
    // SAFETY: the cluster's runner keeps its blocks' shared memory alive
    // while their lanes run, and one lane runs at a time.
    let peer = unsafe { &*ctx.peers.add(rank as usize) };
    let own_key = block_shared(|s| s.region_storage(region).map(|(k, _)| k));
    let mut peer = peer.borrow_mut();
    if peer.ended {
        drop(peer);
        let thread = ctx.info.rank;
        abort(Request::Stop(Box::new(Violation::PeerReturned {
            thread,
            rank,
            site,
        })));
    }
    match peer.region_storage(region) {
        Some((key, ptr)) if Some(key) == own_key => ptr,
        _ => {
            drop(peer);
            fail_at(
                format!(
                    "coop: block {rank} of the cluster has not bound this shared array (at {site})"
                ),
                site,
            )
        }
    }
}

/// The shared memory of block `rank` of the current lane's cluster (its
/// own block's outside a cluster), after [`remote_shared`] checked `rank`.
fn owner_of(ctx: &LaneCtx, rank: u32) -> &RefCell<BlockShared> {
    if ctx.peer_count == 0 {
        // SAFETY: the block's own shared memory, alive while it runs.
        unsafe { &*ctx.shared }
    } else {
        // SAFETY: `rank` is below `peer_count` (`remote_shared` checked
        // it); the cluster's runner keeps its blocks' shared memory alive
        // while their lanes run.
        unsafe { &*ctx.peers.add(rank as usize) }
    }
}

/// [`remote_shared`] for a store into element `index`: a second write of
/// the element by another thread of the cluster since the last cluster
/// barrier is a race, reported with both writers.
pub(crate) fn remote_store(
    region: u32,
    own: *mut u8,
    rank: u32,
    index: u32,
    site: Site,
) -> *mut u8 {
    let ptr = remote_shared(region, own, rank, site);
    let ctx = current();
    let me = (ctx.info.block, ctx.info.rank);
    let mut owner = owner_of(ctx, rank).borrow_mut();
    let earlier = *owner
        .remote_writes
        .entry((region, index))
        .or_insert((me.0, me.1, site));
    owner.mark_written(region, index);
    if (earlier.0, earlier.1) != me {
        let (array, element) = owner.array_element(region, index);
        drop(owner);
        abort(Request::Stop(Box::new(Violation::ClusterRace {
            array,
            element,
            owner: rank,
            first: (earlier.0, earlier.1, earlier.2),
            second: (me.0, me.1, site),
        })));
    }
    ptr
}

/// [`remote_shared`] for an atomic addition into element `index`: the
/// addition reads the element, so an element no thread of the cluster has
/// written (shared memory starts uninitialised) is reported at the
/// addition, as an addition in the block's own array is; afterwards the
/// element holds a value.
pub(crate) fn remote_add(region: u32, own: *mut u8, rank: u32, index: u32, site: Site) -> *mut u8 {
    let ptr = remote_shared(region, own, rank, site);
    let ctx = current();
    let mut owner = owner_of(ctx, rank).borrow_mut();
    if !owner.is_written(region, index) {
        let (array, element) = owner.array_element(region, index);
        drop(owner);
        abort(Request::Stop(Box::new(Violation::UninitializedRead {
            array,
            element,
            access: crate::cpu::SharedAccess {
                thread: ctx.info.rank,
                kind: AccessKind::Atomic,
                site,
            },
        })));
    }
    owner.mark_written(region, index);
    ptr
}

/// Runs `f` on the shared memory of block `rank` of the current lane's
/// cluster (its own block outside a cluster, or for its own rank), after
/// the checks of [`remote_shared`]: a rank outside the cluster, or a block
/// that has returned, stops the launch naming `site`. For the copy engine's
/// multicasts and remote mbarrier arrivals.
pub(crate) fn cluster_block_shared<R>(
    rank: u32,
    site: Site,
    f: impl FnOnce(&mut BlockShared) -> R,
) -> R {
    let ctx = count_step(site);
    let count = ctx.peer_count.max(1);
    let thread = ctx.info.rank;
    if rank >= count {
        abort(Request::Stop(Box::new(Violation::PeerOutsideCluster {
            thread,
            rank,
            blocks: count,
            site,
        })));
    }
    let mut owner = owner_of(ctx, rank).borrow_mut();
    if owner.ended {
        drop(owner);
        abort(Request::Stop(Box::new(Violation::PeerReturned {
            thread,
            rank,
            site,
        })));
    }
    f(&mut owner)
}

/// Whether the current lane is being unwound by the end of its block (its
/// launch stopped while it ran or waited).
pub(crate) fn unwinding() -> bool {
    current().unwinding.get() || std::thread::panicking()
}

/// Whether the launch runs in clusters of more than one block.
pub(crate) fn in_clusters() -> bool {
    current().info.cluster_dim.volume() > 1
}

/// The cluster (its linear rank among the launch's clusters) of the
/// block of linear rank `block`, for the current launch.
fn cluster_of(ctx: &LaneCtx, block: u32) -> u32 {
    let (grid, cluster) = (ctx.info.grid_dim, ctx.info.cluster_dim);
    let b = super::global_state::unrank(block, grid);
    let clusters = Dim3::new(grid.x / cluster.x, grid.y / cluster.y, grid.z / cluster.z);
    clusters.linearize(Dim3::new(b.x / cluster.x, b.y / cluster.y, b.z / cluster.z)) as u32
}

/// A fence by the current lane: a step, after which (`across_blocks`: a
/// fence whose scope holds other blocks, after an atomic access at the
/// device's scope or wider that may have observed another block's flag)
/// its reads of global memory may follow a flag protocol.
pub(crate) fn fence(across_blocks: bool, in_cluster: bool, site: Site) {
    let ctx = count_step(site);
    let thread = ctx.info.rank;
    let epoch = block_shared(|s| s.global_fence(thread, across_blocks, site));
    if across_blocks {
        // Acquire: what its relaxed atomics observed (at the cluster's
        // scope, from its own cluster's blocks only). Release: a relaxed
        // store after it carries what the thread knows, and this release
        // (at the cluster's scope, for the cluster's blocks only).
        ctx.fenced_in_cluster.set(in_cluster.then_some(site));
        let mut sync = ctx.sync.borrow_mut();
        let sync = sync.get_or_insert_with(Default::default);
        let pending = sync.pending.clone();
        happens_before::join(&mut sync.knows, &pending);
        if !in_cluster {
            let far = sync.pending_far.clone();
            happens_before::join(&mut sync.knows, &far);
        } else if sync.pending_far.is_some() {
            sync.cluster_fence = Some(site);
        }
        let mut fenced = sync.knows.clone();
        happens_before::insert(&mut fenced, ctx.block_rank, epoch);
        *ctx.fenced.borrow_mut() = fenced;
        let flags = &ctx.launch().flags;
        if flags.weak() {
            ctx.weak
                .borrow_mut()
                .get_or_insert_with(Default::default)
                .fence_time = flags.tick();
        }
    }
    if across_blocks && ctx.observed.get() {
        ctx.ordered.set(true);
    }
    if ctx.block_atomic.get() {
        ctx.block_acquired.set(true);
    }
}

/// Counts one step of the current lane, stopping it when its budget is
/// spent; returns its context.
#[inline]
fn count_step(site: Site) -> &'static LaneCtx {
    let ctx = current();
    let steps = ctx.steps.get() + 1;
    ctx.steps.set(steps);
    if steps > ctx.budget {
        abort(Request::OutOfSteps { steps, site });
    }
    if ctx.preempt_one_in != 0 {
        let r = xorshift(ctx.rng.get());
        ctx.rng.set(r);
        if r.is_multiple_of(ctx.preempt_one_in as u64) {
            suspend_ctx(ctx, Request::Preempt);
        }
    }
    ctx
}

/// Counts a read of `location` towards spin detection: after
/// [`SPIN_SLICE`] reads of at most a few locations with nothing written in
/// between, the thread lets the others run.
/// A failed test of the mbarrier at byte `offset` of `region`: a poll, which
/// the spin detection counts like a read of unchanged memory, so that a
/// wait nothing can end is reported.
/// The waiting thread lets the others run at once: nothing it does can
/// end the wait.
/// In a launch of clusters the barrier may wait for another block of the
/// cluster (a multicast's bytes, a remote arrival), so the poll counts as
/// one that other blocks can end, as a read of global memory does.
pub(crate) fn poll(region: u32, offset: u32, site: Site) {
    let ctx = current();
    let location = 1 << 63 | (region as usize) << 32 | offset as usize;
    let across_blocks = ctx.info.cluster_dim.volume() > 1;
    note_read_yielding(ctx, location, across_blocks, site, true);
}

fn note_read(ctx: &LaneCtx, location: usize, global: bool, site: Site) {
    note_read_yielding(ctx, location, global, site, false)
}

fn note_read_yielding(ctx: &LaneCtx, location: usize, global: bool, site: Site, yield_now: bool) {
    let progress = block_shared(|s| s.progress())
        .wrapping_add(ctx.launch().progress.0.load(Ordering::Relaxed) << 32);
    // Updated in place: a copy of the record out and back stalls on the
    // location just stored (every emulated read comes here).
    let (reads, global) = {
        let mut t = ctx.spin.borrow_mut();
        if t.seen != progress {
            *t = SpinTrack {
                seen: progress,
                ..SpinTrack::default()
            };
        }
        let used = t.used as usize;
        if !t.locations[..used].contains(&location) {
            if used < SPIN_LOCATIONS {
                t.locations[used] = location;
                t.used += 1;
            } else {
                // Reading ever new locations: a scan, not a spin.
                *t = SpinTrack {
                    seen: progress,
                    used: 1,
                    ..SpinTrack::default()
                };
                t.locations[0] = location;
            }
        }
        t.reads += 1;
        t.global |= global;
        (t.reads, t.global)
    };
    if yield_now || reads.is_multiple_of(SPIN_SLICE) {
        suspend(Request::Spin {
            site,
            reads,
            global,
        });
    }
}

fn suspend(request: Request) -> u64 {
    suspend_ctx(current(), request)
}

#[inline]
fn suspend_ctx(ctx: &LaneCtx, request: Request) -> u64 {
    // SAFETY: the yielder was set when the lane's coroutine started and
    // lives as long as the coroutine, which is running now.
    let yielder = unsafe { &*ctx.yielder.get() };
    yielder.suspend(request)
}

/// The current block's scratch.
pub(crate) fn block_scratch() -> *mut u8 {
    current().scratch
}

/// Runs `f` on the current block's shared memory.
pub(crate) fn block_shared<R>(f: impl FnOnce(&mut BlockShared) -> R) -> R {
    // SAFETY: the scheduler keeps the block's shared memory alive while its
    // lanes run, and only one lane runs at a time.
    let shared = unsafe { &*current().shared };
    f(&mut shared.borrow_mut())
}

/// Counts a step and checks an access of shared memory; a race stops the
/// launch. Reads and atomics count towards spin detection (an atomic that
/// changes the element counts as a write through [`note_modified`]).
pub(crate) fn shared_access(region: u32, index: u32, kind: AccessKind, site: Site) {
    let ctx = count_step(site);
    let rank = ctx.info.rank;
    let checked = block_shared(|s| s.access(region, index, kind, rank, site));
    if let Err(violation) = checked {
        abort(Request::Stop(Box::new(violation)));
    }
    if kind != AccessKind::Write {
        note_read(ctx, (region as usize) << 32 | index as usize, false, site);
    }
}

/// What an atomic access of a global buffer is, for the race check.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AtomicAccess {
    /// At the block's scope (or the cluster's, in a launch without
    /// clusters), which orders nothing across blocks.
    pub block_scope: bool,
    /// At the cluster's scope in a launch in clusters: atomic only among
    /// the cluster's blocks.
    pub cluster_scope: bool,
    /// With acquire ordering: the thread's later reads may follow a flag
    /// another thread raised.
    pub acquire: bool,
    /// With release ordering: the thread's earlier writes are published
    /// to whoever acquires what it stores.
    pub release: bool,
    /// A load, a store or a read-modify-write.
    pub op: AtomicOp,
}

/// Counts a step and checks an access of element `index` of the global
/// buffer that starts at `addr` (an `Out<T>` parameter's); a race stops the
/// launch. Atomics count towards spin detection. `atomic`: what an atomic
/// access (`kind` is `Atomic`) is.
pub(crate) fn global_access(
    addr: usize,
    index: usize,
    kind: AccessKind,
    atomic: Option<AtomicAccess>,
    site: Site,
) {
    let ctx = count_step(site);
    let info = ctx.info;
    let launch = ctx.launch();
    let Some((buffer, _)) = launch.buffers.find(addr) else {
        return; // a buffer the kernel made itself: not checked
    };
    // Only an acquire (or a fence, `fence`) orders the thread's later
    // reads after what another block released; a relaxed atomic, or one at
    // the block's scope, orders nothing across blocks.
    let block_scope = atomic.is_some_and(|a| a.block_scope);
    if let Some(a) = atomic {
        ctx.block_atomic.set(true);
        if a.acquire {
            ctx.block_acquired.set(true);
        }
        if !a.block_scope {
            ctx.observed.set(true);
            if a.acquire {
                ctx.ordered.set(true);
            }
        }
    }
    let access = global_state::Access {
        buffer,
        index,
        kind,
        thread: info.rank,
        site,
        // A read after the thread's acquire across blocks is checked only
        // against writes their writer never released.
        acquired: kind == AccessKind::Read && ctx.ordered.get(),
        block_scope,
        cluster_scope: atomic.is_some_and(|a| a.cluster_scope),
        // Within the block the same holds at any scope: a read after an
        // acquire (since the last barrier) may follow another thread's
        // flag.
        trusted: kind == AccessKind::Read && ctx.block_acquired.get(),
        release: atomic.is_some_and(|a| a.release),
        flag: atomic.is_some_and(|a| a.op != AtomicOp::Load && !a.release && !a.block_scope),
    };
    let arrived = ctx.group_arrival.get().is_some();
    let checked = {
        let sync = ctx.sync.borrow();
        block_shared(|s| {
            let checked = s.global_access(access, sync.as_deref());
            // Between a cluster's or grid's arrive and the wait: checked
            // again once the wait completes.
            if arrived && s.after_arrival.len() < super::shared_state::AFTER_ARRIVAL {
                s.after_arrival.push(access);
            }
            checked
        })
    };
    if let Err(conflict) = checked {
        let violation =
            global_state::block_race(&launch.buffers, info.block, buffer, index, conflict);
        abort(Request::Stop(Box::new(violation)));
    }
    match kind {
        AccessKind::Write => note_modified(true),
        _ => note_read(ctx, addr.wrapping_add(index), true, site),
    }
}

/// Runs `op`, an atomic access at `site` of the word at `addr` with
/// `scope` and `ordering` (`kind`: a load, a store or a read-modify-write),
/// with the memory model's side of it: a write leaves in the location what
/// the thread releases (everything it knows and this release, for a
/// releasing atomic; its last fence's knowledge, for a relaxed one after a
/// fence; nothing, for a relaxed store after none); a read takes what the
/// location held, as knowledge when it acquires and as pending otherwise
/// (a later fence takes it). An atomic at the block's scope orders nothing
/// across blocks. `op` returns the access's result and, when it wrote, the
/// value it replaced.
///
/// Under schedule exploration a load may return the location's previous
/// value (a weak outcome the model allows) when the last write is another
/// block's, neither the thread nor any thread whose release it
/// synchronized with (before that release) had read that write, the
/// thread has not synchronized with a release of the writer after it, and
/// made no device fence since it (the fences are `membar.gl`,
/// sequentially consistent), with even odds.
pub(crate) fn synchronized(
    addr: usize,
    kind: AtomicOp,
    scope: Scope,
    ordering: AtomicOrdering,
    site: Site,
    op: impl FnOnce() -> (u64, Option<u64>),
) -> u64 {
    if scope == Scope::Block || (scope == Scope::Cluster && !in_clusters()) {
        return op().0;
    }
    let ctx = current();
    let flags = &ctx.launch().flags;
    let acquire = matches!(ordering, AtomicOrdering::Acquire | AtomicOrdering::AcqRel);
    let release = matches!(ordering, AtomicOrdering::Release | AtomicOrdering::AcqRel);
    let writes = kind != AtomicOp::Load;
    let epoch = block_shared(|s| s.global_epoch());
    let carries = if !writes {
        None
    } else if release {
        let mut k = ctx.sync.borrow().as_ref().and_then(|s| s.knows.clone());
        happens_before::insert(&mut k, ctx.block_rank, epoch);
        k
    } else {
        ctx.fenced.borrow().clone()
    };
    // A release at the cluster's scope (in a launch in clusters) orders
    // nothing for the blocks of other clusters.
    let cluster = if in_clusters() {
        Some(cluster_of(ctx, ctx.block_rank))
    } else {
        None
    };
    let cluster_only = match (cluster, release) {
        (Some(c), true) if scope == Scope::Cluster => Some((c, site)),
        (Some(c), false) => ctx.fenced_in_cluster.get().map(|fence| (c, fence)),
        _ => None,
    };
    if carries.is_none() && !flags.in_use() {
        return op().0; // no location carries anything to observe, nor will this
    }
    let access = FlagAccess {
        reads: kind != AtomicOp::Store,
        stores: kind == AtomicOp::Store,
        writes,
    };
    let writer = Writer {
        block: ctx.block_rank,
        // A release orders a reader that synchronized with it; anything
        // else, one that synchronized with the block's next release.
        min_epoch: if release { epoch } else { epoch + 1 },
        cluster_only,
    };
    let (mut result, before, version) = flags.access(addr, access, carries, site, writer, op);
    let mut carried = before.carried.clone();
    if flags.weak() {
        let mut weak = ctx.weak.borrow_mut();
        let weak = weak.get_or_insert_with(Default::default);
        let mut sync = ctx.sync.borrow_mut();
        let knows = sync.as_ref().and_then(|s| s.knows.as_ref());
        let known = knows.map_or(0, |k| k.version_of(addr));
        let stale = kind == AtomicOp::Load
            && before.prev.is_some()
            && known < version
            && before.last.is_some_and(|w| {
                w.block != ctx.block_rank
                    && knows.map_or(0, |k| k.epoch_of(w.block)) < w.min_epoch
                    && weak.fence_time < w.time
            })
            && {
                let r = xorshift(ctx.rng.get());
                ctx.rng.set(r);
                r.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 63 != 0
            };
        let observed = if stale {
            let (old, old_carried) = before.prev.clone().expect("checked");
            result = old;
            carried = old_carried;
            version - 1
        } else {
            version
        };
        let sync = sync.get_or_insert_with(Default::default);
        happens_before::observe(&mut sync.knows, addr, observed);
    }
    if !access.reads {
        return result;
    }
    let mut sync = ctx.sync.borrow_mut();
    // What another cluster released at the cluster's scope reaches this
    // block not at all; what it released wider, only through a fence or
    // acquire wider than the cluster's.
    if let (Some(c), Some((far, release))) = (cluster, before.cluster_only)
        && far != c
        && carried.is_some()
    {
        carried = None;
        if let Some(w) = before.last {
            sync.get_or_insert_with(Default::default).far_release = Some((w.block, release));
        }
    }
    let far_writer = match (cluster, before.last) {
        (Some(c), Some(w)) => cluster_of(ctx, w.block) != c,
        _ => false,
    };
    if far_writer && !acquire && carried.is_some() {
        let sync = sync.get_or_insert_with(Default::default);
        happens_before::join(&mut sync.pending_far, &carried);
        sync.observed_at = Some(site);
        return result;
    }
    match (&carried, acquire) {
        (Some(_), true) => {
            let sync = sync.get_or_insert_with(Default::default);
            happens_before::join(&mut sync.knows, &carried)
        }
        (Some(_), false) => {
            let sync = sync.get_or_insert_with(Default::default);
            happens_before::join(&mut sync.pending, &carried);
            sync.observed_at = Some(site);
        }
        (None, true) => {
            if let Some(store) = before.relaxed {
                sync.get_or_insert_with(Default::default).link = Some(store);
            }
        }
        (None, false) => {}
    }
    result
}

/// An atomic (or write) changed memory: what spinning threads wait for.
pub(crate) fn note_modified(global: bool) {
    let ctx = current();
    block_shared(|s| s.note_write());
    if global {
        ctx.launch().progress.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// `thread 5` in a 1-D block, `thread (5, 2)` in a 2-D one.
pub(crate) fn thread_name(t: Dim3) -> String {
    let d = current().info.block_dim;
    let rank = t.x + d.x * (t.y + d.y * t.z);
    crate::backend::cpu::Threads::from_ranks([rank])
        .in_block(d)
        .to_string()
}

/// Stops the launch: the current thread failed a check of coop's at
/// `site`, with `message` (a panic, located at the kernel's call).
pub(crate) fn fail_at(message: String, site: Site) -> ! {
    let thread = current().info.rank;
    abort(Request::Stop(Box::new(Violation::Panic {
        thread,
        message,
        location: Some(location_of(site)),
    })))
}

fn location_of(site: Site) -> crate::backend::cpu::PanicLocation {
    crate::backend::cpu::PanicLocation {
        file: site.file().to_string(),
        line: site.line(),
        column: site.column(),
    }
}

/// Stops the launch: the current thread indexed `buffer` out of bounds.
pub(crate) fn out_of_bounds(
    buffer: String,
    call: &'static str,
    index: usize,
    len: usize,
    site: Site,
) -> ! {
    let thread = current().info.rank;
    abort(Request::Stop(Box::new(Violation::OutOfBounds {
        buffer,
        call,
        index,
        len,
        thread,
        location: Some(location_of(site)),
    })))
}

/// The name of the launch's buffer that starts at `addr`.
pub(crate) fn buffer_name(addr: usize) -> Option<&'static str> {
    let launch = current().launch();
    launch
        .buffers
        .find(addr)
        .map(|(i, _)| launch.buffers.name(i))
}

/// The calling thread enters the collective `call`, written by the kernel
/// at `site`: what it waits at inside (barriers, shuffles) is named `call`
/// in diagnostics.
pub(crate) fn name_collective(call: &'static str, site: Site) {
    current().named.set(Some((site, call)));
}

/// The name the kernel wrote for an operation `op` at `site` of the thread
/// with context `ctx`: the collective it entered there, or `op`'s own.
pub(crate) fn written_name(ctx: &LaneCtx, op: &Op, site: Site) -> &'static str {
    match ctx.named.get() {
        Some((s, call)) if core::ptr::eq(s, site) => call,
        _ => op.name(),
    }
}

/// Suspends the current thread at the collective `op`, called at `site`;
/// returns its result. Inlined, so that the thread writes the operation
/// straight into its state, where the scheduler finds it.
#[inline]
pub(crate) fn collective(op: Op, site: Site) -> u64 {
    if let Op::BlockSync { .. } | Op::GridSync | Op::ClusterSync = op {
        return barrier(op, site);
    }
    wait_at(current(), op, site)
}

/// A barrier of the block (or one that holds it): not allowed between a
/// split barrier's arrive and wait.
#[inline(never)]
fn barrier(op: Op, site: Site) -> u64 {
    let ctx = current();
    let call = written_name(ctx, &op, site);
    if let Some((arrive, group)) = ctx.group_arrival.get() {
        abort(Request::Stop(Box::new(Violation::ArrivalNotWaited {
            thread: ctx.info.rank,
            arrive,
            group,
            then: AfterArrival::Collective { call, site },
        })));
    }
    let rank = ctx.info.rank;
    if let Err(v) = block_shared(|s| s.check_no_window(rank, call, site)) {
        abort(Request::Stop(Box::new(v)));
    }
    wait_at(ctx, op, site)
}

/// Counts the step of a collective and suspends the thread there. The
/// state is written first, straight from the operation's fields: a
/// preemption (the one step that returns) keeps it in the context, not
/// on the stack, so that the scheduler's read of it never waits for
/// stores still in flight.
#[inline]
fn wait_at(ctx: &LaneCtx, op: Op, site: Site) -> u64 {
    ctx.state.set(State::Waiting { op, site });
    let steps = ctx.steps.get() + 1;
    ctx.steps.set(steps);
    if steps > ctx.budget || ctx.preempt_one_in != 0 {
        step_at_collective(ctx, steps, site);
    }
    let result = suspend_ctx(ctx, Request::Collective);
    if result == CAPTURE_CALLERS {
        return capture_callers(ctx, op, site);
    }
    result
}

/// The rare part of a collective's step: out of steps, or a preemption
/// under schedule exploration.
#[cold]
#[inline(never)]
fn step_at_collective(ctx: &LaneCtx, steps: u64, site: Site) {
    if steps > ctx.budget {
        abort(Request::OutOfSteps { steps, site });
    }
    let r = xorshift(ctx.rng.get());
    ctx.rng.set(r);
    if r.is_multiple_of(ctx.preempt_one_in as u64) {
        let waiting = ctx.state.get();
        suspend_ctx(ctx, Request::Preempt);
        ctx.state.set(waiting);
    }
}

/// The scheduler, naming a broken rule, asks where the collective `op` at
/// `site` was called from; the thread stays at its collective.
#[cold]
#[inline(never)]
fn capture_callers(ctx: &LaneCtx, op: Op, site: Site) -> u64 {
    loop {
        ctx.callers.replace(super::callers::callers_of(site));
        ctx.state.set(State::Waiting { op, site });
        let result = suspend_ctx(ctx, Request::Collective);
        if result != CAPTURE_CALLERS {
            return result;
        }
    }
}

/// What the scheduler resumes a thread waiting at a collective with to ask
/// for its callers: no collective returns it (their results are 32 bits,
/// or a match's mask with bit 32).
pub(crate) const CAPTURE_CALLERS: u64 = u64::MAX - 7;

/// The calling thread arrives at its block's split barrier
/// (`ThreadBlock::barrier_arrive` at `site`).
pub(crate) fn arrive_block(site: Site) {
    let ctx = count_step(site);
    let rank = ctx.info.rank;
    if let Some((arrive, group)) = ctx.group_arrival.get() {
        abort(Request::Stop(Box::new(Violation::ArrivalNotWaited {
            thread: rank,
            arrive,
            group,
            then: AfterArrival::Collective {
                call: "ThreadBlock::barrier_arrive",
                site,
            },
        })));
    }
    if let Err(v) = block_shared(|s| s.arrive(rank, site)) {
        abort(Request::Stop(Box::new(v)));
    }
}

/// The calling thread waits for the phase of its block's split barrier it
/// arrived at (`ThreadBlock::barrier_wait` at `site`).
pub(crate) fn wait_block(site: Site) {
    let rank = count_step(site).info.rank;
    if !block_shared(|s| s.try_wait(rank)) {
        collective(Op::BarrierWait, site);
    }
}

/// The calling thread arrives at the split barrier of its cluster or grid
/// (`group`: `"Cluster"`, `"CooperativeGrid"`; `barrier_arrive` at
/// `site`): checked here, completed at the wait, which is the group's
/// barrier.
pub(crate) fn arrive_group(group: &'static str, site: Site) {
    let ctx = count_step(site);
    let rank = ctx.info.rank;
    let call = match group {
        "Cluster" => "Cluster::barrier_arrive",
        _ => "CooperativeGrid::barrier_arrive",
    };
    let violation = match ctx.group_arrival.get() {
        Some((arrive, earlier)) if earlier == group => Violation::ArrivalNotWaited {
            thread: rank,
            arrive,
            group,
            then: AfterArrival::Arrived(site),
        },
        Some((arrive, earlier)) => Violation::ArrivalNotWaited {
            thread: rank,
            arrive,
            group: earlier,
            then: AfterArrival::Collective { call, site },
        },
        None => match block_shared(|s| s.check_no_window(rank, call, site)) {
            Err(v) => v,
            Ok(()) => {
                ctx.group_arrival.set(Some((site, group)));
                return;
            }
        },
    };
    abort(Request::Stop(Box::new(violation)));
}

/// The calling thread waits at the split barrier of its cluster (`op`:
/// `Op::ClusterSync`) or grid (`Op::GridSync`), as `call` at `site`.
pub(crate) fn wait_group(op: Op, call: &'static str, site: Site) {
    current().group_arrival.set(None);
    name_collective(call, site);
    collective(op, site);
}

/// Reports a broken rule; the scheduler ends the launch and never resumes
/// this lane.
pub(crate) fn abort(request: Request) -> ! {
    suspend(request);
    unreachable!("the CPU backend resumed a lane it had stopped")
}
