//! Every tile collective on tiles of 4, 16 and 32 threads, checked against a
//! host model of CUDA's definitions.
//!
//! Run: `cargo run --release --example tiles`

use coop_examples::{kernels::tiles, tile_tour_reference, PTX};
use coop_host::{Gpu, LaunchConfig};

fn main() {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("tiles: not run: {e}");
            return;
        }
    };
    if let Err(e) = run(&gpu) {
        eprintln!("tiles: {e}");
        std::process::exit(1);
    }
}

fn run(gpu: &Gpu) -> Result<(), Box<dyn std::error::Error>> {
    let module = gpu.load(&PTX)?;
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
    let input_dev = gpu.upload(&input)?;
    for n in [4u32, 16, 32] {
        let mut out = gpu.zeros::<u32>(threads * tiles::FIELDS)?;
        let cfg = LaunchConfig::new(2, threads as u32 / 2);
        match n {
            4 => module.launch(tiles::tile_tour_4, cfg, (&input_dev, &mut out))?,
            16 => module.launch(tiles::tile_tour_16, cfg, (&input_dev, &mut out))?,
            _ => module.launch(tiles::tile_tour_32, cfg, (&input_dev, &mut out))?,
        }
        let got = gpu.download(&out)?;
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
