//! coop's 256-bin byte histograms against CUB's
//! `DeviceHistogram::HistogramEven`, on uniform and skewed bytes (three
//! quarters one value), 2^26 and 2^28 samples, timed in turns in one
//! process (CUDA events around each call, median of the rounds).
//!
//! ```text
//! cargo build --release -p coop-bench --bin histogram_bench
//! examples/bench/histogram.sh target/release/histogram_bench out.csv   # on the GPU machine
//! ```
//!
//! coop's time includes zeroing the histogram (CUB's call zeroes its
//! own). Prints CSV: `log2_n, data, kernel, median_us, gb_per_s,
//! cub_over_coop`, and checks every histogram against CUB's.

use coop_examples::checks::histogram::histogram_input;
use coop_examples::kernels::histogram::{
    histogram_256, histogram_256_bytewise, histogram_256_copies4, histogram_256_one_set,
    histogram_256_per_warp, histogram_256_runs, histogram_256_warp_aggregated,
};
use coop_host::cudarc::driver::sys;
use coop_host::{Error, Gpu, LaunchConfig};
use std::ffi::{c_char, c_int, c_void, CStr};

type TempBytesFn = unsafe extern "C" fn(c_int) -> usize;
type HistFn =
    unsafe extern "C" fn(*const u8, *mut u32, c_int, *mut c_void, usize, sys::CUstream) -> c_int;

const THREADS: u32 = 256;

/// The sides, in the order they are timed and printed.
const KERNELS: [&str; 8] = [
    "CUB HistogramEven",
    "coop histogram_256 (one bin set, increments)",
    "coop runs, 8 bin sets",
    "coop runs, one bin set",
    "coop warp-aggregated",
    "coop bytewise",
    "coop per-warp bins",
    "coop 4 bin sets",
];

fn main() -> Result<(), Error> {
    let rounds: usize = std::env::var("COOP_HIST_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(30);
    let path =
        std::env::var("COOP_CUB_HIST_LIB").unwrap_or_else(|_| "/tmp/libcub_histogram.so".into());
    // SAFETY: loading the library runs its initialisers: CUDA's runtime
    // and CUB, built for this benchmark.
    let lib = unsafe { libloading::Library::new(&path) }.unwrap_or_else(|e| panic!("{path}: {e}"));
    // SAFETY: the symbols have these signatures in cub_histogram.cu.
    let (version, temp_bytes, cub_hist) = unsafe {
        let v: libloading::Symbol<unsafe extern "C" fn() -> *const c_char> =
            lib.get(b"cub_hist_version").unwrap();
        let t: libloading::Symbol<TempBytesFn> = lib.get(b"cub_hist_temp_bytes").unwrap();
        let h: libloading::Symbol<HistFn> = lib.get(b"cub_hist_even").unwrap();
        (CStr::from_ptr(v()).to_string_lossy().into_owned(), *t, *h)
    };
    let gpu = Gpu::new(0)?;
    let module = gpu.load(&coop_examples::PTX)?;
    let resident = module.resident_blocks(histogram_256, THREADS, 0)?;
    let blocks = resident * gpu.limits().multiprocessors;
    println!(
        "# {} (sm_{}, {} SMs); {version}; coop: {blocks} blocks of {THREADS} ({resident} a multiprocessor); {rounds} rounds",
        gpu.limits().name,
        gpu.limits().sm,
        gpu.limits().multiprocessors
    );
    println!("log2_n,data,kernel,median_us,gb_per_s,cub_over_coop");
    for log2 in [26u32, 28] {
        let n = 1usize << log2;
        for skewed in [false, true] {
            let data = gpu.upload(&histogram_input(n, skewed))?;
            let mut hists: Vec<_> = (0..KERNELS.len())
                .map(|_| gpu.zeros::<u32>(256))
                .collect::<Result<_, _>>()?;
            // SAFETY: `cub_hist_temp_bytes` reads nothing but its argument.
            let temp = gpu.zeros::<u8>(unsafe { temp_bytes(n as c_int) }.max(1))?;
            let stream = gpu.stream().cu_stream();
            let cfg = LaunchConfig::new(blocks, THREADS);
            let mut it = hists.iter_mut();
            let mut h = || it.next().expect("one histogram a kernel");
            let (h_cub, h_main, h_runs, h_one, h_agg, h_byte, h_warp, h_c4) =
                (h(), h(), h(), h(), h(), h(), h(), h());
            use coop_host::cudarc::driver::{DevicePtr, DevicePtrMut};
            let (data_ptr, _r) = data.device_ptr(gpu.stream());
            let (cub_ptr, _w) = h_cub.device_ptr_mut(gpu.stream());
            let (temp_ptr, _t) = temp.device_ptr(gpu.stream());
            let mut cub = || {
                // SAFETY: device buffers of the sizes CUB was told, on this
                // GPU's stream.
                let code = unsafe {
                    cub_hist(
                        data_ptr as *const u8,
                        cub_ptr as *mut u32,
                        n as c_int,
                        temp_ptr as *mut c_void,
                        temp.len(),
                        stream,
                    )
                };
                assert_eq!(code, 0, "CUB failed");
            };
            macro_rules! coop_side {
                ($kernel:expr, $hist:expr) => {
                    || {
                        gpu.stream().memset_zeros(&mut *$hist).unwrap();
                        module.launch($kernel, cfg, (&data, &mut *$hist)).unwrap();
                    }
                };
            }
            let mut main = coop_side!(histogram_256, h_main);
            let mut runs = coop_side!(histogram_256_runs, h_runs);
            let mut one_set = coop_side!(histogram_256_one_set, h_one);
            let mut aggregated = coop_side!(histogram_256_warp_aggregated, h_agg);
            let mut bytewise = coop_side!(histogram_256_bytewise, h_byte);
            let mut per_warp = coop_side!(histogram_256_per_warp, h_warp);
            let mut copies4 = coop_side!(histogram_256_copies4, h_c4);
            let times = coop_examples::time_gpu_interleaved(
                &gpu,
                rounds,
                &mut [
                    &mut cub,
                    &mut main,
                    &mut runs,
                    &mut one_set,
                    &mut aggregated,
                    &mut bytewise,
                    &mut per_warp,
                    &mut copies4,
                ],
                &mut || (),
            );
            drop((_r, _w, _t));
            let median = |t: &Vec<f32>| {
                let mut t = t.clone();
                t.sort_by(f32::total_cmp);
                t[t.len() / 2] as f64 * 1e3
            };
            let reference = gpu.download(&hists[0])?;
            let label = if skewed { "skewed" } else { "uniform" };
            let cub_us = median(&times[0]);
            for (k, name) in KERNELS.iter().enumerate() {
                let us = median(&times[k]);
                if k > 0 {
                    let got = gpu.download(&hists[k])?;
                    assert_eq!(
                        got, reference,
                        "{name} on {label} 2^{log2}: differs from CUB"
                    );
                }
                println!(
                    "{log2},{label},{name},{us:.1},{:.1},{:.3}",
                    n as f64 / us / 1e3,
                    cub_us / us
                );
            }
        }
    }
    Ok(())
}
