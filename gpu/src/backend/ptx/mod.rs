//! The PTX backend: every operation of the [backend contract](crate::backend)
//! as the PTX instruction it names, through `llvm.nvvm.*` intrinsics (which
//! LLVM marks `convergent`) or inline `asm!` where no intrinsic exists.
//! Every function is `#[inline(always)]`, so that a handle method costs
//! exactly its instruction.
//!
//! One file per concept, as in the contract: `registers`, `barriers`,
//! `warp_collectives`, `scratch`, `shared_memory`, `fences`, `faults` (the
//! trap and the panic handler). Every instruction emitted here stays correct
//! when the compiler copies it into two paths (see `docs/architecture.md`,
//! "Convergence"); the PTX builder refuses PTX that holds one that would
//! not.

mod async_copies;
mod atomics;
mod barriers;
mod faults;
mod fences;
mod float_units;
mod global_memory;
mod naming;
mod registers;
mod scratch;
pub(crate) mod shared_memory;
mod warp_collectives;

/// The PTX target of the backend contract.
pub(crate) struct Ptx;
