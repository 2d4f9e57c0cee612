//! The emulated thread being run, and what it asks of its scheduler.

use super::shared_state::BlockShared;
use crate::backend::{Redux, Site};
use crate::cpu::diagnostics::Violation;
use crate::cpu::report::AccessKind;
use crate::Dim3;
use core::cell::Cell;
use core::cell::RefCell;
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
            Op::BlockSync { .. } => None,
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

/// What a suspended thread asks of the scheduler.
#[derive(Debug)]
pub(crate) enum Request {
    /// Wait for the rest of the group, then resume with the result.
    Collective { op: Op, site: Site },
    /// The thread made a tile whose parent does not split evenly.
    PartialTile {
        size: u32,
        parent_size: u32,
        site: Site,
    },
    /// The thread used up its step budget.
    OutOfSteps { steps: u64, site: Site },
    /// The thread broke a rule that stops the launch.
    Stop(Box<Violation>),
}

pub(crate) type LaneYielder = Yielder<u64, Request>;

/// The context of one emulated thread.
pub(crate) struct LaneCtx {
    pub info: LaneInfo,
    /// The block's scratch, shared by all its threads.
    pub scratch: *mut u8,
    /// The block's shared arrays and their race detector.
    pub shared: *const RefCell<BlockShared>,
    pub yielder: Cell<*const LaneYielder>,
    pub steps: Cell<u64>,
    pub budget: u64,
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

fn current() -> &'static LaneCtx {
    let ptr = CURRENT.with(|c| c.get());
    if ptr.is_null() {
        outside_kernel()
    }
    // SAFETY: set by the scheduler to a context that outlives the resume
    // during which the lane runs.
    unsafe { &*ptr }
}

/// Counts one step of the current lane and reads its context.
#[track_caller]
pub(crate) fn step<R>(site: Site, read: impl FnOnce(&LaneInfo) -> R) -> R {
    read(&count_step(site).info)
}

/// Counts one step of the current lane, stopping it when its budget is
/// spent; returns its context.
fn count_step(site: Site) -> &'static LaneCtx {
    let ctx = current();
    let steps = ctx.steps.get() + 1;
    ctx.steps.set(steps);
    if steps > ctx.budget {
        abort(Request::OutOfSteps { steps, site });
    }
    ctx
}

fn suspend(request: Request) -> u64 {
    let ctx = current();
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
/// launch.
pub(crate) fn shared_access(region: u32, index: u32, kind: AccessKind, site: Site) {
    let rank = count_step(site).info.rank;
    let checked = block_shared(|s| s.access(region, index, kind, rank, site));
    if let Err(violation) = checked {
        abort(Request::Stop(Box::new(violation)));
    }
}

/// Suspends the current lane at a collective; returns its result.
pub(crate) fn collective(op: Op, site: Site) -> u64 {
    count_step(site);
    suspend(Request::Collective { op, site })
}

/// Reports a broken rule; the scheduler ends the launch and never resumes
/// this lane.
pub(crate) fn abort(request: Request) -> ! {
    suspend(request);
    unreachable!("the CPU backend resumed a lane it had stopped")
}
