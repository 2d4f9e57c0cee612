//! NVIDIA's integral-image kernels (the `shfl_scan` sample) against
//! coop's port (`examples/kernels/src/integral_image.rs`): the CUDA C++
//! kernels (`examples/bench/integral_image.cu`, compiled by nvcc to PTX and
//! named by `COOP_CUDA_PTX`) and coop's, on the sample's 1920 x 1080 image,
//! each pass timed on its own between events, the sides in turns, 15 runs
//! a pass after a warm-up; a run of the row pass (about 10 µs) is 20
//! launches back to back, its time divided by 20, so that the events' own
//! cost and jitter do not swamp it (the pass rewrites the table's rows
//! from the image each time); the column pass works in place and runs
//! once. Every side's final table is checked against the host's. `COOP_PORT_PTX` replaces coop's PTX with a file (for variants).
//! Needs a GPU; `examples/bench/integral_image.sh` builds the CUDA
//! side and runs it. Prints CSV rows:
//!
//! ```text
//! integral,<impl>,<pass>,<median ms>,<min ms>,<coop / cuda>
//! ```

use coop_examples::checks::integral_image::{first_difference, image, Integral};
use coop_examples::kernels::integral_image::{integral_columns, integral_rows, HEIGHT, WIDTH};
use coop_host::{Device, Gpu, Program, Timer};

const RUNS: usize = 15;
/// Launches of the row pass in one timed run.
const ROW_LAUNCHES: usize = 20;

fn main() {
    if !Gpu::driver_present() {
        eprintln!("integral_image_bench needs an NVIDIA GPU");
        std::process::exit(2);
    }
    let gpu = Gpu::new(0).expect("a GPU");
    let device = Device::Gpu(gpu.clone());
    let (coop, cuda) = coop_examples::bench_programs(&gpu, "integral_image.cu");
    println!(
        "# {} ({} SMs)",
        gpu.limits().name,
        gpu.limits().multiprocessors
    );
    let pixels = image(WIDTH, HEIGHT);
    let mut sides: Vec<(&str, &Program, Integral)> = vec![(
        "coop",
        &coop,
        Integral::new(&device, &pixels, WIDTH, HEIGHT).unwrap(),
    )];
    if let Some(cuda) = &cuda {
        sides.push((
            "cuda",
            cuda,
            Integral::new(&device, &pixels, WIDTH, HEIGHT).unwrap(),
        ));
    }
    let mut timer = Timer::new(&gpu).unwrap();
    // times[side][pass]
    let mut times = vec![[Vec::new(), Vec::new()]; sides.len()];
    for round in 0..=RUNS {
        for k in 0..sides.len() {
            let s = (round + k) % sides.len();
            let (_, program, integral) = &mut sides[s];
            let (width, height) = (integral.width as u32, integral.height as u32);
            timer.start().unwrap();
            for _ in 0..ROW_LAUNCHES {
                program
                    .launch(
                        integral_rows,
                        integral.rows_config(),
                        (&integral.image, &mut integral.table),
                    )
                    .unwrap();
            }
            let rows = timer.stop().unwrap().as_secs_f64() * 1e3 / ROW_LAUNCHES as f64;
            timer.start().unwrap();
            program
                .launch(
                    integral_columns,
                    integral.columns_config(),
                    (&mut integral.table, width, height),
                )
                .unwrap();
            let columns = timer.stop().unwrap().as_secs_f64() * 1e3;
            if round > 0 {
                times[s][0].push(rows);
                times[s][1].push(columns);
            }
        }
    }
    let stats = |t: &[f64]| {
        let mut t = t.to_vec();
        t.sort_by(f64::total_cmp);
        (t[t.len() / 2], t[0])
    };
    println!("row,impl,pass,median_ms,min_ms,coop_over_cuda");
    for (s, (name, _, integral)) in sides.iter().enumerate() {
        let table = device.download(&integral.table).unwrap();
        if let Some((y, x, got, want)) = first_difference(&table, &pixels, WIDTH, HEIGHT) {
            panic!("{name}: the sum at row {y}, column {x} is {got}, the host's {want}");
        }
        for (p, pass) in ["rows", "columns"].iter().enumerate() {
            let (median, min) = stats(&times[s][p]);
            let ratio = if sides.len() > 1 {
                format!("{:.3}", stats(&times[0][p]).0 / stats(&times[1][p]).0)
            } else {
                String::new()
            };
            println!("integral,{name},{pass},{median:.4},{min:.4},{ratio}");
        }
    }
}
