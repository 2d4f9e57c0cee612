//! The built-in scan kernels: the table from (element type, operator) to
//! its kernel in `coop-host-kernels`.

use super::Params;
use coop::op::{Max, Min, Sum};
use coop::DeviceCopy;
use coop::Kernel;

/// A type with a built-in scan kernel for the operator `O`: `f32`, `f64`,
/// `i32`, `u32`, `i64` and `u64` for [`Sum`], [`Min`] and [`Max`].
#[diagnostic::on_unimplemented(
    message = "coop-host has no built-in scan of `{Self}` with `{O}`",
    note = "the built-in scans are Sum, Min and Max of f32, f64, i32, u32, i64 and u64; for other types or operators write a kernel that calls `coop::device::scan::scan` and run it with `Scanner::inclusive_with`"
)]
pub trait BuiltinScan<O>: DeviceCopy {
    /// The kernel (`coop::device::scan::scan`).
    type Kernel: Kernel<Params = Params<Self>>;
    /// Its descriptor.
    const KERNEL: Self::Kernel;
}

macro_rules! builtins {
    ($($t:ty, $op:ty => $k:ident;)*) => {$(
        impl BuiltinScan<$op> for $t {
            type Kernel = coop_host_kernels::$k;
            const KERNEL: Self::Kernel = coop_host_kernels::$k;
        }
    )*};
}

builtins! {
    f32, Sum => scan_sum_f32; f32, Min => scan_min_f32; f32, Max => scan_max_f32;
    f64, Sum => scan_sum_f64; f64, Min => scan_min_f64; f64, Max => scan_max_f64;
    i32, Sum => scan_sum_i32; i32, Min => scan_min_i32; i32, Max => scan_max_i32;
    u32, Sum => scan_sum_u32; u32, Min => scan_min_u32; u32, Max => scan_max_u32;
    i64, Sum => scan_sum_i64; i64, Min => scan_min_i64; i64, Max => scan_max_i64;
    u64, Sum => scan_sum_u64; u64, Min => scan_min_u64; u64, Max => scan_max_u64;
}
