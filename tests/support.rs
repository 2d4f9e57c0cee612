//! Shared helpers of coop's workspace tests: the PTX under test, finding
//! CUDA tools, reading PTX, and deterministic inputs.

#[path = "async_cases.rs"]
pub mod async_cases;
#[path = "atomics_cases.rs"]
pub mod atomics_cases;
#[path = "block_cases.rs"]
pub mod block_cases;
#[path = "cluster_cases.rs"]
pub mod cluster_cases;
#[path = "device_reduce_cases.rs"]
pub mod device_reduce_cases;
#[path = "differential.rs"]
pub mod differential;
#[path = "dynamic_cases.rs"]
pub mod dynamic_cases;
#[path = "grid_cases.rs"]
pub mod grid_cases;
#[path = "histogram_cases.rs"]
pub mod histogram_cases;
#[path = "inbox_cases.rs"]
pub mod inbox_cases;
#[path = "launch_bounds_cases.rs"]
pub mod launch_bounds_cases;
#[path = "loop_shapes.rs"]
pub mod loop_shapes;
#[path = "math_cases.rs"]
pub mod math_cases;
#[path = "multi_cases.rs"]
pub mod multi_cases;
#[path = "multi_warp_cases.rs"]
pub mod multi_warp_cases;
#[path = "ragged_cases.rs"]
pub mod ragged_cases;
#[path = "reductions.rs"]
pub mod reductions;
#[path = "runs_cases.rs"]
pub mod runs_cases;
#[path = "scan_cases.rs"]
pub mod scan_cases;
#[path = "segmented_cases.rs"]
pub mod segmented_cases;
#[path = "segmented_sort_cases.rs"]
pub mod segmented_sort_cases;
#[path = "select_cases.rs"]
pub mod select_cases;
#[path = "sort_cases.rs"]
pub mod sort_cases;
#[path = "split_barrier_cases.rs"]
pub mod split_barrier_cases;
#[path = "tensor_cases.rs"]
pub mod tensor_cases;
#[path = "top_k_cases.rs"]
pub mod top_k_cases;
#[path = "transform_cases.rs"]
pub mod transform_cases;
#[path = "user_shapes.rs"]
pub mod user_shapes;
#[path = "watchdog.rs"]
pub mod watchdog;

use std::path::PathBuf;
use std::process::Command;

pub use coop_examples::PTX as EXAMPLES_PTX;
pub use coop_test_kernels as kernels;

/// The PTX of the differential-suite kernels, for sm_80 and sm_90.
pub static TEST_KERNELS_PTX: coop_host::PtxSet = coop_host::include_ptx!("coop-test-kernels");

/// The reference implementation, compiled by nvcc at test time.
pub const REFERENCE_CU: &str = include_str!("reference/collectives.cu");

/// The CUDA twins of the multi-warp tile kernels (CUDA's experimental
/// multi-warp tiles), compiled on their own by the GPU suite.
pub const MULTI_WARP_CU: &str = include_str!("reference/multi_warp.cu");

/// CUDA twins of the split-barrier kernels (`kernels::split_barriers`),
/// with cooperative groups' `barrier_arrive` and `barrier_wait`.
pub const SPLIT_BARRIERS_CU: &str = include_str!("reference/split_barriers.cu");

/// CUB twins of the block-level kernels (`kernels::block_tiles`), with
/// `BlockLoad`, `BlockStore`, `BlockRadixSort`, `BlockDiscontinuity`,
/// `BlockAdjacentDifference` and `BlockExchange`.
pub const BLOCK_TILES_CU: &str = include_str!("reference/block_tiles.cu");

/// The CUDA twin of the scans with an update (`kernels::async_copies::scan_updates`),
/// with cooperative groups' `exclusive_scan_update` and `inclusive_scan_update`.
pub const SCAN_UPDATES_CU: &str = include_str!("reference/scan_updates.cu");
/// CUDA twins of the tiles' rows (`kernels::async_copies::tile_rows_*`),
/// with cooperative groups' `memcpy_async`, `wait_prior` and `wait` on
/// tiles of 8 to 128 threads.
pub const TILE_COPIES_CU: &str = include_str!("reference/tile_copies.cu");
/// CUDA twin of the clusters' windows copied in parts
/// (`kernels::async_copies::cluster_windows`), with cooperative groups'
/// `memcpy_async` on the block, `wait_prior<1>`, the cluster's barrier and
/// `map_shared_rank`.
pub const CLUSTER_COPIES_CU: &str = include_str!("reference/cluster_copies.cu");
/// CUDA C++ twin of `tensor_copies::tensor_tiles_2d_f32` (compiled by nvcc
/// at test time).
pub const TENSOR_COPIES_CU: &str = include_str!("reference/tensor_copies.cu");
/// CUDA C++ twins of `inboxes::inbox_reduce_sum_u32` and
/// `inboxes::inbox_pass_2d_f32` (compiled by nvcc at test time).
pub const INBOXES_CU: &str = include_str!("reference/inboxes.cu");

/// Every PTX the workspace builds: `(name, sm, text)`.
pub fn all_ptx() -> Vec<(&'static str, u32, &'static str)> {
    let mut all = Vec::new();
    // Every family coop-host ships, from its own list, so that a new one
    // is assembled (and its cubins checked) without being named here.
    let families = coop_host::ptx_families::FAMILIES.map(|(_, set)| set);
    for set in [&EXAMPLES_PTX, &TEST_KERNELS_PTX]
        .into_iter()
        .chain(families)
    {
        for sm in set.targets() {
            all.push((set.name(), sm, set.get(sm).expect("listed target")));
        }
    }
    all
}

/// Finds a CUDA tool: `$ENV_VAR`, then `PATH`, then `/usr/local/cuda/bin`,
/// then the `nvidia-cuda-nvcc-cu12` Python wheel's `bin/`.
pub fn find_cuda_tool(name: &str, env_var: &str) -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(env_var) {
        return Ok(PathBuf::from(p));
    }
    let runs = |p: &std::path::Path| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if runs(std::path::Path::new(name)) {
        return Ok(PathBuf::from(name));
    }
    let cuda = PathBuf::from("/usr/local/cuda/bin").join(name);
    if runs(&cuda) {
        return Ok(cuda);
    }
    if let Ok(out) = Command::new("python3")
        .args([
            "-c",
            "import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])",
        ])
        .output()
    {
        let wheel = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
            .join("bin")
            .join(name);
        if runs(&wheel) {
            return Ok(wheel);
        }
    }
    Err(format!(
        "`{name}` not found: set {env_var}, put it on PATH, or `pip install nvidia-cuda-nvcc-cu12`"
    ))
}

/// One PTX instruction: opcode with its modifiers, and operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// e.g. `shfl.sync.idx.b32`.
    pub opcode: String,
    /// Operands as written, with `d|p` destination pairs split.
    pub operands: Vec<String>,
}

/// The instructions of `.entry name`, in order (labels, directives and
/// comments dropped).
pub fn entry_instructions(ptx: &str, name: &str) -> Vec<Instruction> {
    let header = format!(".entry {name}(");
    let Some(start) = ptx.find(&header) else {
        panic!("no `.entry {name}` in the PTX");
    };
    let body_start = start + ptx[start..].find('{').expect("entry body");
    let mut depth = 0;
    let mut end = body_start;
    for (i, c) in ptx[body_start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = body_start + i;
                    break;
                }
            }
            _ => {}
        }
    }
    ptx[body_start + 1..end]
        .lines()
        .map(|l| l.split("//").next().unwrap_or("").trim())
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with('.')
                && !l.starts_with('$')
                && !l.starts_with('{')
                && !l.starts_with('}')
        })
        .map(|l| {
            let l = l.trim_end_matches(';').trim();
            let l = l
                .strip_prefix('@')
                .map(|r| r.split_once(char::is_whitespace).map_or("", |(_, x)| x))
                .unwrap_or(l)
                .trim();
            let (opcode, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            let operands = rest
                .split(',')
                .flat_map(|o| o.split('|'))
                .map(|o| o.trim().to_string())
                .filter(|o| !o.is_empty())
                .collect();
            Instruction {
                opcode: opcode.to_string(),
                operands,
            }
        })
        .collect()
}

/// How a member-mask operand is computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mask {
    /// A constant (`-1` is the full warp).
    Constant(u32),
    /// `base << (%laneid & lane_bits)`: the lanes of the caller's tile.
    TileOfLane { base: u32, lane_bits: u32 },
    /// Anything else, as found.
    Other(String),
}

/// Resolves `operand` through the register definitions in `instrs`.
pub fn resolve_mask(instrs: &[Instruction], operand: &str) -> Mask {
    if let Some(v) = constant(instrs, operand) {
        return Mask::Constant(v);
    }
    let Some(def) = definition(instrs, operand) else {
        return Mask::Other(operand.to_string());
    };
    if def.opcode.starts_with("shl.b32") {
        let base = constant(instrs, &def.operands[1]);
        let lane_bits = definition(instrs, &def.operands[2]).and_then(|and| {
            let is_lane = |o: &str| {
                definition(instrs, o)
                    .is_some_and(|d| d.opcode.starts_with("mov") && d.operands[1] == "%laneid")
            };
            (and.opcode.starts_with("and.b32") && is_lane(&and.operands[1]))
                .then(|| constant(instrs, &and.operands[2]))
                .flatten()
        });
        if let (Some(base), Some(lane_bits)) = (base, lane_bits) {
            return Mask::TileOfLane { base, lane_bits };
        }
    }
    Mask::Other(format!("{} {}", def.opcode, def.operands.join(", ")))
}

fn definition<'a>(instrs: &'a [Instruction], reg: &str) -> Option<&'a Instruction> {
    instrs
        .iter()
        .find(|i| i.operands.first().is_some_and(|d| d == reg))
}

fn constant(instrs: &[Instruction], operand: &str) -> Option<u32> {
    if let Ok(v) = operand.parse::<i64>() {
        return Some(v as u32);
    }
    let def = definition(instrs, operand)?;
    if def.opcode.starts_with("mov.b32") || def.opcode.starts_with("mov.u32") {
        return def.operands[1].parse::<i64>().ok().map(|v| v as u32);
    }
    None
}

/// A small deterministic generator (xorshift64*), so that every run of the
/// suites sees the same inputs.
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A value in `0..n`.
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % n as u64) as u32
    }
}

/// Runs the examples' kernels (the dot product and the tile tour, then
/// the examples that follow the CUDA tutorials) on `device` and checks
/// them against their host references.
pub fn check_examples(device: &coop_host::Device) {
    use coop_examples::{dot_closed_form, run_dot, run_tile_tour, tile_tour_input, DOT_N};
    let program = device.load(&coop_examples::PTX).unwrap();
    let c = run_dot(device, &program).unwrap();
    let expected = dot_closed_form(DOT_N);
    eprintln!(
        "dot: N = {DOT_N} on {}: {c:.6e}, closed form {expected:.6e}",
        device.describe()
    );
    assert!(
        ((c - expected) / expected).abs() < 1e-5,
        "dot {c} vs {expected}"
    );
    let input = tile_tour_input(256);
    for n in [4u32, 16, 32] {
        let (got, want) = run_tile_tour(device, &program, n, &input).unwrap();
        assert_eq!(got, want, "tile tour {n}");
    }
    check_tutorial_examples(device, &program);
    check_atomics_examples(device, &program);
    check_conjugate_gradient(device, &program);
    check_integral_image(device, &program);
    check_cg_samples(device, &program);
}

/// The integral-image port on 1920 x 64 pixels: the summed-area table as
/// the host's; and the row pass's fixed block shape refused at another.
pub fn check_integral_image(device: &coop_host::Device, program: &coop_host::Program) {
    use coop_examples::checks::integral_image::{first_difference, image, Integral};
    use coop_examples::kernels::integral_image::integral_rows;
    let (width, height) = (1920, 64);
    let pixels = image(width, height);
    let mut integral = Integral::new(device, &pixels, width, height).unwrap();
    integral.launch(program).unwrap();
    let table = device.download(&integral.table).unwrap();
    assert_eq!(first_difference(&table, &pixels, width, height), None);
    let err = program
        .launch(
            integral_rows,
            coop_host::LaunchConfig::new(height as u32, 128),
            (&integral.image, &mut integral.table),
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("`#[kernel(block = 120)]`"),
        "{err}"
    );
}

/// The small cooperative-groups samples' ports at small sizes, each as the
/// host computes it.
pub fn check_cg_samples(device: &coop_host::Device, program: &coop_host::Program) {
    use coop_examples::checks::cg_samples::{Kernel, Samples, Sizes};
    let mut samples = Samples::new(device, Sizes::SMALL).unwrap();
    let shapes = Samples::shapes(program, 0).unwrap();
    for kernel in Kernel::ALL {
        samples.reset(device, kernel).unwrap();
        samples.launch(program, kernel, &shapes, 0).unwrap();
        if let Err(e) = samples.check(device, kernel) {
            panic!("{}: {e}", kernel.name());
        }
    }
}

/// The conjugate-gradient sample's port on a small system: it converges as
/// the sample requires, and its twin without launch bounds computes the
/// same bits on the same grid.
pub fn check_conjugate_gradient(device: &coop_host::Device, program: &coop_host::Program) {
    use coop_examples::checks::conjugate_gradient::{outcome, tridiagonal, Solve};
    use coop_examples::kernels::conjugate_gradient::{
        conjugate_gradient, conjugate_gradient_unbounded, CG_THREADS,
    };
    let a = tridiagonal(1024);
    let blocks = program
        .max_cooperative_blocks(conjugate_gradient, CG_THREADS, 0)
        .unwrap()
        .min(
            program
                .max_cooperative_blocks(conjugate_gradient_unbounded, CG_THREADS, 0)
                .unwrap(),
        );
    let mut bounded = Solve::new(device, &a).unwrap();
    bounded.launch(program, blocks).unwrap();
    let o = outcome(device, &a, &bounded).unwrap();
    assert!(o.converged() && o.max_error < 1e-5, "{o:?}");
    let mut unbounded = Solve::new(device, &a).unwrap();
    unbounded
        .launch_kernel(
            program,
            conjugate_gradient_unbounded,
            coop_host::LaunchConfig::new(blocks, CG_THREADS),
        )
        .unwrap();
    assert_eq!(
        device.download(&bounded.x).unwrap(),
        device.download(&unbounded.x).unwrap()
    );
    // Any block but the kernel's 512 threads is refused.
    let err = bounded
        .launch_kernel(
            program,
            conjugate_gradient,
            coop_host::LaunchConfig::new(1, 1024),
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("`#[kernel(block = 512)]`"),
        "{err}"
    );
    eprintln!(
        "conjugate gradient: 1024 rows on {}: {} iterations, residual {:.2e}",
        device.describe(),
        o.iterations,
        o.residual
    );
}

/// A user struct with `#[derive(DeviceCopy)]` goes up, through a kernel
/// and down again on `device`, against the host's computation.
pub fn check_user_types(device: &coop_host::Device) {
    use kernels::user_types::{step_bodies, Body};
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let bodies: Vec<Body> = (0..1000u64)
        .map(|i| Body {
            position: [i as f32, 0.5, -1.0],
            mass: 1.0 + (i % 5) as f32,
            velocity: [0.25, i as f64 * 0.001, -2.0],
            id: i,
        })
        .collect();
    let input = device.upload(&bodies).unwrap();
    let mut out = device.zeros::<Body>(bodies.len()).unwrap();
    let mut energy = device.zeros::<f64>(bodies.len()).unwrap();
    program
        .launch(
            step_bodies,
            coop_host::LaunchConfig::new(4, 256),
            (&input, 0.5f32, &mut out, &mut energy),
        )
        .unwrap();
    let (got, got_energy) = (
        device.download(&out).unwrap(),
        device.download(&energy).unwrap(),
    );
    for (i, b) in bodies.iter().enumerate() {
        let mut want = *b;
        for k in 0..3 {
            want.position[k] += 0.5 * b.velocity[k] as f32;
        }
        want.id *= 2;
        let v = b.velocity;
        let m = b.mass as f64;
        assert_eq!(got[i], want, "body {i}");
        assert_eq!(
            got_energy[i],
            m * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]),
            "energy {i}"
        );
    }
}

/// The histogram and the compaction, on sizes that leave partial warps
/// and blocks, uniform and skewed.
fn check_atomics_examples(device: &coop_host::Device, program: &coop_host::Program) {
    use coop_examples::checks::histogram::{
        histogram_input, run_compaction, run_histogram, HISTOGRAM_VARIANTS,
    };
    for (n, blocks, threads) in [(0, 1, 64), (1, 1, 32), (1000, 2, 96), (70_001, 5, 256)] {
        for skewed in [false, true] {
            // Offsets 0 and 3: an aligned start, and an unaligned head.
            let input = histogram_input(n + 3, skewed);
            for offset in [0, 3] {
                let input = &input[..offset + n];
                for variant in HISTOGRAM_VARIANTS {
                    let (got, want) =
                        run_histogram(device, program, variant, input, offset, blocks, threads)
                            .unwrap();
                    assert_eq!(
                        got, want,
                        "{variant} histogram of {n} bytes at offset {offset} (skewed: {skewed})"
                    );
                }
            }
        }
        let input: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let (got, want) = run_compaction(device, program, &input, blocks, threads).unwrap();
        assert_eq!(got, want, "compaction of {n}");
    }
}

/// The examples that follow the CUDA tutorials, each against its host
/// reference.
fn check_tutorial_examples(device: &coop_host::Device, program: &coop_host::Program) {
    use coop_examples::checks::{dot, shared_tiles, stencil, transpose, warp_vote};
    let expected = coop_examples::dot_closed_form(coop_examples::DOT_N);
    for v in dot::run_dot_versions(device, program).unwrap() {
        let error = ((v.result - expected) / expected).abs();
        assert!(error < 1e-5, "dot [{}]: {} vs {expected}", v.name, v.result);
    }
    // Odd sizes: a partial last block, one element, and last tiles whose
    // length is not a multiple of four (the ring's runs of four end early).
    for n in [1usize, 7, 1000, 4099, 5000] {
        let a = stencil::stencil_input(n);
        for v in stencil::run_stencil(device, program, &a).unwrap() {
            assert!(
                v.error < 1e-6,
                "stencil [{}] n = {n}: error {}",
                v.name,
                v.error
            );
        }
    }
    for run in shared_tiles::run_shared_tiles(device, program).unwrap() {
        assert_eq!(run.out, run.expected, "{}", run.name);
        if let Some((store, load)) = run.transactions {
            // The shared-memory banks tutorial's figures: 1 without
            // conflicts, 32 down a column.
            let want = match run.name {
                "set_row_read_row" | "set_row_read_col_pad" => (1.0, 1.0),
                "set_col_read_col" => (32.0, 32.0),
                _ => (1.0, 32.0),
            };
            assert_eq!((store, load), want, "{}", run.name);
        }
    }
    for (rows, cols) in [(64, 96), (33, 70)] {
        for v in transpose::run_transpose(device, program, rows, cols).unwrap() {
            assert!(v.correct, "{} on {rows} x {cols}", v.name);
        }
    }
    let input = warp_vote::warp_vote_input(256);
    let (got, want) = warp_vote::run_warp_vote(device, program, &input).unwrap();
    assert_eq!(got, want, "warp_vote");
}

/// The line of `source` (a test file's text, `include_str!`) that ends in
/// the comment `// marker`: where a test's kernel makes the call a
/// diagnosis must name.
pub fn marked_line(source: &str, marker: &str) -> u32 {
    let needle = format!("// {marker}\n");
    let (before, _) = source
        .split_once(&needle)
        .unwrap_or_else(|| panic!("no line marked `{marker}`"));
    before.lines().count() as u32
}
