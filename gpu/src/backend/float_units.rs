//! The GPU's floating-point instructions that `coop::math` uses directly:
//! the correctly rounded ones (square root, fused multiply-add, rounding
//! to an integer), whose results the CPU backend reproduces bit for bit,
//! and the fast approximations (`.approx`), which it does not.

/// How [`FloatUnits::round_f32`] rounds to an integer value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ToInteger {
    /// Towards negative infinity (`cvt.rmi`).
    Floor,
    /// Towards positive infinity (`cvt.rpi`).
    Ceil,
    /// Towards zero (`cvt.rzi`).
    Trunc,
    /// To the nearest, ties to even (`cvt.rni`).
    NearestEven,
}

/// Floating-point instructions. No operation has a precondition: every
/// input, NaN and infinities included, gives the instruction's result.
pub(crate) trait FloatUnits {
    /// `sqrt(x)`, correctly rounded. PTX `sqrt.rn.f32`. CPU: the IEEE
    /// square root (also correctly rounded: the same bits).
    fn sqrt_f32(x: f32) -> f32;
    /// PTX `sqrt.rn.f64`; CPU as for `f32`.
    fn sqrt_f64(x: f64) -> f64;
    /// `a * b + c` with one rounding. PTX `fma.rn.f32`. CPU: the IEEE
    /// fused multiply-add (the same bits).
    fn fma_f32(a: f32, b: f32, c: f32) -> f32;
    /// PTX `fma.rn.f64`; CPU as for `f32`.
    fn fma_f64(a: f64, b: f64, c: f64) -> f64;
    /// `x` rounded to an integer value by `mode`. PTX `cvt.{rmi,rpi,rzi,rni}.f32.f32`
    /// (exact). CPU: the same rounding (exact).
    fn round_f32(x: f32, mode: ToInteger) -> f32;
    /// PTX `cvt.{rmi,rpi,rzi,rni}.f64.f64`; CPU as for `f32`.
    fn round_f64(x: f64, mode: ToInteger) -> f64;
    /// `2^x`, approximately. PTX `ex2.approx.f32`. CPU: `2^x` accurately
    /// (within the GPU's bound of the GPU's result, not its bits).
    fn ex2_approx(x: f32) -> f32;
    /// `log2(x)`, approximately. PTX `lg2.approx.f32`. CPU: accurate.
    fn lg2_approx(x: f32) -> f32;
    /// `sin(x)`, approximately. PTX `sin.approx.f32`. CPU: accurate.
    fn sin_approx(x: f32) -> f32;
    /// `cos(x)`, approximately. PTX `cos.approx.f32`. CPU: accurate.
    fn cos_approx(x: f32) -> f32;
    /// `tanh(x)`, approximately. PTX `tanh.approx.f32` (sm_75 and
    /// later). CPU: accurate.
    fn tanh_approx(x: f32) -> f32;
    /// `1 / sqrt(x)`, approximately. PTX `rsqrt.approx.f32`. CPU:
    /// `1 / sqrt(x)` with two roundings.
    fn rsqrt_approx(x: f32) -> f32;
    /// `sqrt(x)`, approximately. PTX `sqrt.approx.f32`. CPU: correctly
    /// rounded.
    fn sqrt_approx(x: f32) -> f32;
    /// `1 / x`, approximately. PTX `rcp.approx.f32`. CPU: correctly
    /// rounded.
    fn rcp_approx(x: f32) -> f32;
    /// `x / y`, approximately. PTX `div.approx.f32`. CPU: correctly
    /// rounded.
    fn div_approx(x: f32, y: f32) -> f32;
}
