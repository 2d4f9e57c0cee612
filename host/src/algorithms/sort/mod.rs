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

mod builtin;
mod sorter;

pub use builtin::{BuiltinSort, SortValue};
pub use sorter::Sorter;

use crate::{Device, Error, Input, LaunchConfig, Launcher, Output};
use coop::kernel::params::{OutSlice, Slice, Value};
use coop::Shuffle;

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
    ($($w:ty => $kernel:ident;)*) => {$(
        #[allow(private_interfaces)]
        impl Word for $w {
            fn copy(
                engine: &crate::algorithms::engine::Engine,
                from: &Input<'_, $w>,
                to: &mut Output<'_, $w>,
            ) -> Result<(), Error> {
                engine.copy(from, to, "the sorted values")
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
    u32 => PAIRS32;
    u64 => PAIRS64;
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

/// `values` as the words of its size, to move.
pub(crate) fn as_words<'a, V: SortValue>(values: &'a mut Output<'_, V>) -> Output<'a, V::Word> {
    let len = values.len();
    match values {
        Output::Gpu(view) => {
            // SAFETY: a `SortValue` is a plain number of its word's size
            // and alignment; the words are only moved, never read as
            // numbers.
            let words = unsafe { view.transmute_mut::<V::Word>(len) };
            Output::Gpu(words.expect("a value is one word"))
        }
        // SAFETY: as above: `len` words at the values' address, borrowed
        // mutably for the view's lifetime.
        Output::Cpu(slice) => Output::Cpu(unsafe {
            std::slice::from_raw_parts_mut(slice.as_mut_ptr() as *mut V::Word, len)
        }),
    }
}
