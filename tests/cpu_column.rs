//! The CPU column of the differential suite, without a GPU: every case run
//! on coop's CPU backend must hash to what coop's kernels produced on a GPU
//! (`golden/gpu-outputs.tsv`, recorded by `gpu.rs`, where the same outputs
//! were also compared with CUDA's cooperative groups).

use coop_host::{Cpu, Device};
use coop_tests::differential::{cases, fnv1a, parse_golden, Target};

#[test]
fn the_cpu_backend_reproduces_the_gpu_outputs_bit_for_bit() {
    let golden = parse_golden(include_str!("golden/gpu-outputs.tsv"));
    let cases = cases();
    let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    let recorded: Vec<&str> = golden.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names, recorded,
        "tests/golden/gpu-outputs.tsv does not list the suite's cases: regenerate it on a GPU"
    );
    let cpu = Cpu::new();
    let mut differ = Vec::new();
    let mut values = 0;
    for (case, (_, hash)) in cases.iter().zip(&golden) {
        let out = case
            .run(&Target::Cpu(&cpu))
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        values += out.len();
        if fnv1a(&out) != *hash {
            differ.push(case.name.clone());
        }
    }
    eprintln!(
        "CPU backend: {} cases, {values} words, {} differ from the GPU",
        cases.len(),
        differ.len()
    );
    assert!(
        differ.is_empty(),
        "the CPU backend differs from the GPU in {differ:?}"
    );
}

#[test]
fn the_examples_reproduce_their_host_references_on_the_cpu() {
    coop_tests::check_examples(&Device::cpu());
}
