//! Segmented reductions on the CPU backend (the GPU runs the same checks
//! in `gpu.rs`).

use coop_host::{Device, ProgramRef};
use coop_tests::segmented_cases::check_all;

#[test]
fn segmented_reductions_match_host_references() {
    let runs = check_all(&Device::cpu(), ProgramRef::Cpu);
    eprintln!("{runs} segmented reductions checked on the CPU backend");
}
