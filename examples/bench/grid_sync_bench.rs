//! One launch with a grid sync against two launches: the sum of
//! `examples/kernels/src/grid_sum.rs` both ways, coop's kernels beside
//! their CUDA C++ twins (`examples/bench/grid_sync.cu`, compiled by nvcc
//! to PTX and named by `COOP_CUDA_PTX`), timed in turns in one process;
//! and the cost of one grid sync against one empty launch. Needs a GPU;
//! `examples/bench/grid_sync.sh` builds the CUDA side and runs it. Prints
//! CSV rows:
//!
//! ```text
//! sync,<impl>,<blocks>,<threads>,<µs per grid sync>
//! launch,<impl>,<µs per empty launch, 1000 back to back>
//! sum,<impl>,<one|two>,<n>,<blocks>,<median µs>
//! rounds,<impl>,<one|each>,<n>,<rounds>,<blocks>,<median µs>
//! ```
//!
//! `rounds` rows run 100 rounds of the smoothing stencil: in one launch
//! with a grid sync after each round (`one`), or one launch per round
//! (`each`).
//!
//! Every grid is the most blocks of 256 threads the GPU holds at once for
//! the kernel (`max_cooperative_blocks`), the two-launch version's too.

use coop_examples::kernels::grid_sync::{
    grid_syncs, nothing, smooth_round, smooth_rounds, sum_one_launch, sum_partials,
    sum_partials_finish,
};
use coop_examples::{time_gpu_interleaved, PTX};
use coop_host::{Gpu, LaunchConfig, Module};
use std::cell::RefCell;

const THREADS: u32 = 256;
const RUNS: usize = 31;

fn main() {
    if !Gpu::driver_present() {
        eprintln!("grid_sync_bench needs an NVIDIA GPU");
        std::process::exit(2);
    }
    let gpu = Gpu::new(0).expect("a GPU");
    let coop = gpu.load(&PTX).expect("coop's example kernels");
    let mut sides: Vec<(&str, Module)> = vec![("coop", coop)];
    if let Ok(path) = std::env::var("COOP_CUDA_PTX") {
        let text = std::fs::read_to_string(&path).expect("the CUDA twins' PTX");
        sides.push((
            "cuda",
            gpu.load_ptx("grid_sync.cu", &text).expect("it loads"),
        ));
    }
    println!(
        "# {} ({} SMs)",
        gpu.limits().name,
        gpu.limits().multiprocessors
    );
    let median = |mut v: Vec<f32>| {
        v.sort_by(f32::total_cmp);
        v[v.len() / 2] as f64 * 1e3 // µs
    };

    // One grid sync: (1001 syncs - 1 sync) / 1000, in one launch each.
    for (name, m) in &sides {
        let blocks = m.max_cooperative_blocks(grid_syncs, THREADS, 0).unwrap();
        let mut out = gpu.zeros::<u32>(1).unwrap();
        let cfg = LaunchConfig::new(blocks, THREADS);
        let mut t = Vec::new();
        for rounds in [1u32, 1001] {
            let mut f = || m.launch(grid_syncs, cfg, (rounds, &mut out)).unwrap();
            t.push(median(
                time_gpu_interleaved(&gpu, RUNS, &mut [&mut f], &mut || ()).remove(0),
            ));
        }
        println!(
            "sync,{name},{blocks},{THREADS},{:.3}",
            (t[1] - t[0]) / 1000.0
        );
    }
    // One empty launch, 1000 back to back.
    for (name, m) in &sides {
        let mut out = gpu.zeros::<u32>(1).unwrap();
        let blocks = gpu.limits().multiprocessors;
        let mut f = || {
            for _ in 0..1000 {
                m.launch(nothing, LaunchConfig::new(blocks, THREADS), (&mut out,))
                    .unwrap();
            }
        };
        let t = median(time_gpu_interleaved(&gpu, 7, &mut [&mut f], &mut || ()).remove(0));
        println!("launch,{name},{:.3}", t / 1000.0);
    }
    // The sum, one launch and two, every side in turns.
    for log in [10, 14, 18, 22, 26] {
        let n = 1usize << log;
        let input: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
        let expected: f64 = input.iter().map(|&x| x as f64).sum();
        // Exact below 2^24 in f32; the order of additions differs above.
        let close = |got: f64| (got - expected).abs() <= expected * 1e-6;
        let d_in = gpu.upload(&input).unwrap();
        let bufs: Vec<_> = sides
            .iter()
            .map(|(_, m)| {
                let blocks = m
                    .max_cooperative_blocks(sum_one_launch, THREADS, 0)
                    .unwrap();
                (
                    blocks,
                    RefCell::new(gpu.zeros::<f32>(blocks as usize).unwrap()),
                    RefCell::new(gpu.zeros::<f32>(1).unwrap()),
                )
            })
            .collect();
        let mut fs: Vec<Box<dyn FnMut() + '_>> = Vec::new();
        let mut labels = Vec::new();
        for ((name, m), (blocks, partial, total)) in sides.iter().zip(&bufs) {
            let cfg = LaunchConfig::new(*blocks, THREADS);
            let d = &d_in;
            labels.push((*name, "one", *blocks));
            fs.push(Box::new(move || {
                let (mut p, mut t) = (partial.borrow_mut(), total.borrow_mut());
                m.launch(sum_one_launch, cfg, (d, &mut *p, &mut *t))
                    .unwrap();
            }));
            labels.push((*name, "two", *blocks));
            fs.push(Box::new(move || {
                let (mut p, mut t) = (partial.borrow_mut(), total.borrow_mut());
                m.launch(sum_partials, cfg, (d, &mut *p)).unwrap();
                m.launch(
                    sum_partials_finish,
                    LaunchConfig::new(1, THREADS),
                    (&*p, &mut *t),
                )
                .unwrap();
            }));
        }
        let mut refs: Vec<&mut dyn FnMut()> = fs
            .iter_mut()
            .map(|f| &mut **f as &mut dyn FnMut())
            .collect();
        let times = time_gpu_interleaved(&gpu, RUNS, &mut refs, &mut || ());
        drop(refs);
        drop(fs);
        for ((name, variant, blocks), t) in labels.into_iter().zip(times) {
            println!("sum,{name},{variant},{n},{blocks},{:.2}", median(t));
        }
        for (_, _, total) in &bufs {
            let got = gpu.download(&*total.borrow()).unwrap()[0] as f64;
            assert!(close(got), "a sum of {n} elements is {got}, not {expected}");
        }
    }
    // Rounds of the stencil: one launch with grid syncs, or a launch each.
    const ROUNDS: u32 = 100;
    for log in [12, 16, 20, 24] {
        let n = 1usize << log;
        let input: Vec<f32> = (0..n).map(|i| (i % 13) as f32).collect();
        // Per side: its grid, and the buffers of each way.
        let all: Vec<_> = sides
            .iter()
            .map(|(_, m)| {
                let blocks = m.max_cooperative_blocks(smooth_rounds, THREADS, 0).unwrap();
                let buf = |data: &[f32]| RefCell::new(gpu.upload(data).unwrap());
                let zeros = vec![0f32; n];
                (blocks, [buf(&input), buf(&zeros), buf(&input), buf(&zeros)])
            })
            .collect();
        let mut fs: Vec<Box<dyn FnMut() + '_>> = Vec::new();
        let mut labels = Vec::new();
        for ((name, m), (blocks, bufs)) in sides.iter().zip(&all) {
            let cfg = LaunchConfig::new(*blocks, THREADS);
            labels.push((*name, "one", *blocks));
            fs.push(Box::new(move || {
                let (mut a, mut b) = (bufs[0].borrow_mut(), bufs[1].borrow_mut());
                m.launch(smooth_rounds, cfg, (ROUNDS, &mut *a, &mut *b))
                    .unwrap();
            }));
            labels.push((*name, "each", *blocks));
            fs.push(Box::new(move || {
                let (mut a, mut b) = (bufs[2].borrow_mut(), bufs[3].borrow_mut());
                for r in 0..ROUNDS {
                    if r % 2 == 0 {
                        m.launch(smooth_round, cfg, (&*a, &mut *b)).unwrap();
                    } else {
                        m.launch(smooth_round, cfg, (&*b, &mut *a)).unwrap();
                    }
                }
            }));
        }
        let mut refs: Vec<&mut dyn FnMut()> = fs
            .iter_mut()
            .map(|f| &mut **f as &mut dyn FnMut())
            .collect();
        let times = time_gpu_interleaved(&gpu, 11, &mut refs, &mut || ());
        drop(refs);
        drop(fs);
        for ((name, variant, blocks), t) in labels.into_iter().zip(times) {
            println!(
                "rounds,{name},{variant},{n},{ROUNDS},{blocks},{:.2}",
                median(t)
            );
        }
        // Both ways give the same bits (100 rounds end in `a`).
        for ((name, _), (_, bufs)) in sides.iter().zip(&all) {
            let one = gpu.download(&*bufs[0].borrow()).unwrap();
            let each = gpu.download(&*bufs[2].borrow()).unwrap();
            assert!(
                one == each,
                "{name}: the stencil rounds differ between the two ways"
            );
        }
    }
}
