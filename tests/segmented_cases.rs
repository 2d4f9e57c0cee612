//! Segmented reductions checked against host references, on any device:
//! the built-in sums, minima and maxima of the six types with `u32` and
//! `u64` offsets, segments of every class (empty, one element, walked by
//! a warp, a warp each, many blocks) alone and mixed, a user type with an operator
//! that is not commutative, and the errors of bad offsets.

use crate::kernels::{self, Mat2, MatMul};
use crate::Rng;
use coop::device::segmented::Offset;
use coop::op::{Max, Min, Operator, Sum};
use coop_host::segmented::{BuiltinSegmented, SegmentedReducer};
use coop_host::{Device, Error, Input, Output, ProgramRef};

/// Segment lengths for a case: `(name, lengths)`.
pub fn layouts(rng: &mut Rng) -> Vec<(&'static str, Vec<usize>)> {
    let mut power_law: Vec<usize> = (0..600)
        .map(|_| {
            let r = rng.next_u64();
            // Mostly short, a few of thousands, one or two of a hundred
            // thousand.
            match r % 100 {
                0 => 70_000 + (r >> 20) as usize % 60_000,
                1..=5 => 257 + (r >> 20) as usize % 20_000,
                6..=30 => (r >> 20) as usize % 256,
                _ => (r >> 20) as usize % 40,
            }
        })
        .collect();
    power_law.push(0);
    vec![
        ("none", vec![]),
        ("one empty", vec![0]),
        ("ones", vec![1; 1000]),
        ("empties and ones", (0..999).map(|i| i % 3 % 2).collect()),
        ("32s", vec![32; 300]),
        ("a warp's walk at most", vec![256; 200]),
        ("just past the walk", vec![257, 7, 257, 0, 2048]),
        ("a warp each", vec![2048; 40]),
        ("block-sized", vec![65_536, 3, 30_000]),
        ("many blocks", vec![300_001, 0, 5]),
        // Long segments side by side: blocks' shares that end inside one,
        // hold the end of one and the start of the next, or lie inside one.
        (
            "long ones in a row",
            vec![70_000, 200_000, 65_537, 400_000, 90_001, 3],
        ),
        ("power law", power_law),
    ]
}

/// Offsets of `lengths`, starting at `start`.
fn offsets_of(lengths: &[usize], start: usize) -> Vec<usize> {
    let mut offsets = vec![start];
    for &l in lengths {
        offsets.push(offsets.last().unwrap() + l);
    }
    offsets
}

/// The host's segmented reduction.
pub fn host_segmented<T: Copy, O: Operator<T>>(input: &[T], offsets: &[usize], op: O) -> Vec<T> {
    offsets
        .windows(2)
        .map(|w| {
            input[w[0]..w[1]]
                .iter()
                .fold(op.identity(), |a, &b| op.combine(a, b))
        })
        .collect()
}

/// Runs `f` with the input, offsets and an output on `device`; returns
/// what it wrote.
fn with_buffers<T: coop::DeviceCopy + Default, Off: coop::DeviceCopy, R>(
    device: &Device,
    input: &[T],
    offsets: &[Off],
    f: impl FnOnce(Input<'_, T>, Input<'_, Off>, Output<'_, T>) -> R,
) -> (Vec<T>, R) {
    let segments = offsets.len().saturating_sub(1);
    match device {
        Device::Gpu(gpu) => {
            let i = gpu.upload(input).unwrap();
            let o = gpu.upload(offsets).unwrap();
            let mut out = gpu.upload(&vec![T::default(); segments]).unwrap();
            let r = f(
                Input::Gpu(i.as_view()),
                Input::Gpu(o.as_view()),
                Output::Gpu(out.as_view_mut()),
            );
            (gpu.download(&out).unwrap(), r)
        }
        Device::Cpu(_) => {
            let mut out = vec![T::default(); segments];
            let r = f(
                Input::Cpu(input),
                Input::Cpu(offsets),
                Output::Cpu(&mut out),
            );
            (out, r)
        }
    }
}

fn check_type<T, Off: Offset + coop::DeviceCopy>(
    device: &Device,
    reducer: &SegmentedReducer,
    make: fn(u64) -> T,
    same: fn(T, T) -> bool,
    to_off: fn(usize) -> Off,
) -> usize
where
    T: BuiltinSegmented<Sum>
        + BuiltinSegmented<Min>
        + BuiltinSegmented<Max>
        + Default
        + std::fmt::Debug,
    Sum: Operator<T>,
    Min: Operator<T>,
    Max: Operator<T>,
{
    let mut rng = Rng::new(0x5E6 + std::mem::size_of::<T>() as u64);
    let mut runs = 0;
    for (name, lengths) in layouts(&mut rng) {
        // The segments start 3 elements into the input and end 2 before
        // its end: offsets need not cover all of it.
        let offsets = offsets_of(&lengths, 3);
        let total = offsets.last().unwrap() + 2;
        let input: Vec<T> = (0..total).map(|_| make(rng.next_u64())).collect();
        let device_offsets: Vec<Off> = offsets.iter().map(|&o| to_off(o)).collect();
        macro_rules! check {
            ($op:expr) => {{
                let (got, r) = with_buffers(device, &input, &device_offsets, |i, o, out| {
                    reducer.reduce($op, i, o, out)
                });
                r.unwrap();
                let want = host_segmented(&input, &offsets, $op);
                let bad = got.iter().zip(&want).position(|(&a, &b)| !same(a, b));
                assert!(
                    bad.is_none() && got.len() == want.len(),
                    "{} segmented {} of {} ({name}, {}-byte offsets): segment {bad:?} differs: \
                     {:?} vs {:?}",
                    std::any::type_name::<T>(),
                    stringify!($op),
                    lengths.len(),
                    std::mem::size_of::<Off>(),
                    bad.map(|b| got[b]),
                    bad.map(|b| want[b]),
                );
                runs += 1;
            }};
        }
        check!(Sum);
        check!(Min);
        check!(Max);
    }
    runs
}

/// Checks every built-in segmented reduction, a user kernel and the
/// errors on `device`; `program` holds the test kernels. Returns the
/// reductions run.
pub fn check_all(device: &Device, program: ProgramRef<'_>) -> usize {
    let reducer = SegmentedReducer::new(device).unwrap();
    let exact_i = |a: i32, b: i32| a == b;
    let mut runs = 0;
    runs += check_type::<i32, u32>(device, &reducer, |r| r as i32 >> 4, exact_i, |o| o as u32);
    runs += check_type::<i32, u64>(device, &reducer, |r| r as i32 >> 4, exact_i, |o| o as u64);
    runs += check_type::<u32, u32>(device, &reducer, |r| r as u32, |a, b| a == b, |o| o as u32);
    runs += check_type::<u64, u64>(device, &reducer, |r| r, |a, b| a == b, |o| o as u64);
    runs += check_type::<i64, u32>(device, &reducer, |r| r as i64, |a, b| a == b, |o| o as u32);
    // Small integers as floats: every sum is exact, whatever the order.
    let same_f32 = |a: f32, b: f32| a == b || (a.is_nan() && b.is_nan());
    let same_f64 = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
    runs += check_type::<f32, u32>(
        device,
        &reducer,
        |r| (r % 64) as f32 - 32.0,
        same_f32,
        |o| o as u32,
    );
    runs += check_type::<f64, u64>(
        device,
        &reducer,
        |r| (r % 64) as f64 - 32.0,
        same_f64,
        |o| o as u64,
    );
    // A user type and an ordered operator, every class of segment.
    let mut rng = Rng::new(0x3A72);
    for (name, lengths) in layouts(&mut rng) {
        let offsets = offsets_of(&lengths, 0);
        let input: Vec<Mat2> = (0..*offsets.last().unwrap())
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
        let words: Vec<u32> = offsets.iter().map(|&o| o as u32).collect();
        let (got, r) = with_buffers(device, &input, &words, |i, o, out| {
            reducer.reduce_with(program, kernels::segmented_mat2_product, i, o, out)
        });
        r.unwrap();
        assert!(
            got == host_segmented(&input, &offsets, MatMul),
            "segmented matrix product ({name})"
        );
        runs += 1;
    }
    // Bad offsets are typed errors naming the segment.
    let input = vec![1i32; 100];
    for (offsets, segment) in [(vec![0u32, 10, 5, 20], 1), (vec![0u32, 50, 101], 1)] {
        let (_, r) = with_buffers(device, &input, &offsets, |i, o, out| reducer.sum(i, o, out));
        let e = r.unwrap_err();
        assert!(
            matches!(
                e,
                Error::InvalidArgument {
                    call: "SegmentedReducer::reduce",
                    ..
                }
            ) && e.to_string().contains(&format!("segment {segment}:")),
            "{e}"
        );
    }
    let mut short = vec![0i32; 2];
    let e = match device {
        Device::Cpu(_) => reducer
            .sum(&input, &[0u32, 5, 9, 10][..], &mut short)
            .unwrap_err(),
        Device::Gpu(gpu) => {
            let (i, o) = (
                gpu.upload(&input).unwrap(),
                gpu.upload(&[0u32, 5, 9, 10]).unwrap(),
            );
            let mut out = gpu.zeros::<i32>(2).unwrap();
            reducer.sum(&i, &o, &mut out).unwrap_err()
        }
    };
    assert!(e.to_string().contains("4 offsets for 2 outputs"), "{e}");
    runs
}
