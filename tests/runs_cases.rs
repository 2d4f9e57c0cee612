//! Sums by key and run-length encodings checked against host references,
//! on any device: every built-in key and value type over lengths around
//! the tile edges and past the look-back's window of 32 tiles; runs of a
//! few elements, one run over everything, runs of thousands that span
//! tiles, all keys distinct; float keys with NaN and signed zeros; an
//! ordered user operator; the count left on the device; and the errors of
//! a bad call.

use crate::kernels::{self, Mat2, MatMul};
use crate::Rng;
use coop::op::Operator;
use coop_host::runs::{BuiltinEncode, BuiltinSumByKey, RunReducer};
use coop_host::{Device, Input, Output, ProgramRef};

/// Lengths: empty, one, two, a warp's runs, around a tile (2048 elements
/// with the default blocks for 8-byte keys or values, 4096 for smaller
/// ones) and two, and past 33 tiles.
pub const LENGTHS: [usize; 13] = [
    0, 1, 2, 31, 2047, 2048, 2049, 4095, 4096, 4097, 8193, 16_385, 140_001,
];

/// The host's runs: each run's key and its values combined with `op`.
pub fn host_runs<K: Copy + PartialEq, V: Copy>(
    keys: &[K],
    values: &[V],
    op: impl Operator<V>,
) -> (Vec<K>, Vec<V>) {
    let (mut ks, mut vs) = (Vec::new(), Vec::<V>::new());
    for (i, (&k, &v)) in keys.iter().zip(values).enumerate() {
        if i > 0 && keys[i - 1] == k {
            let last = vs.last_mut().unwrap();
            *last = op.combine(*last, v);
        } else {
            ks.push(k);
            vs.push(v);
        }
    }
    (ks, vs)
}

/// Key patterns of `n` elements: short runs from few keys, one run, long
/// runs that span tiles, all distinct.
fn patterns<K: Copy>(n: usize, rng: &mut Rng, make: fn(u64) -> K) -> Vec<(&'static str, Vec<K>)> {
    let mut short = Vec::with_capacity(n);
    while short.len() < n {
        let k = make(rng.next_u64() % 5);
        for _ in 0..=rng.below(8) {
            short.push(k);
        }
    }
    short.truncate(n);
    let mut long = Vec::with_capacity(n);
    let mut key = 0u64;
    while long.len() < n {
        key += 1;
        for _ in 0..=rng.below(5000) {
            long.push(make(key));
        }
    }
    long.truncate(n);
    vec![
        ("short runs", short),
        ("one run", (0..n).map(|_| make(7)).collect()),
        ("long runs", long),
        ("distinct", (0..n as u64).map(make).collect()),
        (
            "distinct, descending",
            (0..n as u64).rev().map(make).collect(),
        ),
    ]
}

/// The host's scan by key: each element's values of its run up to it
/// (or, `exclusive`, before it: `op`'s identity at a run's first).
pub fn host_scan_by_key<K: Copy + PartialEq, V: Copy>(
    keys: &[K],
    values: &[V],
    op: impl Operator<V>,
    exclusive: bool,
) -> Vec<V> {
    let mut out = Vec::with_capacity(keys.len());
    let mut acc = op.identity();
    for (i, (&k, &v)) in keys.iter().zip(values).enumerate() {
        if i == 0 || keys[i - 1] != k {
            acc = op.identity();
        }
        let before = acc;
        acc = op.combine(acc, v);
        out.push(if exclusive { before } else { acc });
    }
    out
}

/// Scans by key (inclusive and exclusive) of one key type with integer
/// values of 4 and 8 bytes (exact) and `f32` values (within a bound);
/// returns the calls checked.
fn check_scans<K>(device: &Device, reducer: &RunReducer, make: fn(u64) -> K) -> usize
where
    K: BuiltinSumByKey<i32> + BuiltinSumByKey<u64> + BuiltinSumByKey<f32>,
    K: PartialEq + Default + std::fmt::Debug,
{
    let name = std::any::type_name::<K>();
    let mut rng = Rng::new(0x5C + std::mem::size_of::<K>() as u64);
    let mut calls = 0;
    fn scan<K: BuiltinSumByKey<V>, V: coop::DeviceCopy + coop::Shuffle>(
        device: &Device,
        reducer: &RunReducer,
        keys: &[K],
        values: &[V],
        exclusive: bool,
    ) -> Vec<V> {
        let (k, v) = (device.upload(keys).unwrap(), device.upload(values).unwrap());
        let mut out = device.zeros::<V>(values.len()).unwrap();
        if exclusive {
            reducer.exclusive_sum_by_key(&k, &v, &mut out).unwrap();
        } else {
            reducer.inclusive_sum_by_key(&k, &v, &mut out).unwrap();
        }
        device.download(&out).unwrap()
    }
    // The tile edges of 4-byte (4096 elements) and 8-byte (2048) values.
    for &n in &[
        0, 1, 2, 31, 2047, 2048, 2049, 4095, 4096, 4097, 16_385, 140_001,
    ] {
        for (pattern, keys) in patterns(n, &mut rng, make) {
            for exclusive in [false, true] {
                let what = format!("{n} {name} keys, {pattern}, exclusive {exclusive}");
                let ints: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
                let want = host_scan_by_key(&keys, &ints, coop::op::Sum, exclusive);
                let got: Vec<i32> = scan(device, reducer, &keys, &ints, exclusive);
                if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
                    panic!(
                        "sum scan by key of i32, {what}: element {i} is {}, the host's {}",
                        got[i], want[i]
                    );
                }
                let wide: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
                let got: Vec<u64> = scan(device, reducer, &keys, &wide, exclusive);
                assert!(
                    got == host_scan_by_key(&keys, &wide, coop::op::Sum, exclusive),
                    "sum scan by key of u64, {what}"
                );
                let floats: Vec<f32> = (0..n)
                    .map(|_| rng.below(2001) as f32 / 1000.0 - 1.0)
                    .collect();
                let got: Vec<f32> = scan(device, reducer, &keys, &floats, exclusive);
                let want = host_scan_by_key(&keys, &floats, coop::op::Sum, exclusive);
                let bad = got
                    .iter()
                    .zip(&want)
                    .position(|(a, b)| (a - b).abs() > 2e-6 * n as f32 * (1.0 + b.abs()));
                assert!(
                    bad.is_none(),
                    "sum scan by key of f32, {what}: element {bad:?}"
                );
                calls += 3;
            }
        }
    }
    calls
}

/// Runs `f` with `keys` (and `values`) and outputs as long, on `device`;
/// returns the outputs' first `runs` elements and `runs`.
fn run_on<K, V>(
    device: &Device,
    keys: &[K],
    values: &[V],
    f: impl FnOnce(
        coop_host::Input<'_, K>,
        coop_host::Input<'_, V>,
        coop_host::Output<'_, K>,
        coop_host::Output<'_, V>,
    ) -> usize,
) -> (Vec<K>, Vec<V>)
where
    K: coop::DeviceCopy + Default,
    V: coop::DeviceCopy + Default,
{
    let n = keys.len();
    let (mut ko, mut vo) = (
        device.upload(&vec![K::default(); n]).unwrap(),
        device.upload(&vec![V::default(); n]).unwrap(),
    );
    let (k, v) = (device.upload(keys).unwrap(), device.upload(values).unwrap());
    let runs = f((&k).into(), (&v).into(), (&mut ko).into(), (&mut vo).into());
    let (mut ks, mut vs) = (device.download(&ko).unwrap(), device.download(&vo).unwrap());
    ks.truncate(runs);
    vs.truncate(runs);
    (ks, vs)
}

/// Sums by key of `keys[ko..]` and `values[vo..]` (views from inside
/// their buffers on a GPU) on `device`.
fn offset_sums(
    device: &Device,
    reducer: &RunReducer,
    keys: &[u32],
    ko: usize,
    values: &[i32],
    vo: usize,
) -> (Vec<u32>, Vec<i32>) {
    let n = keys.len() - ko;
    let (mut keys_out, mut sums) = (vec![0u32; n], vec![0i32; n]);
    let runs = match device {
        Device::Gpu(gpu) => {
            let (k, v) = (gpu.upload(keys).unwrap(), gpu.upload(values).unwrap());
            let (mut ko_buf, mut so_buf) =
                (gpu.upload(&keys_out).unwrap(), gpu.upload(&sums).unwrap());
            let runs = reducer
                .sum_by_key(
                    Input::Gpu(k.slice(ko..)),
                    Input::Gpu(v.slice(vo..)),
                    Output::Gpu(ko_buf.slice_mut(0..n)),
                    Output::Gpu(so_buf.slice_mut(0..n)),
                )
                .unwrap();
            keys_out = gpu.download(&ko_buf).unwrap();
            sums = gpu.download(&so_buf).unwrap();
            runs
        }
        Device::Cpu(_) => reducer
            .sum_by_key(&keys[ko..], &values[vo..], &mut keys_out[..], &mut sums[..])
            .unwrap(),
    };
    keys_out.truncate(runs);
    sums.truncate(runs);
    (keys_out, sums)
}

/// Checks sums by key of one key type with integer values (exact) and
/// float values (within a bound); returns the calls checked.
fn check_keys<K>(device: &Device, reducer: &RunReducer, make: fn(u64) -> K) -> usize
where
    K: BuiltinSumByKey<i32> + BuiltinSumByKey<u64> + BuiltinSumByKey<f64> + BuiltinEncode,
    K: PartialEq + Default + std::fmt::Debug,
{
    let name = std::any::type_name::<K>();
    let mut rng = Rng::new(0xB1 + std::mem::size_of::<K>() as u64);
    let mut calls = 0;
    for &n in &LENGTHS {
        for (pattern, keys) in patterns(n, &mut rng, make) {
            let what = format!("{n} {name} keys, {pattern}");
            let ints: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
            let got = run_on(device, &keys, &ints, |k, v, ko, vo| {
                reducer.sum_by_key(k, v, ko, vo).unwrap()
            });
            assert!(
                got == host_runs(&keys, &ints, coop::op::Sum),
                "sum_by_key of i32, {what}"
            );
            let wide: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
            let got = run_on(device, &keys, &wide, |k, v, ko, vo| {
                reducer.sum_by_key(k, v, ko, vo).unwrap()
            });
            assert!(
                got == host_runs(&keys, &wide, coop::op::Sum),
                "sum_by_key of u64, {what}"
            );
            let floats: Vec<f64> = (0..n)
                .map(|_| rng.below(2001) as f64 / 1000.0 - 1.0)
                .collect();
            let (gk, gv) = run_on(device, &keys, &floats, |k, v, ko, vo| {
                reducer.sum_by_key(k, v, ko, vo).unwrap()
            });
            let (wk, wv) = host_runs(&keys, &floats, coop::op::Sum);
            assert!(gk == wk, "sum_by_key of f64, {what}: the keys");
            let bound = 1e-12 * n as f64;
            let bad = gv
                .iter()
                .zip(&wv)
                .position(|(a, b)| (a - b).abs() > bound * (1.0 + b.abs()));
            assert!(bad.is_none(), "sum_by_key of f64, {what}: run {bad:?}");
            let lengths: Vec<u32> = vec![1; n];
            let (ek, el) = run_on(device, &keys, &lengths, |k, _, ko, lo| {
                reducer.encode(k, ko, lo).unwrap()
            });
            assert!(
                (ek, el) == host_runs(&keys, &lengths, coop::op::Sum),
                "encode, {what}"
            );
            calls += 4;
        }
    }
    calls
}

/// Checks every built-in key type, the encodings of small and float keys,
/// an ordered user operator (in `program`), the count on the device and
/// the errors on `device`. Returns the calls checked.
pub fn check_all(device: &Device, program: ProgramRef<'_>) -> usize {
    let reducer = RunReducer::new(device).unwrap();
    let mut calls = 0;
    calls += check_keys::<u32>(device, &reducer, |r| r as u32);
    calls += check_keys::<i32>(device, &reducer, |r| r as i32 - 3);
    calls += check_keys::<u64>(device, &reducer, |r| r << 33);
    calls += check_keys::<i64>(device, &reducer, |r| -(r as i64));
    calls += check_scans::<u32>(device, &reducer, |r| r as u32);
    calls += check_scans::<i64>(device, &reducer, |r| -(r as i64));
    // Encodings of the other key types; floats compare with `==`.
    let text = b"aaabbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbc".repeat(100);
    let ones = vec![1u32; text.len()];
    let got = run_on(device, &text, &ones, |k, _, ko, lo| {
        reducer.encode(k, ko, lo).unwrap()
    });
    assert!(
        got == host_runs(&text, &ones, coop::op::Sum),
        "encode of bytes"
    );
    let floats = [0.0f32, -0.0, 1.0, f32::NAN, f32::NAN, 1.0, 1.0];
    let (fk, fl) = run_on(device, &floats, &[1u32; 7], |k, _, ko, lo| {
        reducer.encode(k, ko, lo).unwrap()
    });
    assert_eq!(
        fl,
        [2, 1, 1, 1, 2],
        "encode of floats: -0.0 repeats 0.0, NaN never repeats"
    );
    assert!(fk[3].is_nan() && fk[0] == 0.0 && fk[4] == 1.0);
    // The same rules across tile edges: zeros of both signs, NaNs and
    // ones, in runs of 1 to 5 over three tiles and a bit.
    let mut rng = Rng::new(0xF10A7);
    let specials = [0.0f32, -0.0, f32::NAN, 1.0, -1.0];
    let mut keys = Vec::new();
    while keys.len() < 3 * 4096 + 7 {
        let k = specials[rng.below(5) as usize];
        for _ in 0..=rng.below(5) {
            keys.push(k);
        }
    }
    // NaN never repeats; -0.0 repeats 0.0.
    let mut want: Vec<u32> = Vec::new();
    for (i, &k) in keys.iter().enumerate() {
        if i == 0 || keys[i - 1] != k {
            want.push(0);
        }
        *want.last_mut().unwrap() += 1;
    }
    let (_, lengths) = run_on(device, &keys, &vec![1u32; keys.len()], |k, _, ko, lo| {
        reducer.encode(k, ko, lo).unwrap()
    });
    assert!(lengths == want, "encode of zeros, NaNs and ones over tiles");
    calls += 3;
    // An operator that is not commutative, over runs that span tiles
    // (small blocks: more tiles).
    let small = RunReducer::new(device)
        .unwrap()
        .with_block_threads(64)
        .unwrap();
    let mut rng = Rng::new(0x3A7);
    for &n in &[1usize, 2049, 140_001] {
        for (pattern, keys) in patterns(n, &mut rng, |r| r as u32) {
            let mats: Vec<Mat2> = (0..n)
                .map(|_| Mat2([rng.below(3) as i32, 1, rng.below(3) as i32 - 1, 1]))
                .collect();
            for r in [&reducer, &small] {
                let got = run_on(device, &keys, &mats, |k, v, ko, vo| {
                    r.reduce_by_key_with(program, kernels::mat2_product_by_key, k, v, ko, vo)
                        .unwrap()
                });
                assert!(
                    got == host_runs(&keys, &mats, MatMul),
                    "ordered product by key, {n}, {pattern}"
                );
                for exclusive in [false, true] {
                    let (k, v) = (device.upload(&keys).unwrap(), device.upload(&mats).unwrap());
                    let mut out = device.zeros::<Mat2>(n).unwrap();
                    r.scan_by_key_with(
                        program,
                        kernels::mat2_product_scan_by_key,
                        &k,
                        &v,
                        &mut out,
                        exclusive,
                    )
                    .unwrap();
                    assert!(
                        device.download(&out).unwrap()
                            == host_scan_by_key(&keys, &mats, MatMul, exclusive),
                        "ordered product scanned by key, {n}, {pattern}, exclusive {exclusive}"
                    );
                }
                calls += 3;
            }
        }
    }
    // Keys and values that start off their buffers' 16-byte alignment
    // (loaded element by element), each on its own.
    let mut rng = Rng::new(0x0FF5);
    for &n in &[4096 + 5, 140_001] {
        for (ko, vo) in [(1, 0), (0, 3), (2, 2)] {
            let keys: Vec<u32> = (0..n + ko).map(|_| rng.below(4)).collect();
            let values: Vec<i32> = (0..n + vo).map(|_| rng.next_u64() as i32).collect();
            let got = offset_sums(device, &reducer, &keys, ko, &values, vo);
            assert!(
                got == host_runs(&keys[ko..], &values[vo..], coop::op::Sum),
                "sum_by_key of {n} keys from element {ko}, values from {vo}"
            );
            calls += 1;
        }
    }
    // The count left on the device; an empty input stores 0.
    let keys: Vec<u32> = (0..10_000).map(|i| i / 10).collect();
    let values = vec![2i32; keys.len()];
    let (k, v) = (
        device.upload(&keys).unwrap(),
        device.upload(&values).unwrap(),
    );
    let (mut ko, mut vo) = (
        device.zeros::<u32>(keys.len()).unwrap(),
        device.zeros::<i32>(keys.len()).unwrap(),
    );
    let mut count = device.upload(&[99u64]).unwrap();
    reducer
        .sum_by_key_into(&k, &v, &mut ko, &mut vo, &mut count)
        .unwrap();
    assert_eq!(device.download(&count).unwrap(), [1000]);
    assert!(device.download(&vo).unwrap()[..1000]
        .iter()
        .all(|&s| s == 20));
    let mut lengths = device.zeros::<u32>(keys.len()).unwrap();
    reducer
        .encode_into(&k, &mut ko, &mut lengths, &mut count)
        .unwrap();
    assert_eq!(device.download(&count).unwrap(), [1000]);
    let (e, ev) = (
        device.upload::<u32>(&[]).unwrap(),
        device.upload::<i32>(&[]).unwrap(),
    );
    reducer
        .sum_by_key_into(&e, &ev, &mut ko, &mut vo, &mut count)
        .unwrap();
    assert_eq!(device.download(&count).unwrap(), [0]);
    calls += 3;
    // Bad calls: typed errors naming the call and the rule.
    let mut short = device.zeros::<i32>(9_999).unwrap();
    let m = reducer
        .sum_by_key(&k, &v, &mut ko, &mut short)
        .unwrap_err()
        .to_string();
    assert!(
        m.starts_with(
            "`RunReducer::sum_by_key`: the results' output holds 9999 elements and the keys 10000"
        ),
        "{m}"
    );
    let three = device.upload(&[1i32, 2, 3]).unwrap();
    let m = coop_host::runs::sum_by_key(device, &k, &three, &mut ko, &mut vo)
        .unwrap_err()
        .to_string();
    assert!(
        m.starts_with("`runs::sum_by_key`: 3 values for 10000 keys"),
        "{m}"
    );
    let mut short_lengths = device.zeros::<u32>(5).unwrap();
    let m = coop_host::runs::encode(device, &k, &mut ko, &mut short_lengths)
        .unwrap_err()
        .to_string();
    assert!(
        m.starts_with("`runs::encode`: the lengths' output holds 5"),
        "{m}"
    );
    let m = RunReducer::new(device)
        .unwrap()
        .with_block_threads(1024)
        .unwrap_err()
        .to_string();
    assert!(m.contains("1024 threads a block"), "{m}");
    calls
}
