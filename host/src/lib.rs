//! Host half of coop: build a kernel crate to PTX, load it, and launch its
//! `#[kernel]`s with arguments checked against their signatures at compile
//! time.
//!
//! ```no_run
//! # mod kernels {
//! #     use coop::prelude::*;
//! #     #[kernel]
//! #     pub fn scale(grid: Grid, input: &[f32], factor: f32, out: Out<f32>) {
//! #         let i = grid.thread_rank();
//! #         if i < input.len() { out.write(i, factor * input[i]); }
//! #     }
//! # }
//! # const PTX: coop_host::PtxSet = coop_host::PtxSet::new("kernels", &[]);
//! use coop_host::{Gpu, LaunchConfig};
//!
//! # fn main() -> Result<(), coop_host::Error> {
//! let gpu = Gpu::new(0)?; // a typed error, not a panic, without a GPU
//! let module = gpu.load(&PTX)?; // PTX = coop_host::include_ptx!("kernels")
//! let input = gpu.upload(&[1.0f32, 2.0, 3.0])?;
//! let mut out = gpu.zeros::<f32>(3)?;
//! module.launch(
//!     kernels::scale,
//!     LaunchConfig::new(1, 32),
//!     (&input, 2.0f32, &mut out), // checked against `scale`'s parameters
//! )?;
//! assert_eq!(gpu.download(&out)?, [2.0, 4.0, 6.0]);
//! # Ok(()) }
//! ```
//!
//! In `build.rs`, [`PtxBuilder`] compiles the kernel crate for
//! `nvptx64-nvidia-cuda`; [`include_ptx!`] embeds the result.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![deny(
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks,
    clippy::missing_safety_doc
)]

// `include_ptx!` expands to `::coop_host::...` paths, in this crate too.
extern crate self as coop_host;

mod args;
mod cpu;
mod device;
mod error;
mod fault;
mod gpu;
mod launch;
mod limits;
mod module;
#[cfg(feature = "multi")]
#[cfg_attr(docsrs, doc(cfg(feature = "multi")))]
pub mod multi;
mod ptx;
pub mod ptx_families;
pub mod reduce;
pub mod scan;
pub mod segmented;
mod timer;
mod views;

pub use args::{CpuArg, CpuArgs, GpuArg, KernelArgs};
pub use coop_build::{convergence, BuildError, PtxBuilder};
pub use cpu::Cpu;
pub use device::{Buffer, Device, Program, ProgramRef};
pub use error::Error;
pub use fault::LaunchRecord;
pub use gpu::Gpu;
pub use launch::{LaunchConfig, LaunchProblem, MAX_CLUSTER_BLOCKS};
pub use limits::{DeviceLimits, KernelLimits};
pub use module::Module;
pub use ptx::PtxSet;
pub use timer::Timer;
pub use views::{Input, Output};

pub use coop;
pub use coop::cpu::{EmulationError, Report, Violation};
pub use coop::Dim3;
/// The CUDA driver bindings coop-host is built on, for buffers, streams and
/// events.
pub use cudarc;
pub use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, DeviceRepr};

/// Embeds the PTX that [`PtxBuilder`] built for the kernel crate `name` (its
/// package name) as a [`PtxSet`]:
///
/// ```text
/// static PTX: coop_host::PtxSet = coop_host::include_ptx!("my-kernels");
/// ```
#[macro_export]
macro_rules! include_ptx {
    ($name:literal) => {
        include!(concat!(env!("OUT_DIR"), "/", $name, ".ptx.rs"))
    };
}
