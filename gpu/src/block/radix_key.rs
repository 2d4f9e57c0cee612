//! Keys a radix sort sorts by: their bits made to sort as their values do.
//!
//! A signed integer's sign bit is flipped; a float with the sign bit set
//! has every bit flipped, another has its sign bit set. `-0.0` counts as
//! `0.0` (the two keep their input order between them), and a NaN sorts by
//! its bits: after `+inf` when its sign bit is clear, before `-inf` when it
//! is set (as CUB's sorts do). For a descending sort every bit is then
//! flipped, so the order reverses while equal keys keep theirs.

use crate::Shuffle;
use crate::shared::SharedElem;

/// The control word of a descending sort; 0 sorts ascending.
pub const DESCENDING: u32 = 1;

mod sealed {
    pub trait Sealed {}
}

/// A key the radix sorts sort by (the block's [`RadixSort`](crate::block::RadixSort)
/// and the device-wide [`onesweep_keys`](crate::device::radix_sort::onesweep_keys)): `u8`, `i8`, `u16`, `i16`, `u32`,
/// `i32`, `f32`, `u64`, `i64` and `f64`.
///
/// ```
/// use coop::device::radix_sort::RadixKey;
/// assert_eq!(<f32 as RadixKey>::BITS, 32);
/// assert_eq!(<i16 as RadixKey>::BITS, 16);
/// // The digits of a pass: the bits made to sort as the values do.
/// assert!((-3i32).digit(24, 8, 0) < 5i32.digit(24, 8, 0));
/// assert!((-1.5f32).digit(24, 8, 0) < 0.25f32.digit(24, 8, 0));
/// assert_eq!((-0.0f64).digit(56, 8, 0), 0.0f64.digit(56, 8, 0));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a key the radix sort sorts by",
    label = "not a `RadixKey`",
    note = "the radix sort sorts keys of u8, i8, u16, i16, u32, i32, f32, u64, i64 and f64; sort another type by a key of one of these derived from it (for instance its bits as an unsigned integer), with the values carried along"
)]
pub trait RadixKey: Shuffle + SharedElem + sealed::Sealed {
    /// Bits of the key.
    const BITS: u32;

    /// The digit of bits `shift .. shift + width` (`width` at most
    /// [`RADIX_BITS`], `shift + width` at most [`BITS`](Self::BITS)) of the
    /// key's bits made to sort as its values do (see the [module
    /// docs](self)), every bit flipped first when `control` has
    /// [`DESCENDING`].
    fn digit(self, shift: u32, width: u32, control: u32) -> u32;

    /// All of the key's bits made to sort as its values do (see the
    /// [module docs](self)), every bit flipped first when `control` has
    /// [`DESCENDING`], in the low [`BITS`](Self::BITS) bits of a `u64`:
    /// keys compare as these numbers do (the top-k selection's
    /// comparisons).
    ///
    /// ```
    /// use coop::device::radix_sort::{RadixKey, DESCENDING};
    /// assert!((-2.5f32).ordered(0) < 1.0f32.ordered(0));
    /// assert!((-2.5f32).ordered(DESCENDING) > 1.0f32.ordered(DESCENDING));
    /// assert_eq!((-0.0f64).ordered(0), 0.0f64.ordered(0));
    /// assert_eq!(u8::MAX.ordered(0), 0xff);
    /// ```
    fn ordered(self, control: u32) -> u64;
}

macro_rules! radix_keys {
    ($($t:ty => $bits:ty, |$v:ident| $ordered:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl RadixKey for $t {
            const BITS: u32 = <$bits>::BITS;
            #[inline(always)]
            fn digit(self, shift: u32, width: u32, control: u32) -> u32 {
                let $v = self;
                let ordered: $bits = $ordered;
                let ordered = if control & DESCENDING != 0 { !ordered } else { ordered };
                ((ordered >> shift) as u32) & ((1u32 << width) - 1)
            }
            #[inline(always)]
            fn ordered(self, control: u32) -> u64 {
                let $v = self;
                let ordered: $bits = $ordered;
                let ordered = if control & DESCENDING != 0 { !ordered } else { ordered };
                ordered as u64
            }
        }
    )*};
}

/// A float's bits made to sort as its values: `-0.0` as `0.0`, negatives
/// below positives.
macro_rules! ordered_float {
    ($v:ident, $bits:ty) => {{
        let b = $v.to_bits();
        let sign: $bits = 1 << (<$bits>::BITS - 1);
        let b = if b == sign { 0 } else { b };
        if b & sign != 0 { !b } else { b | sign }
    }};
}

radix_keys! {
    u8 => u8, |v| v;
    i8 => u8, |v| (v as u8) ^ 0x80;
    u16 => u16, |v| v;
    i16 => u16, |v| (v as u16) ^ 0x8000;
    u32 => u32, |v| v;
    i32 => u32, |v| (v as u32) ^ 0x8000_0000;
    f32 => u32, |v| ordered_float!(v, u32);
    u64 => u64, |v| v;
    i64 => u64, |v| (v as u64) ^ 0x8000_0000_0000_0000;
    f64 => u64, |v| ordered_float!(v, u64);
}
