//! The backend contract: every operation a handle method needs from a
//! target, and the two targets that provide it.
//!
//! ```text
//!  handles (ThreadBlock, TiledPartition, Grid, Shared, fences, atomics, reductions)
//!      │  call  Target::op(.., site)            (Target: crate::target)
//!      ▼
//!  backend::Backend = Registers + Barriers + WarpCollectives + Scratch
//!                     + SharedMemory + Fences + Faults + Atomics + FloatUnits
//!                     + GlobalMemory
//!                                                               (this module)
//!      │
//!      ├── crate::ptx::Ptx   on nvptx64: one PTX instruction per operation
//!      └── crate::cpu::Cpu   elsewhere: the CPU backend, which runs kernel
//!                            threads as coroutines and checks every rule
//! ```
//!
//! Each concept is one trait, in a file of its own (`registers.rs`,
//! `barriers.rs`, ...), and each target implements it in a file of the same
//! name (`ptx/barriers.rs`, `cpu/ops/barriers.rs`). The trait's docs say,
//! for every operation, the PTX it lowers to, its operands, the caller's
//! precondition, and what the CPU backend computes. This module names no
//! target: `crate::target` picks the one being compiled.
//!
//! Every operation takes the [`Site`] of the handle method's caller: the
//! PTX backend ignores it (nothing of it remains after inlining), the CPU
//! backend names it in its diagnostics.

mod atomics;
mod barriers;
mod faults;
mod fences;
mod float_units;
mod global_memory;
mod registers;
mod scratch;
mod shared_memory;
mod warp_collectives;

pub(crate) use atomics::{Atomics, Rmw, Word};
pub use atomics::{Ordering, Scope};
pub(crate) use barriers::Barriers;
pub(crate) use faults::Faults;
pub(crate) use fences::{FenceScope, Fences};
pub(crate) use float_units::{FloatUnits, ToInteger};
pub(crate) use global_memory::{GlobalAccess, GlobalMemory};
pub(crate) use registers::Registers;
pub(crate) use scratch::{Scratch, BLOCK_SCRATCH_BYTES};
pub(crate) use shared_memory::{ElemShape, SharedMemory};
pub use warp_collectives::Redux;
pub(crate) use warp_collectives::WarpCollectives;

/// Where in the kernel's source a handle method was called. Every handle
/// method is `#[track_caller]` and passes its caller's location down.
pub(crate) type Site = &'static core::panic::Location<'static>;

/// The calling handle method's caller.
macro_rules! site {
    () => {
        core::panic::Location::caller()
    };
}
pub(crate) use site;

/// Everything a target provides.
pub(crate) trait Backend:
    Registers
    + Barriers
    + WarpCollectives
    + Scratch
    + SharedMemory
    + Fences
    + Faults
    + Atomics
    + FloatUnits
    + GlobalMemory
{
}

impl<T> Backend for T where
    T: Registers
        + Barriers
        + WarpCollectives
        + Scratch
        + SharedMemory
        + Fences
        + Faults
        + Atomics
        + FloatUnits
        + GlobalMemory
{
}
