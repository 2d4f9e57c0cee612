//! The built-in kernels over runs of equal keys: the tables from key and
//! value types to their kernels in `coop-host-kernels`.

use super::{EncodeParams, Params, ScanParams};
use coop::{DeviceCopy, Kernel, Shuffle};

/// Key and value types with a built-in sum by key: keys of `u32`, `i32`,
/// `u64` and `i64`, values of `f32`, `f64`, `i32`, `u32`, `i64` and `u64`.
#[diagnostic::on_unimplemented(
    message = "coop-host has no built-in sum by key of `{V}` values under `{Self}` keys",
    note = "the built-in sums by key take keys of u32, i32, u64 or i64 and values of f32, f64, i32, u32, i64 or u64; for other types or operators write a kernel that calls `coop::device::runs::reduce_by_key` and run it with `RunReducer::reduce_by_key_with`"
)]
pub trait BuiltinSumByKey<V: DeviceCopy + Shuffle>: DeviceCopy + Shuffle {
    /// The kernel (`coop::device::runs::reduce_by_key` with `Sum`).
    type Kernel: Kernel<Params = Params<Self, V>>;
    /// Its descriptor.
    const KERNEL: Self::Kernel;
    /// The key as its scan kernel takes it: the unsigned integer of its
    /// width (keys are equal exactly when their bits are).
    type KeyBits: DeviceCopy + Shuffle;
    /// The value as its scan kernel takes it: integers as the unsigned
    /// integer of their width (sums wrap alike), floats as they are.
    type ValueWord: DeviceCopy + Shuffle;
    /// The sum scanned by key (`coop::device::runs::scan_by_key` with
    /// `Sum`): one kernel for the keys of a width and the values of a
    /// kind.
    type ScanKernel: Kernel<Params = ScanParams<Self::KeyBits, Self::ValueWord>>;
    /// Its descriptor.
    const SCAN_KERNEL: Self::ScanKernel;
    /// The sum by key of a [`RunReducer::deterministic`](super::RunReducer::deterministic)
    /// reducer, over the key's bits: for float values
    /// `coop::device::runs::reduce_by_key_in_order`, for integer values
    /// (whose sums are exact in any grouping) the plain kernel.
    type OrderedKernel: Kernel<Params = Params<Self::KeyBits, V>>;
    /// Its descriptor.
    const ORDERED_KERNEL: Self::OrderedKernel;
    /// The sum scanned by key of a deterministic reducer: for float values
    /// `coop::device::runs::scan_by_key_in_order`, for integer values the
    /// plain scan kernel.
    type OrderedScanKernel: Kernel<Params = ScanParams<Self::KeyBits, Self::ValueWord>>;
    /// Its descriptor.
    const ORDERED_SCAN_KERNEL: Self::OrderedScanKernel;
}

/// Key types with a built-in run-length encoding: `u8`, `i8`, `u16`,
/// `i16`, `u32`, `i32`, `f32`, `u64`, `i64` and `f64`.
#[diagnostic::on_unimplemented(
    message = "coop-host has no built-in run-length encoding of `{Self}`",
    note = "the built-in encodings are of u8, i8, u16, i16, u32, i32, f32, u64, i64 and f64; for other types write a kernel that calls `coop::device::runs::run_length_encode` and run it with `RunReducer::encode_with`"
)]
pub trait BuiltinEncode: DeviceCopy + Shuffle {
    /// The kernel (`coop::device::runs::run_length_encode`).
    type Kernel: Kernel<Params = EncodeParams<Self>>;
    /// Its descriptor.
    const KERNEL: Self::Kernel;
}

macro_rules! sums {
    ($($k:ty, $v:ty => $kernel:ident, $bits:ty, $word:ty, $scan:ident, $ordered:ident,
       $ordered_scan:ident;)*) => {$(
        impl BuiltinSumByKey<$v> for $k {
            type Kernel = coop_host_kernels::$kernel;
            const KERNEL: Self::Kernel = coop_host_kernels::$kernel;
            type KeyBits = $bits;
            type ValueWord = $word;
            type ScanKernel = coop_host_kernels::$scan;
            const SCAN_KERNEL: Self::ScanKernel = coop_host_kernels::$scan;
            type OrderedKernel = coop_host_kernels::$ordered;
            const ORDERED_KERNEL: Self::OrderedKernel = coop_host_kernels::$ordered;
            type OrderedScanKernel = coop_host_kernels::$ordered_scan;
            const ORDERED_SCAN_KERNEL: Self::OrderedScanKernel = coop_host_kernels::$ordered_scan;
        }
    )*};
}

sums! {
    u32, f32 => sum_by_key_u32_f32, u32, f32, sum_scan_by_key_k32_f32,
        ordered_sum_by_key_k32_f32, ordered_sum_scan_by_key_k32_f32;
    u32, f64 => sum_by_key_u32_f64, u32, f64, sum_scan_by_key_k32_f64,
        ordered_sum_by_key_k32_f64, ordered_sum_scan_by_key_k32_f64;
    u32, i32 => sum_by_key_u32_i32, u32, u32, sum_scan_by_key_k32_v32,
        sum_by_key_u32_i32, sum_scan_by_key_k32_v32;
    u32, u32 => sum_by_key_u32_u32, u32, u32, sum_scan_by_key_k32_v32,
        sum_by_key_u32_u32, sum_scan_by_key_k32_v32;
    u32, i64 => sum_by_key_u32_i64, u32, u64, sum_scan_by_key_k32_v64,
        sum_by_key_u32_i64, sum_scan_by_key_k32_v64;
    u32, u64 => sum_by_key_u32_u64, u32, u64, sum_scan_by_key_k32_v64,
        sum_by_key_u32_u64, sum_scan_by_key_k32_v64;
    i32, f32 => sum_by_key_i32_f32, u32, f32, sum_scan_by_key_k32_f32,
        ordered_sum_by_key_k32_f32, ordered_sum_scan_by_key_k32_f32;
    i32, f64 => sum_by_key_i32_f64, u32, f64, sum_scan_by_key_k32_f64,
        ordered_sum_by_key_k32_f64, ordered_sum_scan_by_key_k32_f64;
    i32, i32 => sum_by_key_i32_i32, u32, u32, sum_scan_by_key_k32_v32,
        sum_by_key_u32_i32, sum_scan_by_key_k32_v32;
    i32, u32 => sum_by_key_i32_u32, u32, u32, sum_scan_by_key_k32_v32,
        sum_by_key_u32_u32, sum_scan_by_key_k32_v32;
    i32, i64 => sum_by_key_i32_i64, u32, u64, sum_scan_by_key_k32_v64,
        sum_by_key_u32_i64, sum_scan_by_key_k32_v64;
    i32, u64 => sum_by_key_i32_u64, u32, u64, sum_scan_by_key_k32_v64,
        sum_by_key_u32_u64, sum_scan_by_key_k32_v64;
    u64, f32 => sum_by_key_u64_f32, u64, f32, sum_scan_by_key_k64_f32,
        ordered_sum_by_key_k64_f32, ordered_sum_scan_by_key_k64_f32;
    u64, f64 => sum_by_key_u64_f64, u64, f64, sum_scan_by_key_k64_f64,
        ordered_sum_by_key_k64_f64, ordered_sum_scan_by_key_k64_f64;
    u64, i32 => sum_by_key_u64_i32, u64, u32, sum_scan_by_key_k64_v32,
        sum_by_key_u64_i32, sum_scan_by_key_k64_v32;
    u64, u32 => sum_by_key_u64_u32, u64, u32, sum_scan_by_key_k64_v32,
        sum_by_key_u64_u32, sum_scan_by_key_k64_v32;
    u64, i64 => sum_by_key_u64_i64, u64, u64, sum_scan_by_key_k64_v64,
        sum_by_key_u64_i64, sum_scan_by_key_k64_v64;
    u64, u64 => sum_by_key_u64_u64, u64, u64, sum_scan_by_key_k64_v64,
        sum_by_key_u64_u64, sum_scan_by_key_k64_v64;
    i64, f32 => sum_by_key_i64_f32, u64, f32, sum_scan_by_key_k64_f32,
        ordered_sum_by_key_k64_f32, ordered_sum_scan_by_key_k64_f32;
    i64, f64 => sum_by_key_i64_f64, u64, f64, sum_scan_by_key_k64_f64,
        ordered_sum_by_key_k64_f64, ordered_sum_scan_by_key_k64_f64;
    i64, i32 => sum_by_key_i64_i32, u64, u32, sum_scan_by_key_k64_v32,
        sum_by_key_u64_i32, sum_scan_by_key_k64_v32;
    i64, u32 => sum_by_key_i64_u32, u64, u32, sum_scan_by_key_k64_v32,
        sum_by_key_u64_u32, sum_scan_by_key_k64_v32;
    i64, i64 => sum_by_key_i64_i64, u64, u64, sum_scan_by_key_k64_v64,
        sum_by_key_u64_i64, sum_scan_by_key_k64_v64;
    i64, u64 => sum_by_key_i64_u64, u64, u64, sum_scan_by_key_k64_v64,
        sum_by_key_u64_u64, sum_scan_by_key_k64_v64;
}

macro_rules! encodings {
    ($($k:ty => $kernel:ident;)*) => {$(
        impl BuiltinEncode for $k {
            type Kernel = coop_host_kernels::$kernel;
            const KERNEL: Self::Kernel = coop_host_kernels::$kernel;
        }
    )*};
}

encodings! {
    u8 => encode_u8; i8 => encode_i8; u16 => encode_u16; i16 => encode_i16; u32 => encode_u32;
    i32 => encode_i32; f32 => encode_f32; u64 => encode_u64; i64 => encode_i64; f64 => encode_f64;
}
