//! The grid of a cooperative launch, which can wait for all its threads
//! (`CooperativeGrid`).
//!
//! A grid sync needs every block of the grid on the GPU at once: a block
//! that waits for one that has not started, because the blocks before it
//! hold every multiprocessor, waits forever. CUDA C++ leaves this to the
//! programmer (`grid.sync()` compiles in any kernel, and hangs or
//! misbehaves when the launch was not cooperative or the grid too large).
//! coop makes it a type: a `CooperativeGrid` exists only as a parameter of
//! a kernel declared `#[kernel(cooperative)]`, and coop_host launches such
//! a kernel only through the driver's cooperative launch, after checking
//! that the grid fits on the device at once for this kernel
//! (`Module::max_cooperative_blocks`).

use crate::backend::target::Target;
use crate::backend::{Barriers, site};
use crate::{Dim3, Grid};

/// Every thread of a cooperative launch (CUDA's `grid_group`): the
/// indexing of [`Grid`], and [`sync`](Self::sync), a barrier for the whole
/// grid.
///
/// Only a kernel declared `#[kernel(cooperative)]` receives one, as a
/// parameter; pass it on to helper functions by reference. In any other
/// kernel, the parameter is a compile error that says how to declare the
/// kernel.
///
/// ```
/// use coop::prelude::*;
///
/// /// Each block adds its elements into `partial[block]`; after the grid
/// /// sync, thread 0 of the grid adds the partials: one launch, two phases.
/// #[kernel(cooperative)]
/// pub fn sum(grid: CooperativeGrid, input: &[u32], partial: Out<u32>, total: Out<u32>) {
///     let block = this_thread_block();
///     let mut mine = 0;
///     let mut i = grid.thread_rank();
///     while i < input.len() {
///         mine += input[i];
///         i += grid.num_threads();
///     }
///     let block_total = reduce(&block, mine, op::Sum);
///     if block.thread_rank() == 0 {
///         partial.write(grid.block_rank(), block_total);
///     }
///     grid.sync();
///     if grid.thread_rank() == 0 {
///         let all = (0..grid.num_blocks()).map(|b| partial.read(b)).sum();
///         total.write(0, all);
///     }
/// }
///
/// let input: Vec<u32> = (1..=1000).collect();
/// let (mut partial, mut total) = (vec![0u32; 4], vec![0u32; 1]);
/// coop_host::Cpu::new()
///     .launch(sum, coop_host::LaunchConfig::new(4, 64), (&input, &mut partial, &mut total))?;
/// assert_eq!(total[0], 500_500);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
#[doc(alias = "grid_group")]
pub struct CooperativeGrid {
    _private: (),
}

impl CooperativeGrid {
    /// The handle `#[kernel(cooperative)]` passes to the kernel's body.
    ///
    /// # Safety
    ///
    /// Only in a kernel launched cooperatively (every block resident at
    /// once, and on the GPU through the driver's cooperative launch, which
    /// provides the grid barrier's word).
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn __in_cooperative_launch() -> Self {
        CooperativeGrid { _private: () }
    }

    /// Every thread of the grid waits here until all have arrived; writes
    /// made before the call by any thread of the grid are visible to every
    /// thread after it (CUDA's `grid.sync()`).
    ///
    /// Every thread of every block must make the same call, as for
    /// [`ThreadBlock::sync`](crate::ThreadBlock::sync): the CPU backend
    /// reports a block that returned or waits at another grid sync, with
    /// the blocks, threads and lines. On the GPU it is a block barrier, one
    /// atomic add and a polling load per block on the driver's barrier
    /// word, and a block barrier: a few microseconds on an H100, against
    /// the few microseconds of a second launch (chapter 10 of the guide,
    /// `docs/guide/10-grids.md`, has the measured figures).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// /// Every block writes its rank; after the sync, each reads the next
    /// /// block's (which a plain launch could not promise was written).
    /// #[kernel(cooperative)]
    /// pub fn neighbours(grid: CooperativeGrid, ranks: Out<u32>, next: Out<u32>) {
    ///     let b = grid.block_rank();
    ///     let first = this_thread_block().thread_rank() == 0;
    ///     if first {
    ///         ranks.write(b, b as u32);
    ///     }
    ///     grid.sync();
    ///     if first {
    ///         next.write(b, ranks.read((b + 1) % grid.num_blocks()));
    ///     }
    /// }
    ///
    /// let (mut ranks, mut next) = (vec![0u32; 3], vec![0u32; 3]);
    /// coop_host::Cpu::new()
    ///     .launch(neighbours, coop_host::LaunchConfig::new(3, 32), (&mut ranks, &mut next))?;
    /// assert_eq!(next, [1, 2, 0]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "grid_group::sync")]
    pub fn sync(&self) {
        Target::sync_grid(site!());
    }

    /// The same grid as a [`Grid`], for code written for one.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// fn global_id(grid: Grid) -> usize {
    ///     grid.thread_rank()
    /// }
    ///
    /// #[kernel(cooperative)]
    /// pub fn ids(grid: CooperativeGrid, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), global_id(grid.grid()) as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 8];
    /// coop_host::Cpu::new().launch(ids, coop_host::LaunchConfig::new(2, 4), (&mut out,))?;
    /// assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn grid(&self) -> Grid {
        crate::this_grid()
    }

    /// The calling thread's rank among all threads of the launch (as
    /// [`Grid::thread_rank`]).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel(cooperative)]
    /// pub fn ranks(grid: CooperativeGrid, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), grid.thread_rank() as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 6];
    /// coop_host::Cpu::new().launch(ranks, coop_host::LaunchConfig::new(3, 2), (&mut out,))?;
    /// assert_eq!(out, [0, 1, 2, 3, 4, 5]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn thread_rank(&self) -> usize {
        self.grid().thread_rank()
    }

    /// Threads in the launch (as [`Grid::num_threads`]).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel(cooperative)]
    /// pub fn total(grid: CooperativeGrid, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), grid.num_threads() as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 6];
    /// coop_host::Cpu::new().launch(total, coop_host::LaunchConfig::new(3, 2), (&mut out,))?;
    /// assert!(out.iter().all(|&n| n == 6));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "size")]
    pub fn num_threads(&self) -> usize {
        self.grid().num_threads()
    }

    /// The calling thread's block, linearised with `x` fastest (as
    /// [`Grid::block_rank`]).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel(cooperative)]
    /// pub fn blocks(grid: CooperativeGrid, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), grid.block_rank() as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 4];
    /// coop_host::Cpu::new().launch(blocks, coop_host::LaunchConfig::new((2, 2), 1), (&mut out,))?;
    /// assert_eq!(out, [0, 1, 2, 3]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn block_rank(&self) -> usize {
        self.grid().block_rank()
    }

    /// Blocks in the launch (as [`Grid::num_blocks`]).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel(cooperative)]
    /// pub fn count(grid: CooperativeGrid, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), grid.num_blocks() as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 4];
    /// coop_host::Cpu::new().launch(count, coop_host::LaunchConfig::new((2, 2), 1), (&mut out,))?;
    /// assert!(out.iter().all(|&n| n == 4));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn num_blocks(&self) -> usize {
        self.grid().num_blocks()
    }

    /// The calling thread's block index (CUDA's `blockIdx`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel(cooperative)]
    /// pub fn ys(grid: CooperativeGrid, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), grid.block_index().y);
    /// }
    ///
    /// let mut out = vec![0u32; 4];
    /// coop_host::Cpu::new().launch(ys, coop_host::LaunchConfig::new((2, 2), 1), (&mut out,))?;
    /// assert_eq!(out, [0, 0, 1, 1]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "blockIdx")]
    pub fn block_index(&self) -> Dim3 {
        self.grid().block_index()
    }

    /// The grid's shape in blocks (CUDA's `gridDim`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel(cooperative)]
    /// pub fn shape(grid: CooperativeGrid, out: Out<u32>) {
    ///     let d = grid.dim_blocks();
    ///     out.write(grid.thread_rank(), d.x * 10 + d.y);
    /// }
    ///
    /// let mut out = vec![0u32; 6];
    /// coop_host::Cpu::new().launch(shape, coop_host::LaunchConfig::new((3, 2), 1), (&mut out,))?;
    /// assert!(out.iter().all(|&v| v == 32));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "gridDim")]
    pub fn dim_blocks(&self) -> Dim3 {
        self.grid().dim_blocks()
    }

    /// The shape of every block (CUDA's `blockDim`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel(cooperative)]
    /// pub fn shape(grid: CooperativeGrid, out: Out<u32>) {
    ///     out.write(grid.thread_rank(), grid.dim_threads().volume() as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 8];
    /// coop_host::Cpu::new().launch(shape, coop_host::LaunchConfig::new(2, (2, 2)), (&mut out,))?;
    /// assert!(out.iter().all(|&v| v == 4));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn dim_threads(&self) -> Dim3 {
        self.grid().dim_threads()
    }
}

/// What `Grid::sync` asks of a kernel it can never be given: the teaching
/// error of a grid sync outside a cooperative kernel.
#[diagnostic::on_unimplemented(
    message = "a grid sync needs a cooperative kernel: declare it `#[kernel(cooperative)]` and take `grid: CooperativeGrid` instead of `Grid`",
    label = "`Grid` only indexes the launch; it cannot wait for every block",
    note = "a grid sync waits for every block of the grid, which only works when every block is on the GPU at once: coop_host launches a `#[kernel(cooperative)]` through the driver's cooperative launch, after checking that its grid fits (`Module::max_cooperative_blocks`)"
)]
pub trait NeedsCooperativeKernel {}

impl Grid {
    /// Does not exist: a grid sync needs `#[kernel(cooperative)]` and a
    /// [`CooperativeGrid`]; this stub is here for the compile error that
    /// says so.
    #[doc(hidden)]
    #[inline(always)]
    pub fn sync(&self)
    where
        for<'a> &'a Grid: NeedsCooperativeKernel,
    {
    }
}
