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
