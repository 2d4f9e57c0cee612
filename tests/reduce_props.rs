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
    for (block, seed) in [(32, 1), (64, 5), (96, 2), (128, 6), (256, 3), (1024, 4)] {
        coop_tests::reductions::check_chain(&Target::Cpu(&cpu), block, 2, seed).unwrap();
    }
}

/// Runs of ranks `first..=last`, packed as `first << 32 | last`, joined
/// only when the second starts right after the first ends: any other pair
/// panics. A scan step that combined a lane's value with one that is not
/// the run just below it (its own, say, where `shfl_up` has no lower lane
/// to read) would stop the kernel.
#[coop::kernel]
pub fn adjacent_runs(block: coop::ThreadBlock, out: coop::Out<u64>) {
    use coop::prelude::*;
    let join = op::from_fn(u64::MAX, |a: u64, b: u64| {
        if a == u64::MAX {
            b
        } else if b == u64::MAX {
            a
        } else {
            assert!((a & 0xffff_ffff) + 1 == b >> 32, "runs not adjacent");
            (a >> 32) << 32 | (b & 0xffff_ffff)
        }
    });
    let run = |r: u32| u64::from(r) << 32 | u64::from(r);
    let r = block.thread_rank();
    let tile = block.tiled_partition::<8>();
    let at = 2 * r as usize;
    out.write(at, inclusive_scan(&block, run(r), join));
    out.write(at + 1, inclusive_scan(&tile, run(tile.thread_rank()), join));
}

#[test]
fn scans_combine_only_adjacent_runs_under_a_user_operator() {
    let cpu = Cpu::new();
    for block in [32u32, 96, 256, 1024] {
        let mut out = vec![0u64; 2 * block as usize];
        cpu.launch(
            adjacent_runs,
            coop_host::LaunchConfig::new(1, block),
            (&mut out,),
        )
        .unwrap_or_else(|e| panic!("block of {block}: {e}"));
        for r in 0..block {
            let at = 2 * r as usize;
            let runs = [u64::from(r), u64::from(r % 8)];
            assert_eq!(out[at..at + 2], runs, "block of {block}, rank {r}");
        }
    }
}
