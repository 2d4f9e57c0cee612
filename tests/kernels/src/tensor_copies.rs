//! Tensor copies (TMA) into pipeline stages, in the shapes users write
//! them: tiles of 1 to 5 dimensions and of 1-, 2-, 4- and 8-byte
//! elements, at coordinates the host chooses (inside the array, over its
//! edges, wholly outside it, negative), several tiles in flight in rings of
//! 1 to 3 stages, each block taking every `blocks`-th tile.
//! `coop_tests::tensor_cases` has the host references.
//!
//! Every kernel copies tile `k` (at `coords[RANK k ..]`) element by element
//! to `out[ELEMENTS k ..]`, so that the output shows what landed,
//! the fill included.

use coop::memory::pipeline::{Pipeline, StageArray, Stages};
use coop::memory::tensor::{TensorElem, TensorMap, TensorOut};
use coop::memory::tile::TileArray;
use coop::prelude::*;

/// The tiles of `coords` dealt to the blocks in turn, `S` loads ahead.
#[inline(always)]
fn copy_out<T: TileArray, const S: usize>(
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
        let mut e = t;
        while e < T::ELEMENTS {
            out.write(taken * T::ELEMENTS + e, stage.get(e));
            e += threads;
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
    copy_out(&block, stages, &map, coords, &out, |c| [c[0]]);
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
    copy_out(&block, stages, &map, coords, &out, |c| [c[0], c[1]]);
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
    copy_out(&block, stages, &map, coords, &out, |c| [c[0], c[1], c[2]]);
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
    copy_out(&block, stages, &map, coords, &out, |c| {
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
    copy_out(&block, stages, &map, coords, &out, |c| {
        [c[0], c[1], c[2], c[3], c[4]]
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
    let mut stages = ring.start(&block);
    let tiles = moves.len() / 4;
    let b = block.group_index().x as usize;
    let blocks = this_grid().num_blocks() as usize;
    let mut next = b;
    while next < tiles && !stages.is_full() {
        stages.load_tensor(&block, &src, [moves[4 * next], moves[4 * next + 1]]);
        next += blocks;
    }
    let mut taken = b;
    while stages.loaded() > 0 {
        let to = [moves[4 * taken + 2], moves[4 * taken + 3]];
        stages.next(&block).store_tensor(&block, &dst, to);
        taken += blocks;
        if next < tiles {
            stages.load_tensor(&block, &src, [moves[4 * next], moves[4 * next + 1]]);
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
