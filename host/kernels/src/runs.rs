//! Runs of equal keys (`coop::device::runs`): sums by key, run-length
//! encoding, and sums scanned by key.

use coop::device::runs::{
    reduce_by_key, reduce_by_key_in_order, run_length_encode, scan_by_key, scan_by_key_in_order,
    RunTotal,
};
use coop::op::Sum;
use coop::prelude::*;

/// Kernels of sums by key, each calling `$f` (`reduce_by_key`, or
/// `reduce_by_key_in_order` for the deterministic ones).
macro_rules! sums_by_key {
    ($f:ident; $($name:ident: $k:ty, $v:ty;)*) => {$(
        #[doc = concat!("The sum of each run of equal keys' values (see `coop::device::runs::", stringify!($f), "`).")]
        #[kernel]
        pub fn $name(
            block: ThreadBlock,
            keys: &[$k],
            values: &[$v],
            keys_out: Out<$k>,
            values_out: Out<$v>,
            runs: Out<u64>,
            status: Out<u64>,
            partials: Out<RunTotal<$v>>,
            epoch: u32,
        ) {
            $f(block, keys, values, keys_out, values_out, Sum, runs, status, partials, epoch)
        }
    )*};
}

sums_by_key! {
    reduce_by_key;
    sum_by_key_u32_f32: u32, f32; sum_by_key_u32_f64: u32, f64; sum_by_key_u32_i32: u32, i32;
    sum_by_key_u32_u32: u32, u32; sum_by_key_u32_i64: u32, i64; sum_by_key_u32_u64: u32, u64;
    sum_by_key_i32_f32: i32, f32; sum_by_key_i32_f64: i32, f64; sum_by_key_i32_i32: i32, i32;
    sum_by_key_i32_u32: i32, u32; sum_by_key_i32_i64: i32, i64; sum_by_key_i32_u64: i32, u64;
    sum_by_key_u64_f32: u64, f32; sum_by_key_u64_f64: u64, f64; sum_by_key_u64_i32: u64, i32;
    sum_by_key_u64_u32: u64, u32; sum_by_key_u64_i64: u64, i64; sum_by_key_u64_u64: u64, u64;
    sum_by_key_i64_f32: i64, f32; sum_by_key_i64_f64: i64, f64; sum_by_key_i64_i32: i64, i32;
    sum_by_key_i64_u32: i64, u32; sum_by_key_i64_i64: i64, i64; sum_by_key_i64_u64: i64, u64;
}

macro_rules! encodings {
    ($($name:ident: $k:ty;)*) => {$(
        /// The key and length of each run of equal keys (see
        /// `coop::device::runs::run_length_encode`).
        #[kernel]
        pub fn $name(
            block: ThreadBlock,
            keys: &[$k],
            keys_out: Out<$k>,
            lengths_out: Out<u32>,
            runs: Out<u64>,
            status: Out<u64>,
            partials: Out<RunTotal<u32>>,
            epoch: u32,
        ) {
            run_length_encode(block, keys, keys_out, lengths_out, runs, status, partials, epoch)
        }
    )*};
}

encodings! {
    encode_u8: u8; encode_i8: i8; encode_u16: u16; encode_i16: i16; encode_u32: u32;
    encode_i32: i32; encode_f32: f32; encode_u64: u64; encode_i64: i64; encode_f64: f64;
}

/// Kernels of sums scanned by key, each calling `$f` (`scan_by_key`, or
/// `scan_by_key_in_order` for the deterministic ones).
macro_rules! sum_scans_by_key {
    ($f:ident; $($name:ident: $k:ty, $v:ty;)*) => {$(
        #[doc = concat!("Each element's sum of its run's values up to it, or before it with `control` \
            `coop::device::runs::EXCLUSIVE` (see `coop::device::runs::", stringify!($f), "`). Keys as \
            the unsigned integers of their width (equal exactly when their bits are), values of \
            integers as unsigned words (their sums wrap alike).")]
        #[kernel]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            block: ThreadBlock,
            keys: &[$k],
            values: &[$v],
            values_out: Out<$v>,
            control: u32,
            status: Out<u64>,
            partials: Out<RunTotal<$v>>,
            epoch: u32,
        ) {
            $f(block, keys, values, values_out, Sum, control, status, partials, epoch)
        }
    )*};
}

sum_scans_by_key! {
    scan_by_key;
    sum_scan_by_key_k32_v32: u32, u32; sum_scan_by_key_k32_v64: u32, u64;
    sum_scan_by_key_k32_f32: u32, f32; sum_scan_by_key_k32_f64: u32, f64;
    sum_scan_by_key_k64_v32: u64, u32; sum_scan_by_key_k64_v64: u64, u64;
    sum_scan_by_key_k64_f32: u64, f32; sum_scan_by_key_k64_f64: u64, f64;
}

// The deterministic float sums (`RunReducer::deterministic`), keys as
// the unsigned integers of their width.
sums_by_key! {
    reduce_by_key_in_order;
    ordered_sum_by_key_k32_f32: u32, f32; ordered_sum_by_key_k32_f64: u32, f64;
    ordered_sum_by_key_k64_f32: u64, f32; ordered_sum_by_key_k64_f64: u64, f64;
}

sum_scans_by_key! {
    scan_by_key_in_order;
    ordered_sum_scan_by_key_k32_f32: u32, f32; ordered_sum_scan_by_key_k32_f64: u32, f64;
    ordered_sum_scan_by_key_k64_f32: u64, f32; ordered_sum_scan_by_key_k64_f64: u64, f64;
}
