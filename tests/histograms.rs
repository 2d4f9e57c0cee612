//! Histograms on the CPU backend (the GPU runs the same checks in
//! `gpu.rs`).

use coop_host::Device;
use coop_tests::histogram_cases::check_all;

#[test]
fn histograms_match_host_references() {
    let runs = check_all(&Device::cpu(), false);
    eprintln!("{runs} histograms checked on the CPU backend");
}
