//! The shared-memory banks tutorial's 2-D tiles: a 32 x 32 block writes
//! its thread index into a 32 x 32 `i32` tile and reads it back, row-major
//! or column-major, from a static or a dynamic array, with or without a
//! padding column. Every kernel writes `out[idx]` for
//! `idx = y * 32 + x`; what it reads differs:
//!
//! | kernel | writes | reads | transactions per request (store, load) |
//! |---|---|---|---|
//! | [`set_row_read_row`] | `[y][x]` | `[y][x]` | 1, 1 |
//! | [`set_col_read_col`] | `[x][y]` | `[x][y]` | 32, 32 |
//! | [`set_row_read_col`] | `[y][x]` | `[x][y]` | 1, 32 |
//! | [`set_row_read_col_dyn`] | `[row_idx]` | `[col_idx]` | 1, 32 |
//! | [`set_row_read_col_pad`] | `[y][x]` of 33 columns | `[x][y]` | 1, 1 |
//!
//! Launch each with one block of 32 x 32 threads
//! ([`set_row_read_col_dyn`] with `32 * 32 * 4` bytes of dynamic shared
//! memory).

use coop::prelude::*;
use coop::shared::{ByRank, ColumnMajor, RowMajor, Shared};

/// The tile's side: the shared-memory banks tutorial's `BDIMX` and `BDIMY`.
pub const DIM: usize = 32;

fn index(block: &ThreadBlock) -> (usize, usize, usize) {
    let t = block.thread_index();
    let (x, y) = (t.x as usize, t.y as usize);
    (x, y, y * DIM + x)
}

/// Row-major write, row-major read: no bank conflicts.
#[kernel]
pub fn set_row_read_row(block: ThreadBlock, out: Out<i32>, tile: Shared<[[i32; DIM]; DIM]>) {
    let (x, y, idx) = index(&block);
    let mine = tile.own(RowMajor);
    mine.write((y, x), idx as i32);
    let tile = mine.publish(&block);
    out.write(idx, tile.get((y, x)));
}

/// Column-major write and read: the 32 threads of a warp hit one bank.
#[kernel]
pub fn set_col_read_col(block: ThreadBlock, out: Out<i32>, tile: Shared<[[i32; DIM]; DIM]>) {
    let (x, y, idx) = index(&block);
    let mine = tile.own(ColumnMajor);
    mine.write((x, y), idx as i32);
    let tile = mine.publish(&block);
    out.write(idx, tile.get((x, y)));
}

/// Row-major write, column-major read: conflicts on the read only.
#[kernel]
pub fn set_row_read_col(block: ThreadBlock, out: Out<i32>, tile: Shared<[[i32; DIM]; DIM]>) {
    let (x, y, idx) = index(&block);
    let mine = tile.own(RowMajor);
    mine.write((y, x), idx as i32);
    let tile = mine.publish(&block);
    out.write(idx, tile.get((x, y)));
}

/// [`set_row_read_col`] on dynamic shared memory, indexed by hand.
#[kernel]
pub fn set_row_read_col_dyn(block: ThreadBlock, out: Out<i32>, tile: Shared<[i32]>) {
    let (x, y, row_idx) = index(&block);
    let col_idx = x * DIM + y;
    let mine = tile.own(ByRank::new()); // thread `row_idx` owns element `row_idx`
    mine.write(row_idx, row_idx as i32);
    let tile = mine.publish(&block);
    out.write(row_idx, tile.get(col_idx));
}

/// [`set_row_read_col`] with one padding column: a column's elements fall
/// in 32 different banks.
#[kernel]
pub fn set_row_read_col_pad(
    block: ThreadBlock,
    out: Out<i32>,
    tile: Shared<[[i32; DIM + 1]; DIM]>,
) {
    let (x, y, idx) = index(&block);
    let mine = tile.own(RowMajor);
    mine.write((y, x), idx as i32);
    let tile = mine.publish(&block);
    out.write(idx, tile.get((x, y)));
}
