//! The shapes a shared array can have, and how an index finds its element.

use super::SharedElem;
use core::fmt::Debug;

mod sealed {
    pub trait Sealed {}
    impl<E, const N: usize> Sealed for [E; N] {}
    impl<E> Sealed for [E] {}
}

/// The type of a shared array: `[E; N]` (1-D, indexed by `usize`),
/// `[[E; C]; R]` (2-D, `R` rows of `C` elements, indexed by `(row, column)`),
/// or `[E]` (1-D, sized at launch by the launch's dynamic shared memory).
///
/// ```
/// use coop::shared::SharedArray;
/// assert_eq!(<[f32; 256] as SharedArray>::BYTES, 1024);
/// assert_eq!(<[[i32; 33]; 32] as SharedArray>::BYTES, 32 * 33 * 4); // padded tile
/// assert_eq!(<[[i32; 33]; 32] as SharedArray>::flat((1, 2), 32 * 33), Some(35));
/// assert_eq!(<[[i32; 33]; 32] as SharedArray>::flat((0, 33), 32 * 33), None);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a shared array type",
    label = "not `[E; N]`, `[[E; C]; R]` or `[E]`",
    note = "a shared array is `Shared<[E; N]>`, a 2-D tile `Shared<[[E; C]; R]>`, or `Shared<[E]>` sized at launch, with `E: SharedElem`"
)]
pub trait SharedArray: sealed::Sealed {
    /// The element type.
    type Elem: SharedElem;
    /// How an element is named: `usize`, or `(row, column)`.
    type Index: Copy + Debug;
    /// Bytes of a statically sized array (0 for `[E]`).
    const BYTES: usize;
    /// Alignment of the array.
    const ALIGN: usize;
    /// Elements per row of a 2-D array, 0 for a 1-D one.
    const COLS: usize;
    /// The element number (row-major) of `index` in an array of `len`
    /// elements, or `None` outside it. (Shared arrays are at most a few
    /// hundred KiB, so element numbers fit in `u32`.)
    fn flat(index: Self::Index, len: usize) -> Option<u32>;
}

impl<E: SharedElem, const N: usize> SharedArray for [E; N] {
    type Elem = E;
    type Index = usize;
    const BYTES: usize = core::mem::size_of::<[E; N]>();
    const ALIGN: usize = core::mem::align_of::<E>();
    const COLS: usize = 0;
    #[inline(always)]
    fn flat(index: usize, _len: usize) -> Option<u32> {
        (index < N).then_some(index as u32)
    }
}

impl<E: SharedElem, const C: usize, const R: usize> SharedArray for [[E; C]; R] {
    type Elem = E;
    type Index = (usize, usize);
    const BYTES: usize = core::mem::size_of::<[[E; C]; R]>();
    const ALIGN: usize = core::mem::align_of::<E>();
    const COLS: usize = C;
    #[inline(always)]
    fn flat((row, col): (usize, usize), _len: usize) -> Option<u32> {
        (row < R && col < C).then_some(row as u32 * C as u32 + col as u32)
    }
}

impl<E: SharedElem> SharedArray for [E] {
    type Elem = E;
    type Index = usize;
    const BYTES: usize = 0;
    const ALIGN: usize = core::mem::align_of::<E>();
    const COLS: usize = 0;
    #[inline(always)]
    fn flat(index: usize, len: usize) -> Option<u32> {
        (index < len).then_some(index as u32)
    }
}
