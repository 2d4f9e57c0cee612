//! A histogram of 65 536 bins: 256 KiB of counts, more than one block's
//! shared memory holds (227 KiB at most on an H100), spread over the 8
//! blocks of a cluster, 32 KiB each, through distributed shared memory;
//! beside the same histogram counted straight into global memory. Runs on
//! the GPU when there is one (clusters need sm_90), else on coop's CPU
//! backend.
//!
//! Run: `cargo run --release --example cluster_histogram` (add `-- --cpu`
//! to force the CPU backend)

use coop_examples::kernels::wide_histogram::{wide_histogram_cluster, wide_histogram_global};
use coop_examples::{device_from_args, PTX};
use coop_host::{Device, LaunchConfig};

const BINS: u32 = 1 << 16;
const CLUSTER: u32 = 8;
const THREADS: u32 = 256;

fn main() {
    let device = device_from_args();
    if let Err(e) = run(&device) {
        eprintln!("cluster_histogram: {e}");
        std::process::exit(1);
    }
}

fn run(device: &Device) -> Result<(), Box<dyn std::error::Error>> {
    let program = device.load(&PTX)?;
    let n = match device {
        Device::Gpu(_) => 1 << 24,
        Device::Cpu(_) => 1 << 16,
    };
    let keys: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761).rotate_left(7))
        .collect();
    let mut expected = vec![0u32; BINS as usize];
    for &k in &keys {
        expected[(k % BINS) as usize] += 1;
    }
    println!(
        "cluster_histogram on {}: {n} keys into {BINS} bins ({} KiB), clusters of {CLUSTER} blocks of {} KiB each",
        device.describe(),
        BINS * 4 / 1024,
        BINS / CLUSTER * 4 / 1024
    );
    let d_keys = device.upload(&keys)?;
    let blocks = 16 * CLUSTER;
    let mut bins = device.zeros::<u32>(BINS as usize)?;
    program.launch(
        wide_histogram_cluster,
        LaunchConfig::new(blocks, THREADS)
            .with_cluster(CLUSTER)
            .with_shared_memory(BINS / CLUSTER * 4),
        (&d_keys, &mut bins),
    )?;
    let clustered = device.download(&bins)?;
    let mut bins = device.zeros::<u32>(BINS as usize)?;
    program.launch(
        wide_histogram_global,
        LaunchConfig::new(blocks, THREADS),
        (&d_keys, &mut bins),
    )?;
    let global = device.download(&bins)?;
    for (name, got) in [("cluster", &clustered), ("global", &global)] {
        let ok = *got == expected;
        println!(
            "cluster_histogram [{name:>7}]: {}",
            if ok { "matches the host" } else { "DIFFERS" }
        );
        if !ok {
            return Err(format!("the {name} histogram differs from the host's").into());
        }
    }
    println!("cluster_histogram: OK");
    Ok(())
}
