//! How long a program's first device-wide calls take on a GPU: opening the
//! device, then the first reduction, scan and segmented reduction, each of
//! which loads a family of coop-host's kernels (machine code for sm_80 and
//! sm_90 GPUs, PTX the driver compiles elsewhere, or everywhere with
//! `COOP_PTX_JIT=1`). Run it on a machine whose driver has compiled
//! nothing yet, or with `CUDA_CACHE_DISABLE=1`, which keeps the driver from
//! reusing what it compiled before:
//!
//! ```text
//! CUDA_CACHE_DISABLE=1 target/release/first_call_bench
//! CUDA_CACHE_DISABLE=1 COOP_PTX_JIT=1 target/release/first_call_bench
//! ```
//!
//! It prints one line a step (`first_call,<step>,<ms>,<what was loaded>`)
//! and the whole program's time.

use coop_host::reduce::Reducer;
use coop_host::scan::Scanner;
use coop_host::segmented::SegmentedReducer;
use coop_host::{Device, Gpu};
use std::time::Instant;

fn main() -> Result<(), coop_host::Error> {
    let whole = Instant::now();
    let step = |name: &str, started: Instant, what: &str| {
        println!(
            "first_call,{name},{:.1},{what}",
            started.elapsed().as_secs_f64() * 1e3
        );
    };
    let started = Instant::now();
    let gpu = Gpu::new(0)?;
    step("open the GPU", started, &gpu.limits().name);
    let device = Device::Gpu(gpu.clone());
    let n = 1 << 20;
    let data: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let x = device.upload(&data)?;
    let expected: f32 = data.iter().sum();

    // What `Gpu::load` picks for this GPU, said without loading again.
    let jit = std::env::var_os("COOP_PTX_JIT").is_some_and(|v| v != "0");
    let sm = gpu.limits().sm;
    let code = |set: &coop_host::PtxSet| match set.sass_for(sm) {
        Some((code_sm, _)) if !jit => format!("machine code for sm_{code_sm}"),
        _ => "PTX, compiled by the driver".to_string(),
    };
    let started = Instant::now();
    let sum = Reducer::new(&device)?.sum(&x)?;
    step(
        "reduce::sum, 2^20 f32",
        started,
        &code(&coop_host::ptx_families::REDUCE_PTX),
    );
    assert_eq!(sum, expected);

    let started = Instant::now();
    let mut y = device.zeros::<f32>(n)?;
    Scanner::new(&device)?.inclusive(coop::op::Sum, &x, &mut y)?;
    let last = device.download(&y)?[n - 1];
    step(
        "scan::inclusive_sum, 2^20 f32",
        started,
        &code(&coop_host::ptx_families::SCAN_PTX),
    );
    assert_eq!(last, expected);

    let started = Instant::now();
    let offsets: Vec<u32> = (0..=1024).map(|s| (s * n / 1024) as u32).collect();
    let offsets = device.upload(&offsets)?;
    let mut sums = device.zeros::<f32>(1024)?;
    SegmentedReducer::new(&device)?.sum(&x, &offsets, &mut sums)?;
    let total: f32 = device.download(&sums)?.iter().sum();
    step(
        "segmented::sum, 1024 segments",
        started,
        &code(&coop_host::ptx_families::SEGMENTED_PTX),
    );
    assert_eq!(total, expected);
    step("the whole program", whole, "");
    Ok(())
}
