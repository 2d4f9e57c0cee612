//! coop's side of the reduction benchmark; `examples/bench/cub_reduce.cu`
//! is CUB's, and `examples/bench/run.sh` runs both in one session on a GPU.
//! Prints CSV rows:
//!
//! ```text
//! device,<impl>,<op>,<type>,<n>,<microseconds>,<GB/s read>
//! block,<impl>,<type>,<threads>,<microseconds per launch>,<block reductions per microsecond>
//! ```
//!
//! Run: `cargo run --release --example reduce_bench`. For profiling,
//! `COOP_BENCH=block` runs only the block reductions (`COOP_THREADS=256`:
//! only one block size), `COOP_BENCH=sum28` only the f32 sum of 2^28
//! elements. `COOP_BENCH_PTX=a.ptx:b.ptx` also times the block kernels of
//! those PTX files (variants of the example kernels' PTX), labelled
//! `coop-a`, `coop-b`.

use coop_examples::{kernels::bench, time_gpu, PTX};
use coop_host::reduce::{Builtin, Reducer};
use coop_host::{CudaSlice, Device, Gpu, LaunchConfig, Module};

fn device_row<O, T: Builtin<O>>(
    gpu: &Gpu,
    reducer: &Reducer,
    op: &str,
    ty: &str,
    input: &CudaSlice<T>,
) {
    gpu.synchronize().unwrap(); // the upload has finished
    let n = input.len();
    let runs = if n > 1 << 26 { 11 } else { 51 };
    let t = time_gpu(gpu, runs, || reducer.enqueue::<O, T>(input).unwrap());
    let gbs = (n * std::mem::size_of::<T>()) as f64 / t.as_secs_f64() / 1e9;
    println!(
        "device,coop,{op},{ty},{n},{:.3},{gbs:.1}",
        t.as_secs_f64() * 1e6
    );
}

/// `n` elements `f(0), f(1), ...` on the GPU: the inputs of the 2^28 rows.
fn pattern<T: coop_host::DeviceRepr>(gpu: &Gpu, n: usize, f: impl Fn(usize) -> T) -> CudaSlice<T> {
    gpu.upload(&(0..n).map(f).collect::<Vec<_>>()).unwrap()
}

fn main() {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("reduce_bench needs a GPU: {e}");
            std::process::exit(2);
        }
    };
    let bps: u32 = std::env::var("COOP_BLOCKS_PER_SM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(coop_host::reduce::DEFAULT_BLOCKS_PER_SM);
    eprintln!(
        "coop reduce_bench on {} (sm_{}), {} blocks per SM",
        gpu.limits().name,
        gpu.limits().sm,
        bps
    );
    let reducer = Reducer::new(&Device::Gpu(gpu.clone()))
        .unwrap()
        .with_blocks_per_sm(bps);
    use coop::op::{Max, Min, Sum};

    let mode = std::env::var("COOP_BENCH").unwrap_or_default();
    if mode == "sum28" {
        let n = 1usize << 28;
        let x: CudaSlice<f32> = pattern(&gpu, n, |i| (i % 1000) as f32);
        device_row::<Sum, f32>(&gpu, &reducer, "sum", "f32", &x);
        return;
    }
    if mode != "block" {
        // Sizes 2^10 .. 2^30 (powers of 4), f32 sum.
        let big = 1usize << 30;
        let ones: CudaSlice<f32> = gpu.zeros(big).unwrap();
        for log in (10..=30).step_by(2) {
            let view = ones.slice(..1usize << log);
            let n = view.len();
            let runs = if n > 1 << 26 { 11 } else { 51 };
            let t = time_gpu(&gpu, runs, || {
                reducer.enqueue::<Sum, f32>(view.slice(..)).unwrap()
            });
            println!(
                "device,coop,sum,f32,{n},{:.3},{:.1}",
                t.as_secs_f64() * 1e6,
                (n * 4) as f64 / t.as_secs_f64() / 1e9
            );
        }
        drop(ones);

        // 2^28 elements of each type.
        let n = 1usize << 28;
        {
            let x: CudaSlice<f32> = pattern(&gpu, n, |i| (i % 1000) as f32);
            device_row::<Sum, f32>(&gpu, &reducer, "sum", "f32", &x);
            device_row::<Min, f32>(&gpu, &reducer, "min", "f32", &x);
            device_row::<Max, f32>(&gpu, &reducer, "max", "f32", &x);
            let r = reducer.sum(&x).unwrap() as f64;
            let exact: f64 = (0..1000).map(|v| v as f64).sum::<f64>() * (n / 1000) as f64
                + (0..(n % 1000)).map(|v| v as f64).sum::<f64>();
            eprintln!(
                "check: f32 sum {r} vs {exact} (relative {:.1e})",
                ((r - exact) / exact).abs()
            );
        }
        {
            let x: CudaSlice<f64> = pattern(&gpu, n, |i| (i % 1000) as f64);
            device_row::<Sum, f64>(&gpu, &reducer, "sum", "f64", &x);
        }
        {
            let x: CudaSlice<i32> = pattern(&gpu, n, |i| (i % 1000) as i32 - 500);
            device_row::<Sum, i32>(&gpu, &reducer, "sum", "i32", &x);
            device_row::<Min, i32>(&gpu, &reducer, "min", "i32", &x);
            device_row::<Max, i32>(&gpu, &reducer, "max", "i32", &x);
        }
        {
            let x: CudaSlice<u32> = pattern(&gpu, n, |i| (i % 1000) as u32);
            device_row::<Sum, u32>(&gpu, &reducer, "sum", "u32", &x);
        }
        {
            let x: CudaSlice<i64> = pattern(&gpu, n, |i| (i % 1000) as i64);
            device_row::<Sum, i64>(&gpu, &reducer, "sum", "i64", &x);
        }
    }
    // Block reductions: the kernels built into this example, then those of
    // any PTX files named in COOP_BENCH_PTX (a hand-edited variant of the
    // example kernels' PTX, say), each labelled with its file's stem.
    let only: Option<u32> = std::env::var("COOP_THREADS")
        .ok()
        .and_then(|v| v.parse().ok());
    block_rows(&gpu, &gpu.load(&PTX).unwrap(), "coop", only);
    for path in std::env::var("COOP_BENCH_PTX")
        .unwrap_or_default()
        .split(':')
    {
        if path.is_empty() {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let stem = std::path::Path::new(path)
            .file_stem()
            .unwrap()
            .to_string_lossy();
        let module = gpu
            .load_ptx(&stem, &text)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        block_rows(&gpu, &module, &format!("coop-{stem}"), only);
    }
}

/// The block-reduction rows of `module`'s `block_reduce_f32` and
/// `block_reduce_i32`, for 128 to 1024 threads (or only `only`), with their
/// results checked.
fn block_rows(gpu: &Gpu, module: &Module, label: &str, only: Option<u32>) {
    let blocks = gpu.limits().multiprocessors * 16;
    for threads in [128u32, 256, 512, 1024] {
        if only.is_some_and(|o| o != threads) {
            continue;
        }
        let count = (blocks * threads) as usize;
        let xf: CudaSlice<f32> = gpu.upload(&vec![1.0f32; count]).unwrap();
        let xi: CudaSlice<i32> = gpu.upload(&vec![1i32; count]).unwrap();
        let mut of: CudaSlice<f32> = gpu.zeros(blocks as usize).unwrap();
        let mut oi: CudaSlice<i32> = gpu.zeros(blocks as usize).unwrap();
        let cfg = LaunchConfig::new(blocks, threads);
        let reps = (blocks * bench::BLOCK_REDUCE_REPS) as f64;
        let t = time_gpu(gpu, 31, || {
            module
                .launch(bench::block_reduce_f32, cfg, (&xf, &mut of))
                .unwrap()
        });
        println!(
            "block,{label},f32,{threads},{:.3},{:.1}",
            t.as_secs_f64() * 1e6,
            reps / (t.as_secs_f64() * 1e6)
        );
        let t = time_gpu(gpu, 31, || {
            module
                .launch(bench::block_reduce_i32, cfg, (&xi, &mut oi))
                .unwrap()
        });
        println!(
            "block,{label},i32,{threads},{:.3},{:.1}",
            t.as_secs_f64() * 1e6,
            reps / (t.as_secs_f64() * 1e6)
        );
        let check = gpu.download(&oi).unwrap();
        let want = (0..bench::BLOCK_REDUCE_REPS as i32)
            .map(|i| threads as i32 * (1 + i))
            .sum::<i32>();
        assert!(
            check.iter().all(|&v| v == want),
            "{label} block_reduce_i32 result"
        );
        let check = gpu.download(&of).unwrap();
        assert!(
            check.iter().all(|&v| v == want as f32),
            "{label} block_reduce_f32 result"
        );
    }
}
