//! Memory a kernel reads and writes, and the order others see it in:
//! block-shared arrays whose phases make races a compile error
//! ([`shared`]), writable device buffers ([`Out`](crate::Out), [`out`]),
//! atomics on both ([`atomic`]), fences ([`fence_block`], [`fence_cluster`], [`fence_device`],
//! [`fence_system`]), the plain data that may live in device buffers
//! ([`DeviceCopy`](crate::DeviceCopy)), 2-D views of buffers
//! ([`matrix`]), and asynchronous copies into shared memory: a shared
//! array's [`copy_async`](shared::Shared::copy_async), multi-stage
//! [`pipeline`]s, and the [`tensor`] maps their stages load tiles of
//! multi-dimensional arrays by.
//!
//! [`shared`], [`atomic`] and [`matrix`] are also at the crate root
//! (`coop::shared`), where kernels usually name them.

pub mod atomic;
pub(crate) mod device_copy;
pub mod fence;
pub mod matrix;
pub mod out;
pub mod pipeline;
pub mod shared;
pub mod tensor;
pub mod tile;

pub use fence::{fence_block, fence_cluster, fence_device, fence_system};
