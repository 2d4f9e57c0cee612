//! The plain device-wide reductions (`reduce_grid`) and the deterministic
//! float sums (`reduce_ordered_grid`).

use coop::device::map::{Abs, Identity, Square};
use coop::device::reduce::{reduce_grid, reduce_ordered_grid};
use coop::op::{Max, Min, Sum};
use coop::prelude::*;

macro_rules! reductions {
    ($($name:ident: $t:ty, $op:expr;)*) => {$(
        /// A device-wide reduction in one launch (see
        /// `coop::device::reduce::reduce_grid`).
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

macro_rules! ordered {
    ($($name:ident: $t:ty, $map:expr;)*) => {$(
        /// A deterministic sum in one launch (see
        /// `coop::device::reduce::reduce_ordered_grid`).
        #[kernel]
        pub fn $name(block: ThreadBlock, input: &[$t], partials: Out<$t>, tickets: Out<u32>) {
            reduce_ordered_grid(block, input, $map, Sum, partials, tickets)
        }
    )*};
}

ordered! {
    sum_ordered_f32: f32, Identity; sum_ordered_f64: f64, Identity;
    sum_abs_ordered_f32: f32, Abs; sum_abs_ordered_f64: f64, Abs;
    sum_squares_ordered_f32: f32, Square; sum_squares_ordered_f64: f64, Square;
}
