//! Sums by key and run-length encodings on the CPU backend (the GPU runs
//! the same checks in `gpu.rs`), and the look-back over run totals under
//! other schedules and host threads.

use coop_host::runs::RunReducer;
use coop_host::{Cpu, Device, ProgramRef};
use coop_tests::kernels::{self, Mat2, MatMul};
use coop_tests::runs_cases::{check_all, host_runs, host_scan_by_key};

#[test]
fn runs_of_equal_keys_match_host_references() {
    let calls = check_all(&Device::cpu(), ProgramRef::Cpu);
    eprintln!("{calls} calls over runs of equal keys checked on the CPU backend");
}

/// Under schedule exploration and with one host thread or several, the
/// race detector finds nothing in the look-back over run totals (totals
/// in their status words for `i64` sums, relaxed; in `partials`, release
/// and acquire, for products of 2×2 matrices) nor in the runs gathered in
/// shared memory, and the results hold, for the scans by key too.
#[test]
fn runs_hold_under_other_schedules_and_host_threads() {
    let keys: Vec<u32> = (0..3 * 2048 + 77).map(|i: u32| i / 700).collect();
    let values: Vec<i64> = (0..keys.len() as i64).collect();
    let want = host_runs(&keys, &values, coop::op::Sum);
    let mats: Vec<Mat2> = (0..keys.len())
        .map(|i| Mat2([(i % 3) as i32, 1, (i % 2) as i32 - 1, 1]))
        .collect();
    let want_mats = host_runs(&keys, &mats, MatMul);
    for emulator in [
        coop::cpu::Emulator::new().with_schedules(3),
        coop::cpu::Emulator::new().with_host_threads(1),
        coop::cpu::Emulator::new().with_host_threads(3),
    ] {
        let device = Device::Cpu(Cpu::with_emulator(emulator));
        let reducer = RunReducer::new(&device).unwrap();
        let (mut ko, mut vo) = (vec![0u32; keys.len()], vec![0i64; keys.len()]);
        let n = reducer
            .sum_by_key(&keys, &values, &mut ko, &mut vo)
            .unwrap();
        assert_eq!((ko[..n].to_vec(), vo[..n].to_vec()), want);
        let (mut ko, mut mo) = (vec![0u32; keys.len()], vec![Mat2::default(); keys.len()]);
        let n = reducer
            .reduce_by_key_with(
                ProgramRef::Cpu,
                kernels::mat2_product_by_key,
                &keys,
                &mats,
                &mut ko,
                &mut mo,
            )
            .unwrap();
        assert!((ko[..n].to_vec(), mo[..n].to_vec()) == want_mats);
        // The scans by key: each element's result written where it lies.
        let mut scanned = vec![0i64; keys.len()];
        reducer
            .inclusive_sum_by_key(&keys, &values, &mut scanned)
            .unwrap();
        assert!(scanned == host_scan_by_key(&keys, &values, coop::op::Sum, false));
        let mut mo = vec![Mat2::default(); keys.len()];
        reducer
            .scan_by_key_with(
                ProgramRef::Cpu,
                kernels::mat2_product_scan_by_key,
                &keys,
                &mats,
                &mut mo,
                true,
            )
            .unwrap();
        assert!(mo == host_scan_by_key(&keys, &mats, MatMul, true));
    }
}

/// A deterministic reducer's float sums by key have the same bits with one
/// host thread or several and under schedule exploration (blocks finish in
/// other orders, so tiles' look-backs stop at other tiles), for sums and
/// scans, `f32` and `f64`, runs spanning dozens of tiles; and they are the
/// sums (within rounding).
#[test]
fn deterministic_float_sums_by_key_do_not_depend_on_the_schedule() {
    let n = 40 * 4096 + 333;
    // Runs of 9000 (several tiles each), then runs of 1 to 5.
    let keys: Vec<u64> = (0..n as u64)
        .map(|i| {
            if i < 120_000 {
                i / 9000
            } else {
                100 + i / (1 + i % 5)
            }
        })
        .collect();
    let f32s: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 100_000) as f32 * 1e-3 - 40.0)
        .collect();
    let f64s: Vec<f64> = f32s.iter().map(|&x| x as f64 * 1.000_1).collect();
    let bits = |emulator: coop::cpu::Emulator, deterministic: bool| {
        let device = Device::Cpu(Cpu::with_emulator(emulator));
        let mut reducer = RunReducer::new(&device)
            .unwrap()
            .with_block_threads(64)
            .unwrap();
        if deterministic {
            reducer = reducer.deterministic();
        }
        assert_eq!(reducer.is_deterministic(), deterministic);
        let mut ko = vec![0u64; n];
        let (mut a, mut b) = (vec![0f32; n], vec![0f64; n]);
        let runs = reducer.sum_by_key(&keys, &f32s, &mut ko, &mut a).unwrap();
        let again = reducer.sum_by_key(&keys, &f64s, &mut ko, &mut b).unwrap();
        assert_eq!(runs, again);
        let mut out: Vec<u64> = a[..runs].iter().map(|x| x.to_bits() as u64).collect();
        out.extend(b[..runs].iter().map(|x| x.to_bits()));
        reducer.inclusive_sum_by_key(&keys, &f32s, &mut a).unwrap();
        reducer.exclusive_sum_by_key(&keys, &f64s, &mut b).unwrap();
        out.extend(a.iter().map(|x| x.to_bits() as u64));
        out.extend(b.iter().map(|x| x.to_bits()));
        (out, ko[..runs].to_vec())
    };
    let (first, first_keys) = bits(coop::cpu::Emulator::new().with_host_threads(1), true);
    let want = host_runs(&keys, &f64s, coop::op::Sum);
    assert_eq!(first_keys, want.0);
    let runs = want.0.len();
    for (r, exact) in want.1.iter().enumerate() {
        let got = f64::from_bits(first[runs + r]);
        assert!(
            (got - exact).abs() < 1e-6 * (1.0 + exact.abs()),
            "run {r}: {got} vs {exact}"
        );
    }
    for emulator in [
        coop::cpu::Emulator::new().with_host_threads(2),
        coop::cpu::Emulator::new().with_host_threads(3),
        coop::cpu::Emulator::new().with_schedules(2),
    ] {
        let (got, _) = bits(emulator, true);
        let bad = first.iter().zip(&got).position(|(a, b)| a != b);
        assert!(
            bad.is_none(),
            "deterministic sums by key: value {bad:?} differs"
        );
    }
}
