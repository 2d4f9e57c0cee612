//! Segmented sorts on the CPU backend (the GPU runs the same checks in
//! `gpu.rs`), and the phases under other schedules and host threads.

use coop_host::sort::{Order, SegmentedSorter};
use coop_host::{Cpu, Device};
use coop_tests::segmented_sort_cases::{check_all, host_permutation};

#[test]
fn segmented_sorts_match_the_hosts_stable_sort_of_each_segment() {
    let calls = check_all(&Device::cpu(), false);
    eprintln!("{calls} segmented sorts checked on the CPU backend");
}

/// Under schedule exploration and with one host thread or several, the
/// race detector finds nothing in any phase (warps merging through their
/// part of shared memory with warp barriers, blocks through the tile with
/// block barriers, merge passes reading one buffer and writing the other)
/// and the results hold.
#[test]
fn segmented_sorts_hold_under_other_schedules_and_host_threads() {
    let keys: Vec<u32> = (0..5000u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 9)
        .collect();
    let values: Vec<u32> = (0..keys.len() as u32).collect();
    // A thread's, a warp's, a block's (of 64 threads: 1024) and a long one.
    let offsets = [0u64, 5, 200, 1100, 3500, 5000];
    let index = host_permutation(&keys, &offsets, Order::Descending);
    for emulator in [
        coop::cpu::Emulator::new().with_schedules(3),
        coop::cpu::Emulator::new().with_host_threads(1),
        coop::cpu::Emulator::new().with_host_threads(3),
    ] {
        let device = Device::Cpu(Cpu::with_emulator(emulator));
        let sorter = SegmentedSorter::new(&device)
            .unwrap()
            .with_block_threads(64)
            .unwrap();
        let (mut k, mut v) = (keys.clone(), values.clone());
        sorter
            .pairs_descending(&mut k, &mut v, &offsets[..])
            .unwrap();
        let got: Vec<usize> = v.iter().map(|&i| i as usize).collect();
        assert!(got == index);
    }
}
