//! Device-wide reductions on the CPU backend (the GPU runs the same checks
//! in `gpu.rs`).

use coop_host::Device;
use coop_tests::device_reduce_cases::check_all;

#[test]
fn device_wide_reductions_match_host_references() {
    let runs = check_all(&Device::cpu(), None);
    eprintln!("{runs} device-wide reductions checked on the CPU backend");
}

#[test]
fn the_one_call_api_reduces_any_buffer() {
    let device = Device::cpu();
    let empty = device.upload::<i32>(&[]).unwrap();
    assert_eq!(coop_host::reduce::sum(&device, &empty).unwrap(), 0);
    assert_eq!(coop_host::reduce::min(&device, &empty).unwrap(), i32::MAX);
    assert_eq!(coop_host::reduce::max(&device, &empty).unwrap(), i32::MIN);
    let one = device.upload(&[42u64]).unwrap();
    assert_eq!(coop_host::reduce::sum(&device, &one).unwrap(), 42);
}
