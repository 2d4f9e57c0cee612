//! Every `coop::math` function over a buffer of inputs, chosen by index,
//! for the accuracy tests (`tests/math_cases.rs`).

use coop::math::{FastMath, Math};
use coop::prelude::*;

/// The accurate functions, in the order `which` selects them; binary ones
/// take a fixed second operand.
pub const ACCURATE: [&str; 34] = [
    "sqrt",
    "rsqrt",
    "cbrt",
    "exp",
    "exp2",
    "exp10",
    "exp_m1",
    "ln",
    "log2",
    "log10",
    "ln_1p",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "erfc",
    "floor",
    "ceil",
    "trunc",
    "round",
    "round_ties_even",
    "powf(x, 2.5)",
    "hypot(x, 3)",
    "atan2(x, 0.75)",
    "mul_add(x, 1.5, 0.25)",
];

/// The fast approximations, in the order `which` selects them.
pub const FAST: [&str; 14] = [
    "exp_fast",
    "exp2_fast",
    "ln_fast",
    "log2_fast",
    "log10_fast",
    "powf_fast(x, 2.5)",
    "sin_fast",
    "cos_fast",
    "tan_fast",
    "tanh_fast",
    "rsqrt_fast",
    "sqrt_fast",
    "recip_fast",
    "div_fast(x, 3)",
];

#[inline(always)]
fn accurate<T: Math + From<f32>>(which: u32, x: T) -> T {
    let c = |v: f32| T::from(v);
    match which {
        0 => x.sqrt(),
        1 => x.rsqrt(),
        2 => x.cbrt(),
        3 => x.exp(),
        4 => x.exp2(),
        5 => x.exp10(),
        6 => x.exp_m1(),
        7 => x.ln(),
        8 => x.log2(),
        9 => x.log10(),
        10 => x.ln_1p(),
        11 => x.sin(),
        12 => x.cos(),
        13 => x.tan(),
        14 => x.asin(),
        15 => x.acos(),
        16 => x.atan(),
        17 => x.sinh(),
        18 => x.cosh(),
        19 => x.tanh(),
        20 => x.asinh(),
        21 => x.acosh(),
        22 => x.atanh(),
        23 => x.erf(),
        24 => x.erfc(),
        25 => x.floor(),
        26 => x.ceil(),
        27 => x.trunc(),
        28 => x.round(),
        29 => x.round_ties_even(),
        30 => x.powf(c(2.5)),
        31 => x.hypot(c(3.0)),
        32 => x.atan2(c(0.75)),
        _ => x.mul_add(c(1.5), c(0.25)),
    }
}

/// `out[i]` = accurate function `which` of `x[i]`, in `f32`.
#[kernel]
pub fn math_f32(grid: Grid, which: u32, x: &[f32], out: Out<f32>) {
    let i = grid.thread_rank();
    if i < x.len() {
        out.write(i, accurate(which, x[i]));
    }
}

/// `out[i]` = accurate function `which` of `x[i]`, in `f64`.
#[kernel]
pub fn math_f64(grid: Grid, which: u32, x: &[f64], out: Out<f64>) {
    let i = grid.thread_rank();
    if i < x.len() {
        out.write(i, accurate(which, x[i]));
    }
}

/// `out[i]` = fast function `which` of `x[i]`.
#[kernel]
pub fn math_fast_f32(grid: Grid, which: u32, x: &[f32], out: Out<f32>) {
    let i = grid.thread_rank();
    if i < x.len() {
        let x = x[i];
        out.write(
            i,
            match which {
                0 => x.exp_fast(),
                1 => x.exp2_fast(),
                2 => x.ln_fast(),
                3 => x.log2_fast(),
                4 => x.log10_fast(),
                5 => x.powf_fast(2.5),
                6 => x.sin_fast(),
                7 => x.cos_fast(),
                8 => x.tan_fast(),
                9 => x.tanh_fast(),
                10 => x.rsqrt_fast(),
                11 => x.sqrt_fast(),
                12 => x.recip_fast(),
                _ => x.div_fast(3.0),
            },
        );
    }
}
