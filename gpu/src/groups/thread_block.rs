//! The block: `ThreadBlock`, its ranks and its barrier, the tiles carved
//! from it, and the `WarpOnly` methods that exist only to explain why a
//! block cannot shuffle.

use crate::Dim3;
use crate::backend::target::Target;
use crate::backend::{Barriers, Registers, site};
use crate::groups::tile::{AnyTileSize, TileSize, TiledPartition};

/// The threads of one block, as CUDA's `cooperative_groups::thread_block`.
///
/// Obtain it as a kernel parameter (`block: ThreadBlock`) or with
/// [`this_thread_block`]. It is a zero-sized token: every method reads a
/// special register or issues one barrier.
///
/// Warp-level collectives (`shfl*`, `ballot`, `any`, `all`, `match_*`) are
/// not available on a block, which may span many warps: take a
/// [`TiledPartition`] first with [`tiled_partition`](Self::tiled_partition).
///
/// ```
/// use coop::prelude::*;
///
/// #[kernel]
/// pub fn reverse_in_block(block: ThreadBlock, input: &[u32], out: Out<u32>) {
///     let n = block.num_threads() as usize;
///     let r = block.thread_rank() as usize;
///     let base = block.group_index().x as usize * n;
///     out.write(base + n - 1 - r, input[base + r]);
/// }
///
/// let input: Vec<u32> = (0..8).collect();
/// let mut out = vec![0u32; 8];
/// coop_host::Cpu::new().launch(
///     reverse_in_block,
///     coop_host::LaunchConfig::new(2, 4),
///     (&input, &mut out),
/// )?;
/// assert_eq!(out, [3, 2, 1, 0, 7, 6, 5, 4]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ThreadBlock {
    _private: (),
}

/// The block of the calling thread: the same handle a `block: ThreadBlock`
/// parameter receives, for functions called from a kernel.
///
/// ```
/// use coop::prelude::*;
///
/// fn my_rank() -> u32 {
///     this_thread_block().thread_rank()
/// }
///
/// #[kernel]
/// pub fn ranks(grid: Grid, out: Out<u32>) {
///     out.write(grid.thread_rank(), my_rank());
/// }
///
/// let mut out = vec![0u32; 6];
/// coop_host::Cpu::new().launch(ranks, coop_host::LaunchConfig::new(2, 3), (&mut out,))?;
/// assert_eq!(out, [0, 1, 2, 0, 1, 2]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[doc(alias = "cg::this_thread_block")]
pub fn this_thread_block() -> ThreadBlock {
    ThreadBlock { _private: () }
}

/// The calling thread as a group of its own (CUDA's `this_thread()`): the
/// block's tile of one thread, whose `thread_rank` is 0, `num_threads` 1,
/// `meta_group_rank` the thread's rank in the block and `sync` a barrier
/// that waits for no one. CUDA code passes it where a call takes a group
/// but each thread acts alone; a tile of one reduces, scans and shuffles
/// to the thread's own value.
///
/// ```
/// use coop::prelude::*;
///
/// #[kernel]
/// pub fn alone(block: ThreadBlock, out: Out<u32>) {
///     let me = this_thread();
///     me.sync(); // waits for no one
///     let r = block.thread_rank();
///     let own = reduce(&me, r, op::Sum); // the thread's own value
///     out.write(r as usize, 1000 * me.num_threads() + 100 * me.thread_rank() + 10 * me.meta_group_rank() + own);
/// }
///
/// let mut out = vec![0u32; 3];
/// coop_host::Cpu::new().launch(alone, coop_host::LaunchConfig::new(1, 3), (&mut out,))?;
/// assert_eq!(out, [1000, 1011, 1022]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "cg::this_thread")]
pub fn this_thread() -> TiledPartition<1> {
    this_thread_block().tiled_partition::<1>()
}

impl ThreadBlock {
    /// Waits until every thread of the block has reached this barrier, and
    /// makes their earlier writes to shared and global memory visible to the
    /// whole block (CUDA's `__syncthreads()`). It lowers to `barrier.sync 0`,
    /// the non-aligned form, which stays correct when the compiler copies
    /// the call into both arms of a branch that splits a warp (see the
    /// architecture page).
    ///
    /// Every thread of the block must reach the *same* call: a barrier inside
    /// a branch that only some threads take hangs the block or corrupts it.
    /// See the guide's chapter on barriers.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Each thread writes its rank, then reads its neighbour's after the barrier.
    /// #[kernel]
    /// pub fn rotate(block: ThreadBlock, stage: Out<u32>, out: Out<u32>) {
    ///     let r = block.thread_rank() as usize;
    ///     let n = block.num_threads() as usize;
    ///     stage.write(r, r as u32);
    ///     block.sync();
    ///     // SAFETY: every thread wrote its slot before the barrier.
    ///     let next = unsafe { *stage.as_mut_ptr().add((r + 1) % n) };
    ///     out.write(r, next);
    /// }
    ///
    /// let (mut stage, mut out) = (vec![0u32; 64], vec![0u32; 64]);
    /// Cpu::new().launch(rotate, LaunchConfig::new(1, 64), (&mut stage, &mut out))?;
    /// assert_eq!(out[0], 1);
    /// assert_eq!(out[63], 0);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__syncthreads")]
    #[doc(alias = "barrier.sync")]
    pub fn sync(&self) {
        self.sync_at(site!())
    }

    #[inline(always)]
    pub(crate) fn sync_at(&self, site: crate::backend::Site) {
        Target::sync_block("ThreadBlock::sync", site)
    }

    /// The block barrier of the handle method `call` (a block collective,
    /// a shared-memory phase change), which the CPU backend names.
    #[inline(always)]
    pub(crate) fn sync_named(&self, call: &'static str, site: crate::backend::Site) {
        Target::sync_block(call, site)
    }

    /// The calling thread's rank in the block, `0..num_threads()`, with `x`
    /// varying fastest.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn ranks(block: ThreadBlock, out: Out<u32>) {
    ///     out.write(block.thread_rank() as usize, block.thread_rank());
    /// }
    ///
    /// let mut out = vec![0u32; 24];
    /// // A 4 x 3 x 2 block: ranks run x fastest, then y, then z.
    /// Cpu::new().launch(ranks, LaunchConfig::new(1, (4, 3, 2)), (&mut out,))?;
    /// assert_eq!(out, (0..24).collect::<Vec<u32>>());
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn thread_rank(&self) -> u32 {
        let t = Target::thread_index(site!());
        let d = Target::block_dim(site!());
        d.linearize_u32(t)
    }

    /// Threads in the block: the product of the block's three dimensions.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn sizes(block: ThreadBlock, out: Out<u32>) {
    ///     out.write(block.thread_rank() as usize, block.num_threads());
    /// }
    ///
    /// let mut out = vec![0u32; 96];
    /// Cpu::new().launch(sizes, LaunchConfig::new(1, (4, 8, 3)), (&mut out,))?;
    /// assert!(out.iter().all(|&n| n == 96));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "size")]
    pub fn num_threads(&self) -> u32 {
        let d = Target::block_dim(site!());
        d.volume_u32()
    }

    /// The block's index in the grid (CUDA's `blockIdx`).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn block_ids(block: ThreadBlock, out: Out<u32>) {
    ///     let b = block.group_index();
    ///     if block.thread_rank() == 0 {
    ///         out.write((b.x + 3 * b.y) as usize, 10 * b.y + b.x);
    ///     }
    /// }
    ///
    /// let mut out = vec![0u32; 6];
    /// Cpu::new().launch(block_ids, LaunchConfig::new((3, 2), 32), (&mut out,))?;
    /// assert_eq!(out, [0, 1, 2, 10, 11, 12]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "blockIdx")]
    pub fn group_index(&self) -> Dim3 {
        Target::block_index(site!())
    }

    /// The calling thread's index in the block (CUDA's `threadIdx`).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn coordinates(block: ThreadBlock, out: Out<u32>) {
    ///     let t = block.thread_index();
    ///     out.write(block.thread_rank() as usize, 100 * t.z + 10 * t.y + t.x);
    /// }
    ///
    /// let mut out = vec![0u32; 8];
    /// Cpu::new().launch(coordinates, LaunchConfig::new(1, (2, 2, 2)), (&mut out,))?;
    /// assert_eq!(out, [0, 1, 10, 11, 100, 101, 110, 111]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "threadIdx")]
    pub fn thread_index(&self) -> Dim3 {
        Target::thread_index(site!())
    }

    /// The block's shape (CUDA's `blockDim`).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn shape(block: ThreadBlock, out: Out<u32>) {
    ///     let d = block.dim_threads();
    ///     if block.thread_rank() == 0 {
    ///         out.write(0, d.x);
    ///         out.write(1, d.y);
    ///         out.write(2, d.z);
    ///     }
    /// }
    ///
    /// let mut out = vec![0u32; 3];
    /// Cpu::new().launch(shape, LaunchConfig::new(1, (16, 4, 2)), (&mut out,))?;
    /// assert_eq!(out, [16, 4, 2]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "blockDim")]
    pub fn dim_threads(&self) -> Dim3 {
        Target::block_dim(site!())
    }

    /// Splits the block into tiles of `N` consecutive threads by rank.
    ///
    /// `N` must be a power of two from 1 to 1024 (any other size does not
    /// compile), and the block's thread count should be a multiple of `N`
    /// so that every tile is whole. A tile of up to 32 threads costs
    /// nothing to make; one of 64 or more is a block barrier to make (every
    /// thread of the block makes it, then uses it as long as it likes).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// /// Each tile of 128 threads adds up its ranks.
    /// #[kernel]
    /// pub fn quarter_sums(block: ThreadBlock, out: Out<u32>) {
    ///     let tile = block.tiled_partition::<128>();
    ///     let r = block.thread_rank();
    ///     out.write(r as usize, reduce(&tile, r, op::Sum));
    /// }
    ///
    /// let mut out = vec![0u32; 512];
    /// coop_host::Cpu::new().launch(quarter_sums, coop_host::LaunchConfig::new(1, 512), (&mut out,))?;
    /// assert_eq!(out[0], (0..128).sum::<u32>());
    /// assert_eq!(out[511], (384..512).sum::<u32>());
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    ///
    /// ```compile_fail
    /// use coop::prelude::*;
    /// fn f(block: ThreadBlock) {
    ///     let _ = block.tiled_partition::<24>(); // not a power of two
    /// }
    /// ```
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn quads(block: ThreadBlock, out: Out<u32>) {
    ///     let quad = block.tiled_partition::<4>();
    ///     let r = block.thread_rank() as usize;
    ///     out.write(r, 10 * quad.meta_group_rank() + quad.thread_rank());
    /// }
    ///
    /// let mut out = vec![0u32; 8];
    /// Cpu::new().launch(quads, LaunchConfig::new(1, 8), (&mut out,))?;
    /// assert_eq!(out, [0, 1, 2, 3, 10, 11, 12, 13]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "cg::tiled_partition")]
    pub fn tiled_partition<const N: u32>(&self) -> TiledPartition<N>
    where
        TileSize<N>: AnyTileSize,
    {
        let site = site!();
        self.tiled_partition_at::<N>(site)
            .reset_then(|| self.sync_named("tiled_partition", site), site)
    }

    #[inline(always)]
    pub(crate) fn tiled_partition_at<const N: u32>(
        &self,
        site: crate::backend::Site,
    ) -> TiledPartition<N>
    where
        TileSize<N>: AnyTileSize,
    {
        let t = Target::thread_index(site);
        let d = Target::block_dim(site);
        TiledPartition::from_parent(d.linearize_u32(t), d.volume_u32(), site)
    }
}

/// The rule that warp collectives need a tile.
///
/// `ThreadBlock` has methods named like the tile collectives only so that
/// calling one explains the rule instead of reporting a missing method. No
/// type implements this trait.
///
/// ```compile_fail,E0277
/// use coop::prelude::*;
///
/// fn vote(block: ThreadBlock) -> u32 {
///     block.ballot(true) // error: a warp collective called on a `ThreadBlock`
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "a warp collective (shuffle, vote or match) called on a `ThreadBlock`: these exchange values between the lanes of one warp, and a block may span up to 32 warps",
    label = "warp-level collective called on a whole thread block",
    note = "take a tile of at most 32 threads first and call the collective on the tile: `let warp = block.tiled_partition::<32>();`, then `warp.shfl(...)`, `warp.ballot(...)`, ..."
)]
pub trait WarpOnly {
    #[doc(hidden)]
    fn unreachable() -> !;
}

/// Marker types naming each warp collective in the error above.
#[doc(hidden)]
pub mod warp_only {
    pub struct Shfl<T>(core::marker::PhantomData<T>);
    pub struct ShflUp<T>(core::marker::PhantomData<T>);
    pub struct ShflDown<T>(core::marker::PhantomData<T>);
    pub struct ShflXor<T>(core::marker::PhantomData<T>);
    pub struct Ballot<P>(core::marker::PhantomData<P>);
    pub struct Any<P>(core::marker::PhantomData<P>);
    pub struct All<P>(core::marker::PhantomData<P>);
    pub struct MatchAny<T>(core::marker::PhantomData<T>);
    pub struct MatchAll<T>(core::marker::PhantomData<T>);
}

/// These methods exist only to fail: each needs `WarpOnly`, which nothing
/// implements, so calling one on a block is a compile error that states the
/// rule (see [`WarpOnly`]) instead of "no method named `shfl`".
#[doc(hidden)]
impl ThreadBlock {
    pub fn shfl<T>(&self, _value: T, _src_rank: u32) -> T
    where
        warp_only::Shfl<T>: WarpOnly,
    {
        <warp_only::Shfl<T> as WarpOnly>::unreachable()
    }
    pub fn shfl_up<T>(&self, _value: T, _delta: u32) -> T
    where
        warp_only::ShflUp<T>: WarpOnly,
    {
        <warp_only::ShflUp<T> as WarpOnly>::unreachable()
    }
    pub fn shfl_down<T>(&self, _value: T, _delta: u32) -> T
    where
        warp_only::ShflDown<T>: WarpOnly,
    {
        <warp_only::ShflDown<T> as WarpOnly>::unreachable()
    }
    pub fn shfl_xor<T>(&self, _value: T, _lane_mask: u32) -> T
    where
        warp_only::ShflXor<T>: WarpOnly,
    {
        <warp_only::ShflXor<T> as WarpOnly>::unreachable()
    }
    pub fn ballot<P>(&self, _predicate: P) -> u32
    where
        warp_only::Ballot<P>: WarpOnly,
    {
        <warp_only::Ballot<P> as WarpOnly>::unreachable()
    }
    pub fn any<P>(&self, _predicate: P) -> bool
    where
        warp_only::Any<P>: WarpOnly,
    {
        <warp_only::Any<P> as WarpOnly>::unreachable()
    }
    pub fn all<P>(&self, _predicate: P) -> bool
    where
        warp_only::All<P>: WarpOnly,
    {
        <warp_only::All<P> as WarpOnly>::unreachable()
    }
    pub fn match_any<T>(&self, _value: T) -> u32
    where
        warp_only::MatchAny<T>: WarpOnly,
    {
        <warp_only::MatchAny<T> as WarpOnly>::unreachable()
    }
    pub fn match_all<T>(&self, _value: T) -> Option<u32>
    where
        warp_only::MatchAll<T>: WarpOnly,
    {
        <warp_only::MatchAll<T> as WarpOnly>::unreachable()
    }
}
