//! Device-wide scans on the CPU backend (the GPU runs the same checks in
//! `gpu.rs`), and the look-back under other schedules and host threads.

use coop::op::Sum;
use coop_host::scan::Scanner;
use coop_host::{Cpu, Device, ProgramRef};
use coop_tests::scan_cases::{check_all, host_scan};

#[test]
fn device_wide_scans_match_host_references() {
    let runs = check_all(&Device::cpu(), ProgramRef::Cpu);
    eprintln!("{runs} device-wide scans checked on the CPU backend");
}

/// The look-back reads other blocks' tile states between a release and an
/// acquire: under schedule exploration (random preemption inside blocks)
/// and with one host thread or several (blocks at once, or one after
/// another), the race detector finds nothing and the results hold.
#[test]
fn the_look_back_holds_under_other_schedules_and_host_threads() {
    let data: Vec<u32> = (0..5 * 4096 + 77)
        .map(|i: u32| i.wrapping_mul(2654435761) >> 20)
        .collect();
    let want = host_scan(&data, Sum, false);
    for emulator in [
        coop::cpu::Emulator::new().with_schedules(3),
        coop::cpu::Emulator::new().with_host_threads(1),
        coop::cpu::Emulator::new().with_host_threads(3),
    ] {
        let device = Device::Cpu(Cpu::with_emulator(emulator));
        let scanner = Scanner::new(&device).unwrap();
        let mut out = vec![0u32; data.len()];
        scanner.inclusive(Sum, &data, &mut out).unwrap();
        assert_eq!(out, want);
    }
}

/// A deterministic float scan has the same bits on one host thread and on
/// several, and equals nothing the schedule could change.
#[test]
fn a_deterministic_float_scan_does_not_depend_on_host_threads() {
    let data: Vec<f32> = (0..3 * 4096 + 5)
        .map(|i| ((i * 7919) % 1000) as f32 * 1e-3 - 0.5)
        .collect();
    let run = |threads: usize| {
        let device = Device::Cpu(Cpu::with_emulator(
            coop::cpu::Emulator::new().with_host_threads(threads),
        ));
        let mut out = vec![0f32; data.len()];
        Scanner::new(&device)
            .unwrap()
            .deterministic()
            .exclusive(Sum, &data, &mut out)
            .unwrap();
        out.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    };
    assert_eq!(run(1), run(2));
}
