//! [`Histogrammer`]: histograms on one device, keeping the loaded kernels
//! between calls.

use super::builtin::PixelParams;
use super::{BuiltinHistogram, EvenBins, HistogramLevel};
use crate::algorithms::engine::Engine;
use crate::ptx_families::HISTOGRAM_PTX;
use crate::{Device, Error, Input, LaunchConfig, Module, Output};
use coop::device::histogram::{self as hist, Sample, MAX_CHANNELS, MAX_SETS};
use coop::Kernel;

/// Threads per block of every histogram launch.
const THREADS: u32 = 256;

/// Most bytes of shared memory a block's counters take when there are
/// several sets (eight blocks of 256 threads then fit a multiprocessor of
/// 228 KiB); one set takes up to the most a block may opt in to (227 KiB
/// on sm_90, 163 KiB on sm_80), and more counters are counted in global
/// memory.
const SETS_BYTES: usize = 24 * 1024;

/// Histograms on one device; see the [module docs](super).
///
/// ```
/// use coop_host::{histogram::Histogrammer, Device};
///
/// let device = Device::cpu(); // or Device::gpu_or_cpu()
/// let histogrammer = Histogrammer::new(&device)?;
/// let samples = device.upload(&[1u16, 5, 5, 9, 300])?;
/// let mut counts = device.zeros::<u32>(5)?;
/// histogrammer.even(&samples, 0, 10, &mut counts)?; // width 2; 300 is outside
/// assert_eq!(device.download(&counts)?, [1, 0, 2, 0, 1]);
/// let mut two = device.zeros::<u32>(2)?;
/// histogrammer.range(&samples, &[0, 8, 1000], &mut two)?;
/// assert_eq!(device.download(&two)?, [3, 2]);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct Histogrammer {
    engine: Engine,
    sets: Option<usize>,
}

impl std::fmt::Debug for Histogrammer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Histogrammer")
            .field("device", &self.engine.describe())
            .field("sets", &self.sets)
            .finish()
    }
}

impl Histogrammer {
    /// Loads the built-in histogram kernels on `device`.
    pub fn new(device: &Device) -> Result<Self, Error> {
        Ok(Histogrammer {
            engine: Engine::new(device, &HISTOGRAM_PTX)?,
            sets: None,
        })
    }

    /// Counts with `sets` sets of counters a block (1, 2, 4 or 8) where
    /// they fit, instead of the default: one set for bytes, of one channel
    /// or of pixels (each byte an increment by one, which the hardware merges across
    /// the lanes of a warp that hit one counter), otherwise as many as fit
    /// in 24 KiB, which keeps the speed when most samples fall into a few
    /// bins (chapter 7 of the guide has the figures). Fails with
    /// [`Error::InvalidArgument`] for other numbers.
    pub fn with_sets(mut self, sets: usize) -> Result<Self, Error> {
        if !sets.is_power_of_two() || sets > MAX_SETS {
            return Err(Error::InvalidArgument {
                call: "Histogrammer::with_sets",
                problem: format!("{sets} sets: a block keeps 1, 2, 4 or 8 sets of counters"),
            });
        }
        self.sets = Some(sets);
        Ok(self)
    }

    /// The same histogrammer running the built-in kernels of `module`
    /// instead of the ones coop-host ships: a build of `coop-host-kernels`
    /// with the `histogram` feature of your own (other flags, another
    /// target, a variant of its PTX), loaded on this histogrammer's GPU.
    /// Fails with [`Error::Unavailable`] on the CPU backend, which runs the
    /// kernels' Rust code and loads no module, and when `module` was loaded
    /// on another GPU.
    pub fn with_module(mut self, module: Module) -> Result<Self, Error> {
        self.engine.set_own(module, "Histogrammer::with_module")?;
        Ok(self)
    }

    /// The histogram of `samples` in `counts.len()` bins of equal width
    /// splitting `[lower, upper)`, into `counts` (overwritten); see
    /// [`histogram::even`](super::even).
    ///
    /// ```
    /// use coop_host::{histogram::Histogrammer, Device};
    ///
    /// let device = Device::cpu();
    /// let bytes: Vec<u8> = (0..=255).collect();
    /// let mut counts = vec![0u32; 16];
    /// // Bounds of integer samples are i64: [0, 256) holds every byte.
    /// Histogrammer::new(&device)?.even(&bytes, 0, 256, &mut counts)?;
    /// assert_eq!(counts, [16; 16]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn even<'a, 'b, T: BuiltinHistogram>(
        &self,
        samples: impl Into<Input<'a, T>>,
        lower: T::Level,
        upper: T::Level,
        counts: impl Into<Output<'b, u32>>,
    ) -> Result<(), Error> {
        let call = "Histogrammer::even";
        self.even_as(call, samples.into(), lower, upper, counts.into())
    }

    /// [`even`](Self::even), its errors naming `call`.
    pub(super) fn even_as<T: BuiltinHistogram>(
        &self,
        call: &'static str,
        samples: Input<'_, T>,
        lower: T::Level,
        upper: T::Level,
        mut counts: Output<'_, u32>,
    ) -> Result<(), Error> {
        let bins = EvenBins::new(lower, upper, counts.len());
        check_even(call, "", &bins)?;
        let kernel = T::EVEN;
        let Some(config) =
            self.prepare::<T, T::Even>(kernel, &samples, &mut counts, &[bins.bins as u32])?
        else {
            return Ok(());
        };
        let launcher = self.engine.own();
        launcher.launch(
            kernel,
            config,
            (&samples, lower, upper, bins.bins as u32, &mut counts),
        )
    }

    /// The histogram of `samples` in the bins between consecutive
    /// `levels`, into `counts` (overwritten, `levels.len() − 1` long); see
    /// [`histogram::range`](super::range).
    ///
    /// ```
    /// use coop_host::{histogram::Histogrammer, Device};
    ///
    /// let device = Device::cpu();
    /// let ages = [3i32, 17, 18, 40, 64, 65, 101];
    /// let mut counts = vec![0u32; 3];
    /// Histogrammer::new(&device)?.range(&ages[..], &[0, 18, 65, 120], &mut counts)?;
    /// assert_eq!(counts, [2, 3, 2]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn range<'a, 'b, T: BuiltinHistogram>(
        &self,
        samples: impl Into<Input<'a, T>>,
        levels: &[T::Level],
        counts: impl Into<Output<'b, u32>>,
    ) -> Result<(), Error> {
        self.levels(
            "Histogrammer::range",
            samples.into(),
            1,
            &[levels],
            counts.into(),
        )
    }

    /// One histogram for each of the first `bins.len()` channels of
    /// pixels of `channels` interleaved channels (sample `i` is channel `i
    /// mod channels`), channel `c` in `bins[c]`, as CUB's
    /// `MultiHistogramEven`. `counts` holds the channels' counts one after
    /// the other (channel 0's first) and is overwritten. Fails with
    /// [`Error::InvalidArgument`] unless `1 <= bins.len() <= channels <=
    /// 4`, the samples are whole pixels, each channel has bins and an
    /// `upper` above its `lower`, and `counts` has their total length.
    ///
    /// ```
    /// use coop_host::histogram::{EvenBins, Histogrammer};
    /// use coop_host::Device;
    ///
    /// let device = Device::cpu();
    /// // RGBA pixels: histograms of R, G and B; A is skipped.
    /// let rgba = [0u8, 128, 255, 7, /**/ 64, 128, 0, 7];
    /// let mut counts = vec![0u32; 4 + 4 + 2];
    /// let bins = [EvenBins::new(0, 128, 4), EvenBins::new(0, 256, 4), EvenBins::new(0, 255, 2)];
    /// Histogrammer::new(&device)?.even_pixels(&rgba[..], 4, &bins, &mut counts)?;
    /// assert_eq!(counts, [1, 0, 1, 0, /**/ 0, 0, 2, 0, /**/ 1, 0]); // B = 255 is outside [0, 255)
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn even_pixels<'a, 'b, T: BuiltinHistogram>(
        &self,
        samples: impl Into<Input<'a, T>>,
        channels: usize,
        bins: &[EvenBins<T::Level>],
        counts: impl Into<Output<'b, u32>>,
    ) -> Result<(), Error> {
        let (samples, counts) = (samples.into(), counts.into());
        let call = "Histogrammer::even_pixels";
        check_pixels(call, samples.len(), channels, bins.len(), "bins")?;
        for (c, b) in bins.iter().enumerate() {
            check_even(call, &format!("channel {c}: "), b)?;
        }
        let per_channel: Vec<u32> = bins.iter().map(|b| b.bins as u32).collect();
        check_total(call, &per_channel, &counts)?;
        let mut bounds = [T::Level::default(); 2 * MAX_CHANNELS];
        let mut words = [0u32; MAX_CHANNELS];
        for (c, b) in bins.iter().enumerate() {
            (bounds[2 * c], bounds[2 * c + 1], words[c]) = (b.lower, b.upper, b.bins as u32);
        }
        let mut counts = counts;
        let kernel = T::EVEN_PIXELS;
        let Some(config) =
            self.prepare::<T, T::EvenPixels>(kernel, &samples, &mut counts, &per_channel)?
        else {
            return Ok(());
        };
        self.engine.own().launch(
            kernel,
            config,
            (
                &samples,
                channels as u32,
                T::Level::bounds(bounds),
                words,
                &mut counts,
            ),
        )
    }

    /// One histogram for each of the first `levels.len()` channels of
    /// pixels of `channels` interleaved channels, channel `c` in the bins
    /// between consecutive `levels[c]`, as CUB's `MultiHistogramRange`;
    /// otherwise as [`even_pixels`](Self::even_pixels).
    ///
    /// ```
    /// use coop_host::{histogram::Histogrammer, Device};
    ///
    /// let device = Device::cpu();
    /// // (x, y) pairs: 2 bins of x, 3 of y.
    /// let xy = [0.1f64, 5.0, 0.9, 50.0, 0.6, 500.0];
    /// let mut counts = vec![0u32; 5];
    /// let levels: [&[f64]; 2] = [&[0.0, 0.5, 1.0], &[1.0, 10.0, 100.0, 1000.0]];
    /// Histogrammer::new(&device)?.range_pixels(&xy[..], 2, &levels, &mut counts)?;
    /// assert_eq!(counts, [1, 2, /**/ 1, 1, 1]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn range_pixels<'a, 'b, T: BuiltinHistogram>(
        &self,
        samples: impl Into<Input<'a, T>>,
        channels: usize,
        levels: &[&[T::Level]],
        counts: impl Into<Output<'b, u32>>,
    ) -> Result<(), Error> {
        self.levels(
            "Histogrammer::range_pixels",
            samples.into(),
            channels,
            levels,
            counts.into(),
        )
    }

    pub(super) fn levels<T: BuiltinHistogram>(
        &self,
        call: &'static str,
        samples: Input<'_, T>,
        channels: usize,
        levels: &[&[T::Level]],
        counts: Output<'_, u32>,
    ) -> Result<(), Error> {
        check_pixels(call, samples.len(), channels, levels.len(), "levels")?;
        let mut per_channel = Vec::with_capacity(levels.len());
        for (c, l) in levels.iter().enumerate() {
            let channel = if channels == 1 {
                String::new()
            } else {
                format!("channel {c}: ")
            };
            check_levels(call, &channel, l)?;
            per_channel.push((l.len() - 1) as u32);
        }
        check_total(call, &per_channel, &counts)?;
        if channels == 1 {
            return self.launch_range(samples, levels[0], per_channel[0], counts);
        }
        let all: Vec<T::Level> = levels.iter().flat_map(|l| l.iter().copied()).collect();
        let ends: Vec<u32> = levels
            .iter()
            .scan(0u32, |end, l| {
                *end += l.len() as u32;
                Some(*end)
            })
            .collect();
        let levels = (all.as_slice(), ends.as_slice());
        self.launch_pixels(T::LEVELS, samples, channels, &per_channel, levels, counts)
    }

    /// Zeroes `counts` and launches the one-channel kernel of bins between
    /// `levels` (checked) over `samples`.
    fn launch_range<T: BuiltinHistogram>(
        &self,
        samples: Input<'_, T>,
        levels: &[T::Level],
        bins: u32,
        mut counts: Output<'_, u32>,
    ) -> Result<(), Error> {
        let kernel = T::RANGE;
        let Some(config) = self.prepare::<T, T::Range>(kernel, &samples, &mut counts, &[bins])?
        else {
            return Ok(());
        };
        let levels = self.engine.device().upload(levels)?;
        self.engine.own().launch(
            kernel,
            config,
            (&samples, &Input::from(&levels), &mut counts),
        )
    }

    /// Zeroes `counts` and launches a pixel kernel (even bins or levels)
    /// over `samples` of channels of `bins` bins, with the kernel's
    /// `levels`: the channels' bounds and bins, or their levels and where
    /// each channel's levels end.
    fn launch_pixels<T: BuiltinHistogram, K: Kernel<Params = PixelParams<T>>>(
        &self,
        kernel: K,
        samples: Input<'_, T>,
        channels: usize,
        bins: &[u32],
        (levels, words): (&[T::Level], &[u32]),
        mut counts: Output<'_, u32>,
    ) -> Result<(), Error> {
        let Some(config) = self.prepare::<T, K>(kernel, &samples, &mut counts, bins)? else {
            return Ok(());
        };
        let device = self.engine.device();
        let (levels, words) = (device.upload(levels)?, device.upload(words)?);
        self.engine.own().launch(
            kernel,
            config,
            (
                &samples,
                channels as u32,
                &Input::from(&levels),
                &Input::from(&words),
                &mut counts,
            ),
        )
    }

    /// Checks that `samples` and `counts` are on `kernel`'s device, zeroes
    /// `counts`, and gives the launch over `samples` of channels of `bins`
    /// bins ([`config`](Self::config)), or `None` when there are no
    /// samples to count.
    fn prepare<T: Sample, K: Kernel>(
        &self,
        kernel: K,
        samples: &Input<'_, T>,
        counts: &mut Output<'_, u32>,
        bins: &[u32],
    ) -> Result<Option<LaunchConfig>, Error> {
        self.engine
            .check_arguments::<K>(&[samples.on_gpu(), counts.on_gpu()])?;
        let config = self.config::<T, _>(kernel, samples.len(), bins)?;
        self.engine.clear(counts, "the histogram's counts")?;
        Ok((!samples.is_empty()).then_some(config))
    }

    /// The launch of `kernel` over `len` samples of channels of `bins`
    /// bins: a wave of blocks at most, one a 16-byte chunk of each thread
    /// at least (bytes: 64 samples a counter at least), with the
    /// counters' sets in dynamic shared memory.
    fn config<T: Sample, K: Kernel>(
        &self,
        kernel: K,
        len: usize,
        bins: &[u32],
    ) -> Result<LaunchConfig, Error> {
        let shared = self.shared_bytes::<T>(bins);
        let launcher = self.engine.own();
        let resident = launcher.resident_blocks(kernel, THREADS, shared)?.max(1);
        let wave = resident * launcher.multiprocessors();
        let chunks = (len * std::mem::size_of::<T>()).div_ceil(16);
        let mut blocks = (chunks.div_ceil(THREADS as usize) as u32).clamp(1, wave);
        if T::VALUES != 0 {
            // Bytes: each block adds its counters (256 a channel) to the
            // output when it is done; below 64 samples a counter, fewer
            // blocks, down to one a multiprocessor (chapter 7: RGBA pixels
            // at 2^24 bytes ran slower in 528 blocks than in 396).
            let counters = bins.len() * T::VALUES as usize;
            let floor = launcher.multiprocessors();
            blocks = blocks.min(((len / (64 * counters)) as u32).max(floor));
        }
        Ok(LaunchConfig::new(blocks, THREADS).with_shared_memory(shared))
    }

    /// The dynamic shared memory for the counters of channels of `bins`
    /// bins: this histogrammer's sets, or as many as fit in
    /// [`SETS_BYTES`]; one set up to the device's opt-in limit; none
    /// beyond.
    fn shared_bytes<T: Sample>(&self, bins: &[u32]) -> u32 {
        let one_set_bytes = self.engine.own().max_shared_per_block_optin() as usize;
        let fits = |sets: usize, limit: usize| {
            let bytes = hist::shared_memory_bytes::<T>(bins, sets);
            (bytes as usize <= limit).then_some(bytes)
        };
        if let Some(sets) = self.sets {
            if let Some(bytes) = fits(sets, one_set_bytes) {
                return bytes;
            }
        }
        if std::mem::size_of::<T>() == 1 {
            // Bytes count each sample with an increment the hardware
            // merges across a warp's lanes of one counter: one set is the
            // fastest (chapter 7).
            return fits(1, one_set_bytes).unwrap_or(0);
        }
        let mut sets = MAX_SETS;
        while sets > 1 {
            if let Some(bytes) = fits(sets, SETS_BYTES) {
                return bytes;
            }
            sets /= 2;
        }
        fits(1, one_set_bytes).unwrap_or(0)
    }
}

/// Fails unless `bins` has bins, below 2^32, and `upper` above `lower`.
fn check_even<L: HistogramLevel>(
    call: &'static str,
    channel: &str,
    bins: &EvenBins<L>,
) -> Result<(), Error> {
    let problem = if bins.bins == 0 {
        format!(
            "{channel}no bins: the counts give the number of bins, and a histogram needs at \
             least one"
        )
    } else if bins.bins > u32::MAX as usize {
        format!("{channel}{} bins: at most 2^32 - 1", bins.bins)
    } else if bins.upper.partial_cmp(&bins.lower) != Some(std::cmp::Ordering::Greater) {
        format!(
            "{channel}upper ({:?}) is not above lower ({:?}): the bins split [lower, upper), \
             which must not be empty",
            bins.upper, bins.lower
        )
    } else {
        return Ok(());
    };
    Err(Error::InvalidArgument { call, problem })
}

/// Fails unless `levels` are at least two, none NaN, and do not decrease.
fn check_levels<L: HistogramLevel>(
    call: &'static str,
    channel: &str,
    levels: &[L],
) -> Result<(), Error> {
    let problem = if levels.len() < 2 {
        format!(
            "{channel}{} levels: the bins lie between consecutive levels, so at least two",
            levels.len()
        )
    } else if let Some(i) = levels.iter().position(|l| l.partial_cmp(l).is_none()) {
        format!("{channel}levels[{i}] is NaN: levels are numbers that do not decrease")
    } else if let Some(i) = (1..levels.len()).find(|&i| levels[i] < levels[i - 1]) {
        format!(
            "{channel}levels[{i}] ({:?}) is below levels[{}] ({:?}): levels must not decrease",
            levels[i],
            i - 1,
            levels[i - 1]
        )
    } else if levels.len() - 1 > u32::MAX as usize {
        format!("{channel}{} levels: at most 2^32", levels.len())
    } else {
        return Ok(());
    };
    Err(Error::InvalidArgument { call, problem })
}

/// Fails unless `1 <= active <= channels <= MAX_CHANNELS` and `len`
/// samples are whole pixels; `what` names the argument that gives the
/// active channels.
fn check_pixels(
    call: &'static str,
    len: usize,
    channels: usize,
    active: usize,
    what: &str,
) -> Result<(), Error> {
    let problem = if channels == 0 || channels > MAX_CHANNELS {
        format!("{channels} channels: a pixel has 1 to {MAX_CHANNELS}")
    } else if active == 0 {
        format!("{what} is empty: give one entry for each channel to count")
    } else if active > channels {
        format!(
            "{what} has {active} entries for pixels of {channels} channels: one entry for each \
             channel to count, the first ones, at most {channels}"
        )
    } else if !len.is_multiple_of(channels) {
        format!(
            "{len} samples are not whole pixels of {channels} channels (sample i is channel i \
             mod {channels})"
        )
    } else {
        return Ok(());
    };
    Err(Error::InvalidArgument { call, problem })
}

/// Fails unless `counts` holds every channel's bins.
fn check_total(call: &'static str, bins: &[u32], counts: &Output<'_, u32>) -> Result<(), Error> {
    let total: usize = bins.iter().map(|&b| b as usize).sum();
    if counts.len() != total {
        let each: Vec<String> = bins.iter().map(u32::to_string).collect();
        return Err(Error::InvalidArgument {
            call,
            problem: format!(
                "counts has {} elements for {total} bins ({}): one count for each bin of each \
                 channel, channel 0's first",
                counts.len(),
                each.join(" + ")
            ),
        });
    }
    Ok(())
}
