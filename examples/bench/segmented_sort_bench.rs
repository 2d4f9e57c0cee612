//! coop's segmented sort (`coop_host::sort::SegmentedSorter`) against
//! CUB's three routes: `DeviceSegmentedSort::SortKeys`/`SortPairs`, their
//! stable forms (`StableSortKeys`/`StableSortPairs`, what coop's sort is)
//! and `DeviceSegmentedRadixSort`, on uniformly random keys (u32, f32,
//! u64; u32 keys with u32 values) in segments of one length each (4 to
//! 2^20) and in a power-law mix, timed in turns in one process (CUDA
//! events around each call, median of the rounds), every result checked
//! against CUB's stable sort.
//!
//! ```text
//! cargo build --release -p coop-bench --bin segmented_sort_bench
//! examples/bench/segmented_sort.sh target/release/segmented_sort_bench out.csv   # on the GPU machine
//! ```
//!
//! CUB sorts from an input buffer into an output one; coop sorts in place,
//! so each of its calls first copies the keys (and values) into the buffer
//! it sorts. That copy is timed alone as well and taken off coop's time
//! (`coop_us`). Prints CSV: `layout, keys, log2_n, segments, cub_us,
//! cub_stable_us, cub_radix_us, copy_us, coop_us, coop_gkeys_per_s,
//! speed_over_best_cub, speed_over_cub_stable` (`cub_radix_us` is NaN
//! past 2^16 segments, where that route takes seconds).
//! `COOP_SEGMENTED_LOG2S` (`22,24`) and `COOP_SEGMENTED_ROUNDS` (11) change the sizes and rounds;
//! `COOP_SEGMENTED_VARIANTS=name=path.ptx,...` adds rows for other builds
//! of the kernels (the `segmented_sort` family);
//! `COOP_SEGMENTED_LAYOUTS=power-law mix,...` keeps the layouts named;
//! `COOP_SEGMENTED_ROUTES=auto,merge,radix` times each build with those
//! routes for the long segments (`coop_host::sort::LongSegments`; `auto`,
//! the library's default, alone by default), rows named by the route
//! after the first;
//! `COOP_SEGMENTED_VARIANT_ROUTES` gives the variants' routes instead
//! (`merge` unless routes are named: builds older than the radix route
//! have no other).

use coop_host::cudarc::driver::{sys, CudaSlice, DevicePtr, DevicePtrMut, DeviceRepr};
use coop_host::sort::{BuiltinSort, LongSegments, SegmentedSorter};
use coop_host::{Device, Error, Gpu};
use std::ffi::{c_char, c_int, c_void, CStr};

type TempBytesFn = unsafe extern "C" fn(c_int, c_int, c_int, c_int, *const c_int) -> usize;
type SortFn = unsafe extern "C" fn(
    c_int,
    c_int,
    *const c_void,
    *mut c_void,
    *const c_void,
    *mut c_void,
    c_int,
    c_int,
    *const c_int,
    *mut c_void,
    usize,
    sys::CUstream,
) -> c_int;

/// The most segments CUB's segmented radix sort is timed on.
const RADIX_SEGMENTS: usize = 1 << 16;

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

/// The offsets of `n` keys in segments of `len`, or in a power-law mix
/// (`len` 0: lengths `⌊2^(16 u^2)⌋` for `u` uniform in `0..1`, most short,
/// some of tens of thousands).
fn offsets(n: usize, len: usize, seed: u64) -> Vec<i32> {
    let mut bits = Bits(seed | 1);
    let mut offsets = vec![0i32];
    let mut at = 0usize;
    while at < n {
        let l = if len > 0 {
            len
        } else {
            let u = (bits.next() >> 11) as f64 / (1u64 << 53) as f64;
            (2f64.powf(16.0 * u * u)) as usize
        };
        at = (at + l).min(n);
        offsets.push(at as i32);
    }
    offsets
}

/// What a row sorts.
struct Row<'a> {
    layout: &'a str,
    keys: &'a str,
    which: c_int,
    pairs: bool,
    log2: u32,
    offsets: &'a [i32],
}

/// One row: CUB's three routes against coop's sort of random keys of `K`
/// (with `u32` values when `pairs`) in `row.offsets`' segments.
fn bench<K: BenchKey>(
    gpu: &Gpu,
    sorter: &SegmentedSorter,
    variant: &str,
    cub: &Cub,
    row: &Row<'_>,
    rounds: usize,
) -> Result<(), Error> {
    let n = 1usize << row.log2;
    let segments = row.offsets.len() - 1;
    let mut bits = Bits(0x9E37_79B9 ^ row.log2 as u64);
    let keys: Vec<K> = (0..n).map(|_| K::from_bits(bits.next())).collect();
    let pristine = gpu.upload(&keys)?;
    drop(keys);
    let ids: Vec<u32> = (0..n as u32).collect();
    let pristine_values = gpu.upload(&ids)?;
    drop(ids);
    let offsets = gpu.upload(row.offsets)?;
    let offsets32: Vec<u32> = row.offsets.iter().map(|&o| o as u32).collect();
    let coop_offsets = gpu.upload(&offsets32)?;
    let vn = if row.pairs { n } else { 1 };
    let mut cub_out: Vec<(CudaSlice<K>, CudaSlice<u32>)> = Vec::new();
    for _ in 0..3 {
        cub_out.push((gpu.zeros::<K>(n)?, gpu.zeros::<u32>(vn)?));
    }
    let mut work = gpu.zeros::<K>(n)?;
    let mut work_values = gpu.zeros::<u32>(vn)?;
    let mut copied = gpu.zeros::<K>(n)?;
    let mut copied_values = gpu.zeros::<u32>(vn)?;
    let stream = gpu.stream().cu_stream();
    let s = gpu.stream();
    let (op, _o) = offsets.device_ptr(s);
    let mut temps = Vec::new();
    for route in 0..3 {
        // SAFETY: CUB reads the offsets on the device only when sorting.
        let bytes = unsafe {
            (cub.temp_bytes)(
                row.which,
                route,
                n as c_int,
                segments as c_int,
                op as *const c_int,
            )
        };
        temps.push(gpu.zeros::<u8>(bytes.max(1))?);
    }
    let mut times;
    {
        let (ki, _a) = pristine.device_ptr(s);
        let (vi, _b) = pristine_values.device_ptr(s);
        let mut outs = Vec::new();
        for (k, v) in cub_out.iter_mut() {
            let (ko, _c) = k.device_ptr_mut(s);
            let (vo, _d) = v.device_ptr_mut(s);
            outs.push((ko, vo));
        }
        let cub_side = |route: usize| {
            let (ko, vo) = outs[route];
            let (tp, _e) = temps[route].device_ptr(s);
            // SAFETY: device buffers of the sizes CUB was told, on this
            // GPU's stream.
            let code = unsafe {
                (cub.sort)(
                    row.which,
                    route as c_int,
                    ki as *const c_void,
                    ko as *mut c_void,
                    vi as *const c_void,
                    vo as *mut c_void,
                    n as c_int,
                    segments as c_int,
                    op as *const c_int,
                    tp as *mut c_void,
                    temps[route].len(),
                    stream,
                )
            };
            assert_eq!(code, 0, "CUB failed (route {route})");
        };
        let mut cub0 = || cub_side(0);
        let mut cub1 = || cub_side(1);
        // CUB's segmented radix sort takes a block a segment: seconds for
        // millions of short segments (2.8 s for 2^24 segments of 4 on an
        // H200), so it runs only with fewer segments.
        let radix = segments <= RADIX_SEGMENTS;
        let mut cub2 = || {
            if radix {
                cub_side(2)
            }
        };
        let mut copy_side = || {
            gpu.stream().memcpy_dtod(&pristine, &mut copied).unwrap();
            if row.pairs {
                gpu.stream()
                    .memcpy_dtod(&pristine_values, &mut copied_values)
                    .unwrap();
            }
        };
        let mut coop_side = || {
            gpu.stream().memcpy_dtod(&pristine, &mut work).unwrap();
            if row.pairs {
                gpu.stream()
                    .memcpy_dtod(&pristine_values, &mut work_values)
                    .unwrap();
                sorter
                    .pairs(&mut work, &mut work_values, &coop_offsets)
                    .unwrap();
            } else {
                sorter.keys(&mut work, &coop_offsets).unwrap();
            }
        };
        times = coop_examples::time_gpu_interleaved(
            gpu,
            rounds,
            &mut [
                &mut cub0,
                &mut cub1,
                &mut cub2,
                &mut copy_side,
                &mut coop_side,
            ],
            &mut || (),
        );
    }
    let mut t: Vec<f64> = times
        .drain(..)
        .map(coop_examples::bench::median_us)
        .collect();
    if segments > RADIX_SEGMENTS {
        t[2] = f64::NAN;
    }
    let (copy_us, coop_us) = (t[3], t[4] - t[3]);
    let best = t[0].min(t[1]).min(t[2]);
    println!(
        "{variant}{},{},{},{segments},{:.1},{:.1},{:.1},{copy_us:.1},{coop_us:.1},{:.2},{:.3},{:.3}",
        row.layout,
        row.keys,
        row.log2,
        t[0],
        t[1],
        t[2],
        n as f64 / coop_us / 1e3,
        best / coop_us,
        t[1] / coop_us
    );
    gpu.synchronize()?;
    let want = gpu.download(&cub_out[1].0)?;
    let got = gpu.download(&work)?;
    if let Some(i) = (0..n).find(|&i| want[i] != got[i]) {
        panic!(
            "{} {} 2^{}: key {i} is {:?}, CUB's stable sort has {:?}",
            row.layout, row.keys, row.log2, got[i], want[i]
        );
    }
    if row.pairs {
        let want = gpu.download(&cub_out[1].1)?;
        let got = gpu.download(&work_values)?;
        assert!(
            want == got,
            "{} {} 2^{}: the values differ from CUB's stable sort",
            row.layout,
            row.keys,
            row.log2
        );
    }
    Ok(())
}

fn main() -> Result<(), Error> {
    let sizes: Vec<u32> = std::env::var("COOP_SEGMENTED_LOG2S")
        .unwrap_or_else(|_| "22,24".into())
        .split(',')
        .map(|v| {
            v.trim()
                .parse()
                .expect("COOP_SEGMENTED_LOG2S: sizes as powers of two, `22,24`")
        })
        .collect();
    let rounds: usize = std::env::var("COOP_SEGMENTED_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(11);
    let path = std::env::var("COOP_CUB_SEGMENTED_SORT_LIB")
        .unwrap_or_else(|_| "/tmp/libcub_segmented_sort.so".into());
    // SAFETY: loading the library runs its initialisers: CUDA's runtime
    // and CUB, built for this benchmark.
    let lib = unsafe { libloading::Library::new(&path) }.unwrap_or_else(|e| panic!("{path}: {e}"));
    // SAFETY: the symbols have these signatures in cub_segmented_sort.cu.
    let (version, cub) = unsafe {
        let v: libloading::Symbol<unsafe extern "C" fn() -> *const c_char> =
            lib.get(b"cub_segmented_sort_version").unwrap();
        let t: libloading::Symbol<TempBytesFn> = lib.get(b"cub_segmented_sort_temp_bytes").unwrap();
        let s: libloading::Symbol<SortFn> = lib.get(b"cub_segmented_sort").unwrap();
        (
            CStr::from_ptr(v()).to_string_lossy().into_owned(),
            Cub {
                temp_bytes: *t,
                sort: *s,
            },
        )
    };
    let gpu = Gpu::new(0)?;
    // The builds: coop-host's own, then each variant's PTX.
    let mut builds: Vec<(String, Option<String>)> = vec![(String::new(), None)];
    if let Ok(variants) = std::env::var("COOP_SEGMENTED_VARIANTS") {
        for variant in variants.split(',').filter(|v| !v.is_empty()) {
            let (name, path) = variant
                .split_once('=')
                .expect("COOP_SEGMENTED_VARIANTS: name=path.ptx,...");
            let ptx = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            builds.push((name.to_string(), Some(ptx)));
        }
    }
    let routes_of = |var: &str, default: &str| -> Vec<(String, LongSegments)> {
        std::env::var(var)
            .unwrap_or_else(|_| default.into())
            .split(',')
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(|r| {
                let route = match r {
                    "auto" => LongSegments::Auto,
                    "merge" => LongSegments::Merge,
                    "radix" => LongSegments::Radix,
                    other => panic!("COOP_SEGMENTED_ROUTES: {other} is none of auto, merge, radix"),
                };
                (r.to_string(), route)
            })
            .collect()
    };
    let routes = routes_of("COOP_SEGMENTED_ROUTES", "auto");
    // Variants built before a route existed take only the others.
    let variant_routes = routes_of(
        "COOP_SEGMENTED_VARIANT_ROUTES",
        &std::env::var("COOP_SEGMENTED_ROUTES").unwrap_or_else(|_| "merge".into()),
    );
    // A sorter a build and route; the first route of each build keeps the
    // build's name alone when it is the library's default, `auto` (as the
    // rows of runs before the radix route, whose default was `merge`).
    let mut sorters = Vec::new();
    for (build, ptx) in &builds {
        let variant = if build.is_empty() {
            String::new()
        } else {
            format!("{build}: ")
        };
        let routes = if ptx.is_some() {
            &variant_routes
        } else {
            &routes
        };
        for (i, (name, route)) in routes.iter().enumerate() {
            let mut sorter = SegmentedSorter::new(&Device::Gpu(gpu.clone()))?;
            if let Some(ptx) = ptx {
                sorter = sorter.with_module(gpu.load_ptx(build, ptx)?)?;
            }
            let label = if i == 0 && name == "auto" {
                variant.clone()
            } else {
                format!("{variant}{name}: ")
            };
            sorters.push((label, sorter.with_long_segments(*route)?));
        }
    }
    println!(
        "# {} (sm_{}, {} SMs); {version}; coop: blocks of 256; {rounds} rounds",
        gpu.limits().name,
        gpu.limits().sm,
        gpu.limits().multiprocessors
    );
    println!(
        "layout,keys,log2_n,segments,cub_us,cub_stable_us,cub_radix_us,copy_us,coop_us,\
         coop_gkeys_per_s,speed_over_best_cub,speed_over_cub_stable"
    );
    let layouts: [(&str, usize); 9] = [
        ("segments of 4", 4),
        ("segments of 32", 32),
        ("segments of 200", 200),
        ("segments of 1000", 1000),
        ("segments of 2000", 2000),
        ("segments of 20000", 20_000),
        ("segments of 2^20", 1 << 20),
        ("power-law mix", 0),
        ("one segment", usize::MAX),
    ];
    let keep: Option<Vec<String>> = std::env::var("COOP_SEGMENTED_LAYOUTS")
        .ok()
        .map(|v| v.split(',').map(|l| l.trim().to_string()).collect());
    for log2 in sizes {
        let n = 1usize << log2;
        for &(layout, len) in &layouts {
            if keep
                .as_ref()
                .is_some_and(|k| !k.iter().any(|l| l == layout))
            {
                continue;
            }
            let offsets = if len == usize::MAX {
                vec![0, n as i32]
            } else {
                offsets(n, len, 7)
            };
            for (variant, sorter) in &sorters {
                let row = |keys, which, pairs| Row {
                    layout,
                    keys,
                    which,
                    pairs,
                    log2,
                    offsets: &offsets,
                };
                bench::<u32>(&gpu, sorter, variant, &cub, &row("u32", 0, false), rounds)?;
                bench::<f32>(&gpu, sorter, variant, &cub, &row("f32", 1, false), rounds)?;
                bench::<u64>(&gpu, sorter, variant, &cub, &row("u64", 2, false), rounds)?;
                let pairs = row("u32 + u32 values", 3, true);
                bench::<u32>(&gpu, sorter, variant, &cub, &pairs, rounds)?;
            }
        }
    }
    Ok(())
}
