//! Maps for transform-reductions: what each element of an input becomes,
//! knowing its index, before an [`Operator`](crate::op::Operator) combines
//! the results. A map runs inside the reduction's loads, so the mapped
//! array is never stored.
//!
//! | map | `apply(i, x)` | output |
//! |---|---|---|
//! | [`Identity`] | `x` | `T` |
//! | [`Abs`] | `|x|` (integers: wrapping, so `MIN` stays `MIN`) | `T` |
//! | [`Square`] | `x * x` (integers wrap) | `T` |
//! | [`WithIndex`] | `x` and `i`, for arg-min and arg-max | [`Arg<T>`](crate::op::Arg) |
//! | [`CountIf`] | 1 when `x` compares to a threshold as asked, else 0 | `u64` |
//! | [`from_fn`] | your closure of `(i, x)` | what it returns |
//!
//! `coop::device::reduce::reduce_grid_map` reduces a whole input through a
//! map in one launch; `coop_host::reduce::Reducer` runs the built-in ones
//! (`sum_abs`, `sum_squares`, `max_abs`, `count_if`, `arg_max`, `arg_min`)
//! and your own kernels.
//!
//! ```
//! use coop::device::map::{self, Map};
//!
//! assert_eq!(map::Abs.apply(0, -2.5f32), 2.5);
//! assert_eq!(map::Square.apply(7, 3i64), 9);
//! assert_eq!(map::CountIf::greater(0.5f32).apply(0, 0.75), 1);
//! assert_eq!(map::WithIndex.apply(41, 1.5f64).index(), 41);
//! let scaled = map::from_fn(|i: usize, x: f32| x * i as f32);
//! assert_eq!(scaled.apply(3, 0.5), 1.5);
//! ```

use crate::Shuffle;
use crate::op::{Arg, Ordered};

/// What an element of an input becomes before it is reduced: a function of
/// its index in the input and its value.
///
/// `apply` must be a pure function of its arguments: the reduction calls it
/// once per element, in an order that depends on the launch.
///
/// ```
/// use coop::device::map::Map;
///
/// /// An element's distance from its index (how far a permutation moves it).
/// #[derive(Clone, Copy)]
/// pub struct Displacement;
///
/// impl Map<u32> for Displacement {
///     type Output = u64;
///     fn apply(&self, index: usize, value: u32) -> u64 {
///         (value as i64 - index as i64).unsigned_abs()
///     }
/// }
///
/// assert_eq!(Displacement.apply(5, 2), 3);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a map of `{T}`",
    label = "this is not a `Map<{T}>`",
    note = "implement `coop::device::map::Map<{T}>` for it, or wrap a closure `|index, value| ...` in `coop::device::map::from_fn`"
)]
pub trait Map<T>: Copy {
    /// What an element becomes.
    type Output: Shuffle;

    /// Element `value`, found at `index` of the input, mapped.
    fn apply(&self, index: usize, value: T) -> Self::Output;
}

/// Each element as it is: a plain reduction.
///
/// ```
/// use coop::device::map::{Identity, Map};
/// assert_eq!(Identity.apply(3, 7u8), 7);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Identity;

impl<T: Shuffle> Map<T> for Identity {
    type Output = T;
    #[inline(always)]
    fn apply(&self, _index: usize, value: T) -> T {
        value
    }
}

/// The absolute value: for floats the sign bit cleared (`abs` of a NaN is
/// a NaN), for signed integers wrapping (`i32::MIN` stays `i32::MIN`, as
/// the hardware's `abs.s32` gives), for unsigned integers the value.
///
/// ```
/// use coop::device::map::{Abs, Map};
/// assert_eq!(Abs.apply(0, -3i32), 3);
/// assert_eq!(Abs.apply(0, i32::MIN), i32::MIN);
/// assert_eq!(Abs.apply(0, -0.0f64).to_bits(), 0);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Abs;

/// The square `x * x` (integers wrap on overflow).
///
/// ```
/// use coop::device::map::{Map, Square};
/// assert_eq!(Square.apply(0, -1.5f32), 2.25);
/// assert_eq!(Square.apply(0, 1u32 << 16), 0); // wraps
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Square;

macro_rules! signed_maps {
    ($($t:ty),*) => {$(
        impl Map<$t> for Abs {
            type Output = $t;
            #[inline(always)]
            fn apply(&self, _index: usize, value: $t) -> $t { value.wrapping_abs() }
        }
        impl Map<$t> for Square {
            type Output = $t;
            #[inline(always)]
            fn apply(&self, _index: usize, value: $t) -> $t { value.wrapping_mul(value) }
        }
    )*};
}
signed_maps!(i8, i16, i32, i64, isize);

macro_rules! unsigned_maps {
    ($($t:ty),*) => {$(
        impl Map<$t> for Abs {
            type Output = $t;
            #[inline(always)]
            fn apply(&self, _index: usize, value: $t) -> $t { value }
        }
        impl Map<$t> for Square {
            type Output = $t;
            #[inline(always)]
            fn apply(&self, _index: usize, value: $t) -> $t { value.wrapping_mul(value) }
        }
    )*};
}
unsigned_maps!(u8, u16, u32, u64, usize);

macro_rules! float_maps {
    ($($t:ty: $bits:ty),*) => {$(
        impl Map<$t> for Abs {
            type Output = $t;
            #[inline(always)]
            fn apply(&self, _index: usize, value: $t) -> $t {
                <$t>::from_bits(value.to_bits() & (<$bits>::MAX >> 1))
            }
        }
        impl Map<$t> for Square {
            type Output = $t;
            #[inline(always)]
            fn apply(&self, _index: usize, value: $t) -> $t { value * value }
        }
    )*};
}
float_maps!(f32: u32, f64: u64);

/// The element and its index, as an [`Arg`]: reduced with
/// [`op::ArgMax`](crate::op::ArgMax) or [`op::ArgMin`](crate::op::ArgMin),
/// the position of the largest or smallest element.
///
/// ```
/// use coop::device::map::{Map, WithIndex};
/// let a = WithIndex.apply(12, -4i32);
/// assert_eq!((a.index(), a.value), (12, -4));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct WithIndex;

impl<T: Ordered> Map<T> for WithIndex {
    type Output = Arg<T>;
    #[inline(always)]
    fn apply(&self, index: usize, value: T) -> Arg<T> {
        Arg::new(index, value)
    }
}

/// How [`CountIf`] compares an element `x` with its threshold `t`.
///
/// A NaN compares false with everything, so it is counted by
/// [`NotEqual`](Compare::NotEqual) only (and by [`CountIf::nan`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Compare {
    /// `x < t`
    Less = 0,
    /// `x <= t`
    LessOrEqual = 1,
    /// `x > t`
    Greater = 2,
    /// `x >= t`
    GreaterOrEqual = 3,
    /// `x == t`
    Equal = 4,
    /// `x != t`
    NotEqual = 5,
    /// `x` is NaN (the threshold is unused; integers are never NaN)
    IsNan = 6,
}

impl Compare {
    /// The comparison with code `code` (its `as u32` value), as kernels
    /// receive it; `None` for a code that names none.
    ///
    /// ```
    /// use coop::device::map::Compare;
    /// assert_eq!(Compare::from_code(Compare::Greater as u32), Some(Compare::Greater));
    /// assert_eq!(Compare::from_code(7), None);
    /// ```
    pub const fn from_code(code: u32) -> Option<Compare> {
        Some(match code {
            0 => Compare::Less,
            1 => Compare::LessOrEqual,
            2 => Compare::Greater,
            3 => Compare::GreaterOrEqual,
            4 => Compare::Equal,
            5 => Compare::NotEqual,
            6 => Compare::IsNan,
            _ => return None,
        })
    }
}

/// 1 for an element that compares with the threshold as asked, 0 for
/// another: reduced with [`op::Sum`](crate::op::Sum), a count.
///
/// ```
/// use coop::device::map::{Compare, CountIf, Map};
/// let positive = CountIf::greater(0i32);
/// assert_eq!([3, -1, 0, 8].iter().map(|&x| positive.apply(0, x)).sum::<u64>(), 2);
/// assert_eq!(CountIf::new(Compare::NotEqual, 1.0f32).apply(0, f32::NAN), 1);
/// assert_eq!(CountIf::nan().apply(0, f64::NAN), 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CountIf<T> {
    /// The comparison.
    pub compare: Compare,
    /// What elements are compared with.
    pub threshold: T,
}

impl<T: Ordered> CountIf<T> {
    /// Counts the elements `x` with `x compare threshold`.
    pub const fn new(compare: Compare, threshold: T) -> Self {
        CountIf { compare, threshold }
    }
    /// Counts `x > threshold`.
    pub const fn greater(threshold: T) -> Self {
        CountIf::new(Compare::Greater, threshold)
    }
    /// Counts `x < threshold`.
    pub const fn less(threshold: T) -> Self {
        CountIf::new(Compare::Less, threshold)
    }
    /// Counts `x == value`.
    pub const fn equal(value: T) -> Self {
        CountIf::new(Compare::Equal, value)
    }
    /// Counts the NaNs (none for integers).
    pub fn nan() -> Self {
        CountIf::new(Compare::IsNan, T::LOWEST)
    }
    /// Whether `x` is counted.
    #[inline(always)]
    pub fn test(&self, x: T) -> bool {
        let t = self.threshold;
        match self.compare {
            Compare::Less => x < t,
            Compare::LessOrEqual => x <= t,
            Compare::Greater => x > t,
            Compare::GreaterOrEqual => x >= t,
            Compare::Equal => x == t,
            Compare::NotEqual => x != t,
            Compare::IsNan => x.is_nan(),
        }
    }
}

impl<T: Ordered> Map<T> for CountIf<T> {
    type Output = u64;
    #[inline(always)]
    fn apply(&self, _index: usize, value: T) -> u64 {
        self.test(value) as u64
    }
}

/// A map from a closure of `(index, value)`; see [`from_fn`].
#[derive(Clone, Copy, Debug)]
pub struct FnMap<F>(F);

/// A map from a closure `|index, value| ...`, which must be a pure
/// function (no state, no side effects).
///
/// ```
/// use coop::device::map::{self, Map};
/// let weighted = map::from_fn(|i: usize, x: f64| x * (i + 1) as f64);
/// assert_eq!(weighted.apply(1, 0.25), 0.5);
/// ```
pub fn from_fn<T, U: Shuffle, F: Fn(usize, T) -> U + Copy>(f: F) -> FnMap<F> {
    FnMap(f)
}

impl<T, U: Shuffle, F: Fn(usize, T) -> U + Copy> Map<T> for FnMap<F> {
    type Output = U;
    #[inline(always)]
    fn apply(&self, index: usize, value: T) -> U {
        (self.0)(index, value)
    }
}
