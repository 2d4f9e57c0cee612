//! Device-wide selections checked against host references, on any device:
//! the built-in flagged selections, partitions and unique of every
//! built-in type over lengths around the tile edges and past the
//! look-back's window of 32 tiles, flags all set, none set, dense and
//! sparse, views at every alignment, floats' NaN and signed zeros, user
//! predicates and a user type, the count left on the device, and the
//! errors of a bad call.

use crate::kernels::{self, Mat2};
use crate::Rng;
use coop_host::select::{BuiltinSelect, Selector};
use coop_host::{Device, Error, Input, Output, ProgramRef};

/// Lengths: empty, one, two, 31 (two threads' runs of 16, the second
/// short), around half a tile, a tile (4096 elements with the default
/// blocks) and two, and past 33 tiles (the look-back's window is 32
/// tiles).
pub const LENGTHS: [usize; 13] = [
    0, 1, 2, 31, 2047, 2049, 4095, 4096, 4097, 8191, 8193, 16_385, 140_001,
];

/// The host's selection: the kept elements in order, then (for a
/// partition) the others in reverse order; and how many were kept.
pub fn host_select<T: Copy>(
    data: &[T],
    keep: impl Fn(usize) -> bool,
    partition: bool,
) -> (Vec<T>, usize) {
    let kept: Vec<T> = (0..data.len())
        .filter(|&i| keep(i))
        .map(|i| data[i])
        .collect();
    let n = kept.len();
    let mut out = kept;
    if partition {
        out.extend((0..data.len()).rev().filter(|&i| !keep(i)).map(|i| data[i]));
    }
    (out, n)
}

/// Bits of a value, so that floats compare by their bits (NaN, -0.0).
pub trait Bits: Copy + std::fmt::Debug {
    /// The value's bits.
    fn bits(self) -> u64;
}
macro_rules! bits {
    ($($t:ty => $f:expr),*) => {$(
        impl Bits for $t {
            fn bits(self) -> u64 {
                let f: fn($t) -> u64 = $f;
                f(self)
            }
        }
    )*};
}
bits!(u8 => |x| x as u64, i8 => |x| x as u8 as u64, u16 => |x| x as u64, i16 => |x| x as u16 as u64,
      u32 => |x| x as u64, i32 => |x| x as u32 as u64, u64 => |x| x, i64 => |x| x as u64,
      f32 => |x| x.to_bits() as u64, f64 => |x| x.to_bits());
impl Bits for Mat2 {
    fn bits(self) -> u64 {
        self.0
            .iter()
            .fold(0u64, |h, &w| h.rotate_left(17) ^ w as u32 as u64)
    }
}

/// Runs `f` over `data[offset..]` (and `flags[offset..]`) with an output
/// of the same length on `device`; returns the output (the prefix `f`
/// wrote) and `f`'s count.
pub fn run_with<T: coop::DeviceCopy + Default>(
    device: &Device,
    data: &[T],
    flags: &[bool],
    offset: usize,
    f: impl FnOnce(Input<'_, T>, Input<'_, bool>, Output<'_, T>) -> usize,
) -> (Vec<T>, usize) {
    let n = data.len() - offset;
    match device {
        Device::Gpu(gpu) => {
            let input = gpu.upload(data).unwrap();
            let flag_buf = gpu
                .upload(if flags.is_empty() {
                    &[false][..]
                } else {
                    flags
                })
                .unwrap();
            let flag_view = if flags.is_empty() {
                flag_buf.slice(0..0)
            } else {
                flag_buf.slice(offset..)
            };
            let mut out = gpu.upload(&vec![T::default(); n + offset]).unwrap();
            let count = f(
                Input::Gpu(input.slice(offset..)),
                Input::Gpu(flag_view),
                Output::Gpu(out.slice_mut(offset..)),
            );
            (gpu.download(&out).unwrap()[offset..].to_vec(), count)
        }
        Device::Cpu(_) => {
            let mut out = vec![T::default(); n];
            let flags = if flags.is_empty() {
                flags
            } else {
                &flags[offset..]
            };
            let count = f(
                Input::Cpu(&data[offset..]),
                Input::Cpu(flags),
                Output::Cpu(&mut out),
            );
            (out, count)
        }
    }
}

/// Asserts that `got` (its first `want.len()` elements) and `count` are
/// the host's, by bits.
fn expect<T: Bits>(what: &str, got: &(Vec<T>, usize), want: &(Vec<T>, usize)) {
    assert_eq!(got.1, want.1, "{what}: the count");
    let bad = want
        .0
        .iter()
        .zip(&got.0)
        .position(|(a, b)| a.bits() != b.bits());
    assert!(
        bad.is_none(),
        "{what}: first difference at {bad:?}: {:?} where the host has {:?}",
        bad.map(|k| got.0[k]),
        bad.map(|k| want.0[k])
    );
}

/// Checks the flagged selections, partitions and unique of one built-in
/// type on `device`; returns the calls checked.
fn check_type<T>(device: &Device, selector: &Selector, make: fn(u64) -> T) -> usize
where
    T: BuiltinSelect + Bits + Default + PartialEq,
{
    let name = std::any::type_name::<T>();
    let mut rng = Rng::new(0x5E1E + std::mem::size_of::<T>() as u64);
    let mut runs = 0;
    for &n in &LENGTHS {
        let offsets: &[usize] = if n > 10_000 { &[0, 1] } else { &[0, 1, 3] };
        for &offset in offsets {
            let data: Vec<T> = (0..n + offset).map(|_| make(rng.next_u64())).collect();
            let part = &data[offset..];
            // Every flag, none, half at random, one in a hundred.
            for density in [100u32, 0, 50, 1] {
                let flags: Vec<bool> = (0..n + offset).map(|_| rng.below(100) < density).collect();
                let fpart = &flags[offset..];
                for partition in [false, true] {
                    let got = run_with(device, &data, &flags, offset, |i, f, o| {
                        if partition {
                            selector.partition_flagged(i, f, o).unwrap()
                        } else {
                            selector.flagged(i, f, o).unwrap()
                        }
                    });
                    let want = host_select(part, |k| fpart[k], partition);
                    expect(
                        &format!(
                            "{} of {n} {name} at offset {offset}, {density} % flagged",
                            if partition {
                                "partition_flagged"
                            } else {
                                "flagged"
                            }
                        ),
                        &got,
                        &want,
                    );
                    runs += 1;
                }
            }
            // Runs of equal elements: of lengths 1 to 8 from few values.
            let mut runs_data = Vec::with_capacity(n + offset);
            while runs_data.len() < n + offset {
                let v = make(rng.next_u64() % 4);
                for _ in 0..=rng.below(8) {
                    runs_data.push(v);
                }
            }
            runs_data.truncate(n + offset);
            // Already sorted, reversed (runs of three), and all equal.
            let len = (n + offset) as u64;
            let sorted: Vec<T> = (0..len).map(|i| make(i / 3)).collect();
            let reversed: Vec<T> = (0..len).map(|i| make((len - i) / 3)).collect();
            let equal: Vec<T> = (0..len).map(|_| make(5)).collect();
            let shapes: Vec<&Vec<T>> = if offset == 0 {
                vec![&data, &runs_data, &sorted, &reversed, &equal]
            } else {
                vec![&data, &runs_data]
            };
            for input in shapes {
                let got = run_with(device, input, &[], offset, |i, _, o| {
                    selector.unique(i, o).unwrap()
                });
                let p = &input[offset..];
                let want = host_select(p, |k| k == 0 || p[k] != p[k - 1], false);
                expect(
                    &format!("unique of {n} {name} at offset {offset}"),
                    &got,
                    &want,
                );
                runs += 1;
            }
        }
    }
    runs
}

/// Checks every built-in selection, user kernels (found in `program`, the
/// test kernels) and the errors on `device`. Returns the calls checked.
pub fn check_all(device: &Device, program: ProgramRef<'_>) -> usize {
    let selector = Selector::new(device).unwrap();
    let mut runs = 0;
    runs += check_type::<u8>(device, &selector, |r| r as u8);
    runs += check_type::<i8>(device, &selector, |r| r as i8);
    runs += check_type::<u16>(device, &selector, |r| r as u16);
    runs += check_type::<i16>(device, &selector, |r| r as i16);
    runs += check_type::<u32>(device, &selector, |r| r as u32);
    runs += check_type::<i32>(device, &selector, |r| r as i32);
    runs += check_type::<u64>(device, &selector, |r| r);
    runs += check_type::<i64>(device, &selector, |r| r as i64);
    runs += check_type::<f32>(device, &selector, |r| (r % 7) as f32 - 3.0);
    runs += check_type::<f64>(device, &selector, |r| (r % 7) as f64 - 3.0);
    runs += check_floats(device, &selector);
    runs += check_small_tiles(device);
    runs += check_user_kernels(device, program);
    runs += check_count_on_device(device, &selector);
    check_errors(device, &selector);
    runs
}

/// Floats: `unique` compares with `==`, so `-0.0` after `0.0` is a
/// duplicate and every NaN is kept; selections move NaN's bits unchanged.
fn check_floats(device: &Device, selector: &Selector) -> usize {
    let weird_nan = f32::from_bits(0x7fc0_1234);
    let data = [
        0.0f32,
        -0.0,
        -0.0,
        1.0,
        f32::NAN,
        f32::NAN,
        weird_nan,
        1.0,
        f32::INFINITY,
    ];
    let got = run_with(device, &data, &[], 0, |i, _, o| {
        selector.unique(i, o).unwrap()
    });
    let want = (
        vec![
            0.0f32,
            1.0,
            f32::NAN,
            f32::NAN,
            weird_nan,
            1.0,
            f32::INFINITY,
        ],
        7,
    );
    expect("unique of f32 with signed zeros and NaN", &got, &want);
    let flags = [false, true, false, false, false, true, true, false, false];
    let got = run_with(device, &data, &flags, 0, |i, f, o| {
        selector.flagged(i, f, o).unwrap()
    });
    expect(
        "flagged f32 NaN and -0.0",
        &got,
        &(vec![-0.0f32, f32::NAN, weird_nan], 3),
    );
    let wide = [-0.0f64, 0.0, f64::NAN, f64::NAN];
    let got = run_with(device, &wide, &[], 0, |i, _, o| {
        selector.unique(i, o).unwrap()
    });
    expect(
        "unique of f64 with signed zeros and NaN",
        &got,
        &(vec![-0.0f64, f64::NAN, f64::NAN], 3),
    );
    3
}

/// Small blocks: many tiles (on a GPU, look-backs of more than one round
/// of 32 tiles), for 4-byte and 8-byte elements.
fn check_small_tiles(device: &Device) -> usize {
    let small = Selector::new(device)
        .unwrap()
        .with_block_threads(64)
        .unwrap();
    let mut rng = Rng::new(0x5E1F);
    let data: Vec<u32> = (0..140_001).map(|_| rng.next_u64() as u32).collect();
    let flags: Vec<bool> = (0..data.len()).map(|_| rng.below(3) == 0).collect();
    for partition in [false, true] {
        let got = run_with(device, &data, &flags, 1, |i, f, o| {
            if partition {
                small.partition_flagged(i, f, o).unwrap()
            } else {
                small.flagged(i, f, o).unwrap()
            }
        });
        expect(
            "u32 in small tiles",
            &got,
            &host_select(&data[1..], |k| flags[k + 1], partition),
        );
    }
    let data: Vec<f64> = (0..140_001).map(|_| (rng.below(3)) as f64).collect();
    let got = run_with(device, &data, &[], 0, |i, _, o| small.unique(i, o).unwrap());
    expect(
        "unique f64 in small tiles",
        &got,
        &host_select(&data, |k| k == 0 || data[k] != data[k - 1], false),
    );
    3
}

/// User kernels: a predicate over `u32` (staged) and over `u8` (not
/// staged), selections and partitions; a predicate, flags and `unique`
/// over a user type.
fn check_user_kernels(device: &Device, program: ProgramRef<'_>) -> usize {
    let selector = Selector::new(device).unwrap();
    let mut rng = Rng::new(0x05E1);
    let mut runs = 0;
    for &n in &[0usize, 1, 8193, 140_001] {
        let data: Vec<u32> = (0..n + 1).map(|_| rng.next_u64() as u32).collect();
        let bytes: Vec<u8> = (0..n + 1).map(|_| rng.next_u64() as u8).collect();
        let mats: Vec<Mat2> = (0..n + 1)
            .map(|_| Mat2([rng.below(5) as i32 - 2, 1, 2, rng.below(5) as i32 - 2]))
            .collect();
        for partition in [false, true] {
            let got = run_with(device, &data, &[], 1, |i, _, o| {
                if partition {
                    selector
                        .partition_with(program, kernels::select_odd_u32, i, o)
                        .unwrap()
                } else {
                    selector
                        .if_with(program, kernels::select_odd_u32, i, o)
                        .unwrap()
                }
            });
            expect(
                "select_odd_u32",
                &got,
                &host_select(&data[1..], |k| data[k + 1] % 2 == 1, partition),
            );
            let got = run_with(device, &bytes, &[], 1, |i, _, o| {
                if partition {
                    selector
                        .partition_with(program, kernels::select_high_bytes, i, o)
                        .unwrap()
                } else {
                    selector
                        .if_with(program, kernels::select_high_bytes, i, o)
                        .unwrap()
                }
            });
            expect(
                "select_high_bytes",
                &got,
                &host_select(&bytes[1..], |k| bytes[k + 1] > 200, partition),
            );
            let got = run_with(device, &mats, &[], 0, |i, _, o| {
                if partition {
                    selector
                        .partition_with(program, kernels::select_mat2_positive_trace, i, o)
                        .unwrap()
                } else {
                    selector
                        .if_with(program, kernels::select_mat2_positive_trace, i, o)
                        .unwrap()
                }
            });
            let trace = |k: usize| mats[k].0[0].wrapping_add(mats[k].0[3]) > 0;
            expect(
                "select_mat2_positive_trace",
                &got,
                &host_select(&mats, trace, partition),
            );
            runs += 3;
        }
        let flags: Vec<bool> = (0..n + 1).map(|_| rng.below(2) == 0).collect();
        for partition in [false, true] {
            let got = run_with(device, &mats, &flags, 1, |i, f, o| {
                if partition {
                    selector
                        .partition_flagged_with(program, kernels::select_flagged_mat2, i, f, o)
                        .unwrap()
                } else {
                    selector
                        .flagged_with(program, kernels::select_flagged_mat2, i, f, o)
                        .unwrap()
                }
            });
            expect(
                "select_flagged_mat2",
                &got,
                &host_select(&mats[1..], |k| flags[k + 1], partition),
            );
            runs += 1;
        }
        let got = run_with(device, &mats, &[], 1, |i, _, o| {
            selector
                .if_with(program, kernels::unique_mat2, i, o)
                .unwrap()
        });
        let p = &mats[1..];
        expect(
            "unique_mat2",
            &got,
            &host_select(p, |k| k == 0 || p[k] != p[k - 1], false),
        );
        runs += 1;
    }
    runs
}

/// The `*_into` forms store the count in the caller's buffer and leave the
/// same output as the counted forms; an empty input stores 0.
fn check_count_on_device(device: &Device, selector: &Selector) -> usize {
    let data: Vec<i32> = (0..20_000).map(|i| (i * 7) % 13).collect();
    let flags: Vec<bool> = data.iter().map(|&x| x < 5).collect();
    let want = host_select(&data, |k| flags[k], false);
    let input = device.upload(&data).unwrap();
    let flag_buf = device.upload(&flags).unwrap();
    let mut out = device.zeros::<i32>(data.len()).unwrap();
    let mut count = device.upload(&[99u64]).unwrap();
    selector
        .flagged_into(&input, &flag_buf, &mut out, &mut count)
        .unwrap();
    assert_eq!(
        device.download(&count).unwrap(),
        [want.1 as u64],
        "flagged_into's count"
    );
    assert_eq!(
        &device.download(&out).unwrap()[..want.1],
        &want.0[..],
        "flagged_into's output"
    );
    let empty = device.upload::<i32>(&[]).unwrap();
    let no_flags = device.upload::<bool>(&[]).unwrap();
    selector
        .flagged_into(&empty, &no_flags, &mut out, &mut count)
        .unwrap();
    assert_eq!(
        device.download(&count).unwrap(),
        [0],
        "an empty input's count"
    );
    selector.unique_into(&input, &mut out, &mut count).unwrap();
    assert_eq!(
        device.download(&count).unwrap(),
        [data.len() as u64],
        "unique_into's count"
    );
    3
}

/// Bad calls fail with typed errors that name the call and the rule.
fn check_errors(device: &Device, selector: &Selector) {
    let data = device.upload(&[1u32, 2, 3, 4]).unwrap();
    let three_flags = device.upload(&[true, false, true]).unwrap();
    let four_flags = device.upload(&[true, false, true, true]).unwrap();
    let mut out = device.zeros::<u32>(4).unwrap();
    let mut short = device.zeros::<u32>(3).unwrap();
    let e = selector.flagged(&data, &three_flags, &mut out).unwrap_err();
    let m = e.to_string();
    assert!(
        matches!(
            e,
            Error::InvalidArgument {
                call: "Selector::flagged",
                ..
            }
        ) && m.contains("3 flags for 4 elements"),
        "{m}"
    );
    let m = selector
        .partition_flagged(&data, &four_flags, &mut short)
        .unwrap_err()
        .to_string();
    assert!(
        m.contains("Selector::partition_flagged")
            && m.contains("the output holds 3 elements and the input 4")
            && m.contains("a partition writes every element"),
        "{m}"
    );
    let m = selector.unique(&data, &mut short).unwrap_err().to_string();
    assert!(m.contains("all of them may be kept"), "{m}");
    // The free functions name themselves, as the user wrote them.
    let m = coop_host::select::flagged(device, &data, &three_flags, &mut out)
        .unwrap_err()
        .to_string();
    assert!(
        m.starts_with("`select::flagged`: 3 flags for 4 elements"),
        "{m}"
    );
    let m = coop_host::select::unique(device, &data, &mut short)
        .unwrap_err()
        .to_string();
    assert!(m.starts_with("`select::unique`: the output holds 3"), "{m}");
    let m = coop_host::select::partition_flagged(device, &data, &four_flags, &mut short)
        .unwrap_err()
        .to_string();
    assert!(m.starts_with("`select::partition_flagged`"), "{m}");
    let mut no_count = device.zeros::<u64>(0).unwrap();
    let m = selector
        .unique_into(&data, &mut out, &mut no_count)
        .unwrap_err()
        .to_string();
    assert!(m.contains("the count's buffer is empty"), "{m}");
    for bad in [0u32, 32, 100, 544, 1024] {
        let m = Selector::new(device)
            .unwrap()
            .with_block_threads(bad)
            .unwrap_err()
            .to_string();
        assert!(
            m.contains(&format!(
                "{bad} threads a block: a selection's block is a multiple of 32"
            )),
            "with_block_threads({bad})"
        );
    }
}
