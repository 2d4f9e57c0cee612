//! Matrix transpose through a padded shared tile, against a naive
//! transpose, an unpadded tile, a copy kernel of the same shape and a
//! device-to-device copy: an 8192 x 8192 `f32` matrix on a GPU (with
//! timings and bandwidth), 256 x 192 on the CPU backend.
//!
//! Run: `cargo run --release --example transpose` (add `-- --cpu` to force
//! the CPU backend, `-- --quick` for the small matrix without timings)

use coop_examples::checks::transpose::run_transpose;
use coop_examples::{device_from_args, PTX};
use coop_host::Device;

fn main() {
    let device = device_from_args();
    let result = (|| -> Result<(), Box<dyn std::error::Error>> {
        let program = device.load(&PTX)?;
        let (rows, cols) = match device {
            Device::Gpu(_) if !coop_examples::quick() => (8192, 8192),
            _ => (256, 192),
        };
        println!("transpose on {}: {rows} x {cols} f32", device.describe());
        let bytes = rows * cols * 4;
        let versions = run_transpose(&device, &program, rows, cols)?;
        let copy = versions
            .iter()
            .find(|v| v.name == "cuMemcpyDtoD")
            .and_then(|v| v.gb_per_s(bytes));
        for v in &versions {
            let speed = match (v.time, v.gb_per_s(bytes)) {
                (Some(t), Some(gbs)) => {
                    let share = copy
                        .map(|c| format!(", {:5.1} % of cuMemcpyDtoD", 100.0 * gbs / c))
                        .unwrap_or_default();
                    format!("{:8.1} us, {gbs:7.1} GB/s{share}", t.as_secs_f64() * 1e6)
                }
                _ => String::new(),
            };
            let ok = if v.correct { "OK" } else { "WRONG" };
            println!("{:>17}: {ok:5} {speed}", v.name);
            if !v.correct {
                return Err(format!("{} gave the wrong matrix", v.name).into());
            }
        }
        Ok(())
    })();
    if let Err(e) = result {
        eprintln!("transpose: {e}");
        std::process::exit(1);
    }
}
