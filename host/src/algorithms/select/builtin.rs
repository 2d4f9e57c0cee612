//! The built-in selection kernels: the table from element type to its
//! kernels in `coop-host-kernels`.

use super::{FlaggedParams, Params};
use coop::DeviceCopy;
use coop::Kernel;

/// A type with built-in selection kernels: `u8`, `i8`, `u16`, `i16`,
/// `u32`, `i32`, `f32`, `u64`, `i64` and `f64`.
#[diagnostic::on_unimplemented(
    message = "coop-host has no built-in selection of `{Self}`",
    note = "the built-in selections (by flags, unique) are of u8, i8, u16, i16, u32, i32, f32, u64, i64 and f64; for other types write a kernel that calls `coop::device::select::select_flagged` and run it with `Selector::flagged_with` (or `select_if` or `unique` with `Selector::if_with`)"
)]
pub trait BuiltinSelect: DeviceCopy {
    /// The kernel that selects by flags (`coop::device::select::select_flagged`).
    type Flagged: Kernel<Params = FlaggedParams<Self>>;
    /// Its descriptor.
    const FLAGGED: Self::Flagged;
    /// The kernel that keeps the first of each run of equal elements
    /// (`coop::device::select::unique`).
    type Unique: Kernel<Params = Params<Self>>;
    /// Its descriptor.
    const UNIQUE: Self::Unique;
}

macro_rules! builtins {
    ($($t:ty => $flagged:ident, $unique:ident;)*) => {$(
        impl BuiltinSelect for $t {
            type Flagged = coop_host_kernels::$flagged;
            const FLAGGED: Self::Flagged = coop_host_kernels::$flagged;
            type Unique = coop_host_kernels::$unique;
            const UNIQUE: Self::Unique = coop_host_kernels::$unique;
        }
    )*};
}

builtins! {
    u8 => select_flagged_u8, unique_u8;
    i8 => select_flagged_i8, unique_i8;
    u16 => select_flagged_u16, unique_u16;
    i16 => select_flagged_i16, unique_i16;
    u32 => select_flagged_u32, unique_u32;
    i32 => select_flagged_i32, unique_i32;
    f32 => select_flagged_f32, unique_f32;
    u64 => select_flagged_u64, unique_u64;
    i64 => select_flagged_i64, unique_i64;
    f64 => select_flagged_f64, unique_f64;
}
