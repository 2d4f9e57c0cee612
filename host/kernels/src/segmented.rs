//! Segmented reductions (`coop::device::segmented`).

use coop::device::segmented::{segmented_reduce_view, Offsets};
use coop::op::{Max, Min, Sum};
use coop::prelude::*;

macro_rules! segmented {
    ($($name:ident: $t:ty, $op:expr;)*) => {$(
        /// One phase of a segmented reduction (see
        /// `coop::device::segmented::segmented_reduce`); `offsets` are `u32` words,
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

/// `coop::device::segmented::segmented_reduce` with offsets given as `u32` words:
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
