//! coop's top-k (`coop_host::top_k::TopK`) against the routes CUB offers:
//! `DeviceRadixSort::SortKeysDescending`/`SortPairsDescending` followed by
//! taking the first k (what CUB users do where the toolkit lacks
//! `DeviceTopK`), and `DeviceTopK::MaxKeys`/`MaxPairs` where it has it.
//! The k largest of 2^20 to 2^28 uniformly random keys (f32, f32 with
//! their u32 indices, u32, u64) for k = 1, 32, 1024 and 65536, timed in
//! turns in one process (CUDA events around each call, median of the
//! rounds).
//!
//! ```text
//! cargo build --release -p coop-bench --bin top_k_bench
//! examples/bench/top_k.sh target/release/top_k_bench out.csv   # on the GPU machine
//! ```
//!
//! Prints CSV: `selection, log2_n, k, cub_sort_us, cub_top_k_us,
//! coop_us, coop_unordered_us, speed_over_cub_sort, speed_over_cub_top_k`
//! (`cub_top_k_us` empty without `DeviceTopK`), and checks coop's sorted
//! results against the first k of CUB's stable sort (keys, and indices
//! exactly), its unordered ones as a set, and `DeviceTopK`'s keys as a
//! set. `COOP_TOP_K_LOG2S` (`20,24,28`), `COOP_TOP_K_KS`
//! (`1,32,1024,65536`) and `COOP_TOP_K_ROUNDS` (15) change what is run.

use coop_host::cudarc::driver::{sys, DevicePtr, DevicePtrMut, DeviceRepr};
use coop_host::top_k::{BuiltinTopK, TopK};
use coop_host::{Device, Error, Gpu};
use std::ffi::{c_char, c_int, c_void, CStr};

type TempBytesFn = unsafe extern "C" fn(c_int, c_int, c_int, c_int) -> usize;
type TopKFn = unsafe extern "C" fn(
    c_int,
    c_int,
    *const c_void,
    *mut c_void,
    *const c_void,
    *mut c_void,
    c_int,
    c_int,
    *mut c_void,
    usize,
    sys::CUstream,
) -> c_int;

/// CUB's entry points.
struct Cub {
    temp_bytes: TempBytesFn,
    top_k: TopKFn,
    has_top_k: bool,
}

/// A key type of the benchmark.
trait BenchKey: BuiltinTopK + DeviceRepr + PartialOrd + std::fmt::Debug {
    fn from_bits(bits: u64) -> Self;
    fn order(a: &Self, b: &Self) -> std::cmp::Ordering;
}

impl BenchKey for u32 {
    fn from_bits(bits: u64) -> Self {
        bits as u32
    }
    fn order(a: &Self, b: &Self) -> std::cmp::Ordering {
        a.cmp(b)
    }
}
impl BenchKey for u64 {
    fn from_bits(bits: u64) -> Self {
        bits
    }
    fn order(a: &Self, b: &Self) -> std::cmp::Ordering {
        a.cmp(b)
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
    fn order(a: &Self, b: &Self) -> std::cmp::Ordering {
        a.total_cmp(b)
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

/// The keys of `v`, sorted, for comparing sets.
fn sorted<K: BenchKey>(mut v: Vec<K>) -> Vec<K> {
    v.sort_by(K::order);
    v
}

/// One row: the `k` largest of `n` random keys of `K` (with indices when
/// `pairs`) by CUB's routes and coop's.
#[allow(clippy::too_many_arguments)]
fn bench<K: BenchKey>(
    gpu: &Gpu,
    top: &TopK,
    loose: &TopK,
    cub: &Cub,
    name: &str,
    which: c_int,
    pairs: bool,
    log2: u32,
    k: usize,
    rounds: usize,
) -> Result<(), Error> {
    let n = 1usize << log2;
    let keys: Vec<K> = random_bits(n, 0x9E37_79B9 ^ log2 as u64)
        .map(K::from_bits)
        .collect();
    let input = gpu.upload(&keys)?;
    drop(keys);
    let ids: Vec<u32> = (0..n as u32).collect();
    let input_ids = gpu.upload(&ids)?;
    drop(ids);
    let mut sorted_keys = gpu.zeros::<K>(n)?;
    let mut sorted_ids = gpu.zeros::<u32>(n)?;
    let mut cub_keys = gpu.zeros::<K>(k)?;
    let mut cub_ids = gpu.zeros::<u32>(k)?;
    let mut out = gpu.zeros::<K>(k)?;
    let mut out_ids = gpu.zeros::<u32>(k)?;
    let mut loose_out = gpu.zeros::<K>(k)?;
    let mut loose_ids = gpu.zeros::<u32>(k)?;
    // SAFETY: `cub_top_k_temp_bytes` reads nothing but its arguments.
    let bytes = |route| unsafe { (cub.temp_bytes)(which, route, n as c_int, k as c_int) }.max(1);
    let sort_temp = gpu.zeros::<u8>(bytes(0))?;
    let top_temp = gpu.zeros::<u8>(if cub.has_top_k { bytes(1) } else { 1 })?;
    let stream = gpu.stream().cu_stream();
    let (cub_sort_us, cub_top_us, coop_us, loose_us) = {
        let s = gpu.stream();
        let (ki, _a) = input.device_ptr(s);
        let (vi, _b) = input_ids.device_ptr(s);
        let (sko, _c) = sorted_keys.device_ptr_mut(s);
        let (svo, _d) = sorted_ids.device_ptr_mut(s);
        let (tko, _e) = cub_keys.device_ptr_mut(s);
        let (tvo, _f) = cub_ids.device_ptr_mut(s);
        let (st, _g) = sort_temp.device_ptr(s);
        let (tt, _h) = top_temp.device_ptr(s);
        let call = |route: c_int, ko: u64, vo: u64, temp: u64, len: usize| {
            // SAFETY: device buffers of the sizes CUB was told, on this
            // GPU's stream.
            let code = unsafe {
                (cub.top_k)(
                    which,
                    route,
                    ki as *const c_void,
                    ko as *mut c_void,
                    vi as *const c_void,
                    vo as *mut c_void,
                    n as c_int,
                    k as c_int,
                    temp as *mut c_void,
                    len,
                    stream,
                )
            };
            assert_eq!(code, 0, "CUB failed (route {route})");
        };
        let mut sort_side = || call(0, sko, svo, st, sort_temp.len());
        let mut top_side = || {
            if cub.has_top_k {
                call(1, tko, tvo, tt, top_temp.len())
            }
        };
        let mut coop_side = || {
            if pairs {
                top.largest_with_indices(&input, &mut out, &mut out_ids)
                    .unwrap();
            } else {
                top.largest(&input, &mut out).unwrap();
            }
        };
        let mut loose_side = || {
            if pairs {
                loose
                    .largest_with_indices(&input, &mut loose_out, &mut loose_ids)
                    .unwrap();
            } else {
                loose.largest(&input, &mut loose_out).unwrap();
            }
        };
        let times = coop_examples::time_gpu_interleaved(
            gpu,
            rounds,
            &mut [
                &mut sort_side,
                &mut top_side,
                &mut coop_side,
                &mut loose_side,
            ],
            &mut || (),
        );
        (
            median(&times[0]),
            median(&times[1]),
            median(&times[2]),
            median(&times[3]),
        )
    };
    let top_text = if cub.has_top_k {
        format!("{cub_top_us:.1}")
    } else {
        String::new()
    };
    let over_top = if cub.has_top_k {
        format!("{:.2}", cub_top_us / coop_us)
    } else {
        String::new()
    };
    println!(
        "{name},{log2},{k},{cub_sort_us:.1},{top_text},{coop_us:.1},{loose_us:.1},{:.2},{over_top}",
        cub_sort_us / coop_us
    );
    gpu.synchronize()?;
    let want = gpu.download(&sorted_keys)?[..k].to_vec();
    let got = gpu.download(&out)?;
    if let Some(i) = (0..k).find(|&i| want[i] != got[i]) {
        panic!(
            "{name} 2^{log2} k={k}: key {i} is {:?}, CUB's sort has {:?}",
            got[i], want[i]
        );
    }
    let want_set = sorted(want);
    assert!(
        sorted(gpu.download(&loose_out)?) == want_set,
        "{name} 2^{log2} k={k}: the unordered keys are not CUB's first k"
    );
    if pairs {
        let want = gpu.download(&sorted_ids)?[..k].to_vec();
        assert!(
            gpu.download(&out_ids)? == want,
            "{name} 2^{log2} k={k}: the indices differ from CUB's stable sort's"
        );
        let mut w = want;
        w.sort();
        let mut g = gpu.download(&loose_ids)?;
        g.sort();
        assert!(
            g == w,
            "{name} 2^{log2} k={k}: the unordered indices differ"
        );
    }
    if cub.has_top_k {
        assert!(
            sorted(gpu.download(&cub_keys)?) == want_set,
            "{name} 2^{log2} k={k}: DeviceTopK's keys differ from its sort's"
        );
    }
    Ok(())
}

fn list(var: &str, default: &str) -> Vec<usize> {
    std::env::var(var)
        .unwrap_or_else(|_| default.into())
        .split(',')
        .map(|v| {
            v.trim()
                .parse()
                .unwrap_or_else(|_| panic!("{var}: numbers, `{default}`"))
        })
        .collect()
}

fn main() -> Result<(), Error> {
    let sizes = list("COOP_TOP_K_LOG2S", "20,24,28");
    let ks = list("COOP_TOP_K_KS", "1,32,1024,65536");
    let rounds = list("COOP_TOP_K_ROUNDS", "15")[0];
    let path =
        std::env::var("COOP_CUB_TOP_K_LIB").unwrap_or_else(|_| "/tmp/libcub_top_k.so".into());
    // SAFETY: loading the library runs its initialisers: CUDA's runtime
    // and CUB, built for this benchmark.
    let lib = unsafe { libloading::Library::new(&path) }.unwrap_or_else(|e| panic!("{path}: {e}"));
    // SAFETY: the symbols have these signatures in cub_top_k.cu.
    let (version, cub) = unsafe {
        let v: libloading::Symbol<unsafe extern "C" fn() -> *const c_char> =
            lib.get(b"cub_top_k_version").unwrap();
        let h: libloading::Symbol<unsafe extern "C" fn() -> c_int> =
            lib.get(b"cub_top_k_has_device_topk").unwrap();
        let t: libloading::Symbol<TempBytesFn> = lib.get(b"cub_top_k_temp_bytes").unwrap();
        let s: libloading::Symbol<TopKFn> = lib.get(b"cub_top_k").unwrap();
        (
            CStr::from_ptr(v()).to_string_lossy().into_owned(),
            Cub {
                temp_bytes: *t,
                top_k: *s,
                has_top_k: h() != 0,
            },
        )
    };
    let gpu = Gpu::new(0)?;
    let device = Device::Gpu(gpu.clone());
    let top = TopK::new(&device)?;
    let loose = TopK::new(&device)?.unordered();
    println!("# {version}");
    println!("selection,log2_n,k,cub_sort_us,cub_top_k_us,coop_us,coop_unordered_us,speed_over_cub_sort,speed_over_cub_top_k");
    for &log2 in &sizes {
        let log2 = log2 as u32;
        for &k in &ks {
            if k > 1 << log2 {
                continue;
            }
            bench::<f32>(&gpu, &top, &loose, &cub, "f32", 0, false, log2, k, rounds)?;
            bench::<f32>(
                &gpu,
                &top,
                &loose,
                &cub,
                "f32+index",
                1,
                true,
                log2,
                k,
                rounds,
            )?;
            bench::<u32>(&gpu, &top, &loose, &cub, "u32", 2, false, log2, k, rounds)?;
            bench::<u64>(&gpu, &top, &loose, &cub, "u64", 3, false, log2, k, rounds)?;
        }
    }
    Ok(())
}
