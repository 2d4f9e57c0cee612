//! Memory a kernel reads and writes, and the order others see it in:
//! block-shared arrays whose phases make races a compile error
//! ([`shared`]), writable device buffers ([`Out`](crate::Out), [`out`]),
//! atomics on both ([`atomic`]), fences ([`fence_block`], [`fence_device`],
//! [`fence_system`]), the plain data that may live in device buffers
//! ([`DeviceCopy`](crate::DeviceCopy)), 2-D views of buffers
//! ([`matrix`]), and asynchronous copies into shared memory: a shared
//! array's [`copy_async`](shared::Shared::copy_async) and multi-stage
//! [`pipeline`]s.
//!
//! [`shared`], [`atomic`] and [`matrix`] are also at the crate root
//! (`coop::shared`), where kernels usually name them.

pub mod atomic;
pub(crate) mod device_copy;
mod fence;
pub mod matrix;
pub mod out;
pub mod pipeline;
pub mod shared;

pub use fence::{fence_block, fence_device, fence_system};
