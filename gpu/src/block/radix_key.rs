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
/// A key's bits are made to sort as its value does: a signed integer's
/// sign bit is flipped; a float with the sign bit set has every bit
/// flipped, another has its sign bit set. `-0.0` counts as `0.0` (the two
/// keep their input order between them), and a NaN sorts by its bits:
/// after `+inf` when its sign bit is clear, before `-inf` when it is set
/// (as CUB's sorts do). For a descending sort every bit is then flipped,
/// so the order reverses while equal keys keep theirs.
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
    /// [`RADIX_BITS`](crate::device::radix_sort::RADIX_BITS), `shift + width` at most [`BITS`](Self::BITS)) of the
    /// key's bits made to sort as its values do (see the [trait
    /// docs](RadixKey)), every bit flipped first when `control` has
    /// [`DESCENDING`].
    fn digit(self, shift: u32, width: u32, control: u32) -> u32;

    /// All of the key's bits made to sort as its values do (see the
    /// [trait docs](RadixKey)), every bit flipped first when `control` has
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

    /// The unsigned integer of the key's width, which holds its bits.
    #[doc(hidden)]
    type Bits: KeyBits;
    /// How its bits are made to sort: [`KeyBits::UNSIGNED`],
    /// [`KeyBits::SIGNED`] or [`KeyBits::FLOAT`].
    #[doc(hidden)]
    const KIND: u32;
}

/// The unsigned integers that hold a key's bits (`u8`, `u16`, `u32`,
/// `u64`), where the merging sorts compare keys of every type of their
/// width: [`encode`](Self::encode) makes a key's bits sort as its value
/// does, one to one, so that [`decode`](Self::decode) gives them back.
#[doc(hidden)]
pub trait KeyBits: RadixKey + PartialOrd + PartialEq + Copy + sealed::Sealed {
    /// Bits of an unsigned integer, sorted as they are.
    const UNSIGNED: u32 = 0;
    /// Bits of a signed integer: the sign bit flipped.
    const SIGNED: u32 = 1;
    /// Bits of a float: the sign bit set for a positive one, every bit
    /// flipped for a negative one. `-0.0` and `0.0` become two neighbours,
    /// `SIGN - 1` and `SIGN`, which [`less`](Self::less) holds equal.
    const FLOAT: u32 = 2;
    /// The sign bit.
    const SIGN: Self;

    /// The bits of a key of kind `kind`, made to sort as its value does,
    /// every bit flipped when `descending`.
    fn encode(self, kind: u32, descending: bool) -> Self;
    /// The key's bits back from [`encode`](Self::encode)'s.
    fn decode(self, kind: u32, descending: bool) -> Self;
    /// Whether encoded `self` sorts before encoded `other`; `zeros` (keys
    /// of kind [`FLOAT`](Self::FLOAT)) holds `-0.0` and `0.0` equal.
    #[inline(always)]
    fn less(self, other: Self, zeros: bool) -> bool {
        self < other && !(zeros && other == Self::SIGN && self.is_below_sign())
    }
    /// Whether it is `SIGN - 1`.
    fn is_below_sign(self) -> bool;
}

macro_rules! key_bits {
    ($($t:ty),*) => {$(
        impl KeyBits for $t {
            const SIGN: Self = 1 << (<$t>::BITS - 1);
            #[inline(always)]
            fn encode(self, kind: u32, descending: bool) -> Self {
                let v = if kind == Self::FLOAT {
                    if self & Self::SIGN != 0 { !self } else { self | Self::SIGN }
                } else if kind == Self::SIGNED {
                    self ^ Self::SIGN
                } else {
                    self
                };
                if descending { !v } else { v }
            }
            #[inline(always)]
            fn decode(self, kind: u32, descending: bool) -> Self {
                let v = if descending { !self } else { self };
                if kind == Self::FLOAT {
                    if v & Self::SIGN != 0 { v & !Self::SIGN } else { !v }
                } else if kind == Self::SIGNED {
                    v ^ Self::SIGN
                } else {
                    v
                }
            }
            #[inline(always)]
            fn is_below_sign(self) -> bool {
                self == Self::SIGN - 1
            }
        }
    )*};
}

key_bits!(u8, u16, u32, u64);

macro_rules! radix_keys {
    ($($t:ty => $bits:ty, $kind:ident, |$v:ident| $ordered:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl RadixKey for $t {
            type Bits = $bits;
            const KIND: u32 = <$bits as KeyBits>::$kind;
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
    u8 => u8, UNSIGNED, |v| v;
    i8 => u8, SIGNED, |v| (v as u8) ^ 0x80;
    u16 => u16, UNSIGNED, |v| v;
    i16 => u16, SIGNED, |v| (v as u16) ^ 0x8000;
    u32 => u32, UNSIGNED, |v| v;
    i32 => u32, SIGNED, |v| (v as u32) ^ 0x8000_0000;
    f32 => u32, FLOAT, |v| ordered_float!(v, u32);
    u64 => u64, UNSIGNED, |v| v;
    i64 => u64, SIGNED, |v| (v as u64) ^ 0x8000_0000_0000_0000;
    f64 => u64, FLOAT, |v| ordered_float!(v, u64);
}
