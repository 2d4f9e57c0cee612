//! The CPU backend's rule checks: each broken rule is reported with its
//! kind, the threads involved and the `file:line` of the calls, and the
//! corrected kernel passes. Runs without a GPU.

use coop::cpu::{Arrival, EmulationError, Emulator, Violation};
use coop::prelude::*;
use coop_host::{Cpu, Dim3, Error, LaunchConfig};

/// The line of this file holding `marker` (in a comment next to a call).
fn line_of(marker: &str) -> u32 {
    coop_tests::marked_line(include_str!("cpu_backend.rs"), marker)
}

fn at(site: Option<coop::cpu::Site>, marker: &str) {
    let site = site.expect("a call site");
    assert!(
        site.file().ends_with("cpu_backend.rs"),
        "site in {}",
        site.file()
    );
    assert_eq!(site.line(), line_of(marker), "site of `{marker}`");
}

fn ranks(r: std::ops::Range<u32>) -> Vec<u32> {
    r.collect()
}

fn emulation_error(result: Result<coop_host::Report, Error>) -> EmulationError {
    match result {
        Err(Error::Emulation(e)) => e,
        other => panic!("expected an emulation error, got {other:?}"),
    }
}

// ---------------------------------------------------------------------
// A block barrier that some threads never reach.

#[kernel]
pub fn barrier_after_early_return(block: ThreadBlock, out: Out<u32>) {
    let rank = block.thread_rank();
    if rank >= 16 {
        return;
    }
    block.sync(); // barrier-after-return
    out.write(rank as usize, rank);
}

#[kernel]
pub fn barrier_before_the_branch(block: ThreadBlock, out: Out<u32>) {
    let rank = block.thread_rank();
    block.sync();
    if rank < 16 {
        out.write(rank as usize, rank);
    }
}

#[test]
fn a_barrier_some_threads_returned_before_is_reported() {
    let mut out = vec![0u32; 32];
    let e = emulation_error(Cpu::new().launch(
        barrier_after_early_return,
        LaunchConfig::new(2, 32),
        (&mut out,),
    ));
    assert_eq!(e.kernel, "barrier_after_early_return");
    assert_eq!(e.block, Dim3::new(0, 0, 0));
    let Violation::BarrierNotReached { waiting, exited } = &*e.violation else {
        panic!("{e}")
    };
    assert_eq!(exited.ranks(), ranks(16..32));
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].threads.ranks(), ranks(0..16));
    assert_eq!(waiting[0].call, "ThreadBlock::sync");
    at(waiting[0].site, "barrier-after-return");
    let msg = e.to_string();
    assert!(
        msg.starts_with(
            "kernel `barrier_after_early_return`, block (0, 0, 0): block barrier never reached"
        ),
        "{msg}"
    );
    assert!(
        msg.contains("threads 0-15 at `ThreadBlock::sync` (tests/cpu_backend.rs:"),
        "{msg}"
    );
    assert!(
        msg.contains("threads 16-31 returned from the kernel"),
        "{msg}"
    );

    let mut out = vec![0u32; 32];
    Cpu::new()
        .launch(
            barrier_before_the_branch,
            LaunchConfig::new(1, 32),
            (&mut out,),
        )
        .unwrap();
    assert_eq!(out[..16], ranks(0..16)[..]);
}

// ---------------------------------------------------------------------
// Threads of a block at two different barriers.

#[kernel]
pub fn barriers_in_both_arms(block: ThreadBlock, out: Out<u32>) {
    let rank = block.thread_rank();
    if rank.is_multiple_of(2) {
        block.sync(); // even-barrier
    } else {
        block.sync(); // odd-barrier
    }
    out.write(rank as usize, rank);
}

#[kernel]
pub fn one_barrier_after_the_branch(block: ThreadBlock, out: Out<u32>) {
    let rank = block.thread_rank();
    let v = if rank.is_multiple_of(2) {
        rank
    } else {
        2 * rank
    };
    block.sync();
    out.write(rank as usize, v);
}

#[test]
fn threads_at_different_textual_barriers_are_reported() {
    let mut out = vec![0u32; 64];
    let e = emulation_error(Cpu::new().launch(
        barriers_in_both_arms,
        LaunchConfig::new(1, 64),
        (&mut out,),
    ));
    let Violation::DivergentBarriers { waiting } = &*e.violation else {
        panic!("{e}")
    };
    assert_eq!(waiting.len(), 2);
    assert_eq!(
        waiting[0].threads.ranks(),
        (0..64).step_by(2).collect::<Vec<_>>()
    );
    at(waiting[0].site, "even-barrier");
    assert_eq!(
        waiting[1].threads.ranks(),
        (1..64).step_by(2).collect::<Vec<_>>()
    );
    at(waiting[1].site, "odd-barrier");

    Cpu::new()
        .launch(
            one_barrier_after_the_branch,
            LaunchConfig::new(1, 64),
            (&mut out,),
        )
        .unwrap();
    assert_eq!(out[3], 6);
}

// ---------------------------------------------------------------------
// A tile collective entered by part of the tile.

#[kernel]
pub fn shuffle_in_a_branch(block: ThreadBlock, out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let rank = block.thread_rank();
    let mut v = rank;
    if warp.thread_rank() < 16 {
        v = warp.shfl(v, 0); // shuffle-in-branch
    }
    out.write(rank as usize, v);
}

#[kernel]
pub fn shuffle_outside_the_branch(block: ThreadBlock, out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let rank = block.thread_rank();
    let leader = warp.shfl(rank, 0);
    let v = if warp.thread_rank() < 16 {
        leader
    } else {
        rank
    };
    out.write(rank as usize, v);
}

#[kernel]
pub fn ballots_in_both_arms(block: ThreadBlock, out: Out<u32>) {
    let tile = block.tiled_partition::<16>();
    let rank = block.thread_rank();
    let v = if rank % 16 < 4 {
        tile.ballot(true) // ballot-a
    } else {
        tile.ballot(false) // ballot-b
    };
    out.write(rank as usize, v);
}

#[test]
fn a_shuffle_reached_by_part_of_its_tile_is_reported() {
    let mut out = vec![0u32; 64];
    let e = emulation_error(Cpu::new().launch(
        shuffle_in_a_branch,
        LaunchConfig::new(1, 64),
        (&mut out,),
    ));
    let Violation::DivergentCollective {
        call,
        site,
        group,
        arrivals,
        missing,
    } = &*e.violation
    else {
        panic!("{e}")
    };
    assert_eq!(*call, "shfl");
    at(Some(site), "shuffle-in-branch");
    assert_eq!(group.ranks(), ranks(0..32));
    assert!(missing.is_empty());
    assert_eq!(
        arrivals,
        &vec![
            Arrival {
                threads: coop_threads(0..16),
                call: "shfl",
                site: Some(site),
                callers: Vec::new(),
            },
            Arrival {
                threads: coop_threads(16..32),
                call: "returned from the kernel",
                site: None,
                callers: Vec::new(),
            },
        ]
    );
    let msg = e.to_string();
    assert!(msg.contains("`shfl` at tests/cpu_backend.rs:"), "{msg}");
    assert!(msg.contains("names threads 0-31 of its tile"), "{msg}");

    Cpu::new()
        .launch(
            shuffle_outside_the_branch,
            LaunchConfig::new(1, 64),
            (&mut out,),
        )
        .unwrap();
    assert_eq!(out[5], 0);
    assert_eq!(out[37], 32);
    assert_eq!(out[20], 20);
}

fn coop_threads(r: std::ops::Range<u32>) -> coop::cpu::Threads {
    coop::cpu::Threads::from_ranks(r)
}

#[test]
fn the_two_arms_of_a_branch_are_different_collectives() {
    let mut out = vec![0u32; 32];
    let e = emulation_error(Cpu::new().launch(
        ballots_in_both_arms,
        LaunchConfig::new(1, 32),
        (&mut out,),
    ));
    let Violation::DivergentCollective {
        call,
        site,
        group,
        arrivals,
        ..
    } = &*e.violation
    else {
        panic!("{e}")
    };
    assert_eq!(*call, "ballot");
    at(Some(site), "ballot-a");
    assert_eq!(group.ranks(), ranks(0..16));
    assert_eq!(arrivals.len(), 2);
    assert_eq!(arrivals[0].threads.ranks(), ranks(0..4));
    at(arrivals[0].site, "ballot-a");
    assert_eq!(arrivals[1].threads.ranks(), ranks(4..16));
    at(arrivals[1].site, "ballot-b");
}

// ---------------------------------------------------------------------
// A block that does not split into whole tiles.

#[kernel]
pub fn warps_of_a_block(block: ThreadBlock, out: Out<u32>) {
    let warp = block.tiled_partition::<32>(); // partial-tile
    let rank = block.thread_rank();
    out.write(rank as usize, warp.ballot(true));
}

#[test]
fn a_partial_tile_is_reported_and_whole_tiles_pass() {
    let mut out = vec![0u32; 64];
    let e =
        emulation_error(Cpu::new().launch(warps_of_a_block, LaunchConfig::new(1, 48), (&mut out,)));
    let Violation::PartialTile {
        tile_size,
        parent_size,
        thread,
        site,
    } = *e.violation
    else {
        panic!("{e}")
    };
    assert_eq!((tile_size, parent_size, thread), (32, 48, 0));
    at(Some(site), "partial-tile");
    assert!(e.to_string().contains("not a multiple of 32"), "{e}");

    Cpu::new()
        .launch(warps_of_a_block, LaunchConfig::new(1, 64), (&mut out,))
        .unwrap();
    assert!(out.iter().all(|&b| b == u32::MAX));
}

// ---------------------------------------------------------------------
// A kernel that spins forever.

#[kernel]
pub fn wait_for_a_vote_that_never_comes(block: ThreadBlock, out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let mut rounds = 0u32;
    loop {
        let done = warp.any(block.num_threads() > 1000); // spin
        if done {
            break;
        }
        rounds += 1;
    }
    out.write(block.thread_rank() as usize, rounds);
}

#[test]
fn a_kernel_that_spins_forever_is_stopped_by_the_step_budget() {
    let mut out = vec![0u32; 32];
    let cpu = Cpu::with_emulator(Emulator::new().with_step_budget(10_000));
    let e = emulation_error(cpu.launch(
        wait_for_a_vote_that_never_comes,
        LaunchConfig::new(1, 32),
        (&mut out,),
    ));
    let Violation::OutOfSteps {
        thread,
        steps,
        site,
    } = *e.violation
    else {
        panic!("{e}")
    };
    assert_eq!((thread, steps), (0, 10_000));
    at(Some(site), "spin");

    // In a block of more than 1000 threads the vote succeeds at once.
    let mut out = vec![0u32; 1024];
    cpu.launch(
        wait_for_a_vote_that_never_comes,
        LaunchConfig::new(1, 1024),
        (&mut out,),
    )
    .unwrap();
    assert_eq!(out[1023], 0);
}

// ---------------------------------------------------------------------
// Panics (a trap on the GPU).

#[kernel]
pub fn write_past_the_end(block: ThreadBlock, out: Out<u32>) {
    out.write(block.thread_rank() as usize, 1); // past-the-end
}

#[test]
fn a_write_past_the_end_names_the_parameter_index_length_and_line() {
    let mut out = vec![0u32; 8];
    let e = emulation_error(Cpu::new().launch(
        write_past_the_end,
        LaunchConfig::new(1, 32),
        (&mut out,),
    ));
    let Violation::OutOfBounds {
        buffer,
        call,
        index,
        len,
        thread,
        location: Some(at),
    } = &*e.violation
    else {
        panic!("{e}")
    };
    assert_eq!((buffer.as_str(), *call), ("out", "Out::write"));
    assert_eq!((*index, *len, *thread), (8, 8, 8));
    assert_eq!(
        (at.file.as_str(), at.line),
        (file!(), line_of("past-the-end"))
    );
}

#[kernel]
pub fn unwrap_none(block: ThreadBlock, out: Out<u32>) {
    let found = (0..4u32).find(|&x| x == block.thread_rank());
    out.write(block.thread_rank() as usize, found.unwrap());
}

#[test]
fn a_panicking_thread_is_reported_with_its_message_and_location() {
    let mut out = vec![0u32; 32];
    let e = emulation_error(Cpu::new().launch(unwrap_none, LaunchConfig::new(1, 32), (&mut out,)));
    let Violation::Panic {
        thread,
        message,
        location: Some(at),
    } = &*e.violation
    else {
        panic!("{e}")
    };
    assert_eq!(*thread, 4);
    assert_eq!(message, "called `Option::unwrap()` on a `None` value");
    assert_eq!((at.file.as_str(), at.line), (file!(), line!() - 17));
    assert!(e
        .to_string()
        .contains(&format!("thread 4 panicked at {}:", file!())));
}

// ---------------------------------------------------------------------
// Determinism and shapes.

#[kernel]
pub fn scan_of_warp_ranks(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let g = this_grid().thread_rank();
    let mut v = input[g];
    for d in [1, 2, 4, 8, 16] {
        let up = warp.shfl_up(v, d);
        if warp.thread_rank() >= d {
            v = v.wrapping_add(up);
        }
    }
    block.sync();
    out.write(g, v ^ warp.match_any(v & 3));
}

#[test]
fn launches_are_deterministic_in_results_and_diagnostics() {
    let input: Vec<u32> = (0..4096u32).map(|i| i.wrapping_mul(2654435761)).collect();
    let mut first = vec![0u32; 4096];
    Cpu::new()
        .launch(
            scan_of_warp_ranks,
            LaunchConfig::new((4, 2, 2), (8, 4, 8)),
            (&input, &mut first),
        )
        .unwrap();
    for _ in 0..20 {
        let mut again = vec![0u32; 4096];
        Cpu::new()
            .launch(
                scan_of_warp_ranks,
                LaunchConfig::new((4, 2, 2), (8, 4, 8)),
                (&input, &mut again),
            )
            .unwrap();
        assert_eq!(again, first);
    }
    let first_error = emulation_error(Cpu::new().launch(
        shuffle_in_a_branch,
        LaunchConfig::new(3, 64),
        (&mut first,),
    ));
    for _ in 0..20 {
        let again = emulation_error(Cpu::new().launch(
            shuffle_in_a_branch,
            LaunchConfig::new(3, 64),
            (&mut first,),
        ));
        assert_eq!(again, first_error);
        assert_eq!(again.to_string(), first_error.to_string());
    }
}

#[test]
fn launch_shapes_are_checked_as_on_a_gpu() {
    let mut out = vec![0u32; 8];
    match Cpu::new().launch(
        write_past_the_end,
        LaunchConfig::new(1, (32, 64)),
        (&mut out,),
    ) {
        Err(Error::InvalidLaunch {
            kernel: "write_past_the_end",
            problem,
        }) => {
            assert!(problem.to_string().contains("2048 threads"), "{problem}")
        }
        other => panic!("expected InvalidLaunch, got {other:?}"),
    }
}

#[test]
fn a_gpu_buffer_cannot_go_to_the_cpu_and_vice_versa() {
    // Only the CPU side can be exercised without a GPU: a `Buffer::Cpu`
    // passed to a CPU launch is fine.
    let device = coop_host::Device::cpu();
    let program = device.load(&coop_examples::PTX).unwrap();
    let mut out = device.zeros::<u32>(32).unwrap();
    program
        .launch(
            barrier_before_the_branch,
            LaunchConfig::new(1, 32),
            (&mut out,),
        )
        .unwrap();
    assert_eq!(device.download(&out).unwrap()[..16], ranks(0..16)[..]);
}

/// A 2-D block's threads are named by their (x, y) index, as the kernel
/// sees them, not by rank.
#[kernel]
pub fn top_half_waits(block: ThreadBlock) {
    if block.thread_index().y < 8 {
        block.sync(); // top-half-barrier
    }
}

#[test]
fn a_two_dimensional_block_names_threads_by_index() {
    let err = Cpu::new()
        .launch(top_half_waits, LaunchConfig::new(1, (16, 16)), ())
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("threads (0-15, 0-7) at `ThreadBlock::sync`"),
        "{message}"
    );
    assert!(
        message.contains("threads (0-15, 8-15) returned from the kernel"),
        "{message}"
    );
}

/// A block collective called by part of the block is named as the user
/// wrote it (`reduce`), at the user's line, not as the barrier inside it.
#[kernel]
pub fn half_block_reduces(block: ThreadBlock, out: Out<u32>) {
    let t = block.thread_rank();
    if t < 64 {
        let total = reduce(&block, t, op::Sum); // half-reduce
        out.write(t as usize, total);
    }
}

#[test]
fn a_block_collective_in_a_branch_is_named_as_written() {
    let mut out = vec![0u32; 128];
    let err = Cpu::new()
        .launch(half_block_reduces, LaunchConfig::new(1, 128), (&mut out,))
        .unwrap_err();
    let message = err.to_string();
    let line = include_str!("cpu_backend.rs")
        .lines()
        .position(|l| l.ends_with("// half-reduce"))
        .unwrap()
        + 1;
    assert!(
        message.contains(&format!(
            "threads 0-63 at `reduce` (tests/cpu_backend.rs:{line}:"
        )),
        "{message}"
    );
    assert!(
        message.contains("threads 64-127 returned from the kernel"),
        "{message}"
    );
    assert!(
        message.contains("move the call out of the branch"),
        "{message}"
    );
}

/// The GPU suite's cooperative kernel (`coop-test-kernels`' `grids`) on the
/// CPU backend: the same ranks and stencil rounds as the host's, on grids
/// up to the emulated device's co-resident limit, and one block more
/// refused.
#[test]
fn the_cooperative_kernel_of_the_gpu_suite_matches_the_host_reference() {
    let device = coop_host::Device::cpu();
    let program = device.load(&coop_tests::TEST_KERNELS_PTX).unwrap();
    let max = program
        .max_cooperative_blocks(coop_tests::kernels::grids::grid_steps, 128, 0)
        .unwrap();
    assert_eq!(max, 16); // 2048 threads of one sm_90 multiprocessor
    coop_tests::grid_cases::check_all(&device, &program, max);
}

/// The GPU suite's dynamic-group kernels on the CPU backend: the groups a
/// predicate and a label make, and a warp-aggregated compaction, against
/// the host (the GPU suite compares all fields with CUDA's twins too).
#[test]
fn the_dynamic_group_kernels_of_the_gpu_suite_match_the_host_reference() {
    use coop_tests::dynamic_cases as d;
    let device = coop_host::Device::cpu();
    let program = device.load(&coop_tests::TEST_KERNELS_PTX).unwrap();
    d::check_partitions(&d::run_partitions(&device, &program).unwrap());
    let input = d::compaction_input(5000);
    assert_eq!(
        d::run_compaction(&device, &program, &input).unwrap(),
        d::compaction_reference(&input)
    );
}

/// The GPU suite's multi-warp tile kernels on the CPU backend: every member
/// and collective of tiles of 64 to 1024 threads against the host.
#[test]
fn multi_warp_tiles_match_the_host_reference() {
    let device = coop_host::Device::cpu();
    let program = device.load(&coop_tests::TEST_KERNELS_PTX).unwrap();
    coop_tests::multi_warp_cases::check_all(&device, &program);
    coop_tests::multi_warp_cases::check_guarded(&device, &program);
}

/// The GPU suite's cluster kernel on the CPU backend: ranks, and a value
/// passed between a cluster's blocks across `Cluster::sync`, against the
/// host.
#[test]
fn the_cluster_kernel_of_the_gpu_suite_matches_the_host_reference() {
    let device = coop_host::Device::cpu();
    let program = device.load(&coop_tests::TEST_KERNELS_PTX).unwrap();
    coop_tests::cluster_cases::check_all(&device, &program);
}

/// A cooperative kernel launched in clusters on the CPU backend: grid
/// syncs, cluster syncs and distributed shared memory in one kernel, for
/// clusters of 1 to 8 blocks, against the host; one cluster past what the
/// emulated device holds at once is refused as on a GPU.
#[test]
fn a_cooperative_kernel_in_clusters_matches_the_host_reference() {
    let device = coop_host::Device::cpu();
    let program = device.load(&coop_tests::TEST_KERNELS_PTX).unwrap();
    coop_tests::cluster_cases::check_grid_rounds(&device, program.launcher(), 32);
    // Under schedule exploration (threads and blocks in seeded orders)
    // the results are the same and nothing is reported.
    let explored = coop_host::Device::Cpu(coop_host::Cpu::with_emulator(
        coop::cpu::Emulator::new().with_schedules(2),
    ));
    let explored_program = explored.load(&coop_tests::TEST_KERNELS_PTX).unwrap();
    coop_tests::cluster_cases::check_grid_rounds(&explored, explored_program.launcher(), 16);
    let config = coop_host::LaunchConfig::new(8, 64).with_cluster(8);
    let active = program
        .max_active_clusters(coop_tests::kernels::clusters::cluster_grid_rounds, config)
        .unwrap();
    let launcher = program.launcher();
    coop_tests::cluster_cases::run_grid_rounds(&device, launcher, active * 8, 8, 1).unwrap();
    let err = coop_tests::cluster_cases::run_grid_rounds(&device, launcher, (active + 1) * 8, 8, 1)
        .unwrap_err();
    assert!(
        matches!(
            err,
            coop_host::Error::InvalidLaunch {
                problem: coop_host::LaunchProblem::ClustersNotCoResident { max, .. },
                ..
            } if max == active
        ),
        "{err}"
    );
}

/// The `grid_sum` example's kernels on the CPU backend: the sum in one
/// cooperative launch and in two launches, on a grid of the most blocks
/// the emulated device holds, equal the host's; and the stencil rounds in
/// one launch equal 100 launches of one round.
#[test]
fn the_grid_sync_examples_match_the_host() {
    use coop_examples::kernels::grid_sync as k;
    let device = coop_host::Device::cpu();
    let program = device.load(&coop_tests::EXAMPLES_PTX).unwrap();
    let input: Vec<f32> = (0..100_000).map(|i| (i % 7) as f32).collect();
    let expected: f32 = input.iter().sum();
    let blocks = program
        .max_cooperative_blocks(k::sum_one_launch, 256, 0)
        .unwrap();
    let config = LaunchConfig::new(blocks, 256);
    let d_in = device.upload(&input).unwrap();
    let mut partial = device.zeros::<f32>(blocks as usize).unwrap();
    let mut total = device.zeros::<f32>(1).unwrap();
    program
        .launch(k::sum_one_launch, config, (&d_in, &mut partial, &mut total))
        .unwrap();
    assert_eq!(device.download(&total).unwrap()[0], expected);
    let mut total = device.zeros::<f32>(1).unwrap();
    program
        .launch(k::sum_partials, config, (&d_in, &mut partial))
        .unwrap();
    program
        .launch(
            k::sum_partials_finish,
            LaunchConfig::new(1, 256),
            (&partial, &mut total),
        )
        .unwrap();
    assert_eq!(device.download(&total).unwrap()[0], expected);

    let start: Vec<f32> = (0..5000).map(|i| (i % 13) as f32).collect();
    let (mut a, mut b) = (
        device.upload(&start).unwrap(),
        device.zeros::<f32>(5000).unwrap(),
    );
    program
        .launch(
            k::smooth_rounds,
            LaunchConfig::new(4, 128),
            (6u32, &mut a, &mut b),
        )
        .unwrap();
    let (mut c, mut d) = (
        device.upload(&start).unwrap(),
        device.zeros::<f32>(5000).unwrap(),
    );
    for r in 0..6 {
        if r % 2 == 0 {
            program
                .launch(k::smooth_round, LaunchConfig::new(4, 128), (&c, &mut d))
                .unwrap();
        } else {
            program
                .launch(k::smooth_round, LaunchConfig::new(4, 128), (&d, &mut c))
                .unwrap();
        }
    }
    assert_eq!(device.download(&a).unwrap(), device.download(&c).unwrap());
}

/// The GPU suite's distributed-shared-memory kernels on the CPU backend:
/// reads of other blocks' arrays and a histogram spread over a cluster,
/// against the host.
#[test]
fn the_distributed_shared_memory_kernels_match_the_host_reference() {
    let device = coop_host::Device::cpu();
    let program = device.load(&coop_tests::TEST_KERNELS_PTX).unwrap();
    coop_tests::cluster_cases::check_dsm(&device, &program);
}

/// The wide-histogram example kernels (global atomics, a block's copy,
/// bins spread over a cluster) on the CPU backend, against the host.
#[test]
fn the_wide_histogram_kernels_match_the_host() {
    use coop_examples::kernels::wide_histogram as k;
    let device = coop_host::Device::cpu();
    let program = device.load(&coop_tests::EXAMPLES_PTX).unwrap();
    let keys: Vec<u32> = (0..6000u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 5)
        .collect();
    let bins = 1024u32;
    let mut expected = vec![0u32; bins as usize];
    for &key in &keys {
        expected[(key % bins) as usize] += 1;
    }
    let d_keys = device.upload(&keys).unwrap();
    let run = |launch: &dyn Fn(&mut coop_host::Buffer<u32>)| {
        let mut out = device.zeros::<u32>(bins as usize).unwrap();
        launch(&mut out);
        device.download(&out).unwrap()
    };
    let global = run(&|out| {
        program
            .launch(
                k::wide_histogram_global,
                LaunchConfig::new(4, 128),
                (&d_keys, out),
            )
            .unwrap()
    });
    let block = run(&|out| {
        program
            .launch(
                k::wide_histogram_block,
                LaunchConfig::new(4, 128).with_shared_memory(bins * 4),
                (&d_keys, out),
            )
            .unwrap()
    });
    let cluster = run(&|out| {
        program
            .launch(
                k::wide_histogram_cluster,
                LaunchConfig::new(8, 128)
                    .with_cluster(4)
                    .with_shared_memory(bins / 4 * 4),
                (&d_keys, out),
            )
            .unwrap()
    });
    assert_eq!(global, expected);
    assert_eq!(block, expected);
    assert_eq!(cluster, expected);
}

/// The streaming benchmark's staged copies (one tile a block by
/// `copy_async`, each warp's runs by tile copies into its own rows) copy
/// their input on the CPU backend, partial last tile and run included.
#[test]
fn the_streaming_benchmarks_staged_copies_copy_their_input() {
    use coop_examples::kernels::streaming::{stream_staged, stream_tiles};
    let input: Vec<f32> = (0..5000).map(|i| i as f32 * 0.5).collect();
    for blocks in [1u32, 3] {
        let mut out = vec![0f32; input.len()];
        Cpu::new()
            .launch(
                stream_staged,
                LaunchConfig::new(blocks, 256),
                (&input[..], &mut out),
            )
            .unwrap();
        assert!(out == input, "stream_staged, {blocks} blocks");
        let mut out = vec![0f32; input.len()];
        Cpu::new()
            .launch(
                stream_tiles,
                LaunchConfig::new(blocks, 256),
                (&input[..], &mut out),
            )
            .unwrap();
        assert!(out == input, "stream_tiles, {blocks} blocks");
    }
}
