//! Row-major 2-D views of kernel buffers, bounds-checked once.
//!
//! A kernel that walks a matrix in a flat buffer checks every `a[i]`
//! against the buffer's length, a compare and a branch per access that
//! the compiler cannot drop (it cannot prove `row * cols + col < len`). A
//! [`Matrix`] checks `rows * cols <= len` once when it is made; each access
//! then checks `row < rows` and `col < cols`, which the kernel's own range
//! test usually already establishes, so the compiler folds them away.

use crate::Out;

#[cold]
#[inline(never)]
#[track_caller]
fn too_small(rows: u32, cols: u32, len: usize) -> ! {
    panic!(
        "coop: a {rows} x {cols} matrix needs {} elements, the buffer has {len}",
        rows as u64 * cols as u64
    )
}

#[cold]
#[inline(never)]
#[track_caller]
fn outside(row: u32, col: u32, rows: u32, cols: u32) -> ! {
    panic!("coop: element ({row}, {col}) is outside a {rows} x {cols} matrix")
}

/// The shape both views share: the one place that checks a buffer's size
/// and turns `(row, col)` into an index.
#[derive(Clone, Copy)]
struct Shape {
    rows: u32,
    cols: u32,
}

impl Shape {
    /// `rows x cols`, which must fit in `len` elements.
    #[inline(always)]
    #[track_caller]
    fn fitting(rows: u32, cols: u32, len: usize) -> Self {
        if (rows as u64 * cols as u64) > len as u64 {
            too_small(rows, cols, len)
        }
        Shape { rows, cols }
    }

    /// The index of `(row, col)`, below `rows * cols` (so below the
    /// buffer's length); panics outside the matrix.
    #[inline(always)]
    #[track_caller]
    fn index(&self, row: u32, col: u32) -> usize {
        if row >= self.rows || col >= self.cols {
            outside(row, col, self.rows, self.cols)
        }
        row as usize * self.cols as usize + col as usize
    }
}

/// A read-only row-major `rows x cols` view of a buffer.
///
/// ```
/// use coop::matrix::{Matrix, MatrixOut};
/// use coop::prelude::*;
/// use coop_host::{Cpu, LaunchConfig};
///
/// #[kernel]
/// pub fn add_column_index(block: ThreadBlock, rows: u32, cols: u32, input: &[f32], out: Out<f32>) {
///     let (a, b) = (Matrix::new(input, rows, cols), MatrixOut::new(out, rows, cols));
///     let t = block.thread_index();
///     if t.y < rows && t.x < cols {
///         b.write(t.y, t.x, a.get(t.y, t.x) + t.x as f32);
///     }
/// }
///
/// let input = vec![1.0f32; 6];
/// let mut out = vec![0.0f32; 6];
/// Cpu::new().launch(add_column_index, LaunchConfig::new(1, (3, 2)), (2u32, 3u32, &input[..], &mut out))?;
/// assert_eq!(out, [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct Matrix<'a, T> {
    data: &'a [T],
    shape: Shape,
}

impl<'a, T: Copy> Matrix<'a, T> {
    /// Views `data` as `rows x cols`, row-major; panics when `data` has
    /// fewer than `rows * cols` elements. See [`Matrix`].
    #[inline(always)]
    #[track_caller]
    pub fn new(data: &'a [T], rows: u32, cols: u32) -> Self {
        let shape = Shape::fitting(rows, cols, data.len());
        Matrix { data, shape }
    }

    /// Element `(row, col)`; panics outside the matrix.
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, row: u32, col: u32) -> T {
        let i = self.shape.index(row, col);
        // SAFETY: `index` is below rows * cols <= len (checked in `new`).
        unsafe { *self.data.get_unchecked(i) }
    }

    /// Rows.
    #[inline(always)]
    pub fn rows(&self) -> u32 {
        self.shape.rows
    }

    /// Columns.
    #[inline(always)]
    pub fn cols(&self) -> u32 {
        self.shape.cols
    }
}

/// A writable row-major `rows x cols` view of an [`Out`] buffer; see
/// [`Matrix`] for an example.
pub struct MatrixOut<'a, T> {
    out: Out<'a, T>,
    shape: Shape,
}

impl<'a, T: Copy> MatrixOut<'a, T> {
    /// Views `out` as `rows x cols`, row-major; panics when `out` has fewer
    /// than `rows * cols` elements.
    #[inline(always)]
    #[track_caller]
    pub fn new(out: Out<'a, T>, rows: u32, cols: u32) -> Self {
        let shape = Shape::fitting(rows, cols, out.len());
        MatrixOut { out, shape }
    }

    /// Writes element `(row, col)`; panics outside the matrix.
    #[inline(always)]
    #[track_caller]
    pub fn write(&self, row: u32, col: u32, value: T) {
        let i = self.shape.index(row, col);
        // SAFETY: in bounds, as for `Matrix::get`.
        unsafe { self.out.write_unchecked(i, value) }
    }

    /// Rows.
    #[inline(always)]
    pub fn rows(&self) -> u32 {
        self.shape.rows
    }

    /// Columns.
    #[inline(always)]
    pub fn cols(&self) -> u32 {
        self.shape.cols
    }
}
