//! Matrix transpose through a shared tile, after the shared-memory banks
//! tutorial's padded tile: blocks of 32 x 4 threads move 32 x 32 tiles,
//! each thread eight elements. Global reads and writes are both along rows
//! (coalesced); the tile turns rows into columns. Launch each kernel over
//! `(cols / 32, rows / 32)` blocks (rounded up) of `(32, ROWS)` threads.
//!
//! 32 x 4 blocks keep more loads in flight per thread before the barrier
//! than 32 x 8 blocks; chapter 7 of the guide has the figures of both.
//!
//! [`transpose_tensor`] moves the tiles with the copy engine instead (TMA,
//! sm_90): a tensor load into a pipeline stage, a tensor store from a
//! shared array.

use coop::matrix::{Matrix, MatrixOut};
use coop::memory::pipeline::Pipeline;
use coop::memory::tensor::{TensorMap, TensorOut};
use coop::prelude::*;
use coop::shared::{ByFunction, Owned, RowMajor, Shared};

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

/// A tile as the copy engine moves it: 32 rows of 32 `f32`s.
pub type Tile = [[f32; TILE]; TILE];

/// Input tiles in flight a block in [`transpose_tensor`].
pub const TENSOR_STAGES: usize = 2;

/// Through the copy engine (TMA, sm_90): input tiles land in a ring of
/// pipeline stages by tensor loads, [`TENSOR_STAGES`] in flight, the
/// threads transpose each into a shared array, and one tensor store writes
/// that array to the output; two arrays in turn, one barrier a tile
/// ([`Owned::store_tensor_reusing`](coop::shared::Owned::store_tensor_reusing)). No global address passes through a thread,
/// and edges need no tests: a load fills the part of a tile past the
/// matrix with zeros and a store leaves it out. Each block takes every
/// `blocks`-th tile, so a grid of the blocks the GPU holds at once keeps
/// the ring full from the first tile to the last.
///
/// The transposition walks diagonals, so that neither side conflicts on a
/// bank without a padding column (which the copy engine's dense tiles do
/// not have): at step `k` lane `l` reads `[(l + k) % 32][l]` of the stage
/// (bank `l`) and writes `[l][(l + k) % 32]` of the array (bank
/// `(l + k) % 32`); warp `w` of the block takes the steps `k` with
/// `k % ROWS == w`. The array's ownership map says exactly that, so every
/// write is checked against it on both backends.
///
/// Launch with blocks of `(32, ROWS)` threads, any number of them, and maps
/// of tiles of [`Tile`]: the input `rows x cols`, the output `cols x rows`,
/// whose rows (`rows` floats) must be a multiple of 16 bytes long, as
/// tensor stores require.
#[kernel]
pub fn transpose_tensor(
    block: ThreadBlock,
    rows: u32,
    cols: u32,
    input: TensorMap<Tile>,
    out: TensorOut<Tile>,
    ring: Pipeline<[Tile; TENSOR_STAGES]>,
    first: Shared<Tile>,
    second: Shared<Tile>,
) {
    let across = cols.div_ceil(TILE as u32);
    let tiles = rows.div_ceil(TILE as u32) * across;
    let blocks = this_grid().num_blocks() as u32;
    // Where tile k starts in the input, [row, column].
    let at = |k: u32| {
        [
            (k / across * TILE as u32) as i32,
            (k % across * TILE as u32) as i32,
        ]
    };
    let mut stages = ring.start(&block);
    let mut next = this_grid().block_rank() as u32;
    while next < tiles && !stages.is_full() {
        stages.load_tensor(&block, &input, at(next));
        next += blocks;
    }
    // Element [i][j] of the transposed tile belongs to lane i of warp
    // ((j - i) mod 32) % ROWS; that warp's n-th is step k = warp + n ROWS.
    let side = TILE as u32;
    let diagonal = ByFunction::new_2d(
        move |(i, j): (usize, usize), _threads| {
            let k = (j as u32 + side - i as u32) % side;
            (k % ROWS as u32) * side + i as u32
        },
        move |rank: u32, n: usize, _threads| {
            let (lane, warp) = ((rank % side) as usize, (rank / side) as usize);
            (lane, (lane + warp + n * ROWS) % TILE)
        },
    );
    let t = block.thread_index();
    let (lane, warp) = (t.x as usize, t.y as usize);
    // The tile at the stage `next` hands out, transposed into `mine`, and
    // the next load into the freed stage.
    let mut transpose = |mine: &Owned<Tile, _>| {
        let stage = stages.next(&block);
        for n in 0..PER_THREAD {
            let row = (lane + warp + n * ROWS) % TILE;
            mine.write_nth(n, stage.at([row, lane]));
        }
        stage.release();
        if next < tiles {
            stages.load_tensor(&block, &input, at(next));
            next += blocks;
        }
    };
    let to = |k: u32| {
        let [r0, c0] = at(k);
        [c0, r0]
    };
    // Two output arrays in turn: the threads write one while the copy
    // engine reads the other, and one barrier a tile both ends the writing
    // and hands the other array back (thread 0 has waited for its reads).
    let mut k = this_grid().block_rank() as u32;
    if k >= tiles {
        return;
    }
    let mine = first.own(diagonal);
    transpose(&mine);
    let mut stored = mine.store_tensor(&block, &out, to(k));
    let mut mine = second.own(diagonal);
    k += blocks;
    while k < tiles {
        transpose(&mine);
        (stored, mine) = mine.store_tensor_reusing(&block, &out, to(k), stored, diagonal);
        k += blocks;
    }
}
