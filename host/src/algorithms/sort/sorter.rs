//! [`Sorter`]: radix sorts on one device, keeping the loaded kernels, the
//! second buffer the passes ping-pong through, the digit counts and the
//! tiles' status words between calls.

use super::{as_words, BuiltinSort, Order, Pass, SortValue, Word, DEFAULT_BLOCK_THREADS};
use crate::algorithms::engine::{Engine, Scratch, TileStatus};
use crate::ptx_families::SORT_PTX;
use crate::{Device, Error, LaunchConfig, Output};
use coop::device::radix_sort::{
    bins_len, histogram_shared_memory_bytes, passes, shared_memory_bytes, status_len, tiles,
    DESCENDING, HISTOGRAM_ITEMS, MIN_BLOCK_THREADS,
};
use std::ops::Range;
use std::sync::{Mutex, MutexGuard};

/// Radix sorts on one device: keys ([`keys`](Self::keys),
/// [`keys_descending`](Self::keys_descending)), keys with values
/// ([`pairs`](Self::pairs), [`pairs_descending`](Self::pairs_descending)),
/// by a range of the keys' bits ([`keys_by_bits`](Self::keys_by_bits),
/// [`pairs_by_bits`](Self::pairs_by_bits)); see the [module docs](super).
/// Each sorts in place and returns once the launches are queued (on a GPU;
/// [`synchronize`](Self::synchronize) waits for them).
///
/// ```
/// use coop_host::{sort::Sorter, Device};
///
/// let device = Device::cpu(); // or Device::gpu_or_cpu()
/// let sorter = Sorter::new(&device)?;
/// let mut keys: Vec<i64> = (0..3000).map(|i| (i * 7919) % 3001 - 1500).collect();
/// let mut expected = keys.clone();
/// expected.sort();
/// sorter.keys(&mut keys)?;
/// assert_eq!(keys, expected);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct Sorter {
    engine: Engine,
    state: Mutex<State>,
    threads: u32,
}

/// What a sorter keeps between calls.
#[derive(Default)]
struct State {
    /// One status word a digit and tile of a pass.
    status: TileStatus,
    /// 256 digit counts a pass.
    bins: Scratch,
    /// The keys' second buffer.
    keys: Scratch,
    /// The values' second buffer.
    values: Scratch,
}

impl std::fmt::Debug for Sorter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sorter")
            .field("device", &self.engine.describe())
            .field("threads", &self.threads)
            .finish()
    }
}

impl Sorter {
    /// Loads the built-in sort kernels on `device`.
    pub fn new(device: &Device) -> Result<Sorter, Error> {
        Ok(Sorter {
            engine: Engine::new(device, &SORT_PTX)?,
            state: Mutex::default(),
            threads: DEFAULT_BLOCK_THREADS,
        })
    }

    /// The same sorter, launching passes of `threads` threads a block (a
    /// tile of `threads × coop::device::radix_sort::items_per_thread`
    /// keys). Fails with [`Error::InvalidArgument`] unless `threads` is a
    /// multiple of 32 from 256 (a thread a digit) to 512, on either
    /// backend.
    ///
    /// ```
    /// use coop_host::{sort::Sorter, Device, Error};
    /// let sorter = Sorter::new(&Device::cpu())?.with_block_threads(512)?;
    /// let mut keys = vec![3u16, 1, 2];
    /// sorter.keys(&mut keys)?;
    /// assert_eq!(keys, [1, 2, 3]);
    /// let err = Sorter::new(&Device::cpu())?.with_block_threads(128).unwrap_err();
    /// assert!(matches!(err, Error::InvalidArgument { .. }));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_block_threads(mut self, threads: u32) -> Result<Self, Error> {
        if !(MIN_BLOCK_THREADS..=512).contains(&threads) || !threads.is_multiple_of(32) {
            return Err(Error::InvalidArgument {
                call: "Sorter::with_block_threads",
                problem: format!(
                    "{threads} threads a block: a sort's block is a multiple of 32 threads from \
                     {MIN_BLOCK_THREADS} (a thread a digit) to 512"
                ),
            });
        }
        self.threads = threads;
        Ok(self)
    }

    /// The same sorter running the built-in kernels of `module` instead of
    /// the ones coop-host ships: a build of `coop-host-kernels` of your own
    /// (other flags, another target, a variant of its PTX), loaded on this
    /// sorter's GPU. Its kernels must take the same keys a thread
    /// (`coop::device::radix_sort::items_per_thread`), which size the
    /// grid. Fails with [`Error::Unavailable`] on the CPU backend and
    /// when `module` was loaded on another GPU.
    ///
    /// ```no_run
    /// use coop_host::{sort::Sorter, Device, Gpu};
    ///
    /// let gpu = Gpu::new(0)?;
    /// let ptx = std::fs::read_to_string("sort-variant.sm_90.ptx").unwrap();
    /// let module = gpu.load_ptx("sort-variant", &ptx)?;
    /// let sorter = Sorter::new(&Device::Gpu(gpu))?.with_module(module)?;
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_module(mut self, module: crate::Module) -> Result<Self, Error> {
        self.engine.set_own(module, "Sorter::with_module")?;
        Ok(self)
    }

    /// Sorts `keys` in place, smallest first.
    pub fn keys<'k, K: BuiltinSort>(&self, keys: impl Into<Output<'k, K>>) -> Result<(), Error> {
        self.sort_keys("Sorter::keys", keys.into(), None, Order::Ascending)
    }

    /// Sorts `keys` in place, largest first (equal keys in their order).
    pub fn keys_descending<'k, K: BuiltinSort>(
        &self,
        keys: impl Into<Output<'k, K>>,
    ) -> Result<(), Error> {
        self.sort_keys(
            "Sorter::keys_descending",
            keys.into(),
            None,
            Order::Descending,
        )
    }

    /// Sorts `keys` in place by bits `bits` of each key only (bit 0 the
    /// lowest of the bits that sort as the key's value does: for signed
    /// integers and floats the sign bit is the highest). Keys equal in
    /// those bits keep their order. Fails with [`Error::InvalidArgument`]
    /// unless `bits` lies within the key's bits.
    ///
    /// ```
    /// use coop_host::{sort::{Order, Sorter}, Device};
    ///
    /// let sorter = Sorter::new(&Device::cpu())?;
    /// // Only the low byte counts: one pass instead of four.
    /// let mut keys = vec![0x1_03u32, 0x2_01, 0x3_02, 0x4_01];
    /// sorter.keys_by_bits(&mut keys, 0..8, Order::Ascending)?;
    /// assert_eq!(keys, [0x2_01, 0x4_01, 0x3_02, 0x1_03]);
    /// assert!(sorter.keys_by_bits(&mut keys, 8..40, Order::Ascending).is_err());
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn keys_by_bits<'k, K: BuiltinSort>(
        &self,
        keys: impl Into<Output<'k, K>>,
        bits: Range<u32>,
        order: Order,
    ) -> Result<(), Error> {
        self.sort_keys("Sorter::keys_by_bits", keys.into(), Some(bits), order)
    }

    /// Sorts `keys` in place, smallest first, `values[i]` moving with
    /// `keys[i]` (`values` as long as `keys`).
    ///
    /// ```
    /// use coop_host::{sort::Sorter, Device};
    ///
    /// let sorter = Sorter::new(&Device::cpu())?;
    /// let mut keys = vec![30u8, 10, 20, 10];
    /// let mut values = vec![0.5f64, 1.5, 2.5, 3.5];
    /// sorter.pairs(&mut keys, &mut values)?;
    /// assert_eq!((keys, values), (vec![10, 10, 20, 30], vec![1.5, 3.5, 2.5, 0.5]));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn pairs<'k, 'v, K: BuiltinSort, V: SortValue>(
        &self,
        keys: impl Into<Output<'k, K>>,
        values: impl Into<Output<'v, V>>,
    ) -> Result<(), Error> {
        self.sort_pairs(
            "Sorter::pairs",
            keys.into(),
            values.into(),
            None,
            Order::Ascending,
        )
    }

    /// [`pairs`](Self::pairs), largest key first.
    pub fn pairs_descending<'k, 'v, K: BuiltinSort, V: SortValue>(
        &self,
        keys: impl Into<Output<'k, K>>,
        values: impl Into<Output<'v, V>>,
    ) -> Result<(), Error> {
        self.sort_pairs(
            "Sorter::pairs_descending",
            keys.into(),
            values.into(),
            None,
            Order::Descending,
        )
    }

    /// [`pairs`](Self::pairs) by bits `bits` of each key only, in `order`
    /// (see [`keys_by_bits`](Self::keys_by_bits)).
    pub fn pairs_by_bits<'k, 'v, K: BuiltinSort, V: SortValue>(
        &self,
        keys: impl Into<Output<'k, K>>,
        values: impl Into<Output<'v, V>>,
        bits: Range<u32>,
        order: Order,
    ) -> Result<(), Error> {
        self.sort_pairs(
            "Sorter::pairs_by_bits",
            keys.into(),
            values.into(),
            Some(bits),
            order,
        )
    }

    /// Waits until the calls queued on a GPU are done (nothing to wait for
    /// on the CPU backend).
    pub fn synchronize(&self) -> Result<(), Error> {
        self.engine.synchronize()
    }

    /// The engine its kernels (the sort family's) launch through.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A sort of keys alone.
    pub(crate) fn sort_keys<K: BuiltinSort>(
        &self,
        call: &'static str,
        keys: Output<'_, K>,
        bits: Option<Range<u32>>,
        order: Order,
    ) -> Result<(), Error> {
        self.engine.check_arguments::<K::Keys>(&[keys.on_gpu()])?;
        self.run::<K, ()>(call, keys, None, bits, order)
    }

    /// A sort of keys and values.
    pub(crate) fn sort_pairs<K: BuiltinSort, V: SortValue>(
        &self,
        call: &'static str,
        keys: Output<'_, K>,
        mut values: Output<'_, V>,
        bits: Option<Range<u32>>,
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
        self.engine
            .check_arguments::<K::Keys>(&[keys.on_gpu(), values.on_gpu()])?;
        self.run::<K, V::Word>(call, keys, Some(as_words(&mut values)), bits, order)
    }

    /// The sort: checks, the digit counts, a pass a digit, and a copy back
    /// where the passes are odd in number.
    fn run<K: BuiltinSort, W: Word>(
        &self,
        call: &'static str,
        mut keys: Output<'_, K>,
        mut values: Option<Output<'_, W>>,
        bits: Option<Range<u32>>,
        order: Order,
    ) -> Result<(), Error> {
        let bits = bits.unwrap_or(0..K::BITS);
        if bits.start > bits.end || bits.end > K::BITS {
            return Err(Error::InvalidArgument {
                call,
                problem: format!(
                    "bits {}..{} of {} keys: the range must lie within 0..{} and not run backwards",
                    bits.start,
                    bits.end,
                    std::any::type_name::<K>(),
                    K::BITS
                ),
            });
        }
        let len = keys.len();
        if len > u32::MAX as usize {
            return Err(Error::InvalidArgument {
                call,
                problem: format!("{len} keys: a sort takes at most 2^32 - 1 keys"),
            });
        }
        let (begin, end) = (bits.start, bits.end);
        let passes = passes(begin, end);
        if len <= 1 || passes == 0 {
            return Ok(());
        }
        let control = match order {
            Order::Ascending => 0,
            Order::Descending => DESCENDING,
        };
        let launcher = self.engine.own();
        let threads = self.threads;
        let mut state = self.lock();
        let State {
            status,
            bins,
            keys: keys_scratch,
            values: values_scratch,
        } = &mut *state;
        // The digit counts of every pass, zeroed, then counted.
        let counts = bins_len(begin, end);
        bins.reserve(&self.engine, counts * 4, 4096)?;
        // SAFETY: `u32` counts: any bits are a value.
        let mut every_bin = unsafe { bins.typed::<u32>() };
        let mut bins = every_bin.slice_mut(0..counts);
        self.engine.clear(&mut bins, "the sort's digit counts")?;
        // No more blocks of the digit counting than stretches of its keys,
        // nor than one wave.
        let stretch = threads as usize * HISTOGRAM_ITEMS;
        let wave = self.engine.wave(launcher, K::HISTOGRAM, threads)?;
        let blocks = len.div_ceil(stretch).min(wave as usize).max(1) as u32;
        let config = LaunchConfig::new(blocks, threads)
            .with_shared_memory(histogram_shared_memory_bytes(begin, end));
        launcher.launch(
            K::HISTOGRAM,
            config,
            (&keys.as_input(), &mut bins, begin, end, control),
        )?;
        // The second buffers.
        keys_scratch.reserve(&self.engine, len * std::mem::size_of::<K>(), 4096)?;
        // SAFETY: the passes read only the keys a pass before wrote there.
        let mut every_key = unsafe { keys_scratch.typed::<K>() };
        let mut other_keys = every_key.slice_mut(0..len);
        let mut other_values = match &values {
            Some(_) => {
                values_scratch.reserve(&self.engine, len * std::mem::size_of::<W>(), 4096)?;
                // SAFETY: as for the keys.
                Some(unsafe { values_scratch.typed::<W>() })
            }
            None => None,
        };
        let mut other_values = other_values.as_mut().map(|v| v.slice_mut(0..len));
        let bins = bins.as_input();
        let config = LaunchConfig::new(tiles::<K, W>(len, threads) as u32, threads)
            .with_shared_memory(shared_memory_bytes::<K, W>(threads));
        let words = status_len::<K, W>(len, threads);
        for pass in 0..passes {
            let epoch = status.next_epoch(&self.engine, words, "the sort's tile states")?;
            let mut all = status.all();
            let p = Pass {
                launcher,
                config,
                bins: bins.reborrow(),
                status: all.slice_mut(0..words),
                numbers: [begin, end, pass, control, epoch],
            };
            // Even passes read the caller's buffers, odd ones the second.
            if pass % 2 == 0 {
                let from = keys.as_input();
                match (&values, other_values.as_mut()) {
                    (Some(v), Some(to)) => {
                        W::launch_pass(&from, &mut other_keys, Some((&v.as_input(), to)), p)?
                    }
                    _ => W::launch_pass(&from, &mut other_keys, None, p)?,
                }
            } else {
                let from = other_keys.as_input();
                match (values.as_mut(), &other_values) {
                    (Some(to), Some(v)) => {
                        W::launch_pass(&from, &mut keys, Some((&v.as_input(), to)), p)?
                    }
                    _ => W::launch_pass(&from, &mut keys, None, p)?,
                }
            }
        }
        if passes % 2 == 1 {
            self.engine
                .copy(&other_keys.as_input(), &mut keys, "the sorted keys")?;
            if let (Some(values), Some(other)) = (&mut values, &other_values) {
                W::copy(&self.engine, &other.as_input(), values)?;
            }
        }
        Ok(())
    }
}
