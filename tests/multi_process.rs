//! Jobs of one process a rank, on the CPU backend: this test program
//! starts copies of itself as the ranks of a job (the way `torchrun` or
//! `mpirun` would, through `RANK`, `WORLD_SIZE` and `COOP_RENDEZVOUS`),
//! each joins with `Devices::join_cpu(&Join::from_env()?)`, and the parent
//! checks what every rank printed. The same reductions as one process of
//! several emulated devices; a rank that crashes, is late or makes another
//! call is named by the others, who end instead of hanging.

use coop_host::multi::{Devices, Join, Reducer};
use coop_host::Error;
use coop_tests::kernels::{self, MatMul};
use coop_tests::{multi_cases, TEST_KERNELS_PTX};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The variable that makes a copy of this program a rank running one case.
const CASE: &str = "COOP_TEST_RANK_CASE";

/// How long a whole job may take before the parent calls it hung
/// (`COOP_TEST_JOB_LIMIT_S` sets it, in seconds).
fn job_limit() -> Duration {
    let seconds = std::env::var("COOP_TEST_JOB_LIMIT_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(240);
    Duration::from_secs(seconds)
}

/// One rank's exit and what it printed.
struct Ranked {
    code: Option<i32>,
    out: String,
}

/// Runs `case` as a job of `world` processes meeting at `rendezvous`,
/// with `env` added; returns each rank's exit and output, rank 0 first.
fn job(case: &str, world: usize, rendezvous: &str, env: &[(&str, &str)]) -> Vec<Ranked> {
    let exe = std::env::current_exe().unwrap();
    let mut children: Vec<Child> = (0..world)
        .map(|rank| {
            let mut command = Command::new(&exe);
            command
                .args(["--exact", "rank_process", "--nocapture", "--test-threads=1"])
                .env(CASE, case)
                .env("RANK", rank.to_string())
                .env("WORLD_SIZE", world.to_string())
                .env("COOP_RENDEZVOUS", rendezvous)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            for (k, v) in env {
                command.env(k, v);
            }
            command.spawn().unwrap()
        })
        .collect();
    let start = Instant::now();
    while children.iter_mut().any(|c| c.try_wait().unwrap().is_none()) {
        if start.elapsed() > job_limit() {
            for child in &mut children {
                let _ = child.kill();
            }
            let outs: Vec<String> = children
                .into_iter()
                .map(|c| {
                    let o = c.wait_with_output().unwrap();
                    String::from_utf8_lossy(&o.stdout).into_owned()
                        + &String::from_utf8_lossy(&o.stderr)
                })
                .collect();
            panic!(
                "the job `{case}` of {world} ranks hung for {:?}; they printed:\n{}",
                job_limit(),
                outs.join("\n---\n")
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    children
        .into_iter()
        .map(|child| {
            let output = child.wait_with_output().unwrap();
            Ranked {
                code: output.status.code(),
                out: String::from_utf8_lossy(&output.stdout).into_owned()
                    + &String::from_utf8_lossy(&output.stderr),
            }
        })
        .collect()
}

/// A rendezvous on a free port of the loopback, drawn below Linux's
/// ephemeral range (32768 up) so that no port the system hands out
/// meanwhile (a file rendezvous's, a connection's) can take it, and never
/// handed out twice in this process: the tests run in parallel, and a
/// port found free by two of them before either job's rank 0 binds it
/// failed one with "Address already in use" (CI, once).
fn tcp() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static DRAWS: AtomicU64 = AtomicU64::new(0);
    static HANDED_OUT: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    loop {
        let seed = std::process::id() as u64 * 7919
            + DRAWS.fetch_add(1, Ordering::Relaxed) * 104_729
            + std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .subsec_nanos() as u64;
        let port = 20_000 + (seed % 12_000) as u16;
        let mut handed_out = HANDED_OUT.lock().unwrap();
        if !handed_out.contains(&port) && std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            handed_out.push(port);
            return format!("tcp://127.0.0.1:{port}");
        }
    }
}

/// The line a rank printed after `tag`.
fn line<'a>(rank: &'a Ranked, tag: &str) -> &'a str {
    rank.out
        .lines()
        .find_map(|l| l.split_once(tag).map(|(_, after)| after))
        .unwrap_or_else(|| panic!("no `{tag}` in:\n{}", rank.out))
}

/// What a rank does: a no-op in a normal test run; the case's work in a
/// copy started by `job`.
#[test]
fn rank_process() {
    let Ok(case) = std::env::var(CASE) else {
        return;
    };
    let join = Join::from_env().unwrap();
    let joined = match std::env::var("COOP_TEST_BACKEND").as_deref() {
        Ok("gpu") => Devices::join_gpu(&join, join.local_rank()),
        Ok("gpu 0") => Devices::join_gpu(&join, 0),
        _ => Devices::join_cpu(&join),
    };
    let devices = match joined {
        Ok(devices) => devices,
        Err(e) => {
            println!("join error: {e}");
            return;
        }
    };
    let reducer = Reducer::new(&devices).unwrap();
    let data: Vec<i64> = (1..=10_000).collect();
    let shards = devices.scatter(&data).unwrap();
    let rank = devices.first_rank();
    match case.as_str() {
        "checks" => {
            let programs = devices.load(&TEST_KERNELS_PTX).unwrap();
            let runs = multi_cases::check_all(&devices, &programs);
            assert_eq!(devices.gather(&shards).unwrap(), data);
            println!("checked: {runs} on {}", devices.describe());
            // The ordered product: rank r holds chunk r, the totals are
            // combined in rank order.
            let (matrices, want) = multi_cases::ordered_matrices();
            let per = matrices.len().div_ceil(devices.world());
            let mine = matrices.chunks(per).nth(rank).unwrap_or(&[]).to_vec();
            let mine = devices.device(0).unwrap().upload(&mine).unwrap();
            let shards = devices.shards(vec![mine]).unwrap();
            let got = reducer
                .reduce_with(
                    &programs,
                    kernels::reduce_mat2_product_once,
                    MatMul,
                    &shards,
                )
                .unwrap();
            assert_eq!(got, want, "ordered product over the ranks");
            println!("ordered: ok");
        }
        "crash" => {
            assert_eq!(reducer.sum(&shards).unwrap(), 50_005_000);
            if rank == 2 {
                std::process::abort(); // a crash, between two collectives
            }
            println!("error: {}", describe(reducer.sum(&shards)));
        }
        "crash in nccl" => {
            // After a first all-reduce (NCCL connects the ranks on first
            // use), the last rank's part of a second one waits behind a
            // kernel that never ends, and the rank is killed: the others'
            // all-reduce is stuck in NCCL until they hear of it and abort.
            let last = devices.world() - 1;
            let mut grads = devices.scatter(&vec![1.0f32; 1 << 20]).unwrap();
            devices.all_reduce(&mut grads, coop::op::Sum).unwrap();
            devices.synchronize().unwrap();
            // Where each rank got to, for a job that hangs.
            println!("step: first all-reduce done");
            // The spinning kernel's module and buffers live until the
            // process dies: freeing them would wait for the kernel (a
            // driver free synchronizes), and the rank would hang in the
            // free, alive, instead of reaching NCCL.
            let _spinning = (rank == last).then(|| {
                let programs = devices.load(&TEST_KERNELS_PTX).unwrap();
                let device = devices.device(0).unwrap();
                let flag = device.upload(&[0u32]).unwrap();
                let mut out = device.zeros::<u32>(64).unwrap();
                programs[0]
                    .launch(
                        kernels::faults::fault_spin,
                        coop_host::LaunchConfig::new(1, 64),
                        (&flag, &mut out),
                    )
                    .unwrap();
                println!("step: spinning");
                (programs, flag, out)
            });
            devices.all_reduce(&mut grads, coop::op::Sum).unwrap();
            println!("step: second all-reduce queued");
            if rank == last {
                std::thread::sleep(Duration::from_millis(500));
                // Killed, as by the system: no exit handler, no core dump
                // (whose writing, with the GPU's mappings, can outlast the
                // test).
                let _ = Command::new("kill")
                    .args(["-9", &std::process::id().to_string()])
                    .status();
                std::thread::sleep(Duration::from_secs(60));
            }
            let waited = devices.synchronize().map(|()| 0);
            println!("error: {}", describe(waited));
            println!("then: {}", describe(reducer.sum(&shards)));
        }
        "late" => {
            if rank == 1 {
                std::thread::sleep(Duration::from_secs(5));
            }
            println!("error: {}", describe(reducer.sum(&shards)));
        }
        "another call" => {
            let result = if rank == 1 {
                reducer.max(&shards)
            } else {
                reducer.sum(&shards)
            };
            println!("error: {}", describe(result));
        }
        other => panic!("no case {other}"),
    }
}

/// The error's variant, rank and message; or the value.
fn describe(result: Result<i64, Error>) -> String {
    match &result {
        Ok(v) => format!("none, got {v}"),
        Err(e @ Error::Rank { rank, problem, .. }) => {
            format!("Rank {rank}: {e}").replace(problem.as_str(), &format!("<{problem}>"))
        }
        Err(e) => format!("other: {e:?}"),
    }
}

#[test]
fn three_processes_reduce_as_one_process_of_three_devices() {
    for rendezvous in [
        tcp(),
        format!(
            "file://{}",
            std::env::temp_dir()
                .join(format!("coop-rendezvous-{}", std::process::id()))
                .display()
        ),
    ] {
        let ranks = job("checks", 3, &rendezvous, &[]);
        for (r, rank) in ranks.iter().enumerate() {
            assert_eq!(
                rank.code,
                Some(0),
                "rank {r} over {rendezvous}:\n{}",
                rank.out
            );
            let checked = line(rank, "checked: ");
            assert!(
                checked.contains(&format!("rank {r} of 3: 1 emulated device")),
                "{checked}"
            );
            assert_eq!(line(rank, "ordered: "), "ok");
        }
    }
}

#[test]
fn a_rank_that_crashes_is_named_by_the_others() {
    let ranks = job("crash", 3, &tcp(), &[]);
    assert_ne!(ranks[2].code, Some(0), "rank 2 aborts");
    for rank in &ranks[..2] {
        assert_eq!(rank.code, Some(0), "{}", rank.out);
        let error = line(rank, "error: ");
        assert!(
            error.starts_with(
                "Rank 2: `multi::Reducer::sum`: rank 2 <exited without leaving the job"
            ),
            "{error}"
        );
    }
}

#[test]
fn a_rank_that_is_late_is_named_by_the_others() {
    let ranks = job("late", 3, &tcp(), &[("COOP_TIMEOUT_S", "2")]);
    for rank in &ranks {
        assert_eq!(rank.code, Some(0), "{}", rank.out);
        let error = line(rank, "error: ");
        assert!(
            error.starts_with("Rank 1: `multi::Reducer::sum`: rank 1 <did not reach `multi::Reducer::sum` within 2s (ranks not there: [1])"),
            "{error}"
        );
    }
}

#[test]
fn a_rank_making_another_call_is_named_on_every_rank() {
    let ranks = job("another call", 3, &tcp(), &[]);
    for (r, rank) in ranks.iter().enumerate() {
        assert_eq!(rank.code, Some(0), "{}", rank.out);
        let call = if r == 1 { "max" } else { "sum" };
        let error = line(rank, "error: ");
        assert!(
            error.starts_with(&format!(
                "Rank 1: `multi::Reducer::{call}`: rank 1 <called `multi::Reducer::max` on `i64` \
                 where rank 0 called `multi::Reducer::sum` on `i64`"
            )),
            "{error}"
        );
    }
}

/// On GPUs (the GPU suite runs it with `--ignored`): a job of one process
/// a GPU over every GPU of the machine runs the same checks as one process
/// of several GPUs; two ranks on one GPU are refused by NCCL, on both
/// ranks, instead of hanging.
#[test]
#[ignore = "needs GPUs and NCCL"]
fn jobs_of_one_process_a_gpu() {
    let gpus = coop_host::cudarc::driver::CudaContext::device_count().unwrap() as usize;
    let ranks = job("checks", gpus, &tcp(), &[("COOP_TEST_BACKEND", "gpu")]);
    for (r, rank) in ranks.iter().enumerate() {
        assert_eq!(rank.code, Some(0), "rank {r}:\n{}", rank.out);
        let checked = line(rank, "checked: ");
        assert!(
            checked.contains(&format!("rank {r} of {gpus}: 1 GPU(s)")),
            "{checked}"
        );
        assert!(checked.contains("NCCL"), "{checked}");
        assert_eq!(line(rank, "ordered: "), "ok");
        eprintln!("rank {r}: {checked}");
    }
    if gpus > 1 {
        let ranks = job(
            "crash in nccl",
            gpus,
            &tcp(),
            &[("COOP_TEST_BACKEND", "gpu")],
        );
        let last = gpus - 1;
        assert_ne!(ranks[last].code, Some(0), "rank {last} aborts");
        for (r, rank) in ranks[..last].iter().enumerate() {
            assert_eq!(rank.code, Some(0), "rank {r}:\n{}", rank.out);
            let error = line(rank, "error: ");
            // The end of its connection, or its silence when the system
            // keeps the connection open while it tears the GPU context down.
            assert!(
                error.starts_with(&format!(
                    "Rank {last}: `Devices::synchronize`: rank {last} <"
                )) && (error.contains("exited without leaving")
                    || error.contains("stopped answering")),
                "{error}"
            );
            let then = line(rank, "then: ");
            assert!(
                then.starts_with(&format!("Rank {last}: `multi::Reducer::sum`")),
                "{then}"
            );
            eprintln!("rank {r}, rank {last} dead during NCCL's all-reduce: {error}");
        }
    }
    let ranks = job("checks", 2, &tcp(), &[("COOP_TEST_BACKEND", "gpu 0")]);
    for (r, rank) in ranks.iter().enumerate() {
        assert_eq!(rank.code, Some(0), "rank {r}:\n{}", rank.out);
        let error = line(rank, "join error: ");
        assert!(error.contains("NCCL error while joining rank"), "{error}");
        eprintln!("two ranks on GPU 0, rank {r}: {error}");
    }
}

#[test]
fn ranks_that_disagree_on_the_job_do_not_join() {
    let address = tcp();
    let join = |rank: usize, world: usize| {
        let address = address.clone();
        std::thread::spawn(move || {
            let join = Join::new(
                rank,
                world,
                coop_host::multi::Rendezvous::tcp(address.trim_start_matches("tcp://")),
            )
            .unwrap()
            .with_timeout(Duration::from_secs(20));
            Devices::join_cpu(&join).map(drop).unwrap_err().to_string()
        })
    };
    let (zero, one) = (join(0, 2), join(1, 3));
    let (zero, one) = (zero.join().unwrap(), one.join().unwrap());
    assert!(
        zero.contains(
            "joining a job as rank 0 of 2: rank 1 was started for a job of 3 ranks, rank 0 for 2"
        ),
        "{zero}"
    );
    assert!(
        one.contains("rank 0 refused the job: rank 1 was started for a job of 3"),
        "{one}"
    );
}
