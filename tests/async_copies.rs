//! Asynchronous copies into shared memory on the CPU backend: every case
//! of `coop_tests::async_cases` against its host reference. The GPU suite
//! (`gpu.rs`) runs the same cases on a GPU.

use coop_host::Device;
use coop_tests::{async_cases, TEST_KERNELS_PTX};

#[test]
fn asynchronous_copies_and_pipelines_match_the_host_on_the_cpu() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    assert!(async_cases::check_all(&device, &program, None) > 100);
}

/// Tiles' copies into their own rows, and clusters' windows copied in
/// parts, under schedule exploration (threads in seeded orders): the same
/// results, nothing reported, whichever tile or block runs ahead.
#[test]
fn tile_rows_and_cluster_windows_match_the_host_under_schedule_exploration() {
    let device = Device::Cpu(coop_host::Cpu::with_emulator(
        coop::cpu::Emulator::new().with_schedules(3),
    ));
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let watch = &|_: String| None;
    for (n, offset) in [(1000usize, 1usize), (4099, 0)] {
        assert_eq!(
            async_cases::check_tile_rows(&device, &program, n, offset, 2, 256, watch),
            4
        );
        async_cases::check_tile_slices(&device, &program, n, offset, 37, 2, 64).unwrap();
        async_cases::check_cluster_windows(&device, &program, n, offset, 4, 64, 2).unwrap();
    }
}

/// A consumer of a warp-specialized pipeline that takes a tile the
/// producers never load would wait forever on a GPU: the CPU backend
/// reports the wait, naming the kernel's line.
#[test]
fn a_consumer_taking_a_tile_never_loaded_is_reported_not_hung() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let input = device.upload(&vec![1u32; 64]).unwrap();
    let mut out = device.zeros::<u32>(64).unwrap();
    let e = program
        .launch(
            coop_test_kernels::async_copies::specialized_takes_too_many,
            coop_host::LaunchConfig::new(1, 96),
            (&input, &mut out),
        )
        .expect_err("a tile taken and never loaded");
    let message = e.to_string();
    eprintln!("{message}");
    for part in [
        "at `Consumer::next` (tests/kernels/src/async_copies.rs",
        "returned from the kernel",
    ] {
        assert!(message.contains(part), "missing {part:?} in: {message}");
    }
}

/// Consumer groups taking turns split the consumers evenly, and the
/// ring's stages: 96 consumers in 5 groups, 0 groups, or 4 groups over a
/// ring of 6 stages are refused at the call, naming the rule.
#[test]
fn consumer_groups_that_do_not_split_the_consumers_are_refused() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let input = device.upload(&vec![1u32; 300]).unwrap();
    let mut out = device.zeros::<u32>(512).unwrap();
    for (groups, rule) in [
        (5u32, "groups of equal size"),
        (0, "groups of equal size"),
        (
            4,
            "the ring's number of stages is not a multiple of `groups`",
        ),
    ] {
        let e = program
            .launch(
                coop_test_kernels::async_copies::specialized_turns_u32,
                coop_host::LaunchConfig::new(1, 128),
                (&input, groups, &mut out),
            )
            .expect_err("consumers that do not split into the groups");
        let message = e.to_string();
        eprintln!("{message}");
        for part in [
            "Pipeline::start_specialized_in_turns",
            rule,
            "tests/kernels/src/async_copies.rs",
        ] {
            assert!(message.contains(part), "missing {part:?} in: {message}");
        }
    }
}

/// A warp-specialized pipeline needs a thread past the producers' tile:
/// a block of exactly the tile is refused, naming the rule.
#[test]
fn a_specialized_pipeline_without_consumers_is_refused() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let input = device.upload(&vec![1u32; 300]).unwrap();
    let mut out = device.zeros::<u32>(256).unwrap();
    let e = program
        .launch(
            coop_test_kernels::async_copies::specialized_sum_u32_256x2_w64_bulk,
            coop_host::LaunchConfig::new(1, 64),
            (&input, 0u32, &mut out),
        )
        .expect_err("no consumers");
    let message = e.to_string();
    eprintln!("{message}");
    assert!(
        message.contains(
            "Pipeline::start_specialized: the block has no thread past the producers' tile"
        ),
        "{message}"
    );
}

/// Inboxes: whole arrays sent into, and combined into, other blocks'
/// shared memory, every case of `coop_tests::inbox_cases`.
#[test]
fn inboxes_match_the_host_on_the_cpu() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    assert!(coop_tests::inbox_cases::check_all(&device, &program, None) >= 20);
}

/// The errors of a round of inboxes, each reported naming the kernel's
/// line where a GPU would hang or end with either array: an inbox that
/// expects more arrays than are sent (or fewer), two arrays sent into a
/// copy inbox in one round, a rank outside the cluster, two arrays into the
/// block's own inbox in one round.
#[test]
fn inbox_rounds_that_cannot_end_or_would_race_are_reported() {
    use coop_host::LaunchConfig;
    use coop_test_kernels::inboxes::{inbox_misused, misuse};
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let config = LaunchConfig::new(4, 64).with_cluster(4);
    let mut out = device.zeros::<u32>(256).unwrap();
    // The shapes done right: block 0, then block 3, expecting all four.
    for (case, n, at) in [
        (misuse::EXPECTS, 4u32, 5usize),
        (misuse::INTO_RANK, 3, 3 * 64),
    ] {
        program
            .launch(inbox_misused, config, (case, n, &mut out))
            .unwrap();
        assert_eq!(device.download(&out).unwrap()[at], 28);
    }
    for (case, n, parts) in [
        (
            misuse::EXPECTS,
            5,
            &[
                "`Exchange::wait` (tests/kernels/src/inboxes.rs",
                "never written",
            ][..],
        ),
        (misuse::EXPECTS, 3, &["bytes more", "inboxes.rs"]),
        (
            misuse::TWO_COPIES,
            0,
            &[
                "two arrays sent into the same inbox in one round: block ",
                "inboxes.rs",
                "open_reduce",
            ],
        ),
        (
            misuse::INTO_RANK,
            4,
            &[
                "Exchange::reduce: the block rank is outside the cluster",
                "inboxes.rs",
            ],
        ),
        (
            misuse::OWN_TWICE,
            0,
            &["at most one array into its own inbox a round", "inboxes.rs"],
        ),
    ] {
        let e = program
            .launch(inbox_misused, config, (case, n, &mut out))
            .expect_err("a misused inbox");
        let text = e.to_string();
        eprintln!("{text}");
        for part in parts {
            assert!(
                text.contains(part),
                "case {case}, {n}: missing {part:?} in: {text}"
            );
        }
    }
}

/// `Stage::store` checks its run: past the end of the buffer, and longer
/// than a stage, are refused at the call, naming it and the parameter.
#[test]
fn a_stage_store_outside_its_buffer_or_tile_is_refused() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let input = device.upload(&(0..3000u32).collect::<Vec<_>>()).unwrap();
    let mut short = device.zeros::<u32>(2999).unwrap();
    let e = program
        .launch(
            coop_test_kernels::async_copies::pipeline_store,
            coop_host::LaunchConfig::new(1, 32),
            (&input, 0u32, 0u32, 1u32, &mut short),
        )
        .expect_err("a run past the end");
    let message = e.to_string();
    eprintln!("{message}");
    for part in [
        "Stage::store: index 2999 is out of bounds for a buffer of 2999 elements (the kernel's parameter `out`)",
        "tests/kernels/src/async_copies.rs",
    ] {
        assert!(message.contains(part), "missing {part:?} in: {message}");
    }
    let mut out = device.zeros::<u32>(100).unwrap();
    let e = program
        .launch(
            coop_test_kernels::async_copies::stage_store_too_long,
            coop_host::LaunchConfig::new(1, 32),
            (&input, &mut out),
        )
        .expect_err("65 elements from a stage of 64");
    let message = e.to_string();
    eprintln!("{message}");
    assert!(
        message.contains("Stage::store: `len` is larger than the stage's tile"),
        "{message}"
    );
}
