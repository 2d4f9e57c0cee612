//! The sharded reduction on the GPUs of one machine: an `f32` sum of `N`
//! elements already resident, split evenly over 1, 2, ... GPUs, against
//! the same sum on one GPU without NCCL, and NCCL's own element-wise
//! all-reduce of the same bytes as the anchor (what combining the data,
//! rather than the totals, would cost).
//!
//! For several GPUs, the sum is also timed with calls 10 ms apart (the
//! set's launching threads asleep when each call starts), and rows bound
//! it: one GPU summing one shard
//! alone (what `count` GPUs cannot beat), the host's time to queue every
//! GPU's reduction from one thread, and the same per-GPU reductions called
//! from one spinning thread a GPU.
//!
//! The same sum is then timed as a job of one process a GPU: the
//! benchmark starts copies of itself as ranks (`RANK`, `WORLD_SIZE`,
//! `COOP_RENDEZVOUS` on the loopback, as a launcher would), each joins with
//! `Devices::join`, fills its own shard and times the call; rank 0's
//! figure is printed (`COOP_MULTI_PROCESSES=0` skips these rows).
//!
//! Then the sharded scan: an inclusive `u32` sum of `N` ones with
//! `multi::Scanner` on 1, 2, ... GPUs against `scan::Scanner` on one GPU
//! (`COOP_MULTI_SCANS=0` skips these rows); its `gb_per_s` counts a read
//! and a write of every element, and the check is the last element.
//!
//! Then the sharded sort of `N` random `u32` keys with `multi::Sorter`
//! against one GPU's `sort::Sorter` (`COOP_MULTI_SORTS=0` skips these
//! rows; at most 10 rounds); its `gb_per_s` counts the keys' bytes once.
//!
//! ```text
//! cargo build --release -p coop-bench --bin multi_bench
//! NCCL_NVLS_ENABLE=0 target/release/multi_bench            # 2^28..2^32, every GPU count
//! COOP_MULTI_SIZES=28,30 COOP_MULTI_ROUNDS=10 target/release/multi_bench
//! ```
//!
//! `COOP_MULTI_PHASES=1` adds rows on one GPU that say where a call's time
//! goes: other grid settings, the GPU time of one call and of eight queued
//! back to back between events, the host's time to queue a call, and a
//! sum of 4096 elements host to host (`examples/bench/launch_floor.cu` is
//! CUDA C++'s floor for the same shape of call).
//!
//! Each figure is the median wall-clock time of one call, from the host's
//! call to the total back on the host (launches, NCCL, the copy back), over
//! the rounds, after one untimed call. Prints CSV: `log2_n, gpus, what,
//! median_us, gb_per_s, speedup_vs_one_gpu, relative_error`.

use coop::op::Sum;
use coop::DeviceCopy;
use coop_host::multi::{Devices, Join, Reducer, Scanner, Shards, Sorter};
use coop_host::{reduce, scan, sort, Buffer, Error, Gpu};
use std::time::{Duration, Instant};

/// Elements copied to a GPU per transfer while filling the shards.
const FILL_CHUNK: usize = 1 << 24;

/// Set in the copies started as ranks: the size to time, as log2.
const RANK_SIZE: &str = "COOP_MULTI_RANK_LOG2";

fn main() -> Result<(), Error> {
    let rounds: usize = std::env::var("COOP_MULTI_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(20);
    if let Some(log2) = std::env::var(RANK_SIZE).ok().and_then(|v| v.parse().ok()) {
        return rank(log2, rounds);
    }
    let sizes: Vec<u32> = env_list("COOP_MULTI_SIZES").unwrap_or_else(|| (28..=32).collect());
    let all = Devices::all_gpus()?;
    let counts: Vec<usize> = env_list("COOP_MULTI_GPUS")
        .map(|c: Vec<u32>| c.into_iter().map(|c| c as usize).collect())
        .unwrap_or_else(|| (1..=all.count()).collect());
    println!("# {}", all.describe());
    println!("# {rounds} rounds a figure, median; wall clock of one call, host to host");
    drop(all);
    println!("log2_n,gpus,what,median_us,gb_per_s,speedup_vs_one_gpu,relative_error");
    for &log2 in &sizes {
        let n = 1usize << log2;
        let bytes = (n * 4) as f64;
        // One GPU, no NCCL: the baseline.
        let gpu = Gpu::new(0)?;
        let single = fill(&gpu, n, 1.0f32)?;
        let reducer = reduce::Reducer::new(&coop_host::Device::Gpu(gpu.clone()))?;
        let (base, total) = median(rounds, || reducer.sum(&single))?;
        row(
            log2,
            1,
            "coop one GPU (no NCCL)",
            base,
            bytes,
            base,
            total,
            n,
        );
        if std::env::var("COOP_MULTI_PHASES").as_deref() == Ok("1") {
            phases(log2, rounds, bytes, base, &gpu, &single)?;
        }
        drop((single, reducer, gpu));
        for &count in &counts {
            // One process for all GPUs (scoped: the job below needs the
            // GPUs' memory).
            {
                let devices = Devices::gpus(&(0..count).collect::<Vec<_>>())?;
                let shards = shards(&devices, n, 1.0f32)?;
                let reducer = Reducer::new(&devices)?;
                let (t, total) = median(rounds, || reducer.sum(&shards))?;
                row(
                    log2,
                    count,
                    "coop multi::Reducer::sum",
                    t,
                    bytes,
                    base,
                    total,
                    n,
                );
                if count > 1 {
                    // Calls far apart: the set's threads have gone to sleep
                    // (they spin 2 ms after a call), and each call wakes
                    // them.
                    let mut apart = Vec::with_capacity(rounds);
                    let mut total = 0.0;
                    for _ in 0..rounds {
                        std::thread::sleep(Duration::from_millis(10));
                        let start = Instant::now();
                        total = reducer.sum(&shards)?;
                        apart.push(start.elapsed());
                    }
                    apart.sort();
                    row(
                        log2,
                        count,
                        "coop multi::Reducer::sum, calls 10 ms apart",
                        apart[apart.len() / 2],
                        bytes,
                        base,
                        total,
                        n,
                    );
                    bounds(log2, count, rounds, bytes, base, &shards, &devices)?;
                    // The same work with the totals copied to the host and
                    // added there, one single-GPU reducer a GPU.
                    let singles = devices
                        .iter()
                        .map(reduce::Reducer::new)
                        .collect::<Result<Vec<_>, _>>()?;
                    let (t, total) = median(rounds, || {
                        for (r, shard) in singles.iter().zip(&shards) {
                            r.enqueue::<Sum, f32>(shard)?;
                        }
                        singles.iter().map(|r| r.result::<f32>()).sum()
                    })?;
                    row(
                        log2,
                        count,
                        "coop per GPU + host add",
                        t,
                        bytes,
                        base,
                        total,
                        n,
                    );
                    drop(singles);
                    let mut data = shards;
                    let (t, _) = median(rounds.min(5), || {
                        devices.all_reduce(&mut data, Sum)?;
                        devices.synchronize().map(|()| 0.0f32)
                    })?;
                    let per_gpu = bytes / count as f64;
                    println!(
                    "{log2},{count},NCCL all-reduce of each GPU's {per_gpu:.0} bytes,{:.1},{:.1},,",
                    t.as_secs_f64() * 1e6,
                    per_gpu / t.as_secs_f64() / 1e9,
                );
                }
            }
            if std::env::var("COOP_MULTI_PROCESSES").as_deref() != Ok("0") {
                let t = processes(log2, count)?;
                row(
                    log2,
                    count,
                    "coop multi::Reducer::sum, one process a GPU",
                    t,
                    bytes,
                    base,
                    n as f32,
                    n,
                );
            }
        }
        if std::env::var("COOP_MULTI_SCANS").as_deref() != Ok("0") {
            scans(log2, &counts, rounds)?;
        }
        if std::env::var("COOP_MULTI_SORTS").as_deref() != Ok("0") {
            sorts(log2, &counts, rounds.min(10))?;
        }
    }
    Ok(())
}

/// The rows that bound a sharded sum over `count` GPUs: one GPU summing
/// one shard alone (the time `count` GPUs cannot beat); the host's time to
/// queue every GPU's reduction and the copy of its total (how late the
/// last GPU starts); and the per-GPU reductions made from one thread a
/// GPU, kept spinning between calls (what launching from several threads
/// would gain).
fn bounds(
    log2: u32,
    count: usize,
    rounds: usize,
    bytes: f64,
    base: Duration,
    shards: &Shards<f32>,
    devices: &Devices,
) -> Result<(), Error> {
    let singles = devices
        .iter()
        .map(reduce::Reducer::new)
        .collect::<Result<Vec<_>, _>>()?;
    let Some(Buffer::Gpu(first)) = shards.iter().next() else {
        return Ok(());
    };
    let n = first.len();
    let (t, total) = median(rounds, || singles[0].sum(first))?;
    row(
        log2,
        count,
        "bound: one GPU summing one shard",
        t,
        bytes,
        base,
        total * count as f32,
        n * count,
    );
    let mut apart = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        std::thread::sleep(Duration::from_millis(10));
        let start = Instant::now();
        singles[0].sum(first)?;
        apart.push(start.elapsed());
    }
    apart.sort();
    row(
        log2,
        count,
        "bound: one GPU summing one shard, calls 10 ms apart",
        apart[apart.len() / 2],
        bytes,
        base,
        total * count as f32,
        n * count,
    );
    let mut queued = Vec::with_capacity(rounds);
    let (t, total) = median(rounds, || {
        let start = Instant::now();
        for (r, shard) in singles.iter().zip(shards) {
            r.enqueue::<Sum, f32>(shard)?;
        }
        queued.push(start.elapsed());
        singles.iter().map(|r| r.result::<f32>()).sum()
    })?;
    queued.sort();
    println!(
        "{log2},{count},host time to queue {count} reductions (of the row below),{:.1},,,",
        queued[queued.len() / 2].as_secs_f64() * 1e6
    );
    row(
        log2,
        count,
        "per GPU + host add, queued from one thread",
        t,
        bytes,
        base,
        total,
        n * count,
    );
    // One spinning thread a GPU: round `r` starts when `go` reaches `r`;
    // each thread adds its total to `done`'s count when finished.
    use std::sync::atomic::{AtomicUsize, Ordering};
    let go = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let totals: Vec<std::sync::Mutex<Result<f32, Error>>> =
        (0..count).map(|_| std::sync::Mutex::new(Ok(0.0))).collect();
    let calls = rounds + 1;
    let mut times = Vec::with_capacity(calls);
    std::thread::scope(|scope| {
        for ((r, shard), slot) in singles.iter().zip(shards).zip(&totals) {
            let (go, done) = (&go, &done);
            scope.spawn(move || {
                for call in 1..=calls {
                    while go.load(Ordering::Acquire) < call {
                        std::hint::spin_loop();
                    }
                    *slot.lock().unwrap() = r.sum(shard);
                    done.fetch_add(1, Ordering::AcqRel);
                }
            });
        }
        for call in 1..=calls {
            let start = Instant::now();
            go.store(call, Ordering::Release);
            while done.load(Ordering::Acquire) < call * count {
                std::hint::spin_loop();
            }
            times.push(start.elapsed());
        }
    });
    let mut total = 0.0;
    for slot in &totals {
        total += std::mem::replace(&mut *slot.lock().unwrap(), Ok(0.0))?;
    }
    times.remove(0);
    times.sort();
    row(
        log2,
        count,
        "per GPU + host add, one spinning thread a GPU",
        times[times.len() / 2],
        bytes,
        base,
        total,
        n * count,
    );
    Ok(())
}

/// Where one GPU's time goes (`COOP_MULTI_PHASES=1`): the sum with
/// other grid settings, the GPU time of one call's launches between
/// events, of eight calls queued back to back (the GPU's own cost a call,
/// without the host's gaps), the host's time to queue one call, and the
/// host-to-host time of a sum of 4096 elements (the floor of a call).
fn phases(
    log2: u32,
    rounds: usize,
    bytes: f64,
    base: Duration,
    gpu: &Gpu,
    single: &coop_host::CudaSlice<f32>,
) -> Result<(), Error> {
    let n = single.len();
    let device = coop_host::Device::Gpu(gpu.clone());
    for blocks in [128, 64, 32, 16, 8, 4] {
        let reducer = reduce::Reducer::new(&device)?.with_blocks_per_sm(blocks);
        let (t, total) = median(rounds, || reducer.sum(single))?;
        row(
            log2,
            1,
            &format!("phase: one GPU, blocks_per_sm = {blocks}"),
            t,
            bytes,
            base,
            total,
            n,
        );
    }
    let reducer = reduce::Reducer::new(&device)?;
    let mut timer = coop_host::Timer::new(gpu)?;
    let mut queue = Vec::with_capacity(rounds);
    for batch in [1usize, 8] {
        let mut times = Vec::with_capacity(rounds);
        let mut total = 0.0;
        for round in 0..=rounds {
            timer.start()?;
            let start = Instant::now();
            for _ in 0..batch {
                reducer.enqueue::<Sum, f32>(single)?;
            }
            let queued = start.elapsed();
            let t = timer.stop()?;
            total = reducer.result::<f32>()?;
            if round > 0 {
                times.push(t / batch as u32);
                if batch == 1 {
                    queue.push(queued);
                }
            }
        }
        times.sort();
        row(
            log2,
            1,
            &format!("phase: GPU time a call, {batch} queued between events"),
            times[times.len() / 2],
            bytes,
            base,
            total,
            n,
        );
    }
    queue.sort();
    println!(
        "{log2},1,phase: host time to queue one call,{:.1},,,",
        queue[queue.len() / 2].as_secs_f64() * 1e6
    );
    let small = fill(gpu, 4096, 1.0f32)?;
    let (t, _) = median(rounds, || reducer.sum(&small))?;
    println!(
        "{log2},1,phase: host to host a sum of 4096,{:.1},,,",
        t.as_secs_f64() * 1e6
    );
    Ok(())
}

/// The rows of the sharded sort of 2^`log2` random `u32` keys: one GPU's
/// `sort::Sorter` (after a copy of the keys, as the sharded sort copies
/// them), then `multi::Sorter` on each count of GPUs, every call waited
/// for. The check: as many keys out as in, and each output shard's first
/// key at or above the last of the shard before it.
fn sorts(log2: u32, counts: &[usize], rounds: usize) -> Result<(), Error> {
    let n = 1usize << log2;
    let bytes = (n * 4) as f64;
    let key = |i: usize| (i as u32).wrapping_mul(2_654_435_761).rotate_left(13) ^ 0x5bd1_e995;
    let base = {
        let gpu = Gpu::new(0)?;
        let mut keys = gpu.zeros::<u32>(n)?;
        for start in (0..n).step_by(FILL_CHUNK) {
            let chunk: Vec<u32> = (start..(start + FILL_CHUNK).min(n)).map(key).collect();
            gpu.stream()
                .memcpy_htod(&chunk, &mut keys.slice_mut(start..start + chunk.len()))
                .map_err(|e| Error::Unavailable {
                    call: "multi_bench",
                    reason: format!("uploading keys: {e}"),
                })?;
        }
        let mut work = gpu.zeros::<u32>(n)?;
        let device = coop_host::Device::Gpu(gpu.clone());
        let sorter = sort::Sorter::new(&device)?;
        let (t, _) = median(rounds, || {
            gpu.stream()
                .memcpy_dtod(&keys, &mut work)
                .map_err(|e| Error::Unavailable {
                    call: "multi_bench",
                    reason: format!("copying keys: {e}"),
                })?;
            sorter.keys(&mut work)?;
            sorter.synchronize()?;
            Ok(n as f32)
        })?;
        row(
            log2,
            1,
            "coop sort::Sorter one GPU (copy + sort), u32 keys",
            t,
            bytes,
            t,
            n as f32,
            n,
        );
        t
    };
    for &count in counts {
        let devices = Devices::gpus(&(0..count).collect::<Vec<_>>())?;
        let share = n / count;
        let parts: Vec<Vec<u32>> = (0..count)
            .map(|r| (r * share..(r + 1) * share).map(key).collect())
            .collect();
        let buffers = devices
            .iter()
            .zip(&parts)
            .map(|(d, p)| d.upload(p))
            .collect::<Result<Vec<_>, _>>()?;
        drop(parts);
        let input = devices.shards(buffers)?;
        let sorter = Sorter::new(&devices)?;
        let (t, value) = median(rounds, || {
            let out = sorter.keys(&input)?;
            devices.synchronize()?;
            let mut ends = Vec::new();
            for (shard, device) in out.iter().zip(devices.iter()) {
                let (Buffer::Gpu(s), coop_host::Device::Gpu(gpu)) = (shard, device) else {
                    unreachable!("a set of GPUs")
                };
                if !s.is_empty() {
                    ends.push(gpu.download(&s.slice(0..1))?[0]);
                    ends.push(gpu.download(&s.slice(s.len() - 1..))?[0]);
                }
            }
            let ordered = ends.windows(2).all(|w| w[0] <= w[1]);
            let total: usize = out.lens().iter().sum();
            Ok(if ordered && total == n {
                n as f32
            } else {
                -1.0
            })
        })?;
        row(
            log2,
            count,
            "coop multi::Sorter::keys, u32 keys",
            t,
            bytes,
            base,
            value,
            n,
        );
    }
    Ok(())
}

/// The rows of the sharded scan of 2^`log2` `u32` ones: one GPU's
/// `scan::Scanner`, then `multi::Scanner` on each count of GPUs.
fn scans(log2: u32, counts: &[usize], rounds: usize) -> Result<(), Error> {
    let n = 1usize << log2;
    let bytes = (2 * n * 4) as f64;
    // The last element of the whole scan, as f32 for `row`'s check.
    let last = |value: u32| if value == n as u32 { n as f32 } else { -1.0 };
    let base = {
        let gpu = Gpu::new(0)?;
        let input = fill(&gpu, n, 1u32)?;
        let mut output = gpu.zeros::<u32>(n)?;
        let device = coop_host::Device::Gpu(gpu.clone());
        let scanner = scan::Scanner::new(&device)?;
        let (t, value) = median(rounds, || {
            scanner.inclusive(Sum, &input, &mut output)?;
            scanner.synchronize()?;
            Ok(last(gpu.download(&output.slice(n - 1..n))?[0]))
        })?;
        row(
            log2,
            1,
            "coop scan::Scanner one GPU, u32",
            t,
            bytes,
            t,
            value,
            n,
        );
        t
    };
    for &count in counts {
        let devices = Devices::gpus(&(0..count).collect::<Vec<_>>())?;
        let input = shards(&devices, n, 1u32)?;
        let mut output = devices.zeros_like(&input)?;
        let scanner = Scanner::new(&devices)?;
        let (t, value) = median(rounds, || {
            scanner.inclusive(Sum, &input, &mut output)?;
            devices.synchronize()?;
            let mine = output.get(count - 1).expect("a shard a GPU");
            let Buffer::Gpu(slice) = mine else {
                unreachable!("a set of GPUs")
            };
            let Some(coop_host::Device::Gpu(gpu)) = devices.device(count - 1) else {
                unreachable!("a set of GPUs")
            };
            Ok(last(gpu.download(&slice.slice(slice.len() - 1..))?[0]))
        })?;
        row(
            log2,
            count,
            "coop multi::Scanner::inclusive, u32",
            t,
            bytes,
            base,
            value,
            n,
        );
    }
    Ok(())
}

/// Times the sum of 2^`log2` ones as a job of `count` processes, one a
/// GPU: starts them, and returns rank 0's median.
fn processes(log2: u32, count: usize) -> Result<Duration, Error> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| Error::InvalidArgument {
            call: "multi_bench",
            problem: format!("no free port on the loopback: {e}"),
        })?;
    let exe = std::env::current_exe().expect("the benchmark's own path");
    let children: Vec<_> = (0..count)
        .map(|rank| {
            std::process::Command::new(&exe)
                .env(RANK_SIZE, log2.to_string())
                .env("RANK", rank.to_string())
                .env("WORLD_SIZE", count.to_string())
                .env("COOP_RENDEZVOUS", format!("127.0.0.1:{port}"))
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("starting a rank")
        })
        .collect();
    let mut medians = Vec::new();
    for (rank, child) in children.into_iter().enumerate() {
        let output = child.wait_with_output().expect("a rank's output");
        let text = String::from_utf8_lossy(&output.stdout);
        match text.trim().parse::<f64>() {
            Ok(us) => medians.push(us),
            Err(_) => {
                return Err(Error::InvalidArgument {
                    call: "multi_bench",
                    problem: format!("rank {rank} of {count} failed: {text}"),
                })
            }
        }
    }
    Ok(Duration::from_secs_f64(medians[0] / 1e6))
}

/// A rank's side of [`processes`]: joins, fills its shard of 2^`log2`
/// ones, times the sum and prints its median in microseconds.
fn rank(log2: u32, rounds: usize) -> Result<(), Error> {
    let devices = Devices::join(&Join::from_env()?)?;
    let n = 1usize << log2;
    let (world, me) = (devices.world(), devices.first_rank());
    let len = n / world + usize::from(me < n % world);
    let coop_host::Device::Gpu(gpu) = devices.device(0).expect("one device") else {
        panic!("multi_bench times GPUs");
    };
    let shards = devices.shards(vec![Buffer::Gpu(fill(gpu, len, 1.0f32)?)])?;
    let reducer = Reducer::new(&devices)?;
    let (t, total) = median(rounds, || reducer.sum(&shards))?;
    assert_eq!(total, n as f32, "the sum of {n} ones on rank {me}");
    println!("{}", t.as_secs_f64() * 1e6);
    Ok(())
}

/// Prints one row.
#[allow(clippy::too_many_arguments)]
fn row(
    log2: u32,
    gpus: usize,
    what: &str,
    t: Duration,
    bytes: f64,
    base: Duration,
    total: f32,
    n: usize,
) {
    println!(
        "{log2},{gpus},{what},{:.1},{:.1},{:.3},{:.2e}",
        t.as_secs_f64() * 1e6,
        bytes / t.as_secs_f64() / 1e9,
        base.as_secs_f64() / t.as_secs_f64(),
        (total as f64 - n as f64).abs() / n as f64,
    );
}

/// The median time of `rounds` calls of `f` after one untimed call, and
/// the last value.
fn median(
    rounds: usize,
    mut f: impl FnMut() -> Result<f32, Error>,
) -> Result<(Duration, f32), Error> {
    let mut value = f()?;
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        value = f()?;
        times.push(start.elapsed());
    }
    times.sort();
    Ok((times[times.len() / 2], value))
}

/// `n` copies of `one` on `gpu`.
fn fill<T: DeviceCopy>(gpu: &Gpu, n: usize, one: T) -> Result<coop_host::CudaSlice<T>, Error> {
    let mut buffer = gpu.zeros::<T>(n)?;
    let ones = vec![one; FILL_CHUNK.min(n)];
    let mut start = 0;
    while start < n {
        let len = FILL_CHUNK.min(n - start);
        let mut view = buffer.slice_mut(start..start + len);
        gpu.stream()
            .memcpy_htod(&ones[..len], &mut view)
            .map_err(|e| Error::Driver {
                action: "filling a shard".into(),
                source: e,
            })?;
        start += len;
    }
    gpu.synchronize()?;
    Ok(buffer)
}

/// `n` copies of `one` split evenly over `devices`.
fn shards<T: DeviceCopy>(devices: &Devices, n: usize, one: T) -> Result<Shards<T>, Error> {
    let count = devices.count();
    let mut buffers = Vec::with_capacity(count);
    for (rank, device) in devices.iter().enumerate() {
        let len = n / count + usize::from(rank < n % count);
        let coop_host::Device::Gpu(gpu) = device else {
            unreachable!("a set of GPUs");
        };
        buffers.push(Buffer::Gpu(fill(gpu, len, one)?));
    }
    devices.shards(buffers)
}

/// A comma-separated list from the environment.
fn env_list<T: std::str::FromStr>(name: &str) -> Option<Vec<T>> {
    let text = std::env::var(name).ok()?;
    text.split(',').map(|s| s.trim().parse().ok()).collect()
}
