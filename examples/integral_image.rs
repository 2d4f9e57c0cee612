//! NVIDIA's integral-image sample (`shfl_scan`) in coop: the summed-area
//! table of an 8-bit image, a row pass in blocks of 120 threads (whose
//! last warp has 24: `ragged_partition::<32>()`) and a column pass whose
//! transposition through shared memory costs the sample's three barriers a
//! step. Runs on the GPU when there is one (the sample's 1920 x 1080
//! image), else on coop's CPU backend (1920 x 64), and checks the table
//! against the host's.
//!
//! Run: `cargo run --release --example integral_image` (add `-- --cpu` to
//! force the CPU backend)

use coop_examples::checks::integral_image::{first_difference, image, Integral};
use coop_examples::kernels::integral_image::{HEIGHT, WIDTH};
use coop_examples::{device_from_args, PTX};
use coop_host::Device;

fn main() {
    let device = device_from_args();
    if let Err(e) = run(&device) {
        eprintln!("integral_image: {e}");
        std::process::exit(1);
    }
}

fn run(device: &Device) -> Result<(), Box<dyn std::error::Error>> {
    let program = device.load(&PTX)?;
    let (width, height) = match device {
        Device::Gpu(_) => (WIDTH, HEIGHT),
        Device::Cpu(_) => (WIDTH, 64),
    };
    let pixels = image(width, height);
    let mut integral = Integral::new(device, &pixels, width, height)?;
    let (_, took) = device.time(|| integral.launch(&program))?;
    let table = device.download(&integral.table)?;
    println!(
        "integral_image on {}: {width} x {height} pixels in {:.3} ms, bottom-right sum {}",
        device.describe(),
        took.as_secs_f64() * 1e3,
        table[width * height - 1]
    );
    if let Some((y, x, got, want)) = first_difference(&table, &pixels, width, height) {
        return Err(format!("FAIL: sum at row {y}, column {x} is {got}, the host's {want}").into());
    }
    println!("integral_image: every sum matches the host's: PASS");
    Ok(())
}
