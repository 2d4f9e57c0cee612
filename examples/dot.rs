//! The dot product of the shared-memory dot product tutorial: N = 33 ×
//! 1024, 256 threads per block, at most 32 blocks; checked against the
//! closed form `2 * sum(i^2)`. Three versions of the block's reduction:
//! warp shuffles, the tutorial's shared-memory tree, and `reduce`. Runs on
//! the GPU when there is one, else on coop's CPU backend.
//!
//! Run: `cargo run --release --example dot` (add `-- --cpu` to force the
//! CPU backend)

use coop_examples::checks::dot::run_dot_versions;
use coop_examples::{
    device_from_args, dot_blocks, dot_closed_form, DOT_N, DOT_THREADS_PER_BLOCK, PTX,
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
    let blocks = dot_blocks(DOT_N);
    let expected = dot_closed_form(DOT_N);
    println!(
        "dot on {}: N = {DOT_N}, {blocks} blocks x {DOT_THREADS_PER_BLOCK} threads; closed form 2*sum(i^2) = {expected:.6e}",
        device.describe(),
    );
    let mut worst = 0.0f64;
    for v in run_dot_versions(device, &program)? {
        let relative_error = ((v.result - expected) / expected).abs();
        worst = worst.max(relative_error);
        let time = v
            .time
            .map(|t| format!(", kernel {:.2} us", t.as_secs_f64() * 1e6))
            .unwrap_or_default();
        println!(
            "dot [{:>18}]: {:.6e}, relative error {relative_error:.2e}{time}",
            v.name, v.result
        );
    }
    // Each thread sums ~4 products in f32, then at most 8 tree steps: the
    // relative error of f32 accumulation stays far below 1e-5 here.
    if worst > 1e-5 {
        return Err(format!("dot: a result is off by {worst:.2e} (allowed 1e-5)").into());
    }
    println!("dot: OK");
    Ok(())
}
