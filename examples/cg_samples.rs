//! NVIDIA's small cooperative-groups samples in coop:
//! `warpAggregatedAtomicsCG` (its filter, buckets and per-bucket maxima),
//! `binaryPartitionCG`, `reductionMultiBlockCG`, `shfl_scan`'s simple
//! scan, the cooperative-groups kernels of `reduction` (6, 8 and 9) and
//! `simpleCooperativeGroups`, each run once at the sample's size on the GPU
//! when there is one (smaller on coop's CPU backend) and checked against
//! the host, as the samples check themselves.
//!
//! Run: `cargo run --release --example cg_samples` (add `-- --cpu` to force
//! the CPU backend, `-- --quick` for the small sizes on a GPU)

use coop_examples::checks::cg_samples::{Kernel, Samples, Sizes};
use coop_examples::{device_from_args, PTX};
use coop_host::Device;

fn main() {
    let device = device_from_args();
    if let Err(e) = run(&device) {
        eprintln!("cg_samples: {e}");
        std::process::exit(1);
    }
}

fn run(device: &Device) -> Result<(), Box<dyn std::error::Error>> {
    let program = device.load(&PTX)?;
    let sizes = match device {
        // `--quick` (for compute-sanitizer): the CPU backend's sizes.
        Device::Gpu(_) if coop_examples::quick() => Sizes::SMALL,
        Device::Gpu(_) => Sizes::SAMPLES,
        Device::Cpu(_) => Sizes::SMALL,
    };
    println!("cg_samples on {}: {sizes:?}", device.describe());
    let mut samples = Samples::new(device, sizes)?;
    let shapes = Samples::shapes(&program, 0)?;
    let mut failed = false;
    for kernel in Kernel::ALL {
        samples.reset(device, kernel)?;
        let (_, took) = device.time(|| samples.launch(&program, kernel, &shapes, 0))?;
        let verdict = match samples.check(device, kernel) {
            Ok(()) => "PASS".to_string(),
            Err(e) => {
                failed = true;
                format!("FAIL: {e}")
            }
        };
        println!(
            "{:<52} {:>9.3} ms  {verdict}",
            kernel.name(),
            took.as_secs_f64() * 1e3
        );
    }
    if failed {
        return Err("a sample's result differs from the host's".into());
    }
    Ok(())
}
