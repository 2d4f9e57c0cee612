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
    self as seg, block_tile, merge_passes, shared_memory_bytes, words_control, work_len, Header,
    HEADER,
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
        })
    }

    /// The same sorter, launching blocks of `threads` threads (a block
    /// sorts segments of up to `threads ×
    /// coop::device::segmented_sort::ITEMS` keys alone). Fails with
    /// [`Error::InvalidArgument`] unless `threads` is a multiple of 32 from
    /// 64 to 512, on either backend.
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
        // The medium segments, then the long ones' tiles and merges.
        let alt = if header.large > 0 { len } else { 0 };
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
