//! Streaming a buffer through shared memory: coop's kernels of
//! `examples/kernels/src/streaming.rs` (grid-stride loads and stores, one
//! tile staged by `copy_async`, each warp staging its own runs by tile
//! copies, a `Pipeline` of four stages) beside their
//! CUDA C++ twins (`examples/bench/async_copy.cu`: `cg::memcpy_async`,
//! `cuda::pipeline`, `cuda::barrier` with bulk copies, and tensor loads and
//! stores through the copy engine on the same tensor maps; nvcc makes their
//! PTX, named by `COOP_CUDA_PTX`) and the driver's device-to-device copy,
//! timed in turns in one process. Each output is checked against the
//! input. Needs a GPU; `examples/bench/async_copy.sh` builds the CUDA side
//! and runs it. Prints CSV rows:
//!
//! ```text
//! copy,<side>,<kernel>,<floats>,<blocks>,<median µs>,<GB/s read+write>
//! ```
//!
//! and `stencil,...` rows for the smoothing stencil: the tutorial's
//! global-memory kernel (`smooth_global`, a thread an output) and
//! `stencil_bulk` (tiles through the bulk-copy ring), each beside its CUDA
//! twin, every output checked against the host's stencil; their GB/s count
//! the same bytes as a copy's (the input read and the output written once),
//! so they read directly against the driver's copy.
//!
//! `COOP_ALT_PTX=label:path` adds a side: another build of the same
//! kernels (other register caps, say), loaded from its PTX.
//!
//! Every block has 256 threads (`stream_specialized` a warp more, its
//! producer; `stream_engine` one warp); a grid is the most blocks the GPU
//! holds at once for the kernel, or one block a tile when there are fewer
//! tiles (`stream_engine`: two blocks a multiprocessor, or
//! `COOP_ENGINE_BLOCKS` a multiprocessor).

use coop::Kernel;
use coop_examples::checks::stencil::smooth_host;
use coop_examples::kernels::stencil::{smooth_global, BLOCK};
use coop_examples::kernels::streaming::{
    stencil_bulk, stream_bulk, stream_direct, stream_engine, stream_pipeline, stream_specialized,
    stream_specialized_threads, stream_staged, stream_tensor, stream_tiles, RowTile, ENGINE_TILE,
    ROW, TILE, WARP_RUN,
};
use coop_examples::{time_gpu_interleaved, PTX};
use coop_host::cudarc::driver::CudaSlice;
use coop_host::{Gpu, LaunchConfig, Module, TensorMap, TensorMapMut};

const THREADS: u32 = 256;

/// Threads of a `stream_specialized` block: a producer warp and `THREADS`
/// storing threads.
const SPECIALIZED_THREADS: u32 = THREADS + 32;

/// Threads of a `stream_engine` block: one warp, whose first thread issues
/// every copy.
const ENGINE_THREADS: u32 = 32;

/// The grid for `kernel`: every block the GPU holds at once, at most one
/// a tile (a block a `THREADS` floats for the grid-stride kernel).
fn grid<K: Kernel>(m: &Module, kernel: K, n: usize, per_block: usize) -> u32 {
    grid_of(m, kernel, THREADS, n, per_block)
}

/// [`grid`] for blocks of `threads`.
fn grid_of<K: Kernel>(m: &Module, kernel: K, threads: u32, n: usize, per_block: usize) -> u32 {
    let resident = m.max_cooperative_blocks(kernel, threads, 0).unwrap();
    resident.min(n.div_ceil(per_block).max(1) as u32)
}

fn main() {
    if !Gpu::driver_present() {
        eprintln!("async_copy_bench needs an NVIDIA GPU");
        std::process::exit(2);
    }
    let gpu = Gpu::new(0).expect("a GPU");
    let coop = gpu.load(&PTX).expect("coop's example kernels");
    let mut sides: Vec<(String, Module)> = vec![("coop".into(), coop)];
    // Another build of coop's kernels to set beside this one (other
    // register caps, say): COOP_ALT_PTX=label:path.
    if let Ok(alt) = std::env::var("COOP_ALT_PTX") {
        let (label, path) = alt.split_once(':').expect("COOP_ALT_PTX=label:path");
        let text = std::fs::read_to_string(path).expect("the other build's PTX");
        sides.push((label.into(), gpu.load_ptx(label, &text).expect("it loads")));
    }
    match std::env::var("COOP_CUDA_PTX") {
        Ok(path) => {
            let text = std::fs::read_to_string(&path).expect("the CUDA twins' PTX");
            sides.push((
                "cuda".into(),
                gpu.load_ptx("async_copy.cu", &text).expect("it loads"),
            ));
        }
        Err(_) => eprintln!("COOP_CUDA_PTX not set: coop's side alone"),
    }
    let runs = coop_examples::bench::runs();
    let logs: Vec<u32> = std::env::var("COOP_LOGS")
        .unwrap_or_else(|_| "20,24,28".into())
        .split(',')
        .map(|l| {
            l.trim()
                .parse()
                .expect("COOP_LOGS: powers of two, comma-separated")
        })
        .collect();
    let engine_blocks: u32 = std::env::var("COOP_ENGINE_BLOCKS")
        .map(|b| {
            b.parse()
                .expect("COOP_ENGINE_BLOCKS: blocks a multiprocessor")
        })
        .unwrap_or(2);
    coop_examples::bench::print_gpu(&gpu);
    println!("row,side,kernel,floats,blocks,median_us,GBps");
    for log in logs {
        let n = 1usize << log;
        let host: Vec<f32> = (0..n).map(|i| (i % 9973) as f32 * 0.5).collect();
        let input: CudaSlice<f32> = gpu.upload(&host).unwrap();
        let bytes = 2.0 * 4.0 * n as f64;
        // (label, side, kernel name, grid) of every timed launch.
        let mut labels: Vec<(String, String, u32)> = Vec::new();
        let mut outputs: Vec<std::cell::RefCell<CudaSlice<f32>>> = Vec::new();
        let mut plans: Vec<(usize, &str, u32)> = Vec::new();
        for (s, (side, m)) in sides.iter().enumerate() {
            let kernels: &[(&str, u32)] = &[
                ("stream_direct", grid(m, stream_direct, n, THREADS as usize)),
                ("stream_staged", grid(m, stream_staged, n, TILE)),
                ("stream_tiles", grid(m, stream_tiles, n, WARP_RUN * 8)),
                ("stream_pipeline", grid(m, stream_pipeline, n, TILE)),
                ("stream_bulk", grid(m, stream_bulk, n, TILE)),
                (
                    "stream_specialized",
                    grid_of(m, stream_specialized, SPECIALIZED_THREADS, n, TILE),
                ),
                (
                    "stream_specialized_threads",
                    grid_of(m, stream_specialized_threads, SPECIALIZED_THREADS, n, TILE),
                ),
                (
                    "stream_engine",
                    grid_of(m, stream_engine, ENGINE_THREADS, n, ENGINE_TILE)
                        .min(engine_blocks * gpu.limits().multiprocessors),
                ),
            ];
            for &(name, blocks) in kernels {
                plans.push((s, name, blocks));
                labels.push((side.to_string(), name.to_string(), blocks));
                outputs.push(std::cell::RefCell::new(gpu.zeros::<f32>(n).unwrap()));
            }
        }
        // The stencils' outputs, checked against the host's stencil.
        let mut stencil_outs: Vec<(String, String, std::cell::RefCell<CudaSlice<f32>>)> =
            Vec::new();
        for (side, _) in &sides {
            for kernel in ["smooth_global", "stencil_bulk"] {
                stencil_outs.push((
                    side.clone(),
                    kernel.into(),
                    std::cell::RefCell::new(gpu.zeros::<f32>(n).unwrap()),
                ));
            }
        }
        let mut dtod_out = gpu.zeros::<f32>(n).unwrap();
        // The tensor kernels' outputs, and the maps of input and outputs
        // (rows of ROW floats), made before the timing.
        let rows = n / ROW;
        let mut tensor_outs: Vec<CudaSlice<f32>> =
            sides.iter().map(|_| gpu.zeros::<f32>(n).unwrap()).collect();
        let in_map = TensorMap::<RowTile>::gpu(&gpu, &input, [rows, ROW]).unwrap();
        let out_maps: Vec<TensorMapMut<'_, RowTile>> = tensor_outs
            .iter_mut()
            .map(|o| TensorMapMut::gpu(&gpu, o, [rows, ROW]).unwrap())
            .collect();
        let mut launches: Vec<Box<dyn FnMut() + '_>> = Vec::new();
        for (i, &(s, name, blocks)) in plans.iter().enumerate() {
            let m = &sides[s].1;
            let input = &input;
            let out = &outputs[i];
            let cfg = LaunchConfig::new(blocks, THREADS);
            let specialized = LaunchConfig::new(blocks, SPECIALIZED_THREADS);
            let engine = LaunchConfig::new(blocks, ENGINE_THREADS);
            launches.push(Box::new(move || {
                let mut out = out.borrow_mut();
                match name {
                    "stream_direct" => m.launch(stream_direct, cfg, (input, &mut *out)),
                    "stream_staged" => m.launch(stream_staged, cfg, (input, &mut *out)),
                    "stream_tiles" => m.launch(stream_tiles, cfg, (input, &mut *out)),
                    "stream_pipeline" => m.launch(stream_pipeline, cfg, (input, &mut *out)),
                    "stream_specialized" => {
                        m.launch(stream_specialized, specialized, (input, &mut *out))
                    }
                    "stream_specialized_threads" => {
                        m.launch(stream_specialized_threads, specialized, (input, &mut *out))
                    }
                    "stream_engine" => m.launch(stream_engine, engine, (input, &mut *out)),
                    _ => m.launch(stream_bulk, cfg, (input, &mut *out)),
                }
                .unwrap()
            }));
        }
        for (side, kernel, out) in &stencil_outs {
            let m = &sides.iter().find(|(s, _)| s == side).unwrap().1;
            let input = &input;
            let (blocks, threads) = match kernel.as_str() {
                "smooth_global" => (n.div_ceil(BLOCK) as u32, BLOCK as u32),
                _ => (grid(m, stencil_bulk, n, TILE), THREADS),
            };
            labels.push((format!("stencil:{side}"), kernel.clone(), blocks));
            let cfg = LaunchConfig::new(blocks, threads);
            let global = kernel == "smooth_global";
            launches.push(Box::new(move || {
                let mut out = out.borrow_mut();
                if global {
                    m.launch(smooth_global, cfg, (input, &mut *out)).unwrap()
                } else {
                    m.launch(stencil_bulk, cfg, (input, &mut *out)).unwrap()
                }
            }));
        }
        for (s, (side, m)) in sides.iter().enumerate() {
            let blocks = grid(m, stream_tensor, n, TILE);
            labels.push((side.to_string(), "stream_tensor".into(), blocks));
            let (in_map, out_map) = (&in_map, &out_maps[s]);
            let cfg = LaunchConfig::new(blocks, THREADS);
            launches.push(Box::new(move || {
                m.launch(stream_tensor, cfg, (in_map, out_map, rows as u32))
                    .unwrap()
            }));
        }
        {
            let dtod = &mut dtod_out;
            let input = &input;
            let gpu = &gpu;
            launches.push(Box::new(move || {
                gpu.stream().memcpy_dtod(input, dtod).unwrap()
            }));
        }
        labels.push(("driver".into(), "memcpy_dtod".into(), 0));
        let mut refs: Vec<&mut dyn FnMut()> = launches
            .iter_mut()
            .map(|f| &mut **f as &mut dyn FnMut())
            .collect();
        let times = time_gpu_interleaved(&gpu, runs, &mut refs, &mut || ());
        drop(refs);
        drop(launches);
        drop(out_maps);
        for (s, out) in tensor_outs.iter().enumerate() {
            let got = gpu.download(out).unwrap();
            assert!(
                got == host,
                "{} stream_tensor differs from its input at 2^{log}",
                sides[s].0
            );
        }
        for (i, out) in outputs.iter().enumerate() {
            let got = gpu.download(&*out.borrow()).unwrap();
            assert!(
                got == host,
                "{} {} differs from its input at 2^{log}",
                labels[i].0,
                labels[i].1
            );
        }
        let smoothed = smooth_host(&host);
        for (side, kernel, out) in &stencil_outs {
            let got = gpu.download(&*out.borrow()).unwrap();
            assert!(
                got == smoothed,
                "{side} {kernel} differs from the host's stencil at 2^{log}"
            );
        }
        for ((side, kernel, blocks), t) in labels.iter().zip(times) {
            let us = coop_examples::bench::median_us(t);
            let (row, side) = match side.strip_prefix("stencil:") {
                Some(side) => ("stencil", side),
                None => ("copy", side.as_str()),
            };
            println!(
                "{row},{side},{kernel},{n},{blocks},{us:.2},{:.0}",
                bytes / (us * 1e-6) / 1e9
            );
        }
    }
}
