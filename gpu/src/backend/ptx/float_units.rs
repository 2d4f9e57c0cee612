//! Floating-point instructions: `sqrt.rn`, `fma.rn`, `cvt.r*i`, and the
//! `.approx` family.

use super::Ptx;
use crate::backend::{FloatUnits, ToInteger};
use core::arch::asm;

/// One instruction `$inst d, a;` on `f32` registers.
macro_rules! unary_f32 {
    ($inst:literal, $x:expr) => {{
        let y: f32;
        // SAFETY: a register-only arithmetic instruction.
        unsafe { asm!(concat!($inst, " {y}, {x};"), y = out(reg32) y, x = in(reg32) $x, options(pure, nomem, nostack)) };
        y
    }};
}

/// One instruction `$inst d, a;` on `f64` registers.
macro_rules! unary_f64 {
    ($inst:literal, $x:expr) => {{
        let y: f64;
        // SAFETY: a register-only arithmetic instruction.
        unsafe { asm!(concat!($inst, " {y}, {x};"), y = out(reg64) y, x = in(reg64) $x, options(pure, nomem, nostack)) };
        y
    }};
}

impl FloatUnits for Ptx {
    #[inline(always)]
    fn sqrt_f32(x: f32) -> f32 {
        unary_f32!("sqrt.rn.f32", x)
    }

    #[inline(always)]
    fn sqrt_f64(x: f64) -> f64 {
        unary_f64!("sqrt.rn.f64", x)
    }

    #[inline(always)]
    fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
        let d: f32;
        // SAFETY: a register-only arithmetic instruction.
        unsafe {
            asm!("fma.rn.f32 {d}, {a}, {b}, {c};", d = out(reg32) d, a = in(reg32) a,
                b = in(reg32) b, c = in(reg32) c, options(pure, nomem, nostack))
        };
        d
    }

    #[inline(always)]
    fn fma_f64(a: f64, b: f64, c: f64) -> f64 {
        let d: f64;
        // SAFETY: a register-only arithmetic instruction.
        unsafe {
            asm!("fma.rn.f64 {d}, {a}, {b}, {c};", d = out(reg64) d, a = in(reg64) a,
                b = in(reg64) b, c = in(reg64) c, options(pure, nomem, nostack))
        };
        d
    }

    #[inline(always)]
    fn round_f32(x: f32, mode: ToInteger) -> f32 {
        match mode {
            ToInteger::Floor => unary_f32!("cvt.rmi.f32.f32", x),
            ToInteger::Ceil => unary_f32!("cvt.rpi.f32.f32", x),
            ToInteger::Trunc => unary_f32!("cvt.rzi.f32.f32", x),
            ToInteger::NearestEven => unary_f32!("cvt.rni.f32.f32", x),
        }
    }

    #[inline(always)]
    fn round_f64(x: f64, mode: ToInteger) -> f64 {
        match mode {
            ToInteger::Floor => unary_f64!("cvt.rmi.f64.f64", x),
            ToInteger::Ceil => unary_f64!("cvt.rpi.f64.f64", x),
            ToInteger::Trunc => unary_f64!("cvt.rzi.f64.f64", x),
            ToInteger::NearestEven => unary_f64!("cvt.rni.f64.f64", x),
        }
    }

    #[inline(always)]
    fn ex2_approx(x: f32) -> f32 {
        unary_f32!("ex2.approx.f32", x)
    }

    #[inline(always)]
    fn lg2_approx(x: f32) -> f32 {
        unary_f32!("lg2.approx.f32", x)
    }

    #[inline(always)]
    fn sin_approx(x: f32) -> f32 {
        unary_f32!("sin.approx.f32", x)
    }

    #[inline(always)]
    fn cos_approx(x: f32) -> f32 {
        unary_f32!("cos.approx.f32", x)
    }

    #[inline(always)]
    fn tanh_approx(x: f32) -> f32 {
        unary_f32!("tanh.approx.f32", x)
    }

    #[inline(always)]
    fn rsqrt_approx(x: f32) -> f32 {
        unary_f32!("rsqrt.approx.f32", x)
    }

    #[inline(always)]
    fn sqrt_approx(x: f32) -> f32 {
        unary_f32!("sqrt.approx.f32", x)
    }

    #[inline(always)]
    fn rcp_approx(x: f32) -> f32 {
        unary_f32!("rcp.approx.f32", x)
    }

    #[inline(always)]
    fn div_approx(x: f32, y: f32) -> f32 {
        let d: f32;
        // SAFETY: a register-only arithmetic instruction.
        unsafe {
            asm!("div.approx.f32 {d}, {x}, {y};", d = out(reg32) d, x = in(reg32) x,
                y = in(reg32) y, options(pure, nomem, nostack))
        };
        d
    }
}
