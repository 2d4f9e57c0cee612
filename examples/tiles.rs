//! Every tile collective on tiles of 4, 16 and 32 threads, checked against a
//! host model of CUDA's definitions. Runs on the GPU when there is one, else
//! on coop's CPU backend.
//!
//! Run: `cargo run --release --example tiles` (add `-- --cpu` to force the
//! CPU backend)

use coop_examples::{device_from_args, run_tile_tour, tile_tour_input, PTX};

fn main() {
    let device = device_from_args();
    if let Err(e) = run(&device) {
        eprintln!("tiles: {e}");
        std::process::exit(1);
    }
}

fn run(device: &coop_host::Device) -> Result<(), Box<dyn std::error::Error>> {
    let program = device.load(&PTX)?;
    let input = tile_tour_input(256);
    println!("tiles on {}", device.describe());
    for n in [4u32, 16, 32] {
        let (got, want) = run_tile_tour(device, &program, n, &input)?;
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
