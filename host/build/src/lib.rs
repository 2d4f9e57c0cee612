//! Compiles a coop kernel crate to PTX from a `build.rs`.
//!
//! The kernel crate is built by a nested `cargo rustc` for
//! `nvptx64-nvidia-cuda`, in its own target directory, with the settings
//! device code needs (`-Zbuild-std=core`, `panic = "abort"`, fat LTO, one
//! codegen unit, `--emit=asm`). With fat LTO every crate is merged into one
//! module, so the single `.s` file rustc writes is the PTX of the whole
//! kernel crate. On a stable toolchain `RUSTC_BOOTSTRAP=1` unlocks the
//! unstable flags this needs; nightly works as is.
//!
//! Each PTX is then checked for instructions that are only correct when
//! every thread of a warp executes the very same instruction (see
//! [`convergence`]): the compiler does not promise to keep that, and such a
//! kernel can hang the GPU while the CPU backend runs it fine.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod builder;
pub mod convergence;
mod dep_info;
mod error;
pub mod launch_bounds;
mod manifest;
mod nested_outputs;
pub mod register_limits;
mod toolchain;

pub use builder::{PtxBuilder, DEFAULT_TARGETS};
pub use error::BuildError;
pub use toolchain::{MIN_LLVM, MIN_RUSTC};
