//! Radix sorts on the CPU backend (the GPU runs the same checks in
//! `gpu.rs`), and the look-back over digit counts under other schedules
//! and host threads.

use coop_host::sort::{Order, Sorter};
use coop_host::{Cpu, Device};
use coop_tests::sort_cases::check_all;

#[test]
fn sorts_match_the_hosts_stable_sort() {
    let calls = check_all(&Device::cpu(), false);
    eprintln!("{calls} sorts checked on the CPU backend");
}

/// Under schedule exploration and with one host thread or several, the
/// race detector finds nothing in a pass (the warps' digit counters bumped
/// atomically in shared memory, the tile gathered by digit, the look-back
/// over the digits' counts in relaxed status words) and the results hold.
#[test]
fn sorts_hold_under_other_schedules_and_host_threads() {
    let keys: Vec<u32> = (0..3 * 4096 + 77u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let values: Vec<u32> = (0..keys.len() as u32).collect();
    let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(values.iter().copied()).collect();
    want.sort_by_key(|&(k, _)| std::cmp::Reverse(k));
    for emulator in [
        coop::cpu::Emulator::new().with_schedules(3),
        coop::cpu::Emulator::new().with_host_threads(1),
        coop::cpu::Emulator::new().with_host_threads(3),
    ] {
        let device = Device::Cpu(Cpu::with_emulator(emulator));
        let sorter = Sorter::new(&device).unwrap();
        let (mut k, mut v) = (keys.clone(), values.clone());
        sorter
            .pairs_by_bits(&mut k, &mut v, 0..32, Order::Descending)
            .unwrap();
        let got: Vec<(u32, u32)> = k.into_iter().zip(v).collect();
        assert!(got == want);
    }
}
