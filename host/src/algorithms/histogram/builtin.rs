//! The built-in histogram kernels: the table from sample type to its
//! kernels in `coop-host-kernels`.

use crate::{CpuArg, GpuArg};
use coop::device::histogram::{Sample, MAX_CHANNELS};
use coop::kernel::params::{OutSlice, Slice, Value};
use coop::{DeviceCopy, Kernel};

/// The level type of `T`'s histograms.
type Level<T> = <T as Sample>::Level;

/// The parameters of a built-in kernel of one channel in even bins:
/// samples, lower, upper, bins, counts.
pub type EvenParams<T> = (
    Slice<T>,
    Value<Level<T>>,
    Value<Level<T>>,
    Value<u32>,
    OutSlice<u32>,
);

/// The parameters of a built-in kernel of one channel in bins between
/// levels: samples, levels, counts.
pub type RangeParams<T> = (Slice<T>, Slice<Level<T>>, OutSlice<u32>);

/// The parameters of a built-in kernel of pixels in even bins: samples,
/// channels, the channels' bounds (lower and upper of each), their bins
/// (0 past the last channel with a histogram), counts. Values, not
/// buffers: a launch copies nothing to the device first.
pub type EvenPixelParams<T> = (
    Slice<T>,
    Value<u32>,
    Value<[Level<T>; 2 * MAX_CHANNELS]>,
    Value<[u32; MAX_CHANNELS]>,
    OutSlice<u32>,
);

/// The parameters of a built-in kernel of pixels in bins between levels:
/// samples, channels, the channels' levels, where each channel's levels
/// end, counts.
pub type PixelParams<T> = (
    Slice<T>,
    Value<u32>,
    Slice<Level<T>>,
    Slice<u32>,
    OutSlice<u32>,
);

/// A level type of the built-in histograms (`i64`, `f32`, `f64`): what a
/// launch passes of it.
pub trait HistogramLevel:
    DeviceCopy + Default + std::fmt::Debug + PartialOrd + GpuArg<Value<Self>> + CpuArg<Value<Self>>
{
    /// The channels' bounds as a launch passes them: `[Self; 8]`.
    #[doc(hidden)]
    type Bounds: GpuArg<Value<[Self; 2 * MAX_CHANNELS]>> + CpuArg<Value<[Self; 2 * MAX_CHANNELS]>>;
    #[doc(hidden)]
    fn bounds(bounds: [Self; 2 * MAX_CHANNELS]) -> Self::Bounds;
}
impl<L> HistogramLevel for L
where
    L: DeviceCopy + Default + std::fmt::Debug + PartialOrd + GpuArg<Value<L>> + CpuArg<Value<L>>,
    [L; 2 * MAX_CHANNELS]:
        GpuArg<Value<[L; 2 * MAX_CHANNELS]>> + CpuArg<Value<[L; 2 * MAX_CHANNELS]>>,
{
    type Bounds = [L; 2 * MAX_CHANNELS];
    #[inline]
    fn bounds(bounds: [L; 2 * MAX_CHANNELS]) -> Self::Bounds {
        bounds
    }
}

/// A sample type with built-in histograms: `u8`, `u16`, `i16`, `u32`,
/// `i32`, `f32` and `f64`; bin boundaries are `i64` for the integers, the
/// type itself for floats ([`Sample::Level`]).
#[diagnostic::on_unimplemented(
    message = "coop-host has no built-in histogram of `{Self}` samples",
    note = "the built-in histograms take u8, u16, i16, u32, i32, f32 and f64 samples; for others write a kernel that calls `coop::device::histogram::histogram` with a `Binning` of yours"
)]
pub trait BuiltinHistogram: Sample<Level: HistogramLevel> + DeviceCopy + std::fmt::Debug {
    /// One channel in even bins.
    #[doc(hidden)]
    type Even: Kernel<Params = EvenParams<Self>>;
    /// One channel in bins between levels.
    #[doc(hidden)]
    type Range: Kernel<Params = RangeParams<Self>>;
    /// Pixels in even bins.
    #[doc(hidden)]
    type EvenPixels: Kernel<Params = EvenPixelParams<Self>>;
    /// Pixels in bins between levels.
    #[doc(hidden)]
    type Levels: Kernel<Params = PixelParams<Self>>;
    #[doc(hidden)]
    const EVEN: Self::Even;
    #[doc(hidden)]
    const RANGE: Self::Range;
    #[doc(hidden)]
    const EVEN_PIXELS: Self::EvenPixels;
    #[doc(hidden)]
    const LEVELS: Self::Levels;
}

macro_rules! builtins {
    ($($t:ty => $even:ident, $range:ident, $even_pixels:ident, $levels:ident;)*) => {$(
        impl BuiltinHistogram for $t {
            type Even = coop_host_kernels::$even;
            type Range = coop_host_kernels::$range;
            type EvenPixels = coop_host_kernels::$even_pixels;
            type Levels = coop_host_kernels::$levels;
            const EVEN: Self::Even = coop_host_kernels::$even;
            const RANGE: Self::Range = coop_host_kernels::$range;
            const EVEN_PIXELS: Self::EvenPixels = coop_host_kernels::$even_pixels;
            const LEVELS: Self::Levels = coop_host_kernels::$levels;
        }
    )*};
}

builtins! {
    u8 => histogram_even_u8, histogram_range_u8, histogram_even_pixels_u8, histogram_levels_u8;
    u16 => histogram_even_u16, histogram_range_u16, histogram_even_pixels_u16, histogram_levels_u16;
    i16 => histogram_even_i16, histogram_range_i16, histogram_even_pixels_i16, histogram_levels_i16;
    u32 => histogram_even_u32, histogram_range_u32, histogram_even_pixels_u32, histogram_levels_u32;
    i32 => histogram_even_i32, histogram_range_i32, histogram_even_pixels_i32, histogram_levels_i32;
    f32 => histogram_even_f32, histogram_range_f32, histogram_even_pixels_f32, histogram_levels_f32;
    f64 => histogram_even_f64, histogram_range_f64, histogram_even_pixels_f64, histogram_levels_f64;
}
