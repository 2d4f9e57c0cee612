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
// Nested `if`s stay nested in device code: written as edition 2024's let
// chains they compile to other PTX than coop-host ships (host/ptx).
#![allow(clippy::collapsible_if)]

// The crate's layers, lowest first; a module imports only from its own
// layer and those below (docs/architecture.md draws them, and
// tests/layers.rs checks it):
//
//   kernel, dim          what a launch passes; launch extents
//   backend              the contract every handle method is written
//                        against, and its two targets (ptx/, cpu/)
//   groups               the handles: block, tiles, coalesced groups, grid,
//                        cluster, and the values their instructions move
//   memory, op, math     shared arrays and their phases, outputs, atomics,
//                        fences, user types; operators; math functions
//   collectives          reductions and scans over a group, by scope
//   block                a block's tile in registers: loads, stores,
//                        exchanges, neighbours, radix rank and sort
//   device               the kernel halves of device-wide algorithms
mod backend;
pub mod block;
pub mod collectives;
pub mod device;
mod dim;
pub mod groups;
pub mod kernel;
pub mod math;
pub mod memory;
pub mod op;
pub mod prelude;
pub mod warp;

/// The CPU backend: runs kernels on the host and names the rule a kernel
/// breaks (see the module's own docs).
#[cfg(not(target_arch = "nvptx64"))]
#[cfg_attr(docsrs, doc(cfg(not(target_arch = "nvptx64"))))]
pub use backend::cpu;
pub use memory::{atomic, matrix, shared};

/// Former path of [`device::map`], kept so that code naming it builds.
pub use device::map;
/// Former path of [`device::reduce`], kept so that code naming it builds.
pub use device::reduce as grid_reduce;
/// Former path of [`device::scan`], kept so that code naming it builds.
pub use device::scan as device_scan;
/// Former path of [`device::segmented`], kept so that code naming it builds.
pub use device::segmented;

pub use collectives::{
    AtomicUpdate, Group, StoreTarget, UpdateTarget, exclusive_scan, exclusive_scan_update,
    inclusive_scan, inclusive_scan_update, reduce, reduce_store_async, reduce_update_async,
};
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
pub use dim::Dim3;
pub use groups::cluster::{Cluster, this_cluster};
pub use groups::coalesced::{CoalescedGroup, coalesced_threads};
pub use groups::cooperative_grid::{CooperativeGrid, NeedsCooperativeKernel};
pub use groups::grid::{Grid, this_grid};
pub use groups::match_key::MatchKey;
pub use groups::ragged::RaggedTile;
pub use groups::shuffle::Shuffle;
pub use groups::split_barrier::ArrivalToken;
#[doc(hidden)]
pub use groups::thread_block::warp_only;
pub use groups::thread_block::{ThreadBlock, WarpOnly, this_thread, this_thread_block};
pub use groups::thread_group::{SyncGroup, ThreadGroup};
pub use groups::tile::{
    AnyTileSize, MultiWarpTileSize, SubTileOf, TileSize, TiledPartition, ValidTileSize,
};
pub use kernel::{Kernel, KernelParam, LaunchBounds};
pub use memory::device_copy::DeviceCopy;
pub use memory::out::{InOut, Out, VectorElement};

/// The guide's chapters, in reading order; their examples run as doctests.
///
/// Only documentation and doctest builds include them, so that editing the
/// guide recompiles nothing else (the PTX builds included).
#[cfg(any(doc, doctest))]
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
    #[doc = include_str!("../guide/11-asynchronous-copies.md")]
    pub mod asynchronous_copies {}
}

/// Items the code generated by `#[kernel]` and `#[derive(Shuffle)]` refers to.
/// Not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::backend::Redux;
    pub use crate::backend::target::{
        StaticBinding, coop_bind_static_shared, coop_declare_static_shared,
    };
    pub use crate::groups::shuffle::words_of;
    pub use crate::memory::device_copy::sealed_host;
    pub use core;

    /// The assumption a kernel declared with `#[kernel(block = (x, y, z))]`
    /// makes at its entry: every block is `x` by `y` by `z` threads.
    #[inline(always)]
    pub fn assume_block_shape(x: u32, y: u32, z: u32) {
        use crate::backend::Registers;
        crate::backend::target::Target::assume_block_shape(crate::Dim3::new(x, y, z));
    }
    /// cudarc's traits, for `#[derive(DeviceCopy)]` on the host.
    #[cfg(not(target_arch = "nvptx64"))]
    pub use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
}
