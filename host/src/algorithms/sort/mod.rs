//! Device-wide radix sort from the host: keys, or keys with values
//! carried along, sorted in place in ascending or descending order,
//! stable (equal keys keep their order), on a GPU or on the CPU backend
//! (CUB's `DeviceRadixSort`).
//!
//! ```
//! use coop_host::{sort, Device};
//!
//! let device = Device::cpu(); // or Device::gpu_or_cpu()
//! let mut keys = device.upload(&[5u32, 1, 4, 1, 3])?;
//! sort::keys(&device, &mut keys)?;
//! assert_eq!(device.download(&keys)?, [1, 1, 3, 4, 5]);
//!
//! // Scores with the players they belong to, highest first.
//! let mut scores = device.upload(&[7.5f32, 9.0, -1.0, 9.0])?;
//! let mut players = device.upload(&[0u32, 1, 2, 3])?;
//! sort::pairs_descending(&device, &mut scores, &mut players)?;
//! assert_eq!(device.download(&scores)?, [9.0, 9.0, 7.5, -1.0]);
//! assert_eq!(device.download(&players)?, [1, 3, 0, 2]); // ties in input order
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! Keys are integers of 8 to 64 bits and floats ([`BuiltinSort`]);
//! floats sort by value with `-0.0` equal to `0.0`, NaNs by their bits
//! (after `+inf`, or before `-inf` with the sign bit set). Values are
//! 4- or 8-byte numbers ([`SortValue`]); to sort records, sort their keys
//! with their indices and gather. [`Sorter::keys_by_bits`] and
//! [`Sorter::pairs_by_bits`] sort by a range of the keys' bits only (for
//! keys known to be small, fewer passes).
//!
//! A sort makes one pass of digit counting over the keys, then one pass
//! a byte of the keys that moves each key (and value) once, through a
//! second buffer as long as the keys that the [`Sorter`] keeps between
//! calls (`coop::device::radix_sort` describes the kernels). Sorts take
//! at most `2^32 - 1` keys.
//!
//! [`segmented_keys`] and [`segmented_pairs`] (and [`SegmentedSorter`])
//! sort each segment of a buffer on its own, the segments given by
//! offsets as for the segmented reductions: many small segments (the rows
//! of a sparse matrix, each query's hits) or a few long ones, in one call.

mod builtin;
mod segmented;
mod sorter;

pub use builtin::{BuiltinSort, SortValue};
pub use segmented::{LongSegments, SegmentedSorter, SEGMENTED_BLOCK_THREADS};
pub use sorter::Sorter;

use crate::{Device, Error, Input, LaunchConfig, Launcher, Output};
use coop::device::segmented::Offset;
use coop::kernel::params::{OutSlice, Slice, Value};
use coop::{DeviceCopy, Shuffle};

/// The order of a sort.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// Smallest key first.
    Ascending,
    /// Largest key first (equal keys still in their input order).
    Descending,
}

/// Threads per block of a sort's passes, unless
/// [`Sorter::with_block_threads`] says otherwise: 256.
///
/// ```
/// assert_eq!(coop_host::sort::DEFAULT_BLOCK_THREADS, 256);
/// ```
pub const DEFAULT_BLOCK_THREADS: u32 = 256;

/// The parameters of the digit-counting kernel: `(keys: &[K], bins:
/// Out<u32>, begin_bit: u32, end_bit: u32, control: u32)`, a kernel that
/// calls `coop::device::radix_sort::histogram` with them.
pub type HistogramParams<K> = (Slice<K>, OutSlice<u32>, Value<u32>, Value<u32>, Value<u32>);

/// The parameters of a pass over keys: `(keys: &[K], keys_out: Out<K>,
/// bins: &[u32], status: Out<u64>, begin_bit: u32, end_bit: u32, pass:
/// u32, control: u32, epoch: u32)`, a kernel that calls
/// `coop::device::radix_sort::onesweep_keys` with them.
pub type KeysParams<K> = (
    Slice<K>,
    OutSlice<K>,
    Slice<u32>,
    OutSlice<u64>,
    Value<u32>,
    Value<u32>,
    Value<u32>,
    Value<u32>,
    Value<u32>,
);

/// The parameters of a pass over keys and values: as [`KeysParams`] with
/// `values: &[V], values_out: Out<V>` after `keys_out`, a kernel that
/// calls `coop::device::radix_sort::onesweep_pairs` with them.
pub type PairsParams<K, V> = (
    Slice<K>,
    OutSlice<K>,
    Slice<V>,
    OutSlice<V>,
    Slice<u32>,
    OutSlice<u64>,
    Value<u32>,
    Value<u32>,
    Value<u32>,
    Value<u32>,
    Value<u32>,
);

/// The parameters of a phase of a segmented sort of keys: `(keys:
/// InOut<K>, keys_alt: InOut<K>, offsets: &[u32], wide: u32, phase: u32,
/// control: u32, work: Out<u64>)`, offsets as `u32` words (two a `u64`
/// offset when `wide` is 1), a kernel that calls
/// `coop::device::segmented_sort::segmented_sort_view` with them.
pub type SegmentedKeysParams<K> = (
    OutSlice<K>,
    OutSlice<K>,
    Slice<u32>,
    Value<u32>,
    Value<u32>,
    Value<u32>,
    OutSlice<u64>,
);

/// The parameters of a phase of a segmented sort of keys and values: as
/// [`SegmentedKeysParams`] with `values: InOut<V>, values_alt: InOut<V>`
/// after `keys_alt`.
pub type SegmentedPairsParams<K, V> = (
    OutSlice<K>,
    OutSlice<K>,
    OutSlice<V>,
    OutSlice<V>,
    Slice<u32>,
    Value<u32>,
    Value<u32>,
    Value<u32>,
    OutSlice<u64>,
);

/// What a pass's launch takes besides the keys and values.
pub(crate) struct Pass<'a, 'b, 's> {
    pub(crate) launcher: Launcher<'a>,
    pub(crate) config: LaunchConfig,
    pub(crate) bins: Input<'b, u32>,
    pub(crate) status: Output<'s, u64>,
    /// `begin_bit`, `end_bit`, `pass`, `control`, `epoch`.
    pub(crate) numbers: [u32; 5],
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for () {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// What a pass carries besides the keys: nothing (`()`), or values moved
/// as `u32` or `u64` words. Sealed: its methods take coop-host's own
/// types, which nothing outside it can make.
#[doc(hidden)]
#[allow(private_interfaces)]
pub trait Word: Shuffle + sealed::Sealed + Sized {
    /// Launches the pass of `K` for this payload.
    fn launch_pass<K: BuiltinSort>(
        keys: &Input<'_, K>,
        keys_out: &mut Output<'_, K>,
        values: Option<(&Input<'_, Self>, &mut Output<'_, Self>)>,
        pass: Pass<'_, '_, '_>,
    ) -> Result<(), Error>;

    /// Copies the values `from` into `to` (nothing for `()`).
    fn copy(
        engine: &crate::algorithms::engine::Engine,
        from: &Input<'_, Self>,
        to: &mut Output<'_, Self>,
    ) -> Result<(), Error>;

    /// Launches a phase of the segmented sort of `K` for this payload:
    /// `numbers` are `wide`, `phase` and `control` (the radix route's
    /// phase in its own kernel).
    #[allow(clippy::too_many_arguments)]
    fn launch_segmented<K: BuiltinSort>(
        launcher: Launcher<'_>,
        config: LaunchConfig,
        keys: &mut Output<'_, K::Bits>,
        keys_alt: &mut Output<'_, K::Bits>,
        values: Option<(&mut Output<'_, Self>, &mut Output<'_, Self>)>,
        offsets: &Input<'_, u32>,
        numbers: [u32; 3],
        work: &mut Output<'_, u64>,
    ) -> Result<(), Error>;
}

#[allow(private_interfaces)]
impl Word for () {
    fn copy(
        _: &crate::algorithms::engine::Engine,
        _: &Input<'_, ()>,
        _: &mut Output<'_, ()>,
    ) -> Result<(), Error> {
        Ok(())
    }

    fn launch_segmented<K: BuiltinSort>(
        launcher: Launcher<'_>,
        config: LaunchConfig,
        keys: &mut Output<'_, K::Bits>,
        keys_alt: &mut Output<'_, K::Bits>,
        _: Option<(&mut Output<'_, ()>, &mut Output<'_, ()>)>,
        offsets: &Input<'_, u32>,
        [wide, phase, control]: [u32; 3],
        work: &mut Output<'_, u64>,
    ) -> Result<(), Error> {
        let args = (keys, keys_alt, offsets, wide, phase, control, work);
        if phase == coop::device::segmented_sort::RADIX {
            launcher.launch(K::SEGMENTED_RADIX_KEYS, config, args)
        } else {
            launcher.launch(K::SEGMENTED_KEYS, config, args)
        }
    }

    fn launch_pass<K: BuiltinSort>(
        keys: &Input<'_, K>,
        keys_out: &mut Output<'_, K>,
        _: Option<(&Input<'_, ()>, &mut Output<'_, ()>)>,
        mut p: Pass<'_, '_, '_>,
    ) -> Result<(), Error> {
        let [b, e, pass, control, epoch] = p.numbers;
        p.launcher.launch(
            K::KEYS,
            p.config,
            (
                keys,
                keys_out,
                &p.bins,
                &mut p.status,
                b,
                e,
                pass,
                control,
                epoch,
            ),
        )
    }
}

macro_rules! words {
    ($($w:ty => $kernel:ident, $segmented:ident, $radix:ident;)*) => {$(
        #[allow(private_interfaces)]
        impl Word for $w {
            fn copy(
                engine: &crate::algorithms::engine::Engine,
                from: &Input<'_, $w>,
                to: &mut Output<'_, $w>,
            ) -> Result<(), Error> {
                engine.copy(from, to, "the sorted values")
            }

            fn launch_segmented<K: BuiltinSort>(
                launcher: Launcher<'_>,
                config: LaunchConfig,
                keys: &mut Output<'_, K::Bits>,
                keys_alt: &mut Output<'_, K::Bits>,
                values: Option<(&mut Output<'_, $w>, &mut Output<'_, $w>)>,
                offsets: &Input<'_, u32>,
                [wide, phase, control]: [u32; 3],
                work: &mut Output<'_, u64>,
            ) -> Result<(), Error> {
                let Some((values, values_alt)) = values else {
                    return Err(Error::InvalidArgument {
                        call: "SegmentedSorter",
                        problem: "a sort of keys and values was given no values".into(),
                    });
                };
                let args =
                    (keys, keys_alt, values, values_alt, offsets, wide, phase, control, work);
                if phase == coop::device::segmented_sort::RADIX {
                    launcher.launch(K::$radix, config, args)
                } else {
                    launcher.launch(K::$segmented, config, args)
                }
            }

            fn launch_pass<K: BuiltinSort>(
                keys: &Input<'_, K>,
                keys_out: &mut Output<'_, K>,
                values: Option<(&Input<'_, $w>, &mut Output<'_, $w>)>,
                mut p: Pass<'_, '_, '_>,
            ) -> Result<(), Error> {
                let [b, e, pass, control, epoch] = p.numbers;
                let Some((values, values_out)) = values else {
                    return Err(Error::InvalidArgument {
                        call: "Sorter",
                        problem: "a pass over keys and values was given no values".into(),
                    });
                };
                p.launcher.launch(
                    K::$kernel,
                    p.config,
                    (
                        keys, keys_out, values, values_out, &p.bins, &mut p.status, b, e, pass,
                        control, epoch,
                    ),
                )
            }
        }
    )*};
}

words! {
    u32 => PAIRS32, SEGMENTED_PAIRS32, SEGMENTED_RADIX_PAIRS32;
    u64 => PAIRS64, SEGMENTED_PAIRS64, SEGMENTED_RADIX_PAIRS64;
}

/// Sorts `keys` in place in ascending order on `device`. See the [module
/// docs](self).
pub fn keys<'k, K: BuiltinSort>(
    device: &Device,
    keys: impl Into<Output<'k, K>>,
) -> Result<(), Error> {
    Sorter::new(device)?.sort_keys("sort::keys", keys.into(), None, Order::Ascending)
}

/// Sorts `keys` in place in descending order on `device`, equal keys in
/// their input order.
pub fn keys_descending<'k, K: BuiltinSort>(
    device: &Device,
    keys: impl Into<Output<'k, K>>,
) -> Result<(), Error> {
    Sorter::new(device)?.sort_keys(
        "sort::keys_descending",
        keys.into(),
        None,
        Order::Descending,
    )
}

/// Sorts `keys` in place in ascending order on `device`, `values[i]`
/// moving with `keys[i]` (`values` as long as `keys`).
pub fn pairs<'k, 'v, K: BuiltinSort, V: SortValue>(
    device: &Device,
    keys: impl Into<Output<'k, K>>,
    values: impl Into<Output<'v, V>>,
) -> Result<(), Error> {
    Sorter::new(device)?.sort_pairs(
        "sort::pairs",
        keys.into(),
        values.into(),
        None,
        Order::Ascending,
    )
}

/// [`pairs`] in descending order of the keys.
pub fn pairs_descending<'k, 'v, K: BuiltinSort, V: SortValue>(
    device: &Device,
    keys: impl Into<Output<'k, K>>,
    values: impl Into<Output<'v, V>>,
) -> Result<(), Error> {
    Sorter::new(device)?.sort_pairs(
        "sort::pairs_descending",
        keys.into(),
        values.into(),
        None,
        Order::Descending,
    )
}

/// Sorts each segment of `keys` in place, smallest first, on `device`
/// (CUB's `DeviceSegmentedSort::SortKeys`). Segment `s` is
/// `keys[offsets[s]..offsets[s + 1]]`: `offsets` (`u32` or `u64`, `n + 1`
/// of them for `n` segments) never decrease and end at most at
/// `keys.len()`; keys outside every segment stay as they are. Each segment
/// is sorted stably, equal keys in their input order, keys compared as
/// [`keys`] compares them.
///
/// Segments of any length go in one call, each sorted by the strategy its
/// length calls for: up to 8 keys by one thread, up to a warp's tile (256
/// keys) by a warp, up to a block's tile (2048) by a block, and
/// longer ones by blocks that sort their tiles, then merge them pairwise
/// through a second buffer as long as the keys, which the call keeps
/// (`coop::device::segmented_sort` describes the phases). The call reads
/// a few words back from the device after its first launch, so it waits
/// for the launches queued before it. Offsets out of order fail with
/// [`Error::InvalidArgument`] naming the first segment at fault, before
/// anything is sorted.
///
/// ```
/// use coop_host::{sort, Device};
///
/// let device = Device::cpu(); // or Device::gpu_or_cpu()
/// // The columns of each row of a sparse matrix, in order.
/// let mut columns = device.upload(&[7u32, 2, 5, 9, 0, 3, 1])?;
/// let rows = device.upload(&[0u32, 3, 3, 7])?; // [7, 2, 5], [], [9, 0, 3, 1]
/// sort::segmented_keys(&device, &mut columns, &rows)?;
/// assert_eq!(device.download(&columns)?, [2, 5, 7, 0, 1, 3, 9]);
///
/// let bad = device.upload(&[0u32, 5, 3])?; // segment 1 runs backwards
/// let err = sort::segmented_keys(&device, &mut columns, &bad).unwrap_err();
/// assert!(err.to_string().contains("segment 1"), "{err}");
/// # Ok::<(), coop_host::Error>(())
/// ```
pub fn segmented_keys<'k, 'o, K: BuiltinSort, Off: Offset + DeviceCopy>(
    device: &Device,
    keys: impl Into<Output<'k, K>>,
    offsets: impl Into<Input<'o, Off>>,
) -> Result<(), Error> {
    SegmentedSorter::new(device)?.sort_keys(
        "sort::segmented_keys",
        keys.into(),
        offsets.into(),
        Order::Ascending,
    )
}

/// [`segmented_keys`] largest first, equal keys in their input order.
pub fn segmented_keys_descending<'k, 'o, K: BuiltinSort, Off: Offset + DeviceCopy>(
    device: &Device,
    keys: impl Into<Output<'k, K>>,
    offsets: impl Into<Input<'o, Off>>,
) -> Result<(), Error> {
    SegmentedSorter::new(device)?.sort_keys(
        "sort::segmented_keys_descending",
        keys.into(),
        offsets.into(),
        Order::Descending,
    )
}

/// [`segmented_keys`] with `values[i]` moving with `keys[i]` (`values` as
/// long as `keys`; CUB's `DeviceSegmentedSort::SortPairs`).
///
/// ```
/// use coop_host::{sort, Device};
///
/// let device = Device::cpu(); // or Device::gpu_or_cpu()
/// // Each query's hits by distance, with the documents they point to.
/// let mut distance = device.upload(&[0.5f32, 0.25, 0.75, 0.1, 0.1])?;
/// let mut document = device.upload(&[10u64, 11, 12, 20, 21])?;
/// let queries = device.upload(&[0u64, 3, 5])?;
/// sort::segmented_pairs(&device, &mut distance, &mut document, &queries)?;
/// assert_eq!(device.download(&distance)?, [0.25, 0.5, 0.75, 0.1, 0.1]);
/// assert_eq!(device.download(&document)?, [11, 10, 12, 20, 21]);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub fn segmented_pairs<'k, 'v, 'o, K: BuiltinSort, V: SortValue, Off: Offset + DeviceCopy>(
    device: &Device,
    keys: impl Into<Output<'k, K>>,
    values: impl Into<Output<'v, V>>,
    offsets: impl Into<Input<'o, Off>>,
) -> Result<(), Error> {
    SegmentedSorter::new(device)?.sort_pairs(
        "sort::segmented_pairs",
        keys.into(),
        values.into(),
        offsets.into(),
        Order::Ascending,
    )
}

/// [`segmented_pairs`] in descending order of the keys.
pub fn segmented_pairs_descending<
    'k,
    'v,
    'o,
    K: BuiltinSort,
    V: SortValue,
    Off: Offset + DeviceCopy,
>(
    device: &Device,
    keys: impl Into<Output<'k, K>>,
    values: impl Into<Output<'v, V>>,
    offsets: impl Into<Input<'o, Off>>,
) -> Result<(), Error> {
    SegmentedSorter::new(device)?.sort_pairs(
        "sort::segmented_pairs_descending",
        keys.into(),
        values.into(),
        offsets.into(),
        Order::Descending,
    )
}

/// `keys` as the unsigned integers of their width (their bits), which the
/// segmented sorts' kernels take.
pub(crate) fn as_bits<'a, K: BuiltinSort>(keys: &'a mut Output<'_, K>) -> Output<'a, K::Bits> {
    // SAFETY: a key is a plain number of its bits' size and alignment, and
    // any bits are a key.
    unsafe { keys.reinterpret_mut::<K::Bits>() }
}

/// `values` as the words of its size, to move.
pub(crate) fn as_words<'a, V: SortValue>(values: &'a mut Output<'_, V>) -> Output<'a, V::Word> {
    // SAFETY: a `SortValue` is a plain number of its word's size and
    // alignment; the words are only moved, never read as numbers.
    unsafe { values.reinterpret_mut::<V::Word>() }
}
