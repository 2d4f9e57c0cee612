//! The built-in sort kernels: the tables from key type to its kernels in
//! `coop-host-kernels`, and from value type to the 4- or 8-byte words its
//! values move as.

use super::{HistogramParams, KeysParams, PairsParams, SegmentedKeysParams, SegmentedPairsParams};
use coop::device::radix_sort::RadixKey;
use coop::{DeviceCopy, Kernel};

/// A key type with built-in sorts: `u8`, `i8`, `u16`, `i16`, `u32`, `i32`,
/// `f32`, `u64`, `i64` and `f64`.
#[diagnostic::on_unimplemented(
    message = "coop-host has no built-in sort of `{Self}` keys",
    note = "the built-in sorts take keys of u8, i8, u16, i16, u32, i32, f32, u64, i64 and f64; sort other types by a key of one of these derived from them, with the elements' indices as values (`Sorter::pairs`)"
)]
pub trait BuiltinSort: DeviceCopy + RadixKey {
    /// The digit counts of every pass (`coop::device::radix_sort::histogram`).
    type Histogram: Kernel<Params = HistogramParams<Self>>;
    /// Its descriptor.
    const HISTOGRAM: Self::Histogram;
    /// A pass over keys (`coop::device::radix_sort::onesweep_keys`).
    type Keys: Kernel<Params = KeysParams<Self>>;
    /// Its descriptor.
    const KEYS: Self::Keys;
    /// A pass over keys with 4-byte values
    /// (`coop::device::radix_sort::onesweep_pairs`).
    type Pairs32: Kernel<Params = PairsParams<Self, u32>>;
    /// Its descriptor.
    const PAIRS32: Self::Pairs32;
    /// A pass over keys with 8-byte values.
    type Pairs64: Kernel<Params = PairsParams<Self, u64>>;
    /// Its descriptor.
    const PAIRS64: Self::Pairs64;
    /// A phase of a segmented sort of keys, given as their bits (one kernel
    /// a key width: `coop::device::segmented_sort::segmented_sort_words`).
    type SegmentedKeys: Kernel<Params = SegmentedKeysParams<Self::Bits>>;
    /// Its descriptor.
    const SEGMENTED_KEYS: Self::SegmentedKeys;
    /// A phase of a segmented sort of keys with 4-byte values.
    type SegmentedPairs32: Kernel<Params = SegmentedPairsParams<Self::Bits, u32>>;
    /// Its descriptor.
    const SEGMENTED_PAIRS32: Self::SegmentedPairs32;
    /// A phase of a segmented sort of keys with 8-byte values.
    type SegmentedPairs64: Kernel<Params = SegmentedPairsParams<Self::Bits, u64>>;
    /// Its descriptor.
    const SEGMENTED_PAIRS64: Self::SegmentedPairs64;
    /// The radix route's phase of a segmented sort of keys
    /// (`coop::device::segmented_sort::RADIX`), a kernel of its own.
    type SegmentedRadixKeys: Kernel<Params = SegmentedKeysParams<Self::Bits>>;
    /// Its descriptor.
    const SEGMENTED_RADIX_KEYS: Self::SegmentedRadixKeys;
    /// The radix route's phase with 4-byte values.
    type SegmentedRadixPairs32: Kernel<Params = SegmentedPairsParams<Self::Bits, u32>>;
    /// Its descriptor.
    const SEGMENTED_RADIX_PAIRS32: Self::SegmentedRadixPairs32;
    /// The radix route's phase with 8-byte values.
    type SegmentedRadixPairs64: Kernel<Params = SegmentedPairsParams<Self::Bits, u64>>;
    /// Its descriptor.
    const SEGMENTED_RADIX_PAIRS64: Self::SegmentedRadixPairs64;
}

macro_rules! builtins {
    ($($k:ty => $histogram:ident, $keys:ident, $pairs32:ident, $pairs64:ident,
        $skeys:ident, $spairs32:ident, $spairs64:ident,
        $rkeys:ident, $rpairs32:ident, $rpairs64:ident;)*) => {$(
        impl BuiltinSort for $k {
            type Histogram = coop_host_kernels::$histogram;
            const HISTOGRAM: Self::Histogram = coop_host_kernels::$histogram;
            type Keys = coop_host_kernels::$keys;
            const KEYS: Self::Keys = coop_host_kernels::$keys;
            type Pairs32 = coop_host_kernels::$pairs32;
            const PAIRS32: Self::Pairs32 = coop_host_kernels::$pairs32;
            type Pairs64 = coop_host_kernels::$pairs64;
            const PAIRS64: Self::Pairs64 = coop_host_kernels::$pairs64;
            type SegmentedKeys = coop_host_kernels::$skeys;
            const SEGMENTED_KEYS: Self::SegmentedKeys = coop_host_kernels::$skeys;
            type SegmentedPairs32 = coop_host_kernels::$spairs32;
            const SEGMENTED_PAIRS32: Self::SegmentedPairs32 = coop_host_kernels::$spairs32;
            type SegmentedPairs64 = coop_host_kernels::$spairs64;
            const SEGMENTED_PAIRS64: Self::SegmentedPairs64 = coop_host_kernels::$spairs64;
            type SegmentedRadixKeys = coop_host_kernels::$rkeys;
            const SEGMENTED_RADIX_KEYS: Self::SegmentedRadixKeys = coop_host_kernels::$rkeys;
            type SegmentedRadixPairs32 = coop_host_kernels::$rpairs32;
            const SEGMENTED_RADIX_PAIRS32: Self::SegmentedRadixPairs32 =
                coop_host_kernels::$rpairs32;
            type SegmentedRadixPairs64 = coop_host_kernels::$rpairs64;
            const SEGMENTED_RADIX_PAIRS64: Self::SegmentedRadixPairs64 =
                coop_host_kernels::$rpairs64;
        }
    )*};
}

builtins! {
    u8 => sort_histogram_u8, sort_keys_u8, sort_pairs_u8_b32, sort_pairs_u8_b64,
        segmented_sort_keys_k8, segmented_sort_pairs_k8_v32, segmented_sort_pairs_k8_v64,
        segmented_radix_keys_k8, segmented_radix_pairs_k8_v32, segmented_radix_pairs_k8_v64;
    i8 => sort_histogram_i8, sort_keys_i8, sort_pairs_i8_b32, sort_pairs_i8_b64,
        segmented_sort_keys_k8, segmented_sort_pairs_k8_v32, segmented_sort_pairs_k8_v64,
        segmented_radix_keys_k8, segmented_radix_pairs_k8_v32, segmented_radix_pairs_k8_v64;
    u16 => sort_histogram_u16, sort_keys_u16, sort_pairs_u16_b32, sort_pairs_u16_b64,
        segmented_sort_keys_k16, segmented_sort_pairs_k16_v32, segmented_sort_pairs_k16_v64,
        segmented_radix_keys_k16, segmented_radix_pairs_k16_v32, segmented_radix_pairs_k16_v64;
    i16 => sort_histogram_i16, sort_keys_i16, sort_pairs_i16_b32, sort_pairs_i16_b64,
        segmented_sort_keys_k16, segmented_sort_pairs_k16_v32, segmented_sort_pairs_k16_v64,
        segmented_radix_keys_k16, segmented_radix_pairs_k16_v32, segmented_radix_pairs_k16_v64;
    u32 => sort_histogram_u32, sort_keys_u32, sort_pairs_u32_b32, sort_pairs_u32_b64,
        segmented_sort_keys_k32, segmented_sort_pairs_k32_v32, segmented_sort_pairs_k32_v64,
        segmented_radix_keys_k32, segmented_radix_pairs_k32_v32, segmented_radix_pairs_k32_v64;
    i32 => sort_histogram_i32, sort_keys_i32, sort_pairs_i32_b32, sort_pairs_i32_b64,
        segmented_sort_keys_k32, segmented_sort_pairs_k32_v32, segmented_sort_pairs_k32_v64,
        segmented_radix_keys_k32, segmented_radix_pairs_k32_v32, segmented_radix_pairs_k32_v64;
    f32 => sort_histogram_f32, sort_keys_f32, sort_pairs_f32_b32, sort_pairs_f32_b64,
        segmented_sort_keys_k32, segmented_sort_pairs_k32_v32, segmented_sort_pairs_k32_v64,
        segmented_radix_keys_k32, segmented_radix_pairs_k32_v32, segmented_radix_pairs_k32_v64;
    u64 => sort_histogram_u64, sort_keys_u64, sort_pairs_u64_b32, sort_pairs_u64_b64,
        segmented_sort_keys_k64, segmented_sort_pairs_k64_v32, segmented_sort_pairs_k64_v64,
        segmented_radix_keys_k64, segmented_radix_pairs_k64_v32, segmented_radix_pairs_k64_v64;
    i64 => sort_histogram_i64, sort_keys_i64, sort_pairs_i64_b32, sort_pairs_i64_b64,
        segmented_sort_keys_k64, segmented_sort_pairs_k64_v32, segmented_sort_pairs_k64_v64,
        segmented_radix_keys_k64, segmented_radix_pairs_k64_v32, segmented_radix_pairs_k64_v64;
    f64 => sort_histogram_f64, sort_keys_f64, sort_pairs_f64_b32, sort_pairs_f64_b64,
        segmented_sort_keys_k64, segmented_sort_pairs_k64_v32, segmented_sort_pairs_k64_v64,
        segmented_radix_keys_k64, segmented_radix_pairs_k64_v32, segmented_radix_pairs_k64_v64;
}

mod sealed {
    pub trait Sealed {}
}

/// A value type the built-in sorts carry along with the keys: `u32`,
/// `i32`, `f32` (moved as 4-byte words) and `u64`, `i64`, `f64` (as 8-byte
/// words). A sort only moves values, so their type is only their size.
#[diagnostic::on_unimplemented(
    message = "coop-host's sorts do not carry values of `{Self}`",
    note = "the built-in sorts carry values of u32, i32, f32, u64, i64 and f64; carry an index (u32 or u64) into your own values and gather them after the sort"
)]
pub trait SortValue: DeviceCopy + sealed::Sealed {
    /// The word it moves as: `u32` or `u64`, of its size.
    type Word: super::Word + DeviceCopy;
}

macro_rules! values {
    ($($v:ty => $word:ty;)*) => {$(
        impl sealed::Sealed for $v {}
        impl SortValue for $v {
            type Word = $word;
        }
    )*};
}

values! {
    u32 => u32;
    i32 => u32;
    f32 => u32;
    u64 => u64;
    i64 => u64;
    f64 => u64;
}
