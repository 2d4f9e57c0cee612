//! Device-wide reductions checked against host references, on any target:
//! built-in sums, minima and maxima of every built-in type over lengths from
//! 0 to tens of thousands and every alignment, integer wrapping, NaN, the
//! stated float bound, and user kernels (an ordered matrix product, a
//! closure).

use crate::differential::Target;
use crate::kernels::{self, Mat2};
use crate::reductions::TestValue;
use crate::Rng;
use coop::op::{Max, Min, Operator, Sum};
use coop_host::reduce::{Builtin, Input, Reducer};
use coop_host::{Device, Module};

/// Lengths covering 0, 1, every remainder of the vector width, and
/// multi-block sizes.
pub const LENGTHS: [usize; 14] = [
    0, 1, 2, 3, 4, 5, 7, 31, 33, 255, 1023, 4097, 65_539, 300_007,
];

/// Runs `f` with `data[offset..]` as an input on the reducer's device.
fn with_input<T: Copy + coop_host::cudarc::driver::DeviceRepr, R>(
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

/// Checks sums, minima and maxima of one integer type; returns how many
/// reductions ran.
pub fn check_integers<T>(device: &Device, reducer: &Reducer, make: fn(u64) -> T) -> usize
where
    T: Builtin<Sum> + Builtin<Min> + Builtin<Max> + PartialEq + std::fmt::Debug,
    Sum: Operator<T>,
    Min: Operator<T>,
    Max: Operator<T>,
{
    let mut rng = Rng::new(0x5EED + std::mem::size_of::<T>() as u64);
    let mut runs = 0;
    for &n in &LENGTHS {
        for offset in 0..4usize {
            let data: Vec<T> = (0..n + offset).map(|_| make(rng.next_u64())).collect();
            let part = &data[offset..];
            let fold = |op: &dyn Fn(T, T) -> T, id: T| part.iter().fold(id, |a, &b| op(a, b));
            let want = (
                fold(&|a, b| Sum.combine(a, b), Operator::<T>::identity(&Sum)),
                fold(&|a, b| Min.combine(a, b), Operator::<T>::identity(&Min)),
                fold(&|a, b| Max.combine(a, b), Operator::<T>::identity(&Max)),
            );
            let got = with_input(device, &data, offset, |input| {
                let s = reducer.sum(reborrow(&input)).unwrap();
                let lo = reducer.min(reborrow(&input)).unwrap();
                let hi = reducer.max(input).unwrap();
                (s, lo, hi)
            });
            assert_eq!(got, want, "n = {n}, offset = {offset}");
            runs += 3;
        }
    }
    runs
}

fn reborrow<'a, T>(input: &Input<'a, T>) -> Input<'a, T> {
    match input {
        Input::Gpu(v) => Input::Gpu(v.slice(..)),
        Input::Cpu(s) => Input::Cpu(s),
    }
}

/// Checks float sums against an f64 reference within the stated bound,
/// and minima and maxima exactly, NaN included; returns the runs.
pub fn check_floats<T>(
    device: &Device,
    reducer: &Reducer,
    make: fn(u64) -> T,
    eps: f64,
    to_f64: fn(T) -> f64,
) -> usize
where
    T: Builtin<Sum> + Builtin<Min> + Builtin<Max> + TestValue,
    Min: Operator<T>,
    Max: Operator<T>,
{
    let mut rng = Rng::new(0xF10A7);
    let mut runs = 0;
    for &n in &LENGTHS {
        for offset in 0..4usize {
            let data: Vec<T> = (0..n + offset).map(|_| make(rng.next_u64())).collect();
            let part = &data[offset..];
            let exact: f64 = part.iter().map(|&x| to_f64(x)).sum();
            let magnitude: f64 = part.iter().map(|&x| to_f64(x).abs()).sum();
            let (s, lo, hi) = with_input(device, &data, offset, |input| {
                (
                    reducer.sum(reborrow(&input)).unwrap(),
                    reducer.min(reborrow(&input)).unwrap(),
                    reducer.max(input).unwrap(),
                )
            });
            // The bound of the module docs, with t = 256 threads at least
            // and b = 64 blocks a multiprocessor of a 132-multiprocessor
            // GPU at most (b / 256 = 33).
            let bound = ((n / 1024) as f64 + 33.0 + 48.0) * eps * magnitude;
            assert!(
                (to_f64(s) - exact).abs() <= bound,
                "n = {n}, offset = {offset}: sum {:?} vs {exact} (bound {bound})",
                s
            );
            let want_lo = part
                .iter()
                .fold(Operator::<T>::identity(&Min), |a, &b| Min.combine(a, b));
            let want_hi = part
                .iter()
                .fold(Operator::<T>::identity(&Max), |a, &b| Max.combine(a, b));
            // NaN for empty input.
            assert!(
                lo.same(want_lo) && hi.same(want_hi),
                "n = {n}, offset = {offset}: {lo:?} {hi:?} vs {want_lo:?} {want_hi:?}"
            );
            runs += 3;
        }
    }
    runs
}

/// NaN is ignored by min and max unless every value is NaN.
pub fn check_nan(device: &Device, reducer: &Reducer) {
    let mixed = [f32::NAN, 2.0, -3.0, f32::NAN, 7.5];
    let (lo, hi) = with_input(device, &mixed, 0, |i| {
        (reducer.min(reborrow(&i)).unwrap(), reducer.max(i).unwrap())
    });
    assert_eq!((lo, hi), (-3.0, 7.5));
    let all_nan = [f64::NAN; 9];
    let (lo, hi) = with_input(device, &all_nan, 0, |i| {
        (reducer.min(reborrow(&i)).unwrap(), reducer.max(i).unwrap())
    });
    assert!(lo.is_nan() && hi.is_nan());
}

/// Integer sums wrap, as the hardware's `add` does.
pub fn check_wrapping(device: &Device, reducer: &Reducer) {
    let big = vec![u32::MAX / 2; 10];
    let s = with_input(device, &big, 0, |i| reducer.sum(i).unwrap());
    assert_eq!(s, (u32::MAX / 2).wrapping_mul(10));
    let small = vec![i64::MIN; 3];
    let s = with_input(device, &small, 0, |i| reducer.sum(i).unwrap());
    assert_eq!(s, i64::MIN.wrapping_mul(3));
}

/// A user kernel with a non-commutative operator gives the ordered product;
/// a closure operator gives the sum; each in two launches
/// (`reduce_blocks`) and in one (`reduce_grid`).
pub fn check_user_kernels(device: &Device, reducer: &Reducer, module: Option<&Module>) {
    let _ = Target::Cpu;
    let mut rng = Rng::new(0xA77);
    for &n in &[0usize, 1, 2, 33, 1000, 70_001] {
        let data: Vec<Mat2> = (0..n)
            .map(|_| {
                let b = rng.next_u64();
                let k = ((b >> 1) % 6) as i32 - 3;
                let k = if k >= 0 { k + 1 } else { k };
                if b & 1 == 0 {
                    Mat2([1, k, 0, 1])
                } else {
                    Mat2([1, 0, k, 1])
                }
            })
            .collect();
        let want = data.iter().fold(kernels::MatMul.identity(), |a, &b| {
            kernels::MatMul.combine(a, b)
        });
        let mats = |kernel_once: bool| match device {
            Device::Gpu(_) => {
                // `Mat2` derives `DeviceCopy`: uploaded like a number.
                let buf = device.upload(&data).unwrap();
                if kernel_once {
                    reducer.reduce_with(module, kernels::reduce_mat2_product_once, &buf)
                } else {
                    reducer.reduce_with(module, kernels::reduce_mat2_product, &buf)
                }
                .unwrap()
            }
            Device::Cpu(_) if kernel_once => reducer
                .reduce_with(module, kernels::reduce_mat2_product_once, &data)
                .unwrap(),
            Device::Cpu(_) => reducer
                .reduce_with(module, kernels::reduce_mat2_product, &data)
                .unwrap(),
        };
        assert_eq!(
            mats(true),
            want,
            "ordered product of {n} matrices in one launch"
        );
        let got = mats(false);
        assert_eq!(got, want, "ordered product of {n} matrices");

        let ints: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64).collect();
        let want = ints.iter().fold(0i64, |a, &b| a.wrapping_add(b));
        let got = with_input(device, &ints, 0, |i| {
            reducer
                .reduce_with(module, kernels::reduce_i64_closure_sum, i)
                .unwrap()
        });
        assert_eq!(got, want, "closure sum of {n}");
        let got = with_input(device, &ints, 0, |i| {
            reducer
                .reduce_with(module, kernels::reduce_i64_closure_sum_once, i)
                .unwrap()
        });
        assert_eq!(got, want, "closure sum of {n} in one launch");
    }
}

/// Every check, on `device`; returns the number of reductions that ran.
pub fn check_all(device: &Device, module: Option<&Module>) -> usize {
    let reducer = Reducer::new(device).unwrap();
    let mut runs = 0;
    runs += check_integers::<i32>(device, &reducer, |b| b as i32);
    runs += check_integers::<u32>(device, &reducer, |b| (b >> 7) as u32);
    runs += check_integers::<i64>(device, &reducer, |b| b as i64);
    runs += check_integers::<u64>(device, &reducer, |b| b.rotate_left(13));
    runs += check_floats::<f32>(
        device,
        &reducer,
        |b| (b % 100_000) as f32 * 0.01 - 500.0,
        f32::EPSILON as f64,
        |x| x as f64,
    );
    runs += check_floats::<f64>(
        device,
        &reducer,
        |b| (b % 10_000_000) as f64 * 1e-3 - 5000.0,
        f64::EPSILON,
        |x| x,
    );
    check_nan(device, &reducer);
    check_wrapping(device, &reducer);
    check_user_kernels(device, &reducer, module);
    runs
}
