//! How a sample becomes a bin: the [`Binning`] trait, with [`Even`]
//! (bins of equal width between two bounds, as CUB's `HistogramEven`),
//! [`Levels`] (bins between consecutive boundaries, as `HistogramRange`)
//! and [`FromFn`] (your own rule).

use crate::device::vector::Vectorized;

/// A sample type the histograms take: `u8`, `u16`, `i16`, `u32`, `i32`,
/// `f32` and `f64`, with its [`Level`](Self::Level) type, in which bin
/// boundaries are given: `i64` for the integers (so that `[0, 256)` covers
/// every byte), the type itself for floats.
///
/// Bytes are special: a block counts `u8` samples by value (256 counters a
/// channel, whatever the bins) and turns values into bins once, when it
/// adds its counts to the output, so that their hot loop computes no bin
/// at all (CUB does the same).
pub trait Sample: Vectorized + PartialOrd + sealed::Sealed {
    /// The type of bin boundaries: `i64` for integer samples, the sample
    /// type for floats.
    type Level: Copy + PartialOrd + core::fmt::Debug;
    /// Counters a block keeps per channel when it counts by value (256 for
    /// `u8`), 0 when it counts by bin.
    const VALUES: u32;
    /// What [`Even`] precomputes: a bin's width or the reciprocal of it.
    #[doc(hidden)]
    type Scale: Copy + core::fmt::Debug;
    /// The sample as a level.
    #[doc(hidden)]
    fn level(self) -> Self::Level;
    /// The sample's value as an index (only for `u8`, whose [`VALUES`]
    /// is not 0).
    ///
    /// [`VALUES`]: Self::VALUES
    #[doc(hidden)]
    fn value_index(self) -> u32;
    /// The sample whose [`value_index`](Self::value_index) is `index`.
    #[doc(hidden)]
    fn from_value_index(index: u32) -> Self;
    /// What bins of `[lower, upper)` (`lower` below `upper`) split into
    /// `bins` (at least 1) need per sample.
    #[doc(hidden)]
    fn even_scale(lower: Self::Level, upper: Self::Level, bins: u32) -> Self::Scale;
    /// The bin of `self`, which is in `[lower, upper)`; at most `bins - 1`.
    #[doc(hidden)]
    fn even_bin(self, lower: Self::Level, scale: Self::Scale, bins: u32) -> u32;
}

mod sealed {
    pub trait Sealed {}
}

/// The integer form of [`Even`]'s scale: bin = (sample − lower) × bins /
/// (upper − lower), exactly: (sample − lower) / width when the range
/// splits into whole bins of `width`, else in 64 bits when the range is
/// below 2^32, else in 128.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct IntScale {
    range: u64,
    width: u64,
}

macro_rules! integers {
    ($($t:ty, $values:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Sample for $t {
            type Level = i64;
            const VALUES: u32 = $values;
            type Scale = IntScale;
            #[inline(always)]
            fn level(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn value_index(self) -> u32 {
                self as u32
            }
            #[inline(always)]
            fn from_value_index(index: u32) -> Self {
                index as $t
            }
            #[inline(always)]
            fn even_scale(lower: i64, upper: i64, bins: u32) -> IntScale {
                let range = (upper as i128 - lower as i128).max(1) as u64;
                let bins = bins.max(1) as u64;
                let width = if range % bins == 0 { range / bins } else { 0 };
                IntScale { range, width }
            }
            #[inline(always)]
            fn even_bin(self, lower: i64, scale: IntScale, bins: u32) -> u32 {
                // In [0, range): the sample is in [lower, upper).
                let diff = (self as i128 - lower as i128) as u64;
                let bin = if scale.width != 0 {
                    if (diff | scale.width) >> 32 == 0 {
                        (diff as u32 / scale.width as u32) as u64
                    } else {
                        diff / scale.width
                    }
                } else if scale.range >> 32 == 0 {
                    diff * bins as u64 / scale.range
                } else {
                    (diff as u128 * bins as u128 / scale.range as u128) as u64
                };
                (bin as u32).min(bins - 1)
            }
        }
    )*};
}

integers! {
    u8, 256;
    u16, 0;
    i16, 0;
    u32, 0;
    i32, 0;
}

macro_rules! floats {
    ($($t:ty;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Sample for $t {
            type Level = $t;
            const VALUES: u32 = 0;
            type Scale = $t;
            #[inline(always)]
            fn level(self) -> $t {
                self
            }
            #[inline(always)]
            fn value_index(self) -> u32 {
                0
            }
            #[inline(always)]
            fn from_value_index(_: u32) -> Self {
                0.0
            }
            #[inline(always)]
            fn even_scale(lower: Self, upper: Self, bins: u32) -> $t {
                bins as $t / (upper - lower)
            }
            #[inline(always)]
            fn even_bin(self, lower: Self, scale: $t, bins: u32) -> u32 {
                // `as` saturates: a product that rounds up to `bins` (a
                // sample just below `upper`) lands in the last bin.
                (((self - lower) * scale) as u32).min(bins - 1)
            }
        }
    )*};
}

floats! {
    f32;
    f64;
}

/// How a sample becomes a bin: [`bins`](Self::bins) bins, and the bin of
/// each sample or `None` for a sample no bin counts.
///
/// ```
/// use coop::device::histogram::{Binning, Even, Levels};
///
/// let even = Even::<f32>::new(0.0, 1.0, 4); // [0, .25), [.25, .5), [.5, .75), [.75, 1)
/// assert_eq!((even.bins(), even.bin(0.3), even.bin(1.0)), (4, Some(1), None));
/// let levels = [0, 10, 100, 1000]; // [0, 10), [10, 100), [100, 1000)
/// let levels = Levels::<u16>::new(&levels);
/// assert_eq!((levels.bins(), levels.bin(99), levels.bin(1000)), (3, Some(1), None));
/// ```
pub trait Binning<T>: Copy {
    /// Bins in all.
    fn bins(&self) -> u32;
    /// The bin of `sample`, below [`bins`](Self::bins), or `None` when no
    /// bin counts it.
    fn bin(&self, sample: T) -> Option<u32>;
}

/// `bins` bins of equal width splitting `[lower, upper)` (bounds of the
/// sample type's [`Level`](Sample::Level) type), as CUB's
/// `DeviceHistogram::HistogramEven` with `bins + 1` levels: a sample `s`
/// with `lower <= s < upper` goes to bin `(s − lower) × bins / (upper −
/// lower)` (exact for integers; for floats `(s − lower) × (bins / (upper −
/// lower))`, rounded toward zero, as CUB computes it), anything else
/// (NaN included) to no bin.
///
/// ```
/// use coop::device::histogram::{Binning, Even};
///
/// let even = Even::<i32>::new(-10, 10, 4); // width 5
/// assert_eq!(even.bin(-10), Some(0));
/// assert_eq!(even.bin(-6), Some(0));
/// assert_eq!(even.bin(-5), Some(1));
/// assert_eq!(even.bin(9), Some(3));
/// assert_eq!(even.bin(10), None);
/// // Levels of integer samples are `i64`: every byte in 256 bins.
/// assert_eq!(Even::<u8>::new(0, 256, 256).bin(255), Some(255));
/// assert_eq!(Even::<f64>::new(0.0, 1.0, 10).bin(f64::NAN), None);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Even<T: Sample> {
    lower: T::Level,
    upper: T::Level,
    bins: u32,
    scale: T::Scale,
}

impl<T: Sample> Even<T> {
    /// `bins` bins splitting `[lower, upper)`. With `bins` 0, or `upper`
    /// not above `lower`, no sample has a bin (`coop_host::histogram`
    /// refuses these with an error).
    #[inline(always)]
    pub fn new(lower: T::Level, upper: T::Level, bins: u32) -> Self {
        let upper = if bins == 0 || upper.partial_cmp(&lower) != Some(core::cmp::Ordering::Greater)
        {
            lower
        } else {
            upper
        };
        Even {
            lower,
            upper,
            bins,
            scale: T::even_scale(lower, upper, bins.max(1)),
        }
    }

    /// The lowest sample counted.
    #[inline(always)]
    pub fn lower(&self) -> T::Level {
        self.lower
    }

    /// The first level above the samples counted.
    #[inline(always)]
    pub fn upper(&self) -> T::Level {
        self.upper
    }
}

impl<T: Sample> Binning<T> for Even<T> {
    #[inline(always)]
    fn bins(&self) -> u32 {
        self.bins
    }
    #[inline(always)]
    fn bin(&self, sample: T) -> Option<u32> {
        let level = sample.level();
        if level >= self.lower && level < self.upper {
            Some(sample.even_bin(self.lower, self.scale, self.bins))
        } else {
            None
        }
    }
}

/// Bins between consecutive levels (of the sample type's
/// [`Level`](Sample::Level) type), as CUB's
/// `DeviceHistogram::HistogramRange`: bin `b` counts the samples `s` with
/// `levels[b] <= s < levels[b + 1]`, so `levels.len() − 1` bins; samples
/// below the first level or at or above the last go to no bin. The levels
/// must not decrease (`coop_host::histogram` checks); a sample's bin is
/// found by binary search.
///
/// ```
/// use coop::device::histogram::{Binning, Levels};
///
/// let levels = [0.0, 0.5, 0.75, 1.0];
/// let levels = Levels::<f32>::new(&levels);
/// assert_eq!(levels.bin(0.6), Some(1));
/// assert_eq!(levels.bin(-0.1), None);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Levels<'a, T: Sample> {
    levels: &'a [T::Level],
}

impl<'a, T: Sample> Levels<'a, T> {
    /// The bins between consecutive `levels`.
    #[inline(always)]
    pub fn new(levels: &'a [T::Level]) -> Self {
        Levels { levels }
    }
}

impl<T: Sample> Binning<T> for Levels<'_, T> {
    #[inline(always)]
    fn bins(&self) -> u32 {
        self.levels.len().saturating_sub(1) as u32
    }
    #[inline(always)]
    fn bin(&self, sample: T) -> Option<u32> {
        let (levels, sample) = (self.levels, sample.level());
        let n = levels.len();
        if n < 2 || !(sample >= levels[0] && sample < levels[n - 1]) {
            return None;
        }
        // The last level at or below the sample, among levels[0..n - 1]:
        // levels[lo] <= sample throughout.
        let (mut lo, mut hi) = (0, n - 1);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if levels[mid] <= sample {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(lo as u32)
    }
}

/// Your own rule: `bins` bins, and `f(sample)` the bin of a sample
/// (`None`, or a bin at or past `bins`, counts it nowhere).
///
/// ```
/// use coop::device::histogram::{Binning, FromFn};
///
/// // Even and odd values.
/// let parity = FromFn::new(2, |s: u32| Some(s % 2));
/// assert_eq!(parity.bin(7), Some(1));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct FromFn<F> {
    bins: u32,
    f: F,
}

impl<F> FromFn<F> {
    /// `bins` bins, a sample's bin given by `f`.
    #[inline(always)]
    pub fn new(bins: u32, f: F) -> Self {
        FromFn { bins, f }
    }
}

impl<T, F: Fn(T) -> Option<u32> + Copy> Binning<T> for FromFn<F> {
    #[inline(always)]
    fn bins(&self) -> u32 {
        self.bins
    }
    #[inline(always)]
    fn bin(&self, sample: T) -> Option<u32> {
        (self.f)(sample).filter(|&b| b < self.bins)
    }
}
