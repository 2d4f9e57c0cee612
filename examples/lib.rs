//! Shared pieces of coop's examples: the kernels and their PTX, the dot
//! product's and the tile tour's inputs, references and launches, the
//! command-line switches (`--cpu`, `--quick`) and GPU timing. The other
//! examples' inputs, references and checks are in [`checks`].

pub use coop_example_kernels as kernels;

pub mod checks;

/// The PTX of `coop-example-kernels`, for sm_80 and sm_90.
pub static PTX: coop_host::PtxSet = coop_host::include_ptx!("coop-example-kernels");

/// The dot product tutorial's problem size: 33 × 1024 elements.
pub const DOT_N: usize = 33 * 1024;
/// The dot product tutorial's block size.
pub const DOT_THREADS_PER_BLOCK: u32 = 256;

/// The dot product tutorial's grid: enough blocks to cover `n`, at most 32.
pub fn dot_blocks(n: usize) -> u32 {
    (n.div_ceil(DOT_THREADS_PER_BLOCK as usize) as u32).min(32)
}

/// The dot product tutorial's inputs: `a[i] = i`, `b[i] = 2i`.
pub fn dot_inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    let a = (0..n).map(|i| i as f32).collect();
    let b = (0..n).map(|i| 2.0 * i as f32).collect();
    (a, b)
}

/// The closed form of `sum(i * 2i)` for `i < n`: `2 * (n-1) n (2n-1) / 6`.
pub fn dot_closed_form(n: usize) -> f64 {
    let m = n as f64 - 1.0;
    2.0 * m * (m + 1.0) * (2.0 * m + 1.0) / 6.0
}

/// What `tile_tour::<N>` writes for each thread, computed on the host from
/// CUDA's definitions of the tile collectives.
pub fn tile_tour_reference(n: u32, input: &[u32]) -> Vec<u32> {
    let n = n as usize;
    let mut out = vec![0u32; input.len() * kernels::tiles::FIELDS];
    for (t, tile) in input.chunks(n).enumerate() {
        let ballot = |p: &dyn Fn(u32) -> bool| {
            tile.iter()
                .enumerate()
                .filter(|&(_, &v)| p(v))
                .fold(0u32, |m, (r, _)| m | 1 << r)
        };
        for (r, &v) in tile.iter().enumerate() {
            let o = &mut out[(t * n + r) * kernels::tiles::FIELDS..][..kernels::tiles::FIELDS];
            o[0] = tile[0];
            o[1] = if r >= 1 { tile[r - 1] } else { v };
            o[2] = if r + 1 < n { tile[r + 1] } else { v };
            o[3] = tile[r ^ (n / 2)];
            o[4] = ballot(&|x| x % 2 == 1);
            o[5] = tile.contains(&0) as u32 + 2 * tile.iter().all(|&x| x > 0) as u32;
            o[6] = ballot(&|x| x % 4 == v % 4);
            o[7] = if tile.iter().all(|&x| x / 1_000_000 == v / 1_000_000) {
                ballot(&|_| true)
            } else {
                u32::MAX
            };
        }
    }
    out
}

/// Whether `--quick` is on the command line: examples then run their
/// CPU-sized problems and skip timings, for tools that slow every access
/// down (compute-sanitizer, ncu).
pub fn quick() -> bool {
    std::env::args().any(|a| a == "--quick")
}

/// The device the examples run on: the CPU backend with `--cpu` on the
/// command line, else GPU 0 when there is one, else the CPU backend.
pub fn device_from_args() -> coop_host::Device {
    if std::env::args().any(|a| a == "--cpu") {
        coop_host::Device::cpu()
    } else {
        coop_host::Device::gpu_or_cpu()
    }
}

/// The two sides of a benchmark against a CUDA sample on `gpu`: coop's
/// program (the examples' PTX, or the file `COOP_PORT_PTX` names, a variant
/// under study) and the CUDA twin's, when `COOP_CUDA_PTX` names the PTX nvcc
/// made of `cu_file`. Panics with the file at fault: benchmarks are tools.
pub fn bench_programs(
    gpu: &coop_host::Gpu,
    cu_file: &str,
) -> (coop_host::Program, Option<coop_host::Program>) {
    let load = |var: &str, name: &str| {
        std::env::var(var).ok().map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{var}={path} cannot be read: {e}"));
            coop_host::Program::Gpu(
                gpu.load_ptx(name, &text)
                    .unwrap_or_else(|e| panic!("{var}={path} does not load: {e}")),
            )
        })
    };
    let coop = load("COOP_PORT_PTX", "coop variant").unwrap_or_else(|| {
        coop_host::Program::Gpu(gpu.load(&PTX).expect("coop's example kernels"))
    });
    (coop, load("COOP_CUDA_PTX", cu_file))
}

/// The dot product of the shared-memory dot product tutorial on `device`,
/// its block reduction done with warp shuffles ([`kernels::dot::dot`]): the
/// sum of the per-warp partial results, in f64.
pub fn run_dot(
    device: &coop_host::Device,
    program: &coop_host::Program,
) -> Result<f64, coop_host::Error> {
    let (a, b) = dot_inputs(DOT_N);
    let blocks = dot_blocks(DOT_N);
    let warps = (blocks * DOT_THREADS_PER_BLOCK / 32) as usize;
    let a = device.upload(&a)?;
    let b = device.upload(&b)?;
    let mut partial = device.zeros::<f32>(warps)?;
    program.launch(
        kernels::dot::dot,
        coop_host::LaunchConfig::new(blocks, DOT_THREADS_PER_BLOCK),
        (&a, &b, &mut partial),
    )?;
    Ok(device.download(&partial)?.iter().map(|&p| p as f64).sum())
}

/// The input of the tile tour: zeros, odd and even values, and one large
/// value per 64 threads.
pub fn tile_tour_input(threads: usize) -> Vec<u32> {
    (0..threads as u32)
        .map(|i| {
            if i % 64 == 7 {
                5_000_000
            } else {
                (i * 7919) % 13
            }
        })
        .collect()
}

/// Runs `tile_tour_<n>` over `input` (2 blocks) on `device`; returns what
/// it wrote and what [`tile_tour_reference`] expects.
pub fn run_tile_tour(
    device: &coop_host::Device,
    program: &coop_host::Program,
    n: u32,
    input: &[u32],
) -> Result<(Vec<u32>, Vec<u32>), coop_host::Error> {
    use kernels::tiles;
    let input_dev = device.upload(input)?;
    let mut out = device.zeros::<u32>(input.len() * tiles::FIELDS)?;
    let cfg = coop_host::LaunchConfig::new(2, input.len() as u32 / 2);
    match n {
        4 => program.launch(tiles::tile_tour_4, cfg, (&input_dev, &mut out))?,
        16 => program.launch(tiles::tile_tour_16, cfg, (&input_dev, &mut out))?,
        32 => program.launch(tiles::tile_tour_32, cfg, (&input_dev, &mut out))?,
        _ => panic!("the tile tour has tiles of 4, 16 and 32 threads, not {n}"),
    }
    Ok((device.download(&out)?, tile_tour_reference(n, input)))
}

/// Median of `runs` timings of `f` (GPU events around each).
pub fn time_gpu(gpu: &coop_host::Gpu, runs: usize, mut f: impl FnMut()) -> std::time::Duration {
    let mut times = time_gpu_interleaved(gpu, runs, &mut [&mut f], &mut || ()).remove(0);
    times.sort_by(f32::total_cmp);
    std::time::Duration::from_secs_f64(times[runs / 2] as f64 * 1e-3)
}

/// `runs` timings in milliseconds of each of `sides` (GPU events around
/// each call), taken in turns: one of each per round, the order rotating
/// from round to round, so that drift of the clocks or the memory during
/// the measurement reaches every side alike. `before` runs ahead of every
/// sample, outside its events (to flush the L2 cache, say). `result[s][r]`
/// is side `s` in round `r`.
pub fn time_gpu_interleaved(
    gpu: &coop_host::Gpu,
    runs: usize,
    sides: &mut [&mut dyn FnMut()],
    before: &mut dyn FnMut(),
) -> Vec<Vec<f32>> {
    // Warm up for at least 20 ms, so that the clocks have ramped up after
    // idle periods (such as a large upload).
    let warm = std::time::Instant::now();
    while warm.elapsed() < std::time::Duration::from_millis(20) {
        for f in sides.iter_mut() {
            f();
        }
        gpu.synchronize().unwrap();
    }
    let mut timer = coop_host::Timer::new(gpu).unwrap();
    let n = sides.len();
    let mut times = vec![Vec::with_capacity(runs); n];
    for round in 0..runs {
        for k in 0..n {
            let s = (round + k) % n;
            before();
            timer.start().unwrap();
            sides[s]();
            let elapsed = timer.stop().unwrap();
            times[s].push(elapsed.as_secs_f32() * 1e3);
        }
    }
    times
}

/// The pieces the benchmark programs of `examples/bench` share: the
/// sides they time, how many rounds, and how a side's times are reported.
pub mod bench {
    use coop_host::{Gpu, Module};

    /// coop's example kernels as side "coop", and, when `COOP_CUDA_PTX`
    /// names the PTX nvcc made of the twins' `file`, those as side `twin`
    /// (their entries have coop's kernels' names and parameters); then
    /// each build that `COOP_VARIANTS` (`name=path.ptx,...`) names.
    pub fn sides(gpu: &Gpu, twin: &str, file: &str) -> Vec<(String, Module)> {
        let mut sides = vec![(
            "coop".to_string(),
            gpu.load(&crate::PTX).expect("coop's example kernels"),
        )];
        match std::env::var("COOP_CUDA_PTX") {
            Ok(path) => {
                let text = std::fs::read_to_string(&path).expect("the twins' PTX");
                sides.push((twin.into(), gpu.load_ptx(file, &text).expect("it loads")));
            }
            Err(_) => eprintln!("COOP_CUDA_PTX not set: coop's side alone"),
        }
        // `COOP_VARIANTS=name=path.ptx,...`: builds of coop's example
        // kernels from changed sources or caps, as sides of their own.
        if let Ok(list) = std::env::var("COOP_VARIANTS") {
            for item in list.split(',').filter(|s| !s.is_empty()) {
                let (name, path) = item
                    .split_once('=')
                    .expect("COOP_VARIANTS: name=path.ptx,...");
                let text = std::fs::read_to_string(path).expect("a variant's PTX");
                sides.push((name.into(), gpu.load_ptx(name, &text).expect("it loads")));
            }
        }
        sides
    }

    /// The timed rounds: `COOP_RUNS`, 21 by default.
    pub fn runs() -> usize {
        std::env::var("COOP_RUNS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(21)
    }

    /// The CSV comment line naming the GPU.
    pub fn print_gpu(gpu: &Gpu) {
        let limits = gpu.limits();
        println!(
            "# {} (sm_{}, {} SMs)",
            limits.name, limits.sm, limits.multiprocessors
        );
    }

    /// The median of times in milliseconds, in microseconds.
    pub fn median_us(mut times: Vec<f32>) -> f64 {
        times.sort_by(f32::total_cmp);
        times[times.len() / 2] as f64 * 1e3
    }
}
