//! Histograms from the host: how many samples of a buffer fall into each
//! bin, on a GPU or on the CPU backend, as CUB's `DeviceHistogram`.
//!
//! ```
//! use coop_host::{histogram, Device};
//!
//! let device = Device::cpu(); // or Device::gpu_or_cpu()
//! let samples = device.upload(&[0.5f32, 2.0, 2.5, 7.9, 8.0, -1.0])?;
//! let mut counts = device.zeros::<u32>(4)?;
//! // 4 bins of width 2 between 0 and 8: [0, 2), [2, 4), [4, 6), [6, 8).
//! histogram::even(&device, &samples, 0.0, 8.0, &mut counts)?;
//! assert_eq!(device.download(&counts)?, [1, 2, 0, 1]); // 8.0 and -1.0 are outside
//!
//! // Bins between levels: [0, 1), [1, 10), [10, 100).
//! let mut decades = device.zeros::<u32>(3)?;
//! histogram::range(&device, &samples, &[0.0, 1.0, 10.0, 100.0], &mut decades)?;
//! assert_eq!(device.download(&decades)?, [1, 4, 0]);
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! - [`even`]: `counts.len()` bins of equal width splitting `[lower,
//!   upper)` (CUB's `HistogramEven`); [`range`]: bins between
//!   consecutive `levels` (`HistogramRange`).
//! - [`Histogrammer`] keeps the kernels between calls and adds the
//!   multi-channel forms ([`Histogrammer::even_pixels`],
//!   [`Histogrammer::range_pixels`]: pixels of up to 4 interleaved
//!   channels, as CUB's `MultiHistogramEven`/`MultiHistogramRange`).
//! - Samples are `u8`, `u16`, `i16`, `u32`, `i32`, `f32` or `f64`
//!   ([`BuiltinHistogram`]); bounds and levels are `i64` for the integer
//!   samples (so that `[0, 256)` holds every byte), of the sample type for
//!   floats; counts are `u32` and are overwritten. A sample outside every
//!   bin (NaN included) is not counted.
//!
//! # Strategies
//!
//! One launch counts everything (after the counts are zeroed): each block
//! counts its samples in shared memory when the bins fit (up to the shared
//! memory a block may opt in to: 58 112 counters a call on sm_90; `u8`
//! samples always, 256 counters a channel, turned into bins when a block
//! adds its counts to the output), in several sets of counters where they
//! fit in 24 KiB, so that many samples of one bin at once (skewed data) do
//! not queue on one address; more bins are counted in global memory with
//! one atomic a sample. See `coop::device::histogram` for the kernel half,
//! which your own kernels call with a binning of yours.

mod builtin;
mod histogrammer;

pub use builtin::{BuiltinHistogram, HistogramLevel};
pub use coop::device::histogram::Sample;
pub use histogrammer::Histogrammer;

use crate::{Device, Error, Input, Output};

/// One channel's bins of equal width: `bins` bins splitting `[lower,
/// upper)`, for [`Histogrammer::even_pixels`]; `L` is the samples'
/// [`Sample::Level`] (`i64` for integer samples).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EvenBins<T> {
    /// The lowest sample counted.
    pub lower: T,
    /// The first sample above them all that is not counted.
    pub upper: T,
    /// Bins.
    pub bins: usize,
}

impl<T> EvenBins<T> {
    /// `bins` bins splitting `[lower, upper)`.
    pub fn new(lower: T, upper: T, bins: usize) -> Self {
        EvenBins { lower, upper, bins }
    }
}

/// The histogram of `samples` in `counts.len()` bins of equal width
/// splitting `[lower, upper)`, into `counts` (overwritten), on `device`.
/// The bounds are `i64` for integer samples (`0, 256` counts every byte),
/// of the sample type for floats.
/// Sample `s` goes to bin `(s − lower) × bins / (upper − lower)` when
/// `lower <= s < upper`, to none otherwise. Fails with
/// [`Error::InvalidArgument`] for no bins or `upper` not above `lower`.
pub fn even<'a, 'b, T: BuiltinHistogram>(
    device: &Device,
    samples: impl Into<Input<'a, T>>,
    lower: T::Level,
    upper: T::Level,
    counts: impl Into<Output<'b, u32>>,
) -> Result<(), Error> {
    let call = "histogram::even";
    Histogrammer::new(device)?.even_as(call, samples.into(), lower, upper, counts.into())
}

/// The histogram of `samples` in the bins between consecutive `levels`
/// (bin `b` counts `levels[b] <= s < levels[b + 1]`), into `counts`
/// (overwritten, `levels.len() − 1` long), on `device`. Fails with
/// [`Error::InvalidArgument`] for fewer than two levels, decreasing or NaN
/// levels, or counts of another length.
pub fn range<'a, 'b, T: BuiltinHistogram>(
    device: &Device,
    samples: impl Into<Input<'a, T>>,
    levels: &[T::Level],
    counts: impl Into<Output<'b, u32>>,
) -> Result<(), Error> {
    let call = "histogram::range";
    Histogrammer::new(device)?.levels(call, samples.into(), 1, &[levels], counts.into())
}
