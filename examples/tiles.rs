//! Every tile collective on tiles of 4, 16 and 32 threads, checked against a
//! host model of CUDA's definitions. Runs on the GPU when there is one, else
//! on coop's CPU backend.
//!
//! Run: `cargo run --release --example tiles` (add `-- --cpu` to force the
//! CPU backend)

use coop_examples::{kernels::tiles, tile_tour_reference, PTX};
use coop_host::{Device, LaunchConfig};

fn main() {
    let device = if std::env::args().any(|a| a == "--cpu") {
        Device::cpu()
    } else {
        Device::gpu_or_cpu()
    };
    if let Err(e) = run(&device) {
        eprintln!("tiles: {e}");
        std::process::exit(1);
    }
}

fn run(device: &Device) -> Result<(), Box<dyn std::error::Error>> {
    let program = device.load(&PTX)?;
    let threads = 256usize;
    // A mix of zeros, odd and even values, and one large value per 64 threads.
    let input: Vec<u32> = (0..threads as u32)
        .map(|i| {
            if i % 64 == 7 {
                5_000_000
            } else {
                (i * 7919) % 13
            }
        })
        .collect();
    let input_dev = device.upload(&input)?;
    println!("tiles on {}", device.describe());
    for n in [4u32, 16, 32] {
        let mut out = device.zeros::<u32>(threads * tiles::FIELDS)?;
        let cfg = LaunchConfig::new(2, threads as u32 / 2);
        match n {
            4 => program.launch(tiles::tile_tour_4, cfg, (&input_dev, &mut out))?,
            16 => program.launch(tiles::tile_tour_16, cfg, (&input_dev, &mut out))?,
            _ => program.launch(tiles::tile_tour_32, cfg, (&input_dev, &mut out))?,
        }
        let got = device.download(&out)?;
        let want = tile_tour_reference(n, &input);
        let wrong = got.iter().zip(&want).filter(|(g, w)| g != w).count();
        println!(
            "tiles: N = {n:2}: {} values, {wrong} differ from the reference",
            got.len()
        );
        if wrong > 0 {
            return Err(format!("tile size {n}: {wrong} wrong values").into());
        }
    }
    println!("tiles: OK");
    Ok(())
}
