//! Reductions over a set of devices checked against host references, on
//! any set: the CPU backend's emulated devices in CI (in one process, and
//! one process a rank in `multi_process.rs`), the GPUs of a machine
//! (joined by NCCL) in `gpu.rs`. Sharded sums, minima and maxima of every
//! built-in type, with shards empty, of one element and uneven; NaN in one
//! shard or filling one; the totals left on every device; element-wise
//! all-reduce, all-gather and reduce-scatter; sharded inclusive and
//! exclusive scans; sharded sorts; a user kernel and operator; and the
//! errors of misplaced or mismatched shards.

use crate::scan_cases::host_scan;
use crate::Rng;
use coop::op::{Max, Min, Operator, Product, Sum};
use coop_host::cudarc::nccl::NcclType;
use coop_host::multi::{Devices, Reducer, Scanner, Shards, Sorter};
use coop_host::reduce::Builtin;
use coop_host::scan::BuiltinScan;
use coop_host::sort::BuiltinSort;
use coop_host::{Buffer, Error, Program};
use std::cmp::Ordering;

/// Lengths: fewer elements than devices, uneven splits, several blocks a
/// shard.
pub const LENGTHS: [usize; 8] = [0, 1, 2, 3, 7, 1023, 4097, 65_539];

/// Host folds of `data` with `op`.
fn fold<T: Copy, O: Operator<T>>(op: O, data: &[T]) -> T {
    data.iter().fold(op.identity(), |a, &b| op.combine(a, b))
}

/// Checks `sum`, `min`, `max` and their `all_` variants of `T` over
/// `devices` against the host fold; `make` draws values whose sums are
/// exact (so that float sums compare bit for bit whatever the order).
fn check_type<T>(devices: &Devices, reducer: &Reducer, make: fn(u64) -> T) -> usize
where
    T: Builtin<Sum> + Builtin<Min> + Builtin<Max> + NcclType,
    T: PartialEq + std::fmt::Debug,
    Sum: Operator<T>,
    Min: Operator<T>,
    Max: Operator<T>,
{
    let mut rng = Rng::new(0xD1CE + std::mem::size_of::<T>() as u64);
    let mut runs = 0;
    let name = std::any::type_name::<T>();
    for &n in &LENGTHS {
        let data: Vec<T> = (0..n).map(|_| make(rng.next_u64())).collect();
        let shards = devices.scatter(&data).unwrap();
        let want = (fold(Sum, &data), fold(Min, &data), fold(Max, &data));
        let got = (
            reducer.sum(&shards).unwrap(),
            reducer.min(&shards).unwrap(),
            reducer.max(&shards).unwrap(),
        );
        assert!(
            same(&got.0, &want.0) && same(&got.1, &want.1) && same(&got.2, &want.2),
            "{name}, {n} elements on {}: (sum, min, max) {got:?}, host {want:?}",
            devices.describe()
        );
        let everywhere = [
            devices.gather(&reducer.all_sum(&shards).unwrap()).unwrap(),
            devices.gather(&reducer.all_min(&shards).unwrap()).unwrap(),
            devices.gather(&reducer.all_max(&shards).unwrap()).unwrap(),
        ];
        for (got, want) in everywhere.iter().zip([want.0, want.1, want.2]) {
            assert_eq!(got.len(), devices.world(), "{name}: one total a rank");
            assert!(
                got.iter().all(|g| same(g, &want)),
                "{name}, {n} elements: left on every device {got:?}, host {want:?}"
            );
        }
        runs += 6;
    }
    runs
}

/// Equal, NaN equal to NaN.
fn same<T: PartialEq>(a: &T, b: &T) -> bool {
    #[allow(clippy::eq_op)]
    let nan = |x: &T| x != x;
    a == b || (nan(a) && nan(b))
}

/// Float minima and maxima ignore NaN across devices: a NaN in one shard,
/// a shard of NaN only, and every shard NaN.
fn check_nan(devices: &Devices, reducer: &Reducer) -> usize {
    let k = devices.world();
    let mut runs = 0;
    for case in 0..3 {
        let per = 5;
        let mut data: Vec<f64> = (0..k * per).map(|i| i as f64 - 7.0).collect();
        match case {
            0 => data[k * per / 2] = f64::NAN,
            1 => data[..per].iter_mut().for_each(|x| *x = f64::NAN),
            _ => data.iter_mut().for_each(|x| *x = f64::NAN),
        }
        let shards = devices.scatter(&data).unwrap();
        let (lo, hi) = (reducer.min(&shards).unwrap(), reducer.max(&shards).unwrap());
        let numbers: Vec<f64> = data.iter().copied().filter(|x| !x.is_nan()).collect();
        if numbers.is_empty() {
            assert!(lo.is_nan() && hi.is_nan(), "all NaN: {lo} {hi}");
        } else {
            assert_eq!(lo, fold(Min, &numbers), "NaN case {case}: min");
            assert_eq!(hi, fold(Max, &numbers), "NaN case {case}: max");
        }
        runs += 2;
    }
    runs
}

/// Element-wise all-reduce against the rank-order combination.
fn check_all_reduce(devices: &Devices) -> usize {
    let k = devices.world();
    let mut rng = Rng::new(0xA11);
    let mut runs = 0;
    for len in [0usize, 1, 5, 1000, 70_001] {
        let per_rank = |make: &mut dyn FnMut() -> f32| -> Vec<Vec<f32>> {
            (0..k).map(|_| (0..len).map(|_| make()).collect()).collect()
        };
        let values = per_rank(&mut || (rng.below(64) as f32) - 32.0);
        let mut shards = upload(devices, &values);
        devices.all_reduce(&mut shards, Sum).unwrap();
        let want: Vec<f32> = (0..len)
            .map(|j| values.iter().fold(0.0, |a, v| a + v[j]))
            .collect();
        assert_eq!(
            devices.gather(&shards).unwrap(),
            want.repeat(k),
            "f32 sum of {len}"
        );

        let mut values = per_rank(&mut || rng.below(1000) as f32 * 0.5);
        if len > 0 {
            values[0][0] = f32::NAN;
            values[k - 1][len - 1] = f32::NAN;
        }
        let mut shards = upload(devices, &values);
        devices.all_reduce(&mut shards, Min).unwrap();
        let want: Vec<f32> = (0..len)
            .map(|j| values.iter().fold(f32::NAN, |a, v| Min.combine(a, v[j])))
            .collect();
        let got = devices.gather(&shards).unwrap();
        assert!(
            got.iter().zip(want.repeat(k)).all(|(g, w)| same(g, &w)),
            "f32 min of {len} with NaN"
        );

        let ints: Vec<Vec<i32>> = (0..k)
            .map(|_| (0..len).map(|_| rng.next_u64() as i32 | 1).collect())
            .collect();
        let mut shards = upload(devices, &ints);
        devices.all_reduce(&mut shards, Product).unwrap();
        let want: Vec<i32> = (0..len)
            .map(|j| ints.iter().fold(1i32, |a, v| a.wrapping_mul(v[j])))
            .collect();
        assert_eq!(
            devices.gather(&shards).unwrap(),
            want.repeat(k),
            "i32 product of {len}"
        );

        let bytes: Vec<Vec<u8>> = (0..k)
            .map(|_| (0..len).map(|_| rng.below(256) as u8).collect())
            .collect();
        let mut shards = upload(devices, &bytes);
        devices.all_reduce(&mut shards, Max).unwrap();
        let want: Vec<u8> = (0..len)
            .map(|j| bytes.iter().map(|v| v[j]).max().unwrap_or(0))
            .collect();
        assert_eq!(
            devices.gather(&shards).unwrap(),
            want.repeat(k),
            "u8 max of {len}"
        );
        runs += 4;
    }
    runs
}

/// All-gather and reduce-scatter against the host: every rank's shard on
/// every rank, and the element-wise combination one block a rank.
fn check_gather_scatter(devices: &Devices) -> usize {
    let k = devices.world();
    let mut rng = Rng::new(0x6A7);
    let mut runs = 0;
    for per in [0usize, 1, 3, 250] {
        let len = per * k;
        let values: Vec<Vec<i64>> = (0..k)
            .map(|_| (0..len).map(|_| rng.next_u64() as i64 >> 8).collect())
            .collect();
        let shards = upload(devices, &values);
        let everywhere = devices.all_gather(&shards).unwrap();
        assert_eq!(everywhere.lens(), vec![len * k; devices.count()]);
        assert_eq!(
            devices.gather(&everywhere).unwrap(),
            values.concat().repeat(k),
            "all-gather of {len} i64 a rank"
        );
        let blocks = devices.reduce_scatter(&shards, Sum).unwrap();
        let sums: Vec<i64> = (0..len)
            .map(|j| values.iter().fold(0i64, |a, v| a.wrapping_add(v[j])))
            .collect();
        assert_eq!(blocks.lens(), vec![per; devices.count()]);
        assert_eq!(
            devices.gather(&blocks).unwrap(),
            sums,
            "reduce-scatter sum of {len}"
        );
        let floats: Vec<Vec<f32>> = (0..k)
            .map(|_| (0..len).map(|_| rng.below(200) as f32 - 100.0).collect())
            .collect();
        let shards = upload(devices, &floats);
        let blocks = devices.reduce_scatter(&shards, Max).unwrap();
        let maxima: Vec<f32> = (0..len)
            .map(|j| floats.iter().fold(f32::NAN, |a, v| Max.combine(a, v[j])))
            .collect();
        assert_eq!(
            devices.gather(&blocks).unwrap(),
            maxima,
            "reduce-scatter max of {len}"
        );
        runs += 3;
    }
    if k > 1 {
        let uneven = upload(devices, &vec![vec![1u32; k + 1]; k]);
        let err = devices.reduce_scatter(&uneven, Sum).unwrap_err();
        assert!(
            err.to_string().contains(&format!(
                "shards of {} elements cannot be split into {k} equal blocks",
                k + 1
            )),
            "{err}"
        );
    }
    runs
}

/// Checks the sharded scans of `T` with `op` against the host's scan of
/// the whole array: even splits of [`LENGTHS`], and shards of different
/// lengths (several tiles, an empty one); returns the scans run.
fn check_scan_of<T, O>(devices: &Devices, scanner: &Scanner, op: O, make: fn(u64) -> T) -> usize
where
    T: BuiltinScan<O> + Builtin<O> + NcclType + PartialEq + std::fmt::Debug,
    O: Operator<T>,
{
    let k = devices.world();
    let mut rng = Rng::new(0x5CA + std::mem::size_of::<T>() as u64);
    let mut runs = 0;
    let name = std::any::type_name::<(O, T)>();
    // Even splits, then rank r's shard of 5000 r + 1 elements (the last
    // empty: rank 1 of 2, or 2 of 3, crosses tiles).
    let mut cases: Vec<Vec<Vec<T>>> = LENGTHS
        .iter()
        .map(|&n| {
            let data: Vec<T> = (0..n).map(|_| make(rng.next_u64())).collect();
            let (base, extra) = (n / k, n % k);
            let mut start = 0;
            (0..k)
                .map(|r| {
                    let len = base + usize::from(r < extra);
                    start += len;
                    data[start - len..start].to_vec()
                })
                .collect()
        })
        .collect();
    cases.push(
        (0..k)
            .map(|r| {
                let len = if r + 1 == k && k > 1 { 0 } else { 5000 * r + 1 };
                (0..len).map(|_| make(rng.next_u64())).collect()
            })
            .collect(),
    );
    for values in &cases {
        let input = upload(devices, values);
        let mut output = devices.zeros_like(&input).unwrap();
        let whole = values.concat();
        for exclusive in [false, true] {
            if exclusive {
                scanner.exclusive(op, &input, &mut output).unwrap();
            } else {
                scanner.inclusive(op, &input, &mut output).unwrap();
            }
            let got = devices.gather(&output).unwrap();
            let want = host_scan(&whole, op, exclusive);
            let bad = got.iter().zip(&want).position(|(a, b)| !same(a, b));
            assert!(
                got.len() == want.len() && bad.is_none(),
                "{} scan {name} of shards {:?}: first difference at {bad:?}",
                if exclusive { "exclusive" } else { "inclusive" },
                input.lens(),
            );
            runs += 1;
        }
    }
    runs
}

/// Sharded scans: integers with each operator, float sums of values whose
/// sums are exact, float minima, the same bits from a deterministic
/// scanner run after run, and a mismatched output.
fn check_scans(devices: &Devices) -> usize {
    let scanner = Scanner::new(devices).unwrap();
    let mut runs = 0;
    runs += check_scan_of::<i64, _>(devices, &scanner, Sum, |b| b as i64 >> 4);
    runs += check_scan_of::<i64, _>(devices, &scanner, Max, |b| b as i64);
    runs += check_scan_of::<u32, _>(devices, &scanner, Sum, |b| (b >> 7) as u32);
    runs += check_scan_of::<i32, _>(devices, &scanner, Min, |b| b as i32);
    runs += check_scan_of::<u64, _>(devices, &scanner, Sum, |b| b);
    runs += check_scan_of::<f32, _>(devices, &scanner, Sum, |b| (b % 33) as f32 - 16.0);
    runs += check_scan_of::<f64, _>(devices, &scanner, Min, |b| (b % 2001) as f64 - 1000.5);
    let deterministic = Scanner::new(devices).unwrap().deterministic();
    assert!(deterministic.is_deterministic() && !scanner.is_deterministic());
    runs += check_scan_of::<i32, _>(devices, &deterministic, Sum, |b| b as i32);
    let mut rng = Rng::new(0xF10A);
    let data: Vec<f32> = (0..70_001)
        .map(|_| 1.0 / (1.0 + rng.below(1000) as f32))
        .collect();
    let input = devices.scatter(&data).unwrap();
    let mut once = devices.zeros_like(&input).unwrap();
    let mut again = devices.zeros_like(&input).unwrap();
    deterministic.inclusive(Sum, &input, &mut once).unwrap();
    deterministic.inclusive(Sum, &input, &mut again).unwrap();
    let (once, again) = (
        devices.gather(&once).unwrap(),
        devices.gather(&again).unwrap(),
    );
    assert!(
        once.iter()
            .zip(&again)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "a deterministic sharded float scan changed its bits"
    );
    let exact = host_scan(
        &data.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        Sum,
        false,
    );
    for (j, (g, e)) in once.iter().zip(&exact).enumerate() {
        assert!(
            ((*g as f64) - e).abs() < 1e-3 * (1.0 + e.abs()),
            "{j}: {g} vs {e}"
        );
    }
    runs += 2;
    // An output shard of another length is refused, naming it.
    let input = upload(devices, &vec![vec![1u32; 4]; devices.world()]);
    let mut short = upload(devices, &vec![vec![0u32; 3]; devices.world()]);
    let err = scanner.inclusive(Sum, &input, &mut short).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Shards {
                call: "multi::Scanner::inclusive",
                ..
            }
        ) && err
            .to_string()
            .contains("output shard 0 holds 3 elements and input shard 0 4"),
        "{err}"
    );
    runs
}

/// Sharded sorts of every key type NCCL moves, against the host's sort in
/// the radix sort's order: random keys of every length, keys all equal,
/// already sorted and reversed, uneven shards with an empty one, and the
/// floats' special values. The input is left as it was; the output shards
/// concatenated are sorted, and for mostly distinct keys no output shard
/// holds much more than its share.
fn check_sorts(devices: &Devices) -> usize {
    let sorter = Sorter::new(devices).unwrap();
    let mut runs = 0;
    // Every shape for one integer and one float type; the others (the same
    // code but the key's order) at a few lengths: the CPU backend's radix
    // sort is slow.
    let all = true;
    runs += check_sort_of::<u32>(devices, &sorter, all, |b| (b >> 20) as u32, u32::cmp);
    runs += check_sort_of::<i32>(devices, &sorter, !all, |b| (b >> 7) as i32, i32::cmp);
    runs += check_sort_of::<u64>(devices, &sorter, !all, |b| b, u64::cmp);
    runs += check_sort_of::<i64>(
        devices,
        &sorter,
        !all,
        |b| (b % 1000) as i64 - 500,
        i64::cmp,
    );
    runs += check_sort_of::<f32>(
        devices,
        &sorter,
        all,
        |b| match b % 97 {
            0 => f32::NAN,
            1 => -f32::NAN,
            2 => -0.0,
            3 => f32::INFINITY,
            4 => f32::NEG_INFINITY,
            _ => (b >> 40) as f32 * 0.5 - 1e6,
        },
        f32::total_cmp,
    );
    runs += check_sort_of::<f64>(
        devices,
        &sorter,
        !all,
        |b| {
            if b % 89 == 0 {
                f64::NAN
            } else {
                (b >> 11) as f64 - 2e15
            }
        },
        f64::total_cmp,
    );
    runs
}

fn check_sort_of<T>(
    devices: &Devices,
    sorter: &Sorter,
    every_shape: bool,
    make: fn(u64) -> T,
    order: fn(&T, &T) -> Ordering,
) -> usize
where
    T: BuiltinSort + NcclType + Send + Sync + std::fmt::Debug,
{
    let name = std::any::type_name::<T>();
    let mut rng = Rng::new(0x5027);
    let world = devices.world();
    let check = |data: &[T], input: &Shards<T>, what: &str, even: bool| {
        let sorted = sorter.keys(input).unwrap();
        let mut want = data.to_vec();
        want.sort_by(order);
        let got = devices.gather(&sorted).unwrap();
        let same = |a: &[T], b: &[T]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| order(x, y) == Ordering::Equal)
        };
        assert!(
            same(&got, &want),
            "sharded sort of {} {name} ({what}): first difference at {:?}",
            data.len(),
            got.iter()
                .zip(&want)
                .position(|(x, y)| order(x, y) != Ordering::Equal)
        );
        assert!(
            same(&devices.gather(input).unwrap(), data),
            "sharded sort of {name} ({what}) changed its input"
        );
        if even && devices.count() == world {
            let share = data.len() / world;
            let most = sorted.lens().into_iter().max().unwrap_or(0);
            assert!(
                most <= share + share / 4 + 64,
                "sharded sort of {} {name} ({what}): an output shard of {most} keys for a                  share of {share}: {:?}",
                data.len(),
                sorted.lens()
            );
        }
    };
    let mut runs = 0;
    // The lengths up to several tiles a shard (the CPU backend's radix
    // sort of 65 539 keys of six types over four sets would take minutes).
    let lengths: &[usize] = if every_shape {
        &LENGTHS[..LENGTHS.len() - 1]
    } else {
        &[3, 4097]
    };
    for &n in lengths {
        let data: Vec<T> = (0..n).map(|_| make(rng.next_u64())).collect();
        check(&data, &devices.scatter(&data).unwrap(), "random", true);
        runs += 1;
    }
    if !every_shape {
        return runs;
    }
    let mut data: Vec<T> = (0..3001).map(|_| make(rng.next_u64())).collect();
    let one = vec![data[0]; 2000];
    check(&one, &devices.scatter(&one).unwrap(), "all equal", false);
    data.sort_by(order);
    check(&data, &devices.scatter(&data).unwrap(), "sorted", false);
    data.reverse();
    check(&data, &devices.scatter(&data).unwrap(), "reversed", false);
    // Uneven shards, rank 1 empty.
    let parts: Vec<Vec<T>> = (0..world)
        .map(|r| {
            let len = if r == 1 { 0 } else { 100 + 500 * r };
            (0..len).map(|_| make(rng.next_u64())).collect()
        })
        .collect();
    check(
        &parts.concat(),
        &upload(devices, &parts),
        "uneven shards",
        false,
    );
    runs + 4
}

/// One shard a rank, shard `i` made of `values[i]` (this process's ranks'
/// shards, in a set joined by rank).
fn upload<T: coop::DeviceCopy>(devices: &Devices, values: &[Vec<T>]) -> Shards<T> {
    let buffers = devices
        .iter()
        .zip(&values[devices.first_rank()..])
        .map(|(d, v)| d.upload(v).unwrap())
        .collect();
    devices.shards(buffers).unwrap()
}

/// A user kernel and operator (the closure sum of `coop-test-kernels`),
/// the totals combined on the host.
fn check_user_kernel(devices: &Devices, programs: &[Program], reducer: &Reducer) -> usize {
    let mut rng = Rng::new(0x05E7);
    let mut runs = 0;
    for &n in &LENGTHS {
        let data: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64).collect();
        let shards = devices.scatter(&data).unwrap();
        let want = data.iter().fold(0i64, |a, &b| a.wrapping_add(b));
        for kernel_once in [false, true] {
            let got = if kernel_once {
                reducer.reduce_with(
                    programs,
                    crate::kernels::reduce_i64_closure_sum_once,
                    Sum,
                    &shards,
                )
            } else {
                reducer.reduce_with(
                    programs,
                    crate::kernels::reduce_i64_closure_sum,
                    Sum,
                    &shards,
                )
            };
            assert_eq!(got.unwrap(), want, "user kernel, {n} elements");
            runs += 1;
        }
    }
    runs
}

/// Misplaced and mismatched shards are typed errors naming what is wrong.
fn check_errors(devices: &Devices, programs: &[Program], reducer: &Reducer) {
    let k = devices.count();
    let one_short: Vec<Buffer<u32>> = (0..k - 1)
        .map(|r| devices.device(r).unwrap().upload(&[1u32]).unwrap())
        .collect();
    let err = devices.shards(one_short).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Shards {
                call: "Devices::shards",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains(&format!("{} shard(s) for a set of {k}", k - 1)),
        "{err}"
    );

    if k > 1 {
        let buffers: Vec<Buffer<u32>> = (0..k)
            .map(|r| {
                devices
                    .device(r)
                    .unwrap()
                    .upload(&vec![0u32; r + 1])
                    .unwrap()
            })
            .collect();
        let mut uneven = devices.shards(buffers).unwrap();
        let err = devices.all_reduce(&mut uneven, Sum).unwrap_err();
        assert!(err.to_string().contains("lengths differ"), "{err}");
    }

    if k > 1 {
        let mut reversed: Vec<Buffer<u32>> = (0..k)
            .map(|r| devices.device(r).unwrap().upload(&[1u32]).unwrap())
            .collect();
        reversed.reverse();
        let on_gpus = matches!(devices.device(0), Some(coop_host::Device::Gpu(_)));
        match devices.shards(reversed) {
            Err(err) if on_gpus => assert!(err.to_string().contains("shard 0 is on GPU"), "{err}"),
            Ok(_) if !on_gpus => {} // host memory is every emulated device's
            other => panic!("reversed shards on {}: {other:?}", devices.describe()),
        }
    }

    let shards = devices.scatter(&[1i64, 2, 3]).unwrap();
    let err = reducer
        .reduce_with(
            &programs[..k - 1],
            crate::kernels::reduce_i64_closure_sum,
            Sum,
            &shards,
        )
        .unwrap_err();
    assert!(err.to_string().contains("program(s) for a set of"), "{err}");
}

/// 5000 2 × 2 integer matrices whose product depends on the order, and
/// that product: for checking that totals combine in rank order.
pub fn ordered_matrices() -> (Vec<crate::kernels::Mat2>, crate::kernels::Mat2) {
    use crate::kernels::{Mat2, MatMul};
    let data: Vec<Mat2> = (0..5000i32)
        .map(|i| match i % 3 {
            0 => Mat2([1, i % 7, 0, 1]),
            1 => Mat2([1, 0, i % 5, 1]),
            _ => Mat2([0, 1, 1, 0]),
        })
        .collect();
    let product = fold(MatMul, &data);
    (data, product)
}

/// Every check on `devices`; returns how many reductions ran.
pub fn check_all(devices: &Devices, programs: &[Program]) -> usize {
    let reducer = Reducer::new(devices).unwrap();
    let mut runs = 0;
    runs += check_type::<i32>(devices, &reducer, |b| b as i32);
    runs += check_type::<u32>(devices, &reducer, |b| (b >> 9) as u32);
    runs += check_type::<i64>(devices, &reducer, |b| b as i64);
    runs += check_type::<u64>(devices, &reducer, |b| b.rotate_left(21));
    // Integers of at most 2^4 in magnitude: every partial sum of up to
    // 65 539 of them is exact in f32, in any order.
    runs += check_type::<f32>(devices, &reducer, |b| (b % 33) as f32 - 16.0);
    runs += check_type::<f64>(devices, &reducer, |b| (b % 2001) as f64 * 0.25 - 250.0);
    runs += check_nan(devices, &reducer);
    runs += check_all_reduce(devices);
    runs += check_gather_scatter(devices);
    runs += check_scans(devices);
    runs += check_sorts(devices);
    runs += check_user_kernel(devices, programs, &reducer);
    check_errors(devices, programs, &reducer);
    runs
}
