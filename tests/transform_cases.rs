//! Transform-reductions checked against host references, on any device:
//! arg-min and arg-max of the six types (ties, NaN, empty input), sums of
//! absolute values and squares, largest absolute values, counts with every
//! comparison, deterministic float sums, and user kernels with
//! index-aware maps (one to another type, one with an ordered operator).

use crate::device_reduce_cases::LENGTHS;
use crate::kernels::{self, Mat2, MatMul};
use crate::Rng;
use coop::device::map::{Compare, CountIf};
use coop::op::{ArgMax, ArgMin, Operator};
use coop_host::reduce::{BuiltinMap, Reducer};
use coop_host::{Device, Input, ProgramRef};

/// Runs `f` with `data[offset..]` as an input on `device`.
fn with_input<T: coop::DeviceCopy, R>(
    device: &Device,
    data: &[T],
    offset: usize,
    f: impl FnOnce(Input<'_, T>) -> R,
) -> R {
    match device {
        Device::Gpu(gpu) => {
            let buf = gpu.upload(data).unwrap();
            f(Input::Gpu(buf.slice(offset..)))
        }
        Device::Cpu(_) => f(Input::Cpu(&data[offset..])),
    }
}

/// The host's arg-max (`larger`) or arg-min: the first best, NaN last.
fn host_arg<T: coop::op::Ordered>(data: &[T], larger: bool) -> Option<(usize, T)> {
    let fold = |a: coop::op::Arg<T>, b| {
        if larger {
            ArgMax.combine(a, b)
        } else {
            ArgMin.combine(a, b)
        }
    };
    let id = if larger {
        ArgMax.identity()
    } else {
        ArgMin.identity()
    };
    let best = data
        .iter()
        .enumerate()
        .map(|(i, &x)| coop::op::Arg::new(i, x))
        .fold(id, fold);
    (!data.is_empty()).then_some((best.index(), best.value))
}

fn check_args<T>(device: &Device, reducer: &Reducer, make: fn(u64) -> T) -> usize
where
    T: BuiltinMap<coop::device::map::WithIndex, ArgMax, Output = coop::op::Arg<T>>
        + BuiltinMap<coop::device::map::WithIndex, ArgMin, Output = coop::op::Arg<T>>
        + coop::op::Ordered
        + std::fmt::Debug,
{
    let mut rng = Rng::new(0xA26 + std::mem::size_of::<T>() as u64);
    let mut runs = 0;
    let same = |a: Option<(usize, T)>, b: Option<(usize, T)>| match (a, b) {
        (Some((i, x)), Some((j, y))) => i == j && (x == y || (x.is_nan() && y.is_nan())),
        (None, None) => true,
        _ => false,
    };
    for &n in &LENGTHS {
        for offset in [0usize, 1, 3] {
            let data: Vec<T> = (0..n + offset).map(|_| make(rng.next_u64())).collect();
            let part = &data[offset..];
            let (hi, lo) = with_input(device, &data, offset, |input| {
                let again = input.reborrow();
                (
                    reducer.arg_max(input).unwrap(),
                    reducer.arg_min(again).unwrap(),
                )
            });
            let (want_hi, want_lo) = (host_arg(part, true), host_arg(part, false));
            assert!(
                same(hi, want_hi) && same(lo, want_lo),
                "{} arg of {n} at offset {offset}: max {hi:?} (want {want_hi:?}), min {lo:?} \
                 (want {want_lo:?})",
                std::any::type_name::<T>()
            );
            runs += 2;
        }
    }
    runs
}

/// Checks every built-in transform-reduction, the deterministic sums and
/// the user kernels on `device`; `program` holds the test kernels.
/// Returns the reductions run.
pub fn check_all(device: &Device, program: ProgramRef<'_>) -> usize {
    let reducer = Reducer::new(device).unwrap();
    let mut runs = 0;
    // Values from a small range, so that ties are common.
    runs += check_args::<i32>(device, &reducer, |r| (r % 50) as i32 - 25);
    runs += check_args::<u32>(device, &reducer, |r| (r % 50) as u32);
    runs += check_args::<i64>(device, &reducer, |r| (r % 50) as i64 - 25);
    runs += check_args::<u64>(device, &reducer, |r| r % 50);
    let f = |r: u64| {
        if r.is_multiple_of(31) {
            f64::NAN
        } else {
            (r % 50) as f64 - 25.0
        }
    };
    runs += check_args::<f32>(device, &reducer, |r| {
        if r.is_multiple_of(31) {
            f32::NAN
        } else {
            (r % 50) as f32 - 25.0
        }
    });
    runs += check_args::<f64>(device, &reducer, f);
    // All NaN: the first NaN.
    let nans = vec![f32::NAN; 5000];
    let (i, v) = with_input(device, &nans, 0, |x| reducer.arg_max(x).unwrap()).unwrap();
    assert!(i == 0 && v.is_nan());

    let mut rng = Rng::new(0x7A45);
    for &n in &LENGTHS {
        for offset in [0usize, 2] {
            let ints: Vec<i64> = (0..n + offset)
                .map(|_| (rng.next_u64() % 2001) as i64 - 1000)
                .collect();
            let part = &ints[offset..];
            let (sa, ma, sq) = with_input(device, &ints, offset, |x| {
                let y = x.reborrow();
                let z = x.reborrow();
                (
                    reducer.sum_abs(x).unwrap(),
                    reducer.max_abs(y).unwrap(),
                    reducer.sum_squares(z).unwrap(),
                )
            });
            assert_eq!(
                sa,
                part.iter().map(|x| x.abs()).sum::<i64>(),
                "sum_abs of {n}"
            );
            assert_eq!(
                ma,
                part.iter().map(|x| x.abs()).max().unwrap_or(i64::MIN),
                "max_abs of {n}"
            );
            assert_eq!(
                sq,
                part.iter().map(|x| x * x).sum::<i64>(),
                "sum_squares of {n}"
            );
            let floats: Vec<f32> = ints.iter().map(|&x| x as f32 * 0.25).collect();
            let (fa, fq) = with_input(device, &floats, offset, |x| {
                let y = x.reborrow();
                (reducer.sum_abs(x).unwrap(), reducer.sum_squares(y).unwrap())
            });
            let (ea, eq): (f64, f64) = floats[offset..]
                .iter()
                .map(|&x| ((x as f64).abs(), (x as f64) * (x as f64)))
                .fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
            let eps = f32::EPSILON as f64 * ((n / 1024) as f64 + 81.0);
            assert!(
                (fa as f64 - ea).abs() <= eps * ea,
                "f32 sum_abs of {n}: {fa} vs {ea}"
            );
            assert!(
                (fq as f64 - eq).abs() <= eps * eq,
                "f32 sum_squares of {n}: {fq} vs {eq}"
            );
            // Counts with every comparison.
            let mut counted: Vec<f32> = floats.clone();
            if counted.len() > offset + 3 {
                counted[offset + 3] = f32::NAN;
            }
            for compare in [
                Compare::Less,
                Compare::LessOrEqual,
                Compare::Greater,
                Compare::GreaterOrEqual,
                Compare::Equal,
                Compare::NotEqual,
                Compare::IsNan,
            ] {
                let test = CountIf::new(compare, 2.5f32);
                let got = with_input(device, &counted, offset, |x| {
                    reducer.count_if(x, test).unwrap()
                });
                let want = counted[offset..].iter().filter(|&&x| test.test(x)).count() as u64;
                assert_eq!(got, want, "count_if {compare:?} of {n}");
            }
            runs += 12;
        }
    }
    // Deterministic sums: the same bits from a shifted view, with the host
    // threads of the CPU backend or the GPU's grid changing nothing.
    let det = Reducer::new(device).unwrap().deterministic();
    for &n in &[1usize, 4097, 300_007] {
        let data: Vec<f32> = (0..n + 1)
            .map(|_| (rng.next_u64() % 100_000) as f32 * 1e-4 - 3.0)
            .collect();
        let a = with_input(device, &data, 1, |x| det.sum(x).unwrap());
        let copy = data[1..].to_vec();
        let b = with_input(device, &copy, 0, |x| det.sum(x).unwrap());
        assert_eq!(a.to_bits(), b.to_bits(), "deterministic sum of {n}");
        let exact: f64 = copy.iter().map(|&x| x as f64).sum();
        let magnitude: f64 = copy.iter().map(|&x| (x as f64).abs()).sum();
        assert!((a as f64 - exact).abs() <= 1e-5 * magnitude.max(1.0));
        runs += 2;
    }
    // User kernels: an index-aware map, and a map to a user type with an
    // operator that is not commutative.
    for &n in &[0usize, 1, 4095, 70_001] {
        let data: Vec<i64> = (0..n as i64).map(|i| i * 3 - 7).collect();
        let got: i64 = with_input(device, &data, 0, |x| {
            reducer
                .transform_reduce_with(program, kernels::transform_index_weighted, x)
                .unwrap()
        });
        let want: i64 = data
            .iter()
            .enumerate()
            .map(|(i, &x)| x * (i % 7) as i64)
            .sum();
        assert_eq!(got, want, "index-weighted sum of {n}");
        let mats: Vec<Mat2> = (0..n)
            .map(|i| Mat2([1 + (i % 2) as i32, 0, (i % 3) as i32 - 1, 1]))
            .collect();
        let got: Mat2 = with_input(device, &mats, 0, |x| {
            reducer
                .transform_reduce_with(program, kernels::transform_mat2_traces, x)
                .unwrap()
        });
        let want = mats
            .iter()
            .enumerate()
            .map(|(i, m)| Mat2([m.0[0], (i % 3) as i32, m.0[2], m.0[3]]))
            .fold(MatMul.identity(), |a, b| MatMul.combine(a, b));
        assert_eq!(got, want, "ordered product of marked matrices, {n}");
        runs += 2;
    }
    runs
}
