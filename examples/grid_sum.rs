//! A sum in one launch whose two phases are separated by a grid sync,
//! beside the same sum in two launches. The one-launch kernel is declared
//! `#[kernel(cooperative)]`: coop_host launches it with every block on the
//! device at once, as its grid sync needs, and the grid is sized with
//! `max_cooperative_blocks`, the most blocks that fit. Runs on the GPU
//! when there is one, else on coop's CPU backend (which emulates one
//! multiprocessor: `Cpu::with_limits` emulates more).
//!
//! Run: `cargo run --release --example grid_sum` (add `-- --cpu` to force
//! the CPU backend)

use coop_examples::kernels::grid_sync::{sum_one_launch, sum_partials, sum_partials_finish};
use coop_examples::{device_from_args, PTX};
use coop_host::{Device, LaunchConfig};

const THREADS: u32 = 256;

fn main() {
    let device = device_from_args();
    if let Err(e) = run(&device) {
        eprintln!("grid_sum: {e}");
        std::process::exit(1);
    }
}

fn run(device: &Device) -> Result<(), Box<dyn std::error::Error>> {
    let program = device.load(&PTX)?;
    let n = 1 << 20;
    // Small integers: every partial order of the f32 additions is exact.
    let input: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let expected: f64 = input.iter().map(|&x| x as f64).sum();
    let blocks = program.max_cooperative_blocks(sum_one_launch, THREADS, 0)?;
    println!(
        "grid_sum on {}: {n} elements, {blocks} blocks x {THREADS} threads (the most that fit at once)",
        device.describe()
    );
    let d_in = device.upload(&input)?;
    let mut partial = device.zeros::<f32>(blocks as usize)?;
    let mut total = device.zeros::<f32>(1)?;
    let config = LaunchConfig::new(blocks, THREADS);

    program.launch(sum_one_launch, config, (&d_in, &mut partial, &mut total))?;
    let one = device.download(&total)?[0];
    println!("grid_sum [one launch, grid sync]: {one}");

    let mut total2 = device.zeros::<f32>(1)?;
    program.launch(sum_partials, config, (&d_in, &mut partial))?;
    program.launch(
        sum_partials_finish,
        LaunchConfig::new(1, THREADS),
        (&partial, &mut total2),
    )?;
    let two = device.download(&total2)?[0];
    println!("grid_sum [two launches]:          {two}");

    // A grid one block larger than fits is refused before any launch.
    let too_big = LaunchConfig::new(blocks + 1, THREADS);
    let mut partial = device.zeros::<f32>(blocks as usize + 1)?;
    match program.launch(sum_one_launch, too_big, (&d_in, &mut partial, &mut total)) {
        Err(e) => println!("grid_sum [{} blocks]: refused: {e}", blocks + 1),
        Ok(()) => return Err("a grid larger than the device holds was launched".into()),
    }
    if one as f64 != expected || two as f64 != expected {
        return Err(format!("expected {expected}, got {one} and {two}").into());
    }
    println!("grid_sum: OK");
    Ok(())
}
