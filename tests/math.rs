//! `coop::math` on the CPU backend: every function's error over dense
//! samples against the documented bound (the GPU suite measures the same
//! on the GPU and checks the accurate functions give the same bits).

use coop_host::Device;
use coop_tests::{math_cases, TEST_KERNELS_PTX};

#[test]
fn every_math_function_is_within_its_documented_bound() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let measured = math_cases::measure(&device, &program, 1 << 14);
    math_cases::print(&device, &measured);
    let over: Vec<String> = measured
        .iter()
        .filter(|a| {
            a.max_ulps > math_cases::bound(a.flavour, a.name)
                || a.max_abs > math_cases::fast_abs_bound(a.name)
        })
        .map(|a| format!("{} {}: {} ulp", a.flavour, a.name, a.max_ulps))
        .collect();
    assert!(over.is_empty(), "over the bound: {over:#?}");
}
