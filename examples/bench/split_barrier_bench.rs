//! A split barrier against a whole one (`examples/kernels/src/split_barrier.rs`):
//! coop's kernels beside their CUDA C++ twins (`examples/bench/split_barrier.cu`,
//! compiled by nvcc to PTX and named by `COOP_CUDA_PTX`), timed in turns in
//! one process, every output checked against the twin's. Needs a GPU;
//! `examples/bench/split_barrier.sh` builds the CUDA side and runs it.
//! Prints CSV rows:
//!
//! ```text
//! rounds,<impl>,<kernel>,<blocks>,<threads>,<rounds>,<median µs>,<ns per round>
//! ```

use coop_examples::kernels::split_barrier::{rounds_split, rounds_sync};
use coop_examples::{time_gpu_interleaved, PTX};
use coop_host::{Gpu, LaunchConfig, Module};

const ROUNDS: u32 = 200;
const RUNS: usize = 21;

fn main() {
    if !Gpu::driver_present() {
        eprintln!("split_barrier_bench needs an NVIDIA GPU");
        std::process::exit(2);
    }
    let gpu = Gpu::new(0).expect("a GPU");
    let coop = gpu.load(&PTX).expect("coop's example kernels");
    let mut sides: Vec<(&str, Module)> = vec![("coop", coop)];
    if let Ok(path) = std::env::var("COOP_CUDA_PTX") {
        let text = std::fs::read_to_string(&path).expect("the CUDA twins' PTX");
        sides.push((
            "cuda",
            gpu.load_ptx("split_barrier.cu", &text).expect("it loads"),
        ));
    }
    println!(
        "# {} ({} SMs)",
        gpu.limits().name,
        gpu.limits().multiprocessors
    );
    println!("row,impl,kernel,blocks,threads,rounds,median_us,ns_per_round");
    let median = |mut v: Vec<f32>| {
        v.sort_by(f32::total_cmp);
        v[v.len() / 2] as f64 * 1e3
    };
    let blocks = 2 * gpu.limits().multiprocessors;
    for threads in [128u32, 256, 512, 1024] {
        let n = (blocks * threads) as usize;
        let mut outs: Vec<_> = (0..4).map(|_| gpu.zeros::<u32>(n).unwrap()).collect();
        let cfg = LaunchConfig::new(blocks, threads);
        let names = ["rounds_split", "rounds_sync"];
        let mut times = Vec::new();
        {
            let mut fns: Vec<Box<dyn FnMut()>> = Vec::new();
            for (k, out) in outs.iter_mut().enumerate() {
                let (side, kernel) = (k / 2, k % 2);
                if side >= sides.len() {
                    continue;
                }
                let m = &sides[side].1;
                fns.push(Box::new(move || {
                    if kernel == 0 {
                        m.launch(rounds_split, cfg, (ROUNDS, &mut *out)).unwrap();
                    } else {
                        m.launch(rounds_sync, cfg, (ROUNDS, &mut *out)).unwrap();
                    }
                }));
            }
            let mut refs: Vec<&mut dyn FnMut()> = fns
                .iter_mut()
                .map(|f| &mut **f as &mut dyn FnMut())
                .collect();
            for t in time_gpu_interleaved(&gpu, RUNS, &mut refs, &mut || ()) {
                times.push(median(t));
            }
        }
        let results: Vec<Vec<u32>> = outs
            .iter()
            .take(2 * sides.len())
            .map(|o| gpu.download(o).unwrap())
            .collect();
        assert!(
            results[0] == results[1],
            "coop's split and whole barriers differ"
        );
        if sides.len() > 1 {
            assert!(results[0] == results[2], "coop and CUDA differ");
        }
        for (k, us) in times.iter().enumerate() {
            println!(
                "rounds,{},{},{blocks},{threads},{ROUNDS},{us:.2},{:.1}",
                sides[k / 2].0,
                names[k % 2],
                us * 1e3 / ROUNDS as f64
            );
        }
    }
}
