//! The seed dot product: N = 33 × 1024, 256 threads per block, at most 32
//! blocks; checked against the closed form `2 * sum(i^2)`.
//!
//! Run: `cargo run --release --example dot`

use coop_examples::{
    dot_blocks, dot_closed_form, dot_inputs, kernels, DOT_N, DOT_THREADS_PER_BLOCK, PTX,
};
use coop_host::{Gpu, LaunchConfig};

fn main() {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("dot: not run: {e}");
            println!("dot: this example needs an NVIDIA GPU until coop's CPU backend lands");
            return;
        }
    };
    if let Err(e) = run(&gpu) {
        eprintln!("dot: {e}");
        std::process::exit(1);
    }
}

fn run(gpu: &Gpu) -> Result<(), Box<dyn std::error::Error>> {
    let module = gpu.load(&PTX)?;
    let (a, b) = dot_inputs(DOT_N);
    let blocks = dot_blocks(DOT_N);
    let warps = (blocks * DOT_THREADS_PER_BLOCK / 32) as usize;

    let a_dev = gpu.upload(&a)?;
    let b_dev = gpu.upload(&b)?;
    let mut partial = gpu.zeros::<f32>(warps)?;
    module.launch(
        kernels::dot::dot,
        LaunchConfig::new(blocks, DOT_THREADS_PER_BLOCK),
        (&a_dev, &b_dev, &mut partial),
    )?;
    let partial = gpu.download(&partial)?;
    let c: f64 = partial.iter().map(|&p| p as f64).sum();

    let expected = dot_closed_form(DOT_N);
    let relative_error = ((c - expected) / expected).abs();
    println!(
        "dot on {} (sm_{}, PTX sm_{}): N = {DOT_N}, {blocks} blocks x {DOT_THREADS_PER_BLOCK} threads",
        gpu.limits().name,
        gpu.limits().sm,
        module.sm()
    );
    println!("dot: GPU {c:.6e}, closed form 2*sum(i^2) = {expected:.6e}, relative error {relative_error:.2e}");
    // Each thread sums ~4 products in f32, then 5 shuffle steps: the
    // relative error of f32 accumulation stays far below 1e-5 here.
    if relative_error > 1e-5 {
        return Err(format!("dot: result off by {relative_error:.2e} (allowed 1e-5)").into());
    }
    println!("dot: OK");
    Ok(())
}
