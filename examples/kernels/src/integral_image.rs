//! NVIDIA's integral-image kernels (the `shfl_scan` sample's
//! `shfl_intimage_rows` and `shfl_vertical_shfl`) in coop: the summed-area
//! table of an 8-bit image in two passes, each row's running sums, then
//! each column's.
//!
//! The row pass runs the sample's blocks of 120 threads, 16 pixels a
//! thread, one block a row of 1920 pixels: 120 is not a multiple of 32, so
//! the block's fourth warp has 24 threads, and the kernel splits the block
//! with `ragged_partition::<32>()`, whose last tile is that short warp. The
//! column pass runs blocks of 32 x 8 threads (`#[kernel(block = (32, 8))]`)
//! down strips of 32 columns with the sample's three barriers a step: the
//! transposition through shared memory hands the array from one ownership
//! map to the other with one barrier (`Owned::own`).
//!
//! `examples/bench/integral_image.cu` holds the sample's two kernels
//! unchanged; `integral_image_bench` times both against these.

use coop::prelude::*;
use coop::shared::{ByFunction, ColumnMajor, Shared, TileLeaders};

/// The sample's image: 1920 x 1080 pixels.
pub const WIDTH: usize = 1920;
/// The sample's image height.
pub const HEIGHT: usize = 1080;
/// Threads of a row block: 16 pixels each, one block a row.
pub const ROW_THREADS: u32 = (WIDTH / 16) as u32;
/// The column pass's block: 32 columns, 8 rows at a time.
pub const COLUMN_BLOCK: (u32, u32) = (32, 8);

/// Sixteen 8-bit pixels, or four 32-bit sums: 16 bytes moved by one load
/// or store (CUDA's `uint4`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, DeviceCopy, Shuffle)]
#[repr(C, align(16))]
pub struct Quad(pub [u32; 4]);

/// The row pass: `sums[y * WIDTH + x]` = pixels `0..=x` of row `y` added,
/// for the image's rows, one block of [`ROW_THREADS`] threads a row.
/// `image` holds each row's pixels as [`Quad`]s, 16 a quad, the first in
/// the low byte of the first word.
///
/// `block = 120` is the sample's shape (a row of 1920 pixels). `min_blocks =
/// 9` keeps ptxas within 56 registers a thread (it uses 53), so that nine
/// blocks share a multiprocessor and the sample's 1080 rows are all
/// resident at once on a GPU of 120 multiprocessors or more. At 32
/// registers (`min_blocks = 16`, nvcc's count for the sample) ptxas spills
/// 180 bytes a thread.
#[kernel(block = 120, min_blocks = 9)]
pub fn integral_rows(
    block: ThreadBlock,
    image: &[Quad],
    sums: Out<u32>,
    warp_totals: Shared<[u32; 4]>,
) {
    let warp = block.ragged_partition::<32>();
    let id = block.thread_rank() as usize;
    let quads = block.num_threads() as usize;
    let row = this_grid().block_rank();
    let data = image[row * quads + id];

    // The thread's 16 running sums.
    let mut result = [0u32; 16];
    let mut running = 0;
    for (w, word) in data.0.iter().enumerate() {
        for b in 0..4 {
            running += (word >> (8 * b)) & 0xff;
            result[4 * w + b] = running;
        }
    }

    // The warp's threads before this one, then the warps before this one.
    let inclusive = inclusive_scan(&warp, running, op::Sum);
    let total = warp.shfl(inclusive, warp.num_threads() - 1);
    let slots = warp_totals.own(TileLeaders::<32>);
    if warp.thread_rank() == 0 {
        slots.set(total); // slot `warp.meta_group_rank()`
    }
    let slots = slots.publish(&block);
    let mut offset = inclusive - running;
    for w in 0..warp.meta_group_rank() as usize {
        offset += slots.get(w);
    }
    for r in &mut result {
        *r += offset;
    }

    // The sample's store pattern: groups of four threads swap quads so that
    // each store of a group covers 64 contiguous bytes.
    let quad = |k: usize| {
        Quad([
            result[4 * k],
            result[4 * k + 1],
            result[4 * k + 2],
            result[4 * k + 3],
        ])
    };
    let (mut x, mut y, mut z, mut w) = (quad(0), quad(1), quad(2), quad(3));
    // Quad `k` of four, chosen word by word with two selects (a choice of
    // whole quads by index would go through local memory).
    let pick = |k: usize, x: Quad, y: Quad, z: Quad, w: Quad| {
        let (odd, high) = (k & 1 == 1, k & 2 == 2);
        Quad(core::array::from_fn(|i| {
            let low = if odd { y.0[i] } else { x.0[i] };
            let top = if odd { w.0[i] } else { z.0[i] };
            if high {
                top
            } else {
                low
            }
        }))
    };
    let id_mask = id & 3;
    let id_swizzle = (id + 2) & 3;
    let id_shift = (id >> 2) << 4;
    let first = row * 4 * quads;
    y = warp.shfl_xor(y, 1);
    z = warp.shfl_xor(z, 2);
    w = warp.shfl_xor(w, 3);
    let store = |quad_index: usize, q: Quad| sums.write_array(4 * (first + quad_index), q.0);
    store(id_mask + id_shift, pick(id_mask, x, y, z, w));
    store(id_swizzle + id_shift + 8, pick(id_swizzle, x, y, z, w));
    x = warp.shfl_xor(x, 1);
    y = warp.shfl_xor(y, 1);
    z = warp.shfl_xor(z, 1);
    w = warp.shfl_xor(w, 1);
    store(id_mask + id_shift + 4, pick(id_mask, x, y, z, w));
    store(id_swizzle + id_shift + 12, pick(id_swizzle, x, y, z, w));
}

/// The column pass, in place: `sums[y * width + x]` becomes the sum of
/// rows `0..=y` of column `x`. Blocks of [`COLUMN_BLOCK`] threads, one a
/// strip of 32 columns, walk down the image 8 rows a step; `height` must
/// be a multiple of 8.
///
/// A step: each thread puts its pixel's row sum in `strip[x][y]`; after a
/// barrier, each tile of 8 threads takes one column's 8 values
/// (`strip[k][j]`, a transposed walk), scans them and writes them back;
/// after a second barrier each thread adds the sums above its row in the
/// step and the strip's total of the steps before; a third barrier ends the
/// step. `strip` has 9 columns, as in the sample, so that the transposed
/// reads fall in different banks.
///
/// `block = (32, 8)` fixes the block's shape: other launches are refused,
/// and the compiler knows `x < 32` and `y < 8`, so the strip's index
/// checks fold away (they cost 8 % of the pass's time without it).
#[kernel(block = (32, 8))]
pub fn integral_columns(
    block: ThreadBlock,
    sums: InOut<u32>,
    width: u32,
    height: u32,
    strip: Shared<[[u32; 9]; 32]>,
) {
    let t = block.thread_index();
    let (x, y) = (t.x as usize, t.y as usize);
    let column = this_grid().block_rank() * 32 + x;
    let width = width as usize;
    let warp = block.tiled_partition::<32>();
    let j = t.x % 8;
    // Thread of rank r = 32 y + x scans column k = x / 8 + 4 y of the strip,
    // row j = x % 8 (the rank in its tile of 8).
    let scanned = ByFunction::new_2d(
        |(k, j): (usize, usize), _threads| (32 * (k / 4) + 8 * (k % 4) + j % 8) as u32,
        |r, _n, _threads| {
            let (x, y) = (r as usize % 32, r as usize / 32);
            (x / 8 + 4 * y, x % 8)
        },
    );
    let mut step_sum = 0;
    let mut mine = strip.own(ColumnMajor); // [x][y]
    for step in 0..height as usize / 8 {
        let p = (y + 8 * step) * width + column;
        let sum = sums.read(p);
        mine.write_nth((0, 0), sum);
        let scan = mine.own(&block, scanned); // barrier 1
                                              // The column's running sums across the tile of 8: the sample's
                                              // warp-wide shuffles, each lane adding only within its tile.
        let mut partial = scan.read_nth(0);
        for d in [1, 2, 4] {
            let below = warp.shfl_up(partial, d);
            if j >= d {
                partial += below;
            }
        }
        scan.write_nth(0, partial);
        let all = scan.publish(&block); // barrier 2
        let mut total = sum + step_sum;
        if y > 0 {
            total += all.get((x, y - 1));
        }
        step_sum += all.get((x, 7));
        mine = all.own(&block, ColumnMajor); // barrier 3
        sums.write(p, total);
    }
}
