//! Memory fences: the order in which other threads see a thread's writes.
//!
//! The GPU's memory model is weakly ordered: another thread may see two
//! writes of one thread in either order. A fence makes every write the
//! calling thread made before it visible, to every thread of its scope,
//! before any write it makes after it. Unlike a barrier, a fence does not
//! wait for other threads, and a thread may call it alone, in a branch.
//!
//! | function | CUDA | PTX | scope |
//! |---|---|---|---|
//! | [`fence_block`] | `__threadfence_block()` | `membar.cta` | threads of the block |
//! | [`fence_cluster`] | `cuda::atomic_thread_fence(.., thread_scope_cluster)` | `fence.sc.cluster` (sm_90; `membar.cta` before) | threads of the block's cluster |
//! | [`fence_device`] | `__threadfence()` | `membar.gl` | threads of the device |
//! | [`fence_system`] | `__threadfence_system()` | `membar.sys` | the device, the host, peer devices |
//!
//! ```
//! use coop::memory::fence_device;
//! use coop::prelude::*;
//! use coop_host::{Cpu, LaunchConfig};
//!
//! /// Each block's thread 0 publishes a result, then a flag: a reader that
//! /// sees the flag set also sees the result.
//! #[kernel]
//! pub fn publish_then_flag(block: ThreadBlock, results: Out<u32>, flags: Out<u32>) {
//!     if block.thread_rank() == 0 {
//!         let b = block.group_index().x as usize;
//!         results.write(b, 100 + b as u32);
//!         fence_device(); // the result is visible device-wide before the flag
//!         flags.write(b, 1);
//!     }
//! }
//!
//! let (mut results, mut flags) = (vec![0u32; 4], vec![0u32; 4]);
//! Cpu::new().launch(publish_then_flag, LaunchConfig::new(4, 32), (&mut results, &mut flags))?;
//! assert_eq!((results, flags), (vec![100, 101, 102, 103], vec![1; 4]));
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! On the CPU backend a fence orders the host's own memory accesses, and
//! the race detector takes one at the device's or the system's scope, like
//! an acquire load, as what lets the thread's later reads of global memory
//! follow a flag that another block raised; [`fence_block`] orders nothing
//! across blocks, so a cross-block flag protocol that relies on it is
//! reported as the race it is. Shared-memory ordering between threads of a
//! block comes from barriers, which the race detector checks.

use crate::backend::target::Target;
use crate::backend::{FenceScope, Fences, site};

/// Orders the calling thread's writes as seen by the threads of its block
/// (`membar.cta`; CUDA's `__threadfence_block`). See the [module](self).
#[inline(always)]
#[track_caller]
#[doc(alias = "__threadfence_block")]
#[doc(alias = "membar.cta")]
pub fn fence_block() {
    Target::fence(FenceScope::Block, site!())
}

/// Orders the calling thread's writes as seen by every thread of its
/// cluster (`fence.sc.cluster` on sm_90; `membar.cta` before it, where a
/// block is its own cluster). In a launch without clusters each block is a
/// cluster of its own, and this orders for the block only. See the
/// [module](self).
///
/// ```
/// use coop::atomic::{Ordering, Scope};
/// use coop::memory::fence_cluster;
/// use coop::prelude::*;
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// In each cluster of two blocks, block 0 of the cluster writes a value
/// /// and raises a flag at the cluster's scope; block 1 waits for it.
/// #[kernel]
/// pub fn pass_in_cluster(cluster: Cluster, grid: Grid, values: Out<u32>, flags: Out<u32>, seen: Out<u32>) {
///     if this_thread_block().thread_rank() != 0 {
///         return;
///     }
///     let c = grid.block_rank() / 2; // this cluster's slot
///     let flag = flags.atomic().with_scope(Scope::Cluster);
///     if cluster.block_rank() == 0 {
///         values.write(c, 10 + c as u32);
///         fence_cluster(); // the value before the flag, for the cluster
///         flag.store(c, 1);
///     } else {
///         while flag.load(c) == 0 {}
///         fence_cluster(); // the value after the flag
///         seen.write(c, values.read(c));
///     }
/// }
///
/// let (mut values, mut flags, mut seen) = (vec![0u32; 4], vec![0u32; 4], vec![0u32; 4]);
/// Cpu::new().launch(
///     pass_in_cluster,
///     LaunchConfig::new(8, 32).with_cluster(2),
///     (&mut values, &mut flags, &mut seen),
/// )?;
/// assert_eq!(seen, [10, 11, 12, 13]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "fence.sc.cluster")]
pub fn fence_cluster() {
    Target::fence(FenceScope::Cluster, site!())
}

/// Orders the calling thread's writes as seen by every thread of the
/// device (`membar.gl`; CUDA's `__threadfence`). See the [module](self).
#[inline(always)]
#[track_caller]
#[doc(alias = "__threadfence")]
#[doc(alias = "membar.gl")]
pub fn fence_device() {
    Target::fence(FenceScope::Device, site!())
}

/// Orders the calling thread's writes as seen by the device, the host and
/// peer devices (`membar.sys`; CUDA's `__threadfence_system`). See the
/// [module](self).
#[inline(always)]
#[track_caller]
#[doc(alias = "__threadfence_system")]
#[doc(alias = "membar.sys")]
pub fn fence_system() {
    Target::fence(FenceScope::System, site!())
}
