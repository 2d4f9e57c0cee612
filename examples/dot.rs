//! The seed dot product: N = 33 × 1024, 256 threads per block, at most 32
//! blocks; checked against the closed form `2 * sum(i^2)`. Runs on the GPU
//! when there is one, else on coop's CPU backend.
//!
//! Run: `cargo run --release --example dot` (add `-- --cpu` to force the
//! CPU backend)

use coop_examples::{
    device_from_args, dot_blocks, dot_closed_form, run_dot, DOT_N, DOT_THREADS_PER_BLOCK, PTX,
};
use coop_host::Device;

fn main() {
    let device = device_from_args();
    if let Err(e) = run(&device) {
        eprintln!("dot: {e}");
        std::process::exit(1);
    }
}

fn run(device: &Device) -> Result<(), Box<dyn std::error::Error>> {
    let program = device.load(&PTX)?;
    let start = std::time::Instant::now();
    let c = run_dot(device, &program)?;
    let elapsed = start.elapsed();
    let blocks = dot_blocks(DOT_N);
    let expected = dot_closed_form(DOT_N);
    let relative_error = ((c - expected) / expected).abs();
    println!(
        "dot on {}: N = {DOT_N}, {blocks} blocks x {DOT_THREADS_PER_BLOCK} threads, {:.1} ms including copies",
        device.describe(),
        elapsed.as_secs_f64() * 1e3
    );
    println!("dot: result {c:.6e}, closed form 2*sum(i^2) = {expected:.6e}, relative error {relative_error:.2e}");
    // Each thread sums ~4 products in f32, then 5 shuffle steps: the
    // relative error of f32 accumulation stays far below 1e-5 here.
    if relative_error > 1e-5 {
        return Err(format!("dot: result off by {relative_error:.2e} (allowed 1e-5)").into());
    }
    println!("dot: OK");
    Ok(())
}
