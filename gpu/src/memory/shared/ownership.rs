//! Which thread owns which element while a shared array is being written.
//!
//! An ownership map gives every element of an array exactly one owner, so
//! that in an [`Owned`](super::Owned) phase no two threads ever touch the
//! same element. The maps are coop's own types (the trait is sealed): each
//! is a partition of the array over the block's threads by construction.

use super::SharedArray;
use crate::Dim3;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::ByRank {}
    impl Sealed for super::RowMajor {}
    impl Sealed for super::ColumnMajor {}
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
