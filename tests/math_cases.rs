//! The accuracy of `coop::math` against `f64` (for `f32`) and the host's
//! `f64` functions (for `f64`), over dense samples of each function's
//! domain, on any device; and, between devices, bit-identity of the
//! accurate functions.

use crate::kernels::math::{math_f32, math_f64, math_fast_f32, ACCURATE, FAST};
use coop_host::{Device, LaunchConfig, Program};

/// Samples a function: `n` points spread over `[lo, hi]`, log-spaced when
/// both are positive and `hi / lo` is large, plus special values.
fn samples(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let mut v: Vec<f64> = if lo > 0.0 && hi / lo > 1e3 {
        let (a, b) = (lo.ln(), hi.ln());
        (0..n)
            .map(|i| (a + (b - a) * i as f64 / (n - 1) as f64).exp())
            .collect()
    } else {
        (0..n)
            .map(|i| lo + (hi - lo) * i as f64 / (n - 1) as f64)
            .collect()
    };
    v.extend(
        [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5]
            .iter()
            .filter(|&&x| x >= lo && x <= hi),
    );
    v
}

/// The sampled domain of accurate function `name`.
fn domain(name: &str) -> (f64, f64) {
    match name {
        "sqrt" | "rsqrt" => (1e-30, 1e30),
        "cbrt" => (-1e30, 1e30),
        "exp" | "sinh" | "cosh" => (-87.0, 88.0),
        "exp2" => (-125.0, 127.0),
        "exp10" => (-37.0, 38.0),
        "exp_m1" => (-20.0, 88.0),
        "ln" | "log2" | "log10" => (1e-37, 1e37),
        "ln_1p" => (-0.999, 1e6),
        "sin" | "cos" | "tan" => (-1e4, 1e4),
        "asin" | "acos" | "atanh" => (-0.999_999, 0.999_999),
        "atan" | "asinh" => (-1e6, 1e6),
        "acosh" => (1.0, 1e6),
        "tanh" | "erf" => (-10.0, 10.0),
        "erfc" => (-5.0, 10.0),
        "powf(x, 2.5)" => (1e-15, 1e15),
        _ => (-1e4, 1e4),
    }
}

/// The host's value of accurate function `which` at `x`, in `f64`.
fn reference(which: usize, x: f64) -> f64 {
    match ACCURATE[which] {
        "sqrt" => x.sqrt(),
        "rsqrt" => 1.0 / x.sqrt(),
        "cbrt" => x.cbrt(),
        "exp" => x.exp(),
        "exp2" => x.exp2(),
        "exp10" => 10f64.powf(x),
        "exp_m1" => x.exp_m1(),
        "ln" => x.ln(),
        "log2" => x.log2(),
        "log10" => x.log10(),
        "ln_1p" => x.ln_1p(),
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atan" => x.atan(),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "tanh" => x.tanh(),
        "asinh" => x.asinh(),
        "acosh" => x.acosh(),
        "atanh" => x.atanh(),
        "erf" => erf(x),
        "erfc" => erfc(x),
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        "trunc" => x.trunc(),
        "round" => x.round(),
        "round_ties_even" => x.round_ties_even(),
        "powf(x, 2.5)" => x.powf(2.5),
        "hypot(x, 3)" => x.hypot(3.0),
        "atan2(x, 0.75)" => x.atan2(0.75),
        _ => x.mul_add(1.5, 0.25),
    }
}

/// `erfc` for the reference: the continued fraction far out (where
/// `1 - erf` would cancel), `1 - erf` elsewhere.
fn erfc(x: f64) -> f64 {
    if x >= 2.5 {
        erfc_far(x)
    } else if x <= -2.5 {
        2.0 - erfc_far(-x)
    } else {
        1.0 - erf(x)
    }
}

/// `erfc(a)` for `a >= 2.5`: `exp(-a²)/sqrt(pi)` over the continued
/// fraction `a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))`.
fn erfc_far(a: f64) -> f64 {
    let mut f = a;
    for k in (1..120).rev() {
        f = a + (k as f64 / 2.0) / f;
    }
    (-a * a).exp() / std::f64::consts::PI.sqrt() / f
}

/// `erf` for the reference (std has none): the series near 0, the
/// continued fraction of `erfc` far out, both to well below `f32`'s ulp.
fn erf(x: f64) -> f64 {
    if x.abs() < 2.5 {
        // erf x = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
        let (mut term, mut sum, x2) = (x, x, x * x);
        for n in 1..200 {
            term *= -x2 / n as f64;
            let add = term / (2 * n + 1) as f64;
            sum += add;
            if add.abs() < 1e-18 * sum.abs() {
                break;
            }
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else if x > 0.0 {
        1.0 - erfc_far(x)
    } else {
        erfc_far(-x) - 1.0
    }
}

/// The distance from `got` to `want` in units in the last place of `f32`
/// at `want` (0 when both are the same infinity or both NaN; infinite
/// when only one is NaN).
fn ulps_f32(got: f32, want: f64) -> f64 {
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let rounded = want as f32;
    if rounded.is_infinite() || got.is_infinite() {
        return if rounded == got { 0.0 } else { f64::INFINITY };
    }
    let exponent = (want.abs().max(f32::MIN_POSITIVE as f64)).log2().floor();
    let ulp = 2f64.powf(exponent - 23.0);
    (got as f64 - want).abs() / ulp
}

/// The same in units of `f64`.
fn ulps_f64(got: f64, want: f64) -> f64 {
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if got.is_infinite() || want.is_infinite() {
        return if got == want { 0.0 } else { f64::INFINITY };
    }
    let exponent = (want.abs().max(f64::MIN_POSITIVE)).log2().floor();
    let ulp = 2f64.powf(exponent - 52.0);
    (got - want).abs() / ulp
}

/// One function's measurement.
#[derive(Clone, Debug)]
pub struct Accuracy {
    /// The function, as in `ACCURATE` or `FAST`.
    pub name: &'static str,
    /// `"f32"`, `"f64"` or `"f32 fast"`.
    pub flavour: &'static str,
    /// The largest error over the samples, in ulps of the result's type.
    pub max_ulps: f64,
    /// The largest absolute error.
    pub max_abs: f64,
    /// The outputs, for comparing devices bit for bit.
    pub bits: Vec<u64>,
}

/// Runs `kernel` over `inputs` on `device`.
macro_rules! run {
    ($device:expr, $program:expr, $kernel:expr, $which:expr, $inputs:expr, $t:ty) => {{
        let x = $device.upload($inputs).unwrap();
        let mut out = $device.zeros::<$t>($inputs.len()).unwrap();
        let blocks = $inputs.len().div_ceil(256) as u32;
        $program
            .launch(
                $kernel,
                LaunchConfig::new(blocks, 256),
                ($which as u32, &x, &mut out),
            )
            .unwrap();
        $device.download(&out).unwrap()
    }};
}

/// Measures every function on `device` over `n` samples each.
pub fn measure(device: &Device, program: &Program, n: usize) -> Vec<Accuracy> {
    let mut all = Vec::new();
    for (which, &name) in ACCURATE.iter().enumerate() {
        let (lo, hi) = domain(name);
        let xs = samples(lo, hi, n);
        let x32: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
        let got = run!(device, program, math_f32, which, &x32, f32);
        let (mut max_ulps, mut max_abs) = (0f64, 0f64);
        for (&x, &g) in x32.iter().zip(&got) {
            let want = reference(which, x as f64);
            max_ulps = max_ulps.max(ulps_f32(g, want));
            if want.is_finite() {
                max_abs = max_abs.max((g as f64 - want).abs());
            }
        }
        let bits = got.iter().map(|g| g.to_bits() as u64).collect();
        all.push(Accuracy {
            name,
            flavour: "f32",
            max_ulps,
            max_abs,
            bits,
        });

        let got = run!(device, program, math_f64, which, &xs, f64);
        let (mut max_ulps, mut max_abs) = (0f64, 0f64);
        for (&x, &g) in xs.iter().zip(&got) {
            let want = reference(which, x);
            // No accurate f64 reference here: erf's is accurate to f32
            // only, and std's acosh and atanh are formulas of its own that
            // lose bits near 1.
            if !matches!(name, "erf" | "erfc" | "acosh" | "atanh") {
                max_ulps = max_ulps.max(ulps_f64(g, want));
            }
            if want.is_finite() {
                max_abs = max_abs.max((g - want).abs());
            }
        }
        let bits = got.iter().map(|g| g.to_bits()).collect();
        all.push(Accuracy {
            name,
            flavour: "f64",
            max_ulps,
            max_abs,
            bits,
        });
    }
    for (which, &name) in FAST.iter().enumerate() {
        let (lo, hi) = match name {
            "exp_fast" => (-87.0, 88.0),
            "exp2_fast" => (-125.0, 127.0),
            "sin_fast" | "cos_fast" => (-std::f64::consts::PI, std::f64::consts::PI),
            "tan_fast" => (-1.5, 1.5),
            "tanh_fast" => (-10.0, 10.0),
            "powf_fast(x, 2.5)" => (1e-15, 1e15),
            "recip_fast" | "div_fast(x, 3)" => (1e-30, 1e30),
            _ => (1e-30, 1e30),
        };
        let x32: Vec<f32> = samples(lo, hi, n).iter().map(|&x| x as f32).collect();
        let got = run!(device, program, math_fast_f32, which, &x32, f32);
        let (mut max_ulps, mut max_abs) = (0f64, 0f64);
        for (&x, &g) in x32.iter().zip(&got) {
            let x = x as f64;
            let want = match name {
                "exp_fast" => x.exp(),
                "exp2_fast" => x.exp2(),
                "ln_fast" => x.ln(),
                "log2_fast" => x.log2(),
                "log10_fast" => x.log10(),
                "powf_fast(x, 2.5)" => x.powf(2.5),
                "sin_fast" => x.sin(),
                "cos_fast" => x.cos(),
                "tan_fast" => x.tan(),
                "tanh_fast" => x.tanh(),
                "rsqrt_fast" => 1.0 / x.sqrt(),
                "sqrt_fast" => x.sqrt(),
                "recip_fast" => 1.0 / x,
                _ => x / 3.0,
            };
            max_ulps = max_ulps.max(ulps_f32(g, want));
            if want.is_finite() {
                max_abs = max_abs.max((g as f64 - want).abs());
            }
        }
        all.push(Accuracy {
            name,
            flavour: "f32 fast",
            max_ulps,
            max_abs,
            bits: Vec::new(),
        });
    }
    all
}

/// The documented bound of each function, in ulps (of `f32` for the `f32`
/// flavours, of `f64` for `f64`): what the guide's accuracy table states.
pub fn bound(flavour: &str, name: &str) -> f64 {
    match (flavour, name) {
        (_, "floor" | "ceil" | "trunc" | "round" | "round_ties_even" | "sqrt") => 0.5,
        (_, "mul_add(x, 1.5, 0.25)") => 0.5,
        ("f32 fast", _) => fast_bound(name),
        (_, "exp10") => 4.0,
        ("f32", "rsqrt") => 1.5,
        ("f32", "tan" | "tanh" | "sinh" | "cosh" | "asinh" | "acosh" | "atanh") => 2.0,
        ("f32", "powf(x, 2.5)" | "erf") => 2.0,
        ("f32", "erfc") => 3.0,
        // f64: the distance from the host's (glibc's) result, itself
        // within 1 ulp: up to 2 when the two err on opposite sides.
        ("f64", _) => 2.0,
        _ => 1.0,
    }
}

/// The bound of a fast function over the sampled domain, in `f32` ulps
/// (infinite where the bound is absolute instead: see
/// [`fast_abs_bound`]).
fn fast_bound(name: &str) -> f64 {
    match name {
        "sin_fast" | "cos_fast" | "tan_fast" | "ln_fast" | "log2_fast" | "log10_fast" => {
            f64::INFINITY
        }
        // e^x = 2^(x log2 e): rounding the product costs up to |x| ulps.
        "exp_fast" => 2.0 + 1.2 * 88.0,
        "powf_fast(x, 2.5)" | "tanh_fast" => 256.0,
        _ => 4.0,
    }
}

/// The absolute-error bound of the fast functions whose error is not
/// relative: `sin_fast`, `cos_fast` on `[-pi, pi]`, `tan_fast` on
/// `[-1.5, 1.5]`, and the logarithms (whose result is 0 at 1).
pub fn fast_abs_bound(name: &str) -> f64 {
    match name {
        "sin_fast" | "cos_fast" => 1e-6,
        "tan_fast" => 1e-4,
        "ln_fast" | "log2_fast" | "log10_fast" => 1.5e-5,
        _ => f64::INFINITY,
    }
}

/// Prints the table of `measured` (one line a function).
pub fn print(device: &Device, measured: &[Accuracy]) {
    eprintln!("accuracy on {}:", device.describe());
    for a in measured {
        eprintln!(
            "  {:>9} {:<24} max {:>10.3} ulp, max abs error {:.3e}",
            a.flavour, a.name, a.max_ulps, a.max_abs
        );
    }
}
