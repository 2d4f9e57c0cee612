//! The built-in reduction kernels: the PTX of `coop-host-kernels`, and the
//! table from (element type, operator) to its kernel.

use crate::PtxSet;
use coop::kernel::params::{OutSlice, Slice};
use coop::op::{Max, Min, Sum};
use coop::DeviceCopy;
use coop::Kernel;

/// The PTX of the built-in reduction kernels (`coop-host-kernels`), which
/// [`Reducer::new`](super::Reducer::new) loads; load it yourself to pass the
/// module to [`Reducer::with_module`](super::Reducer::with_module) or
/// [`Reducer::reduce_with`](super::Reducer::reduce_with).
///
/// The PTX ships with the crate as text (`host/ptx/`), built by
/// `coop_build::PtxBuilder` with the pinned toolchain, so that a user's
/// build compiles no device code of coop-host's; a workspace test rebuilds
/// it from `coop-host-kernels` and fails if the two differ.
pub static KERNELS_PTX: PtxSet = PtxSet::new(
    "coop-host-kernels",
    &[
        (80, include_str!("../../ptx/coop-host-kernels.sm_80.ptx")),
        (90, include_str!("../../ptx/coop-host-kernels.sm_90.ptx")),
    ],
);

/// A type with a built-in reduction kernel for the operator `O`: `f32`,
/// `f64`, `i32`, `u32`, `i64` and `u64` for [`Sum`], [`Min`] and [`Max`].
pub trait Builtin<O>: DeviceCopy {
    /// The kernel: one launch (`coop::grid_reduce::reduce_grid`).
    type Kernel: Kernel<Params = (Slice<Self>, OutSlice<Self>, OutSlice<u32>)>;
    /// Its descriptor.
    const KERNEL: Self::Kernel;
}

macro_rules! builtins {
    ($($t:ty, $op:ty => $k:ident;)*) => {$(
        impl Builtin<$op> for $t {
            type Kernel = coop_host_kernels::$k;
            const KERNEL: Self::Kernel = coop_host_kernels::$k;
        }
    )*};
}

builtins! {
    f32, Sum => reduce_sum_f32; f32, Min => reduce_min_f32; f32, Max => reduce_max_f32;
    f64, Sum => reduce_sum_f64; f64, Min => reduce_min_f64; f64, Max => reduce_max_f64;
    i32, Sum => reduce_sum_i32; i32, Min => reduce_min_i32; i32, Max => reduce_max_i32;
    u32, Sum => reduce_sum_u32; u32, Min => reduce_min_u32; u32, Max => reduce_max_u32;
    i64, Sum => reduce_sum_i64; i64, Min => reduce_min_i64; i64, Max => reduce_max_i64;
    u64, Sum => reduce_sum_u64; u64, Min => reduce_min_u64; u64, Max => reduce_max_u64;
}
