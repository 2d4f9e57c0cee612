//! Floating-point instructions on the CPU: the correctly rounded ones give
//! the GPU's bits; the approximations are computed accurately (within the
//! GPU's documented bound of its result).

use super::super::Cpu;
use crate::backend::{FloatUnits, ToInteger};

impl FloatUnits for Cpu {
    fn sqrt_f32(x: f32) -> f32 {
        libm::sqrtf(x)
    }

    fn sqrt_f64(x: f64) -> f64 {
        libm::sqrt(x)
    }

    fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
        libm::fmaf(a, b, c)
    }

    fn fma_f64(a: f64, b: f64, c: f64) -> f64 {
        libm::fma(a, b, c)
    }

    fn round_f32(x: f32, mode: ToInteger) -> f32 {
        match mode {
            ToInteger::Floor => libm::floorf(x),
            ToInteger::Ceil => libm::ceilf(x),
            ToInteger::Trunc => libm::truncf(x),
            ToInteger::NearestEven => libm::roundevenf(x),
        }
    }

    fn round_f64(x: f64, mode: ToInteger) -> f64 {
        match mode {
            ToInteger::Floor => libm::floor(x),
            ToInteger::Ceil => libm::ceil(x),
            ToInteger::Trunc => libm::trunc(x),
            ToInteger::NearestEven => libm::roundeven(x),
        }
    }

    fn ex2_approx(x: f32) -> f32 {
        libm::exp2f(x)
    }

    fn lg2_approx(x: f32) -> f32 {
        libm::log2f(x)
    }

    fn sin_approx(x: f32) -> f32 {
        libm::sinf(x)
    }

    fn cos_approx(x: f32) -> f32 {
        libm::cosf(x)
    }

    fn tanh_approx(x: f32) -> f32 {
        libm::tanhf(x)
    }

    fn rsqrt_approx(x: f32) -> f32 {
        1.0 / libm::sqrtf(x)
    }

    fn sqrt_approx(x: f32) -> f32 {
        libm::sqrtf(x)
    }

    fn rcp_approx(x: f32) -> f32 {
        1.0 / x
    }

    fn div_approx(x: f32, y: f32) -> f32 {
        x / y
    }
}
