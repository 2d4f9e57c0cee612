//! Kernel-side half of coop: cooperative groups for Rust GPU kernels.
//!
//! A kernel crate depends on `coop`, writes `#![no_std]`, and marks its entry
//! points with [`#[kernel]`](macro@kernel). The same source is compiled twice:
//!
//! * for `nvptx64-nvidia-cuda` by `coop_host::PtxBuilder`, where every call on
//!   a handle lowers to one PTX instruction (`barrier.sync`, `shfl.sync`,
//!   `vote.sync`, `match.sync`, ...) with the member mask of the calling tile;
//! * for the host, where `#[kernel]` also emits a typed descriptor of the
//!   kernel that `coop_host` launches with checked argument types.
//!
//! ```
//! use coop::prelude::*;
//!
//! #[kernel]
//! pub fn warp_sum(block: ThreadBlock, input: &[u32], out: Out<u32>) {
//!     let warp = block.tiled_partition::<32>();
//!     let i = block.thread_rank() as usize;
//!     let mut v = input[i];
//!     let mut offset = 16;
//!     while offset > 0 {
//!         v += warp.shfl_xor(v, offset);
//!         offset /= 2;
//!     }
//!     if warp.thread_rank() == 0 {
//!         out.write(warp.meta_group_rank() as usize, v);
//!     }
//! }
//!
//! // On the host, `warp_sum` is the kernel's descriptor.
//! assert_eq!(<warp_sum as coop::Kernel>::NAME, "warp_sum");
//! ```
//!
//! The rules of the model (tile sizes, which groups may shuffle, which types
//! move between lanes) are trait bounds, so breaking one is a compile error
//! that names the rule; see [`guide`] for the guide.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, stdarch_nvptx, link_llvm_intrinsics, asm_experimental_arch),
    allow(internal_features)
)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![deny(
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks,
    clippy::missing_safety_doc
)]

pub mod atomic;
mod backend;
mod cluster;
mod coalesced;
mod cooperative_grid;
#[cfg(not(target_arch = "nvptx64"))]
#[cfg_attr(docsrs, doc(cfg(not(target_arch = "nvptx64"))))]
pub mod cpu;
mod device_copy;
pub mod device_scan;
mod dim;
/// The CPU backend under its former name.
#[cfg(not(target_arch = "nvptx64"))]
#[cfg_attr(docsrs, doc(cfg(not(target_arch = "nvptx64"))))]
#[deprecated(since = "0.1.0", note = "the CPU backend is `coop::cpu`")]
pub mod emulator {
    pub use crate::cpu::*;
}
mod grid;
pub mod grid_reduce;
mod group;
pub mod kernel;
pub mod map;
mod matching;
pub mod math;
pub mod matrix;
pub mod memory;
pub mod op;
mod out;
pub mod prelude;
#[cfg(target_arch = "nvptx64")]
mod ptx;
mod reduce;
pub mod segmented;
pub mod shared;
mod shared_elem;
mod shuffle;
mod target;
mod thread_block;
mod tile;

pub use cluster::{this_cluster, Cluster};
pub use coalesced::{coalesced_threads, CoalescedGroup};
/// Turns a function into a kernel: a PTX entry point on the GPU, and on the
/// host a unit struct of the same name implementing [`Kernel`], which
/// `coop_host` launches on a GPU or on the CPU backend.
///
/// ```
/// use coop::prelude::*;
///
/// #[kernel]
/// pub fn add_one(grid: Grid, input: &[i32], out: Out<i32>) {
///     let i = grid.thread_rank();
///     if i < input.len() {
///         out.write(i, input[i] + 1);
///     }
/// }
///
/// let mut out = vec![0; 3];
/// coop_host::Cpu::new().launch(add_one, coop_host::LaunchConfig::new(1, 32), (&[1, 2, 3][..], &mut out))?;
/// assert_eq!(out, [2, 3, 4]);
/// # Ok::<(), coop_host::Error>(())
/// ```
///
/// A kernel is not generic and returns nothing:
///
/// ```compile_fail
/// use coop::prelude::*;
///
/// #[kernel]
/// pub fn first(grid: Grid, input: &[u32]) -> u32 {
///     input[0]
/// }
/// ```
pub use coop_macros::kernel;
/// Implements [`Shuffle`](trait@Shuffle) for a struct of `Shuffle` fields without
/// padding, of at most 32 bytes; see the trait for an example.
///
/// ```compile_fail
/// #[derive(Clone, Copy, coop::Shuffle)]
/// struct Padded(u8, u32); // 3 padding bytes
/// ```
pub use coop_macros::{DeviceCopy, Shuffle};
pub use cooperative_grid::{CooperativeGrid, NeedsCooperativeKernel};
pub use device_copy::DeviceCopy;
pub use dim::Dim3;
pub use grid::{this_grid, Grid};
pub use group::{SyncGroup, ThreadGroup};
pub use kernel::{Kernel, KernelParam};
pub use matching::MatchKey;
pub use out::Out;
pub use reduce::{exclusive_scan, inclusive_scan, reduce, Group};
pub use shuffle::Shuffle;
#[doc(hidden)]
pub use thread_block::warp_only;
pub use thread_block::{this_thread_block, ThreadBlock, WarpOnly};
pub use tile::{
    AnyTileSize, MultiWarpTileSize, SubTileOf, TileSize, TiledPartition, ValidTileSize,
};

/// The guide's chapters, in reading order; their examples run as doctests.
pub mod guide {
    #[doc = include_str!("../guide/00-first-kernel-crate.md")]
    pub mod first_kernel_crate {}
    #[doc = include_str!("../guide/01-execution-model.md")]
    pub mod execution_model {}
    #[doc = include_str!("../guide/02-barriers.md")]
    pub mod barriers {}
    #[doc = include_str!("../guide/03-shared-memory.md")]
    pub mod shared_memory {}
    #[doc = include_str!("../guide/04-warp-collectives.md")]
    pub mod warp_collectives {}
    #[doc = include_str!("../guide/05-reductions.md")]
    pub mod reductions {}
    #[doc = include_str!("../guide/06-without-a-gpu.md")]
    pub mod without_a_gpu {}
    #[doc = include_str!("../guide/07-performance.md")]
    pub mod performance {}
    #[doc = include_str!("../guide/08-device-memory.md")]
    pub mod device_memory {}
    #[doc = include_str!("../guide/09-math.md")]
    pub mod math {}
    #[doc = include_str!("../guide/10-grids.md")]
    pub mod grids {}
}

/// Items the code generated by `#[kernel]` and `#[derive(Shuffle)]` refers to.
/// Not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::backend::Redux;
    pub use crate::device_copy::sealed_host;
    pub use crate::shuffle::words_of;
    pub use crate::target::{coop_bind_static_shared, coop_declare_static_shared, StaticBinding};
    pub use core;
    /// cudarc's traits, for `#[derive(DeviceCopy)]` on the host.
    #[cfg(not(target_arch = "nvptx64"))]
    pub use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
}
