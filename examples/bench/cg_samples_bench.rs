//! NVIDIA's small cooperative-groups samples against coop's ports
//! (`examples/kernels/src/cg_samples.rs`): the kernels of
//! `warpAggregatedAtomicsCG`, `binaryPartitionCG`, `reductionMultiBlockCG`,
//! `shfl_scan`'s simple scan, `reduction` (kernels 6, 8, 9) and
//! `simpleCooperativeGroups` as CUDA C++ (`examples/bench/cg_samples.cu`,
//! compiled by nvcc to PTX and named by `COOP_CUDA_PTX`) and as coop's, at
//! the samples' sizes, on the same launch shapes (coop's occupancy choice
//! for the binary partition; for the reduction each side's own
//! co-resident grid, with coop's kernel also held to two blocks a
//! multiprocessor, the CUDA sample's grid), timed between events, the sides in turns, 15
//! samples a kernel after a warm-up, the counters reset before each; a
//! sample of a kernel of a few microseconds is 20 launches back to back
//! (`Kernel::launches_a_sample`), its time divided by 20, so that the
//! events' own cost and jitter do not swamp it. After the timing, each
//! side resets and launches each kernel once more and checks the results
//! against the host's. Needs a GPU;
//! `examples/bench/cg_samples.sh` builds the CUDA side and runs it. Prints
//! CSV rows:
//!
//! ```text
//! sample,<kernel>,<impl>,<median ms>,<min ms>,<coop / cuda>
//! ```

use coop_examples::checks::cg_samples::{Kernel, Samples, Shapes, Sizes, REDUCE_THREADS};
use coop_examples::kernels::cg_samples::reduce_single_pass;
use coop_host::{Device, Gpu, Program, Timer};

const RUNS: usize = 15;

/// The kernel side `side` runs for `kernel`: the CUDA twin (side 1) has
/// one reduction kernel for both reduction rows.
fn on_side(kernel: Kernel, side: usize) -> Kernel {
    if side == 1 && kernel == Kernel::ReduceDense {
        Kernel::Reduce
    } else {
        kernel
    }
}

fn main() {
    if !Gpu::driver_present() {
        eprintln!("cg_samples_bench needs an NVIDIA GPU");
        std::process::exit(2);
    }
    let gpu = Gpu::new(0).expect("a GPU");
    let device = Device::Gpu(gpu.clone());
    let (coop, cuda) = coop_examples::bench_programs(&gpu, "cg_samples.cu");
    println!(
        "# {} ({} SMs)",
        gpu.limits().name,
        gpu.limits().multiprocessors
    );
    // The CUDA reduction keeps a `double` a thread in dynamic shared memory.
    let cuda_shared = 8 * REDUCE_THREADS;
    let mut sides: Vec<(&str, &Program, u32, Samples)> = vec![(
        "coop",
        &coop,
        0,
        Samples::new(&device, Sizes::SAMPLES).unwrap(),
    )];
    if let Some(cuda) = &cuda {
        sides.push((
            "cuda",
            cuda,
            cuda_shared,
            Samples::new(&device, Sizes::SAMPLES).unwrap(),
        ));
    }
    // Both sides take coop's occupancy choice for the binary partition;
    // the reductions run each side's own co-resident grid. The CUDA twin
    // has one reduction kernel, which runs both reduction rows.
    let own = Samples::shapes(&coop, 0).unwrap();
    let mut side_shapes = vec![own];
    if let Some(cuda) = &cuda {
        let blocks = cuda
            .max_cooperative_blocks(reduce_single_pass, REDUCE_THREADS, cuda_shared)
            .unwrap()
            .min(1024);
        side_shapes.push(Shapes {
            odd_even: own.odd_even,
            reduce_blocks: blocks,
            dense_blocks: blocks,
        });
    }
    println!(
        "# binary partition: {} blocks of {}; reduction grids (blocks of {REDUCE_THREADS}): {:?}",
        own.odd_even.grid.x,
        own.odd_even.block.x,
        side_shapes
            .iter()
            .map(|s| (s.reduce_blocks, s.dense_blocks))
            .collect::<Vec<_>>()
    );
    let mut timer = Timer::new(&gpu).unwrap();
    println!("row,kernel,impl,median_ms,min_ms,coop_over_cuda");
    for kernel in Kernel::ALL {
        let mut times = vec![Vec::new(); sides.len()];
        for round in 0..=RUNS {
            for k in 0..sides.len() {
                let s = (round + k) % sides.len();
                let (_, program, shared, samples) = &mut sides[s];
                let kernel = on_side(kernel, s);
                samples.reset(&device, kernel).unwrap();
                let launches = kernel.launches_a_sample();
                timer.start().unwrap();
                for _ in 0..launches {
                    samples
                        .launch(program, kernel, &side_shapes[s], *shared)
                        .unwrap();
                }
                let t = timer.stop().unwrap().as_secs_f64() * 1e3 / launches as f64;
                if round > 0 {
                    times[s].push(t);
                }
            }
        }
        let stats = |t: &[f64]| {
            let mut t = t.to_vec();
            t.sort_by(f64::total_cmp);
            (t[t.len() / 2], t[0])
        };
        let compared = sides.len() > 1;
        for (s, (name, program, shared, samples)) in sides.iter_mut().enumerate() {
            let runs = on_side(kernel, s);
            samples.reset(&device, runs).unwrap();
            samples
                .launch(program, runs, &side_shapes[s], *shared)
                .unwrap();
            if let Err(e) = samples.check(&device, runs) {
                panic!("{name}, {}: {e}", kernel.name());
            }
            let (median, min) = stats(&times[s]);
            let ratio = if compared {
                format!("{:.3}", stats(&times[0]).0 / stats(&times[1]).0)
            } else {
                String::new()
            };
            println!(
                "sample,{},{name},{median:.4},{min:.4},{ratio}",
                kernel.name()
            );
        }
    }
}
