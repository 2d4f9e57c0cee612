//! Arg-min and arg-max (`reduce_grid_map` with `WithIndex`).

use coop::device::map::WithIndex;
use coop::device::reduce::reduce_grid_map;
use coop::op::{Arg, ArgMax, ArgMin};
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
    arg_max_f32: f32 => Arg<f32>, WithIndex, ArgMax; arg_min_f32: f32 => Arg<f32>, WithIndex, ArgMin;
    arg_max_f64: f64 => Arg<f64>, WithIndex, ArgMax; arg_min_f64: f64 => Arg<f64>, WithIndex, ArgMin;
    arg_max_i32: i32 => Arg<i32>, WithIndex, ArgMax; arg_min_i32: i32 => Arg<i32>, WithIndex, ArgMin;
    arg_max_u32: u32 => Arg<u32>, WithIndex, ArgMax; arg_min_u32: u32 => Arg<u32>, WithIndex, ArgMin;
    arg_max_i64: i64 => Arg<i64>, WithIndex, ArgMax; arg_min_i64: i64 => Arg<i64>, WithIndex, ArgMin;
    arg_max_u64: u64 => Arg<u64>, WithIndex, ArgMax; arg_min_u64: u64 => Arg<u64>, WithIndex, ArgMin;
}
