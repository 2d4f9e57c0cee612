//! Launch bounds and register caps on the CPU backend: every case of
//! `coop_tests::launch_bounds_cases` against its host reference, and the
//! bound refused as it is on a GPU (`gpu.rs` runs the same cases there and
//! reads the registers ptxas gave each kernel).

use coop_host::{Cpu, Device, Error, LaunchConfig, LaunchProblem, ThreadLimit};
use coop_tests::{kernels::launch_bounds as k, launch_bounds_cases, TEST_KERNELS_PTX};

#[test]
fn bounded_kernels_match_the_host_and_refuse_larger_blocks_on_the_cpu() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    assert_eq!(
        launch_bounds_cases::check_all(&device, &program).unwrap(),
        12
    );
}

#[test]
fn the_bound_is_checked_before_the_arguments_and_names_the_kernel() {
    let cpu = Cpu::new();
    let input = vec![1u32; 2048];
    let mut out = vec![0u32; 2048];
    let err = cpu
        .launch(
            k::bounded_block_sum,
            LaunchConfig::new(2, 1024),
            (&input[..], &mut out[..]),
        )
        .unwrap_err();
    assert!(matches!(
        err,
        Error::InvalidLaunch {
            kernel: "bounded_block_sum",
            problem: LaunchProblem::TooManyThreads {
                max: 256,
                limit: ThreadLimit::LaunchBounds,
                ..
            }
        }
    ));
    assert_eq!(
        err.to_string(),
        "cannot launch `bounded_block_sum`: the block (1024, 1, 1) has 1024 threads; at most 256 \
         are allowed for this kernel, by its `#[kernel(max_threads = 256)]`: launch smaller \
         blocks, or raise the bound in the kernel's source"
    );
    // No block above the bound has resident blocks.
    assert_eq!(cpu.resident_blocks(k::bounded_block_sum, 512, 0), 0);
    assert_eq!(cpu.resident_blocks(k::bounded_block_sum, 256, 0), 8);
}
