//! The built-in segmented-reduction kernels: the table from (element type,
//! operator) to its kernel in `coop-host-kernels`.

use coop::kernel::params::{OutSlice, Slice, Value};
use coop::op::{Max, Min, Sum};
use coop::DeviceCopy;
use coop::Kernel;

/// The parameters of a built-in segmented kernel over `T`: input, offsets
/// as `u32` words, whether they are `u64` (two words each), output, phase,
/// work, partials.
pub type BuiltinParams<T> = (
    Slice<T>,
    Slice<u32>,
    Value<u32>,
    OutSlice<T>,
    Value<u32>,
    OutSlice<u64>,
    OutSlice<T>,
);

/// A type with a built-in segmented reduction for the operator `O`:
/// `f32`, `f64`, `i32`, `u32`, `i64` and `u64` for [`Sum`], [`Min`] and
/// [`Max`].
#[diagnostic::on_unimplemented(
    message = "coop-host has no built-in segmented reduction of `{Self}` with `{O}`",
    note = "the built-in segmented reductions are Sum, Min and Max of f32, f64, i32, u32, i64 and u64; for other types or operators write a kernel that calls `coop::device::segmented::segmented_reduce` and run it with `SegmentedReducer::reduce_with`"
)]
pub trait BuiltinSegmented<O>: DeviceCopy {
    /// The kernel.
    type Kernel: Kernel<Params = BuiltinParams<Self>>;
    /// Its descriptor.
    const KERNEL: Self::Kernel;
}

macro_rules! builtins {
    ($($t:ty, $op:ty => $k:ident;)*) => {$(
        impl BuiltinSegmented<$op> for $t {
            type Kernel = coop_host_kernels::$k;
            const KERNEL: Self::Kernel = coop_host_kernels::$k;
        }
    )*};
}

builtins! {
    f32, Sum => segmented_sum_f32; f32, Min => segmented_min_f32; f32, Max => segmented_max_f32;
    f64, Sum => segmented_sum_f64; f64, Min => segmented_min_f64; f64, Max => segmented_max_f64;
    i32, Sum => segmented_sum_i32; i32, Min => segmented_min_i32; i32, Max => segmented_max_i32;
    u32, Sum => segmented_sum_u32; u32, Min => segmented_min_u32; u32, Max => segmented_max_u32;
    i64, Sum => segmented_sum_i64; i64, Min => segmented_min_i64; i64, Max => segmented_max_i64;
    u64, Sum => segmented_sum_u64; u64, Min => segmented_min_u64; u64, Max => segmented_max_u64;
}
