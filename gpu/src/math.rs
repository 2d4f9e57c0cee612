//! Floating-point math in kernels: [`Math`], the functions a numerical
//! kernel expects as methods of `f32` and `f64` (in the prelude), and
//! [`FastMath`], the GPU's fast approximations for `f32`.
//!
//! A `#![no_std]` kernel crate has no `f32::exp`; with the prelude in
//! scope, `x.exp()` is [`Math::exp`] on both targets.
//!
//! | flavour | how | accuracy | CPU backend |
//! |---|---|---|---|
//! | [`Math`]: `sqrt`, `mul_add`, `floor`, `ceil`, `trunc`, `round_ties_even`, `abs`, `copysign` | one PTX instruction (`sqrt.rn`, `fma.rn`, `cvt.rmi`, ...) | correctly rounded or exact | the same bits |
//! | [`Math`]: `exp`, `ln`, `sin`, `pow`, `tanh`, ... | the `libm` crate's algorithms, compiled for the GPU | the bounds in the [guide](crate::guide::math), measured | the same code: the same bits |
//! | [`FastMath`]: `exp_fast`, `sin_fast`, `rsqrt_fast`, ... | one or two `.approx` instructions (`ex2.approx`, `sin.approx`, ...) | the bounds in the guide, measured on an H100 | the accurate result, within those bounds of the GPU's |
//!
//! ```
//! use coop::prelude::*;
//! use coop_host::{Cpu, LaunchConfig};
//!
//! /// A numerically stable softmax of one row, one thread.
//! #[kernel]
//! pub fn softmax(grid: Grid, row: &[f32], out: Out<f32>) {
//!     if grid.thread_rank() == 0 {
//!         let max = row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x));
//!         let total: f32 = row.iter().map(|&x| Math::exp(x - max)).sum();
//!         for (i, &x) in row.iter().enumerate() {
//!             out.write(i, Math::exp(x - max) / total);
//!         }
//!     }
//! }
//!
//! let row = [1.0f32, 2.0, 3.0];
//! let mut out = vec![0.0f32; 3];
//! Cpu::new().launch(softmax, LaunchConfig::new(1, 32), (&row[..], &mut out))?;
//! assert!((out[2] - 0.665_240_9).abs() < 1e-6);
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! (In a crate that uses `std`, such as this example, `std`'s inherent
//! `f32::exp` wins over the trait method: call `Math::exp(x)` there to get
//! coop's, as the example does. In a `#![no_std]` kernel crate, `x.exp()`
//! is coop's.)

use crate::backend::target::Target;
use crate::backend::{FloatUnits, ToInteger};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// Math functions of `f32` and `f64` for kernels, with the same names and
/// meanings as `std`'s. See the [module](self) for how each is computed
/// and the guide for the accuracy of each.
pub trait Math: Copy + sealed::Sealed {
    /// The square root, correctly rounded (`sqrt.rn`); NaN for negative
    /// inputs.
    fn sqrt(self) -> Self;
    /// `1 / sqrt(self)`, rounded twice (within 1 ulp).
    fn rsqrt(self) -> Self;
    /// The cube root.
    fn cbrt(self) -> Self;
    /// `sqrt(self² + other²)` without overflow in between.
    fn hypot(self, other: Self) -> Self;
    /// `self * a + b` with one rounding (`fma.rn`).
    #[doc(alias = "fma")]
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// The largest integer value not above `self` (`cvt.rmi`).
    fn floor(self) -> Self;
    /// The smallest integer value not below `self` (`cvt.rpi`).
    fn ceil(self) -> Self;
    /// The integer part (`cvt.rzi`).
    fn trunc(self) -> Self;
    /// The nearest integer value, halves away from zero (`std`'s
    /// `round`).
    fn round(self) -> Self;
    /// The nearest integer value, halves to even (`cvt.rni`).
    fn round_ties_even(self) -> Self;
    /// The absolute value.
    fn abs(self) -> Self;
    /// `self`'s magnitude with `sign`'s sign.
    fn copysign(self, sign: Self) -> Self;
    /// `e^self`.
    fn exp(self) -> Self;
    /// `2^self`.
    fn exp2(self) -> Self;
    /// `10^self`.
    fn exp10(self) -> Self;
    /// `e^self - 1`, accurate near 0.
    fn exp_m1(self) -> Self;
    /// The natural logarithm; NaN below 0, `-inf` at 0.
    fn ln(self) -> Self;
    /// The base-2 logarithm.
    fn log2(self) -> Self;
    /// The base-10 logarithm.
    fn log10(self) -> Self;
    /// `ln(1 + self)`, accurate near 0.
    fn ln_1p(self) -> Self;
    /// `self^n` for a float `n`.
    fn powf(self, n: Self) -> Self;
    /// `self^n` for an integer `n` (through `powf`, so as accurate).
    fn powi(self, n: i32) -> Self;
    /// The sine (radians).
    fn sin(self) -> Self;
    /// The cosine.
    fn cos(self) -> Self;
    /// The tangent.
    fn tan(self) -> Self;
    /// `(sin, cos)` in one call.
    fn sin_cos(self) -> (Self, Self);
    /// The arcsine, in `[-pi/2, pi/2]`.
    fn asin(self) -> Self;
    /// The arccosine, in `[0, pi]`.
    fn acos(self) -> Self;
    /// The arctangent, in `[-pi/2, pi/2]`.
    fn atan(self) -> Self;
    /// The angle of `(other, self)`, in `[-pi, pi]`.
    fn atan2(self, other: Self) -> Self;
    /// The hyperbolic sine.
    fn sinh(self) -> Self;
    /// The hyperbolic cosine.
    fn cosh(self) -> Self;
    /// The hyperbolic tangent.
    fn tanh(self) -> Self;
    /// The inverse hyperbolic sine.
    fn asinh(self) -> Self;
    /// The inverse hyperbolic cosine.
    fn acosh(self) -> Self;
    /// The inverse hyperbolic tangent.
    fn atanh(self) -> Self;
    /// The error function.
    fn erf(self) -> Self;
    /// `1 - erf(self)`, accurate for large `self`.
    fn erfc(self) -> Self;
}

macro_rules! math_impl {
    ($t:ty, $sqrt:ident, $fma:ident, $round:ident,
     $($name:ident => $libm:ident),* ; $($name2:ident => $libm2:ident),*) => {
        impl Math for $t {
            #[inline(always)]
            fn sqrt(self) -> Self {
                Target::$sqrt(self)
            }
            #[inline(always)]
            fn rsqrt(self) -> Self {
                1.0 / Target::$sqrt(self)
            }
            #[inline(always)]
            fn mul_add(self, a: Self, b: Self) -> Self {
                Target::$fma(self, a, b)
            }
            #[inline(always)]
            fn floor(self) -> Self {
                Target::$round(self, ToInteger::Floor)
            }
            #[inline(always)]
            fn ceil(self) -> Self {
                Target::$round(self, ToInteger::Ceil)
            }
            #[inline(always)]
            fn trunc(self) -> Self {
                Target::$round(self, ToInteger::Trunc)
            }
            #[inline(always)]
            fn round_ties_even(self) -> Self {
                Target::$round(self, ToInteger::NearestEven)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::from_bits(self.to_bits() & !(1 << (<$t>::BITS_ - 1)))
            }
            #[inline(always)]
            fn copysign(self, sign: Self) -> Self {
                let high = 1 << (<$t>::BITS_ - 1);
                <$t>::from_bits((self.to_bits() & !high) | (sign.to_bits() & high))
            }
            #[inline(always)]
            fn powi(self, n: i32) -> Self {
                self.powf(n as $t)
            }
            #[inline(always)]
            fn sin_cos(self) -> (Self, Self) {
                (self.sin(), self.cos())
            }
            $(
                #[inline(always)]
                fn $name(self) -> Self {
                    libm::$libm(self)
                }
            )*
            $(
                #[inline(always)]
                fn $name2(self, other: Self) -> Self {
                    libm::$libm2(self, other)
                }
            )*
        }
    };
}

/// Bit widths, for `abs` and `copysign`.
trait Bits {
    const BITS_: u32;
}
impl Bits for f32 {
    const BITS_: u32 = 32;
}
impl Bits for f64 {
    const BITS_: u32 = 64;
}

math_impl!(f32, sqrt_f32, fma_f32, round_f32,
    cbrt => cbrtf, round => roundf, exp => expf, exp2 => exp2f, exp10 => exp10f,
    exp_m1 => expm1f, ln => logf, log2 => log2f, log10 => log10f, ln_1p => log1pf,
    sin => sinf, cos => cosf, tan => tanf, asin => asinf, acos => acosf, atan => atanf,
    sinh => sinhf, cosh => coshf, tanh => tanhf, asinh => asinhf, acosh => acoshf,
    atanh => atanhf, erf => erff, erfc => erfcf;
    hypot => hypotf, powf => powf, atan2 => atan2f);

math_impl!(f64, sqrt_f64, fma_f64, round_f64,
    cbrt => cbrt, round => round, exp => exp, exp2 => exp2, exp10 => exp10,
    exp_m1 => expm1, ln => log, log2 => log2, log10 => log10, ln_1p => log1p,
    sin => sin, cos => cos, tan => tan, asin => asin, acos => acos, atan => atan,
    sinh => sinh, cosh => cosh, tanh => tanh, asinh => asinh, acosh => acosh,
    atanh => atanh, erf => erf, erfc => erfc;
    hypot => hypot, powf => pow, atan2 => atan2);

/// The GPU's fast approximations of `f32` functions (CUDA's `__expf`,
/// `__sinf`, ...): one or two `.approx` instructions each, several times
/// faster than [`Math`]'s and less accurate (the guide gives each one's
/// bound, measured on an H100). On the CPU backend they return the
/// accurate value, which lies within that bound of the GPU's.
///
/// ```
/// use coop::math::FastMath;
/// use coop::prelude::*;
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// A Gaussian, where a few ulps do not matter.
/// #[kernel]
/// pub fn gaussian(grid: Grid, x: &[f32], out: Out<f32>) {
///     let i = grid.thread_rank();
///     if i < x.len() {
///         out.write(i, (-0.5 * x[i] * x[i]).exp_fast());
///     }
/// }
///
/// let x = [0.0f32, 1.0, 2.0];
/// let mut out = vec![0.0f32; 3];
/// Cpu::new().launch(gaussian, LaunchConfig::new(1, 32), (&x[..], &mut out))?;
/// assert!((out[1] - 0.606_530_7).abs() < 1e-6);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub trait FastMath: Copy + sealed::Sealed {
    /// `e^self`: `ex2.approx` of `self * log2(e)`.
    fn exp_fast(self) -> Self;
    /// `2^self`: `ex2.approx`.
    fn exp2_fast(self) -> Self;
    /// The natural logarithm: `lg2.approx` times `ln(2)`.
    fn ln_fast(self) -> Self;
    /// The base-2 logarithm: `lg2.approx`.
    fn log2_fast(self) -> Self;
    /// The base-10 logarithm: `lg2.approx` times `log10(2)`.
    fn log10_fast(self) -> Self;
    /// `self^n`: `ex2.approx(n * lg2.approx(self))`, for `self > 0`.
    fn powf_fast(self, n: Self) -> Self;
    /// The sine: `sin.approx` (accurate for `|self|` up to about `pi`,
    /// degrading beyond).
    fn sin_fast(self) -> Self;
    /// The cosine: `cos.approx`.
    fn cos_fast(self) -> Self;
    /// The tangent: `sin.approx / cos.approx` (`div.approx`).
    fn tan_fast(self) -> Self;
    /// The hyperbolic tangent: `tanh.approx`.
    fn tanh_fast(self) -> Self;
    /// `1 / sqrt(self)`: `rsqrt.approx`.
    fn rsqrt_fast(self) -> Self;
    /// The square root: `sqrt.approx`.
    fn sqrt_fast(self) -> Self;
    /// `1 / self`: `rcp.approx`.
    fn recip_fast(self) -> Self;
    /// `self / other`: `div.approx`.
    fn div_fast(self, other: Self) -> Self;
}

impl FastMath for f32 {
    #[inline(always)]
    fn exp_fast(self) -> f32 {
        Target::ex2_approx(self * core::f32::consts::LOG2_E)
    }
    #[inline(always)]
    fn exp2_fast(self) -> f32 {
        Target::ex2_approx(self)
    }
    #[inline(always)]
    fn ln_fast(self) -> f32 {
        Target::lg2_approx(self) * core::f32::consts::LN_2
    }
    #[inline(always)]
    fn log2_fast(self) -> f32 {
        Target::lg2_approx(self)
    }
    #[inline(always)]
    fn log10_fast(self) -> f32 {
        Target::lg2_approx(self) * core::f32::consts::LOG10_2
    }
    #[inline(always)]
    fn powf_fast(self, n: f32) -> f32 {
        Target::ex2_approx(n * Target::lg2_approx(self))
    }
    #[inline(always)]
    fn sin_fast(self) -> f32 {
        Target::sin_approx(self)
    }
    #[inline(always)]
    fn cos_fast(self) -> f32 {
        Target::cos_approx(self)
    }
    #[inline(always)]
    fn tan_fast(self) -> f32 {
        Target::div_approx(Target::sin_approx(self), Target::cos_approx(self))
    }
    #[inline(always)]
    fn tanh_fast(self) -> f32 {
        Target::tanh_approx(self)
    }
    #[inline(always)]
    fn rsqrt_fast(self) -> f32 {
        Target::rsqrt_approx(self)
    }
    #[inline(always)]
    fn sqrt_fast(self) -> f32 {
        Target::sqrt_approx(self)
    }
    #[inline(always)]
    fn recip_fast(self) -> f32 {
        Target::rcp_approx(self)
    }
    #[inline(always)]
    fn div_fast(self, other: f32) -> f32 {
        Target::div_approx(self, other)
    }
}
