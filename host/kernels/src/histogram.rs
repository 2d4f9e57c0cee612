//! Histograms (`coop::device::histogram`).

use coop::device::histogram::{
    histogram, histogram_pixels, Even, LazyPixels, Levels, MAX_CHANNELS,
};
use coop::prelude::*;
use coop::shared::Shared;

macro_rules! histograms {
    ($($t:ty, $level:ty, [$($pixels_bounds:tt)*]: $even:ident, $range:ident, $even_pixels:ident, $levels:ident;)*) => {$(
        /// A histogram of one channel in bins of equal width (see
        /// `coop::device::histogram::histogram`), added to `counts`.
        #[kernel]
        pub fn $even(
            block: ThreadBlock,
            samples: &[$t],
            lower: $level,
            upper: $level,
            bins: u32,
            counts: Out<u32>,
            scratch: Shared<[u32]>,
        ) {
            histogram(block, samples, Even::<$t>::new(lower, upper, bins), counts, scratch)
        }

        /// A histogram of one channel in the bins between consecutive
        /// `levels`, added to `counts`: the one-channel body alone (the
        /// pixel kernel carries a body for each channel count, and the
        /// registers of the largest).
        #[kernel]
        pub fn $range(
            block: ThreadBlock,
            samples: &[$t],
            levels: &[$level],
            counts: Out<u32>,
            scratch: Shared<[u32]>,
        ) {
            histogram(block, samples, Levels::<$t>::new(levels), counts, scratch)
        }

        /// Histograms of the channels of pixels of `channels` channels
        /// before the first with no bins, in bins of equal width: channel
        /// `c` has `bins[c]` bins between `bounds[2c]` and `bounds[2c +
        /// 1]`. The bounds and bins are values, not buffers: a launch
        /// copies nothing to the device first.
        #[kernel($($pixels_bounds)*)]
        pub fn $even_pixels(
            block: ThreadBlock,
            samples: &[$t],
            channels: u32,
            bounds: [$level; 2 * MAX_CHANNELS],
            bins: [u32; MAX_CHANNELS],
            counts: Out<u32>,
            scratch: Shared<[u32]>,
        ) {
            let active = bins.iter().take_while(|&&b| b != 0).count();
            // Made when needed: bytes need them only after the sweep.
            let pixels = LazyPixels::new(channels as usize, active, |c| {
                Even::<$t>::new(bounds[2 * c], bounds[2 * c + 1], bins[c])
            });
            histogram_pixels(block, samples, pixels, counts, scratch)
        }

        /// Histograms of the first `ends.len()` channels of pixels of
        /// `channels` channels, in bins between levels: channel `c`'s
        /// levels are `levels[ends[c - 1]..ends[c]]` (from 0 for `c` = 0).
        #[kernel]
        pub fn $levels(
            block: ThreadBlock,
            samples: &[$t],
            channels: u32,
            levels: &[$level],
            ends: &[u32],
            counts: Out<u32>,
            scratch: Shared<[u32]>,
        ) {
            let pixels = LazyPixels::new(channels as usize, ends.len(), |c| {
                let start = if c == 0 { 0 } else { ends[c - 1] as usize };
                Levels::<$t>::new(&levels[start..ends[c] as usize])
            });
            histogram_pixels(block, samples, pixels, counts, scratch)
        }
    )*};
}

histograms! {
    // Pixels of bytes: 4 blocks of 256 a multiprocessor (64 registers, 72
    // bytes spilled) ran RGBA pixels 9-10 % faster at 2^28 bytes than 3
    // (72 registers) on an H200 (chapter 7).
    u8, i64, [max_threads = 256, min_blocks = 4]: histogram_even_u8, histogram_range_u8, histogram_even_pixels_u8, histogram_levels_u8;
    u16, i64, []: histogram_even_u16, histogram_range_u16, histogram_even_pixels_u16, histogram_levels_u16;
    i16, i64, []: histogram_even_i16, histogram_range_i16, histogram_even_pixels_i16, histogram_levels_i16;
    u32, i64, []: histogram_even_u32, histogram_range_u32, histogram_even_pixels_u32, histogram_levels_u32;
    i32, i64, []: histogram_even_i32, histogram_range_i32, histogram_even_pixels_i32, histogram_levels_i32;
    f32, f32, []: histogram_even_f32, histogram_range_f32, histogram_even_pixels_f32, histogram_levels_f32;
    f64, f64, []: histogram_even_f64, histogram_range_f64, histogram_even_pixels_f64, histogram_levels_f64;
}
