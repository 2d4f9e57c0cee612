//! The one place where the kernel-side API meets a target.
//!
//! Every handle method is written once against the functions re-exported
//! here; each target supplies them in its own module:
//!
//! * [`nvptx`](self): PTX special registers and `llvm.nvvm.*` intrinsics, which
//!   LLVM marks `convergent` so that no optimisation moves a collective across
//!   control flow;
//! * `host`: the host build of a kernel crate (descriptors, `cargo check`,
//!   docs). Kernel bodies only run on the host inside a launch of the CPU
//!   backend; a call from anywhere else is a usage error reported by name.
//!
//! Shuffle and match primitives take 32-bit words; wider values are split by
//! [`Shuffle`](crate::Shuffle) and [`MatchKey`](crate::MatchKey).

/// Where in the kernel's source a handle method was called. Every handle
/// method is `#[track_caller]` and passes its caller's location down; the
/// GPU backend ignores it (it costs nothing after inlining), the CPU backend
/// names it in its diagnostics.
pub(crate) type Site = &'static core::panic::Location<'static>;

/// The calling handle method's caller.
macro_rules! site {
    () => {
        core::panic::Location::caller()
    };
}
pub(crate) use site;

/// Bytes of block-shared scratch that block-level collectives use (see
/// `reduce::block`).
pub(crate) const BLOCK_SCRATCH_BYTES: usize = crate::reduce::SCRATCH_BYTES;

/// A shared array's element size and row length (0 for 1-D), which the CPU
/// backend names elements by.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
pub(crate) struct ElemShape {
    pub size: u32,
    pub cols: u32,
}

/// The scope a memory fence orders writes for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FenceScope {
    Block,
    Device,
    System,
}

/// The reductions `redux.sync` performs on 32-bit integers (sm_80 and
/// later).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum Redux {
    Add,
    MinSigned,
    MaxSigned,
    MinUnsigned,
    MaxUnsigned,
    And,
    Or,
    Xor,
}

impl Redux {
    /// What the instruction computes, for the CPU backend.
    #[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
    pub(crate) fn apply(self, a: u32, b: u32) -> u32 {
        match self {
            Redux::Add => a.wrapping_add(b),
            Redux::MinSigned => (a as i32).min(b as i32) as u32,
            Redux::MaxSigned => (a as i32).max(b as i32) as u32,
            Redux::MinUnsigned => a.min(b),
            Redux::MaxUnsigned => a.max(b),
            Redux::And => a & b,
            Redux::Or => a | b,
            Redux::Xor => a ^ b,
        }
    }
}

#[cfg(target_arch = "nvptx64")]
mod nvptx;
#[cfg(target_arch = "nvptx64")]
pub(crate) use nvptx::*;

#[cfg(not(target_arch = "nvptx64"))]
pub(crate) mod host;
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) use host::*;
