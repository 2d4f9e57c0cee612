//! The reduction benchmark: coop against CUB, timed in turns in one
//! process. CUB's side is `examples/bench/cub_reduce.cu`, built by nvcc as
//! a shared library and named by `COOP_CUB_LIB`; `examples/bench/run.sh`
//! builds it and runs this program on a GPU machine. Prints CSV rows:
//!
//! ```text
//! device,<impl>,<op>,<type>,<n>,<median µs>,<GB/s read>
//! call,<impl>,<op>,<type>,<n>,<median µs>,<GB/s read>
//! block,<impl>,<type>,<threads>,<median µs per launch>,<block reductions per µs>
//! block_scan,<impl>,<type>,<threads>,<median µs per launch>,<block scans per µs>
//! copy,cuda,memcpy,f32,<n>,<median µs>,<GB/s read + written>
//! ratio,<device|call|block|block_scan>,<impl>,<key...>,<median>,<first quartile>,<third quartile>
//! host,<impl>,<op>,<type>,<n>,<median µs the host spends in one call>
//! ```
//!
//! A `ratio` row is CUB's time over coop's in each round of alternating
//! samples (above 1: coop is faster), summarised over the rounds.
//!
//! `device` rows time the GPU's work alone: each sample starts behind a
//! one-thread kernel (in CUB's library) that holds the stream for 200 µs,
//! so that the sample's launches are all queued when its timing starts.
//! Below 2^22 elements a sample runs up to 16 reductions back to back (as
//! many on each side) and counts their mean, so that the events' 32 ns
//! steps stay small against it (not with `COOP_FLUSH_L2`).
//! `call` rows (the size sweep) time what a caller waiting for one
//! reduction sees: the GPU idles from the start event until the first
//! launch arrives, so the host's launch cost counts too.
//!
//! Without `COOP_CUB_LIB` only coop's rows are printed, all as `call`. Other settings,
//! all from the environment:
//!
//! - `COOP_BENCH`: one part, `sizes` (f32 sums of 2^10 to 2^30 elements),
//!   `types` (each type and operator at 2^28), `block` (block reductions
//!   and block inclusive sums of the six built-in types at 64 to 1024
//!   threads, against `BlockReduce` and `BlockScan`)
//!   or `sum28` (one f32 sum of 2^28, for profilers); all but `sum28` by
//!   default.
//! - `COOP_SIZES=20,22`: the sizes part only at these powers of two.
//! - `COOP_THREADS=256`: the block part only at this block size.
//! - `COOP_RUNS`: samples per side of a device-wide row (21 above 2^26
//!   elements, else 51).
//! - `COOP_FLUSH_L2=1`: a 256 MiB buffer is written before every
//!   device-wide sample, so that each starts with none of its input in the
//!   L2 cache.
//! - `COOP_GRID=16x8,4,40x3`: first-pass grids timed side by side, each
//!   as most blocks per multiprocessor, optionally `x` the fewest tiles per
//!   block (`Reducer::with_blocks_per_sm`, `with_tiles_per_block`); rows
//!   `coop-bps4`, `coop-bps40x3`, ... (the default grid stays `coop`).
//! - The block rows time coop's block kernels twice: `coop` reads the
//!   block size at run time, `coop-shaped` declares it
//!   (`#[kernel(block = N)]`), as CUB's kernels have it as a template
//!   parameter.
//! - `COOP_BENCH_PTX=a.ptx:b.ptx`: the block kernels of these PTX files
//!   (variants of the example kernels' PTX) too, as rows `coop-a`,
//!   `coop-b`.
//! - `COOP_DEVICE_PTX=a.ptx:b.ptx`: the device-wide reductions also with
//!   the built-in kernels of these PTX files (variants of
//!   `coop-host-kernels`' PTX), as rows `coop-a`, `coop-b`.

use coop_examples::{kernels::bench, time_gpu, time_gpu_interleaved, PTX};
use coop_host::cudarc::driver::{sys, DevicePtr};
use coop_host::reduce::{Builtin, Reducer};
use coop_host::{CudaSlice, CudaView, Device, Gpu, LaunchConfig, Module};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr};

type DeviceReduceFn = unsafe extern "C" fn(
    c_int,
    c_int,
    *const c_void,
    usize,
    *mut c_void,
    *mut c_void,
    usize,
    sys::CUstream,
) -> c_int;
type HoldFn = unsafe extern "C" fn(u64, sys::CUstream) -> c_int;
/// What runs before every device-wide sample, outside its timing.
struct Before<'a> {
    /// Written over before each sample, so that the L2 holds none of the
    /// input (`COOP_FLUSH_L2=1`).
    flush: Option<RefCell<CudaSlice<u8>>>,
    /// Holds the stream for [`HOLD_MICROS`] before each sample timed with
    /// [`Timing::Gpu`]: the sample's launches are all queued by the time it
    /// starts, so its time is the GPU's alone, without what the host
    /// spends launching.
    hold: Option<&'a Cub>,
}

/// How long [`Before::hold`] holds the stream: longer than any side takes
/// to queue the launches of a sample ([`MAX_REPS`] reductions).
const HOLD_MICROS: u64 = 200;

/// Most reductions in one GPU-time sample (of the smallest inputs).
const MAX_REPS: usize = 16;

impl Before<'_> {
    fn run(&self, gpu: &Gpu, hold: bool) {
        if let Some(junk) = &self.flush {
            gpu.stream().memset_zeros(&mut *junk.borrow_mut()).unwrap();
        }
        if let (Some(cub), true) = (self.hold, hold) {
            cub.hold(gpu, HOLD_MICROS);
        }
    }
}

/// One side of a timed row: a label and what it launches.
type Side<'a> = (&'a str, Box<dyn FnMut() + 'a>);
type BlockReduceFn =
    unsafe extern "C" fn(c_int, c_int, *const c_void, *mut c_void, c_int, sys::CUstream) -> c_int;

/// CUB's side: the functions of `examples/bench/cub_reduce.cu`'s library.
struct Cub {
    device_reduce: DeviceReduceFn,
    block_reduce: BlockReduceFn,
    block_scan: BlockReduceFn,
    hold: HoldFn,
    temp: CudaSlice<u8>,
    out: CudaSlice<u8>,
    _lib: libloading::Library,
}

impl Cub {
    fn load(gpu: &Gpu, path: &str) -> Cub {
        // SAFETY: the library is cub_reduce.cu's; its functions have the
        // signatures declared above.
        unsafe {
            let lib = libloading::Library::new(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            // A library built from an older cub_reduce.cu lacks newer
            // functions: say so, rather than a bare lookup error.
            let missing = |name: &str, e: libloading::Error| -> ! {
                panic!(
                    "{path} has no `{name}` ({e}): it was built from an older \
                     examples/bench/cub_reduce.cu; delete it and rerun examples/bench/run.sh"
                )
            };
            macro_rules! symbol {
                ($name:literal) => {
                    *lib.get(concat!($name, "\0").as_bytes())
                        .unwrap_or_else(|e| missing($name, e))
                };
            }
            let version: unsafe extern "C" fn() -> *const c_char = symbol!("cub_bench_version");
            let temp_bytes: unsafe extern "C" fn(usize) -> usize = symbol!("cub_bench_temp_bytes");
            eprintln!("{}", CStr::from_ptr(version()).to_string_lossy());
            let temp = gpu.zeros::<u8>(temp_bytes(1 << 30).max(1)).unwrap();
            Cub {
                device_reduce: symbol!("cub_bench_device_reduce"),
                block_reduce: symbol!("cub_bench_block_reduce"),
                block_scan: symbol!("cub_bench_block_scan"),
                hold: symbol!("cub_bench_hold"),
                temp,
                out: gpu.zeros::<u8>(64).unwrap(),
                _lib: lib,
            }
        }
    }

    /// Holds the stream for `micros` µs (a one-thread kernel).
    fn hold(&self, gpu: &Gpu, micros: u64) {
        // SAFETY: the stream is live; the kernel touches no memory.
        let rc = unsafe { (self.hold)(micros * 1000, gpu.stream().cu_stream()) };
        assert_eq!(rc, 0, "cub_bench_hold failed: cudaError {rc}");
    }

    fn device(&self, gpu: &Gpu, op: c_int, ty: c_int, input: &CudaView<'_, impl Copy>) {
        let stream = gpu.stream();
        let (inp, _r) = input.device_ptr(stream);
        let (temp, _t) = self.temp.device_ptr(stream);
        let (out, _o) = self.out.device_ptr(stream);
        // SAFETY: device pointers of live buffers of the stated sizes.
        let rc = unsafe {
            (self.device_reduce)(
                op,
                ty,
                inp as *const c_void,
                input.len(),
                out as *mut c_void,
                temp as *mut c_void,
                self.temp.len(),
                stream.cu_stream(),
            )
        };
        assert_eq!(rc, 0, "cub::DeviceReduce failed: cudaError {rc}");
    }

    /// CUB's block-reduction kernel (or, with `scan`, its block-scan
    /// kernel) for element type `ty` at `threads` threads per block over
    /// `blocks` blocks.
    fn block<T>(
        &self,
        gpu: &Gpu,
        (ty, scan): (c_int, bool),
        (blocks, threads): (u32, u32),
        x: &CudaSlice<T>,
        out: &mut CudaSlice<T>,
    ) {
        let stream = gpu.stream();
        let (inp, _r) = x.device_ptr(stream);
        let (o, _o) = out.device_ptr(stream);
        let kernel = if scan {
            self.block_scan
        } else {
            self.block_reduce
        };
        // SAFETY: device pointers of live buffers: `threads` inputs per
        // block, one output per block (a reduction) or per thread (a scan).
        let rc = unsafe {
            kernel(
                ty,
                threads as c_int,
                inp as *const c_void,
                o as *mut c_void,
                blocks as c_int,
                stream.cu_stream(),
            )
        };
        assert_eq!(rc, 0, "CUB block reduce/scan: cudaError {rc}");
    }

    /// The last device-wide result, as a `T`.
    fn result<T: Copy>(&self, gpu: &Gpu) -> T {
        let bytes = gpu.download(&self.out).unwrap();
        // SAFETY: CUB wrote a `T` there; `bytes` holds 64.
        unsafe { std::ptr::read_unaligned(bytes.as_ptr() as *const T) }
    }
}

/// Element types of the rows, with CUB's code for each.
trait Elem: Builtin<coop::op::Sum> + Default + PartialEq + std::fmt::Debug {
    const NAME: &'static str;
    const CUB: c_int;
    fn close(a: Self, b: Self) -> bool {
        a == b
    }
}
impl Elem for f32 {
    const NAME: &'static str = "f32";
    const CUB: c_int = 0;
    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() <= 1e-5 * a.abs().max(b.abs())
    }
}
impl Elem for f64 {
    const NAME: &'static str = "f64";
    const CUB: c_int = 1;
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
    }
}
impl Elem for i32 {
    const NAME: &'static str = "i32";
    const CUB: c_int = 2;
}
impl Elem for u32 {
    const NAME: &'static str = "u32";
    const CUB: c_int = 3;
}
impl Elem for i64 {
    const NAME: &'static str = "i64";
    const CUB: c_int = 4;
}
impl Elem for u64 {
    const NAME: &'static str = "u64";
    const CUB: c_int = 5;
}

/// Median, first and third quartile.
fn quartiles(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.25), at(0.75))
}

fn median_ms(v: &[f32]) -> f64 {
    quartiles(v.iter().map(|&t| t as f64).collect()).0
}

/// Prints the ratio row of CUB's times over `coop`'s, round by round.
fn ratio_row(key: &str, coop: &[f32], cub: &[f32]) {
    let (m, q1, q3) = quartiles(
        coop.iter()
            .zip(cub)
            .map(|(&c, &b)| b as f64 / c as f64)
            .collect(),
    );
    println!("ratio,{key},{m:.4},{q1:.4},{q3:.4}");
}

/// How a device-wide row is timed.
#[derive(Clone, Copy, PartialEq)]
enum Timing {
    /// The GPU's work alone: each sample starts behind a kernel that holds
    /// the stream until its launches are all queued (rows `device`).
    /// Needs CUB's library (which has that kernel); without it, as `Call`.
    Gpu,
    /// A caller's view of one call: the GPU idles until the first launch
    /// arrives, so what the host spends launching counts too (rows `call`).
    Call,
}

/// One device-wide row: each of `coops`' reductions of `input` with `O`,
/// and CUB's (`cub_op` 0 sum, 1 min, 2 max), in turns; their results must
/// agree.
#[allow(clippy::too_many_arguments)]
fn device_row<O, T: Elem + Builtin<O>>(
    gpu: &Gpu,
    coops: &[(String, Reducer)],
    cub: Option<&Cub>,
    before: &Before<'_>,
    timing: Timing,
    (op, cub_op): (&str, c_int),
    input: CudaView<'_, T>,
) {
    let hold = timing == Timing::Gpu && before.hold.is_some();
    let kind = if hold { "device" } else { "call" };
    gpu.synchronize().unwrap(); // the upload has finished
    let n = input.len();
    let ty = T::NAME;
    let runs = std::env::var("COOP_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if n > 1 << 26 { 21 } else { 51 });
    // A GPU-time sample of a small input runs several reductions back to
    // back (the same number on each side), so that the events' 32 ns steps
    // stay small against it; cold-L2 samples run one.
    let reps = if hold && before.flush.is_none() {
        (1usize << 22).div_ceil(n.max(1)).clamp(1, MAX_REPS)
    } else {
        1
    };
    let input = &input;
    let mut sides: Vec<Side<'_>> = coops
        .iter()
        .map(|(label, reducer)| {
            let f = move || {
                for _ in 0..reps {
                    reducer.enqueue::<O, T>(input.slice(..)).unwrap()
                }
            };
            (label.as_str(), Box::new(f) as Box<dyn FnMut()>)
        })
        .collect();
    if let Some(cub) = cub {
        let f = move || {
            for _ in 0..reps {
                cub.device(gpu, cub_op, T::CUB, input)
            }
        };
        sides.push(("cub", Box::new(f)));
    }
    if n <= 1 << 12 && !hold {
        // What the host spends handing the launch(es) over, per call.
        for (label, f) in &mut sides {
            let mut t: Vec<f64> = (0..101)
                .map(|_| {
                    let start = std::time::Instant::now();
                    f();
                    let us = start.elapsed().as_secs_f64() * 1e6;
                    gpu.synchronize().unwrap();
                    us
                })
                .collect();
            t.sort_by(f64::total_cmp);
            println!("host,{label},{op},{ty},{n},{:.2}", t[50]);
        }
    }
    let mut refs: Vec<&mut dyn FnMut()> = sides.iter_mut().map(|(_, f)| &mut **f as _).collect();
    let mut times = time_gpu_interleaved(gpu, runs, &mut refs, &mut || before.run(gpu, hold));
    for t in times.iter_mut().flatten() {
        *t /= reps as f32;
    }
    let bytes = (n * std::mem::size_of::<T>()) as f64;
    for ((label, _), t) in sides.iter().zip(&times) {
        let ms = median_ms(t);
        println!(
            "{kind},{label},{op},{ty},{n},{:.3},{:.1}",
            ms * 1e3,
            bytes / (ms * 1e-3) / 1e9
        );
    }
    drop(sides);
    if let Some(cub) = cub {
        cub.device(gpu, cub_op, T::CUB, input);
        let theirs = cub.result::<T>(gpu);
        for ((label, reducer), t) in coops.iter().zip(&times) {
            ratio_row(
                &format!("{kind},{label},{op},{ty},{n}"),
                t,
                &times[coops.len()],
            );
            reducer.enqueue::<O, T>(input.slice(..)).unwrap();
            let mine = reducer.result::<T>().unwrap();
            assert!(
                T::close(mine, theirs),
                "{op} {ty} of {n}: {label} {mine:?}, CUB {theirs:?}"
            );
        }
    }
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
    // First-pass grids: the default, or a list (`16x8,4,40x3`: most blocks
    // per multiprocessor, then optionally the fewest tiles per block)
    // timed side by side.
    let default_grid = (
        coop_host::reduce::DEFAULT_BLOCKS_PER_SM,
        coop_host::reduce::MIN_TILES_PER_BLOCK,
    );
    let grids: Vec<(u32, usize)> = std::env::var("COOP_GRID")
        .ok()
        .map(|v| {
            v.split(',')
                .filter_map(|g| {
                    let mut parts = g.trim().split('x');
                    let blocks = parts.next()?.parse().ok()?;
                    let tiles = match parts.next() {
                        Some(s) => s.parse().ok()?,
                        None => default_grid.1,
                    };
                    Some((blocks, tiles))
                })
                .collect()
        })
        .unwrap_or_else(|| vec![default_grid]);
    eprintln!(
        "coop reduce_bench on {} (sm_{}), grids (blocks per SM, tiles per block) {:?}",
        gpu.limits().name,
        gpu.limits().sm,
        grids
    );
    let cub = std::env::var("COOP_CUB_LIB")
        .ok()
        .map(|path| Cub::load(&gpu, &path));
    let cub = cub.as_ref();
    let mut coops: Vec<(String, Reducer)> = grids
        .iter()
        .map(|&(blocks, tiles)| {
            let label = match (blocks, tiles) {
                g if g == default_grid => "coop".to_string(),
                (b, s) if s == default_grid.1 => format!("coop-bps{b}"),
                (b, s) => format!("coop-bps{b}x{s}"),
            };
            let reducer = Reducer::new(&Device::Gpu(gpu.clone()))
                .unwrap()
                .with_blocks_per_sm(blocks)
                .with_tiles_per_block(tiles);
            (label, reducer)
        })
        .collect();
    // Variants of the built-in kernels' PTX, each a side of its own.
    for (label, module) in ptx_files(&gpu, "COOP_DEVICE_PTX") {
        let reducer = Reducer::new(&Device::Gpu(gpu.clone()))
            .unwrap()
            .with_module(module)
            .unwrap();
        coops.push((label, reducer));
    }
    let coops = &coops[..];
    // COOP_FLUSH_L2=1: the device-wide rows start each sample with a cold
    // L2 cache (a 256 MiB buffer written in between), as NVIDIA's nvbench
    // measures by default.
    let before = Before {
        flush: std::env::var("COOP_FLUSH_L2")
            .is_ok_and(|v| v == "1")
            .then(|| RefCell::new(gpu.zeros::<u8>(256 << 20).unwrap())),
        hold: cub,
    };
    if cub.is_none() {
        eprintln!("without COOP_CUB_LIB the device-wide rows count the host's launch time too (rows `call`)");
    }
    use coop::op::{Max, Min, Sum};
    const SUM: (&str, c_int) = ("sum", 0);
    const MIN: (&str, c_int) = ("min", 1);
    const MAX: (&str, c_int) = ("max", 2);

    let mode = std::env::var("COOP_BENCH").unwrap_or_default();
    let part = |name: &str| mode.is_empty() || mode == "all" || mode == name;
    let n = 1usize << 28;
    if mode == "sum28" {
        let x: CudaSlice<f32> = pattern(&gpu, n, |i| (i % 1000) as f32);
        device_row::<Sum, f32>(&gpu, coops, cub, &before, Timing::Gpu, SUM, x.slice(..));
        return;
    }
    if part("sizes") {
        // f32 sums of 2^10 .. 2^30 elements (powers of 4), and a
        // device-to-device copy of 2^28 of them for the memory's speed.
        let mut all: CudaSlice<f32> = pattern(&gpu, 1 << 30, |i| (i % 1000) as f32);
        let logs: Vec<u32> = match std::env::var("COOP_SIZES") {
            Ok(v) => v.split(',').filter_map(|l| l.trim().parse().ok()).collect(),
            Err(_) => (10..=30).step_by(2).collect(),
        };
        for log in logs {
            let x = all.slice(..1usize << log);
            device_row::<Sum, f32>(&gpu, coops, cub, &before, Timing::Gpu, SUM, x.slice(..));
            if cub.is_some() {
                device_row::<Sum, f32>(&gpu, coops, cub, &before, Timing::Call, SUM, x);
            }
        }
        let (src, mut dst) = all.split_at_mut(n);
        let src = src.slice(..);
        let mut dst = dst.slice_mut(..n);
        let t = time_gpu(&gpu, 21, || {
            gpu.stream().memcpy_dtod(&src, &mut dst).unwrap()
        });
        println!(
            "copy,cuda,memcpy,f32,{n},{:.3},{:.1}",
            t.as_secs_f64() * 1e6,
            (2 * n * 4) as f64 / t.as_secs_f64() / 1e9
        );
    }
    if part("types") {
        {
            let x: CudaSlice<f32> = pattern(&gpu, n, |i| (i % 1000) as f32);
            device_row::<Sum, f32>(&gpu, coops, cub, &before, Timing::Gpu, SUM, x.slice(..));
            device_row::<Min, f32>(&gpu, coops, cub, &before, Timing::Gpu, MIN, x.slice(..));
            device_row::<Max, f32>(&gpu, coops, cub, &before, Timing::Gpu, MAX, x.slice(..));
            let r = coops[0].1.sum(&x).unwrap() as f64;
            let exact: f64 = (0..1000).map(|v| v as f64).sum::<f64>() * (n / 1000) as f64
                + (0..(n % 1000)).map(|v| v as f64).sum::<f64>();
            eprintln!(
                "check: f32 sum {r} vs {exact} (relative {:.1e})",
                ((r - exact) / exact).abs()
            );
        }
        {
            let x: CudaSlice<f64> = pattern(&gpu, n, |i| (i % 1000) as f64);
            device_row::<Sum, f64>(&gpu, coops, cub, &before, Timing::Gpu, SUM, x.slice(..));
        }
        {
            let x: CudaSlice<i32> = pattern(&gpu, n, |i| (i % 1000) as i32 - 500);
            device_row::<Sum, i32>(&gpu, coops, cub, &before, Timing::Gpu, SUM, x.slice(..));
            device_row::<Min, i32>(&gpu, coops, cub, &before, Timing::Gpu, MIN, x.slice(..));
            device_row::<Max, i32>(&gpu, coops, cub, &before, Timing::Gpu, MAX, x.slice(..));
        }
        {
            let x: CudaSlice<u32> = pattern(&gpu, n, |i| (i % 1000) as u32);
            device_row::<Sum, u32>(&gpu, coops, cub, &before, Timing::Gpu, SUM, x.slice(..));
        }
        {
            let x: CudaSlice<i64> = pattern(&gpu, n, |i| (i % 1000) as i64);
            device_row::<Sum, i64>(&gpu, coops, cub, &before, Timing::Gpu, SUM, x.slice(..));
        }
        {
            let x: CudaSlice<u64> = pattern(&gpu, n, |i| (i % 1000) as u64);
            device_row::<Sum, u64>(&gpu, coops, cub, &before, Timing::Gpu, SUM, x.slice(..));
        }
    }
    if part("block") {
        // The kernels built into this example, then those of any PTX files
        // named in COOP_BENCH_PTX (a hand-edited variant of the example
        // kernels' PTX, say), each labelled with its file's stem.
        let builtin = gpu.load(&PTX).unwrap();
        let files = ptx_files(&gpu, "COOP_BENCH_PTX");
        // (label, module, whether the kernels declare the block size): the
        // built-in kernels both ways (`coop-shaped` declares it, as CUB's
        // template parameter does), the files' generic ones.
        let mut modules = vec![
            ("coop".to_string(), &builtin, false),
            ("coop-shaped".to_string(), &builtin, true),
        ];
        modules.extend(files.iter().map(|(label, m)| (label.clone(), m, false)));
        let only: Option<u32> = std::env::var("COOP_THREADS")
            .ok()
            .and_then(|v| v.parse().ok());
        for scan in [false, true] {
            for threads in [64u32, 128, 256, 512, 1024] {
                if only.is_none_or(|o| o == threads) {
                    block_rows::<f32>(&gpu, &modules, cub, threads, scan);
                    block_rows::<f64>(&gpu, &modules, cub, threads, scan);
                    block_rows::<i32>(&gpu, &modules, cub, threads, scan);
                    block_rows::<u32>(&gpu, &modules, cub, threads, scan);
                    block_rows::<i64>(&gpu, &modules, cub, threads, scan);
                    block_rows::<u64>(&gpu, &modules, cub, threads, scan);
                }
            }
        }
    }
}

/// The PTX files named in the environment variable `var` (`a.ptx:b.ptx`),
/// loaded, each labelled `coop-` and its file's stem.
fn ptx_files(gpu: &Gpu, var: &str) -> Vec<(String, Module)> {
    let paths = std::env::var(var).unwrap_or_default();
    paths
        .split(':')
        .filter(|p| !p.is_empty())
        .map(|path| {
            let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let stem = std::path::Path::new(path)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let module = gpu
                .load_ptx(&stem, &text)
                .unwrap_or_else(|e| panic!("{path}: {e}"));
            (format!("coop-{stem}"), module)
        })
        .collect()
}

/// The block kernels of the benchmark for one type: `block_reduce_*` and
/// `block_scan_*`, or with `shaped` the ones declared for `threads`
/// (`block_reduce_*_<threads>`, `block_scan_*_<threads>`).
trait BlockBench: Elem + From<u8> {
    fn to_f64(self) -> f64;
    fn launch(
        module: &Module,
        kind: (bool, bool),
        cfg: LaunchConfig,
        x: &CudaSlice<Self>,
        out: &mut CudaSlice<Self>,
    );
}
macro_rules! block_bench {
    ($($t:ty => $reduce:ident, $scan:ident, [$($n:literal => $sr:ident, $ss:ident),*]);*) => {$(
        impl BlockBench for $t {
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn launch(
                module: &Module,
                (scan, shaped): (bool, bool),
                cfg: LaunchConfig,
                x: &CudaSlice<$t>,
                out: &mut CudaSlice<$t>,
            ) {
                if !shaped {
                    return if scan {
                        module.launch(bench::$scan, cfg, (x, out)).unwrap()
                    } else {
                        module.launch(bench::$reduce, cfg, (x, out)).unwrap()
                    };
                }
                match (cfg.block.x, scan) {
                    $(
                        ($n, false) => module.launch(bench::$sr, cfg, (x, out)).unwrap(),
                        ($n, true) => module.launch(bench::$ss, cfg, (x, out)).unwrap(),
                    )*
                    (threads, _) => panic!("no declared block kernel for {threads} threads"),
                }
            }
        }
    )*};
}
block_bench!(
    f32 => block_reduce_f32, block_scan_f32, [
        64 => block_reduce_f32_64, block_scan_f32_64, 128 => block_reduce_f32_128, block_scan_f32_128,
        256 => block_reduce_f32_256, block_scan_f32_256, 512 => block_reduce_f32_512, block_scan_f32_512,
        1024 => block_reduce_f32_1024, block_scan_f32_1024];
    f64 => block_reduce_f64, block_scan_f64, [
        64 => block_reduce_f64_64, block_scan_f64_64, 128 => block_reduce_f64_128, block_scan_f64_128,
        256 => block_reduce_f64_256, block_scan_f64_256, 512 => block_reduce_f64_512, block_scan_f64_512,
        1024 => block_reduce_f64_1024, block_scan_f64_1024];
    i32 => block_reduce_i32, block_scan_i32, [
        64 => block_reduce_i32_64, block_scan_i32_64, 128 => block_reduce_i32_128, block_scan_i32_128,
        256 => block_reduce_i32_256, block_scan_i32_256, 512 => block_reduce_i32_512, block_scan_i32_512,
        1024 => block_reduce_i32_1024, block_scan_i32_1024];
    u32 => block_reduce_u32, block_scan_u32, [
        64 => block_reduce_u32_64, block_scan_u32_64, 128 => block_reduce_u32_128, block_scan_u32_128,
        256 => block_reduce_u32_256, block_scan_u32_256, 512 => block_reduce_u32_512, block_scan_u32_512,
        1024 => block_reduce_u32_1024, block_scan_u32_1024];
    i64 => block_reduce_i64, block_scan_i64, [
        64 => block_reduce_i64_64, block_scan_i64_64, 128 => block_reduce_i64_128, block_scan_i64_128,
        256 => block_reduce_i64_256, block_scan_i64_256, 512 => block_reduce_i64_512, block_scan_i64_512,
        1024 => block_reduce_i64_1024, block_scan_i64_1024];
    u64 => block_reduce_u64, block_scan_u64, [
        64 => block_reduce_u64_64, block_scan_u64_64, 128 => block_reduce_u64_128, block_scan_u64_128,
        256 => block_reduce_u64_256, block_scan_u64_256, 512 => block_reduce_u64_512, block_scan_u64_512,
        1024 => block_reduce_u64_1024, block_scan_u64_1024]
);

/// The block-reduction rows (or, with `scan`, the block-scan rows) of
/// every module's kernel for `T` and CUB's, at `threads` threads per block
/// and 16 blocks per multiprocessor, timed in turns, with every side's
/// results checked.
fn block_rows<T: BlockBench>(
    gpu: &Gpu,
    modules: &[(String, &Module, bool)],
    cub: Option<&Cub>,
    threads: u32,
    scan: bool,
) {
    let blocks = gpu.limits().multiprocessors * 16;
    let count = (blocks * threads) as usize;
    let x: CudaSlice<T> = gpu.upload(&vec![T::from(1u8); count]).unwrap();
    let outputs = if scan { count } else { blocks as usize };
    let mut outs: Vec<CudaSlice<T>> = (0..=modules.len())
        .map(|_| gpu.zeros(outputs).unwrap())
        .collect();
    let (coop_outs, cub_out) = outs.split_at_mut(modules.len());
    let cfg = LaunchConfig::new(blocks, threads);
    let mut sides: Vec<Box<dyn FnMut() + '_>> = modules
        .iter()
        .zip(coop_outs.iter_mut())
        .map(|((_, module, shaped), out)| {
            let x = &x;
            let shaped = *shaped;
            Box::new(move || T::launch(module, (scan, shaped), cfg, x, out)) as Box<dyn FnMut()>
        })
        .collect();
    if let Some(cub) = cub {
        let out = &mut cub_out[0];
        let x = &x;
        sides.push(Box::new(move || {
            cub.block(gpu, (T::CUB, scan), (blocks, threads), x, out)
        }));
    }
    let mut refs: Vec<&mut dyn FnMut()> = sides.iter_mut().map(|s| &mut **s as _).collect();
    let times = time_gpu_interleaved(gpu, 31, &mut refs, &mut || ());
    drop(sides);
    let reps = (blocks * bench::BLOCK_REDUCE_REPS) as f64;
    let ty = T::NAME;
    let part = if scan { "block_scan" } else { "block" };
    let labels = modules
        .iter()
        .map(|(l, _, _)| l.as_str())
        .chain(cub.map(|_| "cub"));
    for (label, t) in labels.zip(&times) {
        let us = median_ms(t) * 1e3;
        println!("{part},{label},{ty},{threads},{us:.3},{:.1}", reps / us);
    }
    if cub.is_some() {
        for ((label, _, _), t) in modules.iter().zip(&times) {
            ratio_row(
                &format!("{part},{label},{ty},{threads}"),
                t,
                &times[modules.len()],
            );
        }
    }
    // Every input is 1, so round i adds 1 + i a thread: a reduction's
    // total is `threads` times the sum of 1 + i, a scan's result at rank r
    // is r + 1 times it.
    let rounds = (0..bench::BLOCK_REDUCE_REPS)
        .map(|i| 1.0 + i as f64)
        .sum::<f64>();
    let labels = modules
        .iter()
        .map(|(l, _, _)| l.as_str())
        .chain(cub.map(|_| "cub"));
    for (label, out) in labels.zip(&outs) {
        let got = gpu.download(out).unwrap();
        let bad = got.iter().enumerate().position(|(i, &v)| {
            let times = if scan {
                (i % threads as usize + 1) as f64
            } else {
                threads as f64
            };
            v.to_f64() != times * rounds
        });
        assert!(
            bad.is_none(),
            "{label} {part} {ty} at {threads} threads: element {bad:?} is wrong"
        );
    }
}
