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

// The crate's layers, lowest first; a module imports only from its own
// layer and those below (tests/layers.rs checks it):
//
//   error, fault, limits, ptx      what can go wrong, a launch's record,
//                                  device limits, PTX texts
//   launch, args, ptx_families     a launch's shape and its checks, the
//                                  arguments a kernel's parameters take,
//                                  coop-host's own PTX
//   gpu, cpu                       the two backends: a GPU through the
//                                  driver (modules, timers), the CPU
//                                  backend through coop's emulator
//   device                         one API over both: Device, Buffer,
//                                  Program, Launcher, Input, Output
//   algorithms                     device-wide algorithms written once on
//                                  top of `device` (reduce, scan, segmented,
//                                  histogram, select, runs)
//   multi                          several devices at once
mod algorithms;
mod args;
mod cpu;
mod device;
mod error;
mod fault;
mod gpu;
mod launch;
mod limits;
#[cfg(feature = "multi")]
#[cfg_attr(docsrs, doc(cfg(feature = "multi")))]
pub mod multi;
mod ptx;
pub mod ptx_families;
mod tensor_map;

pub use algorithms::{histogram, reduce, runs, scan, segmented, select, sort, top_k};
pub use args::{CpuArg, CpuArgs, GpuArg, KernelArgs};
pub use coop_build::{convergence, BuildError, PtxBuilder};
pub use cpu::Cpu;
pub use device::{Buffer, Device, Input, Launcher, Output, Program, ProgramRef};
pub use error::{Error, LaunchProblem, ThreadLimit};
pub use fault::LaunchRecord;
pub use gpu::{Code, Gpu, Module, Timer};
pub use launch::{LaunchConfig, MAX_CLUSTER_BLOCKS, MAX_NON_PORTABLE_CLUSTER_BLOCKS};
pub use limits::{BlockSizeChoice, DeviceLimits, KernelLimits, KernelResources};
pub use ptx::PtxSet;
pub use tensor_map::{OutOfBounds, TensorLayout, TensorMap, TensorMapMut};

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
