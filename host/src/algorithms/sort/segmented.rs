//! [`SegmentedSorter`]: segmented sorts on one device, keeping the loaded
//! kernels, the work lists and the second buffers between calls.

use super::{as_bits, as_words, BuiltinSort, Order, SortValue, Word};
use crate::algorithms::engine::{Engine, Scratch};
use crate::algorithms::segmented::offset_words;
use crate::ptx_families::SEGMENTED_SORT_PTX;
use crate::{Buffer, Device, Error, Input, LaunchConfig, Output};
use coop::device::radix_sort::DESCENDING;
use coop::device::segmented::Offset;
use coop::device::segmented_sort::{
    self as seg, block_tile, merge_passes, radix_passes, shared_memory_bytes, words_control,
    work_len, Header, HEADER, RADIX_MIN_THREADS,
};
use coop::DeviceCopy;
use std::sync::{Mutex, MutexGuard};

/// Threads per block of a segmented sort's launches, unless
/// [`SegmentedSorter::with_block_threads`] says otherwise: 256.
///
/// ```
/// assert_eq!(coop_host::sort::SEGMENTED_BLOCK_THREADS, 256);
/// ```
pub const SEGMENTED_BLOCK_THREADS: u32 = 256;

/// How a [`SegmentedSorter`] sorts the segments longer than a block's tile
/// (`threads × coop::device::segmented_sort::ITEMS` keys): CUB's segmented
/// sorts take such a segment a block each, by radix; coop has that route
/// and a route that spreads a segment over many blocks, and by default
/// chooses between them for each call ([`Auto`](Self::Auto)).
///
/// Both routes are timed against CUB in chapter 7 of the guide. On an H100
/// at 2^22 and 2^24 keys in segments of 20 000, radix took 0.63–0.69 of
/// merge's time for 4-byte keys and merge 0.55–0.62 of radix's for 8-byte
/// keys; for segments of 2^20 merge took 0.03–0.14 of radix's. `Auto`'s
/// estimate is calibrated on those figures and takes the faster route in
/// each of them.
///
/// | route | how | fastest for |
/// |---|---|---|
/// | [`Merge`](Self::Merge) | blocks sort the segments' tiles, then merge passes (each a launch) merge sorted runs pairwise until each segment is one run: a long segment's work is spread over many blocks | few long segments, one much longer than the rest, or 8-byte keys |
/// | [`Radix`](Self::Radix) | a block sorts each long segment whole, by radix passes of 8 bits over its tiles, in one launch (blocks of at least 256 threads) | many long segments of similar lengths, enough to fill the GPU |
/// | [`Auto`](Self::Auto) | after the first launch, from the long segments' number, the longest one and their tiles: radix when the longest segment sorted by one block is expected to take less than merging them all | whichever the estimate expects to be sooner (the default) |
///
/// ```
/// use coop_host::sort::{LongSegments, SegmentedSorter};
/// use coop_host::{Device, Error};
///
/// let device = Device::cpu();
/// let sorter = SegmentedSorter::new(&device)?.with_long_segments(LongSegments::Radix)?;
/// // Segments of 3000 and 5000 keys: longer than a block's tile of 2048.
/// let mut keys: Vec<u32> = (0..8000u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
/// sorter.keys(&mut keys, &[0u32, 3000, 8000][..])?;
/// assert!(keys[..3000].is_sorted() && keys[3000..].is_sorted());
///
/// // The radix route needs blocks of 256 threads or more.
/// let err = SegmentedSorter::new(&device)?
///     .with_block_threads(128)?
///     .with_long_segments(LongSegments::Radix)
///     .unwrap_err();
/// assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LongSegments {
    /// Radix or merge, chosen for each call (the default).
    #[default]
    Auto,
    /// Tiles sorted by blocks, then merged pairwise.
    Merge,
    /// A block a segment, sorted by radix passes.
    Radix,
}

/// Segmented sorts on one device: the keys of each segment of a buffer, or
/// keys with values, sorted in place, stably, ascending
/// ([`keys`](Self::keys), [`pairs`](Self::pairs)) or descending
/// ([`keys_descending`](Self::keys_descending),
/// [`pairs_descending`](Self::pairs_descending)); see
/// [`sort::segmented_keys`](super::segmented_keys) for the segments.
///
/// ```
/// use coop_host::{sort::SegmentedSorter, Device};
///
/// let device = Device::cpu(); // or Device::gpu_or_cpu()
/// let sorter = SegmentedSorter::new(&device)?;
/// // Each user's scores, highest first, with the games they came from.
/// let mut scores = device.upload(&[3.5f32, 9.0, 1.0, 7.0, 7.0, 2.0])?;
/// let mut games = device.upload(&[0u32, 1, 2, 3, 4, 5])?;
/// let users = device.upload(&[0u64, 3, 6])?;
/// sorter.pairs_descending(&mut scores, &mut games, &users)?;
/// assert_eq!(device.download(&scores)?, [9.0, 3.5, 1.0, 7.0, 7.0, 2.0]);
/// assert_eq!(device.download(&games)?, [1, 0, 2, 3, 4, 5]); // ties in their order
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct SegmentedSorter {
    engine: Engine,
    state: Mutex<State>,
    threads: u32,
    long: LongSegments,
}

/// What a sorter keeps between calls.
#[derive(Default)]
struct State {
    /// The header and the lists of the longer segments.
    work: Option<Buffer<u64>>,
    /// The keys' second buffer (long segments only).
    keys: Scratch,
    /// The values' second buffer.
    values: Scratch,
}

impl std::fmt::Debug for SegmentedSorter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegmentedSorter")
            .field("device", &self.engine.describe())
            .field("threads", &self.threads)
            .field("long_segments", &self.long)
            .finish()
    }
}

impl SegmentedSorter {
    /// Loads the built-in segmented sort kernels on `device`.
    pub fn new(device: &Device) -> Result<SegmentedSorter, Error> {
        Ok(SegmentedSorter {
            engine: Engine::new(device, &SEGMENTED_SORT_PTX)?,
            state: Mutex::default(),
            threads: SEGMENTED_BLOCK_THREADS,
            long: LongSegments::Auto,
        })
    }

    /// The same sorter, sorting segments longer than a block's tile by
    /// `route` ([`LongSegments`]). Fails with [`Error::InvalidArgument`]
    /// for [`LongSegments::Radix`] when the sorter's blocks have fewer than
    /// 256 threads (a thread a digit), on either backend.
    pub fn with_long_segments(mut self, route: LongSegments) -> Result<Self, Error> {
        if route == LongSegments::Radix && self.threads < RADIX_MIN_THREADS {
            return Err(Error::InvalidArgument {
                call: "SegmentedSorter::with_long_segments",
                problem: radix_threads_problem(self.threads),
            });
        }
        self.long = route;
        Ok(self)
    }

    /// The route this sorter takes for segments longer than a block's tile.
    ///
    /// ```
    /// use coop_host::{sort::{LongSegments, SegmentedSorter}, Device};
    /// let sorter = SegmentedSorter::new(&Device::cpu())?;
    /// assert_eq!(sorter.long_segments(), LongSegments::Auto);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn long_segments(&self) -> LongSegments {
        self.long
    }

    /// The same sorter, launching blocks of `threads` threads (a block
    /// sorts segments of up to `threads ×
    /// coop::device::segmented_sort::ITEMS` keys alone). Fails with
    /// [`Error::InvalidArgument`] unless `threads` is a multiple of 32 from
    /// 64 to 512, or when the sorter takes [`LongSegments::Radix`] and
    /// `threads` is below 256, on either backend.
    ///
    /// ```
    /// use coop_host::{sort::SegmentedSorter, Device, Error};
    /// let sorter = SegmentedSorter::new(&Device::cpu())?.with_block_threads(128)?;
    /// let mut keys = vec![3u16, 1, 2, 9, 8];
    /// sorter.keys(&mut keys, &[0u32, 3, 5][..])?;
    /// assert_eq!(keys, [1, 2, 3, 8, 9]);
    /// let err = SegmentedSorter::new(&Device::cpu())?.with_block_threads(48).unwrap_err();
    /// assert!(matches!(err, Error::InvalidArgument { .. }));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_block_threads(mut self, threads: u32) -> Result<Self, Error> {
        if !(64..=512).contains(&threads) || !threads.is_multiple_of(32) {
            return Err(Error::InvalidArgument {
                call: "SegmentedSorter::with_block_threads",
                problem: format!(
                    "{threads} threads a block: a segmented sort's block is a multiple of 32 \
                     threads from 64 to 512"
                ),
            });
        }
        if self.long == LongSegments::Radix && threads < RADIX_MIN_THREADS {
            return Err(Error::InvalidArgument {
                call: "SegmentedSorter::with_block_threads",
                problem: radix_threads_problem(threads),
            });
        }
        self.threads = threads;
        Ok(self)
    }

    /// The same sorter running the built-in kernels of `module` instead of
    /// the ones coop-host ships: a build of `coop-host-kernels` of your own
    /// (feature `segmented_sort`), loaded on this sorter's GPU. Fails with
    /// [`Error::Unavailable`] on the CPU backend and when `module` was
    /// loaded on another GPU.
    pub fn with_module(mut self, module: crate::Module) -> Result<Self, Error> {
        self.engine
            .set_own(module, "SegmentedSorter::with_module")?;
        Ok(self)
    }

    /// Sorts each segment of `keys` in place, smallest first; see
    /// [`sort::segmented_keys`](super::segmented_keys).
    pub fn keys<'k, 'o, K: BuiltinSort, Off: Offset + DeviceCopy>(
        &self,
        keys: impl Into<Output<'k, K>>,
        offsets: impl Into<Input<'o, Off>>,
    ) -> Result<(), Error> {
        self.sort_keys(
            "SegmentedSorter::keys",
            keys.into(),
            offsets.into(),
            Order::Ascending,
        )
    }

    /// Sorts each segment of `keys` in place, largest first, equal keys in
    /// their input order.
    pub fn keys_descending<'k, 'o, K: BuiltinSort, Off: Offset + DeviceCopy>(
        &self,
        keys: impl Into<Output<'k, K>>,
        offsets: impl Into<Input<'o, Off>>,
    ) -> Result<(), Error> {
        self.sort_keys(
            "SegmentedSorter::keys_descending",
            keys.into(),
            offsets.into(),
            Order::Descending,
        )
    }

    /// Sorts each segment of `keys` in place, smallest first, `values[i]`
    /// moving with `keys[i]` (`values` as long as `keys`).
    pub fn pairs<'k, 'v, 'o, K: BuiltinSort, V: SortValue, Off: Offset + DeviceCopy>(
        &self,
        keys: impl Into<Output<'k, K>>,
        values: impl Into<Output<'v, V>>,
        offsets: impl Into<Input<'o, Off>>,
    ) -> Result<(), Error> {
        self.sort_pairs(
            "SegmentedSorter::pairs",
            keys.into(),
            values.into(),
            offsets.into(),
            Order::Ascending,
        )
    }

    /// [`pairs`](Self::pairs) in descending order of the keys.
    pub fn pairs_descending<'k, 'v, 'o, K: BuiltinSort, V: SortValue, Off: Offset + DeviceCopy>(
        &self,
        keys: impl Into<Output<'k, K>>,
        values: impl Into<Output<'v, V>>,
        offsets: impl Into<Input<'o, Off>>,
    ) -> Result<(), Error> {
        self.sort_pairs(
            "SegmentedSorter::pairs_descending",
            keys.into(),
            values.into(),
            offsets.into(),
            Order::Descending,
        )
    }

    /// Waits until the sorts queued on a GPU are done (the calls return
    /// once the last launches are queued; each reads the segments' header
    /// back before its sorting launches).
    pub fn synchronize(&self) -> Result<(), Error> {
        self.engine.synchronize()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A sort of keys alone.
    pub(crate) fn sort_keys<K: BuiltinSort, Off: Offset + DeviceCopy>(
        &self,
        call: &'static str,
        keys: Output<'_, K>,
        offsets: Input<'_, Off>,
        order: Order,
    ) -> Result<(), Error> {
        self.engine
            .check_arguments::<K::SegmentedKeys>(&[keys.on_gpu(), offsets.on_gpu()])?;
        self.run::<K, (), Off>(call, keys, None, offsets, order)
    }

    /// A sort of keys and values.
    pub(crate) fn sort_pairs<K: BuiltinSort, V: SortValue, Off: Offset + DeviceCopy>(
        &self,
        call: &'static str,
        keys: Output<'_, K>,
        mut values: Output<'_, V>,
        offsets: Input<'_, Off>,
        order: Order,
    ) -> Result<(), Error> {
        if values.len() != keys.len() {
            return Err(Error::InvalidArgument {
                call,
                problem: format!(
                    "the values hold {} elements and the keys {}: a sort carries one value a key",
                    values.len(),
                    keys.len()
                ),
            });
        }
        self.engine.check_arguments::<K::SegmentedKeys>(&[
            keys.on_gpu(),
            values.on_gpu(),
            offsets.on_gpu(),
        ])?;
        self.run::<K, V::Word, Off>(call, keys, Some(as_words(&mut values)), offsets, order)
    }

    /// The sort: the offsets checked and the segments classified, the
    /// header read back, then the phases it calls for.
    fn run<K: BuiltinSort, W: Word, Off: Offset + DeviceCopy>(
        &self,
        call: &'static str,
        mut keys: Output<'_, K>,
        mut values: Option<Output<'_, W>>,
        offsets: Input<'_, Off>,
        order: Order,
    ) -> Result<(), Error> {
        let mut keys = as_bits(&mut keys);
        let len = keys.len();
        if len > u32::MAX as usize {
            return Err(Error::InvalidArgument {
                call,
                problem: format!("{len} keys: a segmented sort takes at most 2^32 - 1 keys"),
            });
        }
        let segments = offsets.len().saturating_sub(1);
        if segments == 0 {
            return Ok(());
        }
        let control = words_control(
            K::KIND,
            match order {
                Order::Ascending => 0,
                Order::Descending => DESCENDING,
            },
        );
        let launcher = self.engine.own();
        let threads = self.threads;
        let wave = self.engine.wave(launcher, K::SEGMENTED_KEYS, threads)?;
        let wide = (std::mem::size_of::<Off>() == 8) as u32;
        let words = offset_words(&offsets);
        let mut state = self.lock();
        let State {
            work,
            keys: keys_scratch,
            values: values_scratch,
        } = &mut *state;
        let needed = work_len(len, segments);
        if work.as_ref().is_none_or(|w| w.len() < needed) {
            *work = Some(self.engine.zeros::<u64>(needed.max(64))?);
        }
        let mut work = Output::from(work.as_mut().expect("allocated above"));
        self.engine
            .clear(&mut work.slice_mut(0..HEADER), "a segmented sort's header")?;
        let shared = shared_memory_bytes::<K, W>(threads);
        // The phases: one launch each, `alt` elements of the second
        // buffers given (none until a segment is longer than a block's
        // tile: empty views of the scratch stand for them).
        let launch = |phase: u32,
                      blocks: usize,
                      alt: usize,
                      keys: &mut Output<'_, K::Bits>,
                      values: &mut Option<Output<'_, W>>,
                      work: &mut Output<'_, u64>,
                      scratch: (&mut Scratch, &mut Scratch)|
         -> Result<(), Error> {
            let config = LaunchConfig::new(blocks.clamp(1, 4 * wave as usize) as u32, threads)
                .with_shared_memory(shared);
            scratch
                .0
                .reserve(&self.engine, alt * std::mem::size_of::<K>(), 4096)?;
            let value_alt = if values.is_some() { alt } else { 0 };
            scratch
                .1
                .reserve(&self.engine, value_alt * std::mem::size_of::<W>(), 4096)?;
            // SAFETY: the kernels read a second buffer's elements only
            // after a launch of this call wrote them.
            let mut keys_alt = unsafe { scratch.0.typed::<K::Bits>() };
            let mut keys_alt = keys_alt.slice_mut(0..alt);
            // SAFETY: as for the keys.
            let mut values_alt = unsafe { scratch.1.typed::<W>() };
            let mut values_alt = values_alt.slice_mut(0..value_alt);
            W::launch_segmented::<K>(
                launcher,
                config,
                keys,
                &mut keys_alt,
                values.as_mut().map(|v| (v, &mut values_alt)),
                &words,
                [wide, phase, control],
                work,
            )
        };
        let (keys_alt, values_alt) = (&mut *keys_scratch, &mut *values_scratch);
        let blocks = segments.div_ceil(threads as usize);
        let scratch = (&mut *keys_alt, &mut *values_alt);
        launch(
            seg::CLASSIFY,
            blocks,
            0,
            &mut keys,
            &mut values,
            &mut work,
            scratch,
        )?;
        let header = Header::read(&self.engine.read(&work.as_input().slice(0..HEADER))?);
        if let Some(s) = header.first_bad_segment {
            return Err(bad_segment(call, s));
        }
        if len < 2 {
            return Ok(());
        }
        let blocks = segments.div_ceil(32 * (threads as usize / 32));
        let scratch = (&mut *keys_alt, &mut *values_alt);
        launch(
            seg::SMALL,
            blocks,
            0,
            &mut keys,
            &mut values,
            &mut work,
            scratch,
        )?;
        let alt = if header.large > 0 { len } else { 0 };
        let shape = SortShape {
            key_bytes: std::mem::size_of::<K>() as u32,
            value_bytes: if values.is_some() {
                std::mem::size_of::<W>() as u32
            } else {
                0
            },
        };
        let radix_wave = || self.engine.wave(launcher, K::SEGMENTED_RADIX_KEYS, threads);
        if header.large > 0 && self.radix_route(&header, shape, radix_wave)? {
            // A block a long segment (the longest first in each block's
            // turn) and a block a medium one, in one launch.
            let scratch = (&mut *keys_alt, &mut *values_alt);
            return launch(
                seg::RADIX,
                header.large + header.medium,
                alt,
                &mut keys,
                &mut values,
                &mut work,
                scratch,
            );
        }
        // The medium segments, then the long ones' tiles and merges.
        let blocks = header.medium + header.large_tiles;
        if blocks > 0 {
            let scratch = (&mut *keys_alt, &mut *values_alt);
            launch(
                seg::BLOCKS,
                blocks,
                alt,
                &mut keys,
                &mut values,
                &mut work,
                scratch,
            )?;
        }
        // Each merge pass: a warp a tile finds where its inputs start, then
        // a block a tile merges.
        let tiles = header.large_tiles;
        let partition_blocks = tiles.div_ceil(threads as usize / 32);
        for pass in 0..merge_passes(header.longest, block_tile(threads)) {
            let phase = seg::MERGE + 2 * pass;
            for (phase, blocks) in [(phase, partition_blocks), (phase + 1, tiles)] {
                let scratch = (&mut *keys_alt, &mut *values_alt);
                launch(
                    phase,
                    blocks,
                    alt,
                    &mut keys,
                    &mut values,
                    &mut work,
                    scratch,
                )?;
            }
        }
        Ok(())
    }
}

impl SegmentedSorter {
    /// Whether this call sorts its long segments by radix: always or never
    /// when the sorter says so; with [`LongSegments::Auto`], when
    /// [`radix_is_sooner`] expects it. `radix_wave`: how many blocks of
    /// the radix route's kernel the GPU holds at once.
    fn radix_route(
        &self,
        header: &Header,
        shape: SortShape,
        radix_wave: impl FnOnce() -> Result<u32, Error>,
    ) -> Result<bool, Error> {
        Ok(match self.long {
            LongSegments::Radix => true,
            LongSegments::Merge => false,
            LongSegments::Auto => {
                if self.threads < RADIX_MIN_THREADS {
                    return Ok(false);
                }
                radix_is_sooner(header, shape, self.threads, radix_wave()?)
            }
        })
    }
}

/// What a segmented sort moves: its keys' and values' bytes (0: keys
/// only).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SortShape {
    pub key_bytes: u32,
    pub value_bytes: u32,
}

/// [`LongSegments::Auto`]'s estimate: whether blocks of `threads` sort the
/// long segments of `header` by radix, a block each in rounds of
/// `radix_wave` blocks, sooner than the merge route sorts and merges all
/// their tiles.
///
/// It counts key-passes. The radix route is the longest segment's keys
/// times its passes (and the counting) in each round, one block's work;
/// the merge route is the long segments' tiles times the merge passes
/// (and the tile sort), spread over the whole GPU, and its launches
/// ([`LAUNCH_KEYS`] each). One block's key-pass costs
/// [`RADIX_BLOCK_FACTOR`] of the whole GPU's. Wider elements cost the
/// radix route more than the merge route: each of its passes moves every
/// byte, where a merge pass compares keys and moves the rest once
/// ([`radix_bytes_factor`], [`merge_bytes_factor`]).
pub(crate) fn radix_is_sooner(
    header: &Header,
    shape: SortShape,
    threads: u32,
    radix_wave: u32,
) -> bool {
    let bits = 8 * shape.key_bytes;
    let bytes = shape.key_bytes + shape.value_bytes;
    let rounds = header.large.div_ceil(radix_wave.max(1) as usize) as f64;
    let radix = header.longest as f64
        * rounds
        * (radix_passes(bits) + 1) as f64
        * radix_bytes_factor(bytes);
    let tile = block_tile(threads);
    let passes = merge_passes(header.longest, tile);
    let merge =
        (header.large_tiles * tile) as f64 * (passes + 1) as f64 * merge_bytes_factor(bytes)
            + (2 * passes + 1) as f64 * LAUNCH_KEYS;
    radix * RADIX_BLOCK_FACTOR < merge
}

/// How much more a radix pass over elements of `bytes` (key and value)
/// costs than one over 4-byte keys: as many 4-byte words as it moves.
fn radix_bytes_factor(bytes: u32) -> f64 {
    bytes.max(4) as f64 / 4.0
}

/// How much more a merge pass over elements of `bytes` costs than one over
/// 4-byte keys: about a third more for each further 4 bytes.
fn merge_bytes_factor(bytes: u32) -> f64 {
    1.0 + 0.35 * (bytes.max(4) - 4) as f64 / 4.0
}

/// [`LongSegments::Auto`]'s estimate of how many key-passes the whole GPU
/// makes over long segments by merging in the time one block makes one by
/// radix. From both routes timed on an H100 (132 SMs) at 2^22 and 2^24
/// keys in segments of 20 000 (guide, chapter 7): one block's radix sort
/// takes about 2.9 ns a key-pass of `u32`, the merge route about 20 ps.
pub(crate) const RADIX_BLOCK_FACTOR: f64 = 143.0;

/// [`LongSegments::Auto`]'s estimate of a launch of the merge route, in
/// keys merged in the same time (about 7 µs on an H200).
pub(crate) const LAUNCH_KEYS: f64 = 500_000.0;

/// The problem of the radix route with blocks of `threads`.
fn radix_threads_problem(threads: u32) -> String {
    format!(
        "blocks of {threads} threads with LongSegments::Radix: the radix route takes blocks of {RADIX_MIN_THREADS} threads or more (a thread a digit)"
    )
}

/// The error of a segment whose offsets are out of order.
fn bad_segment(call: &'static str, s: usize) -> Error {
    Error::InvalidArgument {
        call,
        problem: format!(
            "segment {s}: its offsets decrease or pass the end of the keys; offsets never \
             decrease and end at most at the keys' length (nothing was sorted)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Long segments of `longest` keys, `segments` of them, in tiles of
    /// blocks of 256 threads.
    fn header(segments: usize, longest: usize) -> Header {
        Header {
            first_bad_segment: None,
            medium: 0,
            large: segments,
            large_tiles: segments * longest.div_ceil(block_tile(256)),
            longest,
        }
    }

    /// `LongSegments::Auto` takes the faster route in each layout timed on
    /// an H100 (132 SMs, two blocks of the radix kernel each; chapter 7):
    /// radix for 4-byte keys in segments of 20 000, merge for 8-byte keys
    /// there and for segments of 2^20.
    #[test]
    fn auto_takes_the_route_an_h100_ran_faster() {
        let wave = 2 * 132;
        let u32_keys = SortShape {
            key_bytes: 4,
            value_bytes: 0,
        };
        let u64_keys = SortShape {
            key_bytes: 8,
            value_bytes: 0,
        };
        let cases = [
            // (layout, shape, header, radix measured faster)
            (
                "2^22 u32 in segments of 20000",
                u32_keys,
                header(210, 20_000),
                true,
            ),
            (
                "2^24 u32 in segments of 20000",
                u32_keys,
                header(839, 20_000),
                true,
            ),
            (
                "2^22 u64 in segments of 20000",
                u64_keys,
                header(210, 20_000),
                false,
            ),
            (
                "2^24 u64 in segments of 20000",
                u64_keys,
                header(839, 20_000),
                false,
            ),
            (
                "2^22 u32 in segments of 2^20",
                u32_keys,
                header(4, 1 << 20),
                false,
            ),
            (
                "2^24 u32 in segments of 2^20",
                u32_keys,
                header(16, 1 << 20),
                false,
            ),
            (
                "2^24 u64 in segments of 2^20",
                u64_keys,
                header(16, 1 << 20),
                false,
            ),
        ];
        for (layout, shape, header, radix) in cases {
            assert_eq!(
                radix_is_sooner(&header, shape, 256, wave),
                radix,
                "{layout}"
            );
        }
    }
}
