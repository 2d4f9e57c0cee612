//! Top-k selections (`coop::device::top_k`), in the sort family: a
//! counting pass, and the selection of keys alone, with their indices, or
//! with 4- or 8-byte values (one kernel, the values as 32-bit words).

use coop::device::top_k::{count, select_words};
use coop::prelude::*;

macro_rules! top_k {
    ($($k:ty => $count:ident, $select:ident;)*) => {$(
        /// A counting pass of a top-k selection (see
        /// `coop::device::top_k::count`).
        #[kernel]
        pub fn $count(
            block: ThreadBlock,
            keys: &[$k],
            bins: Out<u32>,
            state: Out<u32>,
            k: u32,
            pass: u32,
            control: u32,
        ) {
            count(block, keys, bins, state, k, pass, control)
        }

        /// The selection of the top `k` keys, alone, with their indices or
        /// with values of one or two words (see
        /// `coop::device::top_k::select_words`).
        #[kernel]
        pub fn $select(
            block: ThreadBlock,
            keys: &[$k],
            keys_out: Out<$k>,
            values: &[u32],
            values_out: Out<u32>,
            carry: u32,
            bins: &[u32],
            state: &[u32],
            k: u32,
            control: u32,
            status: Out<u64>,
            epoch: u32,
        ) {
            select_words(
                block, keys, keys_out, values, values_out, carry, bins, state, k, control, status,
                epoch,
            )
        }
    )*};
}

top_k! {
    u8 => top_k_count_u8, top_k_select_u8;
    i8 => top_k_count_i8, top_k_select_i8;
    u16 => top_k_count_u16, top_k_select_u16;
    i16 => top_k_count_i16, top_k_select_i16;
    u32 => top_k_count_u32, top_k_select_u32;
    i32 => top_k_count_i32, top_k_select_i32;
    f32 => top_k_count_f32, top_k_select_f32;
    u64 => top_k_count_u64, top_k_select_u64;
    i64 => top_k_count_i64, top_k_select_i64;
    f64 => top_k_count_f64, top_k_select_f64;
}
