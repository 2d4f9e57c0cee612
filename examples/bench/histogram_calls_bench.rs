//! `coop_host::histogram` against CUB's `DeviceHistogram` (`HistogramEven`,
//! `HistogramRange`, `MultiHistogramEven`), timed in turns in one process
//! (CUDA events around each call, median of the rounds), every coop result
//! checked against CUB's. Both sides zero their counts inside the call.
//!
//! ```text
//! cargo build --release -p coop-bench --bin histogram_calls_bench
//! examples/bench/histogram_calls.sh target/release/histogram_calls_bench out.csv   # on the GPU machine
//! ```
//!
//! Prints CSV: `log2_n, case, data, side, median_us, gb_per_s,
//! cub_over_coop` (bytes of samples read per second; above 1 in the last
//! column: coop faster). `COOP_HC_ROUNDS` (default 20) sets the rounds,
//! `COOP_HC_MAX_LOG2` (default 28) the largest input, `COOP_HC_ONLY` runs
//! only the cases whose `log2 case data` contains it (`24 u8 even 256
//! skewed`).

use coop_host::cudarc::driver::sys;
use coop_host::cudarc::driver::{DevicePtr, DevicePtrMut};
use coop_host::histogram::{EvenBins, Histogrammer};
use coop_host::{Buffer, Device, Error, Gpu};
use std::ffi::{c_char, c_int, c_void, CStr};

type EvenFn<T> = unsafe extern "C" fn(
    *const T,
    *mut u32,
    c_int,
    f64,
    f64,
    i64,
    *mut c_void,
    *mut usize,
    sys::CUstream,
) -> c_int;
type RangeFn<T> = unsafe extern "C" fn(
    *const T,
    *mut u32,
    c_int,
    *const c_void,
    i64,
    *mut c_void,
    *mut usize,
    sys::CUstream,
) -> c_int;
type RgbaFn =
    unsafe extern "C" fn(*const u8, *mut u32, i64, *mut c_void, *mut usize, sys::CUstream) -> c_int;

/// What CUB's call of a case is.
enum CubCall<T: 'static> {
    Even(EvenFn<T>, f64, f64),
    Range(RangeFn<T>, &'static [f64]),
    Rgba(RgbaFn),
}

/// What coop's call of a case is.
enum CoopCall {
    Even(f64, f64),
    Range(&'static [f64]),
    Rgba,
}

/// A sample type of the cases.
trait Sample: coop_host::histogram::BuiltinHistogram + Default + PartialEq {
    /// The level `v` (bounds and levels are `i64` for integer samples).
    fn level_of(v: f64) -> Self::Level;
    fn from_bits(bits: u64) -> Self;
}
impl Sample for u8 {
    fn level_of(v: f64) -> i64 {
        v as i64
    }
    fn from_bits(bits: u64) -> Self {
        bits as u8
    }
}
impl Sample for u16 {
    fn level_of(v: f64) -> i64 {
        v as i64
    }
    fn from_bits(bits: u64) -> Self {
        bits as u16
    }
}
impl Sample for i32 {
    fn level_of(v: f64) -> i64 {
        v as i64
    }
    fn from_bits(bits: u64) -> Self {
        (bits % 2_000_000) as i32 - 1_000_000
    }
}
impl Sample for f32 {
    fn level_of(v: f64) -> f32 {
        v as f32
    }
    fn from_bits(bits: u64) -> Self {
        (bits >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// `n` samples: a hash of the index each, or (skewed) three quarters one
/// value.
fn samples<T: Sample>(n: usize, skewed: bool) -> Vec<T> {
    let hash = |i: u64| {
        let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5bd1_e995;
        x ^= x >> 29;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x ^ (x >> 32)
    };
    let common = T::from_bits(hash(u64::MAX));
    (0..n as u64)
        .map(|i| {
            let h = hash(i);
            if skewed && h % 4 != 0 {
                common
            } else {
                T::from_bits(h >> 2)
            }
        })
        .collect()
}

struct Bench {
    gpu: Gpu,
    device: Device,
    rounds: usize,
}

impl Bench {
    /// Times CUB's call and each coop side on `data`, checks them, prints
    /// a row a side.
    #[allow(clippy::too_many_arguments)]
    fn case<T: Sample>(
        &self,
        log2: u32,
        name: &str,
        label: &str,
        data: &Buffer<T>,
        bins: usize,
        cub: CubCall<T>,
        coop: CoopCall,
        sides: &[(&str, Histogrammer)],
    ) -> Result<(), Error> {
        if let Ok(only) = std::env::var("COOP_HC_ONLY") {
            if !format!("{log2} {name} {label}").contains(&only) {
                return Ok(());
            }
        }
        let gpu = &self.gpu;
        let n = data.len();
        let stream = gpu.stream().cu_stream();
        let mut outs: Vec<Buffer<u32>> = (0..=sides.len())
            .map(|_| self.device.zeros::<u32>(bins))
            .collect::<Result<_, _>>()?;
        let levels_dev = match &cub {
            CubCall::Range(_, levels) => Some(
                self.device
                    .upload(&levels.iter().map(|&l| T::level_of(l)).collect::<Vec<_>>())?,
            ),
            _ => None,
        };
        let (cub_outs, coop_outs) = outs.split_at_mut(1);
        let (Buffer::Gpu(data_gpu), Buffer::Gpu(cub_out)) = (data, &mut cub_outs[0]) else {
            unreachable!("GPU buffers")
        };
        let (data_ptr, _r) = data_gpu.device_ptr(gpu.stream());
        let (cub_ptr, _w) = cub_out.device_ptr_mut(gpu.stream());
        let levels_ptr = levels_dev.as_ref().map(|l| match l {
            Buffer::Gpu(l) => l.device_ptr(gpu.stream()).0,
            Buffer::Cpu(_) => unreachable!(),
        });
        // SAFETY (every CUB call below): device buffers of the sizes CUB is
        // told, on this GPU's stream; a null `temp` only asks for the size.
        let call = |temp: *mut c_void, bytes: &mut usize| unsafe {
            let (d, h) = (data_ptr as *const T, cub_ptr as *mut u32);
            match &cub {
                CubCall::Even(f, lo, hi) => {
                    f(d, h, bins as c_int, *lo, *hi, n as i64, temp, bytes, stream)
                }
                CubCall::Range(f, levels) => f(
                    d,
                    h,
                    levels.len() as c_int,
                    levels_ptr.unwrap() as *const c_void,
                    n as i64,
                    temp,
                    bytes,
                    stream,
                ),
                CubCall::Rgba(f) => f(d as *const u8, h, (n / 4) as i64, temp, bytes, stream),
            }
        };
        let mut temp_bytes = 0usize;
        assert_eq!(call(std::ptr::null_mut(), &mut temp_bytes), 0);
        let temp = gpu.zeros::<u8>(temp_bytes.max(1))?;
        let (temp_ptr, _t) = temp.device_ptr(gpu.stream());
        let mut cub_side = || {
            let mut bytes = temp_bytes;
            assert_eq!(call(temp_ptr as *mut c_void, &mut bytes), 0, "CUB failed");
        };
        let levels: Option<Vec<T::Level>> = match &coop {
            CoopCall::Range(l) => Some(l.iter().map(|&v| T::level_of(v)).collect()),
            _ => None,
        };
        let rgb = [EvenBins::new(T::level_of(0.0), T::level_of(256.0), 256); 3];
        let mut closures: Vec<Box<dyn FnMut() + '_>> = Vec::new();
        for ((_, h), out) in sides.iter().zip(coop_outs.iter_mut()) {
            let levels = levels.as_deref();
            let coop = &coop;
            closures.push(Box::new(move || {
                match coop {
                    CoopCall::Even(lo, hi) => {
                        h.even(data, T::level_of(*lo), T::level_of(*hi), &mut *out)
                    }
                    CoopCall::Range(_) => h.range(data, levels.unwrap(), &mut *out),
                    CoopCall::Rgba => h.even_pixels(data, 4, &rgb, &mut *out),
                }
                .unwrap()
            }));
        }
        let mut all: Vec<&mut dyn FnMut()> = vec![&mut cub_side];
        for c in closures.iter_mut() {
            all.push(c.as_mut());
        }
        let times = coop_examples::time_gpu_interleaved(gpu, self.rounds, &mut all, &mut || ());
        drop(all);
        drop(closures);
        drop((_r, _w, _t));
        let median = |t: &Vec<f32>| {
            let mut t = t.clone();
            t.sort_by(f32::total_cmp);
            t[t.len() / 2] as f64 * 1e3
        };
        let reference = self.device.download(&outs[0])?;
        let cub_us = median(&times[0]);
        let bytes = (n * std::mem::size_of::<T>()) as f64;
        println!(
            "{log2},{name},{label},CUB,{cub_us:.1},{:.1},1.000",
            bytes / cub_us / 1e3
        );
        for (k, (side, _)) in sides.iter().enumerate() {
            let got = self.device.download(&outs[k + 1])?;
            assert_eq!(
                got, reference,
                "{name} {label} 2^{log2}: {side} differs from CUB"
            );
            let us = median(&times[k + 1]);
            println!(
                "{log2},{name},{label},{side},{us:.1},{:.1},{:.3}",
                bytes / us / 1e3,
                cub_us / us
            );
        }
        Ok(())
    }
}

fn main() -> Result<(), Error> {
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let (rounds, max_log2) = (
        env("COOP_HC_ROUNDS", 20),
        env("COOP_HC_MAX_LOG2", 28) as u32,
    );
    let path = std::env::var("COOP_CUB_HC_LIB")
        .unwrap_or_else(|_| "/tmp/libcub_histogram_calls.so".into());
    // SAFETY: loading the library runs its initialisers: CUDA's runtime and
    // CUB, built for this benchmark.
    let lib = unsafe { libloading::Library::new(&path) }.unwrap_or_else(|e| panic!("{path}: {e}"));
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the symbols have the types they are read as, in
            // cub_histogram_calls.cu.
            *unsafe { lib.get($name) }.unwrap()
        };
    }
    let version: unsafe extern "C" fn() -> *const c_char = sym!(b"cub_hc_version");
    let (even_u8, even_u16, even_i32, even_f32): (
        EvenFn<u8>,
        EvenFn<u16>,
        EvenFn<i32>,
        EvenFn<f32>,
    ) = (
        sym!(b"cub_hc_even_u8"),
        sym!(b"cub_hc_even_u16"),
        sym!(b"cub_hc_even_i32"),
        sym!(b"cub_hc_even_f32"),
    );
    let (range_u8, range_f32): (RangeFn<u8>, RangeFn<f32>) =
        (sym!(b"cub_hc_range_u8"), sym!(b"cub_hc_range_f32"));
    let rgba: RgbaFn = sym!(b"cub_hc_rgba_u8");
    let gpu = Gpu::new(0)?;
    let device = Device::Gpu(gpu.clone());
    // SAFETY: a static string of the library.
    let version = unsafe { CStr::from_ptr(version()) }
        .to_string_lossy()
        .into_owned();
    println!(
        "# {} (sm_{}, {} SMs); {version}; {rounds} rounds",
        gpu.limits().name,
        gpu.limits().sm,
        gpu.limits().multiprocessors
    );
    println!("log2_n,case,data,side,median_us,gb_per_s,cub_over_coop");
    let bench = Bench {
        gpu: gpu.clone(),
        device: device.clone(),
        rounds,
    };
    let default = || Histogrammer::new(&device).unwrap();
    let sets = |s| Histogrammer::new(&device).unwrap().with_sets(s).unwrap();
    // Variants of the kernels built apart (`COOP_HC_VARIANTS`: a
    // comma-separated list of `name=path.ptx`, PTX of `coop-host-kernels`
    // with the `histogram` feature), timed beside the shipped ones.
    let variants: Vec<(String, String)> = std::env::var("COOP_HC_VARIANTS")
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|spec| {
            let (name, path) = spec.split_once('=').expect("name=path.ptx");
            let ptx = std::fs::read_to_string(path).expect("the variant's PTX");
            (format!("coop {name}"), ptx)
        })
        .collect();
    let one_set: Vec<String> = variants.iter().map(|(n, _)| format!("{n} 1 set")).collect();
    let with = |ptx: &str| {
        let module = gpu
            .load_ptx("variant", ptx)
            .expect("the variant's PTX loads");
        default().with_module(module).unwrap()
    };
    let mut byte_sides: Vec<(&str, Histogrammer)> = vec![
        ("coop", default()),
        ("coop 1 set", sets(1)),
        ("coop 2 sets", sets(2)),
        ("coop 4 sets", sets(4)),
    ];
    let mut plain: Vec<(&str, Histogrammer)> = vec![("coop", default())];
    for ((name, module), one) in variants.iter().zip(&one_set) {
        byte_sides.push((name, with(module)));
        byte_sides.push((one, with(module).with_sets(1).unwrap()));
        plain.push((name, with(module)));
    }
    static DECILES: [f64; 11] = [0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0];
    static BYTE_LEVELS: [f64; 17] = [
        0.0, 16.0, 32.0, 48.0, 64.0, 80.0, 96.0, 112.0, 128.0, 144.0, 160.0, 176.0, 192.0, 208.0,
        224.0, 240.0, 256.0,
    ];
    let logs: Vec<u32> = [20u32, 24, 28]
        .into_iter()
        .filter(|&l| l <= max_log2)
        .collect();
    for &log2 in &logs {
        let n = 1usize << log2;
        for skewed in [false, true] {
            let label = if skewed { "skewed" } else { "uniform" };
            let data = device.upload(&samples::<u8>(n, skewed))?;
            bench.case(
                log2,
                "u8 even 256",
                label,
                &data,
                256,
                CubCall::Even(even_u8, 0.0, 256.0),
                CoopCall::Even(0.0, 256.0),
                &byte_sides,
            )?;
            if skewed || (log2 < 24 && max_log2 >= 24) {
                continue;
            }
            bench.case(
                log2,
                "u8 even 64",
                label,
                &data,
                64,
                CubCall::Even(even_u8, 0.0, 256.0),
                CoopCall::Even(0.0, 256.0),
                &plain,
            )?;
            bench.case(
                log2,
                "u8 range 16",
                label,
                &data,
                16,
                CubCall::Range(range_u8, &BYTE_LEVELS),
                CoopCall::Range(&BYTE_LEVELS),
                &plain,
            )?;
            bench.case(
                log2,
                "u8 rgba 3x256",
                label,
                &data,
                768,
                CubCall::Rgba(rgba),
                CoopCall::Rgba,
                &byte_sides,
            )?;
        }
        if log2 < 24 && max_log2 >= 24 {
            continue;
        }
        let data = device.upload(&samples::<u16>(n, false))?;
        bench.case(
            log2,
            "u16 even 1024",
            "uniform",
            &data,
            1024,
            CubCall::Even(even_u16, 0.0, 65536.0),
            CoopCall::Even(0.0, 65536.0),
            &plain,
        )?;
        drop(data);
        let data = device.upload(&samples::<i32>(n, false))?;
        bench.case(
            log2,
            "i32 even 1000",
            "uniform",
            &data,
            1000,
            CubCall::Even(even_i32, -1e6, 1e6),
            CoopCall::Even(-1e6, 1e6),
            &plain,
        )?;
        drop(data);
        for skewed in [false, true] {
            let label = if skewed { "skewed" } else { "uniform" };
            let data = device.upload(&samples::<f32>(n, skewed))?;
            bench.case(
                log2,
                "f32 even 1000",
                label,
                &data,
                1000,
                CubCall::Even(even_f32, 0.0, 1.0),
                CoopCall::Even(0.0, 1.0),
                &plain,
            )?;
            if skewed {
                continue;
            }
            bench.case(
                log2,
                "f32 range 10",
                label,
                &data,
                10,
                CubCall::Range(range_f32, &DECILES),
                CoopCall::Range(&DECILES),
                &plain,
            )?;
            bench.case(
                log2,
                "f32 even 20000",
                label,
                &data,
                20000,
                CubCall::Even(even_f32, 0.0, 1.0),
                CoopCall::Even(0.0, 1.0),
                &plain,
            )?;
        }
    }
    Ok(())
}
