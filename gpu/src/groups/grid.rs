//! The grid: every thread of a launch, for indexing (`Grid`, `this_grid`).

use crate::Dim3;
use crate::backend::target::Target;
use crate::backend::{Registers, site};

/// All threads of a launch, for indexing (CUDA's `grid_group`, without
/// `sync`, which needs a cooperative launch).
///
/// Obtain it as a kernel parameter (`grid: Grid`) or with [`this_grid`].
///
/// ```
/// use coop::prelude::*;
///
/// /// `out[i] = 2 * input[i]` for every `i`, whatever the launch shape.
/// #[kernel]
/// pub fn double(grid: Grid, input: &[f32], out: Out<f32>) {
///     let mut i = grid.thread_rank();
///     while i < input.len() {
///         out.write(i, 2.0 * input[i]);
///         i += grid.num_threads();
///     }
/// }
///
/// // 2 blocks of 4 threads cover 20 elements in 3 rounds.
/// let input: Vec<f32> = (0..20).map(|i| i as f32).collect();
/// let mut out = vec![0f32; 20];
/// coop_host::Cpu::new().launch(double, coop_host::LaunchConfig::new(2, 4), (&input, &mut out))?;
/// assert_eq!(out[19], 38.0);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    _private: (),
}

/// The grid of the calling thread: the same handle a `grid: Grid` parameter
/// receives, for functions called from a kernel.
///
/// ```
/// use coop::prelude::*;
///
/// fn global_id() -> usize {
///     this_grid().thread_rank()
/// }
///
/// #[kernel]
/// pub fn ids(block: ThreadBlock, out: Out<u32>) {
///     let _ = block;
///     out.write(global_id(), global_id() as u32);
/// }
///
/// let mut out = vec![0u32; 8];
/// coop_host::Cpu::new().launch(ids, coop_host::LaunchConfig::new(2, 4), (&mut out,))?;
/// assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[doc(alias = "cg::this_grid")]
pub fn this_grid() -> Grid {
    Grid { _private: () }
}

impl Grid {
    /// The calling thread's rank among all threads of the launch: its block's
    /// rank times the block size, plus its rank in the block.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn global_ids(grid: Grid, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), grid.thread_rank() as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 12];
    /// Cpu::new().launch(global_ids, LaunchConfig::new(3, 4), (&mut out,))?;
    /// assert_eq!(out, (0..12).collect::<Vec<u32>>());
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn thread_rank(&self) -> usize {
        let t = Target::thread_index(site!());
        let bd = Target::block_dim(site!());
        let in_block = bd.linearize_u32(t) as u64;
        (self.block_rank() as u64 * bd.volume_u32() as u64 + in_block) as usize
    }

    /// Threads in the launch: blocks times threads per block.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn total(grid: Grid, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), grid.num_threads() as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 12];
    /// Cpu::new().launch(total, LaunchConfig::new((3, 2), 2), (&mut out,))?;
    /// assert!(out.iter().all(|&n| n == 12));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "size")]
    pub fn num_threads(&self) -> usize {
        let bd = Target::block_dim(site!());
        (self.num_blocks() as u64 * bd.volume_u32() as u64) as usize
    }

    /// The calling thread's block, linearised with `x` fastest.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn block_ranks(grid: Grid, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), grid.block_rank() as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 6];
    /// Cpu::new().launch(block_ranks, LaunchConfig::new((3, 2), 1), (&mut out,))?;
    /// assert_eq!(out, [0, 1, 2, 3, 4, 5]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn block_rank(&self) -> usize {
        let b = Target::block_index(site!());
        let g = Target::grid_dim(site!());
        // A grid is at most 65535 blocks in `y` and in `z` (both backends
        // refuse more), so the rank of the block's row, `z * ny + y`, is
        // below 2^32: one 32-bit multiply, then one widening multiply-add.
        let row = b.z * g.y + b.y;
        (row as u64 * g.x as u64 + b.x as u64) as usize
    }

    /// Blocks in the launch.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn blocks(grid: Grid, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), grid.num_blocks() as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 24];
    /// Cpu::new().launch(blocks, LaunchConfig::new((2, 3, 4), 1), (&mut out,))?;
    /// assert!(out.iter().all(|&n| n == 24));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn num_blocks(&self) -> usize {
        let g = Target::grid_dim(site!());
        // `ny * nz` fits 32 bits (see `block_rank`): one widening multiply.
        ((g.y * g.z) as u64 * g.x as u64) as usize
    }

    /// The calling thread's block index (CUDA's `blockIdx`).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn block_ys(grid: Grid, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), grid.block_index().y);
    /// }
    ///
    /// let mut out = vec![0u32; 4];
    /// Cpu::new().launch(block_ys, LaunchConfig::new((2, 2), 1), (&mut out,))?;
    /// assert_eq!(out, [0, 0, 1, 1]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "blockIdx")]
    pub fn block_index(&self) -> Dim3 {
        Target::block_index(site!())
    }

    /// The grid's shape in blocks (CUDA's `gridDim`).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn grid_shape(grid: Grid, out: Out<u32>) {
    ///     let d = grid.dim_blocks();
    ///     out.write(grid.thread_rank(), d.x * 100 + d.y * 10 + d.z);
    /// }
    ///
    /// let mut out = vec![0u32; 12];
    /// Cpu::new().launch(grid_shape, LaunchConfig::new((2, 3, 2), 1), (&mut out,))?;
    /// assert!(out.iter().all(|&v| v == 232));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "gridDim")]
    pub fn dim_blocks(&self) -> Dim3 {
        Target::grid_dim(site!())
    }

    /// The shape of every block (CUDA's `blockDim`).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn block_shape(grid: Grid, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), grid.dim_threads().volume() as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 16];
    /// Cpu::new().launch(block_shape, LaunchConfig::new(2, (2, 2, 2)), (&mut out,))?;
    /// assert!(out.iter().all(|&v| v == 8));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn dim_threads(&self) -> Dim3 {
        Target::block_dim(site!())
    }
}
