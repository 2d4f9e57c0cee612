//! Matrix transpose through a shared tile, after the shared-memory banks
//! tutorial's padded tile: blocks of 32 x 4 threads move 32 x 32 tiles,
//! each thread eight elements. Global reads and writes are both along rows
//! (coalesced); the tile turns rows into columns. Launch each kernel over
//! `(cols / 32, rows / 32)` blocks (rounded up) of `(32, ROWS)` threads.
//!
//! 32 x 4 blocks keep more loads in flight per thread before the barrier
//! than 32 x 8 blocks; chapter 7 of the guide has the figures of both.

use coop::matrix::{Matrix, MatrixOut};
use coop::prelude::*;
use coop::shared::{RowMajor, Shared};

/// Tile side.
pub const TILE: usize = 32;
/// Rows of threads per block; each thread handles `TILE / ROWS` elements.
pub const ROWS: usize = 4;

/// Elements each thread moves.
const PER_THREAD: usize = TILE / ROWS;

/// The calling thread's column `x` of its block's input tile, the tile's
/// first row `y` for the thread, and its elements at rows `y`, `y + ROWS`,
/// ... (zero outside the matrix).
///
/// Every kernel loads all of its thread's elements before it stores any,
/// so that the loads are in flight together: a store right after each load
/// would wait for that load's round trip, once per element.
#[inline(always)]
fn load_column(block: &ThreadBlock, input: &Matrix<f32>) -> (u32, u32, [f32; PER_THREAD]) {
    let (t, b) = (block.thread_index(), block.group_index());
    let x = b.x * TILE as u32 + t.x;
    let y = b.y * TILE as u32 + t.y;
    let v = core::array::from_fn(|i| {
        let row = y + (i * ROWS) as u32;
        if x < input.cols() && row < input.rows() {
            input.get(row, x)
        } else {
            0.0
        }
    });
    (x, y, v)
}

/// The same access pattern as the transposes without the transposition:
/// the copy bandwidth a transpose can hope for.
#[kernel]
pub fn copy_tiles(block: ThreadBlock, rows: u32, cols: u32, input: &[f32], out: Out<f32>) {
    let (input, out) = (
        Matrix::new(input, rows, cols),
        MatrixOut::new(out, rows, cols),
    );
    let (x, y, v) = load_column(&block, &input);
    for (i, &v) in v.iter().enumerate() {
        let row = y + (i * ROWS) as u32;
        if x < cols && row < rows {
            out.write(row, x, v);
        }
    }
}

/// Reads rows, writes columns straight to global memory: the writes of a
/// warp land 32 rows apart.
#[kernel]
pub fn transpose_naive(block: ThreadBlock, rows: u32, cols: u32, input: &[f32], out: Out<f32>) {
    let (input, out) = (
        Matrix::new(input, rows, cols),
        MatrixOut::new(out, cols, rows),
    );
    let (x, y, v) = load_column(&block, &input);
    for (i, &v) in v.iter().enumerate() {
        let row = y + (i * ROWS) as u32;
        if x < cols && row < rows {
            out.write(x, row, v);
        }
    }
}

/// Stages each tile in shared memory of `A` (`[[f32; 32]; 32]`, or padded
/// to 33 columns): rows in, columns out. Thread `(x, y)` writes its
/// elements `[y + i * ROWS][x]` with `write_nth`, which needs no ownership
/// check, and the matrices are [`Matrix`] views, whose bounds checks the
/// kernel's own range tests make free.
#[inline(always)]
fn transpose_tiled<const C: usize>(
    block: ThreadBlock,
    rows: u32,
    cols: u32,
    input: &[f32],
    out: Out<f32>,
    tile: Shared<[[f32; C]; TILE]>,
) {
    let (input, out) = (
        Matrix::new(input, rows, cols),
        MatrixOut::new(out, cols, rows),
    );
    let (x, y, v) = load_column(&block, &input);
    let (t, b) = (block.thread_index(), block.group_index());
    let (side, step) = (TILE as u32, ROWS as u32);
    let mine = tile.own(RowMajor);
    for (i, &v) in v.iter().enumerate() {
        if x < cols && y + i as u32 * step < rows {
            mine.write_nth((i, 0), v);
        }
    }
    let tile = mine.publish(&block);
    // The output tile at block (b.y, b.x) of the transposed matrix.
    let x = b.y * side + t.x;
    let y = b.x * side + t.y;
    let v: [f32; PER_THREAD] = core::array::from_fn(|i| {
        if x < rows && y + i as u32 * step < cols {
            tile.get((t.x as usize, (t.y + i as u32 * step) as usize))
        } else {
            0.0
        }
    });
    for (i, &v) in v.iter().enumerate() {
        let row = y + i as u32 * step;
        if x < rows && row < cols {
            out.write(row, x, v);
        }
    }
}

/// Through a 32 x 32 tile: reading a column of it is a 32-way bank
/// conflict.
#[kernel]
pub fn transpose_shared(
    block: ThreadBlock,
    rows: u32,
    cols: u32,
    input: &[f32],
    out: Out<f32>,
    tile: Shared<[[f32; TILE]; TILE]>,
) {
    transpose_tiled(block, rows, cols, input, out, tile)
}

/// Through a 32 x 33 tile: the padding column puts a column's elements in
/// 32 different banks.
#[kernel]
pub fn transpose_padded(
    block: ThreadBlock,
    rows: u32,
    cols: u32,
    input: &[f32],
    out: Out<f32>,
    tile: Shared<[[f32; TILE + 1]; TILE]>,
) {
    transpose_tiled(block, rows, cols, input, out, tile)
}
