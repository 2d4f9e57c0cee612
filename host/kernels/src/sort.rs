//! Radix sorts (`coop::device::radix_sort`): the digit counts of every
//! pass, and one pass of keys, or of keys with 4- or 8-byte values.

use coop::device::radix_sort::{histogram, onesweep_keys, onesweep_pairs};
use coop::prelude::*;

macro_rules! sorts {
    ($($k:ty => $histogram:ident, $keys:ident, $pairs32:ident, $pairs64:ident;)*) => {$(
        /// The digit counts of every pass (see
        /// `coop::device::radix_sort::histogram`).
        #[kernel]
        pub fn $histogram(
            block: ThreadBlock,
            keys: &[$k],
            bins: Out<u32>,
            begin_bit: u32,
            end_bit: u32,
            control: u32,
        ) {
            histogram(block, keys, bins, begin_bit, end_bit, control)
        }

        /// One pass of a sort of keys (see
        /// `coop::device::radix_sort::onesweep_keys`).
        #[kernel]
        pub fn $keys(
            block: ThreadBlock,
            keys: &[$k],
            keys_out: Out<$k>,
            bins: &[u32],
            status: Out<u64>,
            begin_bit: u32,
            end_bit: u32,
            pass: u32,
            control: u32,
            epoch: u32,
        ) {
            onesweep_keys(block, keys, keys_out, bins, status, begin_bit, end_bit, pass, control, epoch)
        }

        /// One pass of a sort of keys with 4-byte values (see
        /// `coop::device::radix_sort::onesweep_pairs`).
        #[kernel]
        pub fn $pairs32(
            block: ThreadBlock,
            keys: &[$k],
            keys_out: Out<$k>,
            values: &[u32],
            values_out: Out<u32>,
            bins: &[u32],
            status: Out<u64>,
            begin_bit: u32,
            end_bit: u32,
            pass: u32,
            control: u32,
            epoch: u32,
        ) {
            onesweep_pairs(
                block, keys, keys_out, values, values_out, bins, status, begin_bit, end_bit, pass,
                control, epoch,
            )
        }

        /// One pass of a sort of keys with 8-byte values (see
        /// `coop::device::radix_sort::onesweep_pairs`).
        #[kernel]
        pub fn $pairs64(
            block: ThreadBlock,
            keys: &[$k],
            keys_out: Out<$k>,
            values: &[u64],
            values_out: Out<u64>,
            bins: &[u32],
            status: Out<u64>,
            begin_bit: u32,
            end_bit: u32,
            pass: u32,
            control: u32,
            epoch: u32,
        ) {
            onesweep_pairs(
                block, keys, keys_out, values, values_out, bins, status, begin_bit, end_bit, pass,
                control, epoch,
            )
        }
    )*};
}

sorts! {
    u8 => sort_histogram_u8, sort_keys_u8, sort_pairs_u8_b32, sort_pairs_u8_b64;
    i8 => sort_histogram_i8, sort_keys_i8, sort_pairs_i8_b32, sort_pairs_i8_b64;
    u16 => sort_histogram_u16, sort_keys_u16, sort_pairs_u16_b32, sort_pairs_u16_b64;
    i16 => sort_histogram_i16, sort_keys_i16, sort_pairs_i16_b32, sort_pairs_i16_b64;
    u32 => sort_histogram_u32, sort_keys_u32, sort_pairs_u32_b32, sort_pairs_u32_b64;
    i32 => sort_histogram_i32, sort_keys_i32, sort_pairs_i32_b32, sort_pairs_i32_b64;
    f32 => sort_histogram_f32, sort_keys_f32, sort_pairs_f32_b32, sort_pairs_f32_b64;
    u64 => sort_histogram_u64, sort_keys_u64, sort_pairs_u64_b32, sort_pairs_u64_b64;
    i64 => sort_histogram_i64, sort_keys_i64, sort_pairs_i64_b32, sort_pairs_i64_b64;
    f64 => sort_histogram_f64, sort_keys_f64, sort_pairs_f64_b32, sort_pairs_f64_b64;
}
