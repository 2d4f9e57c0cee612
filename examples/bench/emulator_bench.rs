//! How fast the CPU backend runs: the `dot` example's warp-shuffle kernel
//! on the shared-memory dot product tutorial's problem (N = 33 × 1024, 32
//! blocks of 256 threads), a warp-shuffle sum of 2^20 and 2^22 elements in
//! blocks of 256 threads, and the dot product's shared-memory tree (17 block
//! barriers a thread) over 2^18 elements, on 1, 2, 4, ... host threads up
//! to the machine's logical CPUs. Prints the median of several runs.
//!
//! Run: `cargo run --release -p coop-bench --bin emulator_bench`; the
//! diagnoses' figures (first lines) need line information, which the
//! debug build has: `cargo run -p coop-bench --bin emulator_bench`.

use coop::cpu::Emulator;
use coop::prelude::*;
use coop_examples::kernels::dot::TREE_THREADS;
use coop_examples::{
    dot_blocks, dot_closed_form, dot_inputs, kernels, DOT_N, DOT_THREADS_PER_BLOCK,
};
use coop_host::{Cpu, LaunchConfig, Report};
use std::time::{Duration, Instant};

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn time(runs: usize, mut f: impl FnMut() -> Report) -> (Duration, Report) {
    let mut report = Report::default();
    let times = (0..runs)
        .map(|_| {
            let start = Instant::now();
            report = f();
            start.elapsed()
        })
        .collect();
    (median(times), report)
}

/// Thread 0 of each block waits for a flag that no thread sets.
#[kernel]
pub fn spin_on_unset_flag(block: ThreadBlock, flag: Shared<[u32; 1]>) {
    let flag = flag.into_raw();
    if block.thread_rank() == 0 {
        // SAFETY: only thread 0 touches the flag.
        unsafe { flag.write(0, 0) };
        while unsafe { flag.read(0) } == 0 {}
    }
}

/// Half of each block returns early; the other half waits at a block
/// barrier in the kernel's own body.
#[kernel]
pub fn barrier_in_the_body(block: ThreadBlock) {
    if block.thread_rank() >= 32 {
        return;
    }
    block.sync();
}

/// The same, with the barrier in a helper: the report names the helper's
/// caller too, which the CPU backend reads off the thread's stack.
#[kernel]
pub fn barrier_in_a_helper(block: ThreadBlock) {
    if block.thread_rank() >= 32 {
        return;
    }
    wait_for_the_block(&block);
}

fn wait_for_the_block(block: &ThreadBlock) {
    block.sync();
}

/// Times a launch whose report is a barrier not reached; prints the time,
/// the growth of the process's peak memory and of what stays resident
/// after it (the program's pages the diagnosis read included).
fn diagnose<K: coop::Kernel<Params = ()>>(what: &str, kernel: K) {
    let before = (peak_mib(), resident_mib());
    let start = Instant::now();
    let err = Cpu::new()
        .launch(kernel, LaunchConfig::new(1, 64), ())
        .expect_err("a barrier not reached");
    let took = start.elapsed();
    assert!(err.to_string().contains("never reached"), "{err}");
    let grew = |b: Option<f64>, a: Option<f64>| match (b, a) {
        (Some(b), Some(a)) => format!("{:.1}", a - b),
        _ => "?".into(),
    };
    println!(
        "{what}: reported in {:.1} ms, peak memory +{} MiB, resident +{} MiB",
        took.as_secs_f64() * 1e3,
        grew(before.0, peak_mib()),
        grew(before.1, resident_mib()),
    );
}

/// Peak resident memory of this process so far, in MiB (Linux).
fn peak_mib() -> Option<f64> {
    status_mib("VmHWM:")
}

/// Resident memory of this process now, in MiB (Linux).
fn resident_mib() -> Option<f64> {
    status_mib("VmRSS:")
}

/// The processor's model name (Linux).
fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("model name"))?;
    Some(line.split_once(':')?.1.trim().to_string())
}

fn status_mib(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() {
    // First, before anything else raises the peak: how long the default
    // emulator takes to report a spin, and the memory it holds meanwhile.
    let start = Instant::now();
    let err = Cpu::new()
        .launch(spin_on_unset_flag, LaunchConfig::new(1, 256), ())
        .expect_err("a spin forever");
    let found = start.elapsed();
    assert!(err.to_string().contains("spins"), "{err}");
    println!(
        "spin on a flag nobody sets, 1 block of 256 threads: reported in {:.1} ms, peak memory {} MiB",
        found.as_secs_f64() * 1e3,
        peak_mib().map_or("?".into(), |m| format!("{m:.0}"))
    );

    // Diagnoses of a barrier half a block never reaches: the first in the
    // kernel's body, then one in a helper (its callers are read off the
    // stack, which loads the program's line information once), then the
    // body's again.
    diagnose(
        "barrier not reached, in the kernel's body",
        barrier_in_the_body,
    );
    diagnose(
        "barrier not reached, in a helper (first)",
        barrier_in_a_helper,
    );
    diagnose(
        "barrier not reached, in a helper (again)",
        barrier_in_a_helper,
    );

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "coop CPU backend on {cores} logical CPU(s) ({}), {} build",
        cpu_model().unwrap_or_else(|| "model unknown".into()),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    );
    // 1, 2, 4, ... host threads up to the machine's logical CPUs, and all
    // of them.
    let mut counts: Vec<usize> = (0..)
        .map(|k| 1usize << k)
        .take_while(|&t| t <= cores)
        .collect();
    if counts.last() != Some(&cores) {
        counts.push(cores);
    }
    for threads in counts {
        println!("blocks on {threads} host thread(s):");
        let cpu = Cpu::with_emulator(Emulator::new().with_host_threads(threads));
        run(&cpu);
    }
}

fn run(cpu: &Cpu) {
    let (a, b) = dot_inputs(DOT_N);
    let blocks = dot_blocks(DOT_N);
    let mut partial = vec![0f32; (blocks * DOT_THREADS_PER_BLOCK / 32) as usize];
    let (t, report) = time(9, || {
        cpu.launch(
            kernels::dot::dot,
            LaunchConfig::new(blocks, DOT_THREADS_PER_BLOCK),
            (&a, &b, &mut partial),
        )
        .expect("dot runs")
    });
    let c: f64 = partial.iter().map(|&p| p as f64).sum();
    assert!(((c - dot_closed_form(DOT_N)) / dot_closed_form(DOT_N)).abs() < 1e-5);
    print_row("dot, N = 33 x 1024, 32 x 256 threads", t, &report);

    for log in [20u32, 22] {
        let n = 1usize << log;
        let input: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.25).collect();
        let mut partial = vec![0f32; n / 32];
        let (t, report) = time(5, || {
            cpu.launch(
                kernels::sum::warp_sums,
                LaunchConfig::for_elements(n, 256),
                (&input, &mut partial),
            )
            .expect("sum runs")
        });
        let total: f64 = partial.iter().map(|&p| p as f64).sum();
        let expected: f64 = input.iter().map(|&x| x as f64).sum();
        assert!(
            (total - expected).abs() / expected < 1e-6,
            "{total} vs {expected}"
        );
        print_row(
            &format!("sum, 2^{log} elements, {} x 256 threads", n / 256),
            t,
            &report,
        );
    }
    // Barriers and shared memory: the tutorial's tree, one element a thread.
    let n = 1usize << 18;
    let (a, b) = dot_inputs(n);
    let blocks = (n / TREE_THREADS) as u32;
    let mut partial = vec![0f32; blocks as usize];
    let (t, report) = time(5, || {
        cpu.launch(
            kernels::dot::dot_shared_tree,
            LaunchConfig::new(blocks, TREE_THREADS as u32),
            (&a, &b, &mut partial),
        )
        .expect("dot_shared_tree runs")
    });
    let c: f64 = partial.iter().map(|&p| p as f64).sum();
    assert!(((c - dot_closed_form(n)) / dot_closed_form(n)).abs() < 1e-5);
    print_row("shared tree, 2^18 elements, 1024 x 256", t, &report);
}

fn print_row(what: &str, t: Duration, r: &Report) {
    println!(
        "{what:<42} {:>9.1} ms  ({} threads, {} warp collectives, {} barriers; {:.0} ns per thread)",
        t.as_secs_f64() * 1e3,
        r.threads,
        r.warp_collectives,
        r.block_barriers,
        t.as_secs_f64() * 1e9 / r.threads as f64
    );
}
