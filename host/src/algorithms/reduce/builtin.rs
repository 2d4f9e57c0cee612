//! The built-in reduction kernels: the PTX of `coop-host-kernels`, and the
//! table from (element type, operator) to its kernel.

use coop::kernel::params::{OutSlice, Slice, Value};
use coop::op::{Max, Min, Sum};
use coop::DeviceCopy;
use coop::Kernel;

/// The PTX of the built-in reduction kernels: [`REDUCE_PTX`](crate::ptx_families::REDUCE_PTX).
pub use crate::ptx_families::REDUCE_PTX as KERNELS_PTX;

/// A type with a built-in reduction kernel for the operator `O`: `f32`,
/// `f64`, `i32`, `u32`, `i64` and `u64` for [`Sum`], [`Min`] and [`Max`].
pub trait Builtin<O>: DeviceCopy + Send + Sync {
    /// The kernel: one launch (`coop::device::reduce::reduce_grid`).
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

/// A type with a built-in transform-reduction kernel for the map `M` and
/// the operator `O`:
///
/// | map, operator | types | [`Reducer`](super::Reducer) call |
/// |---|---|---|
/// | `Abs`, `Sum` | `f32 f64 i32 i64` | [`sum_abs`](super::Reducer::sum_abs) |
/// | `Abs`, `Max` | `f32 f64 i32 i64` | [`max_abs`](super::Reducer::max_abs) |
/// | `Square`, `Sum` | all six | [`sum_squares`](super::Reducer::sum_squares) |
/// | `WithIndex`, `ArgMax` / `ArgMin` | all six | [`arg_max`](super::Reducer::arg_max), [`arg_min`](super::Reducer::arg_min) |
#[diagnostic::on_unimplemented(
    message = "coop-host has no built-in transform-reduction of `{Self}` with `{M}` and `{O}`",
    note = "write a kernel that calls `coop::device::reduce::reduce_grid_map` and run it with `Reducer::transform_reduce_with`"
)]
pub trait BuiltinMap<M, O>: DeviceCopy {
    /// What the map makes of an element.
    type Output: Copy + 'static;
    /// The kernel (`coop::device::reduce::reduce_grid_map`).
    type Kernel: Kernel<Params = (Slice<Self>, OutSlice<Self::Output>, OutSlice<u32>)>;
    /// Its descriptor.
    const KERNEL: Self::Kernel;
    /// The PTX module that holds it.
    #[doc(hidden)]
    const PTX: &'static crate::PtxSet;
}

macro_rules! builtin_maps {
    ($ptx:ident: $($t:ty, $m:ty, $op:ty => $u:ty, $k:ident;)*) => {$(
        impl BuiltinMap<$m, $op> for $t {
            type Output = $u;
            type Kernel = coop_host_kernels::$k;
            const KERNEL: Self::Kernel = coop_host_kernels::$k;
            const PTX: &'static crate::PtxSet = &crate::ptx_families::$ptx;
        }
    )*};
}

use coop::device::map::{Abs, Square, WithIndex};
use coop::op::{Arg, ArgMax, ArgMin};

builtin_maps! {
    TRANSFORM_PTX:
    f32, Abs, Sum => f32, sum_abs_f32; f64, Abs, Sum => f64, sum_abs_f64;
    i32, Abs, Sum => i32, sum_abs_i32; i64, Abs, Sum => i64, sum_abs_i64;
    f32, Abs, Max => f32, max_abs_f32; f64, Abs, Max => f64, max_abs_f64;
    i32, Abs, Max => i32, max_abs_i32; i64, Abs, Max => i64, max_abs_i64;
    f32, Square, Sum => f32, sum_squares_f32; f64, Square, Sum => f64, sum_squares_f64;
    i32, Square, Sum => i32, sum_squares_i32; u32, Square, Sum => u32, sum_squares_u32;
    i64, Square, Sum => i64, sum_squares_i64; u64, Square, Sum => u64, sum_squares_u64;
}

builtin_maps! {
    ARG_PTX:
    f32, WithIndex, ArgMax => Arg<f32>, arg_max_f32; f32, WithIndex, ArgMin => Arg<f32>, arg_min_f32;
    f64, WithIndex, ArgMax => Arg<f64>, arg_max_f64; f64, WithIndex, ArgMin => Arg<f64>, arg_min_f64;
    i32, WithIndex, ArgMax => Arg<i32>, arg_max_i32; i32, WithIndex, ArgMin => Arg<i32>, arg_min_i32;
    u32, WithIndex, ArgMax => Arg<u32>, arg_max_u32; u32, WithIndex, ArgMin => Arg<u32>, arg_min_u32;
    i64, WithIndex, ArgMax => Arg<i64>, arg_max_i64; i64, WithIndex, ArgMin => Arg<i64>, arg_min_i64;
    u64, WithIndex, ArgMax => Arg<u64>, arg_max_u64; u64, WithIndex, ArgMin => Arg<u64>, arg_min_u64;
}

/// A type with a built-in counting kernel ([`Reducer::count_if`](super::Reducer::count_if)):
/// `f32`, `f64`, `i32`, `u32`, `i64` and `u64`.
pub trait BuiltinCount:
    DeviceCopy + coop::op::Ordered + crate::GpuArg<Value<Self>> + crate::CpuArg<Value<Self>>
{
    /// The kernel: `(input, compare, threshold, partials, tickets)`.
    type Kernel: Kernel<
        Params = (
            Slice<Self>,
            Value<u32>,
            Value<Self>,
            OutSlice<u64>,
            OutSlice<u32>,
        ),
    >;
    /// Its descriptor.
    const KERNEL: Self::Kernel;
}

macro_rules! builtin_counts {
    ($($t:ty => $k:ident;)*) => {$(
        impl BuiltinCount for $t {
            type Kernel = coop_host_kernels::$k;
            const KERNEL: Self::Kernel = coop_host_kernels::$k;
        }
    )*};
}

builtin_counts! {
    f32 => count_if_f32; f64 => count_if_f64; i32 => count_if_i32;
    u32 => count_if_u32; i64 => count_if_i64; u64 => count_if_u64;
}
