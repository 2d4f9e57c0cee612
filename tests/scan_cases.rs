//! Device-wide scans checked against host references, on any device: the
//! built-in inclusive and exclusive sums, minima and maxima of the six
//! types over lengths around the tile edges and past the look-back's
//! window of 32 tiles (with blocks of 64 threads, whose tiles are
//! smaller; on the CPU backend, whose blocks finish in order, a look-back
//! stops at the tile before, and `tests/scans.rs` runs longer look-backs
//! over tile states made by hand), views at every alignment, NaN, the deterministic
//! passes, a user type with an operator that is not commutative, and the
//! errors of a bad call.

use crate::kernels::{self, Mat2, MatMul};
use crate::Rng;
use coop::op::{Max, Min, Operator, Sum};
use coop_host::scan::{BuiltinScan, Scanner};
use coop_host::{Device, Error, Input, Output, ProgramRef};

/// Lengths: empty, one, around one tile (8192 elements of 4 bytes, 2048 of
/// 8) and two, and past 33 tiles of 8 bytes (the look-back's window is 32
/// tiles; [`check_all`] also scans with blocks of 64 threads, whose tiles
/// of 2048 and 1024 elements put 68 and 136 tiles in the longest).
pub const LENGTHS: [usize; 10] = [0, 1, 2, 31, 2047, 2049, 8191, 8193, 16_385, 140_001];

/// Runs `f` with `data[offset..]` and an output of the same length on
/// `device`, and returns what `f` wrote.
pub fn with_buffers<T: coop::DeviceCopy + Default>(
    device: &Device,
    data: &[T],
    offset: usize,
    f: impl FnOnce(Input<'_, T>, Output<'_, T>),
) -> Vec<T> {
    let n = data.len() - offset;
    match device {
        Device::Gpu(gpu) => {
            let input = gpu.upload(data).unwrap();
            let mut out = gpu.upload(&vec![T::default(); n + offset]).unwrap();
            f(
                Input::Gpu(input.slice(offset..)),
                Output::Gpu(out.slice_mut(offset..)),
            );
            gpu.download(&out).unwrap()[offset..].to_vec()
        }
        Device::Cpu(_) => {
            let mut out = vec![T::default(); n];
            f(Input::Cpu(&data[offset..]), Output::Cpu(&mut out));
            out
        }
    }
}

/// The host's inclusive (or exclusive) scan of `data` with `op`.
pub fn host_scan<T: Copy, O: Operator<T>>(data: &[T], op: O, exclusive: bool) -> Vec<T> {
    let mut acc = op.identity();
    data.iter()
        .map(|&x| {
            let before = acc;
            acc = op.combine(acc, x);
            if exclusive {
                before
            } else {
                acc
            }
        })
        .collect()
}

/// The host's scan of `data` with `op` from `init` (in front of element
/// 0).
pub fn host_scan_from<T: Copy, O: Operator<T>>(
    data: &[T],
    op: O,
    init: T,
    exclusive: bool,
) -> Vec<T> {
    host_scan(data, op, exclusive)
        .into_iter()
        .map(|x| op.combine(init, x))
        .collect()
}

/// Checks the scans from an initial value (`inclusive_from`,
/// `exclusive_from`) of one integer type with each built-in operator on
/// `scanner`, exactly; returns the scans run.
fn check_from<T>(device: &Device, scanner: &Scanner, make: fn(u64) -> T) -> usize
where
    T: BuiltinScan<Sum>
        + BuiltinScan<Min>
        + BuiltinScan<Max>
        + PartialEq
        + std::fmt::Debug
        + Default,
    Sum: Operator<T>,
    Min: Operator<T>,
    Max: Operator<T>,
{
    let mut rng = Rng::new(0xF0 + std::mem::size_of::<T>() as u64);
    let mut runs = 0;
    for &n in &LENGTHS {
        let offset = n % 2;
        let data: Vec<T> = (0..n + offset).map(|_| make(rng.next_u64())).collect();
        let part = &data[offset..];
        let init = make(rng.next_u64());
        for exclusive in [false, true] {
            macro_rules! check {
                ($op:expr) => {{
                    let got = with_buffers(device, &data, offset, |i, o| {
                        if exclusive {
                            scanner.exclusive_from($op, init, i, o).unwrap()
                        } else {
                            scanner.inclusive_from($op, init, i, o).unwrap()
                        }
                    });
                    let want = host_scan_from(part, $op, init, exclusive);
                    assert!(
                        got == want,
                        "{} {} of {n} {} from {init:?}: first difference at {:?}",
                        if exclusive { "exclusive" } else { "inclusive" },
                        stringify!($op),
                        std::any::type_name::<T>(),
                        got.iter().zip(&want).position(|(a, b)| a != b)
                    );
                    runs += 1;
                }};
            }
            check!(Sum);
            check!(Min);
            check!(Max);
        }
    }
    runs
}

/// Checks inclusive and exclusive scans of one integer type with each
/// built-in operator, exactly; returns the scans run.
fn check_integers<T>(device: &Device, scanner: &Scanner, make: fn(u64) -> T) -> usize
where
    T: BuiltinScan<Sum>
        + BuiltinScan<Min>
        + BuiltinScan<Max>
        + PartialEq
        + std::fmt::Debug
        + Default,
    Sum: Operator<T>,
    Min: Operator<T>,
    Max: Operator<T>,
{
    let mut rng = Rng::new(0x5CA2 + std::mem::size_of::<T>() as u64);
    let mut runs = 0;
    for &n in &LENGTHS {
        let offsets: &[usize] = if n > 10_000 { &[0, 1] } else { &[0, 1, 3] };
        for &offset in offsets {
            let data: Vec<T> = (0..n + offset).map(|_| make(rng.next_u64())).collect();
            let part = &data[offset..];
            for exclusive in [false, true] {
                macro_rules! check {
                    ($op:expr) => {{
                        let got = with_buffers(device, &data, offset, |i, o| {
                            if exclusive {
                                scanner.exclusive($op, i, o).unwrap()
                            } else {
                                scanner.inclusive($op, i, o).unwrap()
                            }
                        });
                        assert!(
                            got == host_scan(part, $op, exclusive),
                            "{} {} of {n} {} at offset {offset}: first difference at {:?}",
                            if exclusive { "exclusive" } else { "inclusive" },
                            stringify!($op),
                            std::any::type_name::<T>(),
                            got.iter()
                                .zip(host_scan(part, $op, exclusive))
                                .position(|(a, b)| *a != b)
                        );
                        runs += 1;
                    }};
                }
                check!(Sum);
                check!(Min);
                check!(Max);
            }
        }
    }
    runs
}

/// Checks float scans: sums within a bound of the exact prefix sums,
/// minima and maxima exactly (NaN-ignoring); returns the scans run.
fn check_floats<T>(
    device: &Device,
    scanner: &Scanner,
    make: fn(u64) -> T,
    to_f64: fn(T) -> f64,
    eps: f64,
    nan: T,
) -> usize
where
    T: BuiltinScan<Sum> + BuiltinScan<Min> + BuiltinScan<Max> + Default + std::fmt::Debug,
    Min: Operator<T>,
    Max: Operator<T>,
{
    let mut rng = Rng::new(0xF5CA);
    let mut runs = 0;
    let same = |a: T, b: T| to_f64(a) == to_f64(b) || (to_f64(a).is_nan() && to_f64(b).is_nan());
    for &n in &LENGTHS {
        for offset in [0, 1] {
            let data: Vec<T> = (0..n + offset).map(|_| make(rng.next_u64())).collect();
            let part = &data[offset..];
            // For the minima and maxima, every 97th element a NaN.
            let with_nan: Vec<T> = data
                .iter()
                .enumerate()
                .map(|(k, &x)| if k % 97 == 5 { nan } else { x })
                .collect();
            let nan_part = &with_nan[offset..];
            for exclusive in [false, true] {
                let got = with_buffers(device, &data, offset, |i, o| {
                    if exclusive {
                        scanner.exclusive(Sum, i, o).unwrap()
                    } else {
                        scanner.inclusive(Sum, i, o).unwrap()
                    }
                });
                // Each prefix within (items + tiles + 64) * eps * sum |x| of
                // the exact prefix: no value passes through more additions.
                let mut exact = 0.0f64;
                let mut magnitude = 0.0f64;
                for (k, (&x, &g)) in part.iter().zip(&got).enumerate() {
                    if !exclusive {
                        exact += to_f64(x);
                        magnitude += to_f64(x).abs();
                    }
                    let bound = ((k / 256) as f64 + 64.0 + 16.0) * eps * magnitude;
                    assert!(
                        (to_f64(g) - exact).abs() <= bound,
                        "float sum of {n} at offset {offset}, element {k}: {g:?} vs {exact} \
                         (bound {bound})"
                    );
                    if exclusive {
                        exact += to_f64(x);
                        magnitude += to_f64(x).abs();
                    }
                }
                runs += 1;
                for (name, got, want) in [
                    (
                        "Min",
                        with_buffers(device, &with_nan, offset, |i, o| {
                            if exclusive {
                                scanner.exclusive(Min, i, o).unwrap()
                            } else {
                                scanner.inclusive(Min, i, o).unwrap()
                            }
                        }),
                        host_scan(nan_part, Min, exclusive),
                    ),
                    (
                        "Max",
                        with_buffers(device, &with_nan, offset, |i, o| {
                            if exclusive {
                                scanner.exclusive(Max, i, o).unwrap()
                            } else {
                                scanner.inclusive(Max, i, o).unwrap()
                            }
                        }),
                        host_scan(nan_part, Max, exclusive),
                    ),
                ] {
                    let bad = got.iter().zip(&want).position(|(&a, &b)| !same(a, b));
                    assert!(
                        bad.is_none(),
                        "{name} scan of {n} floats at offset {offset}: first difference at {bad:?}"
                    );
                    runs += 1;
                }
            }
        }
    }
    runs
}

/// Checks every built-in scan, the deterministic passes, a user kernel and
/// the errors on `device`; `program` holds the test kernels (`None` on the
/// CPU backend). Returns the scans run.
pub fn check_all(device: &Device, program: ProgramRef<'_>) -> usize {
    let scanner = Scanner::new(device).unwrap();
    let mut runs = 0;
    runs += check_integers::<u32>(device, &scanner, |r| (r % 1000) as u32);
    runs += check_integers::<i32>(device, &scanner, |r| r as i32);
    runs += check_integers::<u64>(device, &scanner, |r| r);
    runs += check_integers::<i64>(device, &scanner, |r| (r as i64) >> 20);
    runs += check_floats::<f32>(
        device,
        &scanner,
        |r| (r % 2001) as f32 / 1000.0 - 1.0,
        |x| x as f64,
        f32::EPSILON as f64,
        f32::NAN,
    );
    runs += check_floats::<f64>(
        device,
        &scanner,
        |r| (r % 2001) as f64 / 1000.0 - 1.0,
        |x| x,
        f64::EPSILON,
        f64::NAN,
    );
    // Small tiles: many of them, in one-word and two-word status words (on
    // a GPU, look-backs of more than one round).
    let small = Scanner::new(device)
        .unwrap()
        .with_block_threads(64)
        .unwrap();
    let mut rng = Rng::new(0x5A11);
    for exclusive in [false, true] {
        let data: Vec<u32> = (0..140_001).map(|_| rng.next_u64() as u32).collect();
        let got = with_buffers(device, &data, 1, |i, o| {
            if exclusive {
                small.exclusive(Sum, i, o).unwrap()
            } else {
                small.inclusive(Sum, i, o).unwrap()
            }
        });
        assert!(
            got == host_scan(&data[1..], Sum, exclusive),
            "u32 scan in small tiles"
        );
        let data: Vec<i64> = (0..140_001).map(|_| rng.next_u64() as i64).collect();
        let got = with_buffers(device, &data, 0, |i, o| {
            if exclusive {
                small.exclusive(Max, i, o).unwrap()
            } else {
                small.inclusive(Max, i, o).unwrap()
            }
        });
        assert!(
            got == host_scan(&data, Max, exclusive),
            "i64 scan in small tiles"
        );
        runs += 2;
    }
    let deterministic = Scanner::new(device).unwrap().deterministic();
    runs += check_integers::<u32>(device, &deterministic, |r| (r % 1000) as u32);
    // From an initial value: one-word and two-word values, in one pass
    // (the rows of an inclusive scan and the staged tiles of an exclusive
    // one), in small tiles, and in the deterministic passes.
    for scanner in [&scanner, &small, &deterministic] {
        runs += check_from::<u32>(device, scanner, |r| (r % 1000) as u32);
        runs += check_from::<i64>(device, scanner, |r| (r as i64) >> 24);
    }
    runs += check_from::<i32>(device, &scanner, |r| r as i32);
    runs += check_from::<u64>(device, &scanner, |r| r);
    let mut rng = Rng::new(0xD37);
    for &n in &[1usize, 4097, 140_001] {
        let data: Vec<f32> = (0..n)
            .map(|_| (rng.next_u64() % 2001) as f32 / 1000.0 - 1.0)
            .collect();
        let once = with_buffers(device, &data, 0, |i, o| {
            deterministic.inclusive(Sum, i, o).unwrap()
        });
        let again = with_buffers(device, &data, 0, |i, o| {
            deterministic.inclusive(Sum, i, o).unwrap()
        });
        assert!(once
            .iter()
            .zip(&again)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
        // The same bits from a view that starts elsewhere.
        let mut shifted = vec![0.5f32];
        shifted.extend_from_slice(&data);
        let moved = with_buffers(device, &shifted, 1, |i, o| {
            deterministic.inclusive(Sum, i, o).unwrap()
        });
        assert!(
            once.iter()
                .zip(&moved)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "deterministic scan of {n}: a shifted view changed the bits"
        );
        let exact = host_scan(
            &data.iter().map(|&x| x as f64).collect::<Vec<_>>(),
            Sum,
            false,
        );
        for (k, (g, e)) in once.iter().zip(&exact).enumerate() {
            assert!(
                ((*g as f64) - e).abs() < 1e-3 * (1.0 + k as f64).sqrt(),
                "{k}: {g} vs {e}"
            );
        }
        runs += 3;
    }
    // A user type and an ordered operator, past the look-back's window.
    for &n in &[0usize, 1, 1023, 1025, 40_000] {
        let data: Vec<Mat2> = (0..n)
            .map(|_| {
                let r = rng.next_u64();
                Mat2([
                    1 + (r % 3) as i32,
                    (r >> 8) as i32 % 3,
                    (r >> 16) as i32 % 2,
                    1,
                ])
            })
            .collect();
        for exclusive in [false, true] {
            for scanner in [&scanner, &deterministic] {
                let got = with_buffers(device, &data, 0, |i, o| {
                    if exclusive {
                        scanner.exclusive_with(program, kernels::scan_mat2_product, i, o)
                    } else {
                        scanner.inclusive_with(program, kernels::scan_mat2_product, i, o)
                    }
                    .unwrap()
                });
                assert!(
                    got == host_scan(&data, MatMul, exclusive),
                    "matrix-product scan of {n} (exclusive: {exclusive})"
                );
                runs += 1;
            }
        }
    }
    // A bad call is a typed error.
    let data = vec![1u32; 10];
    let mut short = vec![0u32; 9];
    let e = scanner.inclusive(Sum, &data, &mut short).unwrap_err();
    match device {
        Device::Cpu(_) => {
            assert!(
                matches!(
                    e,
                    Error::InvalidArgument {
                        call: "Scanner::inclusive",
                        ..
                    }
                ),
                "{e}"
            );
            assert!(
                e.to_string()
                    .contains("the output holds 9 elements and the input 10"),
                "{e}"
            );
        }
        Device::Gpu(_) => {
            let mut right = vec![0u32; 10];
            let e = scanner.inclusive(Sum, &data, &mut right).unwrap_err();
            assert!(matches!(e, Error::WrongDevice { argument: 0, .. }), "{e}");
        }
    }
    runs
}
