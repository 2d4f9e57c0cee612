//! Kernels of the differential suite. `reference/collectives.cu` defines
//! entry points of the same names and parameters with CUDA's cooperative
//! groups, so the test launches both through the same typed descriptors and
//! compares their outputs bit for bit.
//!
//! Layouts (per thread `g` = rank in the grid):
//! * `shuffles_*`: `params[4g..4g+4]` = (src rank, up delta, down delta, xor
//!   mask); `out[4g..4g+4]` = (shfl, shfl_up, shfl_down, shfl_xor).
//! * `votes_*`: `out[4g..4g+4]` = (any, all, ballot, 0) of `pred[g] != 0`.
//! * `matches_*`: `out[3g..3g+3]` = (match_any, match_all mask, match_all
//!   predicate).
//! * `ranks_*`: `out[RANK_FIELDS * g..]`, see [`RANK_FIELDS`].
#![no_std]

use coop::prelude::*;
use coop::{MatchKey, TileSize, ValidTileSize};

pub mod async_copies;
pub mod atomics;
pub mod block_tiles;
pub mod clusters;
pub mod dynamic;
pub mod grids;
pub mod inboxes;
pub mod launch_bounds;
pub mod litmus;
pub mod loop_shapes;
pub mod math;
pub mod multi_warp;
pub mod ragged;
pub mod split_barriers;
pub mod tensor_copies;
pub mod user_shapes;
pub mod user_types;

/// The 12-byte user type of the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Shuffle, DeviceCopy)]
#[repr(C)]
pub struct Triple {
    /// Stored as bits so that equality is bitwise.
    pub x: u32,
    /// A signed field.
    pub y: i32,
    /// A float field, as its bits.
    pub z: u32,
}

#[inline(always)]
fn shuffles<T: Shuffle, const N: u32>(block: ThreadBlock, input: &[T], params: &[u32], out: Out<T>)
where
    TileSize<N>: ValidTileSize,
{
    let tile = block.tiled_partition::<N>();
    let g = this_grid().thread_rank();
    let v = input[g];
    let p = &params[4 * g..4 * g + 4];
    out.write(4 * g, tile.shfl(v, p[0]));
    out.write(4 * g + 1, tile.shfl_up(v, p[1]));
    out.write(4 * g + 2, tile.shfl_down(v, p[2]));
    out.write(4 * g + 3, tile.shfl_xor(v, p[3]));
}

#[inline(always)]
fn votes<const N: u32>(block: ThreadBlock, pred: &[u32], out: Out<u32>)
where
    TileSize<N>: ValidTileSize,
{
    let tile = block.tiled_partition::<N>();
    let g = this_grid().thread_rank();
    let p = pred[g] != 0;
    out.write(4 * g, tile.any(p) as u32);
    out.write(4 * g + 1, tile.all(p) as u32);
    out.write(4 * g + 2, tile.ballot(p));
    out.write(4 * g + 3, 0);
}

#[inline(always)]
fn matches<T: MatchKey, const N: u32>(block: ThreadBlock, input: &[T], out: Out<u32>)
where
    TileSize<N>: ValidTileSize,
{
    let tile = block.tiled_partition::<N>();
    let g = this_grid().thread_rank();
    let v = input[g];
    out.write(3 * g, tile.match_any(v));
    let all = tile.match_all(v);
    out.write(3 * g + 1, all.unwrap_or(0));
    out.write(3 * g + 2, all.is_some() as u32);
}

/// Values per thread written by `ranks_*`: block thread rank, block size,
/// thread index (3), group index (3), block shape (3), then for the tile of
/// the block: rank, size, meta rank, meta size; then the same four for the
/// tile cut from a 32-thread tile (the 32-thread tile itself for N = 32);
/// then `sync` ran (1).
pub const RANK_FIELDS: usize = 20;

/// A tile of `N` cut from a 32-thread tile; for `N = 32`, the 32-thread
/// tile itself (CUDA does not re-partition a tile into its own size).
trait SubOfWarp<const N: u32>
where
    TileSize<N>: ValidTileSize,
{
    fn sub_of_warp(block: ThreadBlock) -> TiledPartition<N>;
}

struct Sizes;

macro_rules! sub_of_warp {
    ($($n:literal),*) => {$(
        impl SubOfWarp<$n> for Sizes {
            #[inline(always)]
            fn sub_of_warp(block: ThreadBlock) -> TiledPartition<$n> {
                block.tiled_partition::<32>().tiled_partition::<$n>()
            }
        }
    )*};
}
sub_of_warp!(1, 2, 4, 8, 16);

impl SubOfWarp<32> for Sizes {
    #[inline(always)]
    fn sub_of_warp(block: ThreadBlock) -> TiledPartition<32> {
        block.tiled_partition::<32>()
    }
}

#[inline(always)]
fn ranks<const N: u32>(block: ThreadBlock, out: Out<u32>)
where
    TileSize<N>: ValidTileSize,
    Sizes: SubOfWarp<N>,
{
    let g = this_grid().thread_rank();
    let tile = block.tiled_partition::<N>();
    let sub = <Sizes as SubOfWarp<N>>::sub_of_warp(block);
    let (t, b, d) = (
        block.thread_index(),
        block.group_index(),
        block.dim_threads(),
    );
    let fields = [
        block.thread_rank(),
        block.num_threads(),
        t.x,
        t.y,
        t.z,
        b.x,
        b.y,
        b.z,
        d.x,
        d.y,
        d.z,
        tile.thread_rank(),
        tile.num_threads(),
        tile.meta_group_rank(),
        tile.meta_group_size(),
        sub.thread_rank(),
        sub.num_threads(),
        sub.meta_group_rank(),
        sub.meta_group_size(),
        1,
    ];
    tile.sync();
    block.sync();
    for (k, f) in fields.into_iter().enumerate() {
        out.write(RANK_FIELDS * g + k, f);
    }
}

macro_rules! shuffle_kernels {
    ($($name:ident: $t:ty, $n:literal;)*) => {$(
        #[kernel]
        pub fn $name(block: ThreadBlock, input: &[$t], params: &[u32], out: Out<$t>) {
            shuffles::<$t, $n>(block, input, params, out)
        }
    )*};
}

shuffle_kernels! {
    shuffles_u32_1: u32, 1; shuffles_u32_2: u32, 2; shuffles_u32_4: u32, 4;
    shuffles_u32_8: u32, 8; shuffles_u32_16: u32, 16; shuffles_u32_32: u32, 32;
    shuffles_i64_1: i64, 1; shuffles_i64_2: i64, 2; shuffles_i64_4: i64, 4;
    shuffles_i64_8: i64, 8; shuffles_i64_16: i64, 16; shuffles_i64_32: i64, 32;
    shuffles_f32_1: f32, 1; shuffles_f32_2: f32, 2; shuffles_f32_4: f32, 4;
    shuffles_f32_8: f32, 8; shuffles_f32_16: f32, 16; shuffles_f32_32: f32, 32;
    shuffles_f64_1: f64, 1; shuffles_f64_2: f64, 2; shuffles_f64_4: f64, 4;
    shuffles_f64_8: f64, 8; shuffles_f64_16: f64, 16; shuffles_f64_32: f64, 32;
    shuffles_triple_1: Triple, 1; shuffles_triple_2: Triple, 2; shuffles_triple_4: Triple, 4;
    shuffles_triple_8: Triple, 8; shuffles_triple_16: Triple, 16; shuffles_triple_32: Triple, 32;
}

// `Triple` travels through buffers too: the launch needs it as a `KernelParam`
// element type, which any `Copy` type is.

macro_rules! vote_kernels {
    ($($name:ident: $n:literal;)*) => {$(
        #[kernel]
        pub fn $name(block: ThreadBlock, pred: &[u32], out: Out<u32>) {
            votes::<$n>(block, pred, out)
        }
    )*};
}

vote_kernels! {
    votes_1: 1; votes_2: 2; votes_4: 4; votes_8: 8; votes_16: 16; votes_32: 32;
}

macro_rules! match_kernels {
    ($($name:ident: $t:ty, $n:literal;)*) => {$(
        #[kernel]
        pub fn $name(block: ThreadBlock, input: &[$t], out: Out<u32>) {
            matches::<$t, $n>(block, input, out)
        }
    )*};
}

match_kernels! {
    matches_u32_1: u32, 1; matches_u32_2: u32, 2; matches_u32_4: u32, 4;
    matches_u32_8: u32, 8; matches_u32_16: u32, 16; matches_u32_32: u32, 32;
    matches_i64_1: i64, 1; matches_i64_2: i64, 2; matches_i64_4: i64, 4;
    matches_i64_8: i64, 8; matches_i64_16: i64, 16; matches_i64_32: i64, 32;
    matches_f32_1: f32, 1; matches_f32_2: f32, 2; matches_f32_4: f32, 4;
    matches_f32_8: f32, 8; matches_f32_16: f32, 16; matches_f32_32: f32, 32;
    matches_f64_1: f64, 1; matches_f64_2: f64, 2; matches_f64_4: f64, 4;
    matches_f64_8: f64, 8; matches_f64_16: f64, 16; matches_f64_32: f64, 32;
}

macro_rules! rank_kernels {
    ($($name:ident: $n:literal;)*) => {$(
        #[kernel]
        pub fn $name(block: ThreadBlock, out: Out<u32>) {
            ranks::<$n>(block, out)
        }
    )*};
}

rank_kernels! {
    ranks_1: 1; ranks_2: 2; ranks_4: 4; ranks_8: 8; ranks_16: 16; ranks_32: 32;
}

// ---------------------------------------------------------------------
// Reductions and scans: lowering checks (PTX) and property tests.

/// A 2x2 integer matrix: its product is associative but not commutative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Shuffle, DeviceCopy)]
#[repr(C)]
pub struct Mat2(pub [i32; 4]);

/// The matrix product, with wrapping arithmetic (exact and associative).
#[derive(Clone, Copy, Debug, Default)]
pub struct MatMul;

impl coop::op::Operator<Mat2> for MatMul {
    const COMMUTATIVE: bool = false;
    #[inline(always)]
    fn combine(&self, a: Mat2, b: Mat2) -> Mat2 {
        let (a, b) = (a.0, b.0);
        Mat2([
            a[0].wrapping_mul(b[0])
                .wrapping_add(a[1].wrapping_mul(b[2])),
            a[0].wrapping_mul(b[1])
                .wrapping_add(a[1].wrapping_mul(b[3])),
            a[2].wrapping_mul(b[0])
                .wrapping_add(a[3].wrapping_mul(b[2])),
            a[2].wrapping_mul(b[1])
                .wrapping_add(a[3].wrapping_mul(b[3])),
        ])
    }
    #[inline(always)]
    fn identity(&self) -> Mat2 {
        Mat2([1, 0, 0, 1])
    }
}

/// The largest value and where it is: the user type of an arg-max.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Shuffle)]
#[repr(C)]
pub struct ArgMax {
    /// The value.
    pub value: i32,
    /// Its index.
    pub index: u32,
}

/// The larger value wins; of equal values, the smaller index. Commutative,
/// so any order of combining gives the same result.
#[derive(Clone, Copy, Debug, Default)]
pub struct LargestFirst;

impl coop::op::Operator<ArgMax> for LargestFirst {
    const COMMUTATIVE: bool = true;
    #[inline(always)]
    fn combine(&self, a: ArgMax, b: ArgMax) -> ArgMax {
        if b.value > a.value || (b.value == a.value && b.index < a.index) {
            b
        } else {
            a
        }
    }
    #[inline(always)]
    fn identity(&self) -> ArgMax {
        ArgMax {
            value: i32::MIN,
            index: u32::MAX,
        }
    }
}

/// A range `[min, max]` of `f32`s: the user type of a (min, max) reduction.
#[derive(Clone, Copy, Debug, PartialEq, Shuffle)]
#[repr(C)]
pub struct Range(pub [f32; 2]);

/// The smallest range holding both.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hull;

impl coop::op::Operator<Range> for Hull {
    const COMMUTATIVE: bool = true;
    #[inline(always)]
    fn combine(&self, a: Range, b: Range) -> Range {
        Range([a.0[0].min(b.0[0]), a.0[1].max(b.0[1])])
    }
    #[inline(always)]
    fn identity(&self) -> Range {
        Range([f32::INFINITY, f32::NEG_INFINITY])
    }
}

/// A small vector of three `f32`s (three words: a block reduction of it
/// takes the path for values of more than two words).
#[derive(Clone, Copy, Debug, PartialEq, Shuffle)]
#[repr(C)]
pub struct Vec3(pub [f32; 3]);

/// Component-wise sum.
#[derive(Clone, Copy, Debug, Default)]
pub struct VecSum;

impl coop::op::Operator<Vec3> for VecSum {
    const COMMUTATIVE: bool = true;
    #[inline(always)]
    fn combine(&self, a: Vec3, b: Vec3) -> Vec3 {
        Vec3([a.0[0] + b.0[0], a.0[1] + b.0[1], a.0[2] + b.0[2]])
    }
    #[inline(always)]
    fn identity(&self) -> Vec3 {
        Vec3([0.0; 3])
    }
}

/// Which collective `collectives_*` runs: `GROUPS[mode / 3]` and
/// `["reduce", "inclusive_scan", "exclusive_scan"][mode % 3]`.
pub const GROUPS: [u32; 7] = [1, 2, 4, 8, 16, 32, 0]; // 0: the block

#[inline(always)]
fn collective<T: Shuffle, O: coop::op::Operator<T>>(
    block: ThreadBlock,
    v: T,
    op: O,
    mode: u32,
) -> T {
    macro_rules! on {
        ($g:expr) => {
            match mode % 3 {
                0 => reduce($g, v, op),
                1 => inclusive_scan($g, v, op),
                _ => exclusive_scan($g, v, op),
            }
        };
    }
    match mode / 3 {
        0 => on!(&block.tiled_partition::<1>()),
        1 => on!(&block.tiled_partition::<2>()),
        2 => on!(&block.tiled_partition::<4>()),
        3 => on!(&block.tiled_partition::<8>()),
        4 => on!(&block.tiled_partition::<16>()),
        5 => on!(&block.tiled_partition::<32>()),
        _ => on!(&block),
    }
}

macro_rules! collective_kernels {
    ($($name:ident: $t:ty, $op:expr;)*) => {$(
        /// Runs collective `mode` (see [`GROUPS`]) on `input` with one operator.
        #[kernel]
        pub fn $name(block: ThreadBlock, input: &[$t], mode: u32, out: Out<$t>) {
            let g = this_grid().thread_rank();
            out.write(g, collective(block, input[g], $op, mode));
        }
    )*};
}

collective_kernels! {
    collectives_u32_sum: u32, coop::op::Sum; collectives_u32_min: u32, coop::op::Min;
    collectives_u32_max: u32, coop::op::Max; collectives_u32_and: u32, coop::op::BitAnd;
    collectives_u32_or: u32, coop::op::BitOr; collectives_u32_xor: u32, coop::op::BitXor;
    collectives_u32_product: u32, coop::op::Product;
    collectives_i32_sum: i32, coop::op::Sum; collectives_i32_min: i32, coop::op::Min;
    collectives_i32_max: i32, coop::op::Max; collectives_i32_xor: i32, coop::op::BitXor;
    collectives_i64_sum: i64, coop::op::Sum; collectives_i64_min: i64, coop::op::Min;
    collectives_i64_max: i64, coop::op::Max; collectives_i64_and: i64, coop::op::BitAnd;
    collectives_u64_product: u64, coop::op::Product; collectives_u64_or: u64, coop::op::BitOr;
    collectives_u8_sum: u8, coop::op::Sum; collectives_i8_max: i8, coop::op::Max;
    collectives_u16_min: u16, coop::op::Min; collectives_i16_sum: i16, coop::op::Sum;
    collectives_u128_sum: u128, coop::op::Sum; collectives_i128_max: i128, coop::op::Max;
    collectives_usize_sum: usize, coop::op::Sum; collectives_isize_min: isize, coop::op::Min;
    collectives_f32_sum: f32, coop::op::Sum; collectives_f32_min: f32, coop::op::Min;
    collectives_f32_max: f32, coop::op::Max; collectives_f32_product: f32, coop::op::Product;
    collectives_f64_sum: f64, coop::op::Sum; collectives_f64_min: f64, coop::op::Min;
    collectives_f64_max: f64, coop::op::Max;
    collectives_mat2_product: Mat2, MatMul;
    collectives_argmax: ArgMax, LargestFirst; collectives_range_hull: Range, Hull;
    collectives_vec3_sum: Vec3, VecSum;
}

/// One warp sum of `f32` through the generic API...
#[kernel]
pub fn warp_sum_generic(block: ThreadBlock, input: &[f32], out: Out<f32>) {
    let warp = block.tiled_partition::<32>();
    let g = this_grid().thread_rank();
    out.write(g, reduce(&warp, input[g], coop::op::Sum));
}

/// ... and by hand, with the bare shuffle loop: same PTX.
#[kernel]
pub fn warp_sum_by_hand(block: ThreadBlock, input: &[f32], out: Out<f32>) {
    let warp = block.tiled_partition::<32>();
    let g = this_grid().thread_rank();
    let mut v = input[g];
    for m in [16, 8, 4, 2, 1] {
        v += warp.shfl_xor(v, m);
    }
    out.write(g, v);
}

macro_rules! lowering_kernels {
    ($($name:ident: $t:ty, $n:literal, $op:expr, $f:ident;)*) => {$(
        /// One collective, for the PTX tests to count its instructions.
        #[kernel]
        pub fn $name(block: ThreadBlock, input: &[$t], out: Out<$t>) {
            let tile = block.tiled_partition::<$n>();
            let g = this_grid().thread_rank();
            out.write(g, $f(&tile, input[g], $op));
        }
    )*};
}

lowering_kernels! {
    lower_reduce_u32_sum_32: u32, 32, coop::op::Sum, reduce;
    lower_reduce_i32_min_16: i32, 16, coop::op::Min, reduce;
    lower_reduce_u32_max_32: u32, 32, coop::op::Max, reduce;
    lower_reduce_u32_xor_16: u32, 16, coop::op::BitXor, reduce;
    lower_reduce_u32_sum_8: u32, 8, coop::op::Sum, reduce;
    lower_reduce_f32_sum_32: f32, 32, coop::op::Sum, reduce;
    lower_reduce_f64_max_16: f64, 16, coop::op::Max, reduce;
    lower_reduce_i64_sum_32: i64, 32, coop::op::Sum, reduce;
    lower_scan_f32_sum_32: f32, 32, coop::op::Sum, inclusive_scan;
}

/// A block reduction, for the PTX tests to count its barriers.
#[kernel]
pub fn lower_block_reduce_f32(block: ThreadBlock, input: &[f32], out: Out<f32>) {
    let g = this_grid().thread_rank();
    out.write(g, reduce(&block, input[g], coop::op::Sum));
}

/// The same for `i32`, whose warp sums are one `redux.sync`.
#[kernel]
pub fn lower_block_reduce_i32(block: ThreadBlock, input: &[i32], out: Out<i32>) {
    let g = this_grid().thread_rank();
    out.write(g, reduce(&block, input[g], coop::op::Sum));
}

/// A device-wide ordered product of 2x2 matrices (a user operator and type,
/// not commutative), for `coop_host::reduce::Reducer::reduce_with`.
#[kernel]
pub fn reduce_mat2_product(block: ThreadBlock, input: &[Mat2], partials: Out<Mat2>) {
    coop::device::reduce::reduce_blocks_scalar(block, input, MatMul, partials)
}

/// A device-wide sum of `i64` with a closure operator.
#[kernel]
pub fn reduce_i64_closure_sum(block: ThreadBlock, input: &[i64], partials: Out<i64>) {
    let op = coop::op::from_fn(0i64, |a: i64, b: i64| a.wrapping_add(b)).commutative();
    coop::device::reduce::reduce_blocks(block, input, op, partials)
}

/// [`reduce_mat2_product`] in one launch: the last block multiplies the
/// blocks' products, in block order.
#[kernel]
pub fn reduce_mat2_product_once(
    block: ThreadBlock,
    input: &[Mat2],
    partials: Out<Mat2>,
    tickets: Out<u32>,
) {
    coop::device::reduce::reduce_grid_scalar(block, input, MatMul, partials, tickets)
}

/// [`reduce_i64_closure_sum`] in one launch.
#[kernel]
pub fn reduce_i64_closure_sum_once(
    block: ThreadBlock,
    input: &[i64],
    partials: Out<i64>,
    tickets: Out<u32>,
) {
    let op = coop::op::from_fn(0i64, |a: i64, b: i64| a.wrapping_add(b)).commutative();
    coop::device::reduce::reduce_grid(block, input, op, partials, tickets)
}

/// Rounds of [`block_collectives_chain`].
pub const CHAIN_ROUNDS: u32 = 16;

/// Back-to-back block reductions and scans, each fed by the one before: a
/// block collective must not overwrite scratch that a slower warp still
/// reads from the previous one.
#[kernel]
pub fn block_collectives_chain(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let g = this_grid().thread_rank();
    let mut v = input[g];
    for round in 0..CHAIN_ROUNDS {
        let total = reduce(&block, v, coop::op::Sum);
        let prefix = exclusive_scan(&block, v ^ round, coop::op::Sum);
        let top = reduce(&block, v.wrapping_mul(3), coop::op::Max);
        v = total.wrapping_add(prefix).wrapping_add(top >> 3);
    }
    out.write(g, v);
}

/// The same lane test before and after a block barrier: the shape in which
/// a compiler that threads jumps copies the barrier into both arms of a
/// branch that splits a warp. The GPU suite checks that it finishes (the
/// barrier is non-aligned, so a copy is harmless).
#[kernel]
pub fn lane_tests_around_a_barrier(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let r = block.thread_rank();
    let lane = r % 32;
    let mut v = input[r as usize];
    if lane == 0 {
        v = v.wrapping_add(input[(r / 32) as usize]);
        out.write(r as usize, v);
    }
    block.sync();
    if lane == 0 && r < 32 {
        out.write((r + 1) as usize, v.wrapping_mul(3));
    }
}

/// Kernels that fault on purpose, one per kind of panic, for the fault
/// reports of both backends (`tests/faults.rs`, `tests/gpu.rs`): thread
/// `which` of block 0 breaks the rule, every other thread writes its rank.
pub mod faults {
    use coop::prelude::*;

    /// Writes one element past the end of `out`.
    #[kernel]
    pub fn fault_out_of_bounds(grid: Grid, which: u32, out: Out<u32>) {
        let i = grid.thread_rank();
        if i == which as usize {
            out.write(out.len(), 1); // fault: out of bounds
        } else if i < out.len() {
            out.write(i, i as u32);
        }
    }

    /// Unwraps a `None`.
    #[kernel]
    pub fn fault_unwrap_none(grid: Grid, which: u32, input: &[u32], out: Out<u32>) {
        let i = grid.thread_rank();
        let found = input.iter().position(|&x| x == which);
        if i == which as usize {
            out.write(i, found.map(|p| p as u32).unwrap()); // fault: unwrap on None
        } else if i < out.len() {
            out.write(i, i as u32);
        }
    }

    /// Never finishes: every thread waits for a flag nobody sets (a kernel
    /// for the GPU's wait with a time limit; the CPU backend cannot stop a
    /// loop that calls no coop method, so it is not run there).
    #[kernel]
    pub fn fault_spin(grid: Grid, flag: &[u32], out: Out<u32>) {
        // SAFETY: `flag[0]` exists (the launch passes one element).
        while unsafe { core::ptr::read_volatile(&flag[0]) } == 0 {}
        out.write(grid.thread_rank(), 1);
    }

    /// Panics with a message.
    #[kernel]
    pub fn fault_explicit_panic(grid: Grid, which: u32, out: Out<u32>) {
        let i = grid.thread_rank();
        if i == which as usize {
            panic!("thread {which} gives up"); // fault: explicit panic
        } else if i < out.len() {
            out.write(i, i as u32);
        }
    }
}

// ---------------------------------------------------------------------
// Device-wide scans, segmented reductions and transform-reductions with a
// user type and an operator that is not commutative.

/// A device-wide scan of 2x2 matrices by their ordered product, for
/// `coop_host::scan::Scanner::inclusive_with` and `exclusive_with`.
#[kernel]
pub fn scan_mat2_product(
    block: ThreadBlock,
    input: &[Mat2],
    output: Out<Mat2>,
    control: u32,
    status: Out<u64>,
    partials: Out<Mat2>,
    epoch: u32,
) {
    coop::device::scan::scan_scalar(
        block, input, output, MatMul, control, status, partials, epoch,
    )
}

/// The ordered product of each segment of 2x2 matrices, for
/// `coop_host::segmented::SegmentedReducer::reduce_with`.
#[kernel]
pub fn segmented_mat2_product(
    block: ThreadBlock,
    input: &[Mat2],
    offsets: &[u32],
    output: Out<Mat2>,
    phase: u32,
    work: Out<u64>,
    partials: Out<Mat2>,
) {
    coop::device::segmented::segmented_reduce(
        block, input, offsets, output, MatMul, phase, work, partials,
    )
}

/// An index-aware transform-reduction: the sum of `(i mod 7) * x[i]`, for
/// `coop_host::reduce::Reducer::transform_reduce_with`.
#[kernel]
pub fn transform_index_weighted(
    block: ThreadBlock,
    input: &[i64],
    partials: Out<i64>,
    tickets: Out<u32>,
) {
    let weighted = coop::device::map::from_fn(|i: usize, x: i64| x.wrapping_mul((i % 7) as i64));
    coop::device::reduce::reduce_grid_map(block, input, weighted, coop::op::Sum, partials, tickets)
}

/// A transform-reduction of a user type through an index-aware map, with
/// an operator that is not commutative: each matrix with its upper right
/// entry replaced by `i mod 3`, multiplied in order.
#[kernel]
pub fn transform_mat2_traces(
    block: ThreadBlock,
    input: &[Mat2],
    partials: Out<Mat2>,
    tickets: Out<u32>,
) {
    let marked = coop::device::map::from_fn(|i: usize, m: Mat2| {
        Mat2([m.0[0], (i % 3) as i32, m.0[2], m.0[3]])
    });
    coop::device::reduce::reduce_grid_map_scalar(block, input, marked, MatMul, partials, tickets)
}

/// The look-back of a device-wide scan alone, for tile `tile` over tile
/// states the host made (a matrix product: the order of combination
/// shows): lane 0 writes the exclusive prefix it finds.
#[kernel]
pub fn look_back_mat2(
    block: ThreadBlock,
    tile: u32,
    status: Out<u64>,
    partials: Out<Mat2>,
    epoch: u32,
    out: Out<Mat2>,
) {
    use coop::op::Operator;
    let warp = block.tiled_partition::<32>();
    let prefix = coop::device::look_back::look_back(
        &warp,
        tile as usize,
        MatMul.identity(),
        MatMul,
        &status,
        &partials,
        epoch,
    );
    if warp.thread_rank() == 0 {
        out.write(0, prefix);
    }
}

/// The same for a value of one word (it travels in the status word), with
/// an operator that is not commutative: the last nonzero value.
#[kernel]
pub fn look_back_last_nonzero(
    block: ThreadBlock,
    tile: u32,
    status: Out<u64>,
    partials: Out<u32>,
    epoch: u32,
    out: Out<u32>,
) {
    let last = coop::op::from_fn(0u32, |a: u32, b: u32| if b != 0 { b } else { a });
    let warp = block.tiled_partition::<32>();
    let prefix = coop::device::look_back::look_back(
        &warp,
        tile as usize,
        0,
        last,
        &status,
        &partials,
        epoch,
    );
    if warp.thread_rank() == 0 {
        out.write(0, prefix);
    }
}

/// The same for a value of two words (it travels in two status words a
/// tile): the last nonzero `u64`.
#[kernel]
pub fn look_back_last_nonzero_u64(
    block: ThreadBlock,
    tile: u32,
    status: Out<u64>,
    partials: Out<u64>,
    epoch: u32,
    out: Out<u64>,
) {
    let last = coop::op::from_fn(0u64, |a: u64, b: u64| if b != 0 { b } else { a });
    let warp = block.tiled_partition::<32>();
    let prefix = coop::device::look_back::look_back(
        &warp,
        tile as usize,
        0,
        last,
        &status,
        &partials,
        epoch,
    );
    if warp.thread_rank() == 0 {
        out.write(0, prefix);
    }
}

/// The look-back in order (`look_back_in_order`) for a float sum over
/// tile states the host made: lane 0 writes the exclusive prefix it finds,
/// whose bits show the order of the additions.
#[kernel]
pub fn look_back_in_order_f32(
    block: ThreadBlock,
    tile: u32,
    status: Out<u64>,
    partials: Out<f32>,
    epoch: u32,
    out: Out<f32>,
) {
    let warp = block.tiled_partition::<32>();
    let prefix = coop::device::look_back::look_back_in_order(
        &warp,
        tile as usize,
        0.0,
        coop::op::Sum,
        &status,
        &partials,
        epoch,
    );
    if warp.thread_rank() == 0 {
        out.write(0, prefix);
    }
}

/// Keeps the odd numbers: a predicate of the user's over `u32`
/// (`coop::device::select::select_if`).
#[kernel]
pub fn select_odd_u32(
    block: ThreadBlock,
    input: &[u32],
    output: Out<u32>,
    control: u32,
    selected: Out<u64>,
    status: Out<u64>,
    epoch: u32,
) {
    coop::device::select::select_if(
        block,
        input,
        output,
        |x: u32| x % 2 == 1,
        control,
        selected,
        status,
        epoch,
    )
}

/// Keeps the bytes above 200: a type whose runs are not staged.
#[kernel]
pub fn select_high_bytes(
    block: ThreadBlock,
    input: &[u8],
    output: Out<u8>,
    control: u32,
    selected: Out<u64>,
    status: Out<u64>,
    epoch: u32,
) {
    coop::device::select::select_if(
        block,
        input,
        output,
        |x: u8| x > 200,
        control,
        selected,
        status,
        epoch,
    )
}

/// Keeps the matrices whose trace is positive: a user type of 16 bytes.
#[kernel]
pub fn select_mat2_positive_trace(
    block: ThreadBlock,
    input: &[Mat2],
    output: Out<Mat2>,
    control: u32,
    selected: Out<u64>,
    status: Out<u64>,
    epoch: u32,
) {
    coop::device::select::select_if(
        block,
        input,
        output,
        |m: Mat2| m.0[0].wrapping_add(m.0[3]) > 0,
        control,
        selected,
        status,
        epoch,
    )
}

/// The first of each run of equal matrices: `unique` of a user type.
#[kernel]
pub fn unique_mat2(
    block: ThreadBlock,
    input: &[Mat2],
    output: Out<Mat2>,
    control: u32,
    selected: Out<u64>,
    status: Out<u64>,
    epoch: u32,
) {
    coop::device::select::unique(block, input, output, control, selected, status, epoch)
}

/// The flagged matrices: `select_flagged` of a user type.
#[kernel]
pub fn select_flagged_mat2(
    block: ThreadBlock,
    input: &[Mat2],
    flags: &[bool],
    output: Out<Mat2>,
    control: u32,
    selected: Out<u64>,
    status: Out<u64>,
    epoch: u32,
) {
    coop::device::select::select_flagged(
        block, input, flags, output, control, selected, status, epoch,
    )
}

/// Each element's ordered product of its run's matrices up to it (or
/// before it, with `control` `EXCLUSIVE`): `scan_by_key` with an operator
/// that is not commutative.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn mat2_product_scan_by_key(
    block: ThreadBlock,
    keys: &[u32],
    values: &[Mat2],
    values_out: Out<Mat2>,
    control: u32,
    status: Out<u64>,
    partials: Out<coop::device::runs::RunTotal<Mat2>>,
    epoch: u32,
) {
    coop::device::runs::scan_by_key(
        block, keys, values, values_out, MatMul, control, status, partials, epoch,
    )
}

/// The ordered product of each run's matrices: `reduce_by_key` with an
/// operator that is not commutative.
#[kernel]
pub fn mat2_product_by_key(
    block: ThreadBlock,
    keys: &[u32],
    values: &[Mat2],
    keys_out: Out<u32>,
    values_out: Out<Mat2>,
    runs: Out<u64>,
    status: Out<u64>,
    partials: Out<coop::device::runs::RunTotal<Mat2>>,
    epoch: u32,
) {
    coop::device::runs::reduce_by_key(
        block, keys, values, keys_out, values_out, MatMul, runs, status, partials, epoch,
    )
}
