//! Device-wide top-k from the host: the `k` largest or smallest keys of an
//! input, alone, with their indices in the input, or with values carried
//! along, on a GPU or on the CPU backend (CUB's `DeviceTopK`). `k` is the
//! output's length.
//!
//! ```
//! use coop_host::{top_k, Device};
//!
//! let device = Device::cpu(); // or Device::gpu_or_cpu()
//! let scores = device.upload(&[0.5f32, 9.0, -1.0, 7.5, 9.0, 3.0])?;
//! let mut best = device.zeros::<f32>(3)?;
//! top_k::largest(&device, &scores, &mut best)?;
//! assert_eq!(device.download(&best)?, [9.0, 9.0, 7.5]);
//!
//! // Which elements they were (equal keys in input order).
//! let mut at = device.zeros::<u32>(3)?;
//! top_k::largest_with_indices(&device, &scores, &mut best, &mut at)?;
//! assert_eq!(device.download(&at)?, [1, 4, 3]);
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! The keys are those of the sort ([`BuiltinTopK`]: integers of 8 to 64
//! bits and floats), compared as the sort compares them: `-0.0` equal to
//! `0.0`, NaNs by their bits (a NaN with the sign bit clear is larger than
//! `+inf`, one with it set smaller than `-inf`). The result is what a
//! stable sort followed by taking the first `k` gives, found without the
//! sort: largest (or smallest) first, equal keys in their input order,
//! and of the keys equal to the `k`-th, those that come first in the
//! input. [`TopK::unordered`] leaves out the final sort of the `k`
//! results, which then come in their input order.
//!
//! A selection reads the keys once a digit of 11 bits (3 times for 4-byte
//! keys, 6 for 8-byte ones, fewer where the counts settle the `k`-th key
//! early) to find the `k`-th key, and once more to gather the `k`
//! results; the results (at most `k` of them) are then sorted.
//! `coop::device::top_k` describes the kernels. Inputs hold at most
//! `2^32 - 1` keys.

mod builtin;

pub use builtin::BuiltinTopK;

use crate::algorithms::engine::{block_threads, Scratch, TileStatus};
use crate::sort::{SortValue, Sorter};
use crate::{Device, Error, Input, LaunchConfig, Output};
use coop::device::radix_sort::HISTOGRAM_ITEMS;
use coop::device::top_k::{
    bins_len, count_shared_memory_bytes, passes, state_len, status_len, tiles, CARRY_INDICES,
    CARRY_NOTHING, CARRY_ONE_WORD, CARRY_TWO_WORDS, LARGEST, SELECT_SHARED_MEMORY_BYTES,
};
use coop::kernel::params::{OutSlice, Slice, Value};
use coop::DeviceCopy;
use std::sync::{Mutex, MutexGuard};

/// The parameters of a counting pass: `(keys: &[K], bins: Out<u32>, state:
/// Out<u32>, k: u32, pass: u32, control: u32)`, a kernel that calls
/// `coop::device::top_k::count` with them.
pub type CountParams<K> = (
    Slice<K>,
    OutSlice<u32>,
    OutSlice<u32>,
    Value<u32>,
    Value<u32>,
    Value<u32>,
);

/// The parameters of the selection: `(keys: &[K], keys_out: Out<K>,
/// values: &[u32], values_out: Out<u32>, carry: u32, bins: &[u32], state:
/// &[u32], k: u32, control: u32, status: Out<u64>, epoch: u32)`, a kernel
/// that calls `coop::device::top_k::select_words` with them.
pub type SelectParams<K> = (
    Slice<K>,
    OutSlice<K>,
    Slice<u32>,
    OutSlice<u32>,
    Value<u32>,
    Slice<u32>,
    Slice<u32>,
    Value<u32>,
    Value<u32>,
    OutSlice<u64>,
    Value<u32>,
);

/// Threads per block of a selection's launches, unless
/// [`TopK::with_block_threads`] says otherwise: 256.
///
/// ```
/// assert_eq!(coop_host::top_k::DEFAULT_BLOCK_THREADS, 256);
/// ```
pub const DEFAULT_BLOCK_THREADS: u32 = 256;

/// Most threads a block of a counting pass has, whatever
/// [`TopK::with_block_threads`] says (their registers allow no more).
const COUNT_THREADS: u32 = 256;

/// Which end of the keys a selection takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum End {
    Largest,
    Smallest,
}

/// What a selection carries beside the keys.
enum Carry<'v, 'o, V> {
    Nothing,
    Indices(Output<'o, u32>),
    Values(Input<'v, V>, Output<'o, V>),
}

/// Top-k selections on one device: the largest or smallest `k` keys
/// ([`largest`](Self::largest), [`smallest`](Self::smallest)), with their
/// indices ([`largest_with_indices`](Self::largest_with_indices)), or with
/// values ([`largest_pairs`](Self::largest_pairs)); `k` is the output's
/// length. See the [module docs](self). Each returns once the launches
/// are queued (on a GPU; [`synchronize`](Self::synchronize) waits for
/// them).
///
/// ```
/// use coop_host::{top_k::TopK, Device};
///
/// let top = TopK::new(&Device::cpu())?;
/// let keys: Vec<i64> = (0..10_000).map(|i| (i * 7919) % 10_007 - 5000).collect();
/// let mut low = vec![0i64; 4];
/// top.smallest(&keys, &mut low)?;
/// let mut expected = keys.clone();
/// expected.sort();
/// assert_eq!(low, expected[..4]);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct TopK {
    sorter: Sorter,
    state: Mutex<State>,
    threads: u32,
    ordered: bool,
}

/// What a selection keeps between calls.
#[derive(Default)]
struct State {
    /// The passes' digit counts.
    bins: Scratch,
    /// The passes' thresholds.
    thresholds: Scratch,
    /// The selection's tile status words.
    status: TileStatus,
    /// A few words on the device, the output of a selection that carries
    /// nothing.
    extra: Scratch,
}

impl std::fmt::Debug for TopK {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TopK")
            .field("device", &self.sorter.engine().describe())
            .field("threads", &self.threads)
            .field("ordered", &self.ordered)
            .finish()
    }
}

impl TopK {
    /// Loads the built-in top-k kernels (the sort family) on `device`.
    pub fn new(device: &Device) -> Result<TopK, Error> {
        Ok(TopK {
            sorter: Sorter::new(device)?,
            state: Mutex::default(),
            threads: DEFAULT_BLOCK_THREADS,
            ordered: true,
        })
    }

    /// The same selector, launching selections of `threads` threads a
    /// block (the counting passes take at most 256). Fails
    /// with [`Error::InvalidArgument`] unless `threads` is a multiple of
    /// 32 from 64 to 512, on either backend.
    ///
    /// ```
    /// use coop_host::{top_k::TopK, Device, Error};
    /// let top = TopK::new(&Device::cpu())?.with_block_threads(512)?;
    /// let mut two = [0u8; 2];
    /// top.largest(&[3u8, 1, 2][..], &mut two[..])?;
    /// assert_eq!(two, [3, 2]);
    /// let err = TopK::new(&Device::cpu())?.with_block_threads(100).unwrap_err();
    /// assert!(matches!(err, Error::InvalidArgument { .. }));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_block_threads(mut self, threads: u32) -> Result<Self, Error> {
        self.threads = block_threads("TopK::with_block_threads", threads, "a top-k's block")?;
        Ok(self)
    }

    /// The same selector, leaving the `k` results in their input order
    /// (the same keys, always in the same order for the same input),
    /// without the final sort.
    ///
    /// ```
    /// use coop_host::{top_k::TopK, Device};
    /// let top = TopK::new(&Device::cpu())?.unordered();
    /// let (mut keys, mut at) = ([0u32; 3], [0u32; 3]);
    /// top.largest_with_indices(&[4u32, 9, 1, 7, 4, 4][..], &mut keys[..], &mut at[..])?;
    /// assert_eq!((keys, at), ([4, 9, 7], [0, 1, 3]));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn unordered(mut self) -> Self {
        self.ordered = false;
        self
    }

    /// The same selector running the built-in kernels of `module` (a build
    /// of `coop-host-kernels`' sort family of your own) instead of the ones
    /// coop-host ships, for the selection and the final sort alike. Fails
    /// with [`Error::Unavailable`] on the CPU backend and when `module`
    /// was loaded on another GPU.
    pub fn with_module(mut self, module: crate::Module) -> Result<Self, Error> {
        self.sorter = self.sorter.with_module(module)?;
        Ok(self)
    }

    /// The largest `keys_out.len()` keys of `keys` to `keys_out`, largest
    /// first. Fails with [`Error::InvalidArgument`] when `keys_out` is
    /// longer than `keys`.
    pub fn largest<'a, 'b, K: BuiltinTopK>(
        &self,
        keys: impl Into<Input<'a, K>>,
        keys_out: impl Into<Output<'b, K>>,
    ) -> Result<(), Error> {
        self.run::<K, u32>(
            "TopK::largest",
            keys.into(),
            keys_out.into(),
            Carry::Nothing,
            End::Largest,
        )
    }

    /// The smallest `keys_out.len()` keys of `keys` to `keys_out`,
    /// smallest first.
    pub fn smallest<'a, 'b, K: BuiltinTopK>(
        &self,
        keys: impl Into<Input<'a, K>>,
        keys_out: impl Into<Output<'b, K>>,
    ) -> Result<(), Error> {
        self.run::<K, u32>(
            "TopK::smallest",
            keys.into(),
            keys_out.into(),
            Carry::Nothing,
            End::Smallest,
        )
    }

    /// [`largest`](Self::largest), with each key's index in `keys` to
    /// `indices_out` (as long as `keys_out`).
    pub fn largest_with_indices<'a, 'b, 'i, K: BuiltinTopK>(
        &self,
        keys: impl Into<Input<'a, K>>,
        keys_out: impl Into<Output<'b, K>>,
        indices_out: impl Into<Output<'i, u32>>,
    ) -> Result<(), Error> {
        self.run::<K, u32>(
            "TopK::largest_with_indices",
            keys.into(),
            keys_out.into(),
            Carry::Indices(indices_out.into()),
            End::Largest,
        )
    }

    /// [`smallest`](Self::smallest), with each key's index in `keys` to
    /// `indices_out` (as long as `keys_out`).
    pub fn smallest_with_indices<'a, 'b, 'i, K: BuiltinTopK>(
        &self,
        keys: impl Into<Input<'a, K>>,
        keys_out: impl Into<Output<'b, K>>,
        indices_out: impl Into<Output<'i, u32>>,
    ) -> Result<(), Error> {
        self.run::<K, u32>(
            "TopK::smallest_with_indices",
            keys.into(),
            keys_out.into(),
            Carry::Indices(indices_out.into()),
            End::Smallest,
        )
    }

    /// [`largest`](Self::largest), with `values[i]` (`values` as long as
    /// `keys`) going with `keys[i]` to `values_out` (as long as
    /// `keys_out`).
    ///
    /// ```
    /// use coop_host::{top_k::TopK, Device};
    /// let top = TopK::new(&Device::cpu())?;
    /// let (mut score, mut id) = ([0u16; 2], [0u64; 2]);
    /// top.largest_pairs(&[10u16, 40, 30][..], &[100u64, 400, 300][..], &mut score[..], &mut id[..])?;
    /// assert_eq!((score, id), ([40, 30], [400, 300]));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn largest_pairs<'a, 'v, 'b, 'o, K: BuiltinTopK, V: SortValue>(
        &self,
        keys: impl Into<Input<'a, K>>,
        values: impl Into<Input<'v, V>>,
        keys_out: impl Into<Output<'b, K>>,
        values_out: impl Into<Output<'o, V>>,
    ) -> Result<(), Error> {
        self.run::<K, V>(
            "TopK::largest_pairs",
            keys.into(),
            keys_out.into(),
            Carry::Values(values.into(), values_out.into()),
            End::Largest,
        )
    }

    /// [`smallest`](Self::smallest), with values carried along as in
    /// [`largest_pairs`](Self::largest_pairs).
    pub fn smallest_pairs<'a, 'v, 'b, 'o, K: BuiltinTopK, V: SortValue>(
        &self,
        keys: impl Into<Input<'a, K>>,
        values: impl Into<Input<'v, V>>,
        keys_out: impl Into<Output<'b, K>>,
        values_out: impl Into<Output<'o, V>>,
    ) -> Result<(), Error> {
        self.run::<K, V>(
            "TopK::smallest_pairs",
            keys.into(),
            keys_out.into(),
            Carry::Values(values.into(), values_out.into()),
            End::Smallest,
        )
    }

    /// Waits until the calls queued on a GPU are done (nothing to wait for
    /// on the CPU backend).
    pub fn synchronize(&self) -> Result<(), Error> {
        self.sorter.synchronize()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The selection: checks, a counting pass a digit, the selection, and
    /// the sort of the results.
    fn run<K: BuiltinTopK, V: SortValue>(
        &self,
        call: &'static str,
        keys: Input<'_, K>,
        mut keys_out: Output<'_, K>,
        mut carry: Carry<'_, '_, V>,
        end: End,
    ) -> Result<(), Error> {
        let len = keys.len();
        let k = keys_out.len();
        if len > u32::MAX as usize {
            return Err(Error::InvalidArgument {
                call,
                problem: format!("{len} keys: a top-k takes at most 2^32 - 1 keys"),
            });
        }
        if k > len {
            return Err(Error::InvalidArgument {
                call,
                problem: format!(
                    "`keys_out` holds {k} elements and `keys` {len}: k is the output's length, \
                     at most the number of keys"
                ),
            });
        }
        let mut on_gpu = vec![keys.on_gpu(), keys_out.on_gpu()];
        match &carry {
            Carry::Nothing => {}
            Carry::Indices(indices) => {
                if indices.len() != k {
                    return Err(Error::InvalidArgument {
                        call,
                        problem: format!(
                            "`indices_out` holds {} elements and `keys_out` {k}: an index a \
                             key taken",
                            indices.len()
                        ),
                    });
                }
                on_gpu.push(indices.on_gpu());
            }
            Carry::Values(values, values_out) => {
                if values.len() != len {
                    return Err(Error::InvalidArgument {
                        call,
                        problem: format!(
                            "`values` holds {} elements and `keys` {len}: a value a key",
                            values.len()
                        ),
                    });
                }
                if values_out.len() != k {
                    return Err(Error::InvalidArgument {
                        call,
                        problem: format!(
                            "`values_out` holds {} elements and `keys_out` {k}: a value a key \
                             taken",
                            values_out.len()
                        ),
                    });
                }
                on_gpu.push(values.on_gpu());
                on_gpu.push(values_out.on_gpu());
            }
        }
        let engine = self.sorter.engine();
        engine.check_arguments::<K::Select>(&on_gpu)?;
        if k == 0 {
            return Ok(());
        }
        let control = match end {
            End::Largest => LARGEST,
            End::Smallest => 0,
        };
        let launcher = engine.own();
        let threads = self.threads;
        {
            let mut state = self.lock();
            let State {
                bins,
                thresholds,
                status,
                extra,
            } = &mut *state;
            bins.reserve(engine, bins_len::<K>() * 4, 4096)?;
            // SAFETY: `u32` counts: any bits are a value.
            let mut every_bin = unsafe { bins.typed::<u32>() };
            let mut bins = every_bin.slice_mut(0..bins_len::<K>());
            engine.clear(&mut bins, "the top-k's digit counts")?;
            thresholds.reserve(engine, state_len::<K>() * 4, 256)?;
            // SAFETY: `u32` words, each written by a pass before the next
            // reads it.
            let mut every_word = unsafe { thresholds.typed::<u32>() };
            let mut words = every_word.slice_mut(0..state_len::<K>());
            // No more blocks of a counting pass than stretches of its keys,
            // nor than one wave.
            // Blocks of at most 256 threads: the counting kernels' registers
            // leave no room for 512 on a GPU.
            let count_threads = threads.min(COUNT_THREADS);
            let stretch = count_threads as usize * HISTOGRAM_ITEMS;
            let wave = engine.wave(launcher, K::COUNT, count_threads)?;
            let blocks = len.div_ceil(stretch).min(wave as usize).max(1) as u32;
            let config = LaunchConfig::new(blocks, count_threads)
                .with_shared_memory(count_shared_memory_bytes());
            for pass in 0..passes::<K>() {
                launcher.launch(
                    K::COUNT,
                    config,
                    (&keys, &mut bins, &mut words, k as u32, pass, control),
                )?;
            }
            let status_words = status_len::<K>(len, threads);
            let epoch = status.next_epoch(engine, status_words, "the top-k's tile states")?;
            let mut all = status.all();
            let mut status = all.slice_mut(0..status_words);
            let config = LaunchConfig::new(tiles::<K>(len, threads) as u32, threads)
                .with_shared_memory(SELECT_SHARED_MEMORY_BYTES);
            let (bins, words) = (bins.as_input(), words.as_input());
            let k = k as u32;
            // What the selection carries, as 32-bit words; an empty view
            // of the digit counts (on the same device) where it carries
            // nothing or reads nothing.
            let (values, mut values_out, what) = match &mut carry {
                Carry::Nothing => {
                    extra.reserve(engine, 16, 16)?;
                    // SAFETY: `u32` words, which a selection carrying
                    // nothing never reads or writes.
                    (
                        bins.slice(0..0),
                        unsafe { extra.typed::<u32>() },
                        CARRY_NOTHING,
                    )
                }
                Carry::Indices(indices) => (bins.slice(0..0), words_of(indices), CARRY_INDICES),
                Carry::Values(values, values_out) => {
                    let what = if std::mem::size_of::<V>() == 8 {
                        CARRY_TWO_WORDS
                    } else {
                        CARRY_ONE_WORD
                    };
                    (input_words_of(values), words_of(values_out), what)
                }
            };
            launcher.launch(
                K::SELECT,
                config,
                (
                    &keys,
                    &mut keys_out,
                    &values,
                    &mut values_out,
                    what,
                    &bins,
                    &words,
                    k,
                    control,
                    &mut status,
                    epoch,
                ),
            )?;
        }
        if !self.ordered || k == 1 {
            return Ok(());
        }
        let order = match end {
            End::Largest => crate::sort::Order::Descending,
            End::Smallest => crate::sort::Order::Ascending,
        };
        match carry {
            Carry::Nothing => self.sorter.sort_keys(call, keys_out, None, order),
            Carry::Indices(indices) => self.sorter.sort_pairs(call, keys_out, indices, None, order),
            Carry::Values(_, values_out) => self
                .sorter
                .sort_pairs(call, keys_out, values_out, None, order),
        }
    }
}

/// The largest `keys_out.len()` keys of `keys` to `keys_out` on `device`,
/// largest first (equal keys in their input order). See the [module
/// docs](self).
pub fn largest<'a, 'b, K: BuiltinTopK>(
    device: &Device,
    keys: impl Into<Input<'a, K>>,
    keys_out: impl Into<Output<'b, K>>,
) -> Result<(), Error> {
    TopK::new(device)?.run::<K, u32>(
        "top_k::largest",
        keys.into(),
        keys_out.into(),
        Carry::Nothing,
        End::Largest,
    )
}

/// The smallest `keys_out.len()` keys of `keys` to `keys_out` on
/// `device`, smallest first.
///
/// ```
/// use coop_host::{top_k, Device};
/// let device = Device::cpu();
/// let mut low = [0i32; 3];
/// top_k::smallest(&device, &[5i32, -7, 3, -7, 0][..], &mut low[..])?;
/// assert_eq!(low, [-7, -7, 0]);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub fn smallest<'a, 'b, K: BuiltinTopK>(
    device: &Device,
    keys: impl Into<Input<'a, K>>,
    keys_out: impl Into<Output<'b, K>>,
) -> Result<(), Error> {
    TopK::new(device)?.run::<K, u32>(
        "top_k::smallest",
        keys.into(),
        keys_out.into(),
        Carry::Nothing,
        End::Smallest,
    )
}

/// [`largest`], with each key's index in `keys` to `indices_out` (as long
/// as `keys_out`).
pub fn largest_with_indices<'a, 'b, 'i, K: BuiltinTopK>(
    device: &Device,
    keys: impl Into<Input<'a, K>>,
    keys_out: impl Into<Output<'b, K>>,
    indices_out: impl Into<Output<'i, u32>>,
) -> Result<(), Error> {
    TopK::new(device)?.run::<K, u32>(
        "top_k::largest_with_indices",
        keys.into(),
        keys_out.into(),
        Carry::Indices(indices_out.into()),
        End::Largest,
    )
}

/// [`smallest`], with each key's index in `keys` to `indices_out` (as
/// long as `keys_out`).
pub fn smallest_with_indices<'a, 'b, 'i, K: BuiltinTopK>(
    device: &Device,
    keys: impl Into<Input<'a, K>>,
    keys_out: impl Into<Output<'b, K>>,
    indices_out: impl Into<Output<'i, u32>>,
) -> Result<(), Error> {
    TopK::new(device)?.run::<K, u32>(
        "top_k::smallest_with_indices",
        keys.into(),
        keys_out.into(),
        Carry::Indices(indices_out.into()),
        End::Smallest,
    )
}

/// `values` (numbers of 4 or 8 bytes) as their 32-bit words.
fn words_of<'a, V: DeviceCopy>(values: &'a mut Output<'_, V>) -> Output<'a, u32> {
    let len = values.len() * std::mem::size_of::<V>() / 4;
    match values {
        Output::Gpu(view) => {
            // SAFETY: the values are plain numbers of whole 32-bit words,
            // aligned to 4 bytes at least; the words are only moved.
            Output::Gpu(unsafe { view.transmute_mut::<u32>(len) }.expect("whole words"))
        }
        // SAFETY: as above: `len` words at the values' address, borrowed
        // mutably for the view's lifetime.
        Output::Cpu(slice) => Output::Cpu(unsafe {
            std::slice::from_raw_parts_mut(slice.as_mut_ptr() as *mut u32, len)
        }),
    }
}

/// `values` (numbers of 4 or 8 bytes) as their 32-bit words, to read.
fn input_words_of<'a, V: DeviceCopy>(values: &'a Input<'_, V>) -> Input<'a, u32> {
    let len = values.len() * std::mem::size_of::<V>() / 4;
    match values {
        // SAFETY: as in `words_of`.
        Input::Gpu(view) => Input::Gpu(unsafe { view.transmute::<u32>(len) }.expect("whole words")),
        Input::Cpu(slice) => {
            // SAFETY: as in `words_of`.
            let words = unsafe { std::slice::from_raw_parts(slice.as_ptr() as *const u32, len) };
            Input::Cpu(words)
        }
    }
}
