//! Which values may live in shared memory (`coop::shared::SharedElem`).
//! Below both the shared-memory handles and the backends, which move
//! these values in and out.

/// A type that can be an element of a shared array: plain data, moved to
/// and from shared memory as its bytes.
///
/// Implemented for the primitive integers and floats. Implement it for a
/// `#[repr(C)]` struct of such fields to keep records in shared memory:
///
/// ```
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// struct MinMax {
///     min: f32,
///     max: f32,
/// }
///
/// // SAFETY: two f32 fields, no padding; every bit pattern is a `MinMax`.
/// unsafe impl coop::shared::SharedElem for MinMax {}
/// ```
///
/// # Safety
///
/// The type has no padding bytes and every bit pattern of its size is a
/// valid value (shared memory holds whatever was stored last, or garbage
/// before the first store), like `bytemuck::Pod`. `bool` and `char` are not
/// such types.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an element of a shared array",
    label = "not plain data",
    note = "shared memory holds plain data, whatever bits were stored last: primitive integers and floats, and `#[repr(C)]` structs of them marked `unsafe impl SharedElem`",
    note = "`bool` and `char` are not plain data (most bit patterns are not values): store a `u8` or `u32` instead"
)]
pub unsafe trait SharedElem: Copy + 'static {}

macro_rules! shared_elems {
    ($($t:ty),*) => {$(
        // SAFETY: primitive numbers have no padding and no invalid bit
        // patterns.
        unsafe impl SharedElem for $t {}
    )*};
}
shared_elems!(u8, i8, u16, i16, u32, i32, u64, i64, usize, isize, f32, f64);
