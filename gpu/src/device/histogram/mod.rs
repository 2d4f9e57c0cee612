//! Device-wide histograms: how many samples of a buffer fall into each
//! bin, for one channel or for pixels of up to [`MAX_CHANNELS`]
//! interleaved channels, as CUB's `DeviceHistogram`.
//!
//! A kernel calls [`histogram`] (one channel) or [`histogram_pixels`] with
//! its block, the samples, how samples become bins ([`Binning`]: [`Even`],
//! [`Levels`] or your own [`FromFn`]; for pixels, each channel's in
//! [`Pixels`] or made on demand by [`LazyPixels`]), the counts (which it
//! adds to: zero them first) and the launch's dynamic shared memory.
//! `coop_host::histogram` runs the built-in kernels, one launch a call.
//!
//! ```
//! use coop::prelude::*;
//! use coop::device::histogram::{histogram, shared_memory_bytes, FromFn};
//! use coop::shared::Shared;
//! use coop_host::{Cpu, LaunchConfig};
//!
//! /// Words by their number of set bits: 33 bins.
//! #[kernel]
//! pub fn popcounts(block: ThreadBlock, words: &[u32], counts: Out<u32>, scratch: Shared<[u32]>) {
//!     histogram(block, words, FromFn::new(33, |w: u32| Some(w.count_ones())), counts, scratch)
//! }
//!
//! let words: Vec<u32> = (0..1000).collect();
//! let mut counts = vec![0u32; 33];
//! let config = LaunchConfig::new(4, 128).with_shared_memory(shared_memory_bytes::<u32>(&[33], 8));
//! Cpu::new().launch(popcounts, config, (&words[..], &mut counts))?;
//! assert_eq!(counts[0], 1); // 0
//! assert_eq!(counts[1], 10); // the powers of two below 1000
//! assert_eq!(counts.iter().sum::<u32>(), 1000);
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! # How a block counts
//!
//! Each thread reads its samples 16 bytes at a time (one vector load a
//! step) in a grid-stride loop; the unaligned head and tail of the buffer
//! go to the grid's first threads.
//!
//! - **Privatized** (the counters fit the dynamic shared memory): the
//!   block keeps its own counters there, in up to 8 *sets* (lane `l` of a
//!   warp counts into set `l mod sets`, the sets one word more than their
//!   length apart, so that lanes hitting one bin at once hit different
//!   banks), counts with shared atomics, and at the end adds its non-zero
//!   counters to the output with global atomics. `u8` samples are counted
//!   by value (256 counters a channel) and turned into bins only then;
//!   one channel of them, one increment by one a byte (the hardware merges
//!   a warp's increments of one counter); other samples of one channel, a
//!   run of equal bins among a thread's 16 bytes as one update.
//! - **Global** (they do not, or the launch gave none): each sample's bin
//!   is counted straight into the output with a global atomic.
//!
//! [`shared_memory_bytes`] is the dynamic shared memory for a number of
//! sets; the kernel finds the sets from the size the launch gave.

mod binning;

pub use binning::{Binning, Even, FromFn, Levels, Sample};

use crate::backend::target::Target;
use crate::backend::{Faults, site};
use crate::collectives::reduce;
use crate::device::arguments::holds;
use crate::groups::coalesced_threads;
use crate::op::Sum;
use crate::shared::{ByRank, Shared};
use crate::{Out, ThreadBlock, this_grid};

/// Most channels a pixel has.
pub const MAX_CHANNELS: usize = 4;

/// Most sets of counters a block keeps.
pub const MAX_SETS: usize = 8;

/// No counter: a sample no bin counts.
const NONE: u32 = u32::MAX;

/// Pixels of `channels` interleaved channels, of which the first few have
/// a histogram each, with their binnings: sample `i` of the buffer is
/// channel `i mod channels`.
///
/// ```
/// use coop::device::histogram::{Even, Pixels};
///
/// // RGBA pixels, histograms of R, G and B (A is skipped).
/// let rgb = Pixels::new(4, &[Even::<u8>::new(0, 256, 16); 3]);
/// assert_eq!((rgb.channels(), rgb.active()), (4, 3));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Pixels<B> {
    channels: u32,
    active: u32,
    binnings: [B; MAX_CHANNELS],
}

impl<B: Copy> Pixels<B> {
    /// Pixels of `channels` channels whose first `binnings.len()` have a
    /// histogram. Faults unless `1 <= binnings.len() <= channels <=
    /// MAX_CHANNELS`.
    #[inline(always)]
    #[track_caller]
    pub fn new(channels: usize, binnings: &[B]) -> Self {
        Self::from_fn(channels, binnings.len(), |c| binnings[c])
    }

    /// Pixels of `channels` channels, the first `active` of them with a
    /// histogram binned by `binning(c)`. Faults unless `1 <= active <=
    /// channels <= MAX_CHANNELS`.
    #[inline(always)]
    #[track_caller]
    pub fn from_fn(channels: usize, active: usize, mut binning: impl FnMut(usize) -> B) -> Self {
        check_channels(channels, active);
        let first = binning(0);
        let binnings = core::array::from_fn(|c| if c < active { binning(c) } else { first });
        Pixels {
            channels: channels as u32,
            active: active as u32,
            binnings,
        }
    }

    /// One channel, binned by `binning`.
    #[inline(always)]
    pub fn single(binning: B) -> Self {
        Pixels {
            channels: 1,
            active: 1,
            binnings: [binning; MAX_CHANNELS],
        }
    }

    /// Channels of a pixel.
    #[inline(always)]
    pub fn channels(&self) -> usize {
        self.channels as usize
    }

    /// Channels with a histogram (the first ones).
    #[inline(always)]
    pub fn active(&self) -> usize {
        self.active as usize
    }
}

/// Faults unless `1 <= active <= channels <= MAX_CHANNELS`.
#[inline(always)]
#[track_caller]
fn check_channels(channels: usize, active: usize) {
    if active == 0 || active > channels || channels > MAX_CHANNELS {
        Target::check_failed(
            c"histogram: pixels need 1 <= active channels <= channels <= 4",
            site!(),
        );
    }
}

/// How the channels of pixels are binned, for [`histogram_pixels`]:
/// [`Pixels`] holds each channel's binning, [`LazyPixels`] makes it when
/// it is needed.
pub trait PixelBinnings<T: Sample> {
    /// The binning of a channel.
    type Binning: Binning<T>;
    /// Channels of a pixel (1 to [`MAX_CHANNELS`]), and how many of the
    /// first have a histogram.
    fn channels_and_active(&self) -> (usize, usize);
    /// The binning of channel `c`, for `c` below the active channels.
    fn binning(&self, c: usize) -> Self::Binning;
}

impl<T: Sample, B: Binning<T>> PixelBinnings<T> for Pixels<B> {
    type Binning = B;
    #[inline(always)]
    fn channels_and_active(&self) -> (usize, usize) {
        (self.channels as usize, self.active as usize)
    }
    #[inline(always)]
    fn binning(&self, c: usize) -> B {
        pick(&self.binnings, c)
    }
}

/// Pixels of interleaved channels whose binnings are made when they are
/// needed, by a function of the channel, instead of held: for binnings
/// read from memory (a kernel's parameters). A block counting bytes needs
/// them only once its sweep is over, so they hold no registers during
/// the sweep; with [`Pixels`] four channels' binnings of `u8` held 40 of
/// a 256-thread block's registers through the sweep (chapter 7 of the
/// guide has the measurements). Otherwise as [`Pixels`].
///
/// ```
/// use coop::prelude::*;
/// use coop::device::histogram::{histogram_pixels, shared_memory_bytes, Even, LazyPixels};
/// use coop::shared::Shared;
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// Channel `c` of RGBA pixels in `bins[c]` bins from `bounds[2c]` to
/// /// `bounds[2c + 1]`, for the first `bins.len()` channels.
/// #[kernel]
/// pub fn rgba(
///     block: ThreadBlock,
///     pixels: &[u8],
///     bounds: &[i64],
///     bins: &[u32],
///     counts: Out<u32>,
///     scratch: Shared<[u32]>,
/// ) {
///     let channels = LazyPixels::new(4, bins.len(), |c| {
///         Even::<u8>::new(bounds[2 * c], bounds[2 * c + 1], bins[c])
///     });
///     histogram_pixels(block, pixels, channels, counts, scratch)
/// }
///
/// let pixels = [0u8, 10, 200, 255, /**/ 100, 20, 30, 255];
/// let mut counts = vec![0u32; 4];
/// let bytes = shared_memory_bytes::<u8>(&[2, 2], 1);
/// let config = LaunchConfig::new(1, 32).with_shared_memory(bytes);
/// let (bounds, bins) = ([0i64, 256, 0, 256], [2u32, 2]);
/// Cpu::new().launch(rgba, config, (&pixels[..], &bounds[..], &bins[..], &mut counts))?;
/// // Red 0 and 100 in bin 0; green 10 and 20 in bin 0.
/// assert_eq!(counts, [2, 0, /**/ 2, 0]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct LazyPixels<F> {
    channels: u32,
    active: u32,
    binning: F,
}

impl<F> LazyPixels<F> {
    /// Pixels of `channels` channels, the first `active` of them with a
    /// histogram binned by `binning(c)`, called each time channel `c`'s
    /// binning is needed. Faults unless `1 <= active <= channels <=
    /// MAX_CHANNELS`.
    #[inline(always)]
    #[track_caller]
    pub fn new(channels: usize, active: usize, binning: F) -> Self {
        check_channels(channels, active);
        LazyPixels {
            channels: channels as u32,
            active: active as u32,
            binning,
        }
    }
}

impl<T: Sample, B: Binning<T>, F: Fn(usize) -> B> PixelBinnings<T> for LazyPixels<F> {
    type Binning = B;
    #[inline(always)]
    fn channels_and_active(&self) -> (usize, usize) {
        (self.channels as usize, self.active as usize)
    }
    #[inline(always)]
    fn binning(&self, c: usize) -> B {
        (self.binning)(c)
    }
}

/// Bytes of dynamic shared memory for `sets` sets of the counters of
/// channels of `bins` bins each (one entry a channel with a histogram),
/// with samples of `T`: `u8` samples need 256 counters a channel whatever
/// their bins. Give a launch of [`histogram`] or [`histogram_pixels`] this
/// much for `sets` sets (1 to [`MAX_SETS`]), or 0 to count in global memory.
///
/// ```
/// use coop::device::histogram::shared_memory_bytes;
/// assert_eq!(shared_memory_bytes::<f32>(&[100], 1), 400);
/// assert_eq!(shared_memory_bytes::<f32>(&[100], 8), 8 * 101 * 4);
/// assert_eq!(shared_memory_bytes::<u8>(&[16, 16, 16], 1), 3 * 256 * 4);
/// ```
pub fn shared_memory_bytes<T: Sample>(bins: &[u32], sets: usize) -> u32 {
    let counters: usize = bins.iter().map(|&b| counters_of::<T>(b) as usize).sum();
    (sets * set_stride(counters, sets) * 4) as u32
}

/// Counters a block keeps for a channel of `bins` bins.
#[inline(always)]
const fn counters_of<T: Sample>(bins: u32) -> u32 {
    if T::VALUES != 0 { T::VALUES } else { bins }
}

/// Words from one set's start to the next's: one more than the counters
/// when there are several sets, so that set `s`'s counter `k` is in bank
/// `(k + s) mod 32`.
#[inline(always)]
const fn set_stride(counters: usize, sets: usize) -> usize {
    if sets > 1 { counters + 1 } else { counters }
}

/// The sets that `words` of shared memory hold for `counters` counters: a
/// power of two up to [`MAX_SETS`], or 0 when not even one fits.
#[inline(always)]
fn sets_in(words: usize, counters: usize) -> usize {
    if counters == 0 || words < counters {
        return 0;
    }
    let mut sets = MAX_SETS;
    while sets > 1 && words < sets * set_stride(counters, sets) {
        sets /= 2;
    }
    sets
}

/// The histogram of `samples` binned by `binning`, added to `counts`
/// (at least `binning.bins()` long; zero it before the first block
/// starts). `scratch` is the launch's dynamic shared memory: give it
/// [`shared_memory_bytes`] for the block to count in shared memory (see
/// the [module docs](self)), or none to count in global memory. Every
/// thread of every block of the grid calls it.
#[inline(always)]
#[track_caller]
#[doc(alias = "HistogramEven")]
#[doc(alias = "HistogramRange")]
#[doc(alias = "DeviceHistogram")]
pub fn histogram<T: Sample, B: Binning<T>>(
    block: ThreadBlock,
    samples: &[T],
    binning: B,
    counts: Out<u32>,
    scratch: Shared<[u32]>,
) {
    histogram_pixels(block, samples, Pixels::single(binning), counts, scratch)
}

/// One histogram for each active channel of `pixels`, as CUB's
/// `MultiHistogramEven` and `MultiHistogramRange`: sample `i` of `samples`
/// is channel `i mod channels`; the counts of active channel `c` follow
/// those of the channels before it in `counts` (channel 0's bins first).
/// Otherwise as [`histogram`]; a trailing partial pixel's samples are
/// counted too.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::histogram::{histogram_pixels, shared_memory_bytes, Even, Pixels};
/// use coop::shared::Shared;
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// 4 bins of red and 2 of green from RGB pixels.
/// #[kernel]
/// pub fn red_green(block: ThreadBlock, rgb: &[u8], counts: Out<u32>, scratch: Shared<[u32]>) {
///     let pixels = Pixels::new(3, &[Even::<u8>::new(0, 256, 4), Even::<u8>::new(0, 256, 2)]);
///     histogram_pixels(block, rgb, pixels, counts, scratch)
/// }
///
/// let rgb = [0u8, 0, 9, /**/ 200, 130, 9, /**/ 70, 254, 9, /**/ 255, 127, 9];
/// let mut counts = vec![0u32; 6];
/// let bytes = shared_memory_bytes::<u8>(&[4, 2], 2);
/// Cpu::new().launch(red_green, LaunchConfig::new(1, 64).with_shared_memory(bytes), (&rgb[..], &mut counts))?;
/// // Red: 0, 200, 70, 255 in bins 0, 3, 1, 3 (of width 64);
/// // green: 0 and 127 in bin 0, 130 and 254 in bin 1.
/// assert_eq!(counts, [1, 1, 0, 2, /**/ 2, 2]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
pub fn histogram_pixels<T: Sample, P: PixelBinnings<T>>(
    block: ThreadBlock,
    samples: &[T],
    pixels: P,
    counts: Out<u32>,
    scratch: Shared<[u32]>,
) {
    let (channels, active) = pixels.channels_and_active();
    let binning = |c: usize| pixels.binning(c);
    match channels {
        1 => pixels_of::<T, _, 1>(block, samples, active, &binning, counts, scratch),
        2 => pixels_of::<T, _, 2>(block, samples, active, &binning, counts, scratch),
        3 => pixels_of::<T, _, 3>(block, samples, active, &binning, counts, scratch),
        _ => pixels_of::<T, _, 4>(block, samples, active, &binning, counts, scratch),
    }
}

/// `a[c]` for `c < 4` as a chain of selects, so that arrays indexed by a
/// channel stay in registers (a dynamic index would put them in local
/// memory).
#[inline(always)]
fn pick<X: Copy>(a: &[X; MAX_CHANNELS], c: usize) -> X {
    if c == 0 {
        a[0]
    } else if c == 1 {
        a[1]
    } else if c == 2 {
        a[2]
    } else {
        a[3]
    }
}

/// Where each active channel's counters lie: in the output, and in a set
/// of the block's counters.
#[derive(Clone, Copy)]
struct Layout {
    out_start: [u32; MAX_CHANNELS],
    private_start: [u32; MAX_CHANNELS],
    bins: [u32; MAX_CHANNELS],
    /// Bins of all active channels.
    total: u32,
    /// Counters of a set.
    counters: u32,
}

/// The layout of the counters of the first `active` channels binned by
/// `binning`.
#[inline(always)]
fn layout_of<T: Sample, B: Binning<T>>(active: usize, binning: &impl Fn(usize) -> B) -> Layout {
    let mut layout = Layout {
        out_start: [0; MAX_CHANNELS],
        private_start: [0; MAX_CHANNELS],
        bins: [0; MAX_CHANNELS],
        total: 0,
        counters: 0,
    };
    for c in 0..MAX_CHANNELS {
        let bins = if c < active { binning(c).bins() } else { 0 };
        layout.out_start[c] = layout.total;
        layout.private_start[c] = layout.counters;
        layout.bins[c] = bins;
        layout.total += bins;
        layout.counters += if c < active {
            counters_of::<T>(bins)
        } else {
            0
        };
    }
    layout
}

/// The binnings of the first `active` channels (the rest copies of the
/// first), to hold.
#[inline(always)]
fn held<B>(active: usize, binning: &impl Fn(usize) -> B) -> [B; MAX_CHANNELS] {
    core::array::from_fn(|c| binning(if c < active { c } else { 0 }))
}

/// [`histogram_pixels`] for pixels of `CH` channels, the first `active`
/// binned by `binning(c)`.
///
/// Samples counted by value (bytes) need no binning until the sweep is
/// over, so their binnings are made only then: binnings read from memory
/// ([`LazyPixels`]) then hold no registers during the sweep.
#[inline(always)]
#[track_caller]
fn pixels_of<T: Sample, B: Binning<T>, const CH: usize>(
    block: ThreadBlock,
    samples: &[T],
    active: usize,
    binning: &impl Fn(usize) -> B,
    counts: Out<u32>,
    scratch: Shared<[u32]>,
) {
    let layout = layout_of::<T, B>(active, binning);
    let (total, counters) = (layout.total as usize, layout.counters as usize);
    holds(
        c"histogram: the counts (one for each bin of each active channel)",
        counts.as_mut_ptr() as *const u8,
        counts.len(),
        total,
        core::panic::Location::caller(),
    );
    let sets = sets_in(scratch.len(), counters);
    if sets == 0 {
        // Global: each sample's bin straight into the output, one sample
        // at a time (atomics in global memory bound it; the short loop
        // keeps the kernel's registers for the shared path).
        let held = held(active, binning);
        let grid = this_grid();
        let (mut i, stride) = (grid.thread_rank(), grid.num_threads());
        while i < samples.len() {
            let c = i % CH;
            if c < active {
                if let Some(b) = pick(&held, c).bin(samples[i]) {
                    if b < pick(&layout.bins, c) {
                        counts
                            .atomic()
                            .add((pick(&layout.out_start, c) + b) as usize, 1);
                    }
                }
            }
            i += stride;
        }
        return;
    }
    let stride = set_stride(counters, sets);
    let threads = block.num_threads() as usize;
    let zero = scratch.own(ByRank::new());
    let mut n = 0;
    while zero.mine() + n * threads < sets * stride {
        zero.write_nth(n, 0);
        n += 1;
    }
    let bins = zero.atomics(&block);
    let set = ((block.thread_rank() as usize % 32 % sets) * stride) as u32;
    // Samples binned one by one in the sweep (not counted by value): each
    // channel's binning made once, held in registers.
    let held = (T::VALUES == 0).then(|| held(active, binning));
    sweep::<T, CH>(
        samples,
        active,
        |c, s: T| {
            if T::VALUES != 0 {
                set + c as u32 * T::VALUES + s.value_index()
            } else {
                match held.as_ref().and_then(|held| pick(held, c).bin(s)) {
                    // A bin past the channel's (a binning of yours that
                    // breaks its promise) counts nowhere.
                    Some(b) if b < pick(&layout.bins, c) => {
                        set + pick(&layout.private_start, c) + b
                    }
                    _ => NONE,
                }
            }
        },
        // SAFETY: a key is a counter of this thread's set: `set + stride`
        // is at most `sets × stride`, which `sets_in` found in the array.
        |key, n| unsafe { bins.add_unchecked(key, n) },
    );
    let bins = bins.publish(&block);
    // Counted by value: the binnings made again now that they are needed.
    let layout = if T::VALUES != 0 {
        layout_of::<T, B>(active, binning)
    } else {
        layout
    };
    let mut k = block.thread_rank() as usize;
    while k < counters {
        let mut count = 0;
        for s in 0..sets {
            count += bins.get(s * stride + k);
        }
        let mut c = 0;
        while c + 1 < active && k as u32 >= pick(&layout.private_start, c + 1) {
            c += 1;
        }
        let local = k as u32 - pick(&layout.private_start, c);
        if T::VALUES != 0 && pick(&layout.bins, c) < T::VALUES {
            // Counted by value: neighbouring values share a bin whenever
            // the channel has fewer bins than values, so the lanes of one
            // bin add their counts first and one of them adds the sum (a
            // block's 256 atomics onto 64 bins were four a bin, every block
            // contending for the same 64 words).
            let out = match binning(c).bin(T::from_value_index(local)) {
                Some(b) if count > 0 && b < pick(&layout.bins, c) => pick(&layout.out_start, c) + b,
                _ => NONE,
            };
            let same = coalesced_threads().labeled_partition(out);
            let total = reduce(&same, count, Sum);
            if out != NONE {
                same.invoke_one(|| counts.atomic().add(out as usize, total));
            }
        } else if count > 0 {
            let bin = if T::VALUES != 0 {
                binning(c).bin(T::from_value_index(local))
            } else {
                Some(local)
            };
            if let Some(b) = bin.filter(|&b| b < pick(&layout.bins, c)) {
                counts
                    .atomic()
                    .add((pick(&layout.out_start, c) + b) as usize, count);
            }
        }
        k += threads;
    }
}

/// Calls `count(key, n)` for this thread's samples of `samples`, pixels
/// of `CH` channels of which the first `active` count, `key(c, s)` being
/// the counter of sample `s` of channel `c` ([`NONE`] for none): whole
/// 16-byte chunks in a grid-stride loop, then the unaligned head and tail
/// on the grid's first threads.
///
/// Bytes (counted by value: cheap keys) are counted by [`byte_chunk`],
/// pixels of them with one body for each channel a chunk can start at;
/// other types' keys cost more than the copies of the code would save.
/// Other samples of one channel count a run of equal keys within a chunk
/// as one call.
#[inline(always)]
fn sweep<T: Sample, const CH: usize>(
    samples: &[T],
    active: usize,
    key: impl Fn(usize, T) -> u32,
    mut count: impl FnMut(u32, u32),
) {
    let grid = this_grid();
    // SAFETY: any bytes of `T`s are a valid chunk of `T`s (`Vectorized`:
    // an array of them); `align_to` keeps the chunks aligned and in
    // bounds.
    let (head, body, tail) = unsafe { samples.align_to::<T::Chunk>() };
    let (g, stride) = (grid.thread_rank(), grid.num_threads());
    // The channel of this thread's next chunk's first sample, and how far
    // it moves from one chunk of the thread to the next.
    let mut first = (head.len() + g * T::LANES) % CH;
    let step = (stride * T::LANES) % CH;
    // Samples other than one channel of bytes, one chunk a thread at a
    // time: the next load is issued after this chunk is counted, which
    // keeps few registers live (more blocks a multiprocessor hide the
    // loads' latency instead; two chunks of pixels of bytes took the RGBA
    // kernel from 72 to 97 registers and ran 5 % slower).
    let mut i = g;
    if CH == 1 && T::VALUES != 0 {
        // One channel of bytes: two chunks loaded before either is counted
        // (their counts are increments, which need few registers); the
        // loop below takes the last one.
        while i + stride < body.len() {
            // SAFETY: `i < i + stride < body.len()`.
            let (a, b) = unsafe { (*body.get_unchecked(i), *body.get_unchecked(i + stride)) };
            byte_chunk::<T, CH>(a, first, active, &key, &mut count);
            first = (first + step) % CH;
            byte_chunk::<T, CH>(b, first, active, &key, &mut count);
            first = (first + step) % CH;
            i += 2 * stride;
        }
    }
    while i < body.len() {
        // SAFETY: `i < body.len()`.
        let chunk = unsafe { *body.get_unchecked(i) };
        if T::VALUES != 0 {
            byte_chunk::<T, CH>(chunk, first, active, &key, &mut count);
        } else if CH == 1 {
            single_chunk(chunk, &key, &mut count);
        } else {
            for j in 0..T::LANES {
                let c = (first + j) % CH;
                if c < active {
                    let k = key(c, T::lane(chunk, j));
                    if k != NONE {
                        count(k, 1);
                    }
                }
            }
        }
        first = (first + step) % CH;
        i += stride;
    }
    let mut one = |index: usize, s: T| {
        let c = index % CH;
        if c < active {
            let k = key(c, s);
            if k != NONE {
                count(k, 1);
            }
        }
    };
    if g < head.len() {
        one(g, head[g]);
    }
    if g < tail.len() {
        one(head.len() + body.len() * T::LANES + g, tail[g]);
    }
}

/// Counts the bytes of `chunk`, pixels of `CH` channels whose first byte
/// is channel `first`, one increment by one a byte.
///
/// ptxas compiles an increment by one to one the shared-memory unit
/// merges across the lanes of a warp that hit the same counter
/// (`ATOMS.POPC.INC`), where an addition of a run's length (`ATOMS.ADD`)
/// is serialized among them (chapter 7 has the measurements). One
/// channel: LLVM unrolls the loop over the chunk's 16 lanes and keeps its
/// load whole (one `ld.global.v4`), where the lanes written out
/// (`single_chunk`) get the load split into pieces. Several: one body for
/// each channel the chunk can start at, so that each lane's channel is a
/// constant.
#[inline(always)]
fn byte_chunk<T: Sample, const CH: usize>(
    chunk: T::Chunk,
    first: usize,
    active: usize,
    key: &impl Fn(usize, T) -> u32,
    count: &mut impl FnMut(u32, u32),
) {
    if CH == 1 {
        for j in 0..T::LANES {
            count(key(0, T::lane(chunk, j)), 1);
        }
        return;
    }
    match first {
        0 => pixel_chunk::<T, CH, 0>(chunk, active, key, count),
        1 => pixel_chunk::<T, CH, 1>(chunk, active, key, count),
        2 => pixel_chunk::<T, CH, 2>(chunk, active, key, count),
        _ => pixel_chunk::<T, CH, 3>(chunk, active, key, count),
    }
}

/// Counts the samples of `chunk`, pixels of `CH` channels whose first
/// sample is channel `F`: the channel of each lane is known when this is
/// compiled, so the channels' offsets stay in registers.
#[inline(always)]
fn pixel_chunk<T: Sample, const CH: usize, const F: usize>(
    chunk: T::Chunk,
    active: usize,
    key: &impl Fn(usize, T) -> u32,
    count: &mut impl FnMut(u32, u32),
) {
    for j in 0..T::LANES {
        let c = (F + j) % CH;
        if c < active {
            let k = key(c, T::lane(chunk, j));
            if k != NONE {
                count(k, 1);
            }
        }
    }
}

/// Counts the samples of `chunk`, all of channel 0, a run of equal keys as
/// one count; the lanes written out, so that the chunk stays in registers.
#[inline(always)]
fn single_chunk<T: Sample>(
    chunk: T::Chunk,
    key: &impl Fn(usize, T) -> u32,
    count: &mut impl FnMut(u32, u32),
) {
    let mut run = Run { key: NONE, n: 0 };
    macro_rules! lanes {
        ($($j:literal)*) => {$(
            if $j < T::LANES {
                run.push(key(0, T::lane(chunk, $j)), count);
            }
        )*};
    }
    lanes!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    run.finish(count);
}

/// A run of equal keys a thread is counting: one `count(key, n)` when it
/// ends, instead of one a sample.
struct Run {
    key: u32,
    n: u32,
}

impl Run {
    /// A run starting with `key`.
    #[inline(always)]
    fn first(key: u32) -> Self {
        Run { key, n: 1 }
    }

    /// The next key: the run grows, or it is counted and `key` starts the
    /// next.
    #[inline(always)]
    fn push(&mut self, key: u32, count: &mut impl FnMut(u32, u32)) {
        if key == self.key {
            self.n += 1;
        } else {
            if self.key != NONE {
                count(self.key, self.n);
            }
            *self = Run::first(key);
        }
    }

    /// Counts the run (unless it is of no counter).
    #[inline(always)]
    fn finish(self, count: &mut impl FnMut(u32, u32)) {
        if self.key != NONE {
            count(self.key, self.n);
        }
    }
}
