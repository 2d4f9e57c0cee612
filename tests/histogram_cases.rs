//! Histograms checked against host references, on any device: even bins
//! and bins between levels for the seven sample types, one channel and
//! pixels, lengths around the 16-byte chunks and unaligned starts, bins
//! counted in shared memory (with one set of counters and with several)
//! and in global memory, uniform and skewed samples, and the errors of bad
//! arguments.

use crate::Rng;
use coop_host::histogram::{self, BuiltinHistogram, EvenBins, Histogrammer};
use coop_host::{Device, Error, Input, Output};

/// A sample type the cases draw: from random bits, spread over about
/// `[-spread, spread)` (non-negative for unsigned types).
pub trait Draw: BuiltinHistogram + PartialOrd + Default {
    /// Whether it has negative values.
    const SIGNED: bool;
    fn draw(bits: u64, spread: u32) -> Self;
    /// A level near `v`.
    fn level_of(v: f64) -> Self::Level;
    /// The sample as a level.
    fn as_level(self) -> Self::Level;
    /// The exact even bin, as `(s − lower) × bins / (upper − lower)`.
    fn exact_bin(self, lower: Self::Level, upper: Self::Level, bins: usize) -> Option<usize>;
}

macro_rules! ints {
    ($($t:ty, $signed:expr;)*) => {$(
        impl Draw for $t {
            const SIGNED: bool = $signed;
            fn draw(bits: u64, spread: u32) -> Self {
                let v = (bits % (2 * spread as u64)) as i64 - if $signed { spread as i64 } else { 0 };
                v.clamp(<$t>::MIN as i64, <$t>::MAX as i64) as $t
            }
            fn level_of(v: f64) -> i64 {
                v as i64
            }
            fn as_level(self) -> i64 {
                self as i64
            }
            fn exact_bin(self, lower: i64, upper: i64, bins: usize) -> Option<usize> {
                let s = self as i64;
                if s < lower || s >= upper {
                    return None;
                }
                let (s, l, u) = (s as i128, lower as i128, upper as i128);
                Some(((s - l) * bins as i128 / (u - l)) as usize)
            }
        }
    )*};
}
ints! { u8, false; u16, false; i16, true; u32, false; i32, true; }

macro_rules! floats {
    ($($t:ty;)*) => {$(
        impl Draw for $t {
            const SIGNED: bool = true;
            fn draw(bits: u64, spread: u32) -> Self {
                let unit = (bits >> 11) as f64 / (1u64 << 53) as f64;
                ((unit * 2.0 - 1.0) * spread as f64) as $t
            }
            fn level_of(v: f64) -> Self {
                v as $t
            }
            fn as_level(self) -> Self {
                self
            }
            fn exact_bin(self, lower: Self, upper: Self, bins: usize) -> Option<usize> {
                if !(self >= lower && self < upper) {
                    return None;
                }
                // CUB's formula: the reciprocal of the width, in the type.
                let scale = bins as $t / (upper - lower);
                Some((((self - lower) * scale) as usize).min(bins - 1))
            }
        }
    )*};
}
floats! { f32; f64; }

/// The host's histogram of bins between `levels`.
fn range_bin<T: Draw>(s: T, levels: &[T::Level]) -> Option<usize> {
    let s = s.as_level();
    if !(s >= levels[0] && s < levels[levels.len() - 1]) {
        return None;
    }
    Some(
        levels
            .iter()
            .rposition(|l| *l <= s)
            .unwrap()
            .min(levels.len() - 2),
    )
}

/// Runs `f` with the samples and zeroed counts on `device`; returns the
/// counts it left and its result.
fn with_buffers<T: Draw, R>(
    device: &Device,
    samples: &[T],
    bins: usize,
    f: impl FnOnce(Input<'_, T>, Output<'_, u32>) -> R,
) -> (Vec<u32>, R) {
    // Poisoned counts: the call must overwrite them.
    let poison = vec![0xdead_u32; bins];
    match device {
        Device::Gpu(gpu) => {
            let s = gpu.upload(samples).unwrap();
            let mut c = gpu.upload(&poison).unwrap();
            let r = f(Input::from(&s), Output::from(&mut c));
            (gpu.download(&c).unwrap(), r)
        }
        Device::Cpu(_) => {
            let mut c = poison;
            let r = f(Input::from(samples), Output::from(&mut c[..]));
            (c, r)
        }
    }
}

/// Samples of a case: `len` of them from `offset` on (so that the buffer
/// starts unaligned when it is not 0), uniform or three quarters one value.
fn samples<T: Draw>(rng: &mut Rng, len: usize, spread: u32, skewed: bool) -> Vec<T> {
    let common = T::draw(rng.next_u64(), spread);
    (0..len)
        .map(|_| {
            let bits = rng.next_u64();
            if skewed && !bits.is_multiple_of(4) {
                common
            } else {
                T::draw(bits >> 2, spread)
            }
        })
        .collect()
}

/// Checks even and range histograms of `T` on `device`; returns the calls
/// checked.
fn check_type<T: Draw>(device: &Device, name: &str, big: bool) -> usize {
    let mut rng = Rng::new(0x415 + name.len() as u64);
    let lens: &[usize] = if big {
        &[0, 1, 15, 16, 17, 33, 1000, 4099, 100_003, 1_000_003]
    } else {
        &[0, 1, 15, 17, 33, 1000, 4099, 12_011]
    };
    let spread: u32 = match std::mem::size_of::<T>() {
        1 => 128,
        2 => 20_000,
        _ => 1_000_000,
    };
    // Bins counted in shared memory with several sets, with one set only
    // (for all but bytes: 4000 counters, 16 KB, where two sets pass 24 KB;
    // 20 000, 80 KB, past what a block gets without opting in), and in
    // global memory (60 000, past the 227 KiB a block may opt in to).
    let bin_counts: &[usize] = if big {
        &[1, 7, 256, 1000, 4000, 20_000, 60_000]
    } else {
        &[1, 7, 256, 4000, 60_000]
    };
    let strategies = [
        Histogrammer::new(device).unwrap(),
        Histogrammer::new(device).unwrap().with_sets(1).unwrap(),
        Histogrammer::new(device).unwrap().with_sets(8).unwrap(),
    ];
    let mut runs = 0;
    for &len in lens {
        for skewed in [false, true] {
            for offset in [0, 1] {
                let all: Vec<T> = samples(&mut rng, len + offset, spread, skewed);
                let input = &all[offset..];
                for (k, &bins) in bin_counts.iter().enumerate() {
                    // Fewer combinations on long inputs.
                    if len > 5000 && (k % 2 == 1) != skewed {
                        continue;
                    }
                    let h = &strategies[(len + k + offset) % 3];
                    // Bounds inside the samples' range, so that some fall outside.
                    let lower = T::level_of(if T::SIGNED {
                        -(spread as f64) * 0.75
                    } else {
                        spread as f64 * 0.1
                    });
                    let upper = T::level_of(spread as f64 * 0.8);
                    let expected = {
                        let mut c = vec![0u32; bins];
                        for &s in input {
                            if let Some(b) = s.exact_bin(lower, upper, bins) {
                                c[b] += 1;
                            }
                        }
                        c
                    };
                    let (got, r) =
                        with_buffers(device, input, bins, |i, o| h.even(i, lower, upper, o));
                    r.unwrap_or_else(|e| panic!("{name} even: {e}"));
                    assert_eq!(
                        got, expected,
                        "{name}: even histogram of {len} samples (offset {offset}, skewed {skewed}) \
                         in {bins} bins of [{lower:?}, {upper:?}) with {h:?}"
                    );
                    runs += 1;
                    // Levels: a sorted random draw, with a repeated level (an empty bin).
                    let mut levels: Vec<T::Level> = (0..bins.min(3000) + 1)
                        .map(|_| T::draw(rng.next_u64(), spread).as_level())
                        .collect();
                    levels.sort_by(|a, b| a.partial_cmp(b).unwrap());
                    if levels.len() > 3 {
                        levels[2] = levels[1];
                    }
                    if levels[0] == levels[levels.len() - 1] {
                        continue;
                    }
                    let mut expected = vec![0u32; levels.len() - 1];
                    for &s in input {
                        if let Some(b) = range_bin(s, &levels) {
                            expected[b] += 1;
                        }
                    }
                    let (got, r) = with_buffers(device, input, levels.len() - 1, |i, o| {
                        h.range(i, &levels, o)
                    });
                    r.unwrap_or_else(|e| panic!("{name} range: {e}"));
                    assert_eq!(
                        got,
                        expected,
                        "{name}: range histogram of {len} samples (offset {offset}, skewed \
                         {skewed}) between {} levels with {h:?}",
                        levels.len()
                    );
                    runs += 1;
                }
            }
        }
    }
    runs
}

/// Multi-channel histograms of `T`: even and range, several channel
/// layouts.
fn check_pixels<T: Draw>(device: &Device, name: &str, big: bool) -> usize {
    let mut rng = Rng::new(0x9e1 + name.len() as u64);
    let h = Histogrammer::new(device).unwrap();
    let mut runs = 0;
    let pixels_counts: &[usize] = if big {
        &[0, 1, 5, 1001, 250_001]
    } else {
        &[0, 1, 5, 1001, 3001]
    };
    for &(channels, active) in &[(1, 1), (2, 2), (3, 2), (4, 3), (4, 4)] {
        for &pixels in pixels_counts {
            for offset in [0, 1] {
                let all: Vec<T> = samples(&mut rng, pixels * channels + offset, 200, false);
                let input = &all[offset..];
                let lower = if T::SIGNED { -150.0 } else { 10.0 };
                let bins: Vec<EvenBins<T::Level>> = (0..active)
                    .map(|c| {
                        EvenBins::new(T::level_of(lower + c as f64), T::level_of(180.0), 3 + 5 * c)
                    })
                    .collect();
                let total: usize = bins.iter().map(|b| b.bins).sum();
                let mut expected = vec![0u32; total];
                let mut start = 0;
                for (c, b) in bins.iter().enumerate() {
                    for &s in input.iter().skip(c).step_by(channels) {
                        if let Some(k) = s.exact_bin(b.lower, b.upper, b.bins) {
                            expected[start + k] += 1;
                        }
                    }
                    start += b.bins;
                }
                let (got, r) = with_buffers(device, input, total, |i, o| {
                    h.even_pixels(i, channels, &bins, o)
                });
                r.unwrap_or_else(|e| panic!("{name} even_pixels: {e}"));
                assert_eq!(got, expected, "{name}: even_pixels of {pixels} pixels of {channels} channels, {active} counted, offset {offset}");
                runs += 1;
                let shift = if T::SIGNED { 100.0 } else { 0.0 };
                let levels: Vec<Vec<T::Level>> = (0..active)
                    .map(|c| {
                        (0..4 + 3 * c)
                            .map(|k| T::level_of(k as f64 * 40.0 - shift))
                            .collect()
                    })
                    .collect();
                let refs: Vec<&[T::Level]> = levels.iter().map(Vec::as_slice).collect();
                let total: usize = levels.iter().map(|l| l.len() - 1).sum();
                let mut expected = vec![0u32; total];
                let mut start = 0;
                for (c, l) in levels.iter().enumerate() {
                    for &s in input.iter().skip(c).step_by(channels) {
                        if let Some(k) = range_bin(s, l) {
                            expected[start + k] += 1;
                        }
                    }
                    start += l.len() - 1;
                }
                let (got, r) = with_buffers(device, input, total, |i, o| {
                    h.range_pixels(i, channels, &refs, o)
                });
                r.unwrap_or_else(|e| panic!("{name} range_pixels: {e}"));
                assert_eq!(got, expected, "{name}: range_pixels of {pixels} pixels of {channels} channels, {active} counted, offset {offset}");
                runs += 1;
            }
        }
    }
    runs
}

/// A call of a histogram on `f32` samples.
type Call<'a> = dyn Fn(Input<'_, f32>, Output<'_, u32>) -> Result<(), Error> + 'a;

/// Every bad argument fails with an error that names it, before anything
/// runs, on `device`.
fn check_errors(device: &Device) -> usize {
    let h = Histogrammer::new(device).unwrap();
    let samples = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let bad = |r: Result<(), Error>, call: &str, words: &[&str]| {
        let e = r.expect_err("a bad argument must fail");
        let text = e.to_string();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{text}");
        assert!(text.contains(call), "`{text}` should name `{call}`");
        for w in words {
            assert!(text.contains(w), "`{text}` should say `{w}`");
        }
    };
    let mut runs = 0;
    let mut check = |bins: usize, f: &Call<'_>, call: &str, words: &[&str]| {
        let (counts, r) = with_buffers(device, &samples, bins, f);
        bad(r, call, words);
        assert!(
            counts.iter().all(|&c| c == 0xdead),
            "a refused call must leave the counts"
        );
        runs += 1;
    };
    check(
        0,
        &|i, o| h.even(i, 0.0, 1.0, o),
        "Histogrammer::even",
        &["no bins"],
    );
    check(
        4,
        &|i, o| h.even(i, 2.0, 2.0, o),
        "Histogrammer::even",
        &["upper (2.0) is not above lower (2.0)"],
    );
    check(
        4,
        &|i, o| h.even(i, f32::NAN, 2.0, o),
        "Histogrammer::even",
        &["lower (NaN)"],
    );
    check(
        1,
        &|i, o| h.range(i, &[1.0], o),
        "Histogrammer::range",
        &["1 levels", "at least two"],
    );
    check(
        2,
        &|i, o| h.range(i, &[1.0, 3.0, 2.0], o),
        "Histogrammer::range",
        &["levels[2] (2.0) is below levels[1] (3.0)"],
    );
    check(
        2,
        &|i, o| h.range(i, &[1.0, f32::NAN, 2.0], o),
        "Histogrammer::range",
        &["levels[1] is NaN"],
    );
    check(
        3,
        &|i, o| h.range(i, &[1.0, 2.0, 3.0], o),
        "Histogrammer::range",
        &["counts has 3 elements for 2 bins"],
    );
    let one = [EvenBins::new(0.0f32, 8.0, 4)];
    check(
        4,
        &|i, o| h.even_pixels(i, 5, &one, o),
        "Histogrammer::even_pixels",
        &["5 channels", "1 to 4"],
    );
    check(
        4,
        &|i, o| h.even_pixels(i, 4, &one, o),
        "Histogrammer::even_pixels",
        &["6 samples are not whole pixels of 4 channels"],
    );
    check(
        4,
        &|i, o| h.even_pixels(i, 2, &[], o),
        "Histogrammer::even_pixels",
        &["bins is empty"],
    );
    check(
        12,
        &|i, o| h.even_pixels(i, 2, &[one[0]; 3], o),
        "Histogrammer::even_pixels",
        &["bins has 3 entries for pixels of 2 channels"],
    );
    check(
        5,
        &|i, o| h.even_pixels(i, 2, &[one[0]; 2], o),
        "Histogrammer::even_pixels",
        &["counts has 5 elements for 8 bins (4 + 4)"],
    );
    check(
        4,
        &|i, o| h.even_pixels(i, 2, &[one[0], EvenBins::new(1.0, 0.0, 4)], o),
        "Histogrammer::even_pixels",
        &["channel 1: upper (0.0) is not above lower (1.0)"],
    );
    check(
        4,
        &|i, o| h.range_pixels(i, 3, &[&[0.0, 1.0][..], &[2.0, 1.0]], o),
        "Histogrammer::range_pixels",
        &["channel 1: levels[1] (1.0) is below levels[0] (2.0)"],
    );
    bad(
        Histogrammer::new(device).unwrap().with_sets(3).map(drop),
        "Histogrammer::with_sets",
        &["3 sets", "1, 2, 4 or 8"],
    );
    // The free functions' errors name them.
    let (_, r) = with_buffers(device, &samples, 0, |i, o| {
        histogram::even(device, i, 0.0, 1.0, o)
    });
    bad(r, "`histogram::even`", &["no bins"]);
    let (_, r) = with_buffers(device, &samples, 1, |i, o| {
        histogram::range(device, i, &[2.0, 1.0], o)
    });
    bad(
        r,
        "`histogram::range`",
        &["levels[1] (1.0) is below levels[0] (2.0)"],
    );
    runs + 3
}

/// Bounds at the edges of the sample types: every byte in 256 bins (upper
/// 256, past `u8`), bounds far outside `i32` (a range past 2^32, whose
/// bins need 128-bit products), the whole `u32` range.
fn check_edges(device: &Device) -> usize {
    let h = Histogrammer::new(device).unwrap();
    let mut runs = 0;
    let bytes: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 256) as u8).collect();
    let (got, r) = with_buffers(device, &bytes, 256, |i, o| h.even(i, 0, 256, o));
    r.unwrap();
    let mut expected = vec![0u32; 256];
    for &b in &bytes {
        expected[b as usize] += 1;
    }
    assert_eq!(got, expected, "every byte in its own bin");
    runs += 1;
    let mut rng = Rng::new(77);
    let ints: Vec<i32> = (0..5000).map(|_| rng.next_u64() as i32).collect();
    for (lower, upper, bins) in [
        (-(1i64 << 40), 1i64 << 40, 7usize),
        (i32::MIN as i64, i32::MAX as i64 + 1, 1000),
        (-5, 3_000_000_000, 3),
    ] {
        let (got, r) = with_buffers(device, &ints, bins, |i, o| h.even(i, lower, upper, o));
        r.unwrap();
        let mut expected = vec![0u32; bins];
        for &s in &ints {
            if let Some(b) = s.exact_bin(lower, upper, bins) {
                expected[b] += 1;
            }
        }
        assert_eq!(got, expected, "i32 in {bins} bins of [{lower}, {upper})");
        runs += 1;
    }
    let words: Vec<u32> = (0..5000).map(|_| rng.next_u64() as u32).collect();
    let (got, r) = with_buffers(device, &words, 16, |i, o| h.even(i, 0, 1 << 32, o));
    r.unwrap();
    let mut expected = vec![0u32; 16];
    for &w in &words {
        expected[(w >> 28) as usize] += 1;
    }
    assert_eq!(got, expected, "u32 by its top four bits");
    runs + 1
}

/// Every histogram case on `device`; returns the calls checked. `big`
/// adds inputs of millions of samples (for a GPU).
pub fn check_all(device: &Device, big: bool) -> usize {
    let mut runs = check_type::<u8>(device, "u8", big);
    runs += check_type::<u16>(device, "u16", big);
    runs += check_type::<i16>(device, "i16", big);
    runs += check_type::<u32>(device, "u32", big);
    runs += check_type::<i32>(device, "i32", big);
    runs += check_type::<f32>(device, "f32", big);
    runs += check_type::<f64>(device, "f64", big);
    runs += check_pixels::<u8>(device, "u8", big);
    runs += check_pixels::<i16>(device, "i16", big);
    runs += check_pixels::<f32>(device, "f32", big);
    runs += check_errors(device);
    runs += check_edges(device);
    // The free functions are the same calls.
    let (got, r) = with_buffers(device, &[3u8, 3, 200][..], 2, |i, o| {
        histogram::even(device, i, 0, 255, o)
    });
    r.unwrap();
    assert_eq!(got, [2, 1]);
    runs + 1
}
