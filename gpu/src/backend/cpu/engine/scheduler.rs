//! Runs one thread block: every thread is a coroutine, run in rank order
//! until it reaches a collective or returns; then the collectives whose
//! whole group has arrived are resolved, or the rule that stops them from
//! ever completing is reported. The order never depends on the host's
//! thread scheduling, so a launch is deterministic.

use super::global_state::Touched;
use super::happens_before::{self, SyncView};
use super::lane::{self, LaneCtx, LaneInfo, LaunchShared, Op, Request, State, VoteKind};
use super::panics::Capture;
use super::semantics::{lanes_where, shfl_source};
use super::shared_state::{BlockShared, SiteTotals};
use crate::Dim3;
use crate::backend::Site;
use crate::backend::cpu::diagnostics::{AfterArrival, Arrival, Threads, Violation};
use core::cell::{Cell, RefCell};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult};
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

/// A thread's coroutine: resumed with a collective's result, suspends with
/// a request, returns the payload of its panic if it panicked (caught
/// inside, so that a resume needs no `catch_unwind` of its own).
type LaneCoroutine = Coroutine<u64, Request, Option<Box<dyn Any + Send>>, DefaultStack>;

/// Coroutine stacks, reused across blocks and launches: each host thread
/// running blocks keeps its own, and hands them to a process-wide pool when
/// its launch ends, so that the next launch finds them mapped and touched.
pub(crate) struct Stacks {
    pool: Vec<DefaultStack>,
    size: usize,
}

/// Stacks no launch is using, by size, at most [`POOLED_STACKS`].
static POOL: std::sync::Mutex<Vec<(usize, DefaultStack)>> = std::sync::Mutex::new(Vec::new());

/// How many idle stacks the process keeps (4 blocks of 1024 threads).
const POOLED_STACKS: usize = 4096;

impl Stacks {
    pub fn new(size: usize) -> Self {
        Stacks {
            pool: Vec::new(),
            size,
        }
    }

    fn take(&mut self) -> Result<DefaultStack, Violation> {
        if let Some(stack) = self.pool.pop() {
            return Ok(stack);
        }
        {
            let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
            let mut i = pool.len();
            // A few at a time, so that the host threads of a launch share
            // the pool.
            while i > 0 && self.pool.len() < 32 {
                i -= 1;
                if pool[i].0 == self.size {
                    self.pool.push(pool.swap_remove(i).1);
                }
            }
        }
        match self.pool.pop() {
            Some(stack) => Ok(stack),
            None => DefaultStack::new(self.size).map_err(|e| Violation::Resources {
                what: format!("a {} KiB coroutine stack: {e}", self.size / 1024),
            }),
        }
    }
}

impl Drop for Stacks {
    fn drop(&mut self) {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        let room = POOLED_STACKS.saturating_sub(pool.len());
        let size = self.size;
        pool.extend(self.pool.drain(..).take(room).map(|s| (size, s)));
    }
}

/// Counters of one launch.
#[derive(Debug, Default)]
pub(crate) struct Counts {
    pub collectives: u64,
    pub barriers: u64,
    /// Grid syncs completed (one per launch per call).
    pub grid_syncs: u64,
    /// Cluster syncs completed (one per cluster per call).
    pub cluster_syncs: u64,
    pub steps: u64,
    /// Shared-memory requests and transactions per access site.
    pub shared: SiteTotals,
    /// How many global elements this host thread's last block touched:
    /// room for the next block's record of them (not a count of the
    /// launch; `add` leaves it).
    pub global_elements: usize,
}

impl Counts {
    /// Adds another host thread's counts.
    pub fn add(&mut self, other: Counts) {
        self.collectives += other.collectives;
        self.barriers += other.barriers;
        self.grid_syncs += other.grid_syncs;
        self.cluster_syncs += other.cluster_syncs;
        self.steps += other.steps;
        for (key, site) in other.shared {
            self.shared
                .entry(key)
                .and_modify(|s| {
                    s.requests += site.requests;
                    s.transactions += site.transactions;
                })
                .or_insert(site);
        }
    }
}

/// The shape of the launch and which block this is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geometry {
    pub block: Dim3,
    pub block_dim: Dim3,
    pub grid_dim: Dim3,
    /// Dynamic shared memory per block, in bytes.
    pub dynamic_shared: u32,
    /// The cluster shape in blocks (1, 1, 1 without clusters).
    pub cluster_dim: Dim3,
}

struct Lane {
    co: Option<LaneCoroutine>,
}

pub(crate) struct Block<'a> {
    lanes: Vec<Lane>,
    /// Each lane's context, in one allocation that never moves (the lanes'
    /// coroutines point into it).
    ctxs: Box<[LaneCtx]>,
    /// Keeps the block's scratch alive (the lanes hold pointers into it).
    _scratch: Box<[u128]>,
    shared: &'a RefCell<BlockShared>,
    stacks: &'a RefCell<Stacks>,
    body: &'a dyn Fn(),
    /// Records where a thread panics while the block runs.
    panics: Capture,
    launch: &'a LaunchShared,
    /// Schedule exploration's random state for the order of lanes (0:
    /// rank order).
    rng: u64,
    /// Whether every block before this one has ended (a block spinning on
    /// global memory may wait for them).
    earlier_done: &'a dyn Fn() -> bool,
    /// Whether the block runs beside the others of a cooperative launch,
    /// on the same host thread: a block spinning on global memory lets them
    /// run instead of waiting here.
    cooperative: bool,
}

/// Which blocks a sync waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Group {
    /// Every block of a cooperative launch (`CooperativeGrid::sync`).
    Grid,
    /// The blocks of one cluster (`Cluster::sync`).
    Cluster,
}

/// Why [`Block::run`] returned without an error.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Pause {
    /// Every thread returned.
    Done,
    /// Every thread waits at the grid or cluster sync (`Group`) at this
    /// site.
    GroupSync(Group, Site, &'static str),
    /// (Cooperative launches.) The threads left spin on global memory that
    /// another block may change; `stuck` once they have reached the spin
    /// limit.
    Blocked { stuck: bool },
}

impl Drop for Block<'_> {
    /// Unwinds the threads a broken rule left suspended, running their
    /// destructors, and keeps their stacks.
    fn drop(&mut self) {
        for (lane, ctx) in self.lanes.iter_mut().zip(self.ctxs.iter()) {
            if let Some(mut co) = lane.co.take() {
                ctx.unwinding.set(true);
                lane::enter(ctx);
                let _ = catch_unwind(AssertUnwindSafe(|| co.force_unwind()));
                lane::leave();
                if co.done() {
                    self.stacks.borrow_mut().pool.push(co.into_stack());
                }
            }
        }
    }
}

/// How one block is run: its place in the launch and what it shares with
/// the others.
pub(crate) struct BlockRun<'a> {
    pub geometry: Geometry,
    pub body: &'a dyn Fn(),
    pub launch: &'a LaunchShared,
    /// Schedule exploration's seed for this block (0: rank order).
    pub seed: u64,
    /// Whether every earlier block has ended (in a cooperative launch:
    /// whether every other block is stuck).
    pub earlier_done: &'a dyn Fn() -> bool,
}

/// Runs block `run.geometry.block` of a launch to its end; returns what it
/// did to global memory.
pub(crate) fn run_block(
    run: BlockRun<'_>,
    stacks: &RefCell<Stacks>,
    counts: &mut Counts,
) -> Result<Vec<Touched>, Violation> {
    let shared = RefCell::new(BlockShared::new(
        run.geometry.block_dim.volume() as u32,
        run.geometry.dynamic_shared,
        counts.global_elements,
    ));
    let mut block = Block::new(run, stacks, &shared, &[], false);
    let mut result = loop {
        match block.run(counts) {
            Ok(Pause::Done) => break Ok(()),
            // Only a cooperative kernel syncs its grid, and the emulator
            // runs those with `cooperative::run_grid`: a block run alone is
            // a grid of one block.
            Ok(Pause::GroupSync(..)) => {
                if let Err(v) = block.release_group_sync(counts) {
                    break Err(v);
                }
            }
            Ok(Pause::Blocked { .. }) => unreachable!("only cooperative blocks pause to wait"),
            Err(v) => break Err(v),
        }
    };
    if let Err(violation) = &mut result {
        block.find_callers(violation);
    }
    counts.steps += block.steps();
    drop(block);
    close_block(shared.into_inner(), result, counts)
}

/// A block's end: the first of its errors (a read of an unwritten element
/// comes before what stopped the block, unless the race is what the read
/// turned into), or the end-of-kernel checks; its shared-memory counts; and
/// what it did to global memory since the last grid sync.
pub(crate) fn close_block(
    mut shared: BlockShared,
    result: Result<(), Violation>,
    counts: &mut Counts,
) -> Result<Vec<Touched>, Violation> {
    let result = match result {
        Err(v) if !matches!(v, Violation::SharedRace { .. }) => {
            Err(shared.take_unwritten().unwrap_or(v))
        }
        Err(v) => Err(v),
        Ok(()) => shared.end(),
    };
    counts.global_elements = shared.global_elements();
    let global = shared.take_global();
    shared.finish(&mut counts.shared);
    result.map(|()| global)
}

impl<'a> Block<'a> {
    /// Block `run.geometry.block`, its threads not started yet, with
    /// `shared` as its shared memory.
    pub(crate) fn new(
        run: BlockRun<'a>,
        stacks: &'a RefCell<Stacks>,
        shared: &'a RefCell<BlockShared>,
        peers: &'a [RefCell<BlockShared>],
        cooperative: bool,
    ) -> Self {
        let BlockRun {
            geometry,
            body,
            launch,
            seed,
            earlier_done,
        } = run;
        let d = geometry.block_dim;
        let threads = d.volume() as u32;
        // Uninitialised on the GPU; zeroed here, which is one of its
        // possible contents.
        let mut scratch =
            vec![0u128; crate::backend::BLOCK_SCRATCH_BYTES.div_ceil(16)].into_boxed_slice();
        let scratch_ptr = scratch.as_mut_ptr() as *mut u8;
        let ctxs: Box<[LaneCtx]> = (0..threads)
            .map(|rank| {
                let thread = Dim3::new(rank % d.x, (rank / d.x) % d.y, rank / (d.x * d.y));
                LaneCtx {
                    state: Cell::new(State::Ready(0)),
                    info: LaneInfo {
                        thread,
                        block: geometry.block,
                        block_dim: d,
                        grid_dim: geometry.grid_dim,
                        rank,
                        dynamic_shared: geometry.dynamic_shared,
                        cluster_dim: geometry.cluster_dim,
                    },
                    scratch: scratch_ptr,
                    shared,
                    peers: peers.as_ptr(),
                    peer_count: peers.len() as u32,
                    launch,
                    yielder: Cell::new(core::ptr::null()),
                    steps: Cell::new(0),
                    budget: launch.budget,
                    preempt_one_in: launch.preempt_one_in,
                    spin: RefCell::new(Default::default()),
                    rng: Cell::new(if seed == 0 {
                        0
                    } else {
                        lane::xorshift(seed ^ (rank as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                            | 1
                    }),
                    unwinding: Cell::new(false),
                    ordered: Cell::new(false),
                    observed: Cell::new(false),
                    block_atomic: Cell::new(false),
                    block_acquired: Cell::new(false),
                    sync: RefCell::new(None),
                    fenced: RefCell::new(None),
                    fenced_in_cluster: Cell::new(None),
                    block_rank: geometry.grid_dim.linearize(geometry.block) as u32,
                    weak: RefCell::new(None),
                    callers: RefCell::new(Vec::new()),
                    named: Cell::new(None),
                    group_arrival: Cell::new(None),
                }
            })
            .collect();
        let lanes = (0..threads).map(|_| Lane { co: None }).collect();
        Block {
            lanes,
            ctxs,
            _scratch: scratch,
            shared,
            stacks,
            body,
            panics: Capture::start(),
            launch,
            rng: if seed == 0 {
                0
            } else {
                lane::xorshift(seed) | 1
            },
            earlier_done,
            cooperative,
        }
    }

    /// Steps its threads have taken.
    pub(crate) fn steps(&self) -> u64 {
        self.ctxs.iter().map(|c| c.steps.get()).sum()
    }

    /// Every block of its cluster waits at the cluster sync this block
    /// waits at, which releases what each thread wrote before it (at the
    /// cluster's scope, `barrier.cluster.arrive`): counted as a release of
    /// every thread, at `site`. Returns the block's epoch after it and
    /// what its threads know and whether any had acquired (its reads may
    /// follow a flag), for [`learn`](Self::learn).
    pub(crate) fn release_at_cluster_sync(
        &mut self,
        site: Site,
    ) -> (u32, happens_before::Shared, bool) {
        let epoch = {
            let mut shared = self.shared.borrow_mut();
            for thread in 0..self.ctxs.len() as u32 {
                shared.global_fence(thread, true, site);
            }
            shared.global_epoch()
        };
        let mut knows = None;
        for c in self.ctxs.iter() {
            if let Some(s) = c.sync.borrow().as_ref() {
                happens_before::join(&mut knows, &s.knows);
            }
        }
        let ordered = self.ctxs.iter().any(|c| c.ordered.get());
        (epoch, knows, ordered)
    }

    /// After its cluster's sync, every thread knows what any thread of the
    /// cluster knew, and every block's release at the sync (`knows`): a
    /// release after the sync publishes the other blocks' writes before it
    /// too (cumulativity); with `ordered`, a thread of the cluster had
    /// acquired, and every thread's reads may follow that flag. Called once
    /// the sync has released the block.
    pub(crate) fn learn(&mut self, knows: &happens_before::Shared, ordered: bool) {
        for c in self.ctxs.iter() {
            let mut s = c.sync.borrow_mut();
            let s = s.get_or_insert_with(Default::default);
            happens_before::join(&mut s.knows, knows);
            if ordered {
                c.ordered.set(true);
            }
        }
    }

    /// Every block has arrived at the grid or cluster sync this block
    /// waits at: its threads go on, in a new interval of the block's race
    /// detector.
    pub(crate) fn release_group_sync(&mut self, counts: &mut Counts) -> Result<(), Violation> {
        for ctx in self.ctxs.iter() {
            ctx.state.set(State::Ready(0));
            ctx.ordered.set(false);
            ctx.observed.set(false);
            ctx.block_atomic.set(false);
            ctx.block_acquired.set(false);
        }
        self.shared.borrow_mut().barrier()?;
        counts.barriers += 1;
        // What its threads did between a split barrier's arrive and this
        // wait is unordered with what every thread does after it.
        let rechecked = self.shared.borrow_mut().recheck_after_arrival();
        rechecked.map_err(|(buffer, index, conflict)| {
            let block = self.ctxs[0].info.block;
            super::global_state::block_race(&self.launch.buffers, block, buffer, index, conflict)
        })
    }
}

impl Block<'_> {
    /// Runs the block's threads until they have all returned, or (in a
    /// cooperative launch) all wait at a grid sync or for another block.
    pub(crate) fn run(&mut self, counts: &mut Counts) -> Result<Pause, Violation> {
        let n = self.lanes.len();
        let mut order: Vec<usize> = (0..n).collect();
        loop {
            if self.rng != 0 {
                // Schedule exploration: a new order of the lanes each round.
                for i in (1..order.len()).rev() {
                    self.rng = lane::xorshift(self.rng);
                    order.swap(i, (self.rng % (i as u64 + 1)) as usize);
                }
                for &i in &order {
                    if let State::Ready(value) = self.ctxs[i].state.get() {
                        self.resume(i, value)?;
                    }
                }
            } else {
                // Warp by warp: run a warp's threads and complete its
                // collectives until it waits for the rest of the block,
                // so that the stacks being switched between stay in cache.
                for lo in (0..n).step_by(32) {
                    let hi = (lo + 32).min(n);
                    loop {
                        for i in lo..hi {
                            if let State::Ready(value) = self.ctxs[i].state.get() {
                                self.resume(i, value)?;
                            }
                        }
                        if !self.resolve_warps(lo..hi, counts, false)? {
                            break;
                        }
                    }
                }
            }
            if self
                .ctxs
                .iter()
                .all(|c| matches!(c.state.get(), State::Done))
            {
                return Ok(Pause::Done);
            }
            if self
                .ctxs
                .iter()
                .any(|c| matches!(c.state.get(), State::Ready(_)))
            {
                continue; // preempted by schedule exploration
            }
            if self.resolve_warps(0..n, counts, true)? {
                continue;
            }
            match self.resume_spinners()? {
                Spin::Resumed => continue,
                Spin::Blocked { stuck } => return Ok(Pause::Blocked { stuck }),
                Spin::None => {}
            }
            if let Some((group, site, call)) = self.resolve_barrier(counts)? {
                return Ok(Pause::GroupSync(group, site, call));
            }
        }
    }

    /// Adds to each group of threads waiting at a collective in
    /// `violation` where the call was made from: the first thread of the
    /// group is resumed once to look at its own stack.
    pub(crate) fn find_callers(&mut self, violation: &mut Violation) {
        let arrivals = match violation {
            Violation::BarrierNotReached { waiting, .. } => waiting,
            Violation::DivergentBarriers { waiting } => waiting,
            Violation::DivergentCollective { arrivals, .. } => arrivals,
            _ => return,
        };
        for arrival in arrivals.iter_mut() {
            let Some(site) = arrival.site else { continue };
            let Some(&first) = arrival.threads.ranks().first() else {
                continue;
            };
            let i = first as usize;
            let State::Waiting { site: at, .. } = self.ctxs[i].state.get() else {
                continue;
            };
            // A call in the kernel's own body was made by the kernel: no
            // need to read the stack (which loads the program's debug
            // information, once a process).
            if self.launch.in_kernel_body(site)
                || !same_site(at, site)
                || self.resume(i, lane::CAPTURE_CALLERS).is_err()
            {
                continue;
            }
            arrival.callers = core::mem::take(&mut *self.ctxs[i].callers.borrow_mut());
        }
    }

    /// Nothing else can run: let spinning threads poll again, or report
    /// that they spin forever.
    fn resume_spinners(&mut self) -> Result<Spin, Violation> {
        let spinners: Vec<usize> = (0..self.lanes.len())
            .filter(|&i| matches!(self.ctxs[i].state.get(), State::Spinning { .. }))
            .collect();
        if spinners.is_empty() {
            return Ok(Spin::None);
        }
        let limit = self.launch.spin_limit;
        let stuck = spinners.iter().all(
            |&i| matches!(self.ctxs[i].state.get(), State::Spinning { reads, .. } if reads >= limit),
        );
        let global = spinners.iter().any(|&i| {
            matches!(
                self.ctxs[i].state.get(),
                State::Spinning { global: true, .. }
            )
        });
        // A block waiting on global memory may be waiting for an earlier
        // block that another host thread still runs.
        let nothing_to_wait_for = !global || (self.earlier_done)();
        if stuck && nothing_to_wait_for {
            let mut spinning = Vec::new();
            let mut others = Vec::new();
            let mut reads = 0;
            for (i, ctx) in self.ctxs.iter().enumerate() {
                match ctx.state.get() {
                    State::Spinning { site, reads: r, .. } => {
                        reads = reads.max(r);
                        add_arrival(&mut spinning, spinning_name(ctx, site), Some(site), i)
                    }
                    State::Waiting { op, site } => add_arrival(
                        &mut others,
                        lane::written_name(&self.ctxs[i], &op, site),
                        Some(site),
                        i,
                    ),
                    State::Done => add_arrival(&mut others, "returned from the kernel", None, i),
                    State::Ready(_) => {}
                }
            }
            return Err(Violation::SpinForever {
                spinning,
                others,
                reads,
                global,
                cooperative: self.cooperative,
            });
        }
        for &i in &spinners {
            self.ctxs[i].state.set(State::Ready(0));
        }
        if global && self.cooperative {
            // The other blocks of the launch, run on this host thread
            // between this block's turns, may write what it waits for.
            return Ok(Spin::Blocked { stuck });
        }
        if stuck {
            // Earlier blocks, run by other host threads, may still write
            // what this block waits for.
            std::thread::yield_now();
        }
        Ok(Spin::Resumed)
    }

    /// Runs thread `i` until it reaches a collective or returns.
    fn resume(&mut self, i: usize, value: u64) -> Result<(), Violation> {
        let rank = i as u32;
        if self.lanes[i].co.is_none() {
            let stack = self.stacks.borrow_mut().take()?;
            let body: *const dyn Fn() = self.body;
            // SAFETY: `body` outlives the coroutine: `Block` is dropped (and
            // every unfinished coroutine unwound) before `run_block` returns.
            let co = unsafe {
                LaneCoroutine::with_stack_unchecked(stack, move |yielder, _| {
                    let ctx = lane_ctx();
                    ctx.yielder.set(yielder);
                    match catch_unwind(AssertUnwindSafe(|| (*body)())) {
                        Ok(()) => None,
                        // The block's end unwinding a stopped thread: let it
                        // through to the coroutine library.
                        Err(payload) if ctx.unwinding.get() => resume_unwind(payload),
                        Err(payload) => Some(payload),
                    }
                })
            };
            self.lanes[i].co = Some(co);
        }
        let lane = &mut self.lanes[i];
        let co = lane.co.as_mut().expect("created above");
        let ctx = &self.ctxs[i];
        lane::enter(ctx);
        let result = co.resume(value);
        lane::leave();
        match result {
            // The thread has set its state to the collective it waits at
            // (the request carries nothing, so that nothing the thread
            // just wrote is read back at once).
            CoroutineResult::Yield(Request::Collective) => Ok(()),
            CoroutineResult::Yield(Request::PartialTile {
                size,
                parent_size,
                site,
            }) => Err(Violation::PartialTile {
                tile_size: size,
                parent_size,
                thread: rank,
                site,
            }),
            CoroutineResult::Yield(Request::OutOfSteps { steps, site }) => {
                Err(Violation::OutOfSteps {
                    thread: rank,
                    steps: steps - 1,
                    site,
                })
            }
            CoroutineResult::Yield(Request::Stop(violation)) => Err(*violation),
            CoroutineResult::Yield(Request::Spin {
                site,
                reads,
                global,
            }) => {
                ctx.state.set(State::Spinning {
                    site,
                    reads,
                    global,
                });
                Ok(())
            }
            CoroutineResult::Yield(Request::Preempt) => {
                ctx.state.set(State::Ready(0));
                Ok(())
            }
            CoroutineResult::Return(None) => {
                ctx.state.set(State::Done);
                if let Some((arrive, group)) = ctx.group_arrival.get() {
                    return Err(Violation::ArrivalNotWaited {
                        thread: rank,
                        arrive,
                        group,
                        then: AfterArrival::Returned,
                    });
                }
                let co = lane.co.take().expect("finished coroutine");
                self.stacks.borrow_mut().pool.push(co.into_stack());
                Ok(())
            }
            CoroutineResult::Return(Some(payload)) => {
                ctx.state.set(State::Done);
                lane.co = None;
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "(a panic without a message)".into());
                let location = self.panics.take();
                if let Some((index, len)) = slice_index(&message) {
                    let names = self.launch.buffers.slices_of_len(len);
                    if !names.is_empty() {
                        return Err(Violation::OutOfBounds {
                            buffer: names.join("` or `"),
                            call: "index",
                            index,
                            len,
                            thread: rank,
                            location,
                        });
                    }
                }
                Err(Violation::Panic {
                    thread: rank,
                    message,
                    location,
                })
            }
        }
    }

    /// The threads of `lanes` have stopped: complete the warp collectives
    /// among them whose groups have all arrived (whether any did); with
    /// `diagnose`, when none did, report why one never will.
    fn resolve_warps(
        &mut self,
        lanes: core::ops::Range<usize>,
        counts: &mut Counts,
        diagnose: bool,
    ) -> Result<bool, Violation> {
        let n = self.lanes.len();
        let spinning = diagnose
            && self
                .ctxs
                .iter()
                .any(|c| matches!(c.state.get(), State::Spinning { .. }));
        // Lanes completed this call, a bit per lane of each warp.
        let mut handled = [0u32; 32];
        let mut released = false;
        let mut stuck = None;
        for i in lanes {
            let State::Waiting { op, site } = self.ctxs[i].state.get() else {
                continue;
            };
            if let Op::BarrierWait = op {
                // The block's split barrier: released once its phase is
                // complete; otherwise the threads yet to arrive must run.
                if self.shared.borrow_mut().try_wait(i as u32) {
                    self.ctxs[i].state.set(State::Ready(0));
                    counts.collectives += 1;
                    released = true;
                }
                continue;
            }
            if let Op::ActiveMask = op {
                // The lanes of the warp at this call form the group: none of
                // them can go on before the others arrive (every lane of the
                // warp has stopped).
                let warp_base = i - i % 32;
                let mut group = 0u32;
                for l in warp_base..(warp_base + 32).min(n) {
                    if let State::Waiting {
                        op: Op::ActiveMask,
                        site: s,
                    } = self.ctxs[l].state.get()
                        && same_site(s, site)
                    {
                        group |= 1 << (l - warp_base);
                    }
                }
                if self.rng != 0 && group.count_ones() > 1 {
                    // Schedule exploration: a less converged warp, split
                    // in two at random (the caller's half first).
                    self.rng = lane::xorshift(self.rng);
                    let half = group & self.rng as u32;
                    let mine = if half & (1 << (i % 32)) != 0 {
                        half
                    } else {
                        group & !half
                    };
                    group = mine;
                }
                let mut bits = group;
                while bits != 0 {
                    let l = warp_base + bits.trailing_zeros() as usize;
                    self.ctxs[l].state.set(State::Ready(group as u64));
                    bits &= bits - 1;
                }
                handled[i / 32] |= group;
                counts.collectives += 1;
                released = true;
                continue;
            }
            if let Op::TileBarrier { size, uniform } = op {
                // A multi-warp tile: the threads of ranks `base..base + size`.
                let size = size as usize;
                let base = i - i % size;
                let members: Vec<usize> = (base..base + size).collect();
                let all_here = members.iter().all(|&m| {
                    m < n
                        && matches!(self.ctxs[m].state.get(),
                            State::Waiting { op: o, site: s }
                                if o.same_collective(&op) && same_site(s, site))
                });
                if !all_here {
                    if diagnose && !spinning && stuck.is_none() {
                        stuck = Some((op, site, members));
                    }
                    continue;
                }
                if let Some((call, _)) = uniform {
                    let mut values: Vec<(Threads, u32)> = Vec::new();
                    for &m in &members {
                        if let State::Waiting {
                            op:
                                Op::TileBarrier {
                                    uniform: Some((_, v)),
                                    ..
                                },
                            ..
                        } = self.ctxs[m].state.get()
                        {
                            match values.iter_mut().find(|(_, x)| *x == v) {
                                Some((threads, _)) => threads.push(m as u32),
                                None => values.push((Threads::new(vec![m as u32]), v)),
                            }
                        }
                    }
                    if values.len() > 1 {
                        return Err(Violation::NotUniform { call, site, values });
                    }
                }
                for &m in &members {
                    self.ctxs[m].state.set(State::Ready(0));
                }
                self.shared
                    .borrow_mut()
                    .multi_warp_sync(base as u32, size as u32);
                counts.collectives += 1;
                released = true;
                continue;
            }
            let Some(mask) = op.warp_mask() else { continue };
            if handled[i / 32] & (1 << (i % 32)) != 0 {
                continue;
            }
            let warp_base = i - i % 32;
            let mut members = [0usize; 32];
            let mut count = 0;
            let mut bits = mask;
            while bits != 0 {
                members[count] = warp_base + bits.trailing_zeros() as usize;
                count += 1;
                bits &= bits - 1;
            }
            let members = &members[..count];
            let all_here = members.iter().all(|&m| {
                m < n
                    && matches!(self.ctxs[m].state.get(),
                        State::Waiting { op: o, site: s }
                            if o.same_collective(&op) && same_site(s, site))
            });
            if !all_here || mask & (1 << (i % 32)) == 0 {
                // Diagnosed only when nothing else can move: a spinning
                // member, or one released this round, may still come.
                if diagnose && !spinning && stuck.is_none() {
                    stuck = Some((op, site, members.to_vec()));
                }
                continue;
            }
            let results = self.compute(&op, site, warp_base, members)?;
            if let Op::WarpSync { mask } = op {
                self.shared.borrow_mut().tile_sync(warp_base / 32, mask);
            }
            for (&m, &r) in members.iter().zip(&results[..count]) {
                self.ctxs[m].state.set(State::Ready(r));
            }
            handled[i / 32] |= mask;
            counts.collectives += 1;
            released = true;
        }
        if let (false, Some((op, site, members))) = (released, stuck) {
            let at_block_barrier = self.ctxs.iter().any(|c| {
                matches!(
                    c.state.get(),
                    State::Waiting {
                        op: Op::BlockSync { .. } | Op::GridSync | Op::ClusterSync | Op::BarrierWait,
                        ..
                    }
                )
            });
            if at_block_barrier {
                // A block collective (or barrier) called by part of the
                // block: its warp steps diverge where the block does.
                if let Some(stalled) = self.stalled_barrier() {
                    return Err(stalled);
                }
            }
            return Err(self.divergence(op, site, &members));
        }
        Ok(released)
    }

    /// Only threads at block barriers (or returned) remain: complete the
    /// barrier, or report why it never will. Threads that all wait at a
    /// grid or cluster sync stay there: the sync is returned, for the
    /// launch to complete it once every block of its group has arrived.
    fn resolve_barrier(
        &mut self,
        counts: &mut Counts,
    ) -> Result<Option<(Group, Site, &'static str)>, Violation> {
        if let Some(stalled) = self.stalled_barrier() {
            return Err(stalled);
        }
        if let Some(State::Waiting {
            op: op @ (Op::GridSync | Op::ClusterSync),
            site,
        }) = self.ctxs.first().map(|c| c.state.get())
        {
            let group = match op {
                Op::GridSync => Group::Grid,
                _ => Group::Cluster,
            };
            let call = lane::written_name(&self.ctxs[0], &op, site);
            return Ok(Some((group, site, call)));
        }
        for ctx in self.ctxs.iter() {
            ctx.state.set(State::Ready(0));
            ctx.block_atomic.set(false);
            ctx.block_acquired.set(false);
        }
        share_synchronization(&self.ctxs);
        self.shared.borrow_mut().barrier()?;
        counts.barriers += 1;
        Ok(None)
    }

    /// Why the block's barrier cannot complete, if it cannot: threads
    /// returned, or wait at different barriers. Threads stopped at a warp
    /// collective inside a block collective (its shuffles, at the same
    /// call site) are counted with the block collective, by its name.
    fn stalled_barrier(&self) -> Option<Violation> {
        // The common case, without building the arrivals: every thread
        // waits at the first one's block barrier.
        if let Some(State::Waiting {
            op: Op::BlockSync { .. },
            site,
        }) = self.ctxs.first().map(|c| c.state.get())
        {
            let all_there = self.ctxs.iter().all(|c| {
                matches!(c.state.get(), State::Waiting { site: s, .. } if core::ptr::eq(s, site))
            });
            if all_there {
                return None;
            }
        }
        let block_call = |site: Site| {
            self.ctxs
                .iter()
                .enumerate()
                .find_map(|(i, c)| match c.state.get() {
                    State::Waiting {
                        op: op @ Op::BlockSync { .. },
                        site: s,
                    } if s == site => Some(lane::written_name(&self.ctxs[i], &op, s)),
                    _ => None,
                })
        };
        let mut arrivals: Vec<Arrival> = Vec::new();
        let mut exited = Vec::new();
        for (i, ctx) in self.ctxs.iter().enumerate() {
            match ctx.state.get() {
                State::Waiting { op, site } => {
                    let name = block_call(site)
                        .unwrap_or_else(|| lane::written_name(&self.ctxs[i], &op, site));
                    add_arrival(&mut arrivals, name, Some(site), i)
                }
                State::Done => exited.push(i as u32),
                State::Spinning { site, .. } => {
                    add_arrival(&mut arrivals, spinning_name(ctx, site), Some(site), i)
                }
                State::Ready(_) => unreachable!("barriers resolve when no thread runs"),
            }
        }
        if !exited.is_empty() {
            return Some(Violation::BarrierNotReached {
                waiting: arrivals,
                exited: Threads::new(exited),
            });
        }
        if arrivals.len() > 1 {
            return Some(Violation::DivergentBarriers { waiting: arrivals });
        }
        None
    }

    /// The results of a warp collective for each member, in member order.
    fn compute(
        &self,
        op: &Op,
        site: Site,
        warp_base: usize,
        members: &[usize],
    ) -> Result<[u64; 32], Violation> {
        let operand = |m: usize| match self.ctxs[m].state.get() {
            State::Waiting { op, .. } => op,
            _ => unreachable!("members are waiting"),
        };
        let lane_of = |m: usize| (m - warp_base) as u32;
        Ok(match *op {
            Op::BlockSync { .. }
            | Op::GridSync
            | Op::BarrierWait
            | Op::ClusterSync
            | Op::ActiveMask
            | Op::TileBarrier { .. } => unreachable!("not completed here"),
            Op::WarpSync { .. } => [0; 32],
            Op::Shfl { mode, mask, .. } => {
                let mut out = [0u64; 32];
                for (k, &m) in members.iter().enumerate() {
                    let Op::Shfl { b, c, .. } = operand(m) else {
                        unreachable!()
                    };
                    let src = shfl_source(mode, lane_of(m), b, c);
                    if mask & (1 << src) == 0 {
                        return Err(Violation::ReadOutsideGroup {
                            call: lane::written_name(&self.ctxs[m], op, site),
                            thread: m as u32,
                            source: warp_base as u32 + src,
                            site,
                        });
                    }
                    let Op::Shfl { value, .. } = operand(warp_base + src as usize) else {
                        unreachable!()
                    };
                    out[k] = value as u64;
                }
                out
            }
            Op::Vote { kind, mask, .. } => {
                let ballot = lanes_where(mask, |l| {
                    matches!(
                        operand(warp_base + l as usize),
                        Op::Vote {
                            predicate: true,
                            ..
                        }
                    )
                });
                let r = match kind {
                    VoteKind::Ballot => ballot as u64,
                    VoteKind::Any => (ballot != 0) as u64,
                    VoteKind::All => (ballot == mask) as u64,
                };
                [r; 32]
            }
            Op::Redux { op, mask, .. } => {
                let value_of = |l: u32| match operand(warp_base + l as usize) {
                    Op::Redux { value, .. } => value,
                    _ => unreachable!(),
                };
                let total = (0..32u32)
                    .filter(|l| mask & (1 << l) != 0)
                    .map(value_of)
                    .reduce(|a, b| op.apply(a, b))
                    .expect("the group holds the caller");
                [total as u64; 32]
            }
            Op::Match { all, mask, .. } => {
                let value_of = |l: u32| match operand(warp_base + l as usize) {
                    Op::Match { value, .. } => value,
                    _ => unreachable!(),
                };
                if all {
                    let first = value_of(lane_of(members[0]));
                    let same = members.iter().all(|&m| value_of(lane_of(m)) == first);
                    let r = if same { mask as u64 | 1 << 32 } else { 0 };
                    [r; 32]
                } else {
                    let mut out = [0u64; 32];
                    for (k, &m) in members.iter().enumerate() {
                        let mine = value_of(lane_of(m));
                        out[k] = lanes_where(mask, |l| value_of(l) == mine) as u64;
                    }
                    out
                }
            }
        })
    }

    /// Why the collective `op` at `site` of group `members` can never
    /// complete: where each member is instead.
    fn divergence(&self, op: Op, site: Site, members: &[usize]) -> Violation {
        let mut arrivals: Vec<Arrival> = Vec::new();
        let mut missing = Vec::new();
        for &m in members {
            match self.ctxs.get(m).map(|c| c.state.get()) {
                None => missing.push(m as u32),
                Some(State::Waiting { op: o, site: s }) => {
                    let name = if o.same_collective(&op) || o.name() != op.name() {
                        lane::written_name(&self.ctxs[m], &o, s)
                    } else {
                        // Same method, other mask: another tile's collective.
                        "a collective of another tile"
                    };
                    add_arrival(&mut arrivals, name, Some(s), m)
                }
                Some(State::Done) => {
                    add_arrival(&mut arrivals, "returned from the kernel", None, m)
                }
                Some(State::Spinning { site, .. }) => add_arrival(
                    &mut arrivals,
                    spinning_name(&self.ctxs[m], site),
                    Some(site),
                    m,
                ),
                Some(State::Ready(_)) => unreachable!("resolve runs when no thread is ready"),
            }
        }
        // The name the kernel wrote at `site`, as one of the members saw it.
        let call = members
            .iter()
            .filter_map(|&m| self.ctxs.get(m))
            .map(|ctx| lane::written_name(ctx, &op, site))
            .find(|&name| name != op.name())
            .unwrap_or(op.name());
        Violation::DivergentCollective {
            call,
            site,
            group: Threads::new(members.iter().map(|&m| m as u32).collect()),
            arrivals,
            missing: Threads::new(missing),
        }
    }
}

/// What [`Block::resume_spinners`] did.
enum Spin {
    /// No thread spins.
    None,
    /// The spinning threads poll again.
    Resumed,
    /// (Cooperative launches.) The spinning threads wait for other blocks:
    /// `stuck` once they reached the spin limit.
    Blocked { stuck: bool },
}

fn add_arrival(arrivals: &mut Vec<Arrival>, call: &'static str, site: Option<Site>, thread: usize) {
    match arrivals
        .iter_mut()
        .find(|a| a.call == call && a.site == site)
    {
        Some(a) => a.threads.push(thread as u32),
        None => arrivals.push(Arrival {
            threads: Threads::new(vec![thread as u32]),
            call,
            site,
            callers: Vec::new(),
        }),
    }
}

/// How a spinning thread's place is named in a diagnostic.
const SPINNING: &str = "a read in a loop";

/// The name of the place where the thread of `ctx` spins at `site`: the
/// call the kernel wrote there when that call waits in a loop (a
/// pipeline's `next` or `load`, which wait on an mbarrier), a read in a
/// loop otherwise.
fn spinning_name(ctx: &LaneCtx, site: Site) -> &'static str {
    match ctx.named.get() {
        Some((s, call)) if same_site(s, site) => call,
        _ => SPINNING,
    }
}

/// Whether two call sites are one: the same `Location` (almost always the
/// same static), or equal ones.
fn same_site(a: Site, b: Site) -> bool {
    core::ptr::eq(a, b) || a == b
}

/// The index and length of Rust's slice-index panic ("index out of bounds:
/// the len is 4 but the index is 7").
fn slice_index(message: &str) -> Option<(usize, usize)> {
    let rest = message.strip_prefix("index out of bounds: the len is ")?;
    let (len, index) = rest.split_once(" but the index is ")?;
    Some((index.trim().parse().ok()?, len.trim().parse().ok()?))
}

/// The current lane's context, from inside its coroutine.
fn lane_ctx() -> &'static LaneCtx {
    lane::current_ctx()
}

/// A block barrier orders every thread of the block after what any of
/// them had synchronized with (causality is transitive through it): each
/// thread's later reads follow another block's release as far as the
/// thread that acquired it does.
fn share_synchronization(ctxs: &[LaneCtx]) {
    let holds =
        |c: &LaneCtx| c.ordered.get() || c.sync.borrow().as_ref().is_some_and(|s| !s.is_empty());
    if !ctxs.iter().any(holds) {
        return;
    }
    let mut all = SyncView::default();
    let mut ordered = false;
    for c in ctxs {
        let s = c.sync.borrow();
        let Some(s) = s.as_ref() else {
            ordered |= c.ordered.get();
            continue;
        };
        happens_before::join(&mut all.knows, &s.knows);
        happens_before::join(&mut all.pending, &s.pending);
        all.observed_at = all.observed_at.or(s.observed_at);
        all.link = all.link.or(s.link);
        ordered |= c.ordered.get();
    }
    for c in ctxs {
        *c.sync.borrow_mut() = Some(Box::new(all.clone()));
        if ordered {
            c.ordered.set(true);
        }
    }
}
