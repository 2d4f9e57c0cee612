//! NVIDIA's `conjugateGradientMultiBlockCG` sample against coop's port
//! (`examples/kernels/src/conjugate_gradient.rs`): the CUDA C++ kernel
//! (`examples/bench/conjugate_gradient.cu`, compiled by nvcc to PTX and
//! named by `COOP_CUDA_PTX`), coop's kernel with the sample's launch bounds
//! and coop's kernel without them, each solving the sample's system (10 485 760
//! rows) in one cooperative launch, timed in turns between events after
//! the vectors are reset, every solve checked. Each runs on its own grid
//! (the most blocks of 512 that fit at once) and on CUDA's grid. Needs a
//! GPU; `examples/bench/conjugate_gradient.sh` builds the CUDA side and
//! runs it; `COOP_PORT_PTX` replaces coop's PTX with a file (for
//! variants). Prints CSV rows:
//!
//! ```text
//! cg,<impl>,<grid>,<blocks>,<registers>,<iterations>,<median ms>,<µs per iteration>
//! ```

use coop_examples::checks::conjugate_gradient::{outcome, tridiagonal, Solve};
use coop_examples::kernels::conjugate_gradient::{
    conjugate_gradient, conjugate_gradient_unbounded, CG_THREADS,
};
use coop_host::{Device, Gpu, LaunchConfig, Program, Timer};

const ROWS: usize = 10 << 20;
const RUNS: usize = 9;
/// CUDA's dynamic shared memory: a double per warp and one more.
const CUDA_SHARED: u32 = 8 * (CG_THREADS / 32 + 1);

fn main() {
    if !Gpu::driver_present() {
        eprintln!("conjugate_gradient_bench needs an NVIDIA GPU");
        std::process::exit(2);
    }
    let gpu = Gpu::new(0).expect("a GPU");
    let device = Device::Gpu(gpu.clone());
    let (coop, cuda) = coop_examples::bench_programs(&gpu, "conjugate_gradient.cu");
    println!(
        "# {} ({} SMs)",
        gpu.limits().name,
        gpu.limits().multiprocessors
    );
    let a = tridiagonal(ROWS);
    let zeros = vec![0.0f32; ROWS];
    let ones = vec![1.0f32; ROWS];

    // (name, program, which kernel, dynamic shared memory)
    let mut sides: Vec<(&str, &Program, u8, u32)> =
        vec![("coop", &coop, 0, 0), ("coop-unbounded", &coop, 1, 0)];
    if let Some(cuda) = &cuda {
        sides.push(("cuda", cuda, 0, CUDA_SHARED));
    }
    let own_grid = |program: &Program, which: u8, shared: u32| match which {
        0 => program.max_cooperative_blocks(conjugate_gradient, CG_THREADS, shared),
        _ => program.max_cooperative_blocks(conjugate_gradient_unbounded, CG_THREADS, shared),
    };
    let registers = |program: &Program, which: u8| match program {
        Program::Gpu(m) => match which {
            0 => m.kernel_resources(conjugate_gradient).map(|r| r.registers),
            _ => m
                .kernel_resources(conjugate_gradient_unbounded)
                .map(|r| r.registers),
        },
        Program::Cpu(_) => Ok(0),
    };
    let grids: Vec<u32> = sides
        .iter()
        .map(|&(_, p, w, s)| own_grid(p, w, s).unwrap())
        .collect();
    let cuda_grid = if cuda.is_some() { grids[2] } else { grids[0] };
    // Runs: (side, grid label, blocks).
    let mut runs: Vec<(usize, &str, u32)> = Vec::new();
    for (s, &g) in grids.iter().enumerate() {
        runs.push((s, "own", g));
        if g > cuda_grid {
            runs.push((s, "cuda's", cuda_grid));
        }
    }
    let mut solves: Vec<Solve> = runs
        .iter()
        .map(|_| Solve::new(&device, &a).unwrap())
        .collect();
    let mut timer = Timer::new(&gpu).unwrap();
    let mut times = vec![Vec::new(); runs.len()];
    for round in 0..=RUNS {
        for k in 0..runs.len() {
            let r = (round + k) % runs.len();
            let (s, _, blocks) = runs[r];
            let (_, program, which, shared) = sides[s];
            let solve = &mut solves[r];
            solve.reset(&device, &zeros, &ones).unwrap();
            let config = LaunchConfig::new(blocks, CG_THREADS).with_shared_memory(shared);
            timer.start().unwrap();
            match which {
                0 => solve.launch_kernel(program, conjugate_gradient, config),
                _ => solve.launch_kernel(program, conjugate_gradient_unbounded, config),
            }
            .unwrap();
            let t = timer.stop().unwrap().as_secs_f64() * 1e3;
            if round > 0 {
                times[r].push(t);
            }
        }
    }
    println!("row,impl,grid,blocks,registers,iterations,median_ms,us_per_iteration,residual");
    for (r, &(s, grid, blocks)) in runs.iter().enumerate() {
        let (name, program, which, _) = sides[s];
        let o = outcome(&device, &a, &solves[r]).unwrap();
        assert!(
            o.converged(),
            "{name} on {blocks} blocks did not converge: {o:?}"
        );
        let mut t = times[r].clone();
        t.sort_by(f64::total_cmp);
        let median = t[t.len() / 2];
        println!(
            "cg,{name},{grid},{blocks},{},{},{median:.3},{:.2},{:.3e}",
            registers(program, which).unwrap_or(0),
            o.iterations,
            median * 1e3 / o.iterations as f64,
            o.residual
        );
    }
}
