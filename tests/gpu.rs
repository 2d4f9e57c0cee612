//! The GPU differential suite: every tile collective, for every tile size
//! and for u32, i64, f32, f64 and a 12-byte struct, computed by the Rust
//! kernels of `coop-test-kernels` and by CUDA's cooperative groups
//! (`reference/collectives.cu`, compiled by nvcc in the same run), compared
//! bit for bit; plus the examples and the launcher's errors on a real GPU.
//!
//! These tests need an NVIDIA GPU and nvcc, so they are `#[ignore]`d with
//! that reason and show as ignored elsewhere. On a GPU machine:
//!
//! ```text
//! cargo test -p coop-tests --test gpu -- --ignored
//! ```

use coop::Kernel;
use coop_host::cudarc::driver::{CudaSlice, CudaView, CudaViewMut};
use coop_host::{Dim3, Error, Gpu, KernelArgs, LaunchConfig, LaunchProblem, Module, PtxSet};
use coop_tests::{find_cuda_tool, kernels, Rng, REFERENCE_CU, TEST_KERNELS_PTX};
use std::sync::OnceLock;

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
        Suite { gpu, coop, cuda }
    })
}

/// Launch shapes: a 1-D grid of 256-thread blocks, and a 3-D grid of
/// (4, 8, 3) blocks (96 threads, three whole warps).
const SHAPES: [(Dim3, Dim3); 2] = [
    (Dim3::new(3, 1, 1), Dim3::new(256, 1, 1)),
    (Dim3::new(2, 1, 2), Dim3::new(4, 8, 3)),
];

fn threads((grid, block): (Dim3, Dim3)) -> usize {
    (grid.volume() * block.volume()) as usize
}

/// The first lane of the tile of `n` that grid thread `g` belongs to.
fn tile_base_lane(g: usize, block: Dim3, n: u32) -> u32 {
    let lane = (g % block.volume() as usize) as u32 % 32;
    lane & !(n - 1)
}

/// A buffer of `W`-word elements kept as `u32` words on the device.
fn words_view<T>(buf: &CudaSlice<u32>) -> CudaView<'_, T> {
    let len = buf.len() * 4 / std::mem::size_of::<T>();
    // SAFETY: every element type of the suite is plain data whose size is a
    // multiple of 4 bytes, and device buffers are 256-byte aligned.
    unsafe { buf.transmute::<T>(len) }.expect("element size divides the buffer")
}

fn words_view_mut<T>(buf: &mut CudaSlice<u32>) -> CudaViewMut<'_, T> {
    let len = buf.len() * 4 / std::mem::size_of::<T>();
    // SAFETY: as above.
    unsafe { buf.transmute_mut::<T>(len) }.expect("element size divides the buffer")
}

/// Counts compared values and collects the first mismatches.
#[derive(Default)]
struct Tally {
    compared: usize,
    mismatches: Vec<String>,
}

impl Tally {
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.compared += 1;
        if !ok && self.mismatches.len() < 20 {
            self.mismatches.push(what());
        }
    }

    fn finish(self, family: &str, kernels: usize) {
        eprintln!(
            "{family}: {kernels} kernel launches per implementation, {} values compared, {} mismatches",
            self.compared,
            self.mismatches.len()
        );
        assert!(
            self.mismatches.is_empty(),
            "{family}: coop differs from CUDA:\n{}",
            self.mismatches.join("\n")
        );
    }
}

/// A value of the suite's element types as `u32` words.
fn element_words(ty: &str, rng: &mut Rng) -> Vec<u32> {
    match ty {
        "u32" => vec![rng.next_u64() as u32],
        "f32" => vec![((rng.below(20001) as f32 - 10000.0) * 0.37).to_bits()],
        "i64" => {
            let v = rng.next_u64() as i64 >> rng.below(40);
            vec![v as u32, (v >> 32) as u32]
        }
        "f64" => {
            let v = ((rng.below(2_000_001) as f64) - 1_000_000.0) * 1.000_000_7e-3;
            let b = v.to_bits();
            vec![b as u32, (b >> 32) as u32]
        }
        "triple" => vec![
            rng.next_u64() as u32,
            rng.next_u64() as u32,
            (rng.below(1000) as f32 * 0.5).to_bits(),
        ],
        _ => unreachable!("unknown element type {ty}"),
    }
}

fn shuffle_case<T, K: Kernel + Copy>(s: &Suite, kernel: K, ty: &str, n: u32, tally: &mut Tally)
where
    for<'a, 'b, 'c, 'd, 'e> (
        &'a CudaView<'b, T>,
        &'c CudaSlice<u32>,
        &'d mut CudaViewMut<'e, T>,
    ): KernelArgs<K::Params>,
{
    let w = std::mem::size_of::<T>() / 4;
    for (shape_index, shape) in SHAPES.into_iter().enumerate() {
        let count = threads(shape);
        let mut rng = Rng::new(
            0xC00B + n as u64 * 31 + shape_index as u64 + w as u64 * 1000 + ty.len() as u64,
        );
        let input: Vec<u32> = (0..count)
            .flat_map(|_| element_words(ty, &mut rng))
            .collect();
        // Per thread: source rank (up to 2N + 3: taken modulo N), deltas up
        // to N + 2 (past the tile: own value), xor masks up to 2N.
        let params: Vec<u32> = (0..count)
            .flat_map(|_| {
                [
                    rng.below(2 * n + 4),
                    rng.below(n + 3),
                    rng.below(n + 3),
                    rng.below(2 * n),
                ]
            })
            .collect();
        let input_dev = s.gpu.upload(&input).unwrap();
        let params_dev = s.gpu.upload(&params).unwrap();
        let cfg = LaunchConfig::new(shape.0, shape.1);
        let mut results = Vec::new();
        for module in [&s.coop, &s.cuda] {
            let mut out = s.gpu.zeros::<u32>(4 * count * w).unwrap();
            module
                .launch(
                    kernel,
                    cfg,
                    (
                        &words_view::<T>(&input_dev),
                        &params_dev,
                        &mut words_view_mut::<T>(&mut out),
                    ),
                )
                .unwrap_or_else(|e| panic!("{}: {e}", K::NAME));
            results.push(s.gpu.download(&out).unwrap());
        }
        let (coop, cuda) = (&results[0], &results[1]);
        for g in 0..count {
            let own = &input[g * w..(g + 1) * w];
            for k in 0..4 {
                let at = (4 * g + k) * w;
                let (c, r) = (&coop[at..at + w], &cuda[at..at + w]);
                let p = params[4 * g + k];
                if k == 3 && p % 32 >= n {
                    // coop defines an out-of-tile xor partner as "keep your
                    // own value"; CUDA agrees for the warp's first tile and
                    // reads another tile (outside its member mask) elsewhere.
                    tally.check(c == own, || format!("{} shape {shape_index} thread {g}: shfl_xor({p}) gave {c:?}, own {own:?}", K::NAME));
                    if tile_base_lane(g, shape.1, n) != 0 {
                        continue;
                    }
                }
                let op = ["shfl", "shfl_up", "shfl_down", "shfl_xor"][k];
                tally.check(c == r, || {
                    format!(
                        "{} shape {shape_index} thread {g}: {op}({p}) coop {c:?} CUDA {r:?}",
                        K::NAME
                    )
                });
            }
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU and nvcc: cargo test -p coop-tests --test gpu -- --ignored"]
fn shuffles_match_cuda_for_every_tile_size_and_type() {
    let s = suite();
    let mut tally = Tally::default();
    let mut launches = 0;
    macro_rules! cases {
        ($t:ty, $ty:literal: $($k:ident = $n:literal),*) => {$(
            shuffle_case::<$t, _>(s, kernels::$k, $ty, $n, &mut tally);
            launches += SHAPES.len();
        )*};
    }
    cases!(u32, "u32": shuffles_u32_1 = 1, shuffles_u32_2 = 2, shuffles_u32_4 = 4, shuffles_u32_8 = 8, shuffles_u32_16 = 16, shuffles_u32_32 = 32);
    cases!(i64, "i64": shuffles_i64_1 = 1, shuffles_i64_2 = 2, shuffles_i64_4 = 4, shuffles_i64_8 = 8, shuffles_i64_16 = 16, shuffles_i64_32 = 32);
    cases!(f32, "f32": shuffles_f32_1 = 1, shuffles_f32_2 = 2, shuffles_f32_4 = 4, shuffles_f32_8 = 8, shuffles_f32_16 = 16, shuffles_f32_32 = 32);
    cases!(f64, "f64": shuffles_f64_1 = 1, shuffles_f64_2 = 2, shuffles_f64_4 = 4, shuffles_f64_8 = 8, shuffles_f64_16 = 16, shuffles_f64_32 = 32);
    cases!(kernels::Triple, "triple": shuffles_triple_1 = 1, shuffles_triple_2 = 2, shuffles_triple_4 = 4, shuffles_triple_8 = 8, shuffles_triple_16 = 16, shuffles_triple_32 = 32);
    tally.finish("shuffles (shfl, shfl_up, shfl_down, shfl_xor)", launches);
}

#[test]
#[ignore = "needs an NVIDIA GPU and nvcc: cargo test -p coop-tests --test gpu -- --ignored"]
fn votes_match_cuda_for_every_tile_size() {
    let s = suite();
    let mut tally = Tally::default();
    let mut launches = 0;
    macro_rules! cases {
        ($($k:ident = $n:literal),*) => {$({
            let n: u32 = $n;
            for (shape_index, shape) in SHAPES.into_iter().enumerate() {
                let count = threads(shape);
                let mut rng = Rng::new(0x707E + n as u64 + 100 * shape_index as u64);
                // Whole tiles of false, of true, and mixed ones.
                let pred: Vec<u32> = (0..count)
                    .map(|g| match (g / n as usize) % 3 {
                        0 => 0,
                        1 => 1 + rng.below(7),
                        _ => rng.below(2) * (1 + rng.below(7)),
                    })
                    .collect();
                let pred_dev = s.gpu.upload(&pred).unwrap();
                let cfg = LaunchConfig::new(shape.0, shape.1);
                let mut results = Vec::new();
                for module in [&s.coop, &s.cuda] {
                    let mut out = s.gpu.zeros::<u32>(4 * count).unwrap();
                    module.launch(kernels::$k, cfg, (&pred_dev, &mut out)).unwrap();
                    results.push(s.gpu.download(&out).unwrap());
                }
                for (i, (c, r)) in results[0].iter().zip(&results[1]).enumerate() {
                    let op = ["any", "all", "ballot", "-"][i % 4];
                    tally.check(c == r, || format!("{} shape {shape_index} thread {}: {op} coop {c:#x} CUDA {r:#x}", stringify!($k), i / 4));
                }
                launches += 1;
            }
        })*};
    }
    cases!(
        votes_1 = 1,
        votes_2 = 2,
        votes_4 = 4,
        votes_8 = 8,
        votes_16 = 16,
        votes_32 = 32
    );
    tally.finish("votes (any, all, ballot)", launches);
}

fn match_case<T, K: Kernel + Copy>(
    s: &Suite,
    kernel: K,
    pool: &[Vec<u32>],
    n: u32,
    tally: &mut Tally,
) where
    for<'a, 'b, 'c> (&'a CudaView<'b, T>, &'c mut CudaSlice<u32>): KernelArgs<K::Params>,
{
    for (shape_index, shape) in SHAPES.into_iter().enumerate() {
        let count = threads(shape);
        let mut rng = Rng::new(0x3A7C + n as u64 + 10 * shape_index as u64 + pool[0].len() as u64);
        // Every third tile holds one value throughout (match_all succeeds).
        let input: Vec<u32> = (0..count)
            .flat_map(|g| {
                let tile = g / n as usize;
                let pick = if tile.is_multiple_of(3) {
                    tile % pool.len()
                } else {
                    rng.below(pool.len() as u32) as usize
                };
                pool[pick].clone()
            })
            .collect();
        let input_dev = s.gpu.upload(&input).unwrap();
        let cfg = LaunchConfig::new(shape.0, shape.1);
        let mut results = Vec::new();
        for module in [&s.coop, &s.cuda] {
            let mut out = s.gpu.zeros::<u32>(3 * count).unwrap();
            module
                .launch(kernel, cfg, (&words_view::<T>(&input_dev), &mut out))
                .unwrap();
            results.push(s.gpu.download(&out).unwrap());
        }
        for (i, (c, r)) in results[0].iter().zip(&results[1]).enumerate() {
            let op = ["match_any", "match_all mask", "match_all predicate"][i % 3];
            tally.check(c == r, || {
                format!(
                    "{} shape {shape_index} thread {}: {op} coop {c:#x} CUDA {r:#x}",
                    K::NAME,
                    i / 3
                )
            });
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU and nvcc: cargo test -p coop-tests --test gpu -- --ignored"]
fn matches_match_cuda_for_every_tile_size_and_type() {
    let s = suite();
    let mut tally = Tally::default();
    let mut launches = 0;
    let w64 = |v: u64| vec![v as u32, (v >> 32) as u32];
    // Pools include values equal as numbers but not as bits (0.0, -0.0) and
    // a NaN: matching is bitwise.
    let u32_pool: Vec<Vec<u32>> = [7u32, 8, 9, u32::MAX].iter().map(|&v| vec![v]).collect();
    let i64_pool: Vec<Vec<u32>> = [-1i64, 1 << 40, 3, -(1 << 40)]
        .iter()
        .map(|&v| w64(v as u64))
        .collect();
    let f32_pool: Vec<Vec<u32>> = [0.0f32, -0.0, 1.5, f32::NAN]
        .iter()
        .map(|v| vec![v.to_bits()])
        .collect();
    let f64_pool: Vec<Vec<u32>> = [0.0f64, -0.0, 2.25, f64::NAN]
        .iter()
        .map(|v| w64(v.to_bits()))
        .collect();
    macro_rules! cases {
        ($t:ty, $pool:ident: $($k:ident = $n:literal),*) => {$(
            match_case::<$t, _>(s, kernels::$k, &$pool, $n, &mut tally);
            launches += SHAPES.len();
        )*};
    }
    cases!(u32, u32_pool: matches_u32_1 = 1, matches_u32_2 = 2, matches_u32_4 = 4, matches_u32_8 = 8, matches_u32_16 = 16, matches_u32_32 = 32);
    cases!(i64, i64_pool: matches_i64_1 = 1, matches_i64_2 = 2, matches_i64_4 = 4, matches_i64_8 = 8, matches_i64_16 = 16, matches_i64_32 = 32);
    cases!(f32, f32_pool: matches_f32_1 = 1, matches_f32_2 = 2, matches_f32_4 = 4, matches_f32_8 = 8, matches_f32_16 = 16, matches_f32_32 = 32);
    cases!(f64, f64_pool: matches_f64_1 = 1, matches_f64_2 = 2, matches_f64_4 = 4, matches_f64_8 = 8, matches_f64_16 = 16, matches_f64_32 = 32);
    tally.finish("matches (match_any, match_all)", launches);
}

#[test]
#[ignore = "needs an NVIDIA GPU and nvcc: cargo test -p coop-tests --test gpu -- --ignored"]
fn ranks_and_shapes_match_cuda_for_every_tile_size() {
    let s = suite();
    let mut tally = Tally::default();
    let mut launches = 0;
    macro_rules! cases {
        ($($k:ident),*) => {$(
            for (shape_index, shape) in SHAPES.into_iter().enumerate() {
                let count = threads(shape);
                let cfg = LaunchConfig::new(shape.0, shape.1);
                let mut results = Vec::new();
                for module in [&s.coop, &s.cuda] {
                    let mut out = s.gpu.zeros::<u32>(kernels::RANK_FIELDS * count).unwrap();
                    module.launch(kernels::$k, cfg, (&mut out,)).unwrap();
                    results.push(s.gpu.download(&out).unwrap());
                }
                for (i, (c, r)) in results[0].iter().zip(&results[1]).enumerate() {
                    tally.check(c == r, || format!("{} shape {shape_index} thread {} field {}: coop {c} CUDA {r}", stringify!($k), i / kernels::RANK_FIELDS, i % kernels::RANK_FIELDS));
                }
                launches += 1;
            }
        )*};
    }
    cases!(ranks_1, ranks_2, ranks_4, ranks_8, ranks_16, ranks_32);
    tally.finish(
        "ranks (block and tile ranks, sizes, indices, meta groups, sync)",
        launches,
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn the_examples_reproduce_their_host_references() {
    use coop_examples::{
        dot_blocks, dot_closed_form, dot_inputs, kernels as ex, tile_tour_reference, DOT_N,
        DOT_THREADS_PER_BLOCK, PTX,
    };
    let s = suite();
    let module = s.gpu.load(&PTX).unwrap();
    let (a, b) = dot_inputs(DOT_N);
    let blocks = dot_blocks(DOT_N);
    let (a_dev, b_dev) = (s.gpu.upload(&a).unwrap(), s.gpu.upload(&b).unwrap());
    let mut partial = s
        .gpu
        .zeros::<f32>((blocks * DOT_THREADS_PER_BLOCK / 32) as usize)
        .unwrap();
    module
        .launch(
            ex::dot::dot,
            LaunchConfig::new(blocks, DOT_THREADS_PER_BLOCK),
            (&a_dev, &b_dev, &mut partial),
        )
        .unwrap();
    let c: f64 = s
        .gpu
        .download(&partial)
        .unwrap()
        .iter()
        .map(|&p| p as f64)
        .sum();
    let expected = dot_closed_form(DOT_N);
    eprintln!("dot: N = {DOT_N}, {blocks} blocks: GPU {c:.6e}, closed form {expected:.6e}");
    assert!(
        ((c - expected) / expected).abs() < 1e-5,
        "dot {c} vs {expected}"
    );

    let input: Vec<u32> = (0..256u32)
        .map(|i| {
            if i % 64 == 7 {
                5_000_000
            } else {
                (i * 7919) % 13
            }
        })
        .collect();
    let input_dev = s.gpu.upload(&input).unwrap();
    for n in [4u32, 16, 32] {
        let mut out = s.gpu.zeros::<u32>(256 * ex::tiles::FIELDS).unwrap();
        let cfg = LaunchConfig::new(2, 128);
        match n {
            4 => module.launch(ex::tiles::tile_tour_4, cfg, (&input_dev, &mut out)),
            16 => module.launch(ex::tiles::tile_tour_16, cfg, (&input_dev, &mut out)),
            _ => module.launch(ex::tiles::tile_tour_32, cfg, (&input_dev, &mut out)),
        }
        .unwrap();
        assert_eq!(
            s.gpu.download(&out).unwrap(),
            tile_tour_reference(n, &input),
            "tile tour {n}"
        );
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test -p coop-tests --test gpu -- --ignored"]
fn bad_launches_are_refused_with_the_limit_they_break() {
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
