//! Operators for [`reduce`](crate::reduce()) and the scans: how two values
//! combine, and the value that changes nothing.
//!
//! Built in: [`Sum`], [`Product`], [`Min`], [`Max`] for every primitive
//! integer and float, and [`BitAnd`], [`BitOr`], [`BitXor`] for integers.
//! Integer sums and products wrap on overflow (as the hardware's `add` and
//! `mul` do); float [`Min`] and [`Max`] ignore NaN, as PTX's `min.f32` and
//! Rust's `f32::min` do: their identity is NaN, so the result is NaN only
//! when every input is NaN (or there is none). [`ArgMax`] and [`ArgMin`]
//! reduce [`Arg`]s, a value with its index (ties to the smaller index, NaN
//! losing to every number). [`Flip`] swaps an operator's operands.
//! Any other operator is a type implementing [`Operator`], or a closure
//! given to [`from_fn`].

use core::marker::PhantomData;
use num_traits::{Bounded, One, Zero};

/// An associative way to combine two `T`s, with its identity.
///
/// `combine` must be associative: `combine(a, combine(b, c)) ==
/// combine(combine(a, b), c)`. Collectives combine values in rank order
/// (lower ranks on the left) unless the operator declares itself
/// commutative, which lets them take cheaper orders.
///
/// ```
/// use coop::op::Operator;
///
/// /// Composition of affine maps x -> a*x + b: associative, not commutative.
/// #[derive(Clone, Copy)]
/// struct Compose;
///
/// impl Operator<(i64, i64)> for Compose {
///     const COMMUTATIVE: bool = false;
///     fn combine(&self, f: (i64, i64), g: (i64, i64)) -> (i64, i64) {
///         (g.0 * f.0, g.0 * f.1 + g.1) // first f, then g
///     }
///     fn identity(&self) -> (i64, i64) {
///         (1, 0)
///     }
/// }
///
/// assert_eq!(Compose.combine((2, 1), (3, 0)), (6, 3));
/// ```
pub trait Operator<T>: Copy {
    /// Whether `combine(a, b) == combine(b, a)` for all values.
    const COMMUTATIVE: bool;

    /// `a` combined with `b` (`a` from the lower rank).
    fn combine(&self, a: T, b: T) -> T;

    /// The value `e` with `combine(e, x) == combine(x, e) == x`: what an
    /// exclusive scan gives rank 0, and what pads partial groups.
    fn identity(&self) -> T;

    /// The `redux.sync` instruction that computes this operator on `T`, if
    /// one does.
    #[doc(hidden)]
    fn redux(&self) -> Option<crate::__private::Redux> {
        None
    }

    /// Whether `combine` may also run where its result is thrown away: it
    /// has no side effects and cannot panic. A scan step then computes it
    /// in every lane and keeps it in the lanes that need it (one predicated
    /// instruction), where otherwise it branches around it. coop's own
    /// operators say so; the default, `false`, is always correct.
    #[doc(hidden)]
    const SPECULATE: bool = false;
}

/// `a + b` (wrapping for integers); identity 0.
///
/// ```
/// use coop::op::{Operator, Sum};
/// assert_eq!(Sum.combine(250u8, 10), 4); // wraps
/// assert_eq!(Operator::<f32>::identity(&Sum), 0.0);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Sum;

/// `a * b` (wrapping for integers); identity 1.
///
/// ```
/// use coop::op::{Operator, Product};
/// assert_eq!(Product.combine(3i32, -4), -12);
/// assert_eq!(Operator::<u64>::identity(&Product), 1);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Product;

/// The smaller value; identity the type's maximum for integers.
///
/// For floats, NaN-ignoring (IEEE `minNum`, PTX `min.f32`): NaN is the
/// identity, so a NaN input never wins over a number, and only an input
/// that is all NaN (or empty) gives NaN.
///
/// ```
/// use coop::op::{Min, Operator};
/// assert_eq!(Min.combine(3i16, -7), -7);
/// assert_eq!(Min.combine(f32::NAN, 1.0), 1.0);
/// assert!(Operator::<f64>::identity(&Min).is_nan());
/// assert_eq!(Operator::<u8>::identity(&Min), u8::MAX);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Min;

/// The larger value; identity the type's minimum for integers.
///
/// For floats, NaN-ignoring (IEEE `maxNum`, PTX `max.f32`), with NaN as the
/// identity, as for [`Min`].
///
/// ```
/// use coop::op::{Max, Operator};
/// assert_eq!(Max.combine(3u32, 7), 7);
/// assert_eq!(Max.combine(2.5f32, f32::NAN), 2.5);
/// assert_eq!(Operator::<i8>::identity(&Max), i8::MIN);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Max;

/// `a & b`; identity all ones.
///
/// ```
/// use coop::op::{BitAnd, Operator};
/// assert_eq!(BitAnd.combine(0b1100u8, 0b1010), 0b1000);
/// assert_eq!(Operator::<u16>::identity(&BitAnd), u16::MAX);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct BitAnd;

/// `a | b`; identity 0.
///
/// ```
/// use coop::op::{BitOr, Operator};
/// assert_eq!(BitOr.combine(0b1100u8, 0b1010), 0b1110);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct BitOr;

/// `a ^ b`; identity 0.
///
/// ```
/// use coop::op::{BitXor, Operator};
/// assert_eq!(BitXor.combine(0b1100u8, 0b1010), 0b0110);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct BitXor;

/// `redux.sync` works on 32-bit integers only: the signed form for `i32`,
/// the unsigned one for `u32`, none otherwise.
macro_rules! redux_for {
    (signed, $signed:ident, $unsigned:ident) => {
        Some(crate::__private::Redux::$signed)
    };
    (unsigned, $signed:ident, $unsigned:ident) => {
        Some(crate::__private::Redux::$unsigned)
    };
    (none, $signed:ident, $unsigned:ident) => {
        None
    };
}

macro_rules! int_ops {
    ($($t:ty => $width:ident),*) => {$(
        impl Operator<$t> for Sum {
            const COMMUTATIVE: bool = true;
            const SPECULATE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a.wrapping_add(b) }
            #[inline(always)]
            fn identity(&self) -> $t { <$t as Zero>::zero() }
            #[inline(always)]
            fn redux(&self) -> Option<crate::__private::Redux> { redux_for!($width, Add, Add) }
        }
        impl Operator<$t> for Product {
            const COMMUTATIVE: bool = true;
            const SPECULATE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a.wrapping_mul(b) }
            #[inline(always)]
            fn identity(&self) -> $t { <$t as One>::one() }
        }
        impl Operator<$t> for Min {
            const COMMUTATIVE: bool = true;
            const SPECULATE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { if b < a { b } else { a } }
            #[inline(always)]
            fn identity(&self) -> $t { <$t as Bounded>::max_value() }
            #[inline(always)]
            fn redux(&self) -> Option<crate::__private::Redux> { redux_for!($width, MinSigned, MinUnsigned) }
        }
        impl Operator<$t> for Max {
            const COMMUTATIVE: bool = true;
            const SPECULATE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { if b > a { b } else { a } }
            #[inline(always)]
            fn identity(&self) -> $t { <$t as Bounded>::min_value() }
            #[inline(always)]
            fn redux(&self) -> Option<crate::__private::Redux> { redux_for!($width, MaxSigned, MaxUnsigned) }
        }
        impl Operator<$t> for BitAnd {
            const COMMUTATIVE: bool = true;
            const SPECULATE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a & b }
            #[inline(always)]
            fn identity(&self) -> $t { !<$t as Zero>::zero() }
            #[inline(always)]
            fn redux(&self) -> Option<crate::__private::Redux> { redux_for!($width, And, And) }
        }
        impl Operator<$t> for BitOr {
            const COMMUTATIVE: bool = true;
            const SPECULATE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a | b }
            #[inline(always)]
            fn identity(&self) -> $t { <$t as Zero>::zero() }
            #[inline(always)]
            fn redux(&self) -> Option<crate::__private::Redux> { redux_for!($width, Or, Or) }
        }
        impl Operator<$t> for BitXor {
            const COMMUTATIVE: bool = true;
            const SPECULATE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a ^ b }
            #[inline(always)]
            fn identity(&self) -> $t { <$t as Zero>::zero() }
            #[inline(always)]
            fn redux(&self) -> Option<crate::__private::Redux> { redux_for!($width, Xor, Xor) }
        }
    )*};
}
int_ops!(
    u8 => none, i8 => none, u16 => none, i16 => none, u32 => unsigned, i32 => signed,
    u64 => none, i64 => none, u128 => none, i128 => none, usize => none, isize => none
);

macro_rules! float_ops {
    ($($t:ty),*) => {$(
        impl Operator<$t> for Sum {
            const COMMUTATIVE: bool = true;
            const SPECULATE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a + b }
            #[inline(always)]
            fn identity(&self) -> $t { 0.0 }
        }
        impl Operator<$t> for Product {
            const COMMUTATIVE: bool = true;
            const SPECULATE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a * b }
            #[inline(always)]
            fn identity(&self) -> $t { 1.0 }
        }
        impl Operator<$t> for Min {
            const COMMUTATIVE: bool = true;
            const SPECULATE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a.min(b) }
            #[inline(always)]
            fn identity(&self) -> $t { <$t>::NAN }
        }
        impl Operator<$t> for Max {
            const COMMUTATIVE: bool = true;
            const SPECULATE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a.max(b) }
            #[inline(always)]
            fn identity(&self) -> $t { <$t>::NAN }
        }
    )*};
}
float_ops!(f32, f64);

/// An operator made of a closure and an identity; see [`from_fn`].
#[derive(Clone, Copy, Debug)]
pub struct FnOp<T, F, const COMMUTATIVE: bool = false> {
    identity: T,
    f: F,
    _t: PhantomData<T>,
}

/// An operator from an associative closure and its identity. It is taken
/// as order-dependent; call [`FnOp::commutative`] to declare that the order
/// does not matter.
///
/// ```
/// use coop::op::{self, Operator};
///
/// // (min, max) of a range, as one value
/// let min_max = op::from_fn((i32::MAX, i32::MIN), |a: (i32, i32), b: (i32, i32)| {
///     (a.0.min(b.0), a.1.max(b.1))
/// })
/// .commutative();
/// assert_eq!(min_max.combine((3, 3), (-1, -1)), (-1, 3));
/// ```
pub fn from_fn<T: Copy, F: Fn(T, T) -> T + Copy>(identity: T, f: F) -> FnOp<T, F, false> {
    FnOp {
        identity,
        f,
        _t: PhantomData,
    }
}

impl<T: Copy, F: Fn(T, T) -> T + Copy> FnOp<T, F, false> {
    /// The same operator, declared commutative.
    pub fn commutative(self) -> FnOp<T, F, true> {
        FnOp {
            identity: self.identity,
            f: self.f,
            _t: PhantomData,
        }
    }
}

impl<T: Copy, F: Fn(T, T) -> T + Copy, const C: bool> Operator<T> for FnOp<T, F, C> {
    const COMMUTATIVE: bool = C;
    #[inline(always)]
    fn combine(&self, a: T, b: T) -> T {
        (self.f)(a, b)
    }
    #[inline(always)]
    fn identity(&self) -> T {
        self.identity
    }
}

mod ordered_sealed {
    pub trait Sealed {}
}

/// The primitive numbers, which [`ArgMax`], [`ArgMin`] and
/// [`map::CountIf`](crate::device::map::CountIf) compare: every integer and float.
pub trait Ordered: PartialOrd + crate::Shuffle + ordered_sealed::Sealed {
    /// The smallest value (floats: negative infinity).
    const LOWEST: Self;
    /// The largest value (floats: infinity).
    const HIGHEST: Self;
    /// What no element loses to under [`ArgMax`]: the smallest integer, or
    /// NaN.
    const ARG_MAX_IDENTITY: Self;
    /// What no element loses to under [`ArgMin`]: the largest integer, or
    /// NaN.
    const ARG_MIN_IDENTITY: Self;
    /// Whether the value is NaN (never, for integers).
    fn is_nan(self) -> bool;
}

macro_rules! ordered_ints {
    ($($t:ty),*) => {$(
        impl ordered_sealed::Sealed for $t {}
        impl Ordered for $t {
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
            const ARG_MAX_IDENTITY: Self = <$t>::MIN;
            const ARG_MIN_IDENTITY: Self = <$t>::MAX;
            #[inline(always)]
            fn is_nan(self) -> bool { false }
        }
    )*};
}
ordered_ints!(
    u8, i8, u16, i16, u32, i32, u64, i64, u128, i128, usize, isize
);

macro_rules! ordered_floats {
    ($($t:ty),*) => {$(
        impl ordered_sealed::Sealed for $t {}
        impl Ordered for $t {
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
            const ARG_MAX_IDENTITY: Self = <$t>::NAN;
            const ARG_MIN_IDENTITY: Self = <$t>::NAN;
            #[inline(always)]
            #[allow(clippy::eq_op)]
            fn is_nan(self) -> bool { self != self }
        }
    )*};
}
ordered_floats!(f32, f64);

/// A value and the index where it was found: what [`ArgMax`] and
/// [`ArgMin`] reduce (CUB's `KeyValuePair`).
///
/// The index is kept as two 32-bit words, so that `Arg<f32>` is 12 bytes
/// and `Arg<f64>` 16, neither with padding: both move between host and GPU
/// as plain bytes.
///
/// ```
/// use coop::op::Arg;
/// let a = Arg::new(5_000_000_000, 2.5f32);
/// assert_eq!((a.index(), a.value), (5_000_000_000, 2.5));
/// assert_eq!(std::mem::size_of::<Arg<f32>>(), 12);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Arg<T> {
    /// The value.
    pub value: T,
    /// The index, low word first.
    index: [u32; 2],
}

impl<T> Arg<T> {
    /// `value`, found at `index`.
    #[inline(always)]
    pub const fn new(index: usize, value: T) -> Self {
        let i = index as u64;
        Arg {
            value,
            index: [i as u32, (i >> 32) as u32],
        }
    }

    /// Where the value was found.
    #[inline(always)]
    pub const fn index(&self) -> usize {
        (self.index[0] as u64 | (self.index[1] as u64) << 32) as usize
    }

    /// The index as it is stored, `u64::MAX` for an operator's identity.
    #[inline(always)]
    const fn raw_index(&self) -> u64 {
        self.index[0] as u64 | (self.index[1] as u64) << 32
    }
}

// SAFETY: the value's words, then the index's two words, each rebuilt by
// a sound `Shuffle` impl; no padding is read (the fields are moved one by
// one).
unsafe impl<T: crate::Shuffle> crate::Shuffle for Arg<T> {
    const WORDS: usize = T::WORDS + 2;
    #[inline(always)]
    fn map_words(self, mut f: impl FnMut(u32) -> u32) -> Self {
        let value = self.value.map_words(&mut f);
        let lo = f(self.index[0]);
        let hi = f(self.index[1]);
        Arg {
            value,
            index: [lo, hi],
        }
    }
}

/// The largest value and its index: an operator on [`Arg`]s, made by
/// [`map::WithIndex`](crate::device::map::WithIndex).
///
/// Of equal values the smaller index wins (`-0.0` and `0.0` are equal); a
/// NaN loses to every number, so the result is a NaN only when every value
/// is NaN, and then the first. The identity is a NaN (floats) or the
/// type's minimum (integers) at index `u64::MAX`. Commutative: the winner
/// does not depend on the order of combination.
///
/// ```
/// use coop::op::{Arg, ArgMax, Operator};
/// let best = [3.0f32, 9.0, f32::NAN, 9.0]
///     .iter()
///     .enumerate()
///     .map(|(i, &x)| Arg::new(i, x))
///     .fold(ArgMax.identity(), |a, b| ArgMax.combine(a, b));
/// assert_eq!((best.index(), best.value), (1, 9.0));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ArgMax;

/// The smallest value and its index; as [`ArgMax`] otherwise.
///
/// ```
/// use coop::op::{Arg, ArgMin, Operator};
/// let a = ArgMin.combine(Arg::new(4, -1i64), Arg::new(2, -1));
/// assert_eq!(a.index(), 2);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ArgMin;

/// Whether `a` wins over `b`: a number over a NaN, then the larger value
/// (`larger`) or the smaller, then the smaller index.
#[inline(always)]
fn arg_wins<T: Ordered>(a: Arg<T>, b: Arg<T>, larger: bool) -> bool {
    let (a_nan, b_nan) = (a.value.is_nan(), b.value.is_nan());
    if a_nan != b_nan {
        return b_nan;
    }
    if !a_nan && a.value != b.value {
        return if larger {
            a.value > b.value
        } else {
            a.value < b.value
        };
    }
    a.raw_index() <= b.raw_index()
}

impl<T: Ordered> Operator<Arg<T>> for ArgMax {
    const COMMUTATIVE: bool = true;
    const SPECULATE: bool = true;
    #[inline(always)]
    fn combine(&self, a: Arg<T>, b: Arg<T>) -> Arg<T> {
        if arg_wins(a, b, true) { a } else { b }
    }
    #[inline(always)]
    fn identity(&self) -> Arg<T> {
        Arg {
            value: T::ARG_MAX_IDENTITY,
            index: [u32::MAX; 2],
        }
    }
}

impl<T: Ordered> Operator<Arg<T>> for ArgMin {
    const COMMUTATIVE: bool = true;
    const SPECULATE: bool = true;
    #[inline(always)]
    fn combine(&self, a: Arg<T>, b: Arg<T>) -> Arg<T> {
        if arg_wins(a, b, false) { a } else { b }
    }
    #[inline(always)]
    fn identity(&self) -> Arg<T> {
        Arg {
            value: T::ARG_MIN_IDENTITY,
            index: [u32::MAX; 2],
        }
    }
}

/// An operator with its operands swapped: `Flip(op).combine(a, b) ==
/// op.combine(b, a)`, with the same identity. Reducing with it in rank
/// order combines from the highest rank down, as a look-back over earlier
/// tiles needs for an operator that is not commutative.
///
/// ```
/// use coop::op::{self, Flip, Operator};
/// let concat = op::from_fn(0u32, |a: u32, b: u32| a * 10 + b);
/// assert_eq!(Flip(concat).combine(1, 2), 21);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Flip<O>(pub O);

impl<T, O: Operator<T>> Operator<T> for Flip<O> {
    const COMMUTATIVE: bool = O::COMMUTATIVE;
    const SPECULATE: bool = O::SPECULATE;
    #[inline(always)]
    fn combine(&self, a: T, b: T) -> T {
        self.0.combine(b, a)
    }
    #[inline(always)]
    fn identity(&self) -> T {
        self.0.identity()
    }
}
