//! The CPU backend: runs `#[kernel]` functions on the host, thread by
//! thread, with the semantics of the GPU's instructions, and reports the
//! rules of the model a kernel breaks instead of hanging.
//!
//! Every kernel thread runs as a coroutine. A block's threads run warp by
//! warp, each until it reaches a collective (a barrier, shuffle, vote or
//! match) or returns; collectives whose whole group has arrived are then
//! completed with the result the hardware gives, and the threads go on.
//! When a collective can never complete (a thread returned before a
//! barrier, two halves of a tile wait at different shuffles) the launch
//! stops with an [`EmulationError`] naming the kernel, the block, the
//! threads and the `file:line` of each call. Every shared and global
//! access is checked for races against happens-before (barriers), every
//! parameter index for bounds, and spins are found when nothing can change
//! what they wait for. Blocks run on the host's cores, and what each did
//! to global memory is merged in block order, so the same launch gives the
//! same results and the same first diagnostic every time.
//!
//! Launch kernels on the CPU through `coop_host::Cpu` (or
//! `coop_host::Device`), which checks argument types like a GPU launch;
//! [`Emulator`] holds the backend's settings and launches underneath.
//!
//! Its layers, each using only those below it:
//!
//! ```text
//!  launch      Emulator: settings, runs a grid's blocks on the host's
//!              cores and merges their global-memory records in order
//!  ops         the backend contract (crate::backend) for handle methods:
//!              each operation reads the current thread's context or
//!              suspends it with a request
//!  engine      lane (the running thread's context, requests), scheduler
//!              (a block's coroutines, completing collectives), semantics
//!              (what each warp instruction returns), races
//!              (happens-before), shared_state (the block's shared arrays,
//!              race detector, bank model), global_state (buffers by name,
//!              races within and across blocks)
//!  report,     what a launch returns: counts and shared-memory traffic,
//!  diagnostics and the broken rule with its threads and sites
//! ```
//!
//! It lives in the kernel crate, not a crate of its own, because the
//! handle methods call it directly through the backend contract, with the
//! crate's own types (shared bases, element shapes, sites) that a separate
//! crate would need as public API.

mod diagnostics;
pub(crate) mod engine;
mod launch;
pub(crate) mod ops;
mod report;

pub use diagnostics::{
    AfterArrival, Arrival, BlockArrival, EmulationError, GlobalAccess, PanicLocation, SyncGap,
    Threads, Violation,
};
pub use launch::Emulator;
pub use report::{AccessKind, Report, SharedAccess, SharedSite, Site};

/// The CPU target of the backend contract.
pub(crate) struct Cpu;
