//! coop's radix sort (`coop_host::sort::Sorter`) against CUB's
//! `DeviceRadixSort::SortKeys`/`SortPairs`, on uniformly random keys
//! (u32, u64, f32, f64; u32 and u64 keys with u32 values), 2^20 to 2^28
//! keys, timed in turns in one process (CUDA events around each call,
//! median of the rounds).
//!
//! ```text
//! cargo build --release -p coop-bench --bin sort_bench
//! examples/bench/sort.sh target/release/sort_bench out.csv   # on the GPU machine
//! ```
//!
//! CUB sorts from an input buffer into an output one; coop sorts in place,
//! so each of its calls first copies the random keys into the buffer it
//! sorts. That copy is timed alone as well, and `coop_sort_us` is coop's
//! call less the copy. Prints CSV: `sort, log2_n, cub_us, copy_us,
//! coop_us, coop_sort_us, cub_gkeys_per_s, coop_gkeys_per_s,
//! coop_speed_over_cub`, and checks every result against CUB's.
//! `COOP_SORT_LOG2S` (`20,24,28`) and `COOP_SORT_ROUNDS` (15) change the
//! sizes and rounds; `COOP_SORT_THREADS=384,512` adds rows for other block
//! sizes, `COOP_SORT_VARIANTS=name=path.ptx,...` for other builds of the
//! sort kernels.

use coop_host::cudarc::driver::{sys, DevicePtr, DevicePtrMut, DeviceRepr};
use coop_host::sort::{BuiltinSort, Sorter};
use coop_host::{Device, Error, Gpu};
use std::ffi::{c_char, c_int, c_void, CStr};

type TempBytesFn = unsafe extern "C" fn(c_int, c_int) -> usize;
type SortFn = unsafe extern "C" fn(
    c_int,
    *const c_void,
    *mut c_void,
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
    sort: SortFn,
}

/// A key type of the benchmark: random keys from random bits.
trait BenchKey: BuiltinSort + DeviceRepr + PartialEq + std::fmt::Debug {
    fn from_bits(bits: u64) -> Self;
}

impl BenchKey for u32 {
    fn from_bits(bits: u64) -> Self {
        bits as u32
    }
}
impl BenchKey for u64 {
    fn from_bits(bits: u64) -> Self {
        bits
    }
}
impl BenchKey for f32 {
    fn from_bits(bits: u64) -> Self {
        // Finite floats of every magnitude and sign.
        let f = f32::from_bits(bits as u32 & 0xBFFF_FFFF);
        if f.is_finite() {
            f
        } else {
            1.0
        }
    }
}
impl BenchKey for f64 {
    fn from_bits(bits: u64) -> Self {
        let f = f64::from_bits(bits & 0xBFFF_FFFF_FFFF_FFFF);
        if f.is_finite() {
            f
        } else {
            1.0
        }
    }
}

/// Random bits, the same on every run.
fn random_bits(n: usize, seed: u64) -> impl Iterator<Item = u64> {
    let mut state = seed | 1;
    (0..n).map(move |_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    })
}

fn median(t: &[f32]) -> f64 {
    let mut t = t.to_vec();
    t.sort_by(f32::total_cmp);
    t[t.len() / 2] as f64 * 1e3
}

/// One row: CUB's sort `which` against coop's of `n` random keys of `K`
/// (with `u32` values when `pairs`).
#[allow(clippy::too_many_arguments)]
fn bench<K: BenchKey>(
    gpu: &Gpu,
    sorter: &Sorter,
    cub: &Cub,
    name: &str,
    which: c_int,
    pairs: bool,
    log2: u32,
    rounds: usize,
) -> Result<(), Error> {
    let n = 1usize << log2;
    let keys: Vec<K> = random_bits(n, 0x9E37_79B9 ^ log2 as u64)
        .map(K::from_bits)
        .collect();
    let pristine = gpu.upload(&keys)?;
    drop(keys);
    let ids: Vec<u32> = (0..n as u32).collect();
    let pristine_values = gpu.upload(&ids)?;
    drop(ids);
    let mut cub_keys = gpu.zeros::<K>(n)?;
    let mut cub_values = gpu.zeros::<u32>(n)?;
    let mut work = gpu.zeros::<K>(n)?;
    let mut work_values = gpu.zeros::<u32>(n)?;
    let mut copied = gpu.zeros::<K>(n)?;
    let mut copied_values = gpu.zeros::<u32>(if pairs { n } else { 1 })?;
    // SAFETY: `cub_sort_temp_bytes` reads nothing but its arguments.
    let temp = gpu.zeros::<u8>(unsafe { (cub.temp_bytes)(which, n as c_int) }.max(1))?;
    let stream = gpu.stream().cu_stream();
    {
        let s = gpu.stream();
        let (ki, _a) = pristine.device_ptr(s);
        let (vi, _b) = pristine_values.device_ptr(s);
        let (ko, _c) = cub_keys.device_ptr_mut(s);
        let (vo, _d) = cub_values.device_ptr_mut(s);
        let (tp, _e) = temp.device_ptr(s);
        let mut cub_side = || {
            // SAFETY: device buffers of the sizes CUB was told, on this
            // GPU's stream.
            let code = unsafe {
                (cub.sort)(
                    which,
                    ki as *const c_void,
                    ko as *mut c_void,
                    vi as *const c_void,
                    vo as *mut c_void,
                    n as c_int,
                    tp as *mut c_void,
                    temp.len(),
                    stream,
                )
            };
            assert_eq!(code, 0, "CUB failed");
        };
        let mut copy_side = || {
            gpu.stream().memcpy_dtod(&pristine, &mut copied).unwrap();
            if pairs {
                gpu.stream()
                    .memcpy_dtod(&pristine_values, &mut copied_values)
                    .unwrap();
            }
        };
        let mut coop_side = || {
            gpu.stream().memcpy_dtod(&pristine, &mut work).unwrap();
            if pairs {
                gpu.stream()
                    .memcpy_dtod(&pristine_values, &mut work_values)
                    .unwrap();
                sorter.pairs(&mut work, &mut work_values).unwrap();
            } else {
                sorter.keys(&mut work).unwrap();
            }
        };
        let times = coop_examples::time_gpu_interleaved(
            gpu,
            rounds,
            &mut [&mut cub_side, &mut copy_side, &mut coop_side],
            &mut || (),
        );
        let (cub_us, copy_us, coop_us) = (median(&times[0]), median(&times[1]), median(&times[2]));
        let coop_sort_us = coop_us - copy_us;
        println!(
            "{name},{log2},{cub_us:.1},{copy_us:.1},{coop_us:.1},{coop_sort_us:.1},{:.2},{:.2},{:.3}",
            n as f64 / cub_us / 1e3,
            n as f64 / coop_sort_us / 1e3,
            cub_us / coop_sort_us
        );
    }
    gpu.synchronize()?;
    let want = gpu.download(&cub_keys)?;
    let got = gpu.download(&work)?;
    if let Some(i) = (0..n).find(|&i| want[i] != got[i]) {
        panic!(
            "{name} 2^{log2}: key {i} is {:?}, CUB's {:?}",
            got[i], want[i]
        );
    }
    if pairs {
        let want = gpu.download(&cub_values)?;
        let got = gpu.download(&work_values)?;
        assert!(want == got, "{name} 2^{log2}: the values differ from CUB's");
    }
    Ok(())
}

fn main() -> Result<(), Error> {
    let sizes: Vec<u32> = std::env::var("COOP_SORT_LOG2S")
        .unwrap_or_else(|_| "20,24,28".into())
        .split(',')
        .map(|v| {
            v.trim()
                .parse()
                .expect("COOP_SORT_LOG2S: sizes as powers of two, `20,24,28`")
        })
        .collect();
    let rounds: usize = std::env::var("COOP_SORT_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let path = std::env::var("COOP_CUB_SORT_LIB").unwrap_or_else(|_| "/tmp/libcub_sort.so".into());
    // SAFETY: loading the library runs its initialisers: CUDA's runtime
    // and CUB, built for this benchmark.
    let lib = unsafe { libloading::Library::new(&path) }.unwrap_or_else(|e| panic!("{path}: {e}"));
    // SAFETY: the symbols have these signatures in cub_sort.cu.
    let (version, cub) = unsafe {
        let v: libloading::Symbol<unsafe extern "C" fn() -> *const c_char> =
            lib.get(b"cub_sort_version").unwrap();
        let t: libloading::Symbol<TempBytesFn> = lib.get(b"cub_sort_temp_bytes").unwrap();
        let s: libloading::Symbol<SortFn> = lib.get(b"cub_sort").unwrap();
        (
            CStr::from_ptr(v()).to_string_lossy().into_owned(),
            Cub {
                temp_bytes: *t,
                sort: *s,
            },
        )
    };
    let gpu = Gpu::new(0)?;
    // coop's shipped kernels, then any variants of their PTX
    // (`COOP_SORT_VARIANTS=name=path.ptx,...`), each its own rows.
    let mut sorters = vec![(String::new(), Sorter::new(&Device::Gpu(gpu.clone()))?)];
    // Other block sizes of the shipped kernels (`COOP_SORT_THREADS=384,512`).
    if let Ok(sizes) = std::env::var("COOP_SORT_THREADS") {
        for threads in sizes.split(',').filter(|v| !v.is_empty()) {
            let threads: u32 = threads.trim().parse().expect("COOP_SORT_THREADS: 384,512");
            let sorter = Sorter::new(&Device::Gpu(gpu.clone()))?.with_block_threads(threads)?;
            sorters.push((format!("{threads} threads: "), sorter));
        }
    }
    if let Ok(variants) = std::env::var("COOP_SORT_VARIANTS") {
        for variant in variants.split(',').filter(|v| !v.is_empty()) {
            let (name, path) = variant
                .split_once('=')
                .expect("COOP_SORT_VARIANTS: name=path.ptx,...");
            let ptx = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let module = gpu.load_ptx(name, &ptx)?;
            let sorter = Sorter::new(&Device::Gpu(gpu.clone()))?.with_module(module)?;
            sorters.push((format!("{name}: "), sorter));
        }
    }
    println!(
        "# {} (sm_{}, {} SMs); {version}; coop: blocks of 256; {rounds} rounds",
        gpu.limits().name,
        gpu.limits().sm,
        gpu.limits().multiprocessors
    );
    println!("sort,log2_n,cub_us,copy_us,coop_us,coop_sort_us,cub_gkeys_per_s,coop_gkeys_per_s,coop_speed_over_cub");
    for log2 in sizes {
        for (variant, sorter) in &sorters {
            let name = |sort: &str| format!("{variant}{sort}");
            bench::<u32>(
                &gpu,
                sorter,
                &cub,
                &name("u32 keys"),
                0,
                false,
                log2,
                rounds,
            )?;
            bench::<u64>(
                &gpu,
                sorter,
                &cub,
                &name("u64 keys"),
                1,
                false,
                log2,
                rounds,
            )?;
            bench::<f32>(
                &gpu,
                sorter,
                &cub,
                &name("f32 keys"),
                2,
                false,
                log2,
                rounds,
            )?;
            bench::<f64>(
                &gpu,
                sorter,
                &cub,
                &name("f64 keys"),
                3,
                false,
                log2,
                rounds,
            )?;
            let pairs = name("u32 keys + u32 values");
            bench::<u32>(&gpu, sorter, &cub, &pairs, 4, true, log2, rounds)?;
            let pairs = name("u64 keys + u32 values");
            bench::<u64>(&gpu, sorter, &cub, &pairs, 5, true, log2, rounds)?;
        }
    }
    Ok(())
}
