//! Split barriers on the CPU backend: every case of
//! `coop_tests::split_barrier_cases` against its host reference. The GPU
//! suite (`gpu.rs`) runs the same cases on a GPU, beside CUDA's twins; the
//! rules the CPU backend reports are in `rules.rs`.

use coop_host::Device;
use coop_tests::{split_barrier_cases, TEST_KERNELS_PTX};

#[test]
fn split_barriers_match_the_host_on_the_cpu() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    assert_eq!(
        split_barrier_cases::check_all(&device, &program, true, None),
        18
    );
}
