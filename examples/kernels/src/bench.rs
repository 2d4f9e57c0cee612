//! Kernels of the reduction benchmark (`examples/bench/reduce_bench.rs`),
//! the same work as `examples/bench/cub_reduce.cu` does with CUB.

use coop::prelude::*;

/// Block-wide operations per launch in the `block_reduce_*` and
/// `block_scan_*` kernels.
pub const BLOCK_REDUCE_REPS: u32 = 64;
const _: () = assert!(
    BLOCK_REDUCE_REPS.is_multiple_of(4),
    "the kernels below unroll by four"
);

/// Element types of the block benchmarks: a sum that wraps for integers
/// (so that the kernels' arithmetic is the same as CUB's C++) and the
/// value of a loop counter.
pub trait Elem: Copy + Shuffle + Default {
    /// `self + other`, wrapping for integers.
    fn plus(self, other: Self) -> Self;
    /// `i` as this type.
    fn of(i: u32) -> Self;
}
macro_rules! elem {
    (float: $($f:ty),*; int: $($i:ty),*) => {
        $(impl Elem for $f {
            #[inline(always)]
            fn plus(self, other: Self) -> Self { self + other }
            #[inline(always)]
            fn of(i: u32) -> Self { i as $f }
        })*
        $(impl Elem for $i {
            #[inline(always)]
            fn plus(self, other: Self) -> Self { self.wrapping_add(other) }
            #[inline(always)]
            fn of(i: u32) -> Self { i as $i }
        })*
    };
}
elem!(float: f32, f64; int: i32, u32, i64, u64);

/// `BLOCK_REDUCE_REPS` block-wide operations `step` of one value per
/// thread (`v + i` in round `i`), their results summed: the loop of both
/// block benchmarks, unrolled by four by hand. nvcc unrolls the CUB
/// kernels' loops by four on its own (their SASS shows four operations per
/// trip), rustc leaves this one rolled, and in a kernel this small the
/// loop's own instructions show in the timings (chapter 7 of the guide).
#[inline(always)]
fn rounds<T: Elem>(v: T, mut step: impl FnMut(T) -> T) -> T {
    let mut acc = T::default();
    let mut i = 0;
    while i < BLOCK_REDUCE_REPS {
        acc = acc.plus(step(v.plus(T::of(i))));
        acc = acc.plus(step(v.plus(T::of(i + 1))));
        acc = acc.plus(step(v.plus(T::of(i + 2))));
        acc = acc.plus(step(v.plus(T::of(i + 3))));
        i += 4;
    }
    acc
}

/// Stamps out, for one element type, the two block benchmarks (a kernel
/// cannot be generic), each line with the `#[kernel]` arguments its two
/// kernels take:
///
/// - `block_reduce_*`: each block reduces `BLOCK_REDUCE_REPS` independent
///   sets of one value per thread; thread 0 writes their total (one value
///   a block). A kernel that does little besides block reductions, to
///   compare with CUB's `BlockReduce`.
/// - `block_scan_*`: each block runs `BLOCK_REDUCE_REPS` inclusive sums of
///   one value per thread; every thread writes the sum of its results (one
///   value a thread), against CUB's `BlockScan::InclusiveSum`.
///
/// `block_reduce_<type>` and `block_scan_<type>` read the block size at
/// run time. `block_reduce_<type>_<N>` and `block_scan_<type>_<N>` are
/// declared for blocks of `N` threads (`#[kernel(block = N)]`): CUB's
/// `BlockReduce<T, THREADS>` and `BlockScan<T, THREADS>` take the size as
/// a template parameter, so its kernels know it; these are coop's kernels
/// that know it too (chapter 7 of the guide has both rows).
macro_rules! block_benchmarks {
    ($($t:ty => $reduce:ident, $scan:ident $(($($args:tt)*))?;)*) => {$(
        #[doc = concat!("Block reductions of `", stringify!($t), "`", $(" declared (", stringify!($($args)*), ")",)? " (see the module's `block_benchmarks!`).")]
        #[kernel $(($($args)*))?]
        pub fn $reduce(block: ThreadBlock, input: &[$t], out: Out<$t>) {
            let grid = this_grid();
            let acc = rounds(input[grid.thread_rank()], |x| reduce(&block, x, op::Sum));
            if block.thread_rank() == 0 {
                out.write(grid.block_rank(), acc);
            }
        }

        #[doc = concat!("Block inclusive sums of `", stringify!($t), "`", $(" declared (", stringify!($($args)*), ")",)? " (see the module's `block_benchmarks!`).")]
        #[kernel $(($($args)*))?]
        pub fn $scan(block: ThreadBlock, input: &[$t], out: Out<$t>) {
            let grid = this_grid();
            let r = grid.thread_rank();
            let acc = rounds(input[r], |x| inclusive_scan(&block, x, op::Sum));
            out.write(r, acc);
        }
    )*};
}
block_benchmarks! {
    f32 => block_reduce_f32, block_scan_f32;
    f64 => block_reduce_f64, block_scan_f64;
    i32 => block_reduce_i32, block_scan_i32;
    u32 => block_reduce_u32, block_scan_u32;
    i64 => block_reduce_i64, block_scan_i64;
    u64 => block_reduce_u64, block_scan_u64;
    f32 => block_reduce_f32_64, block_scan_f32_64 (block = 64);
    f32 => block_reduce_f32_128, block_scan_f32_128 (block = 128);
    f32 => block_reduce_f32_256, block_scan_f32_256 (block = 256);
    f32 => block_reduce_f32_512, block_scan_f32_512 (block = 512);
    f32 => block_reduce_f32_1024, block_scan_f32_1024 (block = 1024);
    f64 => block_reduce_f64_64, block_scan_f64_64 (block = 64);
    f64 => block_reduce_f64_128, block_scan_f64_128 (block = 128);
    f64 => block_reduce_f64_256, block_scan_f64_256 (block = 256);
    f64 => block_reduce_f64_512, block_scan_f64_512 (block = 512);
    f64 => block_reduce_f64_1024, block_scan_f64_1024 (block = 1024);
    i32 => block_reduce_i32_64, block_scan_i32_64 (block = 64);
    i32 => block_reduce_i32_128, block_scan_i32_128 (block = 128);
    i32 => block_reduce_i32_256, block_scan_i32_256 (block = 256);
    i32 => block_reduce_i32_512, block_scan_i32_512 (block = 512);
    i32 => block_reduce_i32_1024, block_scan_i32_1024 (block = 1024);
    u32 => block_reduce_u32_64, block_scan_u32_64 (block = 64);
    u32 => block_reduce_u32_128, block_scan_u32_128 (block = 128);
    u32 => block_reduce_u32_256, block_scan_u32_256 (block = 256);
    u32 => block_reduce_u32_512, block_scan_u32_512 (block = 512);
    u32 => block_reduce_u32_1024, block_scan_u32_1024 (block = 1024);
    i64 => block_reduce_i64_64, block_scan_i64_64 (block = 64);
    i64 => block_reduce_i64_128, block_scan_i64_128 (block = 128);
    i64 => block_reduce_i64_256, block_scan_i64_256 (block = 256);
    i64 => block_reduce_i64_512, block_scan_i64_512 (block = 512);
    i64 => block_reduce_i64_1024, block_scan_i64_1024 (block = 1024);
    u64 => block_reduce_u64_64, block_scan_u64_64 (block = 64);
    u64 => block_reduce_u64_128, block_scan_u64_128 (block = 128);
    u64 => block_reduce_u64_256, block_scan_u64_256 (block = 256);
    u64 => block_reduce_u64_512, block_scan_u64_512 (block = 512);
    u64 => block_reduce_u64_1024, block_scan_u64_1024 (block = 1024);
}
