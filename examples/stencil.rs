//! The smoothing-stencil tutorial's 3-point stencil over 10 million
//! floats: host, global-memory and shared-memory (with halo cells)
//! versions, each checked against the host with the tutorial's relative
//! error. Runs on the GPU when there is one (with kernel timings), else on
//! coop's CPU backend (over 100,000 floats).
//!
//! Run: `cargo run --release --example stencil` (add `-- --cpu` to force
//! the CPU backend, `-- --quick` for the small input without timings)

use coop_examples::checks::stencil::{run_stencil, stencil_input};
use coop_examples::{device_from_args, PTX};
use coop_host::Device;

fn main() {
    let device = device_from_args();
    if let Err(e) = run(&device) {
        eprintln!("stencil: {e}");
        std::process::exit(1);
    }
}

fn run(device: &Device) -> Result<(), Box<dyn std::error::Error>> {
    let program = device.load(&PTX)?;
    let n = match device {
        Device::Gpu(_) if !coop_examples::quick() => 10_000_000,
        _ => 100_000,
    };
    println!("stencil on {}: {n} floats", device.describe());
    let a = stencil_input(n);
    for v in run_stencil(device, &program, &a)? {
        let time = v
            .time
            .map(|t| format!("{:9.3} ms", t.as_secs_f64() * 1e3))
            .unwrap_or_else(|| "        -".into());
        println!(
            "stencil [{:>13}]: {time}, relative error {:.3e}",
            v.name, v.error
        );
        if v.error > 1e-6 {
            return Err(format!("{} differs from the host version", v.name).into());
        }
    }
    println!("stencil: OK");
    Ok(())
}
