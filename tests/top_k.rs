//! Top-k selections on the CPU backend (the GPU runs the same checks in
//! `gpu.rs`), and the selection's look-back and shared threshold under
//! other schedules and host threads.

use coop_host::top_k::TopK;
use coop_host::{Cpu, Device};
use coop_tests::top_k_cases::check_all;

#[test]
fn top_k_matches_the_hosts_sort_and_take() {
    let calls = check_all(&Device::cpu(), false);
    eprintln!("{calls} top-k selections checked on the CPU backend");
}

/// Under schedule exploration and with one host thread or several, the
/// race detector finds nothing in the passes (the digit counters bumped
/// atomically in shared memory, the threshold one thread shares through
/// it, the thresholds block 0 records for the next launch) or in the
/// selection's look-back, and the results hold.
#[test]
fn top_k_holds_under_other_schedules_and_host_threads() {
    let keys: Vec<u32> = (0..3 * 4096 + 77u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 7) % 5000)
        .collect();
    let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(0..).collect();
    want.sort_by_key(|&(k, _)| std::cmp::Reverse(k));
    want.truncate(1000);
    for emulator in [
        coop::cpu::Emulator::new().with_schedules(3),
        coop::cpu::Emulator::new().with_host_threads(1),
        coop::cpu::Emulator::new().with_host_threads(3),
    ] {
        let device = Device::Cpu(Cpu::with_emulator(emulator));
        let top = TopK::new(&device).unwrap();
        let (mut k, mut at) = (vec![0u32; 1000], vec![0u32; 1000]);
        top.largest_with_indices(&keys, &mut k, &mut at).unwrap();
        let got: Vec<(u32, u32)> = k.into_iter().zip(at).collect();
        assert!(got == want);
    }
}
