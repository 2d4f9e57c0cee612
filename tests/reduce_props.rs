//! Property tests of reductions and scans on the CPU backend: random
//! values, block sizes, grids and collectives, for every operator and type
//! of `coop-test-kernels`, against a host fold in rank order. (The GPU runs
//! the same checks in `gpu.rs`.)

use coop_host::Cpu;
use coop_tests::differential::Target;
use coop_tests::reductions::{checks, describe};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_reduction_and_scan_matches_the_host_fold(
        warps in 1u32..=8,
        blocks in 1u32..=3,
        mode in 0u32..21,
        seed in any::<u64>(),
    ) {
        let block = 32 * warps;
        let n = (block * blocks) as usize;
        let mut x = seed | 1;
        let bits: Vec<u64> = (0..n).map(|_| { x ^= x << 13; x ^= x >> 7; x ^= x << 17; x }).collect();
        let cpu = Cpu::new();
        for (name, check) in checks() {
            if let Err(e) = check(&Target::Cpu(&cpu), &bits, mode, block) {
                return Err(TestCaseError::fail(format!("{name}: {e}")));
            }
        }
    }
}

#[test]
fn every_collective_of_every_kernel_is_covered_once_with_a_fixed_seed() {
    let cpu = Cpu::new();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let bits: Vec<u64> = (0..256)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect();
    let mut failures = Vec::new();
    let all = checks();
    for (name, check) in &all {
        for mode in 0..21 {
            if let Err(e) = check(&Target::Cpu(&cpu), &bits, mode, 128) {
                failures.push(format!("{name}: {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} collectives differ ({}):\n{}",
        failures.len(),
        all.len() * 21,
        describe(0),
        failures.join("\n")
    );
}

#[test]
fn back_to_back_block_collectives_keep_their_scratch_apart() {
    let cpu = Cpu::new();
    for (block, seed) in [(32, 1), (96, 2), (256, 3), (1024, 4)] {
        coop_tests::reductions::check_chain(&Target::Cpu(&cpu), block, 2, seed).unwrap();
    }
}
