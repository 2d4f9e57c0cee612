//! coop's sums scanned by key (`coop_host::runs::RunReducer::
//! inclusive_sum_by_key`, `exclusive_sum_by_key`: a segmented scan, a key
//! an element) against CUB's `DeviceScan::InclusiveSumByKey` and
//! `ExclusiveSumByKey`, on `u32` keys in runs of 1 to 8, 1 to 512 and
//! 2^16 elements with `i32`, `f32` and `u64` values, and `u64` keys with
//! `f64` values, timed in turns in one process (CUDA events around each
//! call, median of the rounds), every result checked against CUB's
//! (floats within a bound: the additions group differently).
//!
//! ```text
//! cargo build --release -p coop-bench --bin scan_by_key_bench
//! examples/bench/scan_by_key.sh target/release/scan_by_key_bench out.csv   # on the GPU machine
//! ```
//!
//! Prints CSV: `runs, values, kind, log2_n, cub_us, coop_us, cub_gb_per_s,
//! coop_gb_per_s, coop_speed_over_cub, build` (bytes: the keys and values read,
//! the results written). `COOP_SCAN_BY_KEY_LOG2S` (`24,28`) and
//! `COOP_SCAN_BY_KEY_ROUNDS` (15) change the sizes and rounds;
//! `COOP_SCAN_BY_KEY_VARIANTS=name=path.ptx,...` times builds of the runs
//! family's PTX of your own beside the shipped one, in the same turns
//! (their rows name them in the last column, `build`; they must keep this
//! binary's items a thread); `COOP_SCAN_BY_KEY_RUNS` (`8,512,65536`)
//! picks the run shapes.

use coop_host::cudarc::driver::{sys, DevicePtr, DevicePtrMut, DeviceRepr};
use coop_host::runs::{BuiltinSumByKey, RunReducer};
use coop_host::{Device, Error, Gpu};
use std::ffi::{c_char, c_int, c_void, CStr};

type TempBytesFn = unsafe extern "C" fn(c_int, c_int, c_int) -> usize;
type ScanFn = unsafe extern "C" fn(
    c_int,
    c_int,
    *const c_void,
    *const c_void,
    *mut c_void,
    c_int,
    *mut c_void,
    usize,
    sys::CUstream,
) -> c_int;

/// CUB's entry points.
struct Cub {
    temp_bytes: TempBytesFn,
    scan: ScanFn,
}

/// A value type of the benchmark.
trait BenchValue:
    coop::DeviceCopy + coop::Shuffle + DeviceRepr + Copy + PartialEq + std::fmt::Debug
{
    fn from_bits(bits: u64) -> Self;
    /// Whether `a` (coop's) is `b` (CUB's), within a float's regrouping.
    fn close(a: Self, b: Self) -> bool;
}

impl BenchValue for i32 {
    fn from_bits(bits: u64) -> Self {
        bits as i32
    }
    fn close(a: Self, b: Self) -> bool {
        a == b
    }
}
impl BenchValue for u64 {
    fn from_bits(bits: u64) -> Self {
        bits
    }
    fn close(a: Self, b: Self) -> bool {
        a == b
    }
}
impl BenchValue for f32 {
    fn from_bits(bits: u64) -> Self {
        (bits % 2001) as f32 / 1000.0 - 1.0
    }
    fn close(a: Self, b: Self) -> bool {
        (a - b).abs() <= 1e-3 * (1.0 + b.abs())
    }
}
impl BenchValue for f64 {
    fn from_bits(bits: u64) -> Self {
        (bits % 2001) as f64 / 1000.0 - 1.0
    }
    fn close(a: Self, b: Self) -> bool {
        (a - b).abs() <= 1e-9 * (1.0 + b.abs())
    }
}

/// A key type of the benchmark.
trait BenchKey: coop::DeviceCopy + coop::Shuffle + DeviceRepr + Copy {
    fn from_run(run: u64) -> Self;
}
impl BenchKey for u32 {
    fn from_run(run: u64) -> Self {
        run as u32
    }
}
impl BenchKey for u64 {
    fn from_run(run: u64) -> Self {
        run.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// Random bits, the same on every run.
struct Bits(u64);

impl Bits {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// One row a build: CUB's scan `which` against each of coop's `reducers`
/// (a name and the reducer) of `n` elements in runs of `1..=most` (or
/// exactly `most` when `fixed`), all timed in turns.
#[allow(clippy::too_many_arguments)]
fn bench<K: BenchKey + BuiltinSumByKey<V>, V: BenchValue>(
    gpu: &Gpu,
    reducers: &[(String, RunReducer)],
    cub: &Cub,
    (runs, value_name, which): (&str, &str, c_int),
    (most, fixed): (u64, bool),
    exclusive: bool,
    log2: u32,
    rounds: usize,
) -> Result<(), Error> {
    let n = 1usize << log2;
    let mut bits = Bits(0x5EED ^ log2 as u64 ^ most);
    let mut keys = Vec::with_capacity(n);
    let mut run = 0u64;
    while keys.len() < n {
        let len = if fixed { most } else { 1 + bits.next() % most };
        for _ in 0..len.min((n - keys.len()) as u64) {
            keys.push(K::from_run(run));
        }
        run += 1;
    }
    let values: Vec<V> = (0..n).map(|_| V::from_bits(bits.next())).collect();
    let (k, v) = (gpu.upload(&keys)?, gpu.upload(&values)?);
    drop((keys, values));
    let mut cub_out = gpu.zeros::<V>(n)?;
    let mut coop_outs = reducers
        .iter()
        .map(|_| gpu.zeros::<V>(n))
        .collect::<Result<Vec<_>, _>>()?;
    let ex = exclusive as c_int;
    // SAFETY: `cub_scan_by_key_temp_bytes` reads nothing but its arguments.
    let temp = gpu.zeros::<u8>(unsafe { (cub.temp_bytes)(which, ex, n as c_int) }.max(1))?;
    let stream = gpu.stream().cu_stream();
    let times = {
        let s = gpu.stream();
        let (kp, _a) = k.device_ptr(s);
        let (vp, _b) = v.device_ptr(s);
        let (op, _c) = cub_out.device_ptr_mut(s);
        let (tp, _d) = temp.device_ptr(s);
        let mut cub_side = || {
            // SAFETY: device buffers of the sizes CUB was told, on this
            // GPU's stream.
            let code = unsafe {
                (cub.scan)(
                    which,
                    ex,
                    kp as *const c_void,
                    vp as *const c_void,
                    op as *mut c_void,
                    n as c_int,
                    tp as *mut c_void,
                    temp.len(),
                    stream,
                )
            };
            assert_eq!(code, 0, "CUB failed");
        };
        let (k, v) = (&k, &v);
        let mut coop_sides: Vec<_> = reducers
            .iter()
            .zip(coop_outs.iter_mut())
            .map(|((_, reducer), out)| {
                move || {
                    if exclusive {
                        reducer.exclusive_sum_by_key(k, v, &mut *out).unwrap()
                    } else {
                        reducer.inclusive_sum_by_key(k, v, &mut *out).unwrap()
                    }
                }
            })
            .collect();
        let mut sides: Vec<&mut dyn FnMut()> = vec![&mut cub_side];
        sides.extend(coop_sides.iter_mut().map(|f| f as &mut dyn FnMut()));
        coop_examples::time_gpu_interleaved(gpu, rounds, &mut sides, &mut || ())
    };
    let mut times = times.into_iter().map(coop_examples::bench::median_us);
    let cub_us = times.next().unwrap();
    let bytes = (n * (std::mem::size_of::<K>() + 2 * std::mem::size_of::<V>())) as f64;
    let kind = if exclusive { "exclusive" } else { "inclusive" };
    gpu.synchronize()?;
    let want = gpu.download(&cub_out)?;
    for (((build, _), coop_us), out) in reducers.iter().zip(times).zip(&coop_outs) {
        println!(
            "{runs},{value_name},{kind},{log2},{cub_us:.1},{coop_us:.1},{:.0},{:.0},{:.3},{build}",
            bytes / cub_us / 1e3,
            bytes / coop_us / 1e3,
            cub_us / coop_us
        );
        let got = gpu.download(out)?;
        if let Some(i) = (0..n).find(|&i| !V::close(got[i], want[i])) {
            panic!(
                "{runs} {value_name} {kind} 2^{log2} ({build}): element {i} is {:?}, CUB's {:?}",
                got[i], want[i]
            );
        }
    }
    Ok(())
}

fn main() -> Result<(), Error> {
    let sizes: Vec<u32> = std::env::var("COOP_SCAN_BY_KEY_LOG2S")
        .unwrap_or_else(|_| "24,28".into())
        .split(',')
        .map(|v| v.trim().parse().expect("COOP_SCAN_BY_KEY_LOG2S: `24,28`"))
        .collect();
    let rounds: usize = std::env::var("COOP_SCAN_BY_KEY_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let path = std::env::var("COOP_CUB_SCAN_BY_KEY_LIB")
        .unwrap_or_else(|_| "/tmp/libcub_scan_by_key.so".into());
    // SAFETY: loading the library runs its initialisers: CUDA's runtime
    // and CUB, built for this benchmark.
    let lib = unsafe { libloading::Library::new(&path) }.unwrap_or_else(|e| panic!("{path}: {e}"));
    // SAFETY: the symbols have these signatures in cub_scan_by_key.cu.
    let (version, cub) = unsafe {
        let v: libloading::Symbol<unsafe extern "C" fn() -> *const c_char> =
            lib.get(b"cub_scan_by_key_version").unwrap();
        let t: libloading::Symbol<TempBytesFn> = lib.get(b"cub_scan_by_key_temp_bytes").unwrap();
        let s: libloading::Symbol<ScanFn> = lib.get(b"cub_scan_by_key").unwrap();
        (
            CStr::from_ptr(v()).to_string_lossy().into_owned(),
            Cub {
                temp_bytes: *t,
                scan: *s,
            },
        )
    };
    let gpu = Gpu::new(0)?;
    let device = Device::Gpu(gpu.clone());
    let mut reducers = vec![("shipped".to_string(), RunReducer::new(&device)?)];
    for spec in std::env::var("COOP_SCAN_BY_KEY_VARIANTS")
        .unwrap_or_default()
        .split(',')
    {
        if let Some((name, path)) = spec.split_once('=') {
            let ptx = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let module = gpu.load_ptx(name, &ptx)?;
            reducers.push((
                name.to_string(),
                RunReducer::new(&device)?.with_module(module)?,
            ));
        }
    }
    println!(
        "# {} (sm_{}, {} SMs); {version}; coop: blocks of 256; {rounds} rounds",
        gpu.limits().name,
        gpu.limits().sm,
        gpu.limits().multiprocessors
    );
    println!(
        "runs,values,kind,log2_n,cub_us,coop_us,cub_gb_per_s,coop_gb_per_s,coop_speed_over_cub,build"
    );
    let shapes: Vec<u64> = std::env::var("COOP_SCAN_BY_KEY_RUNS")
        .unwrap_or_else(|_| "8,512,65536".into())
        .split(',')
        .map(|v| {
            v.trim()
                .parse()
                .expect("COOP_SCAN_BY_KEY_RUNS: `8,512,65536`")
        })
        .collect();
    for log2 in sizes {
        for (runs, shape) in [
            ("runs of 1 to 8", (8, false)),
            ("runs of 1 to 512", (512, false)),
            ("runs of 2^16", (1 << 16, true)),
        ]
        .into_iter()
        .filter(|(_, (most, _))| shapes.contains(most))
        {
            for exclusive in [false, true] {
                let row = |values, which| (runs, values, which);
                bench::<u32, i32>(
                    &gpu,
                    &reducers,
                    &cub,
                    row("i32", 0),
                    shape,
                    exclusive,
                    log2,
                    rounds,
                )?;
                bench::<u32, f32>(
                    &gpu,
                    &reducers,
                    &cub,
                    row("f32", 1),
                    shape,
                    exclusive,
                    log2,
                    rounds,
                )?;
                bench::<u32, u64>(
                    &gpu,
                    &reducers,
                    &cub,
                    row("u64", 2),
                    shape,
                    exclusive,
                    log2,
                    rounds,
                )?;
                let wide = (runs, "f64 (u64 keys)", 3);
                bench::<u64, f64>(&gpu, &reducers, &cub, wide, shape, exclusive, log2, rounds)?;
            }
        }
    }
    Ok(())
}
