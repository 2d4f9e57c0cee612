//! Tensor copies (TMA) into pipeline stages, in the shapes users write
//! them: tiles of 1 to 5 dimensions and of 1-, 2-, 4- and 8-byte
//! elements, at coordinates the host chooses (inside the array, over its
//! edges, wholly outside it, negative), several tiles in flight in rings of
//! 1 to 3 stages, each block taking every `blocks`-th tile.
//! `coop_tests::tensor_cases` has the host references.
//!
//! Every kernel copies tile `k` (at `coords[RANK k ..]`) element by element
//! to `out[ELEMENTS k ..]`, so that the output shows what landed,
//! the fill included. The kernels after `tensor_move_1d_u8` write tiles
//! the other way: stored or combined into an array by the copy engine from
//! a shared array the threads wrote, or from a stage.

use coop::memory::pipeline::{MulticastStages, Pipeline, Role, StageArray, Stages};
use coop::memory::tensor::{TensorElem, TensorMap, TensorOut};
use coop::memory::tile::{Swizzled, TileArray};
use coop::prelude::*;
use coop::shared::{ByRank, ColumnMajor, RowMajor, Shared};

/// The tiles of `coords` dealt to the blocks in turn, `S` loads ahead,
/// each stage read in runs of `R` elements (`R` dividing the tile):
/// `Stage::get` for runs of one, `Stage::get_array::<R>` otherwise (one
/// vector load for runs of 8 or 16 bytes, swizzled or not).
#[inline(always)]
fn copy_out<T: TileArray, const S: usize, const R: usize>(
    block: &ThreadBlock,
    mut stages: Stages<[T; S]>,
    map: &TensorMap<T>,
    coords: &[i32],
    out: &Out<T::Elem>,
    at: impl Fn(&[i32]) -> T::Coords,
) where
    T::Elem: TensorElem,
{
    let tiles = coords.len() / T::RANK;
    let b = block.group_index().x as usize;
    let blocks = this_grid().num_blocks() as usize;
    let t = block.thread_rank() as usize;
    let threads = block.num_threads() as usize;
    let load = |stages: &mut Stages<[T; S]>, k: usize| {
        stages.load_tensor(block, map, at(&coords[k * T::RANK..(k + 1) * T::RANK]))
    };
    let mut next = b;
    while next < tiles && stages.loaded() < <[T; S] as StageArray>::STAGES as u32 {
        load(&mut stages, next);
        next += blocks;
    }
    let mut taken = b;
    while stages.loaded() > 0 {
        let stage = stages.next(block);
        let mut e = R * t;
        while e < T::ELEMENTS {
            if R == 1 {
                out.write(taken * T::ELEMENTS + e, stage.get(e));
            } else {
                let run = stage.get_array::<R>(e);
                let mut k = 0;
                while k < R {
                    out.write(taken * T::ELEMENTS + e + k, run[k]);
                    k += 1;
                }
            }
            e += R * threads;
        }
        stage.release();
        taken += blocks;
        if next < tiles {
            load(&mut stages, next);
            next += blocks;
        }
    }
}

/// 1-D tiles of 128 bytes, 3 stages.
#[kernel]
pub fn tensor_tiles_1d_u8(
    block: ThreadBlock,
    map: TensorMap<[u8; 128]>,
    coords: &[i32],
    out: Out<u8>,
    ring: Pipeline<[[u8; 128]; 3]>,
) {
    let stages = ring.start(&block);
    copy_out::<_, _, 1>(&block, stages, &map, coords, &out, |c| [c[0]]);
}

/// 2-D tiles of 16 rows of 32 `f32`s, 2 stages.
#[kernel]
pub fn tensor_tiles_2d_f32(
    block: ThreadBlock,
    map: TensorMap<[[f32; 32]; 16]>,
    coords: &[i32],
    out: Out<f32>,
    ring: Pipeline<[[[f32; 32]; 16]; 2]>,
) {
    let stages = ring.start(&block);
    copy_out::<_, _, 1>(&block, stages, &map, coords, &out, |c| [c[0], c[1]]);
}

/// `tensor_tiles_2d_f32`'s copy through a warp-specialized pipeline of 3
/// stages: warp 0 loads the block's tiles, the other threads write them
/// out.
#[kernel]
pub fn tensor_specialized_2d_f32(
    block: ThreadBlock,
    map: TensorMap<[[f32; 32]; 16]>,
    coords: &[i32],
    out: Out<f32>,
    ring: Pipeline<[[[f32; 32]; 16]; 3]>,
) {
    let warp = block.tiled_partition::<32>();
    let tiles = coords.len() / 2;
    let b = block.group_index().x as usize;
    let blocks = this_grid().num_blocks() as usize;
    match ring.start_specialized(&block, &warp) {
        Role::Producer(mut producer) => {
            let mut k = b;
            while k < tiles {
                producer.load_tensor(&warp, &map, [coords[2 * k], coords[2 * k + 1]]);
                k += blocks;
            }
        }
        Role::Consumer(mut consumer) => {
            let (first, step) = (consumer.rank() as usize, consumer.num_threads() as usize);
            let mut k = b;
            while k < tiles {
                let stage = consumer.next(&warp);
                let mut e = first;
                while e < 512 {
                    out.write(k * 512 + e, stage.get(e));
                    e += step;
                }
                k += blocks;
            }
        }
    }
}

/// 3-D tiles of 2 x 4 x 8 `u16`s, 3 stages.
#[kernel]
pub fn tensor_tiles_3d_u16(
    block: ThreadBlock,
    map: TensorMap<[[[u16; 8]; 4]; 2]>,
    coords: &[i32],
    out: Out<u16>,
    ring: Pipeline<[[[[u16; 8]; 4]; 2]; 3]>,
) {
    let stages = ring.start(&block);
    copy_out::<_, _, 1>(&block, stages, &map, coords, &out, |c| [c[0], c[1], c[2]]);
}

/// A 4-D tile of 3 x 2 x 5 x 4 `i32`s (480 bytes).
pub type Tile4 = [[[[i32; 4]; 5]; 2]; 3];

/// A 5-D tile of 2 x 2 x 2 x 2 x 2 `u64`s (256 bytes).
pub type Tile5 = [[[[[u64; 2]; 2]; 2]; 2]; 2];

/// 4-D tiles of 3 x 2 x 5 x 4 `i32`s (480 bytes), one stage.
#[kernel]
pub fn tensor_tiles_4d_i32(
    block: ThreadBlock,
    map: TensorMap<Tile4>,
    coords: &[i32],
    out: Out<i32>,
    ring: Pipeline<[Tile4; 1]>,
) {
    let stages = ring.start(&block);
    copy_out::<_, _, 1>(&block, stages, &map, coords, &out, |c| {
        [c[0], c[1], c[2], c[3]]
    });
}

/// 5-D tiles of 2 x 2 x 2 x 2 x 2 `u64`s (256 bytes), 2 stages.
#[kernel]
pub fn tensor_tiles_5d_u64(
    block: ThreadBlock,
    map: TensorMap<Tile5>,
    coords: &[i32],
    out: Out<u64>,
    ring: Pipeline<[Tile5; 2]>,
) {
    let stages = ring.start(&block);
    copy_out::<_, _, 1>(&block, stages, &map, coords, &out, |c| {
        [c[0], c[1], c[2], c[3], c[4]]
    });
}

/// A tile of 16 rows of 32 `f32`s swizzled over 128 bytes (2 KiB).
pub type Swizzled128 = Swizzled<[[f32; 32]; 16], 128>;
/// A tile of 8 rows of 32 `u16`s swizzled over 64 bytes (512 bytes).
pub type Swizzled64 = Swizzled<[[u16; 32]; 8], 64>;
/// A tile of 12 rows of 4 `u64`s swizzled over 32 bytes (384 bytes: the
/// second stage starts one and a half periods of the pattern into the
/// ring).
pub type Swizzled32 = Swizzled<[[u64; 4]; 12], 32>;
/// A 3-D tile of 2 x 4 rows of 128 `u8`s swizzled over 128 bytes (1 KiB).
pub type Swizzled3d = Swizzled<[[[u8; 128]; 4]; 2], 128>;

/// `tensor_tiles_2d_f32` with tiles swizzled over 128 bytes, 2 stages:
/// `Stage::get` reads each element where the copy engine put it.
#[kernel]
pub fn tensor_swizzled_128_f32(
    block: ThreadBlock,
    map: TensorMap<Swizzled128>,
    coords: &[i32],
    out: Out<f32>,
    ring: Pipeline<[Swizzled128; 2]>,
) {
    let stages = ring.start(&block);
    copy_out::<_, _, 1>(&block, stages, &map, coords, &out, |c| [c[0], c[1]]);
}

/// Tiles of 8 x 32 `u16`s swizzled over 64 bytes, 3 stages, read in runs
/// of four (`Stage::get_array::<4>`: 8-byte vector loads through the
/// swizzle).
#[kernel]
pub fn tensor_swizzled_64_u16(
    block: ThreadBlock,
    map: TensorMap<Swizzled64>,
    coords: &[i32],
    out: Out<u16>,
    ring: Pipeline<[Swizzled64; 3]>,
) {
    let stages = ring.start(&block);
    copy_out::<_, 3, 4>(&block, stages, &map, coords, &out, |c| [c[0], c[1]]);
}

/// Tiles of 12 x 4 `u64`s swizzled over 32 bytes, 2 stages, read in runs
/// of two (`Stage::get_array::<2>`: 16-byte vector loads through the
/// swizzle).
#[kernel]
pub fn tensor_swizzled_32_u64(
    block: ThreadBlock,
    map: TensorMap<Swizzled32>,
    coords: &[i32],
    out: Out<u64>,
    ring: Pipeline<[Swizzled32; 2]>,
) {
    let stages = ring.start(&block);
    copy_out::<_, 2, 2>(&block, stages, &map, coords, &out, |c| [c[0], c[1]]);
}

/// 3-D tiles of 2 x 4 x 128 `u8`s swizzled over 128 bytes, one stage,
/// read by `Stage::at`: `out` gets each tile's elements in row-major order.
#[kernel]
pub fn tensor_swizzled_3d_u8(
    block: ThreadBlock,
    map: TensorMap<Swizzled3d>,
    coords: &[i32],
    out: Out<u8>,
    ring: Pipeline<[Swizzled3d; 1]>,
) {
    let mut stages = ring.start(&block);
    let t = block.thread_rank() as usize;
    let threads = block.num_threads() as usize;
    let mut k = block.group_index().x as usize;
    while k < coords.len() / 3 {
        stages.load_tensor(
            &block,
            &map,
            [coords[3 * k], coords[3 * k + 1], coords[3 * k + 2]],
        );
        let stage = stages.next(&block);
        let mut e = t;
        while e < 1024 {
            out.write(k * 1024 + e, stage.at([e / 512, e / 128 % 4, e % 128]));
            e += threads;
        }
        stage.release();
        k += this_grid().num_blocks() as usize;
    }
}

/// The row sums of the 32 x 32 tiles of a matrix of `f32`s with 32
/// columns, through a stage of tiles of type `T`: thread `lane` of a
/// one-warp block adds up row `lane` of tile `k` into `sums[32 k + lane]`.
/// Each read of the loop is one warp-wide request down a column of the
/// tile (thread `r` reads row `r`): 32 transactions on rows of 128 bytes
/// laid out one after another, 4 when the copy engine swizzled them.
#[inline(always)]
fn row_sums<T: TileArray<Elem = f32, Index = [usize; 2], Coords = [i32; 2]>>(
    block: &ThreadBlock,
    map: &TensorMap<T>,
    sums: &Out<f32>,
    ring: Pipeline<[T; 1]>,
) {
    let mut stages = ring.start(block);
    let lane = block.thread_rank() as usize;
    let mut k = block.group_index().x as usize;
    while k < sums.len() / 32 {
        stages.load_tensor(block, map, [32 * k as i32, 0]);
        let stage = stages.next(block);
        let mut total = 0.0f32;
        for c in 0..32 {
            total += stage.at([lane, c]); // row-sum-read
        }
        sums.write(32 * k + lane, total);
        stage.release();
        k += this_grid().num_blocks() as usize;
    }
}

/// `row_sums` through tiles laid out row after row.
#[kernel]
pub fn tensor_row_sums_plain(
    block: ThreadBlock,
    map: TensorMap<[[f32; 32]; 32]>,
    sums: Out<f32>,
    ring: Pipeline<[[[f32; 32]; 32]; 1]>,
) {
    row_sums(&block, &map, &sums, ring);
}

/// `row_sums` through tiles swizzled over 128 bytes.
#[kernel]
pub fn tensor_row_sums_swizzled(
    block: ThreadBlock,
    map: TensorMap<Swizzled<[[f32; 32]; 32], 128>>,
    sums: Out<f32>,
    ring: Pipeline<[Swizzled<[[f32; 32]; 32], 128>; 1]>,
) {
    row_sums(&block, &map, &sums, ring);
}

/// Tile `k` of 16 rows of 32 `f32`s swizzled over 128 bytes, loaded from
/// `src` at `moves[4 k .. 4 k + 2]` and stored into `dst` at `moves[4 k +
/// 2 .. 4 k + 4]` by the copy engine, which swizzles it into the stage and
/// back out of it; two tiles in flight.
#[kernel]
pub fn tensor_move_swizzled_f32(
    block: ThreadBlock,
    src: TensorMap<Swizzled128>,
    dst: TensorOut<Swizzled128>,
    moves: &[i32],
    ring: Pipeline<[Swizzled128; 2]>,
) {
    move_tiles(&block, ring, &src, moves, |stage, to| {
        stage.store_tensor(&block, &dst, to)
    });
}

/// Sums each 2-D tile of 8 rows of 64 `f64`s (`[row, column]` read with
/// `Stage::at`): `sums[k]` is tile `k`'s sum, NaN where a NaN fill landed.
#[kernel]
pub fn tensor_tile_sums_f64(
    block: ThreadBlock,
    map: TensorMap<[[f64; 64]; 8]>,
    coords: &[i32],
    sums: Out<f64>,
    ring: Pipeline<[[[f64; 64]; 8]; 2]>,
) {
    let mut stages = ring.start(&block);
    let tiles = coords.len() / 2;
    let t = block.thread_rank() as usize;
    let mut k = 0;
    if tiles > 0 {
        stages.load_tensor(&block, &map, [coords[0], coords[1]]);
    }
    while k < tiles {
        if k + 1 < tiles {
            stages.load_tensor(&block, &map, [coords[2 * k + 2], coords[2 * k + 3]]);
        }
        let stage = stages.next(&block);
        // 512 threads, one element each.
        let x = stage.at([t / 64, t % 64]);
        stage.release();
        let total = reduce(&block, x, op::Sum);
        if t == 0 {
            sums.write(k, total);
        }
        k += 1;
    }
}

/// Tile `k` of 16 rows of 32 `f32`s, loaded from `src` at `moves[4 k ..
/// 4 k + 2]` and stored into `dst` at `moves[4 k + 2 .. 4 k + 4]` by the
/// copy engine, never through a register; two tiles in flight.
#[kernel]
pub fn tensor_move_2d_f32(
    block: ThreadBlock,
    src: TensorMap<[[f32; 32]; 16]>,
    dst: TensorOut<[[f32; 32]; 16]>,
    moves: &[i32],
    ring: Pipeline<[[[f32; 32]; 16]; 2]>,
) {
    move_tiles(&block, ring, &src, moves, |stage, to| {
        stage.store_tensor(&block, &dst, to)
    });
}

/// The tiles of `moves` (4 coordinates a tile: from, to) dealt to the
/// blocks in turn, two loads ahead; `finish` writes each landed stage to
/// its destination.
#[inline(always)]
fn move_tiles<T: TileArray<Coords = [i32; 2]>>(
    block: &ThreadBlock,
    ring: Pipeline<[T; 2]>,
    src: &TensorMap<T>,
    moves: &[i32],
    finish: impl Fn(coop::memory::pipeline::Stage<'_, [T; 2]>, [i32; 2]),
) where
    T::Elem: TensorElem,
{
    let mut stages = ring.start(block);
    let tiles = moves.len() / 4;
    let b = block.group_index().x as usize;
    let blocks = this_grid().num_blocks() as usize;
    let mut next = b;
    while next < tiles && !stages.is_full() {
        stages.load_tensor(block, src, [moves[4 * next], moves[4 * next + 1]]);
        next += blocks;
    }
    let mut taken = b;
    while stages.loaded() > 0 {
        let to = [moves[4 * taken + 2], moves[4 * taken + 3]];
        finish(stages.next(block), to);
        taken += blocks;
        if next < tiles {
            stages.load_tensor(block, src, [moves[4 * next], moves[4 * next + 1]]);
            next += blocks;
        }
    }
}

/// As `tensor_move_2d_f32`, 1-D tiles of 256 `u8`s, one stage.
#[kernel]
pub fn tensor_move_1d_u8(
    block: ThreadBlock,
    src: TensorMap<[u8; 256]>,
    dst: TensorOut<[u8; 256]>,
    moves: &[i32],
    ring: Pipeline<[[u8; 256]; 1]>,
) {
    let mut stages = ring.start(&block);
    let mut k = block.group_index().x as usize;
    while k < moves.len() / 2 {
        stages.load_tensor(&block, &src, [moves[2 * k]]);
        stages
            .next(&block)
            .store_tensor(&block, &dst, [moves[2 * k + 1]]);
        k += this_grid().num_blocks() as usize;
    }
}

/// Transposes a matrix of `f32`s with `cols` columns (row-major in `input`)
/// into `out` (its columns become rows) through 32 x 32 tiles: each thread
/// writes its elements of a tile transposed into a shared array, which the
/// copy engine stores; a block takes every `blocks`-th tile and reuses the
/// array once the engine has read it. Blocks of 32 x 8 threads.
#[kernel]
pub fn tensor_transpose_f32(
    block: ThreadBlock,
    input: &[f32],
    cols: u32,
    out: TensorOut<[[f32; 32]; 32]>,
    tile: Shared<[[f32; 32]; 32]>,
) {
    let cols = cols as usize;
    let rows = input.len() / cols;
    let (across, tiles) = (cols.div_ceil(32), rows.div_ceil(32) * cols.div_ceil(32));
    let t = block.thread_index();
    let (x, y) = (t.x as usize, t.y as usize);
    let mut k = block.group_index().x as usize;
    // Thread (x, y) owns [x][y + 8 j]: column x of the input's tile.
    let mut mine = tile.own(ColumnMajor);
    while k < tiles {
        let (r0, c0) = (32 * (k / across), 32 * (k % across));
        for j in 0..4 {
            let (r, c) = (r0 + y + 8 * j, c0 + x);
            let v = if r < rows && c < cols {
                input[r * cols + c]
            } else {
                0.0
            };
            mine.write((x, y + 8 * j), v);
        }
        let storing = mine.store_tensor(&block, &out, [c0 as i32, r0 as i32]);
        mine = storing.wait(&block).own(&block, ColumnMajor);
        k += this_grid().num_blocks() as usize;
    }
}

/// One kernel a pair of operator and element type the copy engine
/// combines: block `b` writes `values[128 b ..]` into a 4 x 32 tile and
/// combines it into `out` at `coords[2 b ..]`, then reads its element back
/// while the engine reads the tile, into `seen`. Blocks of 32 x 4.
macro_rules! reduce_tiles {
    ($($name:ident: $e:ty, $op:expr;)*) => {$(
        #[kernel]
        pub fn $name(
            block: ThreadBlock,
            values: &[$e],
            coords: &[i32],
            out: TensorOut<[[$e; 32]; 4]>,
            seen: Out<$e>,
            tile: Shared<[[$e; 32]; 4]>,
        ) {
            let b = block.group_index().x as usize;
            let t = block.thread_index();
            let e = 32 * t.y as usize + t.x as usize;
            let mine = tile.own(RowMajor);
            mine.set(values[128 * b + e]);
            let storing = mine.reduce_tensor(&block, &out, [coords[2 * b], coords[2 * b + 1]], $op);
            seen.write(128 * b + e, storing.get((t.y as usize, t.x as usize)));
        }
    )*};
}

reduce_tiles! {
    tensor_reduce_sum_u32: u32, op::Sum;
    tensor_reduce_sum_i32: i32, op::Sum;
    tensor_reduce_sum_u64: u64, op::Sum;
    tensor_reduce_sum_f32: f32, op::Sum;
    tensor_reduce_min_u32: u32, op::Min;
    tensor_reduce_min_i32: i32, op::Min;
    tensor_reduce_max_u32: u32, op::Max;
    tensor_reduce_max_i32: i32, op::Max;
    tensor_reduce_and_u32: u32, op::BitAnd;
    tensor_reduce_or_i32: i32, op::BitOr;
    tensor_reduce_xor_u64: u64, op::BitXor;
    tensor_reduce_and_u64: u64, op::BitAnd;
}

/// As `tensor_move_2d_f32`, each tile added into `dst` at its destination
/// by the copy engine (`Stage::reduce_tensor`), two tiles in flight.
#[kernel]
pub fn tensor_accumulate_2d_f32(
    block: ThreadBlock,
    src: TensorMap<[[f32; 32]; 16]>,
    dst: TensorOut<[[f32; 32]; 16]>,
    moves: &[i32],
    ring: Pipeline<[[[f32; 32]; 16]; 2]>,
) {
    move_tiles(&block, ring, &src, moves, |stage, to| {
        stage.reduce_tensor(&block, &dst, to, op::Sum)
    });
}

/// A tile stored with one element no thread wrote (thread (5, 0) skips
/// `[0][5]`): the CPU backend reports the store.
#[kernel]
pub fn tensor_store_unwritten(
    block: ThreadBlock,
    out: TensorOut<[[u32; 32]; 4]>,
    tile: Shared<[[u32; 32]; 4]>,
) {
    let t = block.thread_index();
    let mine = tile.own(RowMajor);
    if (t.x, t.y) != (5, 0) {
        mine.set(t.x);
    }
    let _ = mine.store_tensor(&block, &out, [0, 0]);
}

/// The tiles of `coords` dealt to the clusters in turn, `S` loads ahead,
/// each loaded once a cluster by multicast: block `r` of an `n`-block
/// cluster copies tile `k` element by element to `out[(k n + r) ELEMENTS
/// ..]`, so that the output shows what landed in every block. With `lag`,
/// the cluster's last block spins a while before each tile it takes, so
/// that the others run ahead until the ring stops them.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn multicast_out<T: TileArray, const S: usize>(
    cluster: &Cluster,
    block: &ThreadBlock,
    mut stages: MulticastStages<[T; S]>,
    map: &TensorMap<T>,
    coords: &[i32],
    out: &Out<T::Elem>,
    lag: u32,
    at: impl Fn(&[i32]) -> T::Coords,
) where
    T::Elem: TensorElem,
{
    let tiles = coords.len() / T::RANK;
    let n = cluster.num_blocks() as usize;
    let r = cluster.block_rank() as usize;
    let c = block.group_index().x as usize / n;
    let clusters = this_grid().num_blocks() / n;
    let t = block.thread_rank() as usize;
    let threads = block.num_threads() as usize;
    let mut next = c;
    while next < tiles && !stages.is_full() {
        stages.load_tensor(
            cluster,
            map,
            at(&coords[next * T::RANK..(next + 1) * T::RANK]),
        );
        next += clusters;
    }
    let mut taken = c;
    while stages.loaded() > 0 {
        if lag > 0 && r + 1 == n {
            let mut x = t as u32;
            for _ in 0..lag {
                x = x.wrapping_mul(1664525).wrapping_add(1013904223);
            }
            core::hint::black_box(x);
        }
        let stage = stages.next(block);
        let mut e = t;
        while e < T::ELEMENTS {
            out.write((taken * n + r) * T::ELEMENTS + e, stage.get(e));
            e += threads;
        }
        stage.release();
        taken += clusters;
        if next < tiles {
            stages.load_tensor(
                cluster,
                map,
                at(&coords[next * T::RANK..(next + 1) * T::RANK]),
            );
            next += clusters;
        }
    }
}

/// 8 x 32 tiles of `f32`s multicast to every block of the cluster, a ring
/// of 2; see `multicast_out`.
#[kernel]
pub fn tensor_multicast_2d_f32(
    cluster: Cluster,
    block: ThreadBlock,
    src: TensorMap<[[f32; 32]; 8]>,
    coords: &[i32],
    out: Out<f32>,
    lag: u32,
    ring: Pipeline<[[[f32; 32]; 8]; 2]>,
) {
    let stages = ring.start_multicast(&cluster, &block);
    multicast_out(&cluster, &block, stages, &src, coords, &out, lag, |c| {
        [c[0], c[1]]
    });
}

/// 1-D tiles of 128 `u8`s multicast to every block of the cluster, a ring
/// of 3; see `multicast_out`.
#[kernel]
pub fn tensor_multicast_1d_u8(
    cluster: Cluster,
    block: ThreadBlock,
    src: TensorMap<[u8; 128]>,
    coords: &[i32],
    out: Out<u8>,
    lag: u32,
    ring: Pipeline<[[u8; 128]; 3]>,
) {
    let stages = ring.start_multicast(&cluster, &block);
    multicast_out(
        &cluster,
        &block,
        stages,
        &src,
        coords,
        &out,
        lag,
        |c| [c[0]],
    );
}

/// A bug for the CPU backend to name: each block of the cluster loads the
/// tile of its own rows (`8 r`), where a multicast load is one tile for
/// every block.
#[kernel]
pub fn tensor_multicast_own_rows(
    cluster: Cluster,
    block: ThreadBlock,
    src: TensorMap<[[f32; 32]; 8]>,
    out: Out<f32>,
    ring: Pipeline<[[[f32; 32]; 8]; 1]>,
) {
    let mut stages = ring.start_multicast(&cluster, &block);
    let rows = 8 * cluster.block_rank() as i32;
    stages.load_tensor(&cluster, &src, [rows, 0]);
    let t = block.thread_rank() as usize;
    let tile = stages.next(&block);
    out.write(block.group_index().x as usize * 256 + t, tile.get(t));
}

/// A bug for the CPU backend to name: the cluster's first block skips the
/// second load, which the other blocks wait for.
#[kernel]
pub fn tensor_multicast_skipped(
    cluster: Cluster,
    block: ThreadBlock,
    src: TensorMap<[[f32; 32]; 8]>,
    out: Out<f32>,
    ring: Pipeline<[[[f32; 32]; 8]; 1]>,
) {
    let mut stages = ring.start_multicast(&cluster, &block);
    let t = block.thread_rank() as usize;
    let loads = if cluster.block_rank() == 0 { 1 } else { 2 };
    let mut sum = 0.0;
    for k in 0..loads {
        stages.load_tensor(&cluster, &src, [8 * k, 0]);
        sum += stages.next(&block).get(t);
    }
    out.write(block.group_index().x as usize * 256 + t, sum);
}

/// A cluster of `rows x cols` blocks (cluster rank `r`: row `r / cols`,
/// column `r % cols`), as a matrix product lays them out: the blocks of a
/// row share the tiles of `a` (multicast among the row), the blocks of a
/// column the slices of `b` (multicast among the column), each through a
/// ring of its own. Step `k` of block `(i, j)` takes `a`'s tile at rows `8
/// k`, columns `32 i`, and `b`'s slice `(j tiles + k) 256 ..`, and writes
/// `a + 3 b` to `out[((c n + r) tiles + k) 256 ..]` for cluster `c` of `n`
/// blocks. With `lag`, the cluster's last block spins before each step.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn multicast_rows_and_columns(
    cluster: Cluster,
    block: ThreadBlock,
    a: TensorMap<[[f32; 32]; 8]>,
    b: &[f32],
    cols: u32,
    tiles: u32,
    out: Out<f32>,
    lag: u32,
    a_ring: Pipeline<[[[f32; 32]; 8]; 2]>,
    b_ring: Pipeline<[[f32; 256]; 3]>,
) {
    let n = cluster.num_blocks();
    let r = cluster.block_rank();
    let (i, j) = (r / cols, r % cols);
    let row = ((1u32 << cols) - 1) << (i * cols);
    let mut column = 0u32;
    let mut q = j;
    while q < n {
        column |= 1 << q;
        q += cols;
    }
    let mut a_tiles = a_ring.start_multicast_among(&cluster, &block, row as u16);
    let mut b_tiles = b_ring.start_multicast_among(&cluster, &block, column as u16);
    let c = (block.group_index().x / n) as usize;
    let tiles = tiles as usize;
    let t = block.thread_rank() as usize;
    let threads = block.num_threads() as usize;
    let (mut next_a, mut next_b) = (0, 0);
    for k in 0..tiles {
        while next_a < tiles && !a_tiles.is_full() {
            a_tiles.load_tensor(&cluster, &a, [8 * next_a as i32, 32 * i as i32]);
            next_a += 1;
        }
        while next_b < tiles && !b_tiles.is_full() {
            let from = (j as usize * tiles + next_b) * 256;
            b_tiles.load(&cluster, &b[from..from + 256]);
            next_b += 1;
        }
        if lag > 0 && r + 1 == n {
            let mut x = t as u32;
            for _ in 0..lag {
                x = x.wrapping_mul(1664525).wrapping_add(1013904223);
            }
            core::hint::black_box(x);
        }
        let x = a_tiles.next(&block);
        let y = b_tiles.next(&block);
        let mut e = t;
        while e < 256 {
            let to = ((c * n as usize + r as usize) * tiles + k) * 256 + e;
            out.write(to, x.get(e) + 3.0 * y.get(e));
            e += threads;
        }
    }
}

/// A bug for the CPU backend to name: in a cluster of 4, block 1 takes
/// the whole cluster as its group where block 0 names blocks 0 and 1.
#[kernel]
pub fn multicast_among_mismatched(
    cluster: Cluster,
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    ring: Pipeline<[[u32; 256]; 1]>,
) {
    let r = cluster.block_rank();
    let members = match r {
        1 => 0b1111,
        _ if r < 2 => 0b0011,
        _ => 0b1100,
    };
    let mut stages = ring.start_multicast_among(&cluster, &block, members);
    stages.load(&cluster, &input[..256]);
    let t = block.thread_rank() as usize;
    let tile = stages.next(&block);
    out.write(r as usize * 256 + t, tile.get(t));
}

/// Bugs for both backends to stop at: every block names `members` as its
/// group, whether or not it is among them (or they are in the cluster).
#[kernel]
pub fn multicast_among_members(
    cluster: Cluster,
    block: ThreadBlock,
    members: u32,
    out: Out<u32>,
    ring: Pipeline<[[u32; 256]; 1]>,
) {
    let stages = ring.start_multicast_among(&cluster, &block, members as u16);
    drop(stages);
    if block.thread_rank() == 0 {
        out.write(block.group_index().x as usize, 1);
    }
}

/// Slices of `input[skip..]`, 256 `u32`s a tile (the last partial, filled
/// with zeros), loaded once a cluster by multicast where the bulk-copy
/// engine can move them (a `skip` that is not a multiple of 4 leaves every
/// tile to each block's threads); block `r` of an `n`-block cluster copies
/// tile `k` to `out[(k n + r) 256 ..]`. Ring of 3.
#[kernel]
pub fn slice_multicast_u32(
    cluster: Cluster,
    block: ThreadBlock,
    input: &[u32],
    skip: u32,
    out: Out<u32>,
    ring: Pipeline<[[u32; 256]; 3]>,
) {
    let mut stages = ring.start_multicast(&cluster, &block);
    let src = &input[skip as usize..];
    let tiles = src.len().div_ceil(256);
    let n = cluster.num_blocks() as usize;
    let r = cluster.block_rank() as usize;
    let t = block.thread_rank() as usize;
    let load = |stages: &mut MulticastStages<[[u32; 256]; 3]>, k: usize| {
        let tile = &src[k * 256..((k + 1) * 256).min(src.len())];
        if tile.len() == 256 {
            stages.load(&cluster, tile);
        } else {
            stages.load_filled(&cluster, tile);
        }
    };
    let mut next = 0;
    while next < tiles && !stages.is_full() {
        load(&mut stages, next);
        next += 1;
    }
    let mut taken = 0;
    while stages.loaded() > 0 {
        let stage = stages.next(&block);
        let mut e = t;
        while e < 256 {
            out.write((taken * n + r) * 256 + e, stage.get(e));
            e += block.num_threads() as usize;
        }
        stage.release();
        taken += 1;
        if next < tiles {
            load(&mut stages, next);
            next += 1;
        }
    }
}

/// Bulk stores of whole shared arrays into a buffer: block `b` writes
/// `values[64 b ..]` into its array and stores it at `at[2 b]` of `out` by
/// the bulk-copy engine, then again at `at[2 b + 1]` from the same
/// `Storing` array, reading its element back meanwhile into `seen`. Blocks
/// of 64.
#[kernel]
pub fn bulk_store_u32(
    block: ThreadBlock,
    values: &[u32],
    at: &[u32],
    out: Out<u32>,
    seen: Out<u32>,
    tile: Shared<[u32; 64]>,
) {
    let b = block.group_index().x as usize;
    let t = block.thread_rank() as usize;
    let mine = tile.own(ByRank::new());
    mine.set(values[64 * b + t]);
    let storing = mine.store_bulk(&block, &out, at[2 * b] as usize);
    storing.store_bulk(&block, &out, at[2 * b + 1] as usize);
    seen.write(64 * b + t, storing.get(t));
}

/// One kernel a pair of operator and element type the bulk-copy engine
/// combines: block `b` writes `values[64 b ..]` into its array and
/// combines it into `out` at `at[b]` (the blocks' runs overlap), then
/// reads its element back while the engine reads the array, into `seen`.
/// Blocks of 64.
macro_rules! reduce_bulks {
    ($($name:ident: $e:ty, $op:expr;)*) => {$(
        #[kernel]
        pub fn $name(
            block: ThreadBlock,
            values: &[$e],
            at: &[u32],
            out: Out<$e>,
            seen: Out<$e>,
            tile: Shared<[$e; 64]>,
        ) {
            let b = block.group_index().x as usize;
            let t = block.thread_rank() as usize;
            let mine = tile.own(ByRank::new());
            mine.set(values[64 * b + t]);
            let storing = mine.reduce_bulk(&block, &out, at[b] as usize, $op);
            seen.write(64 * b + t, storing.get(t));
        }
    )*};
}

reduce_bulks! {
    bulk_reduce_sum_u32: u32, op::Sum;
    bulk_reduce_sum_i32: i32, op::Sum;
    bulk_reduce_sum_u64: u64, op::Sum;
    bulk_reduce_sum_i64: i64, op::Sum;
    bulk_reduce_sum_f32: f32, op::Sum;
    bulk_reduce_sum_f64: f64, op::Sum;
    bulk_reduce_min_u32: u32, op::Min;
    bulk_reduce_min_i64: i64, op::Min;
    bulk_reduce_max_i32: i32, op::Max;
    bulk_reduce_max_u64: u64, op::Max;
    bulk_reduce_and_u32: u32, op::BitAnd;
    bulk_reduce_or_i64: i64, op::BitOr;
    bulk_reduce_xor_u64: u64, op::BitXor;
    bulk_reduce_xor_i32: i32, op::BitXor;
}
