//! The user-shaped kernels on the CPU backend: every block collective
//! behind a guarded load and before a guarded store, on every block shape
//! and size of `coop_tests::user_shapes`, against the host reference. The
//! GPU suite (`gpu.rs`) runs the same cases on a GPU.

use coop_host::Device;
use coop_tests::user_shapes;
use coop_tests::TEST_KERNELS_PTX;

#[test]
fn every_block_collective_in_user_shaped_kernels_matches_the_host_reference_on_the_cpu() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    user_shapes::check_all(&device, &program, None);
}

/// Grid-stride loops with several collectives an iteration: multi-warp
/// tiles of 64 to 512 threads, clusters, grid syncs.
#[test]
fn loop_shaped_kernels_of_tiles_clusters_and_grids_match_the_host_reference_on_the_cpu() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    assert!(coop_tests::loop_shapes::check_all(&device, &program, None) > 100);
}

/// The kernel of the hang report, exactly as its user wrote it.
#[test]
fn the_block_scan_kernel_that_hung_a_gpu_runs_on_the_cpu() {
    use coop_host::LaunchConfig;
    use coop_tests::kernels::user_shapes::block_scans;
    for n in [1usize, 1000, 1024, 1025, 3000] {
        let input: Vec<u32> = (0..n as u32).map(|i| i * 7 + 1).collect();
        let mut inclusive = vec![0u32; n];
        let mut exclusive = vec![0u32; n];
        let blocks = n.div_ceil(1024) as u32;
        coop_host::Cpu::new()
            .launch(
                block_scans,
                LaunchConfig::new(blocks, 1024),
                (&input[..], &mut inclusive, &mut exclusive),
            )
            .unwrap();
        user_shapes::check_block_scans(&input, &inclusive, &exclusive);
    }
}
