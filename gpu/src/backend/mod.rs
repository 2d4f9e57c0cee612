//! The backend contract: every operation a handle method needs from a
//! target, and the two targets that provide it.
//!
//! ```text
//!  handles (ThreadBlock, TiledPartition, Grid, Shared, fences, atomics, reductions)
//!      │  call  Target::op(.., site)            (Target: crate::backend::target)
//!      ▼
//!  backend::Backend = Registers + Barriers + AsyncCopies + WarpCollectives + Scratch
//!                     + SharedMemory + Fences + Faults + Atomics + FloatUnits
//!                     + GlobalMemory + Naming
//!                                                               (this module)
//!      │
//!      ├── crate::backend::ptx::Ptx   on nvptx64: one PTX instruction per operation
//!      └── crate::backend::cpu::Cpu   elsewhere: the CPU backend, which runs kernel
//!                            threads as coroutines and checks every rule
//! ```
//!
//! Each concept is one trait, in a file of its own (`registers.rs`,
//! `barriers.rs`, ...), and each target implements it in a file of the same
//! name (`ptx/barriers.rs`, `cpu/ops/barriers.rs`). The trait's docs say,
//! for every operation, the PTX it lowers to, its operands, the caller's
//! precondition, and what the CPU backend computes. The contract names no
//! target: [`target`] picks the one being compiled.
//!
//! The folder holds the contract and both targets, one direction only:
//!
//! ```text
//!  backend/*.rs      the contract (one trait a concept) and elements.rs,
//!                    the values shared memory holds
//!  backend/target.rs which target is compiled: ptx on nvptx64, cpu elsewhere
//!  backend/ptx/      the PTX target                  → the contract
//!  backend/cpu/      the CPU backend (`coop::cpu`)   → the contract, crate::kernel,
//!                    crate::dim (its launcher runs a kernel's lanes)
//! ```
//!
//! Every operation takes the [`Site`] of the handle method's caller: the
//! PTX backend ignores it (nothing of it remains after inlining), the CPU
//! backend names it in its diagnostics.

pub(crate) mod async_copies;
mod atomics;
mod barriers;
#[cfg(not(target_arch = "nvptx64"))]
pub mod cpu;
pub(crate) mod elements;
mod faults;
mod fences;
mod float_units;
mod global_memory;
mod naming;
#[cfg(target_arch = "nvptx64")]
mod ptx;
mod registers;
mod scratch;
mod shared_memory;
pub(crate) mod target;
mod warp_collectives;

pub(crate) use async_copies::AsyncCopies;
pub(crate) use atomics::{Atomics, Rmw, Word};
pub use atomics::{Ordering, Scope};
pub(crate) use barriers::Barriers;
pub(crate) use faults::Faults;
pub(crate) use fences::{FenceScope, Fences};
pub(crate) use float_units::{FloatUnits, ToInteger};
pub(crate) use global_memory::{AtomicOp, GlobalAccess, GlobalMemory};
pub(crate) use naming::Naming;
pub(crate) use registers::Registers;
pub(crate) use scratch::{BLOCK_SCRATCH_BYTES, Scratch};
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
    + AsyncCopies
    + WarpCollectives
    + Scratch
    + SharedMemory
    + Fences
    + Faults
    + Atomics
    + FloatUnits
    + GlobalMemory
    + Naming
{
}

impl<T> Backend for T where
    T: Registers
        + Barriers
        + AsyncCopies
        + WarpCollectives
        + Scratch
        + SharedMemory
        + Fences
        + Faults
        + Atomics
        + FloatUnits
        + GlobalMemory
        + Naming
{
}
