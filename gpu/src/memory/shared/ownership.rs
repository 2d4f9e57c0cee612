//! Which thread owns which element while a shared array is being written.
//!
//! An ownership map gives every element of an array exactly one owner, so
//! that in an [`Owned`](super::Owned) phase no two threads ever touch the
//! same element. The maps are coop's own types (the trait is sealed): each
//! is a partition of the array over the block's threads by construction.

use super::SharedArray;
use crate::{AnyTileSize, Dim3, TileSize};
use core::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::ByRank {}
    impl Sealed for super::RowMajor {}
    impl Sealed for super::ColumnMajor {}
    impl<const N: u32> Sealed for super::TileLeaders<N> {}
    impl<O, N, I> Sealed for super::ByFunction<O, N, I> {}
}

/// A partition of a shared array's elements over the threads of a block.
pub trait Ownership<A: SharedArray + ?Sized>: Copy + sealed::Sealed {
    /// Which of its elements a thread names: `k` for the k-th (`usize`
    /// under [`ByRank`]), or `(i, j)` for the one `i` strides down and `j`
    /// strides across (under [`RowMajor`] and [`ColumnMajor`]).
    type Nth: Copy;
    /// The calling thread's `n`-th element: owned by construction, so
    /// writing it needs no ownership check.
    fn nth(&self, n: Self::Nth, thread: Dim3, dims: Dim3) -> A::Index;
    /// Whether the thread at `thread` of a block shaped `dims` owns the
    /// element at `index`.
    fn owns(&self, index: A::Index, thread: Dim3, dims: Dim3) -> bool;
    /// The first element the thread owns (it may lie outside the array
    /// when the block has more threads than the array has elements).
    fn first(&self, thread: Dim3, dims: Dim3) -> A::Index;
    /// The owner of `index`, for error messages.
    fn owner(&self, index: A::Index, dims: Dim3) -> Dim3;
    /// Whether `nth` may hand out an element its owner did not check
    /// (false for maps the user writes: their `nth` is checked against
    /// their owner on every `write_nth` and `read_nth`).
    #[doc(hidden)]
    const NTH_CHECKED: bool = false;
    /// Whether the thread owns any element at all: a thread that owns none
    /// (a tile's other threads under [`TileLeaders`]) is reported at its
    /// `write_nth` or `read_nth` instead of being handed an element.
    #[inline(always)]
    fn owns_some(&self, _thread: Dim3, _dims: Dim3) -> bool {
        true
    }
}

/// 1-D arrays: element `i` belongs to the thread whose block rank is
/// `(i - offset) mod threads`. With offset 0 the thread of rank `r` owns
/// elements `r`, `r + threads`, `r + 2 * threads`, ...
///
/// ```
/// use coop::shared::{ByRank, Ownership};
/// use coop::Dim3;
/// let dims = Dim3::new(4, 1, 1);
/// let t2 = Dim3::new(2, 0, 0);
/// assert!(<ByRank as Ownership<[f32; 8]>>::owns(&ByRank::new(), 6, t2, dims));
/// assert_eq!(<ByRank as Ownership<[f32; 8]>>::first(&ByRank::offset(1), t2, dims), 3);
/// // With an offset of 1, element 0 (a left halo) belongs to the last thread.
/// assert_eq!(<ByRank as Ownership<[f32; 8]>>::owner(&ByRank::offset(1), 0, dims), Dim3::new(3, 0, 0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ByRank {
    offset: i64,
}

impl ByRank {
    /// Thread `r` owns element `r` (and every `threads`-th after it).
    pub const fn new() -> Self {
        ByRank { offset: 0 }
    }

    /// Thread `r` owns element `r + offset` (and every `threads`-th after
    /// it); the elements before `offset` belong to the last threads. An
    /// array with one halo cell on each side uses `ByRank::offset(1)`.
    pub const fn offset(offset: i64) -> Self {
        ByRank { offset }
    }
}

/// `a % n`, with a mask when `n` is a power of two (block shapes usually
/// are): an integer division costs the GPU dozens of instructions, and an
/// ownership check runs on every write.
#[inline(always)]
fn rem(a: usize, n: usize) -> usize {
    if n.is_power_of_two() {
        a & (n - 1)
    } else {
        a % n
    }
}

fn rank(t: Dim3, d: Dim3) -> i64 {
    d.linearize_u32(t) as i64
}

impl<A: SharedArray<Index = usize> + ?Sized> Ownership<A> for ByRank {
    type Nth = usize;

    #[inline(always)]
    fn nth(&self, n: usize, thread: Dim3, dims: Dim3) -> usize {
        (rank(thread, dims) + self.offset) as usize + n * dims.volume() as usize
    }

    #[inline(always)]
    fn owns(&self, index: usize, thread: Dim3, dims: Dim3) -> bool {
        let shifted = index as i64 - self.offset;
        let r = rank(thread, dims);
        let n = dims.volume() as i64;
        shifted == r
            || if shifted >= 0 {
                rem(shifted as usize, n as usize) as i64 == r
            } else {
                shifted.rem_euclid(n) == r
            }
    }

    #[inline(always)]
    fn first(&self, thread: Dim3, dims: Dim3) -> usize {
        (rank(thread, dims) + self.offset) as usize
    }

    fn owner(&self, index: usize, dims: Dim3) -> Dim3 {
        let r = (index as i64 - self.offset).rem_euclid(dims.volume() as i64) as u32;
        Dim3::new(r % dims.x, (r / dims.x) % dims.y, r / (dims.x * dims.y))
    }
}

/// 2-D arrays: thread `(x, y)` owns `[y][x]`, and every element
/// `[y + j * dim_y][x + i * dim_x]`, so a warp of consecutive `x` writes
/// one row (CUDA's `tile[threadIdx.y][threadIdx.x]`). Threads with `z > 0`
/// own nothing.
///
/// ```
/// use coop::shared::{Ownership, RowMajor};
/// use coop::Dim3;
/// let dims = Dim3::new(32, 8, 1);
/// let t = Dim3::new(5, 3, 0);
/// assert_eq!(<RowMajor as Ownership<[[f32; 32]; 32]>>::first(&RowMajor, t, dims), (3, 5));
/// assert!(<RowMajor as Ownership<[[f32; 32]; 32]>>::owns(&RowMajor, (3 + 8, 5), t, dims));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowMajor;

/// 2-D arrays: thread `(x, y)` owns `[x][y]`, and every element
/// `[x + i * dim_x][y + j * dim_y]` (CUDA's `tile[threadIdx.x][threadIdx.y]`:
/// a warp writes one column). Threads with `z > 0` own nothing.
///
/// ```
/// use coop::shared::{ColumnMajor, Ownership};
/// use coop::Dim3;
/// let dims = Dim3::new(32, 32, 1);
/// let t = Dim3::new(5, 3, 0);
/// assert_eq!(<ColumnMajor as Ownership<[[i32; 32]; 32]>>::first(&ColumnMajor, t, dims), (5, 3));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ColumnMajor;

impl<A: SharedArray<Index = (usize, usize)> + ?Sized> Ownership<A> for RowMajor {
    type Nth = (usize, usize);

    #[inline(always)]
    fn nth(&self, (i, j): (usize, usize), t: Dim3, d: Dim3) -> (usize, usize) {
        if t.z != 0 {
            return (usize::MAX, usize::MAX); // owns nothing: out of bounds
        }
        (
            (t.y + i as u32 * d.y) as usize,
            (t.x + j as u32 * d.x) as usize,
        )
    }

    #[inline(always)]
    fn owns(&self, (row, col): (usize, usize), t: Dim3, d: Dim3) -> bool {
        t.z == 0 && rem(col, d.x as usize) == t.x as usize && rem(row, d.y as usize) == t.y as usize
    }

    #[inline(always)]
    fn first(&self, t: Dim3, _d: Dim3) -> (usize, usize) {
        (t.y as usize, t.x as usize)
    }

    fn owner(&self, (row, col): (usize, usize), d: Dim3) -> Dim3 {
        Dim3::new((col % d.x as usize) as u32, (row % d.y as usize) as u32, 0)
    }
}

/// `ColumnMajor` is `RowMajor` with the array's two indices swapped.
impl<A: SharedArray<Index = (usize, usize)> + ?Sized> Ownership<A> for ColumnMajor {
    type Nth = (usize, usize);

    #[inline(always)]
    fn nth(&self, (i, j): (usize, usize), t: Dim3, d: Dim3) -> (usize, usize) {
        let (col, row) = <RowMajor as Ownership<A>>::nth(&RowMajor, (j, i), t, d);
        (row, col)
    }

    #[inline(always)]
    fn owns(&self, (row, col): (usize, usize), t: Dim3, d: Dim3) -> bool {
        <RowMajor as Ownership<A>>::owns(&RowMajor, (col, row), t, d)
    }

    #[inline(always)]
    fn first(&self, t: Dim3, d: Dim3) -> (usize, usize) {
        let (col, row) = <RowMajor as Ownership<A>>::first(&RowMajor, t, d);
        (row, col)
    }

    fn owner(&self, (row, col): (usize, usize), d: Dim3) -> Dim3 {
        <RowMajor as Ownership<A>>::owner(&RowMajor, (col, row), d)
    }
}

/// 1-D arrays: one slot for each tile of `N` threads, owned by the tile's
/// leader (its thread of rank 0), the most common layout of CUDA
/// reductions (`partials[warp] = warp_sum` by lane 0, a barrier, then one
/// warp reads them). With `tiles = ceil(threads / N)`, element `i` belongs
/// to the leader of tile `i mod tiles`, i.e. the thread of block rank
/// `(i mod tiles) * N`; the tile's other threads own nothing. `N` is any
/// tile size, a warp's (1 to 32) or whole warps' (64 to 1024), as
/// `tiled_partition::<N>()` takes.
///
/// ```
/// use coop::prelude::*;
/// use coop::shared::{Shared, TileLeaders};
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// `out[0]` = the block's sum: each warp's leader stores the warp's sum
/// /// in its slot, then the first warp adds the slots.
/// #[kernel]
/// pub fn block_sum(block: ThreadBlock, input: &[u32], out: Out<u32>, partials: Shared<[u32; 32]>) {
///     let warp = block.tiled_partition::<32>();
///     let sum = reduce(&warp, input[block.thread_rank() as usize], op::Sum);
///     let slots = partials.own(TileLeaders::<32>);
///     if warp.thread_rank() == 0 {
///         slots.set(sum); // slot `warp.meta_group_rank()`
///     }
///     let slots = slots.publish(&block);
///     if warp.meta_group_rank() == 0 {
///         let lane = warp.thread_rank() as usize;
///         let v = if lane < warp.meta_group_size() as usize { slots.get(lane) } else { 0 };
///         let total = reduce(&warp, v, op::Sum);
///         if lane == 0 {
///             out.write(0, total);
///         }
///     }
/// }
///
/// let input: Vec<u32> = (0..256).collect();
/// let mut out = vec![0u32; 1];
/// Cpu::new().launch(block_sum, LaunchConfig::new(1, 256), (&input[..], &mut out))?;
/// assert_eq!(out[0], 255 * 256 / 2);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TileLeaders<const N: u32>;

impl<const N: u32> TileLeaders<N> {
    /// Tiles of `N` in a block of `dims`.
    #[inline(always)]
    fn tiles(dims: Dim3) -> usize {
        (dims.volume() as usize).div_ceil(N as usize)
    }
}

impl<const N: u32, A: SharedArray<Index = usize> + ?Sized> Ownership<A> for TileLeaders<N>
where
    TileSize<N>: AnyTileSize,
{
    type Nth = usize;

    #[inline(always)]
    fn nth(&self, n: usize, thread: Dim3, dims: Dim3) -> usize {
        rank(thread, dims) as usize / N as usize + n * Self::tiles(dims)
    }

    #[inline(always)]
    fn owns(&self, index: usize, thread: Dim3, dims: Dim3) -> bool {
        let r = rank(thread, dims) as usize;
        r.is_multiple_of(N as usize) && rem(index, Self::tiles(dims)) == r / N as usize
    }

    #[inline(always)]
    fn first(&self, thread: Dim3, dims: Dim3) -> usize {
        rank(thread, dims) as usize / N as usize
    }

    fn owner(&self, index: usize, dims: Dim3) -> Dim3 {
        let r = (index % Self::tiles(dims)) as u32 * N;
        Dim3::new(r % dims.x, (r / dims.x) % dims.y, r / (dims.x * dims.y))
    }

    #[inline(always)]
    fn owns_some(&self, thread: Dim3, dims: Dim3) -> bool {
        (rank(thread, dims) as usize).is_multiple_of(N as usize)
    }
}

/// 1-D arrays under a map of the user's: `owner(index, threads)` names the
/// block rank that owns element `index`, and `nth(rank, n, threads)` the
/// `n`-th element of the thread of rank `rank`. Every element has exactly
/// one owner because `owner` is a function, so the map is a partition
/// whatever the two functions compute; every write checks `owner` (on
/// both backends, `write_nth` and `set` too), so an `nth` that disagrees
/// with `owner` is reported at the write, naming the element's owner,
/// instead of racing.
///
/// ```
/// use coop::prelude::*;
/// use coop::shared::{ByFunction, Shared};
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// Pairs: thread `r` owns elements `2r` and `2r + 1` (a thread's two
/// /// values side by side, as `s[2 * threadIdx.x + k]` in CUDA).
/// #[kernel]
/// pub fn pairs(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
///     let map = ByFunction::new(|i, _threads| i as u32 / 2, |r, n, _threads| 2 * r as usize + n);
///     let mine = buf.own(map);
///     let r = block.thread_rank();
///     mine.write_nth(0, 10 * r);
///     mine.write_nth(1, 10 * r + 1);
///     let all = mine.publish(&block);
///     out.write(r as usize, all.get(63 - r as usize));
/// }
///
/// let mut out = vec![0u32; 32];
/// Cpu::new().launch(pairs, LaunchConfig::new(1, 32), (&mut out,))?;
/// assert_eq!(out[0], 311); // element 63: thread 31's second
/// # Ok::<(), coop_host::Error>(())
/// ```
///
/// Arrays of two indices take [`ByFunction::new_2d`], whose functions name
/// elements as `(row, column)`.
pub struct ByFunction<O, N, I = usize> {
    owner: O,
    nth: N,
    _index: PhantomData<fn(I) -> I>,
}

impl<O: Copy, N: Copy, I> Clone for ByFunction<O, N, I> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<O: Copy, N: Copy, I> Copy for ByFunction<O, N, I> {}

impl<O, N> ByFunction<O, N>
where
    O: Fn(usize, u32) -> u32 + Copy,
    N: Fn(u32, usize, u32) -> usize + Copy,
{
    /// The map whose element `index` belongs to the thread of block rank
    /// `owner(index, threads)`, and whose thread of rank `r` names its
    /// `n`-th element `nth(r, n, threads)`.
    pub const fn new(owner: O, nth: N) -> Self {
        ByFunction {
            owner,
            nth,
            _index: PhantomData,
        }
    }
}

impl<O, N> ByFunction<O, N, (usize, usize)>
where
    O: Fn((usize, usize), u32) -> u32 + Copy,
    N: Fn(u32, usize, u32) -> (usize, usize) + Copy,
{
    /// [`new`](ByFunction::new) for arrays of rows (`Shared<[[T; C]; R]>`):
    /// element `(row, column)` belongs to the thread of block rank
    /// `owner((row, column), threads)`, and the thread of rank `r` names
    /// its `n`-th element `nth(r, n, threads)`.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::{ByFunction, Shared};
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// 32 threads fill a 4 x 8 array by rank; then thread `r` owns the
    /// /// element of row `r % 4`, column `r / 4` (a transposed walk).
    /// #[kernel]
    /// pub fn walk(block: ThreadBlock, out: Out<u32>, s: Shared<[[u32; 8]; 4]>) {
    ///     let r = block.thread_rank();
    ///     let by_rank = ByFunction::new_2d(
    ///         |(row, col), _threads| (8 * row + col) as u32,
    ///         |r, _n, _threads| (r as usize / 8, r as usize % 8),
    ///     );
    ///     let down = ByFunction::new_2d(
    ///         |(row, col), _threads| (4 * col + row) as u32,
    ///         |r, _n, _threads| (r as usize % 4, r as usize / 4),
    ///     );
    ///     let mine = s.own(by_rank);
    ///     mine.write_nth(0, r);
    ///     let mine = mine.own(&block, down);
    ///     out.write(r as usize, mine.read_nth(0));
    /// }
    ///
    /// let mut out = vec![0u32; 32];
    /// Cpu::new().launch(walk, LaunchConfig::new(1, 32), (&mut out,))?;
    /// assert_eq!(&out[..5], [0, 8, 16, 24, 1]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub const fn new_2d(owner: O, nth: N) -> Self {
        ByFunction {
            owner,
            nth,
            _index: PhantomData,
        }
    }
}

impl<O, N, I> core::fmt::Debug for ByFunction<O, N, I> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("ByFunction")
    }
}

impl<O, N, A> Ownership<A> for ByFunction<O, N, A::Index>
where
    O: Fn(A::Index, u32) -> u32 + Copy,
    N: Fn(u32, usize, u32) -> A::Index + Copy,
    A: SharedArray + ?Sized,
{
    type Nth = usize;
    const NTH_CHECKED: bool = true;

    #[inline(always)]
    fn nth(&self, n: usize, thread: Dim3, dims: Dim3) -> A::Index {
        (self.nth)(rank(thread, dims) as u32, n, dims.volume() as u32)
    }

    #[inline(always)]
    fn owns(&self, index: A::Index, thread: Dim3, dims: Dim3) -> bool {
        (self.owner)(index, dims.volume() as u32) == rank(thread, dims) as u32
    }

    #[inline(always)]
    fn first(&self, thread: Dim3, dims: Dim3) -> A::Index {
        (self.nth)(rank(thread, dims) as u32, 0, dims.volume() as u32)
    }

    fn owner(&self, index: A::Index, dims: Dim3) -> Dim3 {
        let r = (self.owner)(index, dims.volume() as u32);
        Dim3::new(r % dims.x, (r / dims.x) % dims.y, r / (dims.x * dims.y))
    }
}
