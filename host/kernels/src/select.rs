//! Device-wide selections (`coop::device::select`): by flags, and the
//! first of each run of equal elements.

use coop::device::select::{select_flagged, unique};
use coop::prelude::*;

macro_rules! selections {
    ($($flagged:ident, $unique:ident: $t:ty;)*) => {$(
        /// The elements of `input` whose flag is set, compacted or
        /// partitioned (see `coop::device::select::select_flagged`).
        #[kernel]
        pub fn $flagged(
            block: ThreadBlock,
            input: &[$t],
            flags: &[bool],
            output: Out<$t>,
            control: u32,
            selected: Out<u64>,
            status: Out<u64>,
            epoch: u32,
        ) {
            select_flagged(block, input, flags, output, control, selected, status, epoch)
        }

        /// The first element of each run of equal elements of `input`
        /// (see `coop::device::select::unique`).
        #[kernel]
        pub fn $unique(
            block: ThreadBlock,
            input: &[$t],
            output: Out<$t>,
            control: u32,
            selected: Out<u64>,
            status: Out<u64>,
            epoch: u32,
        ) {
            unique(block, input, output, control, selected, status, epoch)
        }
    )*};
}

selections! {
    select_flagged_u8, unique_u8: u8;
    select_flagged_i8, unique_i8: i8;
    select_flagged_u16, unique_u16: u16;
    select_flagged_i16, unique_i16: i16;
    select_flagged_u32, unique_u32: u32;
    select_flagged_i32, unique_i32: i32;
    select_flagged_f32, unique_f32: f32;
    select_flagged_u64, unique_u64: u64;
    select_flagged_i64, unique_i64: i64;
    select_flagged_f64, unique_f64: f64;
}
