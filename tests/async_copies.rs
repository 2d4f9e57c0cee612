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
