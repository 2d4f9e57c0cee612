//! Operators for [`reduce`](crate::reduce()) and the scans: how two values
//! combine, and the value that changes nothing.
//!
//! Built in: [`Sum`], [`Product`], [`Min`], [`Max`] for every primitive
//! integer and float, and [`BitAnd`], [`BitOr`], [`BitXor`] for integers.
//! Integer sums and products wrap on overflow (as the hardware's `add` and
//! `mul` do); float [`Min`] and [`Max`] ignore NaN, as PTX's `min.f32` and
//! Rust's `f32::min` do: their identity is NaN, so the result is NaN only
//! when every input is NaN (or there is none).
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
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a.wrapping_add(b) }
            #[inline(always)]
            fn identity(&self) -> $t { <$t as Zero>::zero() }
            #[inline(always)]
            fn redux(&self) -> Option<crate::__private::Redux> { redux_for!($width, Add, Add) }
        }
        impl Operator<$t> for Product {
            const COMMUTATIVE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a.wrapping_mul(b) }
            #[inline(always)]
            fn identity(&self) -> $t { <$t as One>::one() }
        }
        impl Operator<$t> for Min {
            const COMMUTATIVE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { if b < a { b } else { a } }
            #[inline(always)]
            fn identity(&self) -> $t { <$t as Bounded>::max_value() }
            #[inline(always)]
            fn redux(&self) -> Option<crate::__private::Redux> { redux_for!($width, MinSigned, MinUnsigned) }
        }
        impl Operator<$t> for Max {
            const COMMUTATIVE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { if b > a { b } else { a } }
            #[inline(always)]
            fn identity(&self) -> $t { <$t as Bounded>::min_value() }
            #[inline(always)]
            fn redux(&self) -> Option<crate::__private::Redux> { redux_for!($width, MaxSigned, MaxUnsigned) }
        }
        impl Operator<$t> for BitAnd {
            const COMMUTATIVE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a & b }
            #[inline(always)]
            fn identity(&self) -> $t { !<$t as Zero>::zero() }
            #[inline(always)]
            fn redux(&self) -> Option<crate::__private::Redux> { redux_for!($width, And, And) }
        }
        impl Operator<$t> for BitOr {
            const COMMUTATIVE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a | b }
            #[inline(always)]
            fn identity(&self) -> $t { <$t as Zero>::zero() }
            #[inline(always)]
            fn redux(&self) -> Option<crate::__private::Redux> { redux_for!($width, Or, Or) }
        }
        impl Operator<$t> for BitXor {
            const COMMUTATIVE: bool = true;
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
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a + b }
            #[inline(always)]
            fn identity(&self) -> $t { 0.0 }
        }
        impl Operator<$t> for Product {
            const COMMUTATIVE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a * b }
            #[inline(always)]
            fn identity(&self) -> $t { 1.0 }
        }
        impl Operator<$t> for Min {
            const COMMUTATIVE: bool = true;
            #[inline(always)]
            fn combine(&self, a: $t, b: $t) -> $t { a.min(b) }
            #[inline(always)]
            fn identity(&self) -> $t { <$t>::NAN }
        }
        impl Operator<$t> for Max {
            const COMMUTATIVE: bool = true;
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
