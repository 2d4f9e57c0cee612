//! Where a thread is: the special registers of the launch geometry.

use super::Site;
use crate::Dim3;

/// The launch geometry as the calling thread sees it. Reading it has no
/// precondition inside a kernel; on the CPU backend, outside a launch, it
/// is a usage error that names the call.
pub(crate) trait Registers {
    /// The thread's index in its block.
    /// PTX: `mov.u32 %r, %tid.{x,y,z}`. CPU: the emulated thread's index.
    fn thread_index(site: Site) -> Dim3;
    /// The block's extent in threads.
    /// PTX: `%ntid.{x,y,z}`. CPU: the launch's block shape.
    fn block_dim(site: Site) -> Dim3;
    /// The block's index in the grid.
    /// PTX: `%ctaid.{x,y,z}`. CPU: the block being run.
    fn block_index(site: Site) -> Dim3;
    /// The grid's extent in blocks.
    /// PTX: `%nctaid.{x,y,z}`. CPU: the launch's grid shape.
    fn grid_dim(site: Site) -> Dim3;
    /// The thread's lane in its warp.
    /// PTX: `%laneid`. CPU: the thread's rank in the block modulo 32.
    fn lane_id(site: Site) -> u32;
    /// The launch's cluster shape in blocks (1, 1, 1 without clusters).
    /// PTX: `%cluster_nctaid.{x,y,z}` when built for sm_90 or later, else
    /// (1, 1, 1): before sm_90 every block is a cluster of its own.
    fn cluster_dim(site: Site) -> Dim3;
    /// Tells the compiler that every block is `shape` (a kernel declared
    /// with `#[kernel(block = ..)]`, whose other launches both backends
    /// refuse, and the driver too through `.reqntid`): thread indices are
    /// then below the shape's extents, so index checks against arrays of
    /// that shape fold away. PTX: an assumption, no instruction. CPU:
    /// nothing.
    #[inline(always)]
    fn assume_block_shape(_shape: Dim3) {}
}
