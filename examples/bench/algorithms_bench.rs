//! coop's device-wide algorithms against CUB on one GPU, in one process:
//! scans (`DeviceScan::InclusiveSum`/`ExclusiveSum`, beside a
//! device-to-device copy of the same bytes), arg-min/arg-max
//! (`DeviceReduce::ArgMin`/`ArgMax`), transform-reductions
//! (`DeviceReduce::TransformReduce`), segmented reductions
//! (`DeviceSegmentedReduce`), selections (`DeviceSelect::Flagged` and
//! `Unique`, `DevicePartition::Flagged`) and the cost of deterministic
//! float sums and scans. CUB's side is `cub_algorithms.cu`, loaded as a shared library
//! (`COOP_CUB_ALGO_LIB`, built by `algorithms.sh`), so that coop and CUB are
//! timed in turns on one stream: every coop sample has a CUB sample beside
//! it.
//!
//! ```text
//! cargo build --release -p coop-bench --bin algorithms_bench
//! examples/bench/algorithms.sh target/release/algorithms_bench out.csv
//! ```
//!
//! Each row is one comparison: medians of `COOP_RUNS` (default 15) samples
//! taken in turns, GB/s counting the bytes each algorithm must move (a
//! scan reads and writes each element; a reduction reads each; a segmented
//! reduction reads each element, each offset and writes each result), and
//! `coop/cub` the ratio of speeds (above 1: coop faster). Calls that return
//! a value to the host (arg-min/arg-max, transform-reductions) are timed
//! with that copy on both sides; a segmented reduction of coop waits for
//! its offsets' check, and CUB's side is followed by the same 8-byte copy.
//! Selections leave their count on the device on both sides
//! (`Selector::*_into`); their GB/s count the input, the flags and the
//! elements written.
//! Every result is checked against CUB's before it is timed.
//!
//! `COOP_PARTS=scan,arg,transform,segmented,select,runs` picks parts
//! (all by default); `COOP_MAX_LOG2` caps the sizes (default 30) and
//! `COOP_MIN_LOG2` drops those below it (default none: a profiler's
//! first launches are then the size it wants).
//! `COOP_SELECT_VARIANTS=name=path.ptx,...` and `COOP_RUNS_VARIANTS` time
//! builds of the select and runs families' PTX of your own against the
//! shipped ones (same items a thread).

use coop::device::map::CountIf;
use coop::op::Sum;
use coop_examples::time_gpu_interleaved;
use coop_host::cudarc::driver::{sys, DevicePtr};
use coop_host::reduce::Reducer;
use coop_host::scan::Scanner;
use coop_host::segmented::SegmentedReducer;
use coop_host::select::Selector;
use coop_host::{CudaSlice, Device, Gpu};
use std::ffi::{c_char, c_int, c_void, CStr};

type Stream = sys::CUstream;

/// CUB's side: the functions of `examples/bench/cub_algorithms.cu`.
struct Cub {
    arg: unsafe extern "C" fn(
        c_int,
        c_int,
        *const c_void,
        usize,
        *mut c_void,
        *mut i64,
        *mut c_void,
        usize,
        Stream,
    ) -> c_int,
    arg_temp: unsafe extern "C" fn(c_int, c_int, usize) -> usize,
    transform: unsafe extern "C" fn(
        c_int,
        c_int,
        *const c_void,
        usize,
        *mut c_void,
        *mut c_void,
        usize,
        Stream,
    ) -> c_int,
    transform_temp: unsafe extern "C" fn(c_int, c_int, usize) -> usize,
    segmented: unsafe extern "C" fn(
        c_int,
        c_int,
        c_int,
        *const c_void,
        usize,
        *const c_void,
        *mut c_void,
        *mut c_void,
        usize,
        Stream,
    ) -> c_int,
    segmented_temp: unsafe extern "C" fn(c_int, c_int, c_int, usize) -> usize,
    scan: unsafe extern "C" fn(
        c_int,
        c_int,
        *const c_void,
        *mut c_void,
        usize,
        *mut c_void,
        usize,
        Stream,
    ) -> c_int,
    scan_temp: unsafe extern "C" fn(c_int, c_int, usize) -> usize,
    copy: unsafe extern "C" fn(*const c_void, *mut c_void, usize, Stream) -> c_int,
    select: unsafe extern "C" fn(
        c_int,
        c_int,
        *const c_void,
        *const c_void,
        *mut c_void,
        *mut c_void,
        usize,
        *mut c_void,
        usize,
        Stream,
    ) -> c_int,
    select_temp: unsafe extern "C" fn(c_int, c_int, usize) -> usize,
    runs: unsafe extern "C" fn(
        c_int,
        c_int,
        *const c_void,
        *const c_void,
        *mut c_void,
        *mut c_void,
        *mut c_void,
        usize,
        *mut c_void,
        usize,
        Stream,
    ) -> c_int,
    runs_temp: unsafe extern "C" fn(c_int, c_int, usize) -> usize,
    out: CudaSlice<u8>,
    _lib: libloading::Library,
}

fn ptr<T>(gpu: &Gpu, s: &CudaSlice<T>) -> *mut c_void {
    let (p, _sync) = s.device_ptr(gpu.stream());
    p as *mut c_void
}

impl Cub {
    fn load(gpu: &Gpu) -> Cub {
        let path = std::env::var("COOP_CUB_ALGO_LIB").unwrap_or_else(|_| {
            eprintln!("set COOP_CUB_ALGO_LIB to the library examples/bench/algorithms.sh builds");
            std::process::exit(2)
        });
        // SAFETY: the library is cub_algorithms.cu's; its functions have
        // the signatures declared above.
        unsafe {
            let lib = libloading::Library::new(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            macro_rules! symbol {
                ($name:literal) => {
                    *lib.get(concat!($name, "\0").as_bytes())
                        .unwrap_or_else(|e| panic!("{path} has no `{}`: {e}", $name))
                };
            }
            let version: unsafe extern "C" fn() -> *const c_char = symbol!("cub_algo_version");
            println!("# {}", CStr::from_ptr(version()).to_string_lossy());
            Cub {
                arg: symbol!("cub_algo_arg"),
                arg_temp: symbol!("cub_algo_arg_temp_bytes"),
                transform: symbol!("cub_algo_transform_reduce"),
                transform_temp: symbol!("cub_algo_transform_temp_bytes"),
                segmented: symbol!("cub_algo_segmented_reduce"),
                segmented_temp: symbol!("cub_algo_segmented_temp_bytes"),
                scan: symbol!("cub_algo_scan"),
                scan_temp: symbol!("cub_algo_scan_temp_bytes"),
                copy: symbol!("cub_algo_copy"),
                select: symbol!("cub_algo_select"),
                select_temp: symbol!("cub_algo_select_temp_bytes"),
                runs: symbol!("cub_algo_runs"),
                runs_temp: symbol!("cub_algo_runs_temp_bytes"),
                out: gpu.zeros::<u8>(64).unwrap(),
                _lib: lib,
            }
        }
    }
}

fn check(rc: c_int, what: &str) {
    assert_eq!(rc, 0, "{what}: cudaError {rc}");
}

/// CUB's type codes.
trait Ty: coop_host::DeviceRepr + Copy + Default + PartialEq + std::fmt::Debug + 'static {
    const NAME: &'static str;
    const CUB: c_int;
    fn make(i: u64) -> Self;
    fn to_f64(self) -> f64;
}
macro_rules! tys {
    ($($t:ty: $name:literal, $code:literal, $make:expr;)*) => {$(
        impl Ty for $t {
            const NAME: &'static str = $name;
            const CUB: c_int = $code;
            fn make(i: u64) -> Self { let f: fn(u64) -> $t = $make; f(i) }
            fn to_f64(self) -> f64 { self as f64 }
        }
    )*};
}
tys! {
    f32: "f32", 0, |i| ((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) % 2001) as f32 / 1000.0 - 1.0;
    f64: "f64", 1, |i| ((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) % 2001) as f64 / 1000.0 - 1.0;
    i32: "i32", 2, |i| ((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) % 2001) as i32 - 1000;
    u32: "u32", 3, |i| ((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) % 2001) as u32;
    i64: "i64", 4, |i| ((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) % 2001) as i64 - 1000;
    u64: "u64", 5, |i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) % 2001;
}

fn upload<T: Ty>(gpu: &Gpu, n: usize) -> CudaSlice<T> {
    let host: Vec<T> = (0..n as u64).map(T::make).collect();
    gpu.upload(&host).unwrap()
}

fn median(mut v: Vec<f32>) -> f64 {
    v.sort_by(f32::total_cmp);
    v[v.len() / 2] as f64
}

/// Times `coop` and `cub` in turns; prints a row and returns coop/cub.
fn row(gpu: &Gpu, what: &str, bytes: f64, coop: &mut dyn FnMut(), cub: &mut dyn FnMut()) -> f64 {
    let runs = std::env::var("COOP_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let times = time_gpu_interleaved(gpu, runs, &mut [coop, cub], &mut || ());
    let (c, u) = (median(times[0].clone()), median(times[1].clone()));
    let ratio = u / c;
    println!(
        "{what},{:.2},{:.2},{:.0},{:.0},{ratio:.3}",
        c * 1e3,
        u * 1e3,
        bytes / (c * 1e-3) / 1e9,
        bytes / (u * 1e-3) / 1e9,
    );
    ratio
}

fn scans<T: Ty + coop_host::scan::BuiltinScan<Sum>>(gpu: &Gpu, cub: &Cub, logs: &[u32]) {
    let device = Device::Gpu(gpu.clone());
    let scanner = Scanner::new(&device).unwrap();
    let deterministic = Scanner::new(&device).unwrap().deterministic();
    for &log in logs {
        let n = 1usize << log;
        let input = upload::<T>(gpu, n);
        let mut out = gpu.zeros::<T>(n).unwrap();
        let mut reference = gpu.zeros::<T>(n).unwrap();
        let bytes = 2.0 * (n * std::mem::size_of::<T>()) as f64;
        for exclusive in [false, true] {
            let temp_bytes = unsafe { (cub.scan_temp)(exclusive as c_int, T::CUB, n) }.max(1);
            let temp = gpu.zeros::<u8>(temp_bytes).unwrap();
            let (i, o, r, t) = (
                ptr(gpu, &input),
                ptr(gpu, &out),
                ptr(gpu, &reference),
                ptr(gpu, &temp),
            );
            let stream = gpu.stream().cu_stream();
            let cub_scan = |dst: *mut c_void| {
                // SAFETY: live device buffers of n elements and the temp CUB asked for.
                check(
                    unsafe {
                        (cub.scan)(exclusive as c_int, T::CUB, i, dst, n, t, temp_bytes, stream)
                    },
                    "DeviceScan",
                );
            };
            let coop_scan = |s: &Scanner, out: &mut CudaSlice<T>| {
                if exclusive {
                    s.exclusive(Sum, &input, out).unwrap()
                } else {
                    s.inclusive(Sum, &input, out).unwrap()
                }
            };
            // Checked: integers exactly, floats within a bound.
            cub_scan(r);
            coop_scan(&scanner, &mut out);
            let (a, b) = (
                gpu.download(&out).unwrap(),
                gpu.download(&reference).unwrap(),
            );
            if std::any::type_name::<T>().starts_with('f') {
                let close = a.iter().zip(&b).all(|(x, y)| {
                    let (x, y) = (x.to_f64(), y.to_f64());
                    (x - y).abs() <= 1e-3 * (1.0 + y.abs()) * (n as f64).log2()
                });
                assert!(close, "{} scan of 2^{log} differs from CUB's", T::NAME);
            } else {
                assert!(a == b, "{} scan of 2^{log} differs from CUB's", T::NAME);
            }
            let kind = if exclusive { "exclusive" } else { "inclusive" };
            row(
                gpu,
                &format!("scan,{kind}_sum,{},2^{log}", T::NAME),
                bytes,
                &mut || coop_scan(&scanner, &mut out),
                &mut || cub_scan(o),
            );
            row(
                gpu,
                &format!("scan_deterministic,{kind}_sum,{},2^{log}", T::NAME),
                bytes,
                &mut || coop_scan(&deterministic, &mut out),
                &mut || cub_scan(o),
            );
            // The deterministic scan against the default one (the
            // reference buffer takes the default's output).
            row(
                gpu,
                &format!(
                    "scan_deterministic_vs_default,{kind}_sum,{},2^{log}",
                    T::NAME
                ),
                bytes,
                &mut || coop_scan(&deterministic, &mut out),
                &mut || coop_scan(&scanner, &mut reference),
            );
        }
        let (i, o) = (ptr(gpu, &input), ptr(gpu, &out));
        let stream = gpu.stream().cu_stream();
        let mut copy = || {
            // SAFETY: two live buffers of `bytes / 2` bytes.
            check(
                unsafe { (cub.copy)(i, o, n * std::mem::size_of::<T>(), stream) },
                "copy",
            );
        };
        let mut scan = || scanner.inclusive(Sum, &input, &mut reference).unwrap();
        row(
            gpu,
            &format!("scan_vs_copy,inclusive_sum,{},2^{log}", T::NAME),
            bytes,
            &mut scan,
            &mut copy,
        );
        // Other block sizes, against the default.
        for threads in [128u32, 512] {
            let other = Scanner::new(&device)
                .unwrap()
                .with_block_threads(threads)
                .unwrap();
            let mut a = || other.inclusive(Sum, &input, &mut out).unwrap();
            let mut b = || scanner.inclusive(Sum, &input, &mut reference).unwrap();
            row(
                gpu,
                &format!(
                    "scan_{threads}_threads_vs_256,inclusive_sum,{},2^{log}",
                    T::NAME
                ),
                bytes,
                &mut a,
                &mut b,
            );
        }
    }
}

/// The scan in variants built apart (`COOP_SCAN_VARIANTS`: a
/// comma-separated list of `name:threads=path.ptx`, PTX of
/// `coop-host-kernels` with the `scan` feature), each against CUB at 2^28,
/// inclusive and exclusive sums:
/// how the figures in chapter 7 of the guide for the scan's parameters were
/// taken. The variants must share this binary's items per thread.
fn scan_variants<T: Ty + coop_host::scan::BuiltinScan<Sum>>(gpu: &Gpu, cub: &Cub, logs: &[u32]) {
    let Ok(list) = std::env::var("COOP_SCAN_VARIANTS") else {
        eprintln!("scan_variants: set COOP_SCAN_VARIANTS=name:threads=path.ptx,...");
        return;
    };
    let device = Device::Gpu(gpu.clone());
    for spec in list.split(',').filter(|s| !s.is_empty()) {
        let (head, path) = spec.split_once('=').expect("name:threads=path");
        let (name, threads) = head.split_once(':').expect("name:threads");
        let threads: u32 = threads.parse().expect("threads");
        let ptx = std::fs::read_to_string(path).expect("the variant's PTX");
        let module = gpu.load_ptx(name, &ptx).expect("the variant's PTX loads");
        let scanner = Scanner::new(&device)
            .unwrap()
            .with_block_threads(threads)
            .unwrap();
        for &log in logs {
            let n = 1usize << log;
            let input = upload::<T>(gpu, n);
            let mut out = gpu.zeros::<T>(n).unwrap();
            let reference = gpu.zeros::<T>(n).unwrap();
            let bytes = 2.0 * (n * std::mem::size_of::<T>()) as f64;
            for exclusive in [false, true] {
                let temp_bytes = unsafe { (cub.scan_temp)(exclusive as c_int, T::CUB, n) }.max(1);
                let temp = gpu.zeros::<u8>(temp_bytes).unwrap();
                let (i, r, t) = (ptr(gpu, &input), ptr(gpu, &reference), ptr(gpu, &temp));
                let stream = gpu.stream().cu_stream();
                let mut cub_scan = || {
                    // SAFETY: live device buffers of n elements and the temp CUB asked for.
                    check(
                        unsafe {
                            (cub.scan)(exclusive as c_int, T::CUB, i, r, n, t, temp_bytes, stream)
                        },
                        "DeviceScan",
                    );
                };
                let kernel = <T as coop_host::scan::BuiltinScan<Sum>>::KERNEL;
                let coop_scan = |out: &mut CudaSlice<T>| {
                    if exclusive {
                        scanner
                            .exclusive_with(&module, kernel, &input, out)
                            .unwrap()
                    } else {
                        scanner
                            .inclusive_with(&module, kernel, &input, out)
                            .unwrap()
                    }
                };
                cub_scan();
                coop_scan(&mut out);
                if !std::any::type_name::<T>().starts_with('f') {
                    let (a, b) = (
                        gpu.download(&out).unwrap(),
                        gpu.download(&reference).unwrap(),
                    );
                    assert!(
                        a == b,
                        "variant {name}: {} scan differs from CUB's",
                        T::NAME
                    );
                }
                let kind = if exclusive { "exclusive" } else { "inclusive" };
                row(
                    gpu,
                    &format!(
                        "scan_variant_{name}_{threads},{kind}_sum,{},2^{log}",
                        T::NAME
                    ),
                    bytes,
                    &mut || coop_scan(&mut out),
                    &mut cub_scan,
                );
            }
        }
    }
}

fn args<
    T: Ty
        + coop_host::reduce::BuiltinMap<
            coop::device::map::WithIndex,
            coop::op::ArgMax,
            Output = coop::op::Arg<T>,
        > + coop_host::reduce::BuiltinMap<
            coop::device::map::WithIndex,
            coop::op::ArgMin,
            Output = coop::op::Arg<T>,
        >,
>(
    gpu: &Gpu,
    cub: &Cub,
    logs: &[u32],
) {
    let reducer = Reducer::new(&Device::Gpu(gpu.clone())).unwrap();
    for &log in logs {
        let n = 1usize << log;
        let input = upload::<T>(gpu, n);
        for is_min in [false, true] {
            let temp_bytes = unsafe { (cub.arg_temp)(is_min as c_int, T::CUB, n) }.max(1);
            let temp = gpu.zeros::<u8>(temp_bytes).unwrap();
            let (i, t, out) = (ptr(gpu, &input), ptr(gpu, &temp), ptr(gpu, &cub.out));
            let stream = gpu.stream().cu_stream();
            let cub_arg = || {
                // SAFETY: live buffers; the index goes 32 bytes into `out`.
                check(
                    unsafe {
                        (cub.arg)(
                            is_min as c_int,
                            T::CUB,
                            i,
                            n,
                            out,
                            (out as *mut u8).add(32) as *mut i64,
                            t,
                            temp_bytes,
                            stream,
                        )
                    },
                    "ArgMax",
                );
                let bytes = gpu.download(&cub.out).unwrap();
                // SAFETY: CUB wrote a `T` at 0 and an i64 at 32.
                unsafe {
                    (
                        std::ptr::read_unaligned(bytes.as_ptr() as *const T),
                        std::ptr::read_unaligned(bytes.as_ptr().add(32) as *const i64),
                    )
                }
            };
            let coop_arg = || {
                if is_min {
                    reducer.arg_min(&input)
                } else {
                    reducer.arg_max(&input)
                }
                .unwrap()
                .unwrap()
            };
            let (c, (v, k)) = (coop_arg(), cub_arg());
            assert_eq!(
                (c.0 as i64, c.1),
                (k, v),
                "{} arg (min: {is_min}) of 2^{log}",
                T::NAME
            );
            let name = if is_min { "arg_min" } else { "arg_max" };
            row(
                gpu,
                &format!("arg,{name},{},2^{log}", T::NAME),
                (n * std::mem::size_of::<T>()) as f64,
                &mut || {
                    coop_arg();
                },
                &mut || {
                    cub_arg();
                },
            );
        }
    }
}

fn transforms(gpu: &Gpu, cub: &Cub, logs: &[u32]) {
    let device = Device::Gpu(gpu.clone());
    let reducer = Reducer::new(&device).unwrap();
    let deterministic = Reducer::new(&device).unwrap().deterministic();
    for &log in logs {
        let n = 1usize << log;
        let input = upload::<f32>(gpu, n);
        let bytes = (n * 4) as f64;
        let stream = gpu.stream().cu_stream();
        for (map, name) in [
            (0, "sum_squares"),
            (1, "sum_abs"),
            (2, "max_abs"),
            (3, "count_greater_0"),
        ] {
            let temp_bytes = unsafe { (cub.transform_temp)(map, 0, n) }.max(1);
            let temp = gpu.zeros::<u8>(temp_bytes).unwrap();
            let (i, t, out) = (ptr(gpu, &input), ptr(gpu, &temp), ptr(gpu, &cub.out));
            let cub_call = || {
                // SAFETY: live buffers.
                check(
                    unsafe { (cub.transform)(map, 0, i, n, out, t, temp_bytes, stream) },
                    "TransformReduce",
                );
                let b = gpu.download(&cub.out).unwrap();
                // SAFETY: CUB wrote an f32 (or a u64 for the count) at 0.
                unsafe {
                    if map == 3 {
                        std::ptr::read_unaligned(b.as_ptr() as *const u64) as f64
                    } else {
                        std::ptr::read_unaligned(b.as_ptr() as *const f32) as f64
                    }
                }
            };
            let coop_call = || match map {
                0 => reducer.sum_squares(&input).unwrap() as f64,
                1 => reducer.sum_abs(&input).unwrap() as f64,
                2 => reducer.max_abs(&input).unwrap() as f64,
                _ => reducer.count_if(&input, CountIf::greater(0.0)).unwrap() as f64,
            };
            let (a, b) = (coop_call(), cub_call());
            assert!(
                (a - b).abs() <= 1e-4 * b.abs().max(1.0),
                "{name} of 2^{log}: coop {a}, CUB {b}"
            );
            row(
                gpu,
                &format!("transform,{name},f32,2^{log}"),
                bytes,
                &mut || {
                    coop_call();
                },
                &mut || {
                    cub_call();
                },
            );
        }
        // The deterministic sum against CUB's plain sum (deterministic
        // from run to run on one GPU), both returning the value.
        // SAFETY: a size query of CUB's library; it touches no buffer.
        let temp_bytes = unsafe { (cub.transform_temp)(4, 0, n) }.max(1);
        let temp = gpu.zeros::<u8>(temp_bytes).unwrap();
        let (i, t, out) = (ptr(gpu, &input), ptr(gpu, &temp), ptr(gpu, &cub.out));
        let cub_sum = || {
            // SAFETY: live buffers.
            check(
                unsafe { (cub.transform)(4, 0, i, n, out, t, temp_bytes, stream) },
                "DeviceReduce::Sum",
            );
            let b = gpu.download(&cub.out).unwrap();
            // SAFETY: CUB wrote an f32 at 0.
            unsafe { std::ptr::read_unaligned(b.as_ptr() as *const f32) as f64 }
        };
        let (a, b) = (deterministic.sum(&input).unwrap() as f64, cub_sum());
        assert!(
            (a - b).abs() <= 1e-4 * b.abs().max(1.0) * log as f64,
            "deterministic sum of 2^{log}: coop {a}, CUB {b}"
        );
        row(
            gpu,
            &format!("deterministic,sum,f32,2^{log}"),
            bytes,
            &mut || {
                deterministic.sum(&input).unwrap();
            },
            &mut || {
                cub_sum();
            },
        );
        // The cost of a deterministic sum: against the default one.
        let mut det = || {
            deterministic.sum(&input).unwrap();
        };
        let mut default = || {
            reducer.sum(&input).unwrap();
        };
        row(
            gpu,
            &format!("deterministic_vs_default,sum,f32,2^{log}"),
            bytes,
            &mut det,
            &mut default,
        );
    }
}

/// Segment lengths of the benchmark: uniform, or a power law.
fn layout(kind: &str, n: usize) -> Vec<u32> {
    let mut offsets = vec![0u32];
    let mut at = 0usize;
    let mut r = 0x1234_5678_9ABC_DEF0u64;
    while at < n {
        let len = match kind {
            "power_law" => {
                r ^= r << 13;
                r ^= r >> 7;
                r ^= r << 17;
                // P(len > x) ~ 1/x: from 1 to 2^22.
                let u = (r >> 11) as f64 / (1u64 << 53) as f64;
                ((1.0 / (1.0 - u * (1.0 - 1.0 / (1u64 << 22) as f64))) as usize).max(1)
            }
            k => k.parse().unwrap(),
        };
        at = (at + len).min(n);
        offsets.push(at as u32);
    }
    offsets
}

fn segmented(gpu: &Gpu, cub: &Cub, log: u32) {
    let reducer = SegmentedReducer::new(&Device::Gpu(gpu.clone())).unwrap();
    let n = 1usize << log;
    let input = upload::<f32>(gpu, n);
    let stream = gpu.stream().cu_stream();
    for kind in ["1", "32", "1024", "1048576", "power_law"] {
        let host_offsets = layout(kind, n);
        let segments = host_offsets.len() - 1;
        let offsets = gpu.upload(&host_offsets).unwrap();
        let mut out = gpu.zeros::<f32>(segments).unwrap();
        let reference = gpu.zeros::<f32>(segments).unwrap();
        let temp_bytes = unsafe { (cub.segmented_temp)(0, 0, 0, segments) }.max(1);
        let temp = gpu.zeros::<u8>(temp_bytes).unwrap();
        let (i, o, r, t) = (
            ptr(gpu, &input),
            ptr(gpu, &offsets),
            ptr(gpu, &reference),
            ptr(gpu, &temp),
        );
        let cub_call = || {
            // SAFETY: live buffers of the stated sizes.
            check(
                unsafe { (cub.segmented)(0, 0, 0, i, segments, o, r, t, temp_bytes, stream) },
                "DeviceSegmentedReduce",
            );
            gpu.download(&cub.out.slice(..8)).unwrap();
        };
        reducer.sum(&input, &offsets, &mut out).unwrap();
        cub_call();
        let (a, b) = (
            gpu.download(&out).unwrap(),
            gpu.download(&reference).unwrap(),
        );
        let bad = a
            .iter()
            .zip(&b)
            .position(|(x, y)| (x - y).abs() > 1e-3 * (1.0 + y.abs()) * 20.0);
        assert!(
            bad.is_none(),
            "segmented sum ({kind}): segment {bad:?} differs from CUB's"
        );
        let mut coop_call = || reducer.sum(&input, &offsets, &mut out).unwrap();
        let bytes = (n * 4 + (segments + 1) * 4 + segments * 4) as f64;
        row(
            gpu,
            &format!("segmented,sum,f32,2^{log} in segments of {kind} ({segments})"),
            bytes,
            &mut coop_call,
            &mut || cub_call(),
        );
    }
}

/// Selections against CUB: by flags (half of them set, and one in twenty),
/// the partition by flags, and unique over runs of about four equal
/// elements; each result (count and kept elements) checked against CUB's
/// first.
fn selects<T: Ty + coop_host::select::BuiltinSelect>(gpu: &Gpu, cub: &Cub, logs: &[u32]) {
    let device = Device::Gpu(gpu.clone());
    let selector = Selector::new(&device).unwrap();
    let mut others: Vec<(String, Selector)> = [128u32, 512]
        .map(|threads| {
            let other = Selector::new(&device)
                .unwrap()
                .with_block_threads(threads)
                .unwrap();
            (format!("{threads}_threads"), other)
        })
        .into();
    // Variants of the select family's PTX, which must keep this binary's
    // items a thread.
    for (name, module) in variant_modules(gpu, "COOP_SELECT_VARIANTS") {
        let other = Selector::new(&device).unwrap().with_module(module).unwrap();
        others.push((format!("variant_{name}"), other));
    }
    for &log in logs {
        let n = 1usize << log;
        let input = upload::<T>(gpu, n);
        let runs: Vec<T> = (0..n as u64).map(|i| T::make(i >> 2)).collect();
        let runs = gpu.upload(&runs).unwrap();
        let mut out = gpu.zeros::<T>(n).unwrap();
        let reference = gpu.zeros::<T>(n).unwrap();
        let mut count = gpu.zeros::<u64>(1).unwrap();
        let cub_count = gpu.zeros::<u64>(1).unwrap();
        let stream = gpu.stream().cu_stream();
        let size = std::mem::size_of::<T>();
        for (kind, name, percent) in [
            (0, "flagged_50", 50u64),
            (0, "flagged_5", 5),
            (1, "partition_flagged_50", 50),
            (2, "unique_runs_of_4", 0),
        ] {
            let flags: Vec<bool> = (0..n as u64)
                .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 33) % 100 < percent)
                .collect();
            let flags = gpu.upload(&flags).unwrap();
            let data = if kind == 2 { &runs } else { &input };
            let temp_bytes = unsafe { (cub.select_temp)(kind, T::CUB, n) }.max(1);
            let temp = gpu.zeros::<u8>(temp_bytes).unwrap();
            let (i, f, r, o, c, t) = (
                ptr(gpu, data),
                ptr(gpu, &flags),
                ptr(gpu, &reference),
                ptr(gpu, &out),
                ptr(gpu, &cub_count),
                ptr(gpu, &temp),
            );
            let cub_select = |dst: *mut c_void| {
                // SAFETY: live device buffers of n elements (flags, one a
                // element), a count, and the temp CUB asked for.
                check(
                    unsafe { (cub.select)(kind, T::CUB, i, f, dst, c, n, t, temp_bytes, stream) },
                    "DeviceSelect",
                );
            };
            let with = |selector: &Selector, out: &mut CudaSlice<T>, count: &mut CudaSlice<u64>| {
                match kind {
                    0 => selector.flagged_into(data, &flags, out, count).unwrap(),
                    1 => selector
                        .partition_flagged_into(data, &flags, out, count)
                        .unwrap(),
                    _ => selector.unique_into(data, out, count).unwrap(),
                }
            };
            let coop_select =
                |out: &mut CudaSlice<T>, count: &mut CudaSlice<u64>| with(&selector, out, count);
            cub_select(r);
            coop_select(&mut out, &mut count);
            let (kept, cub_kept) = (
                gpu.download(&count).unwrap()[0] as usize,
                gpu.download(&cub_count).unwrap()[0] as usize,
            );
            assert_eq!(
                kept,
                cub_kept,
                "{name} of 2^{log} {}: the count differs from CUB's",
                T::NAME
            );
            let written = if kind == 1 { n } else { kept };
            let (a, b) = (
                gpu.download(&out).unwrap(),
                gpu.download(&reference).unwrap(),
            );
            assert!(
                a[..written] == b[..written],
                "{name} of 2^{log} {} differs from CUB's",
                T::NAME
            );
            let flag_bytes = if kind == 2 { 0 } else { n };
            let bytes = (n * size + flag_bytes + written * size) as f64;
            row(
                gpu,
                &format!("select,{name},{},2^{log}", T::NAME),
                bytes,
                &mut || coop_select(&mut out, &mut count),
                &mut || cub_select(o),
            );
            // Other block sizes and variants, against the default.
            for (threads, other) in &others {
                let mut scratch = gpu.zeros::<u64>(1).unwrap();
                let mut other_out = gpu.zeros::<T>(n).unwrap();
                row(
                    gpu,
                    &format!("select_{threads}_vs_default,{name},{},2^{log}", T::NAME),
                    bytes,
                    &mut || with(other, &mut other_out, &mut scratch),
                    &mut || coop_select(&mut out, &mut count),
                );
            }
        }
    }
}

/// The modules named by the environment variable `var`
/// (`name=path.ptx,...`), loaded on `gpu`: builds of a family's PTX of
/// your own to time against the shipped one.
fn variant_modules(gpu: &Gpu, var: &str) -> Vec<(String, coop_host::Module)> {
    std::env::var(var)
        .unwrap_or_default()
        .split(',')
        .filter_map(|spec| spec.split_once('='))
        .map(|(name, path)| {
            let ptx = std::fs::read_to_string(path).expect("the variant's PTX");
            let module = gpu.load_ptx(name, &ptx).expect("the variant's PTX loads");
            (name.to_string(), module)
        })
        .collect()
}

/// Runs of equal u32 keys against CUB: sums by key of `T` values and (for
/// `i32` only) run-length encoding, over runs of 1 to 8 elements (mean
/// 4.5) and of 1 to 512; each result (count, keys, values) checked against
/// CUB's first (float sums within a bound).
fn runs<T: Ty + coop::DeviceCopy + coop::Shuffle + coop_host::cudarc::driver::ValidAsZeroBits>(
    gpu: &Gpu,
    cub: &Cub,
    logs: &[u32],
) where
    u32: coop_host::runs::BuiltinSumByKey<T>,
{
    let device = Device::Gpu(gpu.clone());
    let mut reducers = vec![(
        String::new(),
        coop_host::runs::RunReducer::new(&device).unwrap(),
    )];
    // Variants of the runs family's PTX, which must keep this binary's
    // items a thread.
    for (name, module) in variant_modules(gpu, "COOP_RUNS_VARIANTS") {
        let other = coop_host::runs::RunReducer::new(&device)
            .unwrap()
            .with_module(module)
            .unwrap();
        reducers.push((format!("_variant_{name}"), other));
    }
    // Float sums by key in tile order too (`RunReducer::deterministic`);
    // integer sums are exact and run the same kernels either way.
    if T::NAME.starts_with('f') {
        let deterministic = coop_host::runs::RunReducer::new(&device)
            .unwrap()
            .deterministic();
        reducers.push(("_deterministic".to_string(), deterministic));
    }
    for &log in logs {
        let n = 1usize << log;
        let values = upload::<T>(gpu, n);
        for (name, longest) in [("runs_of_1_to_8", 8u64), ("runs_of_1_to_512", 512)] {
            let mut keys = Vec::with_capacity(n);
            let (mut key, mut i) = (0u32, 0u64);
            while keys.len() < n {
                let len = 1 + (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) % longest;
                keys.extend(std::iter::repeat_n(key, len as usize));
                key += 1;
                i += 1;
            }
            keys.truncate(n);
            let keys = gpu.upload(&keys).unwrap();
            let (mut ko, mut vo) = (gpu.zeros::<u32>(n).unwrap(), gpu.zeros::<T>(n).unwrap());
            let (rk, rv) = (gpu.zeros::<u32>(n).unwrap(), gpu.zeros::<T>(n).unwrap());
            let mut lengths = gpu.zeros::<u32>(n).unwrap();
            let rl = gpu.zeros::<u32>(n).unwrap();
            let mut count = gpu.zeros::<u64>(1).unwrap();
            let cub_count = gpu.zeros::<u64>(1).unwrap();
            let stream = gpu.stream().cu_stream();
            let kinds: &[c_int] = if T::NAME == "i32" { &[0, 1] } else { &[0] };
            for &kind in kinds {
                let temp_bytes = unsafe { (cub.runs_temp)(kind, T::CUB, n) }.max(1);
                let temp = gpu.zeros::<u8>(temp_bytes).unwrap();
                let (k, v, c, t) = (
                    ptr(gpu, &keys),
                    ptr(gpu, &values),
                    ptr(gpu, &cub_count),
                    ptr(gpu, &temp),
                );
                let (rk_p, out_p) = (
                    ptr(gpu, &rk),
                    if kind == 0 {
                        ptr(gpu, &rv)
                    } else {
                        ptr(gpu, &rl)
                    },
                );
                let cub_call = || {
                    // SAFETY: live device buffers of n elements, a count,
                    // and the temp CUB asked for.
                    check(
                        unsafe {
                            (cub.runs)(kind, T::CUB, k, v, rk_p, out_p, c, n, t, temp_bytes, stream)
                        },
                        "DeviceReduce::ReduceByKey / DeviceRunLengthEncode::Encode",
                    );
                };
                let coop_call = |reducer: &coop_host::runs::RunReducer,
                                 ko: &mut CudaSlice<u32>,
                                 vo: &mut CudaSlice<T>,
                                 lengths: &mut CudaSlice<u32>,
                                 count: &mut CudaSlice<u64>| {
                    if kind == 0 {
                        reducer
                            .sum_by_key_into(&keys, &values, ko, vo, count)
                            .unwrap()
                    } else {
                        reducer.encode_into(&keys, ko, lengths, count).unwrap()
                    }
                };
                for (variant, reducer) in &reducers {
                    cub_call();
                    coop_call(reducer, &mut ko, &mut vo, &mut lengths, &mut count);
                    let runs = gpu.download(&count).unwrap()[0] as usize;
                    assert_eq!(
                        runs,
                        gpu.download(&cub_count).unwrap()[0] as usize,
                        "{name}: the count"
                    );
                    assert!(
                        gpu.download(&ko).unwrap()[..runs] == gpu.download(&rk).unwrap()[..runs],
                        "{name}: keys"
                    );
                    if kind == 0 {
                        let (a, b) = (gpu.download(&vo).unwrap(), gpu.download(&rv).unwrap());
                        let close = a[..runs].iter().zip(&b[..runs]).all(|(x, y)| {
                            let (x, y) = (
                                format!("{x:?}").parse::<f64>().unwrap(),
                                format!("{y:?}").parse::<f64>().unwrap(),
                            );
                            (x - y).abs() <= 1e-3 * (1.0 + y.abs())
                        });
                        assert!(close, "{name}: sums by key differ from CUB's");
                    } else {
                        assert!(
                            gpu.download(&lengths).unwrap()[..runs]
                                == gpu.download(&rl).unwrap()[..runs],
                            "{name}: lengths"
                        );
                    }
                    let size = std::mem::size_of::<T>();
                    let bytes = if kind == 0 {
                        (n * (4 + size) + runs * (4 + size)) as f64
                    } else {
                        (n * 4 + runs * 8) as f64
                    };
                    let call = if kind == 0 { "sum_by_key" } else { "encode" };
                    row(
                        gpu,
                        &format!("runs,{call}_{name}{variant},{},2^{log}", T::NAME),
                        bytes,
                        &mut || coop_call(reducer, &mut ko, &mut vo, &mut lengths, &mut count),
                        &mut || cub_call(),
                    );
                }
            }
        }
    }
}

fn main() {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("algorithms_bench needs a GPU: {e}");
            std::process::exit(2);
        }
    };
    let cub = Cub::load(&gpu);
    let parts =
        std::env::var("COOP_PARTS").unwrap_or_else(|_| "arg,transform,segmented,scan".into());
    let max_log: u32 = std::env::var("COOP_MAX_LOG2")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let min_log: u32 = std::env::var("COOP_MIN_LOG2")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let logs = |all: &[u32]| {
        all.iter()
            .copied()
            .filter(|&l| (min_log..=max_log).contains(&l))
            .collect::<Vec<_>>()
    };
    println!(
        "# {} (sm_{}, {} SMs)",
        gpu.limits().name,
        gpu.limits().sm,
        gpu.limits().multiprocessors
    );
    println!("part,call,type,size,coop_us,cub_us,coop_GBps,cub_GBps,coop_over_cub");
    for part in parts.split(',') {
        match part.trim() {
            "scan" => {
                let sizes = logs(&[16, 20, 24, 28, 30]);
                scans::<i32>(&gpu, &cub, &sizes);
                scans::<u32>(&gpu, &cub, &sizes);
                scans::<f32>(&gpu, &cub, &sizes);
                scans::<i64>(&gpu, &cub, &sizes);
                scans::<u64>(&gpu, &cub, &sizes);
                scans::<f64>(&gpu, &cub, &sizes);
            }
            "scan_variants" => {
                scan_variants::<i32>(&gpu, &cub, &logs(&[24, 28]));
                scan_variants::<u64>(&gpu, &cub, &logs(&[24, 28]));
                scan_variants::<f32>(&gpu, &cub, &logs(&[28]));
            }
            "arg" => {
                args::<f32>(&gpu, &cub, &logs(&[20, 24, 28]));
                args::<f64>(&gpu, &cub, &logs(&[28]));
                args::<i32>(&gpu, &cub, &logs(&[28]));
                args::<u64>(&gpu, &cub, &logs(&[28]));
            }
            "transform" => transforms(&gpu, &cub, &logs(&[16, 20, 24, 28])),
            "segmented" => segmented(&gpu, &cub, 28.min(max_log)),
            "select" => {
                selects::<i32>(&gpu, &cub, &logs(&[20, 24, 28]));
                selects::<f32>(&gpu, &cub, &logs(&[28]));
                selects::<u64>(&gpu, &cub, &logs(&[20, 24, 28]));
            }
            "runs" => {
                runs::<i32>(&gpu, &cub, &logs(&[20, 24, 28]));
                runs::<f32>(&gpu, &cub, &logs(&[24, 28]));
                runs::<u64>(&gpu, &cub, &logs(&[24, 28]));
            }
            other => {
                eprintln!("unknown part `{other}` (scan, arg, transform, segmented, select, runs)")
            }
        }
    }
}
