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
    let data: Vec<u32> = (0..3 * 8192 + 77)
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
    let data: Vec<f32> = (0..3 * 8192 + 5)
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

/// The look-back alone, over tile states made by hand: tile 0 inclusive,
/// the others aggregates (one inclusive on the way in the second case),
/// 200 tiles back, so that seven rounds of 32 are combined in tile order
/// (on the CPU backend a whole scan's look-back stops at the tile before:
/// its blocks finish in order). A matrix product (values in `partials`)
/// and "the last nonzero value" (values in one status word, and in two)
/// show any change of order or any tile skipped.
#[test]
fn the_look_back_combines_the_tiles_before_in_order() {
    use coop::device::scan::{AGGREGATE, INCLUSIVE};
    use coop::op::Operator;
    use coop_tests::kernels::{
        look_back_last_nonzero, look_back_last_nonzero_u64, look_back_mat2, Mat2, MatMul,
    };
    let cpu = Cpu::new();
    let config = coop_host::LaunchConfig::new(1, 32);
    let (epoch, tile) = (7u32, 200usize);
    let tiles = tile + 1;
    let tag = |flag: u32| (epoch << 2 | flag) as u64;
    for stop_at in [0usize, 150] {
        // Matrices, in `partials`.
        let values: Vec<Mat2> = (0..tile)
            .map(|j| Mat2([1 + (j % 3) as i32, (j % 5) as i32, (j % 2) as i32, 1]))
            .collect();
        let mut status = vec![tag(AGGREGATE); tiles];
        let mut partials = vec![Mat2::default(); 2 * tiles];
        partials[..tile].copy_from_slice(&values);
        let inclusive_at = |j: usize| {
            values[..=j]
                .iter()
                .fold(MatMul.identity(), |a, &b| MatMul.combine(a, b))
        };
        status[0] = tag(INCLUSIVE);
        partials[tiles] = inclusive_at(0);
        status[stop_at] = tag(INCLUSIVE);
        partials[tiles + stop_at] = inclusive_at(stop_at);
        let mut out = vec![Mat2::default(); 1];
        cpu.launch(
            look_back_mat2,
            config,
            (tile as u32, &mut status, &mut partials, epoch, &mut out),
        )
        .unwrap();
        assert_eq!(
            out[0],
            inclusive_at(tile - 1),
            "matrices, inclusive at {stop_at}"
        );
        // Words, in the status words.
        let words: Vec<u32> = (0..tile)
            .map(|j| if j % 7 == 3 { 0 } else { 1000 + j as u32 })
            .collect();
        let last_nonzero = |j: usize| {
            words[..=j]
                .iter()
                .rev()
                .copied()
                .find(|&w| w != 0)
                .unwrap_or(0)
        };
        let mut status: Vec<u64> = words
            .iter()
            .map(|&w| (w as u64) << 32 | tag(AGGREGATE))
            .collect();
        status.push(0);
        status[0] = (last_nonzero(0) as u64) << 32 | tag(INCLUSIVE);
        status[stop_at] = (last_nonzero(stop_at) as u64) << 32 | tag(INCLUSIVE);
        let mut partials = vec![0u32; 2 * tiles];
        let mut out = vec![0u32; 1];
        cpu.launch(
            look_back_last_nonzero,
            config,
            (tile as u32, &mut status, &mut partials, epoch, &mut out),
        )
        .unwrap();
        assert_eq!(
            out[0],
            last_nonzero(tile - 1),
            "words, inclusive at {stop_at}"
        );
        // Values of two words, each word in a status word of its own.
        let values: Vec<u64> = (0..tile)
            .map(|j| {
                if j % 7 == 3 {
                    0
                } else {
                    ((j as u64) << 40) | (7 * j as u64)
                }
            })
            .collect();
        let last_nonzero = |j: usize| {
            values[..=j]
                .iter()
                .rev()
                .copied()
                .find(|&v| v != 0)
                .unwrap_or(0)
        };
        let pair = |v: u64, flag: u32| {
            [
                (v & 0xffff_ffff) << 32 | tag(flag),
                (v >> 32) << 32 | tag(flag),
            ]
        };
        let mut status: Vec<u64> = values.iter().flat_map(|&v| pair(v, AGGREGATE)).collect();
        status.extend([0, 0]);
        status[..2].copy_from_slice(&pair(last_nonzero(0), INCLUSIVE));
        status[2 * stop_at..2 * stop_at + 2]
            .copy_from_slice(&pair(last_nonzero(stop_at), INCLUSIVE));
        let mut partials = vec![0u64; 2 * tiles];
        let mut out = vec![0u64; 1];
        cpu.launch(
            look_back_last_nonzero_u64,
            config,
            (tile as u32, &mut status, &mut partials, epoch, &mut out),
        )
        .unwrap();
        assert_eq!(
            out[0],
            last_nonzero(tile - 1),
            "two-word values, inclusive at {stop_at}"
        );
    }
}

/// The look-back in order over float tile states made by hand: whichever
/// tiles have published their inclusive prefixes (each the left fold of
/// the aggregates up to it), the prefix it finds has the bits of the left
/// fold of every aggregate before the tile: near, 150 tiles back past four
/// rounds without one, or several in one round.
#[test]
fn the_look_back_in_order_gives_the_left_fold_whoever_published() {
    use coop::device::scan::{AGGREGATE, INCLUSIVE};
    use coop_tests::kernels::look_back_in_order_f32;
    let cpu = Cpu::new();
    let config = coop_host::LaunchConfig::new(1, 32);
    let (epoch, tile) = (5u32, 200usize);
    let tag = |flag: u32| (epoch << 2 | flag) as u64;
    // Magnitudes far apart, so that grouping the additions changes bits.
    let values: Vec<f32> = (0..tile)
        .map(|j| match j % 4 {
            0 => 1.0e7 + j as f32,
            1 => 0.3 + j as f32 * 1e-3,
            2 => -1.0e7 + 0.7,
            _ => 1.1e-2 * j as f32,
        })
        .collect();
    let fold = |j: usize| values[..=j].iter().fold(0f32, |a, &b| a + b);
    let want = fold(tile - 1);
    for inclusive in [
        vec![0],
        vec![0, 150],
        vec![0, 48, 199],
        vec![0, 180, 185, 190, 197],
        vec![0, 20, 40, 60, 80, 100, 120, 140, 160, 168],
    ] {
        let word = |v: f32, flag: u32| (v.to_bits() as u64) << 32 | tag(flag);
        let mut status: Vec<u64> = values.iter().map(|&v| word(v, AGGREGATE)).collect();
        status.push(0);
        for &j in &inclusive {
            status[j] = word(fold(j), INCLUSIVE);
        }
        let mut partials = vec![0f32; 2 * (tile + 1)];
        let mut out = vec![0f32; 1];
        cpu.launch(
            look_back_in_order_f32,
            config,
            (tile as u32, &mut status, &mut partials, epoch, &mut out),
        )
        .unwrap();
        assert_eq!(
            out[0].to_bits(),
            want.to_bits(),
            "inclusive prefixes at {inclusive:?}: {} where the left fold is {want}",
            out[0]
        );
    }
}

/// A scan kernel launched without the dynamic shared memory its tile is
/// staged in stops with a message that names the call to make, on the CPU
/// backend as on a GPU (the same check runs in both).
#[test]
fn a_scan_launched_without_its_shared_memory_says_what_it_needs() {
    use coop::device::scan::{shared_memory_bytes, tiles, SINGLE_PASS};
    use coop_tests::kernels::{scan_mat2_product, Mat2};
    let n = 3000;
    let input = vec![Mat2::default(); n];
    let mut output = vec![Mat2::default(); n];
    let tiles = tiles::<Mat2>(n, 64);
    let mut status = vec![0u64; 2 * tiles];
    let mut partials = vec![Mat2::default(); 2 * tiles];
    let cpu = Cpu::new();
    let launch = |shared: u32, output: &mut [Mat2], status: &mut [u64], partials: &mut [Mat2]| {
        let config = coop_host::LaunchConfig::new(tiles as u32, 64).with_shared_memory(shared);
        cpu.launch(
            scan_mat2_product,
            config,
            (&input[..], output, SINGLE_PASS, status, partials, 1u32),
        )
    };
    let err = launch(0, &mut output, &mut status, &mut partials).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("dynamic shared memory") && message.contains("shared_memory_bytes"),
        "{message}"
    );
    let needed = shared_memory_bytes::<Mat2>(64);
    assert_eq!(needed, 64 * 128);
    launch(needed, &mut output, &mut status, &mut partials).unwrap();
}
