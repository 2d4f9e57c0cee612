//! The built-in top-k kernels: the table from key type to its kernels in
//! `coop-host-kernels` (the sort family).

use super::{CountParams, SelectParams};
use crate::sort::BuiltinSort;
use coop::Kernel;

/// A key type with built-in top-k selections: `u8`, `i8`, `u16`, `i16`,
/// `u32`, `i32`, `f32`, `u64`, `i64` and `f64` (the sort's keys).
#[diagnostic::on_unimplemented(
    message = "coop-host has no built-in top-k of `{Self}` keys",
    note = "the built-in top-k selections take keys of u8, i8, u16, i16, u32, i32, f32, u64, i64 and f64; select other types by a key of one of these derived from them, with the elements' indices (`TopK::largest_with_indices`)"
)]
pub trait BuiltinTopK: BuiltinSort {
    /// A counting pass (`coop::device::top_k::count`).
    type Count: Kernel<Params = CountParams<Self>>;
    /// Its descriptor.
    const COUNT: Self::Count;
    /// The selection, with what it carries as 32-bit words
    /// (`coop::device::top_k::select_words`).
    type Select: Kernel<Params = SelectParams<Self>>;
    /// Its descriptor.
    const SELECT: Self::Select;
}

macro_rules! builtins {
    ($($k:ty => $count:ident, $select:ident;)*) => {$(
        impl BuiltinTopK for $k {
            type Count = coop_host_kernels::$count;
            const COUNT: Self::Count = coop_host_kernels::$count;
            type Select = coop_host_kernels::$select;
            const SELECT: Self::Select = coop_host_kernels::$select;
        }
    )*};
}

builtins! {
    u8 => top_k_count_u8, top_k_select_u8;
    i8 => top_k_count_i8, top_k_select_i8;
    u16 => top_k_count_u16, top_k_select_u16;
    i16 => top_k_count_i16, top_k_select_i16;
    u32 => top_k_count_u32, top_k_select_u32;
    i32 => top_k_count_i32, top_k_select_i32;
    f32 => top_k_count_f32, top_k_select_f32;
    u64 => top_k_count_u64, top_k_select_u64;
    i64 => top_k_count_i64, top_k_select_i64;
    f64 => top_k_count_f64, top_k_select_f64;
}
