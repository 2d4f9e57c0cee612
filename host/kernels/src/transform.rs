//! Transform-reductions through the built-in maps (`reduce_grid_map`):
//! sums of absolute values and squares, largest absolute values, counts.

use coop::device::map::{Abs, Compare, CountIf, Square};
use coop::device::reduce::reduce_grid_map;
use coop::op::{Max, Sum};
use coop::prelude::*;

macro_rules! transforms {
    ($($name:ident: $t:ty => $u:ty, $map:expr, $op:expr;)*) => {$(
        /// A device-wide transform-reduction in one launch (see
        /// `coop::device::reduce::reduce_grid_map`).
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
}

macro_rules! counts {
    ($($name:ident: $t:ty;)*) => {$(
        /// How many elements compare with `threshold` as `compare` says (a
        /// `coop::device::map::Compare` code), in one launch.
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
