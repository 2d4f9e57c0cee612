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

#[cfg(target_arch = "nvptx64")]
mod nvptx;
#[cfg(target_arch = "nvptx64")]
pub(crate) use nvptx::*;

#[cfg(not(target_arch = "nvptx64"))]
mod host;
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) use host::*;
