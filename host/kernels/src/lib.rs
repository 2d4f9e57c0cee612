//! coop-host's own kernels: the built-in device-wide reductions
//! (`coop::grid_reduce`: plain, through a map, and deterministic), scans
//! (`coop::device_scan`) and segmented reductions (`coop::segmented`). One
//! kernel per (operator or map, type).
#![no_std]

use coop::device_scan::scan;
use coop::grid_reduce::{reduce_grid, reduce_grid_map, reduce_ordered};
use coop::map::{Abs, Compare, CountIf, Identity, Square, WithIndex};
use coop::op::{Arg, ArgMax, ArgMin, Max, Min, Sum};
use coop::prelude::*;
use coop::segmented::{segmented_reduce_view, Offsets};

macro_rules! reductions {
    ($($name:ident: $t:ty, $op:expr;)*) => {$(
        /// A device-wide reduction in one launch (see
        /// `coop::grid_reduce::reduce_grid`).
        #[kernel]
        pub fn $name(block: ThreadBlock, input: &[$t], partials: Out<$t>, tickets: Out<u32>) {
            reduce_grid(block, input, $op, partials, tickets)
        }
    )*};
}

reductions! {
    reduce_sum_f32: f32, Sum; reduce_min_f32: f32, Min; reduce_max_f32: f32, Max;
    reduce_sum_f64: f64, Sum; reduce_min_f64: f64, Min; reduce_max_f64: f64, Max;
    reduce_sum_i32: i32, Sum; reduce_min_i32: i32, Min; reduce_max_i32: i32, Max;
    reduce_sum_u32: u32, Sum; reduce_min_u32: u32, Min; reduce_max_u32: u32, Max;
    reduce_sum_i64: i64, Sum; reduce_min_i64: i64, Min; reduce_max_i64: i64, Max;
    reduce_sum_u64: u64, Sum; reduce_min_u64: u64, Min; reduce_max_u64: u64, Max;
}

macro_rules! scans {
    ($($name:ident: $t:ty, $op:expr;)*) => {$(
        /// A device-wide scan (see `coop::device_scan::scan`): one pass, or
        /// one of the three deterministic passes, as `control` says.
        #[kernel]
        pub fn $name(
            block: ThreadBlock,
            input: &[$t],
            output: Out<$t>,
            control: u32,
            status: Out<u32>,
            partials: Out<$t>,
            epoch: u32,
        ) {
            scan(block, input, output, $op, control, status, partials, epoch)
        }
    )*};
}

scans! {
    scan_sum_f32: f32, Sum; scan_min_f32: f32, Min; scan_max_f32: f32, Max;
    scan_sum_f64: f64, Sum; scan_min_f64: f64, Min; scan_max_f64: f64, Max;
    scan_sum_i32: i32, Sum; scan_min_i32: i32, Min; scan_max_i32: i32, Max;
    scan_sum_u32: u32, Sum; scan_min_u32: u32, Min; scan_max_u32: u32, Max;
    scan_sum_i64: i64, Sum; scan_min_i64: i64, Min; scan_max_i64: i64, Max;
    scan_sum_u64: u64, Sum; scan_min_u64: u64, Min; scan_max_u64: u64, Max;
}

macro_rules! segmented {
    ($($name:ident: $t:ty, $op:expr;)*) => {$(
        /// One phase of a segmented reduction (see
        /// `coop::segmented::segmented_reduce`); `offsets` are `u32` words,
        /// two a `u64` offset when `wide` is 1.
        #[kernel]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            block: ThreadBlock,
            input: &[$t],
            offsets: &[u32],
            wide: u32,
            output: Out<$t>,
            phase: u32,
            work: Out<u64>,
            partials: Out<$t>,
        ) {
            segmented_words(block, input, offsets, wide, output, $op, phase, work, partials)
        }
    )*};
}

segmented! {
    segmented_sum_f32: f32, Sum; segmented_min_f32: f32, Min; segmented_max_f32: f32, Max;
    segmented_sum_f64: f64, Sum; segmented_min_f64: f64, Min; segmented_max_f64: f64, Max;
    segmented_sum_i32: i32, Sum; segmented_min_i32: i32, Min; segmented_max_i32: i32, Max;
    segmented_sum_u32: u32, Sum; segmented_min_u32: u32, Min; segmented_max_u32: u32, Max;
    segmented_sum_i64: i64, Sum; segmented_min_i64: i64, Min; segmented_max_i64: i64, Max;
    segmented_sum_u64: u64, Sum; segmented_min_u64: u64, Min; segmented_max_u64: u64, Max;
}

macro_rules! transforms {
    ($($name:ident: $t:ty => $u:ty, $map:expr, $op:expr;)*) => {$(
        /// A device-wide transform-reduction in one launch (see
        /// `coop::grid_reduce::reduce_grid_map`).
        #[kernel]
        pub fn $name(block: ThreadBlock, input: &[$t], partials: Out<$u>, tickets: Out<u32>) {
            reduce_grid_map(block, input, $map, $op, partials, tickets)
        }
    )*};
}

transforms! {
    sum_abs_f32: f32 => f32, Abs, Sum; sum_abs_f64: f64 => f64, Abs, Sum;
    sum_abs_i32: i32 => i32, Abs, Sum; sum_abs_i64: i64 => i64, Abs, Sum;
    max_abs_f32: f32 => f32, Abs, Max; max_abs_f64: f64 => f64, Abs, Max;
    max_abs_i32: i32 => i32, Abs, Max; max_abs_i64: i64 => i64, Abs, Max;
    sum_squares_f32: f32 => f32, Square, Sum; sum_squares_f64: f64 => f64, Square, Sum;
    sum_squares_i32: i32 => i32, Square, Sum; sum_squares_u32: u32 => u32, Square, Sum;
    sum_squares_i64: i64 => i64, Square, Sum; sum_squares_u64: u64 => u64, Square, Sum;
    arg_max_f32: f32 => Arg<f32>, WithIndex, ArgMax; arg_min_f32: f32 => Arg<f32>, WithIndex, ArgMin;
    arg_max_f64: f64 => Arg<f64>, WithIndex, ArgMax; arg_min_f64: f64 => Arg<f64>, WithIndex, ArgMin;
    arg_max_i32: i32 => Arg<i32>, WithIndex, ArgMax; arg_min_i32: i32 => Arg<i32>, WithIndex, ArgMin;
    arg_max_u32: u32 => Arg<u32>, WithIndex, ArgMax; arg_min_u32: u32 => Arg<u32>, WithIndex, ArgMin;
    arg_max_i64: i64 => Arg<i64>, WithIndex, ArgMax; arg_min_i64: i64 => Arg<i64>, WithIndex, ArgMin;
    arg_max_u64: u64 => Arg<u64>, WithIndex, ArgMax; arg_min_u64: u64 => Arg<u64>, WithIndex, ArgMin;
}

macro_rules! counts {
    ($($name:ident: $t:ty;)*) => {$(
        /// How many elements compare with `threshold` as `compare` says (a
        /// `coop::map::Compare` code), in one launch.
        #[kernel]
        pub fn $name(
            block: ThreadBlock,
            input: &[$t],
            compare: u32,
            threshold: $t,
            partials: Out<u64>,
            tickets: Out<u32>,
        ) {
            let compare = Compare::from_code(compare).unwrap_or(Compare::IsNan);
            reduce_grid_map(block, input, CountIf::new(compare, threshold), Sum, partials, tickets)
        }
    )*};
}

counts! {
    count_if_f32: f32; count_if_f64: f64; count_if_i32: i32;
    count_if_u32: u32; count_if_i64: i64; count_if_u64: u64;
}

macro_rules! ordered {
    ($($name:ident: $t:ty, $map:expr;)*) => {$(
        /// One launch of a deterministic sum (see
        /// `coop::grid_reduce::reduce_ordered`).
        #[kernel]
        pub fn $name(block: ThreadBlock, input: &[$t], partials: Out<$t>) {
            reduce_ordered(block, input, $map, Sum, partials)
        }
    )*};
}

ordered! {
    sum_ordered_f32: f32, Identity; sum_ordered_f64: f64, Identity;
    sum_abs_ordered_f32: f32, Abs; sum_abs_ordered_f64: f64, Abs;
    sum_squares_ordered_f32: f32, Square; sum_squares_ordered_f64: f64, Square;
}

/// `coop::segmented::segmented_reduce` with offsets given as `u32` words:
/// one offset a word, or two words (low first) a `u64` offset when `wide`
/// is 1, read through one code path.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn segmented_words<T: Shuffle, O: coop::op::Operator<T>>(
    block: ThreadBlock,
    input: &[T],
    words: &[u32],
    wide: u32,
    output: Out<T>,
    op: O,
    phase: u32,
    work: Out<u64>,
    partials: Out<T>,
) {
    let offsets = Offsets::from_words(words, wide != 0);
    segmented_reduce_view(block, input, offsets, output, op, phase, work, partials)
}
