//! NVIDIA's `conjugateGradientMultiBlockCG` sample in coop: the whole
//! conjugate-gradient solve of `A x = b` for a sparse symmetric matrix in
//! CSR form, in one cooperative launch, with grid syncs between its
//! steps (sparse matrix-vector product, saxpys, dot products).
//!
//! The kernel declares its launch shape: blocks of 512 threads, of which
//! three should share a multiprocessor (`#[kernel(block = 512, min_blocks =
//! 3)]`), which holds ptxas to 40 registers a thread, as nvcc gives the
//! CUDA sample. Without them ptxas gives this kernel 51, only two
//! blocks fit on a multiprocessor, and the solve takes 1.25 times as long
//! (chapter 7 of the guide has the figures).
//!
//! `examples/bench/conjugate_gradient.cu` is the CUDA C++ twin (the
//! sample's kernel, with coop's parameter words); `conjugate_gradient_bench`
//! times both on one grid.

use coop::prelude::*;

/// Blocks of the sample: 512 threads.
pub const CG_THREADS: u32 = 512;
/// The sample's iteration limit.
pub const CG_MAX_ITERATIONS: u32 = 10_000;

/// `y[i] = sum_j val[j] * x[cols[j]]` over row `i`'s entries, for every
/// row, grid-stride. A row's columns and values are slices (one bounds
/// check a slice) read by a counted loop, whose indices the compiler
/// knows are inside them; each gathered `x` is checked.
#[inline(always)]
fn spmv(
    grid: &CooperativeGrid,
    rows: &[i32],
    cols: &[i32],
    val: &[f32],
    x: &Out<f32>,
    y: &Out<f32>,
) {
    let n = y.len();
    let mut i = grid.thread_rank();
    while i < n {
        let bounds = &rows[i..i + 2];
        let (start, end) = (bounds[0] as usize, bounds[1] as usize);
        let (vals, cols) = (&val[start..end], &cols[start..end]);
        let mut acc = 0.0f32;
        // Indices rather than a zip of the two slices' iterators: the zip
        // compiles to null-pointer tests an entry.
        #[allow(clippy::needless_range_loop)]
        for k in 0..vals.len() {
            acc = vals[k].mul_add(x.read(cols[k] as usize), acc);
        }
        y.write(i, acc);
        i += grid.num_threads();
    }
}

/// `y[i] = a * x[i] + y[i]`, grid-stride.
#[inline(always)]
fn saxpy(grid: &CooperativeGrid, a: f32, x: &Out<f32>, y: &Out<f32>) {
    let mut i = grid.thread_rank();
    while i < y.len() {
        y.write(i, a.mul_add(x.read(i), y.read(i)));
        i += grid.num_threads();
    }
}

/// `y[i] = a * x[i] + scale * y[i]`, grid-stride.
#[inline(always)]
fn scale_and_saxpy(grid: &CooperativeGrid, a: f32, scale: f32, x: &Out<f32>, y: &Out<f32>) {
    let mut i = grid.thread_rank();
    while i < y.len() {
        y.write(i, a.mul_add(x.read(i), scale * y.read(i)));
        i += grid.num_threads();
    }
}

/// `y[i] = x[i]`, grid-stride.
#[inline(always)]
fn copy(grid: &CooperativeGrid, x: &Out<f32>, y: &Out<f32>) {
    let mut i = grid.thread_rank();
    while i < y.len() {
        y.write(i, x.read(i));
        i += grid.num_threads();
    }
}

/// Adds the dot product of `a` and `b` (each product rounded to `f32`,
/// summed in `f64`) to `result[0]`: a grid-stride sum a thread, a block
/// reduction, one atomic add a block.
#[inline(always)]
fn dot(grid: &CooperativeGrid, block: &ThreadBlock, a: &Out<f32>, b: &Out<f32>, result: &Out<f64>) {
    let mut acc = 0.0f64;
    let mut i = grid.thread_rank();
    while i < a.len() {
        acc += (a.read(i) * b.read(i)) as f64;
        i += grid.num_threads();
    }
    let total = reduce(block, acc, op::Sum);
    if block.thread_rank() == 0 {
        result.atomic().add(0, total);
    }
}

/// The two entry points below share one signature and body ([`solve`]);
/// a kernel cannot be generic, so this stamps them out.
macro_rules! conjugate_gradient_kernel {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            grid: CooperativeGrid,
            rows: &[i32],
            cols: &[i32],
            val: &[f32],
            x: InOut<f32>,
            ax: InOut<f32>,
            p: InOut<f32>,
            r: InOut<f32>,
            result: InOut<f64>,
            iterations: Out<u32>,
            tol: f32,
        ) {
            solve(grid, rows, cols, val, x, ax, p, r, result, iterations, tol)
        }
    };
}

conjugate_gradient_kernel!(
    /// Solves `A x = b` by conjugate gradients, `A` the CSR matrix (`rows`,
    /// `cols`, `val`; `rows` has one entry more than `x`), from `x` (the
    /// start, zeros in the sample) and `r` (which holds `b` on entry). `ax`
    /// and `p` are scratch vectors of `x`'s length, `result[0]` must be 0 on
    /// entry and holds the last `r·r`; `iterations[0]` receives the
    /// iterations run. Stops when `r·r <= tol²` or after
    /// [`CG_MAX_ITERATIONS`]. Declared, as the sample is launched, for blocks
    /// of 512 threads (and no other shape) of which three share a
    /// multiprocessor.
    #[kernel(cooperative, block = 512, min_blocks = 3)]
    conjugate_gradient
);

conjugate_gradient_kernel!(
    /// [`conjugate_gradient`] without launch bounds: ptxas chooses the
    /// registers.
    #[kernel(cooperative)]
    conjugate_gradient_unbounded
);

/// The body of both kernels.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn solve(
    grid: CooperativeGrid,
    rows: &[i32],
    cols: &[i32],
    val: &[f32],
    x: Out<f32>,
    ax: Out<f32>,
    p: Out<f32>,
    r: Out<f32>,
    result: Out<f64>,
    iterations: Out<u32>,
    tol: f32,
) {
    // One check of the shapes up front: past it the compiler knows every
    // vector has `n` elements, and drops the per-element bounds checks the
    // loops would otherwise repeat (fewer registers, fewer instructions).
    let n = x.len();
    assert!(
        ax.len() == n && p.len() == n && r.len() == n && rows.len() == n + 1,
        "conjugate_gradient: x, ax, p and r need one element per row of the matrix"
    );
    assert!(!result.is_empty() && !iterations.is_empty());
    let block = this_thread_block();
    let first = grid.thread_rank() == 0;
    spmv(&grid, rows, cols, val, &x, &ax);
    grid.sync();
    saxpy(&grid, -1.0, &ax, &r);
    grid.sync();
    dot(&grid, &block, &r, &r, &result);
    grid.sync();
    let mut r1 = result.read(0) as f32;
    let mut r0 = 0.0f32;
    let mut k = 1;
    while r1 > tol * tol && k <= CG_MAX_ITERATIONS {
        if k > 1 {
            scale_and_saxpy(&grid, 1.0, r1 / r0, &r, &p);
        } else {
            copy(&grid, &r, &p);
        }
        grid.sync();
        spmv(&grid, rows, cols, val, &p, &ax);
        if first {
            result.write(0, 0.0);
        }
        grid.sync();
        dot(&grid, &block, &p, &ax, &result);
        grid.sync();
        let a = r1 / result.read(0) as f32;
        saxpy(&grid, a, &p, &x);
        saxpy(&grid, -a, &ax, &r);
        r0 = r1;
        grid.sync();
        if first {
            result.write(0, 0.0);
        }
        grid.sync();
        dot(&grid, &block, &r, &r, &result);
        grid.sync();
        r1 = result.read(0) as f32;
        k += 1;
    }
    if first {
        iterations.write(0, k - 1);
    }
}
