//! NVIDIA's `conjugateGradientMultiBlockCG` sample in coop: a conjugate-
//! gradient solve of a sparse tridiagonal system in one cooperative launch,
//! with grid syncs between its steps. The kernel declares the sample's
//! launch shape (`#[kernel(cooperative, block = 512, min_blocks = 3)]`); the grid is the most blocks of 512 that fit at once, as the
//! sample sizes it. Runs on the GPU when there is one (the sample's 10 485 760
//! rows), else on coop's CPU backend (4096 rows).
//!
//! Run: `cargo run --release --example conjugate_gradient` (add `-- --cpu`
//! to force the CPU backend, `-- --quick` for 65 536 rows on a GPU)

use coop_examples::checks::conjugate_gradient::{outcome, tridiagonal, Solve};
use coop_examples::kernels::conjugate_gradient::{conjugate_gradient, CG_THREADS};
use coop_examples::{device_from_args, PTX};
use coop_host::Device;

fn main() {
    let device = device_from_args();
    if let Err(e) = run(&device) {
        eprintln!("conjugate_gradient: {e}");
        std::process::exit(1);
    }
}

fn run(device: &Device) -> Result<(), Box<dyn std::error::Error>> {
    let program = device.load(&PTX)?;
    let n = match device {
        // `--quick` (for compute-sanitizer): a smaller system.
        Device::Gpu(_) if coop_examples::quick() => 1 << 16,
        Device::Gpu(_) => 10 << 20,
        Device::Cpu(_) => 4096,
    };
    let a = tridiagonal(n);
    let blocks = program.max_cooperative_blocks(conjugate_gradient, CG_THREADS, 0)?;
    println!(
        "conjugate_gradient on {}: {n} rows, {} nonzeros, {blocks} blocks x {CG_THREADS} threads",
        device.describe(),
        a.val.len()
    );
    let mut solve = Solve::new(device, &a)?;
    let (_, took) = device.time(|| solve.launch(&program, blocks))?;
    let o = outcome(device, &a, &solve)?;
    println!(
        "conjugate_gradient: {} iterations in {:.2} ms, residual {:.3e}, largest row error {:.3e}: {}",
        o.iterations,
        took.as_secs_f64() * 1e3,
        o.residual,
        o.max_error,
        if o.converged() { "PASS" } else { "FAIL" }
    );
    if !o.converged() {
        return Err("the solve did not converge".into());
    }
    Ok(())
}
