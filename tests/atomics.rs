//! Atomics on the CPU backend: every operation, type, scope and ordering
//! against the host reference (the GPU runs the same cases in `gpu.rs`).

use coop_host::Device;
use coop_tests::{atomics_cases, TEST_KERNELS_PTX};

#[test]
fn every_atomic_operation_matches_the_host_reference() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let checked = atomics_cases::check_all(&device, &program);
    assert_eq!(checked, 6 * (4 * 3 + 8));
}
