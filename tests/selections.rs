//! Device-wide selections on the CPU backend (the GPU runs the same checks
//! in `gpu.rs`), and the look-back over counts under other schedules and
//! host threads.

use coop_host::select::Selector;
use coop_host::{Cpu, Device, ProgramRef};
use coop_tests::select_cases::{check_all, host_select};

#[test]
fn device_wide_selections_match_host_references() {
    let runs = check_all(&Device::cpu(), ProgramRef::Cpu);
    eprintln!("{runs} device-wide selections checked on the CPU backend");
}

/// Under schedule exploration (random preemption inside blocks) and with
/// one host thread or several, the race detector finds nothing in the
/// tiles' compaction through shared memory or in the look-back, and the
/// results hold.
#[test]
fn selections_hold_under_other_schedules_and_host_threads() {
    let data: Vec<u32> = (0..3 * 8192 + 77)
        .map(|i: u32| i.wrapping_mul(2654435761) >> 20)
        .collect();
    let flags: Vec<bool> = data.iter().map(|&x| x % 3 == 0).collect();
    let (want, kept) = host_select(&data, |k| flags[k], true);
    for emulator in [
        coop::cpu::Emulator::new().with_schedules(3),
        coop::cpu::Emulator::new().with_host_threads(1),
        coop::cpu::Emulator::new().with_host_threads(3),
    ] {
        let device = Device::Cpu(Cpu::with_emulator(emulator));
        let selector = Selector::new(&device).unwrap();
        let mut out = vec![0u32; data.len()];
        assert_eq!(
            selector.partition_flagged(&data, &flags, &mut out).unwrap(),
            kept
        );
        assert_eq!(out, want);
    }
}
