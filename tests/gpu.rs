//! The GPU differential suite: every tile collective, for every tile size
//! and for u32, i64, f32, f64 and a 12-byte struct, computed three ways:
//! coop's kernels on the GPU, CUDA's cooperative groups
//! (`reference/collectives.cu`, compiled by nvcc in the same run) on the
//! GPU, and coop's kernels on the CPU backend; compared bit for bit. Plus
//! the examples and the launcher's errors on a real GPU.
//!
//! These tests need an NVIDIA GPU and nvcc, so they are marked ignored with
//! that reason, and show as ignored elsewhere. On a GPU machine:
//!
//! ```text
//! cargo test -p coop-tests --test gpu -- --ignored
//! ```

use coop_host::cudarc::driver::CudaSlice;
use coop_host::{Cpu, Error, Gpu, LaunchConfig, LaunchProblem, Module, PtxSet};
use coop_tests::differential::{
    cases, compare_with_cuda, fnv1a, parse_golden, Family, Tally, Target,
};
use coop_tests::watchdog::{watch, watched};
use coop_tests::{find_cuda_tool, kernels, REFERENCE_CU, TEST_KERNELS_PTX};
use std::collections::HashMap;
use std::sync::OnceLock;

/// How long one GPU test may take before the watchdog ends the process
/// (a hung GPU never returns): each test takes seconds.
const TEST_LIMIT: std::time::Duration = std::time::Duration::from_secs(180);
/// How long one launch and its copy back may take.
const LAUNCH_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// coop's GPU outputs as recorded (see `cpu_column.rs`).
const GOLDEN: &str = include_str!("golden/gpu-outputs.tsv");

struct Suite {
    gpu: Gpu,
    coop: Module,
    cuda: Module,
}

fn suite() -> &'static Suite {
    static SUITE: OnceLock<Suite> = OnceLock::new();
    SUITE.get_or_init(|| {
        let gpu = Gpu::new(0).unwrap_or_else(|e| panic!("the GPU suite needs a GPU: {e}"));
        let sm = gpu.limits().sm;
        let coop = gpu
            .load(&TEST_KERNELS_PTX)
            .expect("coop's test kernels load");
        let nvcc = find_cuda_tool("nvcc", "NVCC")
            .unwrap_or_else(|e| panic!("the GPU suite needs nvcc: {e}"));
        let dir = std::env::temp_dir().join(format!("coop-reference-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cu = dir.join("collectives.cu");
        let ptx = dir.join("collectives.ptx");
        std::fs::write(&cu, REFERENCE_CU).unwrap();
        let out = std::process::Command::new(&nvcc)
            .args(["-ptx", &format!("-arch=sm_{sm}"), "-O3", "-o"])
            .arg(&ptx)
            .arg(&cu)
            .output()
            .expect("nvcc runs");
        assert!(
            out.status.success(),
            "nvcc failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&ptx).unwrap();
        let cuda = gpu
            .load_ptx("reference (nvcc)", &text)
            .expect("the nvcc reference loads");
        let version = std::process::Command::new(&nvcc)
            .arg("--version")
            .output()
            .unwrap();
        let version = String::from_utf8_lossy(&version.stdout);
        eprintln!(
            "GPU suite on {} (sm_{sm}, {} SMs); coop PTX sm_{}; reference by {}",
            gpu.limits().name,
            gpu.limits().multiprocessors,
            coop.sm(),
            version.lines().last().unwrap_or("nvcc").trim()
        );
        // Every family of coop-host's kernels once, so that the launches the
        // tests watch never include a first load (the driver compiles PTX
        // that has no code for the GPU, 20 s on a cold machine).
        for (family, set) in coop_host::ptx_families::FAMILIES {
            let started = std::time::Instant::now();
            let module = gpu.load(set).expect("coop-host's kernels load");
            eprintln!(
                "loaded coop-host's `{family}` kernels ({}) in {:.2} s",
                module.code(),
                started.elapsed().as_secs_f64()
            );
        }
        Suite { gpu, coop, cuda }
    })
}

#[test]
#[ignore = "needs an NVIDIA GPU and nvcc: cargo test -p coop-tests --test gpu -- --ignored"]
fn coop_on_the_gpu_cuda_and_the_cpu_backend_agree_on_every_collective() {
    let _watch = watch(
        "the GPU test `coop_on_the_gpu_cuda_and_the_cpu_backend_agree_on_every_collective`",
        TEST_LIMIT,
    );
    let s = suite();
    let cpu = Cpu::new();
    let golden: HashMap<String, u64> = parse_golden(GOLDEN).into_iter().collect();
    let mut lines = Vec::new();
    let mut stale = Vec::new();
    let mut by_family: Vec<(Family, usize, Tally, Tally)> = Vec::new();
    for case in cases() {
        let coop = case
            .run(&Target::Gpu(&s.gpu, &s.coop))
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let cuda = case
            .run(&Target::Gpu(&s.gpu, &s.cuda))
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let on_cpu = case
            .run(&Target::Cpu(&cpu))
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let entry = match by_family.iter().position(|f| f.0 == case.family) {
            Some(i) => &mut by_family[i],
            None => {
                by_family.push((case.family, 0, Tally::default(), Tally::default()));
                by_family.last_mut().unwrap()
            }
        };
        entry.1 += 1;
        compare_with_cuda(&case, &coop, &cuda, &mut entry.2);
        for (i, (c, g)) in on_cpu.iter().zip(&coop).enumerate() {
            entry.3.check(c == g, || {
                format!("{}: word {i}: CPU {c:#x}, GPU {g:#x}", case.name)
            });
        }
        entry.3.check(on_cpu.len() == coop.len(), || {
            format!("{}: output lengths differ", case.name)
        });
        let hash = fnv1a(&coop);
        if golden.get(&case.name).is_some_and(|&h| h != hash) {
            stale.push(case.name.clone());
        }
        lines.push(format!("{}\t{hash:016x}", case.name));
    }
    let mut failures = Vec::new();
    for (family, cases, cuda, cpu) in by_family {
        eprintln!(
            "{family:?}: {cases} cases; coop GPU vs CUDA: {} values, {} mismatches; CPU backend vs GPU: {} values, {} mismatches",
            cuda.compared,
            cuda.mismatches.len(),
            cpu.compared,
            cpu.mismatches.len()
        );
        failures.extend(cuda.mismatches);
        failures.extend(cpu.mismatches);
    }
    if let Some(path) = std::env::var_os("COOP_GOLDEN_OUT") {
        let header = format!(
            "# FNV-1a of coop's GPU outputs for each case of tests/differential.rs, recorded on {} (sm_{}).\n\
             # Regenerate: COOP_GOLDEN_OUT=tests/golden/gpu-outputs.tsv cargo test -p coop-tests --test gpu -- --ignored\n",
            s.gpu.limits().name,
            s.gpu.limits().sm
        );
        std::fs::write(&path, header + &lines.join("\n") + "\n").unwrap();
        eprintln!(
            "wrote {} hashes to {}",
            lines.len(),
            std::path::Path::new(&path).display()
        );
    }
    assert!(failures.is_empty(), "differences:\n{}", failures.join("\n"));
    assert!(
        stale.is_empty(),
        "GPU outputs differ from tests/golden/gpu-outputs.tsv for {stale:?}: regenerate it"
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn the_examples_reproduce_their_host_references() {
    let _watch = watch(
        "the GPU test `the_examples_reproduce_their_host_references`",
        TEST_LIMIT,
    );
    coop_tests::check_examples(&coop_host::Device::Gpu(suite().gpu.clone()));
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn bad_launches_are_refused_with_the_limit_they_break() {
    let _watch = watch(
        "the GPU test `bad_launches_are_refused_with_the_limit_they_break`",
        TEST_LIMIT,
    );
    let s = suite();
    let mut out = s.gpu.zeros::<u32>(4096).unwrap();
    let pred = s.gpu.upload(&[0u32; 1024]).unwrap();
    let refused = |cfg: LaunchConfig, out: &mut CudaSlice<u32>| match s.coop.launch(
        kernels::votes_32,
        cfg,
        (&pred, out),
    ) {
        Err(Error::InvalidLaunch { kernel, problem }) => {
            assert_eq!(kernel, "votes_32");
            problem
        }
        other => panic!("expected InvalidLaunch, got {other:?}"),
    };
    assert!(matches!(
        refused(LaunchConfig::new(1, (32, 64)), &mut out),
        LaunchProblem::TooManyThreads {
            threads: 2048,
            max: 1024,
            ..
        }
    ));
    assert!(matches!(
        refused(LaunchConfig::new(1, 2048), &mut out),
        LaunchProblem::BlockTooLarge {
            axis: 'x',
            requested: 2048,
            max: 1024
        }
    ));
    assert!(matches!(
        refused(LaunchConfig::new(0, 32), &mut out),
        LaunchProblem::EmptyGrid { .. }
    ));
    assert!(matches!(
        refused(LaunchConfig::new((1, 1 << 17), 32), &mut out),
        LaunchProblem::GridTooLarge { axis: 'y', .. }
    ));
    let max = s.gpu.limits().max_shared_per_block_optin;
    let e = refused(
        LaunchConfig::new(1, 32).with_shared_memory(max + 1),
        &mut out,
    );
    assert!(
        matches!(e, LaunchProblem::TooMuchSharedMemory { .. }),
        "{e}"
    );
    eprintln!("refused as expected: {e}");
    // The module still launches correctly afterwards.
    s.coop
        .launch(
            kernels::votes_32,
            LaunchConfig::new(1, 32),
            (&pred, &mut out),
        )
        .unwrap();
    s.gpu.synchronize().unwrap();
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn load_errors_name_the_module_and_carry_the_driver_log() {
    let _watch = watch(
        "the GPU test `load_errors_name_the_module_and_carry_the_driver_log`",
        TEST_LIMIT,
    );
    let s = suite();
    let broken = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry broken()\n{\n\tnot_an_instruction;\n\tret;\n}\n";
    match s.gpu.load_ptx("broken", broken) {
        Err(e @ Error::PtxLoad { .. }) => {
            let msg = e.to_string();
            eprintln!("{msg}");
            assert!(msg.contains("`broken`"), "{msg}");
            let Error::PtxLoad { log, .. } = e else {
                unreachable!()
            };
            assert!(!log.is_empty(), "the JIT log explains the failure");
        }
        other => panic!("expected PtxLoad, got {other:?}"),
    }
    // A kernel asked of a module that does not hold it.
    let examples = s.gpu.load(&coop_examples::PTX).unwrap();
    let mut out = s.gpu.zeros::<u32>(32).unwrap();
    match examples.launch(kernels::ranks_1, LaunchConfig::new(1, 32), (&mut out,)) {
        Err(Error::KernelNotFound {
            kernel: "ranks_1", ..
        }) => {}
        other => panic!("expected KernelNotFound, got {other:?}"),
    }
    // No PTX the device can run.
    static FUTURE: PtxSet = PtxSet::new("future", &[(990, "")]);
    assert!(matches!(
        s.gpu.load(&FUTURE),
        Err(Error::NoPtxForDevice { .. })
    ));
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn reductions_and_scans_match_the_host_fold_on_the_gpu() {
    let _watch = watch(
        "the GPU test `reductions_and_scans_match_the_host_fold_on_the_gpu`",
        TEST_LIMIT,
    );
    use coop_tests::reductions::checks;
    let s = suite();
    let mut rng = coop_tests::Rng::new(0x6E0);
    let mut failures = Vec::new();
    let mut runs = 0;
    for block in [32u32, 96, 256, 288, 512, 1024] {
        for blocks in [1u32, 3] {
            let bits: Vec<u64> = (0..block * blocks).map(|_| rng.next_u64()).collect();
            for (name, check) in checks() {
                for mode in 0..21 {
                    runs += 1;
                    if let Err(e) = check(&Target::Gpu(&s.gpu, &s.coop), &bits, mode, block) {
                        failures.push(format!("{name}: {e}"));
                    }
                }
            }
        }
    }
    eprintln!(
        "reductions and scans: {runs} launches against the host fold, {} differ",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn device_wide_reductions_match_host_references_on_the_gpu() {
    let _watch = watch(
        "the GPU test `device_wide_reductions_match_host_references_on_the_gpu`",
        TEST_LIMIT,
    );
    let s = suite();
    let runs = coop_tests::device_reduce_cases::check_all(
        &coop_host::Device::Gpu(s.gpu.clone()),
        Some(&s.coop),
    );
    eprintln!("device-wide reductions: {runs} checked on the GPU");
}

/// `Reducer::enqueue` leaves its value for `result`, which checks the type
/// asked for; `with_module` runs the same built-in kernels from a module
/// the caller loaded.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn enqueued_reductions_keep_their_type_and_a_reducer_takes_a_module_of_its_gpu() {
    let _watch = watch("the GPU test `enqueued_reductions_keep_their_type_and_a_reducer_takes_a_module_of_its_gpu`", TEST_LIMIT);
    use coop::op::Sum;
    use coop_host::reduce::{Reducer, KERNELS_PTX};
    use coop_host::Error;
    let s = suite();
    let device = coop_host::Device::Gpu(s.gpu.clone());
    let reducer = Reducer::new(&device).unwrap();
    let err = reducer.result::<f32>().unwrap_err();
    assert!(
        matches!(
            err,
            Error::Unavailable {
                call: "Reducer::result",
                ..
            }
        ),
        "{err}"
    );
    let x = s
        .gpu
        .upload(&(1..=100_000).map(f64::from).collect::<Vec<_>>())
        .unwrap();
    reducer.enqueue::<Sum, f64>(&x).unwrap();
    assert_eq!(reducer.result::<f64>().unwrap(), 5_000_050_000.0);
    let err = reducer.result::<f32>().unwrap_err();
    assert!(err.to_string().contains("`f64`, not `f32`"), "{err}");

    // A second handle on the same device shares its context.
    let other = coop_host::Gpu::new(0).unwrap();
    let module = other.load(&KERNELS_PTX).unwrap();
    let reducer = Reducer::new(&device).unwrap().with_module(module).unwrap();
    assert_eq!(reducer.sum(&x).unwrap(), 5_000_050_000.0);
    // A module without the built-in kernels fails the call, naming the kernel.
    let reducer = Reducer::new(&device)
        .unwrap()
        .with_module(s.gpu.load(&TEST_KERNELS_PTX).unwrap())
        .unwrap();
    let err = reducer.sum(&x).unwrap_err();
    assert!(
        matches!(
            err,
            Error::KernelNotFound {
                kernel: "reduce_sum_f64",
                ..
            }
        ),
        "{err}"
    );
}

/// The kernel whose barrier rustc's MIR jump threading copied into both
/// arms of `if lane == 0`: with the aligned `bar.sync` that hung the block.
/// It must finish, with lane 0 of each warp's writes.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn a_barrier_between_two_lane_tests_finishes() {
    let _watch = watch(
        "the GPU test `a_barrier_between_two_lane_tests_finishes`",
        TEST_LIMIT,
    );
    let s = suite();
    let input: Vec<u32> = (0..64).map(|i| 10 * i + 1).collect();
    let d_in = s.gpu.upload(&input).unwrap();
    let mut d_out = s.gpu.zeros::<u32>(64).unwrap();
    s.coop
        .launch(
            kernels::lane_tests_around_a_barrier,
            LaunchConfig::new(1, 64),
            (&d_in, &mut d_out),
        )
        .unwrap();
    let out = s.gpu.download(&d_out).unwrap();
    let mut want = vec![0u32; 64];
    want[0] = input[0] + input[0];
    want[32] = input[32] + input[1];
    want[1] = want[0] * 3;
    assert_eq!(out, want);
}

/// Grid-stride loops with several collectives an iteration, as users
/// write them: multi-warp tiles of 64 to 512 threads (a scan, a reduction,
/// a broadcast and `invoke_one` each round), clusters sharing shared memory
/// each round, and two grid syncs a round, against the host references;
/// each launch under a watchdog. The GPU protocol also runs this test under
/// compute-sanitizer (racecheck, synccheck, memcheck): `docs/guide/07-performance.md`.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn loop_shaped_kernels_match_the_host_reference_on_the_gpu() {
    let _watch = watch("the GPU test `loop_shaped_kernels_...`", TEST_LIMIT);
    let s = suite();
    let device = coop_host::Device::Gpu(s.gpu.clone());
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    assert!(coop_tests::loop_shapes::check_all(&device, &program, Some(LAUNCH_LIMIT)) > 100);
}

/// Asynchronous copies (`copy_async`, `wait`, `wait_prior`) and pipelines
/// (bulk copies on sm_90, `cp.async` chunks of 16, 8 and 4 bytes, plain
/// stores for sources aligned to less) on every source offset and partial
/// tile of `coop_tests::async_cases`, against the host reference; each
/// launch under a watchdog. The GPU protocol also runs it under
/// compute-sanitizer.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn asynchronous_copies_and_pipelines_match_the_host_reference_on_the_gpu() {
    let _watch = watch("the GPU test `asynchronous_copies_...`", TEST_LIMIT);
    let s = suite();
    let device = coop_host::Device::Gpu(s.gpu.clone());
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    assert!(coop_tests::async_cases::check_all(&device, &program, Some(LAUNCH_LIMIT)) > 200);
    // CUDA's exclusive_scan_update/inclusive_scan_update (over a warp and
    // coalesced threads) through the same check.
    if let Some(cuda) = twins("scan_updates", coop_tests::SCAN_UPDATES_CU) {
        for (n, threads) in [(1, 64), (1000, 128), (4099, 256), (100_000, 1024)] {
            watched("scan_updates (CUDA)", LAUNCH_LIMIT, || {
                coop_tests::async_cases::check_scan_updates(&device, &cuda, n, threads)
            })
            .unwrap_or_else(|e| panic!("CUDA's scan_updates n {n} threads {threads}: {e}"));
        }
        eprintln!("scans with an update: coop and CUDA's twin pass the same check");
    }
}

/// A tile's copies into its own row (`tile_row`, `copy_async_filled`,
/// `wait_prior::<1>`, `wait`) on tiles of 8, 32, 64 and 128 threads in a
/// grid-stride loop, against the host, and CUDA's `memcpy_async` on the
/// same tiles (`reference/tile_copies.cu`) through the same check; warps'
/// parts of a dynamic shared array (`tile_slice`) against the host; a
/// cluster's windows copied in parts (`wait_shared`, clusters of 1 to 8)
/// against the host, and CUDA's twin (`reference/cluster_copies.cu`); each
/// launch under a watchdog. The GPU protocol also runs it under
/// compute-sanitizer.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn tile_copies_match_the_host_and_cuda() {
    let _watch = watch("the GPU test `tile_copies_...`", TEST_LIMIT);
    let s = suite();
    let device = coop_host::Device::Gpu(s.gpu.clone());
    let coop = device.load(&TEST_KERNELS_PTX).unwrap();
    let watch = &|what: String| Some(coop_tests::watchdog::watch(what, LAUNCH_LIMIT));
    let cuda = twins("tile_copies", coop_tests::TILE_COPIES_CU);
    let mut cases = 0;
    for n in [1usize, 1000, 100_003] {
        for offset in [0usize, 1] {
            for (blocks, threads) in [(3u32, 256u32), (40, 128)] {
                cases += coop_tests::async_cases::check_tile_rows(
                    &device, &coop, n, offset, blocks, threads, watch,
                );
                if let Some(cuda) = &cuda {
                    coop_tests::async_cases::check_tile_rows(
                        &device, cuda, n, offset, blocks, threads, watch,
                    );
                }
            }
        }
    }
    // Parts of a dynamic shared array (`tile_slice`), coop only.
    for n in [1000usize, 100_003] {
        for (offset, len) in [(0usize, 64usize), (1, 37), (2, 100)] {
            for (blocks, threads) in [(2u32, 64u32), (40, 256)] {
                watched("tile_slices_dynamic", LAUNCH_LIMIT, || {
                    coop_tests::async_cases::check_tile_slices(
                        &device, &coop, n, offset, len, blocks, threads,
                    )
                })
                .unwrap_or_else(|e| panic!("tile_slices_dynamic n {n} len {len}: {e}"));
                cases += 1;
            }
        }
    }
    eprintln!(
        "tiles' rows: coop's {cases} cases pass{}",
        if cuda.is_some() {
            ", and CUDA's memcpy_async twins pass the same check"
        } else {
            ""
        }
    );
    // A cluster's windows, each block copying its part (`wait_shared`),
    // against the host, and CUDA's twin through the same check.
    let cuda = twins("cluster_copies", coop_tests::CLUSTER_COPIES_CU);
    let mut windows = 0;
    for n in [1usize, 1000, 100_003, 1 << 20] {
        for offset in [0usize, 1] {
            for (blocks, threads, cluster) in [
                (2u32, 128u32, 2u32),
                (8, 64, 4),
                (132, 128, 2),
                (64, 96, 8),
                (3, 256, 1),
            ] {
                for program in std::iter::once(&coop).chain(cuda.as_ref()) {
                    watched("cluster_windows", LAUNCH_LIMIT, || {
                        coop_tests::async_cases::check_cluster_windows(
                            &device, program, n, offset, blocks, threads, cluster,
                        )
                    })
                    .unwrap_or_else(|e| {
                        panic!("cluster_windows n {n}, clusters of {cluster}: {e}")
                    });
                }
                windows += 1;
            }
        }
    }
    eprintln!(
        "clusters' windows: coop's {windows} cases pass{}",
        if cuda.is_some() {
            ", and CUDA's memcpy_async + cluster.sync twin passes the same check"
        } else {
            ""
        }
    );
}

/// Inboxes: whole shared arrays sent into other blocks' shared memory
/// (`cp.async.bulk.shared::cluster.shared::cta`) and combined into it
/// (`cp.reduce.async.bulk.shared::cluster`) in rounds, on clusters of 1 to
/// 8 blocks, every operator and element the engine has, against the host
/// reference (`coop_tests::inbox_cases`); each launch under a watchdog.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn inboxes_match_the_host_reference_on_the_gpu() {
    let _watch = watch("the GPU test `inboxes_...`", TEST_LIMIT);
    let s = suite();
    let device = coop_host::Device::Gpu(s.gpu.clone());
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    assert!(coop_tests::inbox_cases::check_all(&device, &program, Some(LAUNCH_LIMIT)) >= 40);
    let watch = &|what: String| Some(coop_tests::watchdog::watch(what, LAUNCH_LIMIT));
    if let Some(cuda) = twins("inboxes", coop_tests::INBOXES_CU) {
        assert_eq!(
            coop_tests::inbox_cases::check_twins(&device, &cuda, watch),
            8
        );
        eprintln!("inboxes: coop and CUDA's twins pass the same checks");
    }
}

/// Tensor copies (TMA) of 1- to 5-D tiles of 1-, 2-, 4- and 8-byte
/// elements into rings of 1 to 3 stages, at coordinates inside the array,
/// over its edges and outside it, zero and NaN fill, against the host
/// reference (`coop_tests::tensor_cases`); the 2-D cases, plain and
/// swizzled over 128 bytes, also against CUDA's twin (`cuda::barrier` and
/// `cp_async_bulk_tensor_2d_global_to_shared` on the same tensor maps). Needs sm_90; each launch under a watchdog.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn tensor_copies_match_the_host_and_cuda_on_the_gpu() {
    let _watch = watch("the GPU test `tensor_copies_...`", TEST_LIMIT);
    let s = suite();
    if s.gpu.limits().sm < 90 {
        eprintln!(
            "tensor copies need sm_90; this GPU is sm_{}",
            s.gpu.limits().sm
        );
        return;
    }
    let device = coop_host::Device::Gpu(s.gpu.clone());
    // CUDA's twin first: a fault there is the hardware's rule, not coop's.
    let cuda = twins("tensor_copies", coop_tests::TENSOR_COPIES_CU)
        .expect("CUDA's twin of the tensor copies compiles with this nvcc");
    let watch = &|what: String| {
        Some(coop_tests::watchdog::watch(
            format!("{what} (CUDA)"),
            LAUNCH_LIMIT,
        ))
    };
    assert_eq!(
        coop_tests::tensor_cases::check_2d_f32(&device, &cuda, watch, 200),
        24
    );
    assert_eq!(
        coop_tests::tensor_cases::check_swizzled_128_f32(&device, &cuda, watch, 200),
        1
    );
    eprintln!("tensor copies: CUDA's twin passes the 2-D checks and the 128-byte swizzle");
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    assert!(coop_tests::tensor_cases::check_all(&device, &program, Some(LAUNCH_LIMIT)) >= 30);
}

/// Every block collective in kernels shaped as users write them (guarded
/// load, collective, guarded store), on every block shape and size of
/// `coop_tests::user_shapes`, against the host reference; each launch
/// under a watchdog, so that a hang names its case.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn user_shaped_kernels_match_the_host_reference_on_the_gpu() {
    let _watch = watch("the GPU test `user_shaped_kernels_...`", TEST_LIMIT);
    let s = suite();
    let device = coop_host::Device::Gpu(s.gpu.clone());
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    coop_tests::user_shapes::check_all(&device, &program, Some(LAUNCH_LIMIT));
}

/// The cooperative kernel (`grids::grid_steps`): coop's and CUDA's
/// `cg::grid_group` twin give the host's ranks and stencil rounds on grids
/// up to the most blocks the GPU holds at once; one block more is refused
/// before the launch, with the figure the driver itself enforces (its own
/// cooperative launch of that many blocks fails, of the figure succeeds).
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn cooperative_launches_sync_the_grid_and_refuse_grids_that_do_not_fit() {
    use coop_host::cudarc::driver::{LaunchConfig as RawConfig, PushKernelArg};
    use coop_tests::grid_cases;
    let _watch = watch("the GPU test `cooperative_launches_...`", TEST_LIMIT);
    let s = suite();
    let device = coop_host::Device::Gpu(s.gpu.clone());
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let k = kernels::grids::grid_steps;
    let max = program.max_cooperative_blocks(k, 128, 0).unwrap();
    eprintln!(
        "grid_steps: at most {max} blocks of 128 threads at once on {} SMs",
        s.gpu.limits().multiprocessors
    );
    assert!(max >= s.gpu.limits().multiprocessors);
    watched("grid_steps (coop)", LAUNCH_LIMIT * 6, || {
        grid_cases::check_all(&device, &program, max)
    });
    // CUDA's twin, through the same descriptor (a cooperative launch).
    let cuda_max = s.cuda.max_cooperative_blocks(k, 128, 0).unwrap();
    let input = grid_cases::input(3 * 128 * cuda_max as usize + 5);
    let got = watched("grid_steps (CUDA)", LAUNCH_LIMIT, || {
        let mut a = s.gpu.upload(&input).unwrap();
        let mut b = s.gpu.zeros::<u32>(input.len()).unwrap();
        let mut ranks = s.gpu.zeros::<u32>(6 * 128 * cuda_max as usize).unwrap();
        s.cuda
            .launch(
                k,
                LaunchConfig::new(cuda_max, 128),
                (20u32, &mut a, &mut b, &mut ranks),
            )
            .unwrap();
        grid_cases::Steps {
            a: s.gpu.download(&a).unwrap(),
            b: s.gpu.download(&b).unwrap(),
            ranks: s.gpu.download(&ranks).unwrap(),
        }
    });
    assert!(
        got == grid_cases::reference(&input, 20, cuda_max, 128),
        "CUDA's grid_steps differs from the host"
    );
    // The driver's own limit: its cooperative launch of `max` blocks runs,
    // of `max + 1` fails with "cooperative launch too large".
    let (_, text) = TEST_KERNELS_PTX.best_for(s.gpu.limits().sm).unwrap();
    let ptx = coop_host::cudarc::nvrtc::Ptx::from_src(text);
    let module = s.gpu.context().load_module(ptx).unwrap();
    let f = module.load_function("grid_steps").unwrap();
    let mut a = s.gpu.upload(&grid_cases::input(64)).unwrap();
    let mut b = s.gpu.zeros::<u32>(64).unwrap();
    let mut ranks = s.gpu.zeros::<u32>(6 * 128 * (max as usize + 1)).unwrap();
    let (steps, n, rn) = (1u32, 64usize, ranks.len());
    let raw =
        |blocks: u32, a: &mut CudaSlice<u32>, b: &mut CudaSlice<u32>, r: &mut CudaSlice<u32>| {
            let stream = s.gpu.stream();
            let mut builder = stream.launch_builder(&f);
            builder
                .arg(&steps)
                .arg(a)
                .arg(&n)
                .arg(b)
                .arg(&n)
                .arg(r)
                .arg(&rn);
            let cfg = RawConfig {
                grid_dim: (blocks, 1, 1),
                block_dim: (128, 1, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: grid_steps' parameters, in order: a u32, then three
            // (pointer, length) pairs of live device buffers.
            unsafe { builder.launch_cooperative(cfg) }.map(drop)
        };
    watched("grid_steps (raw driver launches)", LAUNCH_LIMIT, || {
        raw(max, &mut a, &mut b, &mut ranks).expect("the driver launches `max` blocks");
        s.gpu.synchronize().unwrap();
        let too_many = raw(max + 1, &mut a, &mut b, &mut ranks).unwrap_err();
        assert!(
            format!("{too_many:?}").contains("COOPERATIVE_LAUNCH_TOO_LARGE"),
            "{too_many:?}"
        );
    });
}

/// The dynamic groups (`dynamic::partitions`): coop's groups from a
/// predicate and a label, and every collective on them, equal CUDA's
/// `cg::binary_partition` / `cg::labeled_partition` twin and the CPU
/// backend bit for bit; the warp-aggregated compaction through
/// `coalesced_threads` keeps exactly the host's values, as CUDA's does.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn dynamic_groups_match_cuda_and_the_cpu_backend() {
    use coop_tests::dynamic_cases as d;
    let _watch = watch("the GPU test `dynamic_groups_...`", TEST_LIMIT);
    let s = suite();
    let gpu = coop_host::Device::Gpu(s.gpu.clone());
    let coop = gpu.load(&TEST_KERNELS_PTX).unwrap();
    let cpu = coop_host::Device::cpu();
    let cpu_program = cpu.load(&TEST_KERNELS_PTX).unwrap();
    let (values, preds, labels) = d::partition_inputs();
    let ours = watched("partitions (coop)", LAUNCH_LIMIT, || {
        d::run_partitions(&gpu, &coop).unwrap()
    });
    let theirs = watched("partitions (CUDA)", LAUNCH_LIMIT, || {
        let (v, p, l) = (
            s.gpu.upload(&values).unwrap(),
            s.gpu.upload(&preds).unwrap(),
            s.gpu.upload(&labels).unwrap(),
        );
        let mut out = s.gpu.zeros::<u32>(ours.len()).unwrap();
        s.cuda
            .launch(
                kernels::dynamic::partitions,
                LaunchConfig::new(2, 64),
                (&v, &p, &l, &mut out),
            )
            .unwrap();
        s.gpu.download(&out).unwrap()
    });
    let on_cpu = d::run_partitions(&cpu, &cpu_program).unwrap();
    let fields = kernels::dynamic::PARTITION_FIELDS;
    for (i, ((a, b), c)) in ours.iter().zip(&theirs).zip(&on_cpu).enumerate() {
        assert!(
            a == b && a == c,
            "thread {} field {}: coop {a:#x}, CUDA {b:#x}, CPU backend {c:#x}",
            i / fields,
            i % fields
        );
    }
    d::check_partitions(&ours);
    let input = d::compaction_input(1 << 20);
    let want = d::compaction_reference(&input);
    let got = watched("compact_even (coop)", LAUNCH_LIMIT, || {
        d::run_compaction(&gpu, &coop, &input).unwrap()
    });
    assert!(got == want, "coop's compaction differs from the host");
    let got = watched("compact_even (CUDA)", LAUNCH_LIMIT, || {
        let d_in = s.gpu.upload(&input).unwrap();
        let mut count = s.gpu.zeros::<u32>(1).unwrap();
        let mut out = s.gpu.zeros::<u32>(input.len()).unwrap();
        s.cuda
            .launch(
                kernels::dynamic::compact_even,
                LaunchConfig::for_elements(input.len(), 256),
                (&d_in, &mut count, &mut out),
            )
            .unwrap();
        let n = s.gpu.download(&count).unwrap()[0];
        let mut kept = s.gpu.download(&out).unwrap();
        kept.truncate(n as usize);
        kept.sort_unstable();
        (n, kept)
    });
    assert!(got == want, "CUDA's compaction differs from the host");
}

/// Multi-warp tiles (`multi_warp::*`, tiles of 64 to 1024 threads): every
/// member and collective equals the host's and the CPU backend's, and
/// CUDA's multi-warp tiles (64 to 512) where this nvcc has them.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn multi_warp_tiles_match_the_host_the_cpu_backend_and_cuda() {
    use coop_tests::multi_warp_cases as mw;
    let _watch = watch("the GPU test `multi_warp_tiles_...`", TEST_LIMIT);
    let s = suite();
    let gpu = coop_host::Device::Gpu(s.gpu.clone());
    let coop = gpu.load(&TEST_KERNELS_PTX).unwrap();
    watched("multi-warp tiles (coop)", LAUNCH_LIMIT * 5, || {
        mw::check_all(&gpu, &coop)
    });
    // The shape users write: guarded load, tile collectives, guarded store.
    watched(
        "guarded multi-warp tile scans (coop)",
        LAUNCH_LIMIT * 5,
        || mw::check_guarded(&gpu, &coop),
    );
    let cpu = coop_host::Device::cpu();
    let cpu_program = cpu.load(&TEST_KERNELS_PTX).unwrap();
    mw::check_all(&cpu, &cpu_program);
    // CUDA's twins (64 to 512: CUDA has no tile of 1024), if this nvcc
    // compiles its multi-warp tiles.
    let Some(cuda) = twins("multi_warp", coop_tests::MULTI_WARP_CU) else {
        eprintln!("coop compared with the host and the CPU backend only");
        return;
    };
    watched("multi-warp tiles (CUDA)", LAUNCH_LIMIT * 5, || {
        mw::check(&gpu, &cuda, &[64, 128, 256, 512])
    });
    eprintln!("multi-warp tiles: coop, CUDA (64 to 512), the CPU backend and the host agree");
}

/// CUDA twins of test kernels, `source` compiled by nvcc for the suite's
/// GPU and loaded as `name`; `None` (with nvcc's message) where this nvcc
/// does not compile them.
fn twins(name: &str, source: &str) -> Option<coop_host::Program> {
    let s = suite();
    let nvcc = find_cuda_tool("nvcc", "NVCC").unwrap();
    let dir = std::env::temp_dir().join(format!("coop-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (cu, ptx) = (
        dir.join(format!("{name}.cu")),
        dir.join(format!("{name}.ptx")),
    );
    std::fs::write(&cu, source).unwrap();
    let built = std::process::Command::new(&nvcc)
        .args([
            "-ptx",
            &format!("-arch=sm_{}", s.gpu.limits().sm),
            "-O3",
            "-o",
        ])
        .arg(&ptx)
        .arg(&cu)
        .output()
        .unwrap();
    if !built.status.success() {
        eprintln!(
            "CUDA's twins in {name}.cu do not compile with this nvcc:\n{}",
            String::from_utf8_lossy(&built.stderr)
        );
        return None;
    }
    let text = std::fs::read_to_string(&ptx).unwrap();
    let module = s.gpu.load_ptx(&format!("{name} (nvcc)"), &text).unwrap();
    Some(coop_host::Program::Gpu(module))
}

/// Split barriers (`split_barriers::split_rounds`, five rounds of a
/// block's `barrier_arrive`/`barrier_wait` with work between them, in
/// blocks of 32 to 1024 threads, a partial warp and a 2-D block, alone and
/// in clusters of 2; `cluster_split_rounds`, a cluster's, in clusters of 1,
/// 2 and 4; `grid_split_rounds`, a cooperative grid's): equal to the host
/// with coop's sm_90 and sm_80 PTX, and CUDA's `barrier_arrive`/
/// `barrier_wait` twins (`reference/split_barriers.cu`) equal the host too.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn split_barriers_match_the_host_and_cuda() {
    use coop_tests::split_barrier_cases as c;
    let _watch = watch("the GPU test `split_barriers_...`", TEST_LIMIT);
    let s = suite();
    let gpu = coop_host::Device::Gpu(s.gpu.clone());
    let coop = gpu.load(&TEST_KERNELS_PTX).unwrap();
    let sm90 = s.gpu.limits().sm >= 90;
    let cases = c::check_all(&gpu, &coop, sm90, Some(LAUNCH_LIMIT));
    assert!(cases >= c::BLOCKS.len());
    // The sm_80 path (the wait is the block barrier), without clusters.
    static SM80_ONLY: std::sync::OnceLock<PtxSet> = std::sync::OnceLock::new();
    let sm80 = SM80_ONLY.get_or_init(|| {
        let text: &'static str = TEST_KERNELS_PTX.get(80).expect("sm_80 PTX");
        let variants: &'static [(u32, &'static str)] = Box::leak(Box::new([(80, text)]));
        PtxSet::new("coop-test-kernels, sm_80 only", variants)
    });
    let old = gpu.load(sm80).unwrap();
    let old_cases = c::check_all(&gpu, &old, false, Some(LAUNCH_LIMIT));
    // CUDA's twins, if this nvcc has cooperative groups' split barriers.
    let Some(cuda) = twins("split_barriers", coop_tests::SPLIT_BARRIERS_CU) else {
        eprintln!("coop compared with the host only");
        return;
    };
    let cuda_cases = c::check_all(&gpu, &cuda, sm90, Some(LAUNCH_LIMIT));
    eprintln!(
        "split barriers: coop (sm_{} PTX: {cases} cases; sm_80 PTX: {old_cases}), CUDA ({cuda_cases}) and the host agree",
        s.coop.sm()
    );
}

/// Block-level building blocks (`block_tiles`: tiles loaded, radix-sorted
/// as keys and as pairs, ascending and descending, over bit ranges;
/// merge-sorted by a custom order, partial tiles by their valid part;
/// flagged, differenced, scattered and ranked, in blocks of 32 to 256
/// threads, every data pattern and partial tiles): equal to the host, and
/// CUB's twins (`reference/block_tiles.cu`: `BlockLoad`, `BlockRadixSort`,
/// `BlockMergeSort`, `BlockDiscontinuity`, `BlockAdjacentDifference`,
/// `BlockExchange`) equal the host too, on the keys without `-0.0`.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn block_tiles_match_the_host_and_cub() {
    use coop_tests::block_cases as c;
    let _watch = watch("the GPU test `block_tiles_...`", TEST_LIMIT);
    let s = suite();
    let gpu = coop_host::Device::Gpu(s.gpu.clone());
    let coop = gpu.load(&TEST_KERNELS_PTX).unwrap();
    let cases = c::check_all(&gpu, &coop, true, true, Some(LAUNCH_LIMIT));
    assert_eq!(cases, 604);
    let Some(cub) = twins("block_tiles", coop_tests::BLOCK_TILES_CU) else {
        panic!("CUB's twins in block_tiles.cu do not compile with this nvcc");
    };
    let cub_cases = c::check_all(&gpu, &cub, false, false, Some(LAUNCH_LIMIT));
    eprintln!("block tiles: coop ({cases} cases) and CUB ({cub_cases}) agree with the host");
}

/// Launch bounds and register caps (`launch_bounds` kernels): results as
/// the host's, the bounded block refused, and the registers ptxas gave
/// each kernel within its declared cap; the occupancy search on the
/// driver's figures.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn launch_bounds_cap_registers_and_refuse_larger_blocks_on_the_gpu() {
    use coop_tests::kernels::launch_bounds as k;
    let _watch = watch("the GPU test `launch_bounds_...`", TEST_LIMIT);
    let s = suite();
    let gpu = coop_host::Device::Gpu(s.gpu.clone());
    let program = gpu.load(&TEST_KERNELS_PTX).unwrap();
    let cases = coop_tests::launch_bounds_cases::check_all(&gpu, &program).unwrap();
    let coop_host::Program::Gpu(module) = &program else {
        unreachable!("loaded on a GPU")
    };
    let capped = module.kernel_resources(k::capped_mix).unwrap();
    let uncapped = module.kernel_resources(k::uncapped_mix).unwrap();
    let bounded = module.kernel_resources(k::bounded_block_sum).unwrap();
    assert!(capped.registers <= 24, "{capped:?}");
    assert_eq!(bounded.max_threads_per_block, 256, "{bounded:?}");
    // 8 blocks of 256 on a multiprocessor of 65536 registers: 32 a thread.
    assert!(bounded.registers <= 32, "{bounded:?}");
    let best = module
        .occupancy_block_size(k::unbounded_block_sum, |_| 0)
        .unwrap();
    let sm = s.gpu.limits();
    assert!(
        best.block_threads * best.blocks_per_multiprocessor <= sm.max_threads_per_multiprocessor
    );
    assert_eq!(
        best.grid_blocks,
        best.blocks_per_multiprocessor * sm.multiprocessors
    );
    // Past the default 48 KiB of shared memory a block: two blocks of
    // 100 KiB fit a multiprocessor, on the GPU as on the CPU backend.
    let big = 100 * 1024;
    let gpu_blocks = module
        .resident_blocks(k::unbounded_block_sum, 256, big)
        .unwrap();
    let cpu_blocks = coop_host::Cpu::new().resident_blocks(k::unbounded_block_sum, 256, big);
    assert_eq!((gpu_blocks, cpu_blocks), (2, 2));
    let roomy = module
        .occupancy_block_size(k::unbounded_block_sum, |_| big)
        .unwrap();
    assert_eq!(roomy.blocks_per_multiprocessor, 2, "{roomy:?}");
    eprintln!(
        "launch bounds: {cases} cases; capped_mix {capped:?}, uncapped_mix {uncapped:?}, \
         bounded_block_sum {bounded:?}; occupancy of unbounded_block_sum {best:?}"
    );
}

/// Clusters (`clusters::cluster_ranks`, launched with `with_cluster` of 1,
/// 2, 4 and 8 blocks): every rank and a value passed across
/// `Cluster::sync` equal the host's, the CPU backend's and CUDA's
/// `cg::this_cluster()` twin's. Skipped before sm_90, which refuses the
/// launch (checked too).
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn clusters_match_the_host_the_cpu_backend_and_cuda() {
    use coop_tests::cluster_cases as c;
    let _watch = watch("the GPU test `clusters_...`", TEST_LIMIT);
    let s = suite();
    let gpu = coop_host::Device::Gpu(s.gpu.clone());
    let coop = gpu.load(&TEST_KERNELS_PTX).unwrap();
    if s.gpu.limits().sm < 90 {
        let err = c::run(&gpu, &coop, 4, 32, 2).unwrap_err();
        assert!(matches!(
            err,
            Error::InvalidLaunch {
                problem: LaunchProblem::ClustersUnsupported { .. },
                ..
            }
        ));
        return;
    }
    watched("clusters (coop)", LAUNCH_LIMIT, || {
        c::check_all(&gpu, &coop)
    });
    // The same kernels built for sm_80 only, where cluster calls act on the
    // block alone: a launch in clusters is refused, not run wrong.
    static SM80_ONLY: std::sync::OnceLock<PtxSet> = std::sync::OnceLock::new();
    let sm80 = SM80_ONLY.get_or_init(|| {
        let text: &'static str = TEST_KERNELS_PTX.get(80).expect("sm_80 PTX");
        let variants: &'static [(u32, &'static str)] = Box::leak(Box::new([(80, text)]));
        PtxSet::new("coop-test-kernels, sm_80 only", variants)
    });
    let old = gpu.load(sm80).unwrap();
    let err = c::run(&gpu, &old, 4, 32, 2).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidLaunch {
                problem: LaunchProblem::ClusterPtxTooOld { ptx_sm: 80, .. },
                ..
            }
        ),
        "{err}"
    );
    let cpu = coop_host::Device::cpu();
    c::check_all(&cpu, &cpu.load(&TEST_KERNELS_PTX).unwrap());
    for (blocks, threads, cluster) in c::CASES {
        let got = watched("clusters (CUDA)", LAUNCH_LIMIT, || {
            let mut stage = s.gpu.zeros::<u32>(blocks as usize).unwrap();
            let mut out = s
                .gpu
                .zeros::<u32>(kernels::clusters::CLUSTER_FIELDS * (blocks * threads) as usize)
                .unwrap();
            s.cuda
                .launch(
                    kernels::clusters::cluster_ranks,
                    LaunchConfig::new(blocks, threads).with_cluster(cluster),
                    (&mut stage, &mut out),
                )
                .unwrap();
            s.gpu.download(&out).unwrap()
        });
        assert!(
            got == c::reference(blocks, threads, cluster),
            "CUDA's clusters of {cluster} differ from the host"
        );
    }
    // Distributed shared memory: coop's reads and atomics into other
    // blocks' arrays, and CUDA's `map_shared_rank` twins, against the host.
    watched("distributed shared memory (coop)", LAUNCH_LIMIT, || {
        c::check_dsm(&gpu, &coop)
    });
    c::check_dsm(&cpu, &cpu.load(&TEST_KERNELS_PTX).unwrap());
    // A cooperative kernel launched in clusters (the driver's
    // `cuLaunchKernelEx` with the cooperative attribute): grid syncs,
    // cluster syncs and distributed shared memory in one kernel, against
    // the host; one cluster more than the driver's figure is refused by
    // name, before the driver sees it.
    watched(
        "cooperative launch in clusters (coop)",
        LAUNCH_LIMIT,
        || c::check_grid_rounds(&gpu, coop.launcher(), 64),
    );
    watched(
        "cooperative launch in clusters (CUDA)",
        LAUNCH_LIMIT,
        || c::check_grid_rounds(&gpu, coop_host::Launcher::Gpu(&s.cuda), 64),
    );
    let active = s
        .coop
        .max_active_clusters(
            kernels::clusters::cluster_grid_rounds,
            LaunchConfig::new(8, 64).with_cluster(8),
        )
        .unwrap();
    eprintln!("cooperative clusters of 8 blocks of 64 threads: {active} at once");
    let err = c::run_grid_rounds(&gpu, coop.launcher(), (active + 1) * 8, 8, 1).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidLaunch {
                problem: LaunchProblem::ClustersNotCoResident { .. },
                ..
            }
        ),
        "{err}"
    );
    for (blocks, cluster) in [(2, 1), (4, 2), (8, 4), (16, 8)] {
        let rotated = watched("dsm_rotate (CUDA)", LAUNCH_LIMIT, || {
            let mut out = s.gpu.zeros::<u32>(blocks as usize * 128).unwrap();
            s.cuda
                .launch(
                    kernels::clusters::dsm_rotate,
                    LaunchConfig::new(blocks, 128).with_cluster(cluster),
                    (&mut out,),
                )
                .unwrap();
            s.gpu.download(&out).unwrap()
        });
        assert!(
            rotated == c::dsm_rotate_reference(blocks, cluster),
            "CUDA's dsm_rotate differs"
        );
        let passed = watched("dsm_pass_on (CUDA)", LAUNCH_LIMIT, || {
            let mut out = s.gpu.zeros::<u32>(blocks as usize * 128).unwrap();
            s.cuda
                .launch(
                    kernels::clusters::dsm_pass_on,
                    LaunchConfig::new(blocks, 128).with_cluster(cluster),
                    (&mut out,),
                )
                .unwrap();
            s.gpu.download(&out).unwrap()
        });
        assert!(
            passed == c::dsm_pass_on_reference(blocks, cluster),
            "CUDA's dsm_pass_on differs"
        );
        let input: Vec<u32> = (0..20_000u32)
            .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
            .collect();
        let bins = watched("dsm_histogram (CUDA)", LAUNCH_LIMIT, || {
            let d_in = s.gpu.upload(&input).unwrap();
            let mut bins = s.gpu.zeros::<u32>(256 * cluster as usize).unwrap();
            s.cuda
                .launch(
                    kernels::clusters::dsm_histogram,
                    LaunchConfig::new(blocks, 128).with_cluster(cluster),
                    (&d_in, &mut bins),
                )
                .unwrap();
            s.gpu.download(&bins).unwrap()
        });
        assert!(
            bins == c::dsm_histogram_reference(&input, cluster),
            "CUDA's dsm_histogram differs"
        );
    }
    // A cluster of 32 blocks is past every GPU's limit: refused before the
    // driver sees it.
    let err = c::run(&gpu, &coop, 64, 32, 32).unwrap_err();
    assert!(matches!(
        err,
        Error::InvalidLaunch {
            problem: LaunchProblem::ClusterTooLarge { .. },
            ..
        }
    ));
    // The driver's cluster occupancy: clusters of 16 blocks of 1024 threads
    // with ever more shared memory a block. A shape of which no cluster
    // fits is refused by name; the others run and pass.
    let module = &s.coop;
    for shared in [0u32, 100_000, 200_000, 227 * 1024] {
        let config = LaunchConfig::new(16, 1024)
            .with_cluster(16)
            .with_shared_memory(shared);
        let active = module
            .max_active_clusters(kernels::clusters::cluster_ranks, config)
            .unwrap();
        eprintln!("clusters of 16 blocks of 1024 threads, {shared} bytes of dynamic shared memory: {active} at once");
        let mut stage = s.gpu.zeros::<u32>(16).unwrap();
        let mut out = s
            .gpu
            .zeros::<u32>(kernels::clusters::CLUSTER_FIELDS * 16 * 1024)
            .unwrap();
        let launched = watched("clusters of 16 (coop)", LAUNCH_LIMIT, || {
            module
                .launch(
                    kernels::clusters::cluster_ranks,
                    config,
                    (&mut stage, &mut out),
                )
                .and_then(|()| s.gpu.download(&out))
        });
        if active == 0 {
            assert!(
                matches!(
                    launched,
                    Err(Error::InvalidLaunch {
                        problem: LaunchProblem::ClusterNotSchedulable { .. },
                        ..
                    })
                ),
                "{launched:?}"
            );
        } else {
            assert!(launched.unwrap() == c::reference(16, 1024, 16));
        }
    }
}

/// The kernel of the hang report, as its user wrote it, at the sizes of
/// the report (n = 1: one block of 1024 threads) and around it.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn the_block_scan_kernel_that_hung_an_h100_finishes_and_scans() {
    let _watch = watch("the GPU test `the_block_scan_kernel...`", TEST_LIMIT);
    let s = suite();
    for n in [1usize, 2, 31, 1000, 1023, 1024, 1025, 5000] {
        let input: Vec<u32> = (0..n as u32).map(|i| i * 7 + 1).collect();
        let d_in = s.gpu.upload(&input).unwrap();
        let mut inc = s.gpu.zeros::<u32>(n).unwrap();
        let mut exc = s.gpu.zeros::<u32>(n).unwrap();
        let (inclusive, exclusive) = watched(format!("block_scans, n {n}"), LAUNCH_LIMIT, || {
            s.coop
                .launch(
                    kernels::user_shapes::block_scans,
                    LaunchConfig::new(n.div_ceil(1024) as u32, 1024),
                    (&d_in, &mut inc, &mut exc),
                )
                .unwrap();
            (s.gpu.download(&inc).unwrap(), s.gpu.download(&exc).unwrap())
        });
        coop_tests::user_shapes::check_block_scans(&input, &inclusive, &exclusive);
    }
}

/// The fault kernels of `coop-test-kernels`, each in a child process (the
/// CUDA driver refuses every further call in a process where a kernel
/// faulted, and the GPU prints its report on the process's standard
/// output): the device's report names the block, the thread and the
/// kernel's `file:line`, the host error names the kernel and where it was
/// launched, and this process, which did not fault, then runs a correct
/// kernel on the same GPU.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn kernel_faults_report_where_and_the_gpu_recovers() {
    let _watch = watch("the GPU test `kernel_faults_...`", TEST_LIMIT);
    let source = include_str!("kernels/src/lib.rs");
    let line_of = |marker: &str| {
        let (before, _) = source.split_once(&format!("// {marker}\n")).unwrap();
        before.lines().count()
    };
    let child = |kind: &str| {
        // Each child must end by itself within a minute (a timed-out
        // kernel once kept its process from exiting): past that it is
        // killed and the test fails, naming it.
        let mut running = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--ignored", "--exact", "fault_child", "--nocapture"])
            .env("COOP_FAULT_KIND", kind)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while running.try_wait().unwrap().is_none() {
            if started.elapsed() > std::time::Duration::from_secs(60) {
                running.kill().unwrap();
                let out = running.wait_with_output().unwrap();
                panic!(
                    "the fault child `{kind}` did not exit within a minute:\n{}",
                    String::from_utf8_lossy(&out.stdout)
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let out = running.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        eprintln!(
            "--- fault child `{kind}`:\n{stdout}\n--- its stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{stdout}");
        stdout
    };
    let s = suite();
    for (kind, marker, what) in [
        (
            "out_of_bounds",
            "fault: out of bounds",
            "Out::write: index 100 is out of bounds for a buffer of 100 elements",
        ),
        ("unwrap_none", "fault: unwrap on None", "a panic"),
        ("explicit_panic", "fault: explicit panic", "a panic"),
    ] {
        let stdout = child(kind);
        let report = stdout
            .lines()
            .find(|l| l.starts_with("coop: block (1, 0, 0), thread 6 panicked at "))
            .unwrap_or_else(|| panic!("no device report for `{kind}` in:\n{stdout}"));
        assert!(
            report.contains(&format!("kernels/src/lib.rs:{}:", line_of(marker))),
            "{report}"
        );
        assert!(report.contains(what), "{report}");
        assert!(
            stdout.contains(&format!("`fault_{kind}` (launched at tests/gpu.rs:")),
            "{stdout}"
        );
        assert!(stdout.contains("fault child: done"), "{stdout}");
        // The device is fine: this process runs a correct kernel on it.
        let mut out = s.gpu.zeros::<u32>(128).unwrap();
        s.coop
            .launch(
                kernels::faults::fault_out_of_bounds,
                LaunchConfig::new(2, 64),
                (1000, &mut out),
            )
            .unwrap();
        assert_eq!(
            s.gpu.download(&out).unwrap(),
            (0..128).collect::<Vec<u32>>()
        );
    }
    // A cooperative kernel launched the ordinary way (by hand, with the
    // driver): the grid sync reports its line instead of hanging.
    let stdout = child("not_cooperative");
    let grids = include_str!("kernels/src/grids.rs");
    let sync_line = grids
        .lines()
        .position(|l| l.trim() == "grid.sync();")
        .unwrap()
        + 1;
    assert!(
        stdout.lines().any(|l| l.contains("panicked at ")
            && l.contains(&format!("kernels/src/grids.rs:{sync_line}:"))
            && l.contains("CooperativeGrid::sync: the kernel was not launched cooperatively")),
        "{stdout}"
    );
    // A kernel that never finishes: the wait with a time limit names it,
    // and the child then returns normally, every drop included, and exits
    // while the kernel still spins (it hung at exit before).
    let started = std::time::Instant::now();
    let stdout = child("spin");
    assert!(
        stdout.contains("host error: the GPU was still busy after"),
        "{stdout}"
    );
    assert!(stdout.contains("fault child: dropped in"), "{stdout}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "the child took {:?} to exit after its timeout",
        started.elapsed()
    );
    assert!(
        stdout.contains("`fault_spin` (launched at tests/gpu.rs:"),
        "{stdout}"
    );
}

/// The child process of `kernel_faults_report_where_and_the_gpu_recovers`:
/// does nothing unless `COOP_FAULT_KIND` is set.
#[test]
#[ignore = "run by kernel_faults_report_where_and_the_gpu_recovers in a child process"]
fn fault_child() {
    let Ok(kind) = std::env::var("COOP_FAULT_KIND") else {
        return;
    };
    use kernels::faults::{
        fault_explicit_panic, fault_out_of_bounds, fault_spin, fault_unwrap_none,
    };
    let gpu = Gpu::new(0).unwrap();
    if kind == "not_cooperative" {
        // A cooperative kernel's PTX launched the ordinary way, bypassing
        // coop_host (which always launches it cooperatively): its grid sync
        // finds no grid workspace and stops with a report at its line.
        use coop_host::cudarc::driver::{LaunchConfig as RawConfig, PushKernelArg};
        let (_, text) = TEST_KERNELS_PTX.best_for(gpu.limits().sm).unwrap();
        let module = gpu
            .context()
            .load_module(coop_host::cudarc::nvrtc::Ptx::from_src(text))
            .unwrap();
        let f = module.load_function("grid_steps").unwrap();
        let mut a = gpu.zeros::<u32>(64).unwrap();
        let mut b = gpu.zeros::<u32>(64).unwrap();
        let mut ranks = gpu.zeros::<u32>(6 * 128).unwrap();
        let (steps, n, rn) = (1u32, 64usize, 6 * 128usize);
        let stream = gpu.stream();
        let mut builder = stream.launch_builder(&f);
        builder
            .arg(&steps)
            .arg(&mut a)
            .arg(&n)
            .arg(&mut b)
            .arg(&n)
            .arg(&mut ranks)
            .arg(&rn);
        let cfg = RawConfig {
            grid_dim: (2, 1, 1),
            block_dim: (64, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: grid_steps' parameters, in order; the buffers outlive the
        // launch (the process waits for it below).
        unsafe { builder.launch(cfg) }.unwrap();
        let err = gpu
            .synchronize_timeout(std::time::Duration::from_secs(10))
            .unwrap_err();
        println!("host error: {err}");
        println!("fault child: done");
        std::process::exit(0);
    }
    if kind == "spin" {
        let module = gpu.load(&TEST_KERNELS_PTX).unwrap();
        let flag = gpu.zeros::<u32>(1).unwrap();
        let mut out = gpu.zeros::<u32>(64).unwrap();
        // The device-wide algorithms' scratch, a timer and a second module
        // on the same GPU: their drops must not wait for the kernel either.
        let device = coop_host::Device::Gpu(gpu.clone());
        let reducer = coop_host::reduce::Reducer::new(&device).unwrap();
        let data = device.upload(&[1.0f32; 4096]).unwrap();
        assert_eq!(reducer.sum(&data).unwrap(), 4096.0);
        let mut timer = coop_host::Timer::new(&gpu).unwrap();
        timer.start().unwrap();
        module
            .launch(fault_spin, LaunchConfig::new(1, 64), (&flag, &mut out))
            .unwrap();
        let err = gpu
            .synchronize_timeout(std::time::Duration::from_secs(2))
            .unwrap_err();
        println!("host error: {err}");
        assert!(matches!(err, Error::Timeout { .. }), "{err}");
        assert!(gpu.is_abandoned());
        // The kernel cannot be stopped: the process ends it at exit. Every
        // drop (buffers, modules, the reducer, the timer, the device) and
        // the return from the test must not wait for it.
        println!("fault child: returning");
        let started = std::time::Instant::now();
        drop((module, flag, out, reducer, data, timer, device, gpu));
        println!("fault child: dropped in {:?}", started.elapsed());
        return;
    }
    {
        let module = gpu.load(&TEST_KERNELS_PTX).unwrap();
        let mut out = gpu.zeros::<u32>(100).unwrap();
        let input = gpu.upload(&[0u32; 8]).unwrap();
        let config = LaunchConfig::new(2, 64);
        match kind.as_str() {
            "out_of_bounds" => module.launch(fault_out_of_bounds, config, (70, &mut out)),
            "unwrap_none" => module.launch(fault_unwrap_none, config, (70, &input, &mut out)),
            _ => module.launch(fault_explicit_panic, config, (70, &mut out)),
        }
        .unwrap();
        let err = gpu
            .synchronize_timeout(std::time::Duration::from_secs(10))
            .unwrap_err();
        println!("host error: {err}");
        let Error::KernelFault { launches, .. } = &err else {
            panic!("expected a kernel fault, got {err}")
        };
        assert_eq!(launches.len(), 1, "{err}");
        assert_eq!(launches[0].kernel, format!("fault_{kind}"));
        // The driver refuses every further call in this process, a new
        // `Gpu` included.
        let again = gpu.zeros::<u32>(4).unwrap_err();
        assert!(matches!(again, Error::KernelFault { .. }), "{again}");
    }
    drop(gpu);
    let reopened = Gpu::new(0).unwrap_err();
    println!("reopening: {reopened}");
    assert!(matches!(reopened, Error::KernelFault { .. }), "{reopened}");
    println!("fault child: done");
}

/// Sharded reductions and element-wise all-reduce over every GPU of the
/// machine (joined by NCCL), and over GPU 0 alone through NCCL's one-rank
/// path, against host references.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn sharded_reductions_over_the_gpus_match_host_references() {
    use coop_host::multi::Devices;
    let _watch = watch(
        "the GPU test `sharded_reductions_over_the_gpus_match_host_references`",
        TEST_LIMIT,
    );
    let all = Devices::all_gpus().unwrap_or_else(|e| panic!("no GPU set: {e}"));
    let mut sets = vec![Devices::gpus(&[0]).unwrap()];
    if all.count() > 1 {
        sets.push(all);
        // The reverse order: rank 0 is not GPU 0.
        let reversed: Vec<usize> = (0..sets[1].count()).rev().collect();
        sets.push(Devices::gpus(&reversed).unwrap());
    } else {
        drop(all);
    }
    for devices in &sets {
        let programs = devices.load(&TEST_KERNELS_PTX).unwrap();
        let runs = coop_tests::multi_cases::check_all(devices, &programs);
        eprintln!(
            "{runs} sharded reductions checked on {} (NCCL: {})",
            devices.describe(),
            devices.uses_nccl()
        );
    }
}

/// Every atomic operation on device memory, for every element type, scope
/// and ordering, against the host reference (as `tests/atomics.rs` on the
/// CPU backend).
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn every_atomic_operation_matches_the_host_reference_on_the_gpu() {
    let _watch = watch(
        "the GPU test `every_atomic_operation_matches_the_host_reference_on_the_gpu`",
        TEST_LIMIT,
    );
    let device = coop_host::Device::Gpu(suite().gpu.clone());
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let checked = coop_tests::atomics_cases::check_all(&device, &program);
    eprintln!("atomics: {checked} (type, scope, ordering, slot set) cases on the GPU");
}

/// A `#[derive(DeviceCopy)]` struct of the kernel crate, uploaded, passed
/// through a kernel and downloaded; and the GPU timer.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn user_structs_travel_and_the_timer_measures_gpu_work() {
    let _watch = watch(
        "the GPU test `user_structs_travel_and_the_timer_measures_gpu_work`",
        TEST_LIMIT,
    );
    let gpu = suite().gpu.clone();
    coop_tests::check_user_types(&coop_host::Device::Gpu(gpu.clone()));
    let mut timer = coop_host::Timer::new(&gpu).unwrap();
    let err = timer.stop().unwrap_err();
    assert!(err.to_string().contains("was not started"), "{err}");
    let data = gpu.zeros::<u8>(1 << 28).unwrap();
    let (copy, elapsed) = gpu
        .time(|| Ok(gpu.stream().clone_dtod(&data).unwrap()))
        .unwrap();
    drop(copy);
    let rate = 2.0 * (1u64 << 28) as f64 / elapsed.as_secs_f64() / 1e9;
    eprintln!("a 256 MiB device copy: {elapsed:?}, {rate:.0} GB/s");
    assert!(
        elapsed > std::time::Duration::ZERO && rate < 20_000.0,
        "{elapsed:?}"
    );
}

/// `coop::math` on the GPU: the accurate functions give the CPU backend's
/// bits, and every function is within its documented bound.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn math_functions_match_the_cpu_backend_and_their_bounds_on_the_gpu() {
    use coop_tests::math_cases;
    let _watch = watch(
        "the GPU test `math_functions_match_the_cpu_backend_and_their_bounds_on_the_gpu`",
        TEST_LIMIT,
    );
    let gpu = coop_host::Device::Gpu(suite().gpu.clone());
    let cpu = coop_host::Device::cpu();
    let n = 1 << 16;
    let on_gpu = math_cases::measure(&gpu, &gpu.load(&TEST_KERNELS_PTX).unwrap(), n);
    let on_cpu = math_cases::measure(&cpu, &cpu.load(&TEST_KERNELS_PTX).unwrap(), n);
    math_cases::print(&gpu, &on_gpu);
    let mut problems = Vec::new();
    for (g, c) in on_gpu.iter().zip(&on_cpu) {
        if g.flavour != "f32 fast" && g.bits != c.bits {
            let differ = g.bits.iter().zip(&c.bits).filter(|(a, b)| a != b).count();
            problems.push(format!(
                "{} {}: {differ} results differ from the CPU backend's",
                g.flavour, g.name
            ));
        }
        if g.max_ulps > math_cases::bound(g.flavour, g.name)
            || g.max_abs > math_cases::fast_abs_bound(g.name)
        {
            problems.push(format!(
                "{} {}: {} ulp, {:e} absolute: over the bound",
                g.flavour, g.name, g.max_ulps, g.max_abs
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// Device-wide scans on the GPU: every built-in type, operator and kind,
/// the deterministic passes, the matrix-product scan and the errors, as
/// on the CPU backend (`scans.rs`).
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn device_wide_scans_match_host_references_on_the_gpu() {
    let _watch = watch(
        "the GPU test `device_wide_scans_match_host_references_on_the_gpu`",
        TEST_LIMIT,
    );
    let s = suite();
    let runs = coop_tests::scan_cases::check_all(
        &coop_host::Device::Gpu(s.gpu.clone()),
        coop_host::ProgramRef::Module(&s.coop),
    );
    eprintln!("device-wide scans: {runs} checked on the GPU");
}

/// Segmented reductions on the GPU, as on the CPU backend (`segmented.rs`).
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn segmented_reductions_match_host_references_on_the_gpu() {
    let _watch = watch(
        "the GPU test `segmented_reductions_match_host_references_on_the_gpu`",
        TEST_LIMIT,
    );
    let s = suite();
    let runs = coop_tests::segmented_cases::check_all(
        &coop_host::Device::Gpu(s.gpu.clone()),
        coop_host::ProgramRef::Module(&s.coop),
    );
    eprintln!("segmented reductions: {runs} checked on the GPU");
}

/// Selections, partitions and unique on the GPU, as on the CPU backend
/// (`selections.rs`): every built-in type, the user kernels, the count
/// left on the device and the errors.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn selections_match_host_references_on_the_gpu() {
    let _watch = watch(
        "the GPU test `selections_match_host_references_on_the_gpu`",
        TEST_LIMIT,
    );
    let s = suite();
    let runs = coop_tests::select_cases::check_all(
        &coop_host::Device::Gpu(s.gpu.clone()),
        coop_host::ProgramRef::Module(&s.coop),
    );
    eprintln!("selections: {runs} checked on the GPU");
}

/// Sums by key and run-length encodings on the GPU, as on the CPU backend
/// (`runs.rs`).
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn runs_of_equal_keys_match_host_references_on_the_gpu() {
    let _watch = watch(
        "the GPU test `runs_of_equal_keys_match_host_references_on_the_gpu`",
        TEST_LIMIT,
    );
    let s = suite();
    let calls = coop_tests::runs_cases::check_all(
        &coop_host::Device::Gpu(s.gpu.clone()),
        coop_host::ProgramRef::Module(&s.coop),
    );
    eprintln!("runs of equal keys: {calls} calls checked on the GPU");
}

/// Radix sorts on the GPU, as on the CPU backend (`sorts.rs`), with sorts
/// of millions of keys besides.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn sorts_match_the_hosts_stable_sort_on_the_gpu() {
    let _watch = watch(
        "the GPU test `sorts_match_the_hosts_stable_sort_on_the_gpu`",
        TEST_LIMIT,
    );
    let s = suite();
    let calls = coop_tests::sort_cases::check_all(&coop_host::Device::Gpu(s.gpu.clone()), true);
    eprintln!("sorts: {calls} checked on the GPU");
}

/// Segmented sorts on the GPU, as on the CPU backend (`segmented_sorts.rs`),
/// with more keys for every type and sorts of millions besides.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn segmented_sorts_match_the_hosts_stable_sort_of_each_segment_on_the_gpu() {
    let _watch = watch(
        "the GPU test `segmented_sorts_match_the_hosts_stable_sort_of_each_segment_on_the_gpu`",
        TEST_LIMIT,
    );
    let s = suite();
    let calls =
        coop_tests::segmented_sort_cases::check_all(&coop_host::Device::Gpu(s.gpu.clone()), true);
    eprintln!("segmented sorts: {calls} checked on the GPU");
}

/// Top-k selections on the GPU, as on the CPU backend (`top_k.rs`), with
/// selections from millions of keys besides.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn top_k_matches_the_hosts_sort_and_take_on_the_gpu() {
    let _watch = watch(
        "the GPU test `top_k_matches_the_hosts_sort_and_take_on_the_gpu`",
        TEST_LIMIT,
    );
    let s = suite();
    let calls = coop_tests::top_k_cases::check_all(&coop_host::Device::Gpu(s.gpu.clone()), true);
    eprintln!("top-k: {calls} selections checked on the GPU");
}

/// Histograms on the GPU, as on the CPU backend (`histograms.rs`), with
/// inputs of millions of samples besides.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn histograms_match_host_references_on_the_gpu() {
    let _watch = watch(
        "the GPU test `histograms_match_host_references_on_the_gpu`",
        TEST_LIMIT,
    );
    let s = suite();
    let runs = coop_tests::histogram_cases::check_all(&coop_host::Device::Gpu(s.gpu.clone()), true);
    eprintln!("histograms: {runs} checked on the GPU");
}

/// Transform-reductions, arg-min/arg-max and counts on the GPU, as on the
/// CPU backend (`transform_reduce.rs`).
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn transform_reductions_match_host_references_on_the_gpu() {
    let _watch = watch(
        "the GPU test `transform_reductions_match_host_references_on_the_gpu`",
        TEST_LIMIT,
    );
    let s = suite();
    let runs = coop_tests::transform_cases::check_all(
        &coop_host::Device::Gpu(s.gpu.clone()),
        coop_host::ProgramRef::Module(&s.coop),
    );
    eprintln!("transform-reductions: {runs} checked on the GPU");
}

/// The deterministic float sums and scans have the same bits on the GPU
/// and on the CPU backend, for lengths that make one block and thousands,
/// from a view at any alignment.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn deterministic_sums_and_scans_have_the_same_bits_on_the_gpu_and_the_cpu_backend() {
    let _watch = watch(
        "the GPU test `deterministic_sums_and_scans_have_the_same_bits_on_the_gpu_and_the_cpu_backend`",
        TEST_LIMIT,
    );
    use coop::op::Sum;
    use coop_host::{reduce::Reducer, scan::Scanner, Device};
    let s = suite();
    let gpu = Device::Gpu(s.gpu.clone());
    let cpu = Device::cpu();
    let mut rng = coop_tests::Rng::new(0xB175);
    let mut compared = 0;
    for &n in &[1usize, 1000, 65_537, 1 << 20, 3_000_017] {
        let data: Vec<f32> = (0..n + 1)
            .map(|_| (rng.next_u64() % 1_000_000) as f32 * 1e-6 - 0.3)
            .collect();
        let data64: Vec<f64> = data.iter().map(|&x| x as f64 * 1.000_001).collect();
        let on = |device: &Device| {
            let r = Reducer::new(device).unwrap().deterministic();
            match device {
                Device::Gpu(g) => {
                    let (a, b) = (g.upload(&data).unwrap(), g.upload(&data64).unwrap());
                    (
                        r.sum(a.slice(1..)).unwrap().to_bits(),
                        r.sum_squares(&a).unwrap().to_bits(),
                        r.sum(&b).unwrap().to_bits(),
                        r.sum_abs(b.slice(1..)).unwrap().to_bits(),
                    )
                }
                Device::Cpu(_) => (
                    r.sum(&data[1..]).unwrap().to_bits(),
                    r.sum_squares(&data).unwrap().to_bits(),
                    r.sum(&data64).unwrap().to_bits(),
                    r.sum_abs(&data64[1..]).unwrap().to_bits(),
                ),
            }
        };
        assert_eq!(on(&gpu), on(&cpu), "deterministic sums of {n}");
        compared += 4;
        if n <= 1 << 20 {
            let scan = |device: &Device| {
                let scanner = Scanner::new(device).unwrap().deterministic();
                match device {
                    Device::Gpu(g) => {
                        let a = g.upload(&data).unwrap();
                        let mut out = g.zeros::<f32>(n).unwrap();
                        scanner.inclusive(Sum, a.slice(1..), &mut out).unwrap();
                        g.download(&out).unwrap()
                    }
                    Device::Cpu(_) => {
                        let mut out = vec![0f32; n];
                        scanner.inclusive(Sum, &data[1..], &mut out).unwrap();
                        out
                    }
                }
            };
            let (g, c) = (scan(&gpu), scan(&cpu));
            let bad = g
                .iter()
                .zip(&c)
                .position(|(a, b)| a.to_bits() != b.to_bits());
            assert!(
                bad.is_none(),
                "deterministic scan of {n}: element {bad:?} differs"
            );
            compared += 1;
        }
    }
    // Thousands of tiles on the GPU, where each look-back stops wherever
    // the timing lets it: the same bits, scan after scan, and not those
    // of the default scan alone.
    let n = 1 << 24;
    let data: Vec<f32> = (0..n)
        .map(|_| (rng.next_u64() % 1_000_000) as f32 * 1e-3 - 300.0)
        .collect();
    let input = s.gpu.upload(&data).unwrap();
    let mut out = s.gpu.zeros::<f32>(n).unwrap();
    let deterministic = Scanner::new(&gpu).unwrap().deterministic();
    let mut first: Option<Vec<u32>> = None;
    for run in 0..4 {
        deterministic.exclusive(Sum, &input, &mut out).unwrap();
        let bits: Vec<u32> = s
            .gpu
            .download(&out)
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect();
        match &first {
            None => first = Some(bits),
            Some(f) => {
                let bad = f.iter().zip(&bits).position(|(a, b)| a != b);
                assert!(
                    bad.is_none(),
                    "deterministic exclusive scan of 2^24, run {run}: element {bad:?} differs from run 0"
                );
                compared += 1;
            }
        }
    }
    eprintln!(
        "deterministic results: {compared} compared bit for bit, GPU against the CPU backend \
         and GPU runs against each other"
    );
}

/// A deterministic reducer's float sums by key (and scans by key) have
/// the same bits on the GPU and on the CPU backend, and, over thousands of
/// tiles on the GPU, the same bits call after call.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn deterministic_sums_by_key_have_the_same_bits_on_the_gpu_and_the_cpu_backend() {
    let _watch = watch(
        "the GPU test `deterministic_sums_by_key_have_the_same_bits_on_the_gpu_and_the_cpu_backend`",
        TEST_LIMIT,
    );
    use coop_host::{runs::RunReducer, Device};
    let s = suite();
    let gpu = Device::Gpu(s.gpu.clone());
    let cpu = Device::cpu();
    let mut rng = coop_tests::Rng::new(0x5EED);
    let mut compared = 0;
    let sums = |device: &Device, keys: &[u32], values: &[f32], wide: &[f64]| {
        let r = RunReducer::new(device).unwrap().deterministic();
        let n = keys.len();
        let (k, v, w) = (
            device.upload(keys).unwrap(),
            device.upload(values).unwrap(),
            device.upload(wide).unwrap(),
        );
        let mut ko = device.zeros::<u32>(n).unwrap();
        let (mut a, mut b) = (
            device.zeros::<f32>(n).unwrap(),
            device.zeros::<f64>(n).unwrap(),
        );
        let runs = r.sum_by_key(&k, &v, &mut ko, &mut a).unwrap();
        r.sum_by_key(&k, &w, &mut ko, &mut b).unwrap();
        let mut bits: Vec<u64> = device.download(&a).unwrap()[..runs]
            .iter()
            .map(|x| x.to_bits() as u64)
            .collect();
        bits.extend(
            device.download(&b).unwrap()[..runs]
                .iter()
                .map(|x| x.to_bits()),
        );
        r.inclusive_sum_by_key(&k, &v, &mut a).unwrap();
        r.exclusive_sum_by_key(&k, &w, &mut b).unwrap();
        bits.extend(
            device
                .download(&a)
                .unwrap()
                .iter()
                .map(|x| x.to_bits() as u64),
        );
        bits.extend(device.download(&b).unwrap().iter().map(|x| x.to_bits()));
        bits
    };
    for &n in &[1000usize, 65_537, 1 << 20] {
        let keys: Vec<u32> = (0..n as u32).map(|i| i / 50_000).collect();
        let values: Vec<f32> = (0..n)
            .map(|_| (rng.next_u64() % 1_000_000) as f32 * 1e-4 - 30.0)
            .collect();
        let wide: Vec<f64> = values.iter().map(|&x| x as f64 * 1.000_001).collect();
        let (g, c) = (
            sums(&gpu, &keys, &values, &wide),
            sums(&cpu, &keys, &values, &wide),
        );
        let bad = g.iter().zip(&c).position(|(a, b)| a != b);
        assert!(
            g.len() == c.len() && bad.is_none(),
            "deterministic sums by key of {n}: value {bad:?} differs between the GPU and the CPU backend"
        );
        compared += 1;
    }
    let n = 1 << 24;
    let keys: Vec<u32> = (0..n as u32).map(|i| i / 3_000_000).collect();
    let values: Vec<f32> = (0..n)
        .map(|_| (rng.next_u64() % 1_000_000) as f32 * 1e-3 - 300.0)
        .collect();
    let wide: Vec<f64> = values.iter().map(|&x| x as f64).collect();
    let first = sums(&gpu, &keys, &values, &wide);
    for run in 1..4 {
        let again = sums(&gpu, &keys, &values, &wide);
        let bad = first.iter().zip(&again).position(|(a, b)| a != b);
        assert!(
            bad.is_none(),
            "deterministic sums by key of 2^24, run {run}: value {bad:?} differs from run 0"
        );
        compared += 1;
    }
    eprintln!("deterministic sums by key: {compared} comparisons bit for bit");
}

/// Ragged tiles (`ragged` kernels): blocks of 120, 100, 37, 33 and 1
/// threads (and whole ones) in tiles of 32 and 8, every query, shuffle,
/// vote, reduction and scan as the host computes them.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn ragged_tiles_match_the_host_on_the_gpu() {
    let _watch = watch("the GPU test `ragged_tiles_...`", TEST_LIMIT);
    let s = suite();
    let gpu = coop_host::Device::Gpu(s.gpu.clone());
    let program = gpu.load(&TEST_KERNELS_PTX).unwrap();
    let cases = coop_tests::ragged_cases::check_all(&gpu, &program).unwrap();
    assert_eq!(cases, 16);
    eprintln!("ragged tiles: {cases} cases agree with the host");
}

/// Launches a litmus kernel with its words, meeting counters and
/// observations on `blocks` blocks.
type LitmusLaunch<'a> = dyn Fn(&mut coop_host::Buffer<u32>, &mut coop_host::Buffer<u32>, &mut coop_host::Buffer<u32>, u32)
    + 'a;

/// The memory model's litmus shapes on the GPU (`litmus::
/// message_passing_rounds`, `store_buffering_rounds`, the kernels the CPU
/// backend reports in `tests/litmus.rs`): each pair of blocks plays many
/// rounds, and the test prints how often the outcome the model allows but
/// does not promise showed. Message passing with a release store and an
/// acquire load, and store buffering with a device fence, must never show
/// it; the other forms may.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn litmus_shapes_on_the_gpu() {
    use kernels::litmus as k;
    let _watch = watch("the GPU test `litmus_shapes_on_the_gpu`", TEST_LIMIT);
    let s = suite();
    let device = coop_host::Device::Gpu(s.gpu.clone());
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let pairs = s.gpu.limits().multiprocessors / 2;
    let blocks = 2 * pairs;
    let rounds: u32 = std::env::var("COOP_LITMUS_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let words = k::STRIDE * pairs as usize;
    let name = |ordered: u32, yes: &str| {
        if ordered == k::ORDERED {
            yes.to_string()
        } else {
            "relaxed".into()
        }
    };
    eprintln!(
        "litmus: {pairs} pairs of blocks x {rounds} rounds on {} SMs",
        s.gpu.limits().multiprocessors
    );
    for preload in [0, 1] {
        for write in [k::ORDERED, k::RELAXED] {
            for read in [k::ORDERED, k::RELAXED] {
                let stale = watched("message_passing_rounds", LAUNCH_LIMIT * 3, || {
                    let mut data = device.zeros::<u32>(words).unwrap();
                    let mut flag = device.zeros::<u32>(words).unwrap();
                    let mut ack = device.zeros::<u32>(words).unwrap();
                    let mut stale = device.zeros::<u32>(pairs as usize).unwrap();
                    program
                        .launch(
                            k::message_passing_rounds,
                            LaunchConfig::new(blocks, 32),
                            (
                                &mut data, &mut flag, &mut ack, &mut stale, rounds, write, read,
                                preload,
                            ),
                        )
                        .unwrap();
                    device.download(&stale).unwrap()
                });
                let seen: u64 = stale.iter().map(|&x| x as u64).sum();
                let tests = pairs as u64 * rounds as u64;
                eprintln!(
                    "litmus MP: writer {}, reader {}, preload {preload}: stale data in {seen} of {tests} rounds",
                    name(write, "release"),
                    name(read, "acquire"),
                );
                if write == k::ORDERED && read == k::ORDERED {
                    assert_eq!(seen, 0, "release and acquire: the data must be fresh");
                }
            }
        }
    }
    for fenced in [0, 1] {
        let seen = watched("store_buffering_rounds", LAUNCH_LIMIT * 3, || {
            let mut flags = device.zeros::<u32>(words).unwrap();
            let mut meet = device.zeros::<u32>(words).unwrap();
            let mut seen = device.zeros::<u32>(2 * (pairs * rounds) as usize).unwrap();
            program
                .launch(
                    k::store_buffering_rounds,
                    LaunchConfig::new(blocks, 32),
                    (&mut flags, &mut meet, &mut seen, rounds, fenced),
                )
                .unwrap();
            device.download(&seen).unwrap()
        });
        let weak = seen
            .chunks(2)
            .enumerate()
            .filter(|(i, two)| {
                let r = (i % rounds as usize) as u32 + 1;
                two[0] < r && two[1] < r
            })
            .count();
        eprintln!(
            "litmus SB: {}: both loads old in {weak} of {} rounds",
            if fenced == 1 {
                "device fence between"
            } else {
                "relaxed, no fence"
            },
            pairs as u64 * rounds as u64
        );
        if fenced == 1 {
            assert_eq!(weak, 0, "a fence between the store and the load forbids it");
        }
    }
    // The shapes of groups of 2, 3 and 4 blocks over atomics only: each
    // records what its loads saw into `seen`, `per_round` words a round.
    let shape = |name: &'static str, group: u32, per_round: usize, launch: &LitmusLaunch<'_>| {
        let groups = s.gpu.limits().multiprocessors / group;
        let seen = watched(name, LAUNCH_LIMIT * 3, || {
            let mut words = device.zeros::<u32>(k::STRIDE * groups as usize).unwrap();
            let mut meet = device.zeros::<u32>(k::STRIDE * groups as usize).unwrap();
            let mut seen = device
                .zeros::<u32>(per_round * (groups * rounds) as usize)
                .unwrap();
            launch(&mut words, &mut meet, &mut seen, group * groups);
            device.download(&seen).unwrap()
        });
        (seen, groups as u64 * rounds as u64)
    };
    let round_of = |i: usize| (i % rounds as usize) as u32 + 1;
    for ordered in [k::RELAXED, k::ORDERED] {
        let (seen, tests) = shape("load_buffering_rounds", 2, 2, &|w, m, o, blocks| {
            program
                .launch(
                    k::load_buffering_rounds,
                    LaunchConfig::new(blocks, 32),
                    (w, m, o, rounds, ordered),
                )
                .unwrap();
        });
        let weak = seen
            .chunks(2)
            .enumerate()
            .filter(|(i, two)| two[0] == round_of(*i) && two[1] == round_of(*i))
            .count();
        eprintln!(
            "litmus LB: {}: both loads saw the other's later store in {weak} of {tests} rounds",
            name(ordered, "acquire loads, release stores")
        );
        if ordered == k::ORDERED {
            assert_eq!(weak, 0, "acquire loads come before the stores after them");
        }
    }
    let (seen, tests) = shape("coherence_rounds", 2, 2, &|w, m, o, blocks| {
        program
            .launch(
                k::coherence_rounds,
                LaunchConfig::new(blocks, 32),
                (w, m, o, rounds),
            )
            .unwrap();
    });
    let weak = seen.chunks(2).filter(|two| two[1] < two[0]).count();
    eprintln!("litmus CoRR: relaxed: second load older than the first in {weak} of {tests} rounds");
    assert_eq!(weak, 0, "one location's writes are seen in one order");
    for fenced in [0, 1] {
        let (seen, tests) = shape("independent_reads_rounds", 4, 4, &|w, m, o, blocks| {
            program
                .launch(
                    k::independent_reads_rounds,
                    LaunchConfig::new(blocks, 32),
                    (w, m, o, rounds, fenced),
                )
                .unwrap();
        });
        let weak = seen
            .chunks(4)
            .enumerate()
            .filter(|(i, v)| {
                let r = round_of(*i);
                v[0] == r && v[1] < r && v[2] == r && v[3] < r
            })
            .count();
        eprintln!(
            "litmus IRIW: {}: the readers disagreed on the writes' order in {weak} of {tests} rounds",
            if fenced == 1 {
                "device fence between the loads"
            } else {
                "relaxed, no fence"
            }
        );
        if fenced == 1 {
            assert_eq!(weak, 0, "fences between the loads forbid it");
        }
    }
    for release in [0, 1] {
        let (seen, tests) = shape("causality_rounds", 3, 1, &|w, m, o, blocks| {
            program
                .launch(
                    k::causality_rounds,
                    LaunchConfig::new(blocks, 32),
                    (w, m, o, rounds, release),
                )
                .unwrap();
        });
        let weak = seen
            .iter()
            .enumerate()
            .filter(|(i, &x)| x < round_of(*i))
            .count();
        eprintln!(
            "litmus WRC: middle store {}: the last block read x old in {weak} of {tests} rounds",
            if release == 1 { "release" } else { "relaxed" }
        );
        if release == 1 {
            assert_eq!(
                weak, 0,
                "the middle block's release carries what it observed"
            );
        }
    }
    if s.gpu.limits().sm < 90 {
        return; // no clusters
    }
    for how in [0u32, 1, 2] {
        let stale = watched("message_passing_in_clusters", LAUNCH_LIMIT * 3, || {
            let mut data = device.zeros::<u32>(words).unwrap();
            let mut flag = device.zeros::<u32>(words).unwrap();
            let mut ack = device.zeros::<u32>(words).unwrap();
            let mut stale = device.zeros::<u32>(pairs as usize).unwrap();
            program
                .launch(
                    k::message_passing_in_clusters,
                    LaunchConfig::new(blocks, 32).with_cluster(2),
                    (&mut data, &mut flag, &mut ack, &mut stale, rounds, how),
                )
                .unwrap();
            device.download(&stale).unwrap()
        });
        let seen: u64 = stale.iter().map(|&x| x as u64).sum();
        eprintln!(
            "litmus MP in clusters of 2, {}: stale data in {seen} of {} rounds",
            [
                "relaxed",
                "release/acquire at the cluster's scope",
                "fence_cluster on both sides"
            ][how as usize],
            pairs as u64 * rounds as u64
        );
        if how != 0 {
            assert_eq!(
                seen, 0,
                "ordered at the cluster's scope: the data must be fresh"
            );
        }
    }
}
