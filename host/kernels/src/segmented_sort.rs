//! Segmented sorts (`coop::device::segmented_sort`): one phase of a sort
//! of keys, or of keys with 4- or 8-byte values, the keys given as the
//! unsigned integers of their width (the kind of key in `control`: one
//! kernel serves `u32`, `i32` and `f32`), the offsets as `u32` words (two
//! a `u64` offset when `wide` is 1).

use coop::device::segmented::Offsets;
use coop::device::segmented_sort::{segmented_sort_routes, MERGE_ROUTE, RADIX_ROUTE};
use coop::prelude::*;

macro_rules! segmented_sorts {
    ($route:expr; $($k:ty => $keys:ident, $pairs32:ident, $pairs64:ident;)*) => {$(
        /// One phase of a segmented sort of keys (see
        /// `coop::device::segmented_sort::segmented_sort_keys`).
        #[kernel]
        #[allow(clippy::too_many_arguments)]
        pub fn $keys(
            block: ThreadBlock,
            keys: InOut<$k>,
            keys_alt: InOut<$k>,
            offsets: &[u32],
            wide: u32,
            phase: u32,
            control: u32,
            work: Out<u64>,
        ) {
            let offsets = Offsets::from_words(offsets, wide != 0);
            let site = core::panic::Location::caller();
            segmented_sort_routes::<$k, u32, { $route }>(
                block, keys, keys_alt, None, offsets, phase, control, work, site,
            )
        }

        /// One phase of a segmented sort of keys with 4-byte values (see
        /// `coop::device::segmented_sort::segmented_sort_pairs`).
        #[kernel]
        #[allow(clippy::too_many_arguments)]
        pub fn $pairs32(
            block: ThreadBlock,
            keys: InOut<$k>,
            keys_alt: InOut<$k>,
            values: InOut<u32>,
            values_alt: InOut<u32>,
            offsets: &[u32],
            wide: u32,
            phase: u32,
            control: u32,
            work: Out<u64>,
        ) {
            let offsets = Offsets::from_words(offsets, wide != 0);
            let site = core::panic::Location::caller();
            segmented_sort_routes::<_, _, { $route }>(
                block, keys, keys_alt, Some((values, values_alt)), offsets, phase, control, work,
                site,
            )
        }

        /// One phase of a segmented sort of keys with 8-byte values.
        #[kernel]
        #[allow(clippy::too_many_arguments)]
        pub fn $pairs64(
            block: ThreadBlock,
            keys: InOut<$k>,
            keys_alt: InOut<$k>,
            values: InOut<u64>,
            values_alt: InOut<u64>,
            offsets: &[u32],
            wide: u32,
            phase: u32,
            control: u32,
            work: Out<u64>,
        ) {
            let offsets = Offsets::from_words(offsets, wide != 0);
            let site = core::panic::Location::caller();
            segmented_sort_routes::<_, _, { $route }>(
                block, keys, keys_alt, Some((values, values_alt)), offsets, phase, control, work,
                site,
            )
        }
    )*};
}

// The merge route's phases (and the first two of both routes).
segmented_sorts! {
    MERGE_ROUTE;
    u8 => segmented_sort_keys_k8, segmented_sort_pairs_k8_v32, segmented_sort_pairs_k8_v64;
    u16 => segmented_sort_keys_k16, segmented_sort_pairs_k16_v32, segmented_sort_pairs_k16_v64;
    u32 => segmented_sort_keys_k32, segmented_sort_pairs_k32_v32, segmented_sort_pairs_k32_v64;
    u64 => segmented_sort_keys_k64, segmented_sort_pairs_k64_v32, segmented_sort_pairs_k64_v64;
}

// The radix route's phase, in kernels of their own: their registers are
// not those of the merges (which are capped at 64).
segmented_sorts! {
    RADIX_ROUTE;
    u8 => segmented_radix_keys_k8, segmented_radix_pairs_k8_v32, segmented_radix_pairs_k8_v64;
    u16 => segmented_radix_keys_k16, segmented_radix_pairs_k16_v32, segmented_radix_pairs_k16_v64;
    u32 => segmented_radix_keys_k32, segmented_radix_pairs_k32_v32, segmented_radix_pairs_k32_v64;
    u64 => segmented_radix_keys_k64, segmented_radix_pairs_k64_v32, segmented_radix_pairs_k64_v64;
}
