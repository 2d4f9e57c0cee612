use crate::backend::{self, site};
use crate::Dim3;

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
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    _private: (),
}

/// The grid of the calling thread.
#[inline(always)]
pub fn this_grid() -> Grid {
    Grid { _private: () }
}

impl Grid {
    /// The calling thread's rank among all threads of the launch: its block's
    /// rank times the block size, plus its rank in the block.
    #[inline(always)]
    #[track_caller]
    pub fn thread_rank(&self) -> usize {
        let t = backend::thread_index(site!());
        let bd = backend::block_dim(site!());
        let in_block = (t.x + bd.x * (t.y + bd.y * t.z)) as usize;
        self.block_rank() * (bd.x * bd.y * bd.z) as usize + in_block
    }

    /// Threads in the launch: blocks times threads per block.
    #[inline(always)]
    #[track_caller]
    pub fn num_threads(&self) -> usize {
        let bd = backend::block_dim(site!());
        self.num_blocks() * (bd.x * bd.y * bd.z) as usize
    }

    /// The calling thread's block, linearised with `x` fastest.
    #[inline(always)]
    #[track_caller]
    pub fn block_rank(&self) -> usize {
        let b = backend::block_index(site!());
        let g = backend::grid_dim(site!());
        b.x as usize + g.x as usize * (b.y as usize + g.y as usize * b.z as usize)
    }

    /// Blocks in the launch.
    #[inline(always)]
    #[track_caller]
    pub fn num_blocks(&self) -> usize {
        let g = backend::grid_dim(site!());
        g.x as usize * g.y as usize * g.z as usize
    }

    /// The calling thread's block index (CUDA's `blockIdx`).
    #[inline(always)]
    #[track_caller]
    pub fn block_index(&self) -> Dim3 {
        backend::block_index(site!())
    }

    /// The grid's shape in blocks (CUDA's `gridDim`).
    #[inline(always)]
    #[track_caller]
    pub fn dim_blocks(&self) -> Dim3 {
        backend::grid_dim(site!())
    }

    /// The shape of every block (CUDA's `blockDim`).
    #[inline(always)]
    #[track_caller]
    pub fn dim_threads(&self) -> Dim3 {
        backend::block_dim(site!())
    }
}
