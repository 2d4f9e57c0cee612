//! Block-shared memory without data races.
//!
//! A kernel declares its shared arrays as parameters of type
//! [`Shared<A>`](Shared): `Shared<[f32; 256]>`, a 2-D tile
//! `Shared<[[i32; 33]; 32]>` (padded by one column), or `Shared<[f32]>`,
//! sized at launch by `LaunchConfig::with_shared_memory`. They take no
//! argument at launch: `#[kernel]` gives each block its own copy, as CUDA
//! does with `__shared__` and `extern __shared__` arrays.
//!
//! The usual pattern, "each thread writes its slot, barrier, everyone
//! reads", is checked by the compiler:
//!
//! 1. [`Shared::own`] starts an [`Owned`] phase under an ownership map
//!    ([`ByRank`], [`RowMajor`], [`ColumnMajor`]) that gives every element
//!    one owner: a thread can write (and read) only the elements it owns.
//! 2. [`Owned::publish`] is a block barrier that returns a [`Published`]
//!    view: every thread can read every element, nobody can write.
//! 3. [`Published::own`] is a barrier back to an `Owned` phase.
//!
//! Each phase consumes the previous one, so reading a neighbour's element
//! before the barrier, or writing after it, does not compile. For other
//! patterns, [`RawShared`] (from `into_raw`) reads and writes anything
//! through `unsafe` calls with a stated contract, which the CPU backend
//! checks access by access.
//!
//! ```
//! use coop::prelude::*;
//! use coop::shared::{ByRank, Shared};
//! use coop_host::{Cpu, LaunchConfig};
//!
//! /// out[i] = (in[i - 1] + 2 in[i] + in[i + 1]) / 4, zero outside.
//! #[kernel]
//! pub fn smooth(block: ThreadBlock, input: &[f32], out: Out<f32>, s: Shared<[f32; 66]>) {
//!     let n = input.len();
//!     let t = block.thread_rank() as usize;
//!     let base = block.group_index().x as usize * 64;
//!     let at = |i: isize| if i >= 0 && (i as usize) < n { input[i as usize] } else { 0.0 };
//!     // Thread t owns s[t + 1]; the halo cells s[0] and s[65] belong to the
//!     // last thread and the first one.
//!     let mine = s.own(ByRank::offset(1));
//!     mine.write(t + 1, at((base + t) as isize));
//!     if t == 63 {
//!         mine.write(0, at(base as isize - 1));
//!     }
//!     if t == 0 {
//!         mine.write(65, at((base + 64) as isize));
//!     }
//!     let s = mine.publish(&block);
//!     if base + t < n {
//!         out.write(base + t, (s.get(t) + 2.0 * s.get(t + 1) + s.get(t + 2)) * 0.25);
//!     }
//! }
//!
//! let input: Vec<f32> = (0..100).map(|i| (i % 7) as f32).collect();
//! let mut out = vec![0.0f32; 100];
//! Cpu::new().launch(smooth, LaunchConfig::new(2, 64), (&input[..], &mut out))?;
//! assert_eq!(out[10], (input[9] + 2.0 * input[10] + input[11]) * 0.25);
//! assert_eq!(out[64], (input[63] + 2.0 * input[64] + input[65]) * 0.25); // across blocks
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! Shared memory is uninitialised when a block starts; on the CPU backend
//! reading an element no thread has written stops the launch. Every access
//! goes to shared memory where it is written (the compiler does not keep
//! shared values in registers across accesses, like CUDA's `volatile`).

mod array;
mod atomic_phase;
pub mod bulk_out;
mod cluster_copies;
mod cluster_phase;
pub mod copying;
pub mod inbox;
mod ownership;
mod phase;
mod raw;
pub mod storing;
pub mod tile_rows;
mod tile_scratch;

pub use crate::backend::elements::SharedElem;
pub use array::SharedArray;
pub use atomic_phase::{Atomics, PlainAccess};
pub use bulk_out::BulkReduce;
pub use cluster_copies::ClusterCopyLanded;
pub use cluster_phase::{
    ClusterAtomics, ClusterShared, ClusterWrites, ReadOtherBlocks, RemoteAdd, RemoteElem,
};
pub use copying::{CopyLanded, Copying};
pub(crate) use copying::{CopyPlan, issue as issue_copy};
pub use inbox::{ClusterReduce, Copies, Exchange, Inbox, InboxLanded, Received};
pub use ownership::{ByFunction, ByRank, ColumnMajor, Ownership, RowMajor, TileLeaders};
pub use phase::{Owned, Published, ReadAnyElement, WriteOwnElement};
pub use raw::RawShared;
pub use storing::{StorableArray, Storing, TensorStoreRead};
pub use tile_rows::{RowLanded, TileCopying, TilePublished, TileRow};
pub use tile_scratch::TileScratch;

use crate::backend::target::{SharedBase, Target};
use crate::backend::{ElemShape, SharedMemory, site};
use core::marker::PhantomData;

/// The most static shared memory a kernel's `Shared<[E; N]>` parameters may
/// take together, in bytes (each array rounded up to its alignment: 16
/// bytes, or 128 for arrays of 128 bytes or more): CUDA's 48 KiB
/// limit on a kernel's static shared memory, less the
/// [`BLOCK_COLLECTIVE_SCRATCH_BYTES`] that coop keeps for block
/// reductions and scans. `#[kernel]` refuses a kernel over it at compile
/// time, for the GPU and the CPU backend alike (ptxas would reject the
/// whole module, so that no kernel of the crate could load). More shared
/// memory, up to the device's opt-in limit (227 KiB on sm_90), is
/// reachable through a dynamic `Shared<[E]>` sized at launch.
///
/// ```
/// assert_eq!(coop::shared::MAX_STATIC_SHARED_BYTES, 48 * 1024 - 1312);
/// ```
pub const MAX_STATIC_SHARED_BYTES: usize = 48 * 1024 - BLOCK_COLLECTIVE_SCRATCH_BYTES;

/// Bytes of static shared memory that block reductions and scans use, in
/// every kernel that calls one.
pub const BLOCK_COLLECTIVE_SCRATCH_BYTES: usize = crate::backend::BLOCK_SCRATCH_BYTES;

/// Where an array lives and how many elements it has.
#[derive(Clone, Copy)]
pub(crate) struct Region {
    pub base: SharedBase,
    pub len: usize,
}

/// A block-shared array of type `A`, as a kernel parameter: one copy per
/// block, uninitialised when the block starts. See the [module](self) for
/// the phases that make its use race-free.
///
/// ```
/// use coop::prelude::*;
/// use coop::shared::{ByRank, Shared};
/// use coop_host::{Cpu, LaunchConfig};
///
/// // Dynamic shared memory: the launch sets the size.
/// #[kernel]
/// pub fn shift(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32]>) {
///     let r = block.thread_rank() as usize;
///     let mine = buf.own(ByRank::new());
///     mine.set(r as u32 * 10);
///     let all = mine.publish(&block);
///     out.write(r, all.get((r + 1) % all.len()));
/// }
///
/// let mut out = vec![0u32; 8];
/// let cfg = LaunchConfig::new(1, 8).with_shared_memory(8 * 4);
/// Cpu::new().launch(shift, cfg, (&mut out,))?;
/// assert_eq!(out, [10, 20, 30, 40, 50, 60, 70, 0]);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct Shared<A: SharedArray + ?Sized> {
    region: Region,
    _array: PhantomData<*const A>,
}

/// A kernel parameter that lives in the block's shared memory, which
/// `#[kernel]` declares (a module-level `.shared` array on the GPU) and
/// binds for each thread: [`Shared<A>`](Shared),
/// [`Pipeline<A>`](crate::memory::pipeline::Pipeline) and [`Inbox<A>`].
///
/// # Safety
///
/// `BYTES` and `ALIGN` cover everything the parameter's handles touch;
/// `__bind_static` makes the handle of the array the kernel declared with
/// them.
#[doc(hidden)]
pub unsafe trait SharedParam: Sized {
    /// Bytes of the declaration.
    const BYTES: usize;
    /// Its alignment: at least 16, so that 16-byte vectors and
    /// asynchronous copies of 16 bytes reach every part of it.
    const ALIGN: usize;
    /// Binds the static array `#[kernel]` declared for this parameter, as
    /// the target's `coop_bind_static_shared!` names it.
    ///
    /// # Safety
    ///
    /// `binding` names the array declared for this type by the kernel's
    /// `coop_declare_static_shared!`, bound once per thread (inside a CPU
    /// launch on the CPU backend).
    unsafe fn __bind_static(binding: crate::backend::target::StaticBinding) -> Self;
}

// SAFETY: the declaration is the array's bytes at (at least) its
// alignment; the handle reaches the array's elements only.
unsafe impl<A: SharedArray + ?Sized> SharedParam for Shared<A> {
    const BYTES: usize = A::BYTES;
    // 128 from 128 bytes on: where the copy engine reads tensor tiles.
    const ALIGN: usize = if A::BYTES >= 128 {
        128
    } else if A::ALIGN > 16 {
        A::ALIGN
    } else {
        16
    };
    #[inline(always)]
    #[track_caller]
    unsafe fn __bind_static(binding: crate::backend::target::StaticBinding) -> Self {
        let base = Target::static_shared(binding, A::BYTES, Self::ALIGN, Self::shape(), site!());
        Self::bound(base, A::BYTES / core::mem::size_of::<A::Elem>())
    }
}

impl<A: SharedArray + ?Sized> Shared<A> {
    /// Binds the launch's dynamic shared memory.
    #[doc(hidden)]
    #[inline(always)]
    #[track_caller]
    pub unsafe fn __bind_dynamic(name: &'static str) -> Self {
        let (base, bytes) = Target::dynamic_shared(name, Self::shape(), site!());
        Self::bound(base, bytes as usize / core::mem::size_of::<A::Elem>())
    }

    #[inline(always)]
    pub(crate) fn bound(base: SharedBase, len: usize) -> Self {
        Shared {
            region: Region { base, len },
            _array: PhantomData,
        }
    }

    /// Element size and row length, for the CPU backend's diagnostics.
    #[inline(always)]
    pub(crate) fn shape() -> ElemShape {
        ElemShape {
            size: core::mem::size_of::<A::Elem>() as u32,
            cols: A::COLS as u32,
        }
    }

    /// Starts the first writing phase: each thread writes the elements
    /// `map` gives it. No barrier is needed: nothing has touched the array
    /// yet.
    ///
    /// See [`Owned`] for examples.
    #[inline(always)]
    #[track_caller]
    pub fn own<M: Ownership<A>>(self, map: M) -> Owned<A, M> {
        Owned::new(self.region, map, site!())
    }

    /// Gives up the phase checks for raw access; see [`RawShared`].
    #[inline(always)]
    pub fn into_raw(self) -> RawShared<A> {
        RawShared::new(self.region)
    }

    /// Elements in the array (for `Shared<[E]>`, the launch's dynamic
    /// shared memory divided by the element size).
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.region.len
    }

    /// Whether the array has no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.region.len == 0
    }
}
