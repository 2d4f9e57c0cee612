//! The CPU column of the differential suite, without a GPU: every case run
//! on coop's CPU backend must hash to what coop's kernels produced on a GPU
//! (`golden/gpu-outputs.tsv`, recorded by `gpu.rs`, where the same outputs
//! were also compared with CUDA's cooperative groups).

use coop_host::{Cpu, Device, LaunchConfig};
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
    use coop_examples::{
        dot_blocks, dot_closed_form, dot_inputs, kernels as ex, tile_tour_reference, DOT_N,
        DOT_THREADS_PER_BLOCK,
    };
    let device = Device::cpu();
    let program = device.load(&coop_examples::PTX).unwrap();
    let (a, b) = dot_inputs(DOT_N);
    let blocks = dot_blocks(DOT_N);
    let (a, b) = (device.upload(&a).unwrap(), device.upload(&b).unwrap());
    let mut partial = device
        .zeros::<f32>((blocks * DOT_THREADS_PER_BLOCK / 32) as usize)
        .unwrap();
    program
        .launch(
            ex::dot::dot,
            LaunchConfig::new(blocks, DOT_THREADS_PER_BLOCK),
            (&a, &b, &mut partial),
        )
        .unwrap();
    let c: f64 = device
        .download(&partial)
        .unwrap()
        .iter()
        .map(|&p| p as f64)
        .sum();
    let expected = dot_closed_form(DOT_N);
    assert!(
        ((c - expected) / expected).abs() < 1e-5,
        "dot {c} vs {expected}"
    );

    let input: Vec<u32> = (0..256u32)
        .map(|i| {
            if i % 64 == 7 {
                5_000_000
            } else {
                (i * 7919) % 13
            }
        })
        .collect();
    let input = device.upload(&input).unwrap();
    let host_input = device.download(&input).unwrap();
    for n in [4u32, 16, 32] {
        let mut out = device.zeros::<u32>(256 * ex::tiles::FIELDS).unwrap();
        let cfg = LaunchConfig::new(2, 128);
        match n {
            4 => program.launch(ex::tiles::tile_tour_4, cfg, (&input, &mut out)),
            16 => program.launch(ex::tiles::tile_tour_16, cfg, (&input, &mut out)),
            _ => program.launch(ex::tiles::tile_tour_32, cfg, (&input, &mut out)),
        }
        .unwrap();
        assert_eq!(
            device.download(&out).unwrap(),
            tile_tour_reference(n, &host_input),
            "tile tour {n}"
        );
    }
}
