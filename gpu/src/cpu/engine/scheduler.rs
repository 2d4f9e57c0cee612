//! Runs one thread block: every thread is a coroutine, run in rank order
//! until it reaches a collective or returns; then the collectives whose
//! whole group has arrived are resolved, or the rule that stops them from
//! ever completing is reported. The order never depends on the host's
//! thread scheduling, so a launch is deterministic.

use super::lane::{self, LaneCtx, LaneInfo, Op, Request, VoteKind};
use super::panics::Capture;
use super::semantics::{lanes_where, shfl_source};
use super::shared_state::{BlockShared, SiteTotals};
use crate::backend::Site;
use crate::cpu::diagnostics::{Arrival, Threads, Violation};
use crate::Dim3;
use core::cell::{Cell, RefCell};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult};
use std::panic::{catch_unwind, AssertUnwindSafe};

type LaneCoroutine = Coroutine<u64, Request, (), DefaultStack>;

/// Coroutine stacks, reused across blocks and launches.
pub(crate) struct Stacks {
    pool: Vec<DefaultStack>,
    size: usize,
}

impl Stacks {
    pub fn new(size: usize) -> Self {
        Stacks {
            pool: Vec::new(),
            size,
        }
    }

    fn take(&mut self) -> Result<DefaultStack, Violation> {
        match self.pool.pop() {
            Some(stack) => Ok(stack),
            None => DefaultStack::new(self.size).map_err(|e| Violation::Resources {
                what: format!("a {} KiB coroutine stack: {e}", self.size / 1024),
            }),
        }
    }
}

/// Counters of one launch.
#[derive(Debug, Default)]
pub(crate) struct Counts {
    pub collectives: u64,
    pub barriers: u64,
    pub steps: u64,
    /// Shared-memory requests and transactions per access site.
    pub shared: SiteTotals,
}

/// The shape of the launch and which block this is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geometry {
    pub block: Dim3,
    pub block_dim: Dim3,
    pub grid_dim: Dim3,
    /// Dynamic shared memory per block, in bytes.
    pub dynamic_shared: u32,
}

#[derive(Clone, Copy, Debug)]
enum State {
    Ready(u64),
    Waiting { op: Op, site: Site },
    Done,
}

struct Lane {
    ctx: Box<LaneCtx>,
    co: Option<LaneCoroutine>,
    state: State,
}

struct Block<'a> {
    lanes: Vec<Lane>,
    /// Keeps the block's scratch alive (the lanes hold pointers into it).
    _scratch: Box<[u128]>,
    shared: &'a RefCell<BlockShared>,
    stacks: &'a mut Stacks,
    body: &'a dyn Fn(),
    /// Records where a thread panics while the block runs.
    panics: Capture,
}

impl Drop for Block<'_> {
    /// Unwinds the threads a broken rule left suspended, running their
    /// destructors, and keeps their stacks.
    fn drop(&mut self) {
        for lane in &mut self.lanes {
            if let Some(mut co) = lane.co.take() {
                lane::enter(&lane.ctx);
                let _ = catch_unwind(AssertUnwindSafe(|| co.force_unwind()));
                lane::leave();
                if co.done() {
                    self.stacks.pool.push(co.into_stack());
                }
            }
        }
    }
}

/// Runs block `geometry.block` of a launch to its end.
pub(crate) fn run_block(
    geometry: Geometry,
    body: &dyn Fn(),
    budget: u64,
    stacks: &mut Stacks,
    counts: &mut Counts,
) -> Result<(), Violation> {
    let d = geometry.block_dim;
    let threads = d.volume() as u32;
    // Uninitialised on the GPU; zeroed here, which is one of its possible
    // contents.
    let mut scratch =
        vec![0u128; crate::backend::BLOCK_SCRATCH_BYTES.div_ceil(16)].into_boxed_slice();
    let scratch_ptr = scratch.as_mut_ptr() as *mut u8;
    let shared = RefCell::new(BlockShared::new(threads, geometry.dynamic_shared));
    let lanes = (0..threads)
        .map(|rank| {
            let thread = Dim3::new(rank % d.x, (rank / d.x) % d.y, rank / (d.x * d.y));
            Lane {
                ctx: Box::new(LaneCtx {
                    info: LaneInfo {
                        thread,
                        block: geometry.block,
                        block_dim: d,
                        grid_dim: geometry.grid_dim,
                        rank,
                        dynamic_shared: geometry.dynamic_shared,
                    },
                    scratch: scratch_ptr,
                    shared: &shared,
                    yielder: Cell::new(core::ptr::null()),
                    steps: Cell::new(0),
                    budget,
                }),
                co: None,
                state: State::Ready(0),
            }
        })
        .collect();
    let mut block = Block {
        lanes,
        _scratch: scratch,
        shared: &shared,
        stacks,
        body,
        panics: Capture::start(),
    };
    let result = block.run(counts);
    counts.steps += block.lanes.iter().map(|l| l.ctx.steps.get()).sum::<u64>();
    drop(block);
    shared.into_inner().finish(&mut counts.shared);
    result
}

impl Block<'_> {
    fn run(&mut self, counts: &mut Counts) -> Result<(), Violation> {
        loop {
            for i in 0..self.lanes.len() {
                if let State::Ready(value) = self.lanes[i].state {
                    self.resume(i, value)?;
                }
            }
            if self.lanes.iter().all(|l| matches!(l.state, State::Done)) {
                return Ok(());
            }
            self.resolve(counts)?;
        }
    }

    /// Runs thread `i` until it reaches a collective or returns.
    fn resume(&mut self, i: usize, value: u64) -> Result<(), Violation> {
        let rank = i as u32;
        if self.lanes[i].co.is_none() {
            let stack = self.stacks.take()?;
            let body: *const dyn Fn() = self.body;
            // SAFETY: `body` outlives the coroutine: `Block` is dropped (and
            // every unfinished coroutine unwound) before `run_block` returns.
            let co = unsafe {
                LaneCoroutine::with_stack_unchecked(stack, move |yielder, _| {
                    let ctx = lane_ctx();
                    ctx.yielder.set(yielder);
                    (*body)();
                })
            };
            self.lanes[i].co = Some(co);
        }
        let lane = &mut self.lanes[i];
        let co = lane.co.as_mut().expect("created above");
        lane::enter(&lane.ctx);
        let result = catch_unwind(AssertUnwindSafe(|| co.resume(value)));
        lane::leave();
        match result {
            Ok(CoroutineResult::Yield(Request::Collective { op, site })) => {
                lane.state = State::Waiting { op, site };
                Ok(())
            }
            Ok(CoroutineResult::Yield(Request::PartialTile {
                size,
                parent_size,
                site,
            })) => Err(Violation::PartialTile {
                tile_size: size,
                parent_size,
                thread: rank,
                site,
            }),
            Ok(CoroutineResult::Yield(Request::OutOfSteps { steps, site })) => {
                Err(Violation::OutOfSteps {
                    thread: rank,
                    steps: steps - 1,
                    site,
                })
            }
            Ok(CoroutineResult::Yield(Request::Stop(violation))) => Err(*violation),
            Ok(CoroutineResult::Return(())) => {
                lane.state = State::Done;
                let co = lane.co.take().expect("finished coroutine");
                self.stacks.pool.push(co.into_stack());
                Ok(())
            }
            Err(payload) => {
                lane.state = State::Done;
                lane.co = None;
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "(a panic without a message)".into());
                Err(Violation::Panic {
                    thread: rank,
                    message,
                    location: self.panics.take(),
                })
            }
        }
    }

    /// Every thread has stopped: complete the collectives whose groups have
    /// all arrived, or report why they never will.
    fn resolve(&mut self, counts: &mut Counts) -> Result<(), Violation> {
        let n = self.lanes.len();
        let mut handled = vec![false; n];
        let mut released = false;
        for i in 0..n {
            let State::Waiting { op, site } = self.lanes[i].state else {
                continue;
            };
            let Some(mask) = op.warp_mask() else { continue };
            if handled[i] {
                continue;
            }
            let warp_base = i - i % 32;
            let members: Vec<usize> = (0..32usize)
                .filter(|l| mask & (1 << l) != 0)
                .map(|l| warp_base + l)
                .collect();
            let all_here = members.iter().all(|&m| {
                m < n
                    && matches!(self.lanes[m].state,
                        State::Waiting { op: o, site: s } if o.same_collective(&op) && s == site)
            });
            if !all_here || mask & (1 << (i % 32)) == 0 {
                return Err(self.divergence(op, site, &members));
            }
            let results = self.compute(&op, site, warp_base, &members)?;
            if let Op::WarpSync { mask } = op {
                self.shared.borrow_mut().tile_sync(warp_base / 32, mask);
            }
            for (&m, r) in members.iter().zip(results) {
                self.lanes[m].state = State::Ready(r);
                handled[m] = true;
            }
            counts.collectives += 1;
            released = true;
        }
        if released {
            return Ok(());
        }

        // Only block barriers remain.
        let mut arrivals: Vec<Arrival> = Vec::new();
        let mut exited = Vec::new();
        for (i, lane) in self.lanes.iter().enumerate() {
            match lane.state {
                State::Waiting { op, site } => add_arrival(&mut arrivals, op.name(), Some(site), i),
                State::Done => exited.push(i as u32),
                State::Ready(_) => unreachable!("resolve runs when no thread is ready"),
            }
        }
        if !exited.is_empty() {
            return Err(Violation::BarrierNotReached {
                waiting: arrivals,
                exited: Threads::new(exited),
            });
        }
        if arrivals.len() > 1 {
            return Err(Violation::DivergentBarriers { waiting: arrivals });
        }
        for lane in &mut self.lanes {
            lane.state = State::Ready(0);
        }
        self.shared.borrow_mut().barrier();
        counts.barriers += 1;
        Ok(())
    }

    /// The results of a warp collective for each member, in member order.
    fn compute(
        &self,
        op: &Op,
        site: Site,
        warp_base: usize,
        members: &[usize],
    ) -> Result<Vec<u64>, Violation> {
        let operand = |m: usize| match self.lanes[m].state {
            State::Waiting { op, .. } => op,
            _ => unreachable!("members are waiting"),
        };
        let lane_of = |m: usize| (m - warp_base) as u32;
        Ok(match *op {
            Op::BlockSync { .. } => unreachable!("not a warp collective"),
            Op::WarpSync { .. } => vec![0; members.len()],
            Op::Shfl { mode, mask, .. } => {
                let mut out = Vec::with_capacity(members.len());
                for &m in members {
                    let Op::Shfl { b, c, .. } = operand(m) else {
                        unreachable!()
                    };
                    let src = shfl_source(mode, lane_of(m), b, c);
                    if mask & (1 << src) == 0 {
                        return Err(Violation::ReadOutsideGroup {
                            call: op.name(),
                            thread: m as u32,
                            source: warp_base as u32 + src,
                            site,
                        });
                    }
                    let Op::Shfl { value, .. } = operand(warp_base + src as usize) else {
                        unreachable!()
                    };
                    out.push(value as u64);
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
                vec![r; members.len()]
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
                vec![total as u64; members.len()]
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
                    vec![r; members.len()]
                } else {
                    members
                        .iter()
                        .map(|&m| {
                            let mine = value_of(lane_of(m));
                            lanes_where(mask, |l| value_of(l) == mine) as u64
                        })
                        .collect()
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
            match self.lanes.get(m).map(|l| l.state) {
                None => missing.push(m as u32),
                Some(State::Waiting { op: o, site: s }) => {
                    let name = if o.same_collective(&op) || o.name() != op.name() {
                        o.name()
                    } else {
                        // Same method, other mask: another tile's collective.
                        "a collective of another tile"
                    };
                    add_arrival(&mut arrivals, name, Some(s), m)
                }
                Some(State::Done) => {
                    add_arrival(&mut arrivals, "returned from the kernel", None, m)
                }
                Some(State::Ready(_)) => unreachable!("resolve runs when no thread is ready"),
            }
        }
        Violation::DivergentCollective {
            call: op.name(),
            site,
            group: Threads::new(members.iter().map(|&m| m as u32).collect()),
            arrivals,
            missing: Threads::new(missing),
        }
    }
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
        }),
    }
}

/// The current lane's context, from inside its coroutine.
fn lane_ctx() -> &'static LaneCtx {
    lane::current_ctx()
}
