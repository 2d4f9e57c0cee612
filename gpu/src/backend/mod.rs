//! The backend contract: every operation a handle method needs from a
//! target, and the two targets that provide it.
//!
//! ```text
//!  handles (ThreadBlock, TiledPartition, Grid, Shared, fences, reductions)
//!      │  call  Target::op(.., site)
//!      ▼
//!  backend::Backend = Registers + Barriers + WarpCollectives + Scratch
//!                     + SharedMemory + Fences + Faults          (this module)
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
//! precondition, and what the CPU backend computes. [`Target`] is the
//! target being compiled; it is the only place outside the two backends
//! (and the `#[kernel]` entry point) that looks at `target_arch`.
//!
//! Every operation takes the [`Site`] of the handle method's caller: the
//! PTX backend ignores it (nothing of it remains after inlining), the CPU
//! backend names it in its diagnostics.

mod barriers;
mod faults;
mod fences;
mod registers;
mod scratch;
mod shared_memory;
mod warp_collectives;

pub(crate) use barriers::Barriers;
pub(crate) use faults::Faults;
pub(crate) use fences::{FenceScope, Fences};
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
    Registers + Barriers + WarpCollectives + Scratch + SharedMemory + Fences + Faults
{
}

impl<T> Backend for T where
    T: Registers + Barriers + WarpCollectives + Scratch + SharedMemory + Fences + Faults
{
}

/// The target being compiled: PTX on `nvptx64`, the CPU backend elsewhere.
#[cfg(target_arch = "nvptx64")]
pub(crate) type Target = crate::ptx::Ptx;
/// The target being compiled: PTX on `nvptx64`, the CPU backend elsewhere.
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) type Target = crate::cpu::Cpu;

/// Where the target keeps a shared array.
pub(crate) type SharedBase = <Target as SharedMemory>::Base;

const _: fn() = || {
    fn implements_everything<B: Backend>() {}
    implements_everything::<Target>();
};

/// What `#[kernel]` expands to for a static shared array, as the target
/// does it: `coop_declare_static_shared!(symbol, A)` declares the array (an
/// item), `coop_bind_static_shared!(symbol, key, name, A)` binds it (an
/// expression, once per thread) through `static_shared_array`.
#[cfg(not(target_arch = "nvptx64"))]
pub use crate::{
    __coop_bind_static_shared_cpu as coop_bind_static_shared,
    __coop_declare_static_shared_cpu as coop_declare_static_shared,
    cpu::ops::shared_memory::static_shared_array,
};
/// What `#[kernel]` expands to for a static shared array, as the target
/// does it: `coop_declare_static_shared!(symbol, A)` declares the array (an
/// item), `coop_bind_static_shared!(symbol, key, name, A)` binds it (an
/// expression, once per thread) through `static_shared_array`.
#[cfg(target_arch = "nvptx64")]
pub use crate::{
    __coop_bind_static_shared_ptx as coop_bind_static_shared,
    __coop_declare_static_shared_ptx as coop_declare_static_shared,
    ptx::shared_memory::static_shared_array,
};
