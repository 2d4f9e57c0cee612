//! Device-wide scans (`coop::device::scan::scan`).

use coop::device::scan::scan;
use coop::op::{Max, Min, Sum};
use coop::prelude::*;

macro_rules! scans {
    ($($name:ident: $t:ty, $op:expr;)*) => {$(
        /// A device-wide scan (see `coop::device::scan::scan`): one pass, or
        /// one of the three deterministic passes, as `control` says.
        #[kernel]
        pub fn $name(
            block: ThreadBlock,
            input: &[$t],
            output: Out<$t>,
            control: u32,
            status: Out<u64>,
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
