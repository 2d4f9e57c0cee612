//! The cases of the differential suite, runnable on any target: coop's PTX
//! on a GPU, the nvcc reference on a GPU, or coop's CPU backend.
//!
//! Inputs are generated deterministically, so the outputs of a case are a
//! fixed function of the implementation; their FNV-1a hashes on the GPU are
//! kept in `golden/`, which lets the CPU column run, and be compared with
//! the GPU, where there is no GPU.

use crate::{kernels, Rng};
use coop::Kernel;
use coop_host::cudarc::driver::{CudaSlice, CudaView, CudaViewMut};
use coop_host::{Cpu, CpuArgs, Dim3, Error, Gpu, KernelArgs, LaunchConfig, Module};

/// Launch shapes: a 1-D grid of 256-thread blocks, and a 3-D grid of
/// (4, 8, 3) blocks (96 threads, three whole warps).
pub const SHAPES: [(Dim3, Dim3); 2] = [
    (Dim3::new(3, 1, 1), Dim3::new(256, 1, 1)),
    (Dim3::new(2, 1, 2), Dim3::new(4, 8, 3)),
];

/// Where a case runs.
pub enum Target<'a> {
    /// A module on a GPU: coop's PTX or the nvcc reference.
    Gpu(&'a Gpu, &'a Module),
    /// coop's CPU backend.
    Cpu(&'a Cpu),
}

/// Which collectives a case exercises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// `shfl`, `shfl_up`, `shfl_down`, `shfl_xor`: 4 values per thread.
    Shuffles,
    /// `any`, `all`, `ballot`: 4 words per thread.
    Votes,
    /// `match_any`, `match_all`: 3 words per thread.
    Matches,
    /// Ranks, sizes, indices: `RANK_FIELDS` words per thread.
    Ranks,
}

type Launcher = Box<dyn Fn(&Target, &Case) -> Result<Vec<u32>, Error>>;

/// One kernel on one launch shape, with its inputs.
pub struct Case {
    /// `"<kernel> shape <i>"`.
    pub name: String,
    /// The kernel.
    pub kernel: &'static str,
    /// What it exercises.
    pub family: Family,
    /// The tile size.
    pub n: u32,
    /// The launch shape (grid, block).
    pub shape: (Dim3, Dim3),
    /// Words per element of the kernel's value type.
    pub elem_words: usize,
    /// The input, as 32-bit words.
    pub input: Vec<u32>,
    /// Per-thread parameters (shuffles only).
    pub params: Vec<u32>,
    launch: Launcher,
}

impl Case {
    /// Threads in the launch.
    pub fn threads(&self) -> usize {
        (self.shape.0.volume() * self.shape.1.volume()) as usize
    }

    /// Runs the case; the output as 32-bit words.
    pub fn run(&self, target: &Target) -> Result<Vec<u32>, Error> {
        (self.launch)(target, self)
    }

    fn config(&self) -> LaunchConfig {
        LaunchConfig::new(self.shape.0, self.shape.1)
    }

    /// The first lane of the tile that grid thread `g` belongs to.
    pub fn tile_base_lane(&self, g: usize) -> u32 {
        let lane = (g % self.shape.1.volume() as usize) as u32 % 32;
        lane & !(self.n - 1)
    }
}

/// 64-bit FNV-1a of the words' little-endian bytes.
pub fn fnv1a(words: &[u32]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// Host memory for `words` as a slice of `T`, 8-byte aligned.
pub(crate) struct Aligned {
    storage: Vec<u64>,
    words: usize,
}

impl Aligned {
    pub(crate) fn new(words: &[u32]) -> Self {
        let mut storage = vec![0u64; words.len().div_ceil(2)];
        // SAFETY: the storage holds at least `words.len()` u32s.
        unsafe {
            std::ptr::copy_nonoverlapping(
                words.as_ptr(),
                storage.as_mut_ptr() as *mut u32,
                words.len(),
            )
        };
        Aligned {
            storage,
            words: words.len(),
        }
    }

    pub(crate) fn slice<T>(&self) -> &[T] {
        let len = self.words * 4 / std::mem::size_of::<T>();
        // SAFETY: 8-byte aligned, `len` elements fit, and the suite's
        // element types are plain data.
        unsafe { std::slice::from_raw_parts(self.storage.as_ptr() as *const T, len) }
    }

    pub(crate) fn slice_mut<T>(&mut self) -> &mut [T] {
        let len = self.words * 4 / std::mem::size_of::<T>();
        // SAFETY: as above, borrowed mutably.
        unsafe { std::slice::from_raw_parts_mut(self.storage.as_mut_ptr() as *mut T, len) }
    }

    pub(crate) fn into_words(self) -> Vec<u32> {
        // SAFETY: the storage holds `words` initialised u32s.
        unsafe { std::slice::from_raw_parts(self.storage.as_ptr() as *const u32, self.words) }
            .to_vec()
    }
}

fn words_view<T>(buf: &CudaSlice<u32>) -> CudaView<'_, T> {
    let len = buf.len() * 4 / std::mem::size_of::<T>();
    // SAFETY: plain-data element types whose size is a multiple of 4 bytes;
    // device buffers are 256-byte aligned.
    unsafe { buf.transmute::<T>(len) }.expect("element size divides the buffer")
}

fn words_view_mut<T>(buf: &mut CudaSlice<u32>) -> CudaViewMut<'_, T> {
    let len = buf.len() * 4 / std::mem::size_of::<T>();
    // SAFETY: as above.
    unsafe { buf.transmute_mut::<T>(len) }.expect("element size divides the buffer")
}

fn shuffle_launcher<T: 'static, K: Kernel + 'static>(kernel: K) -> Launcher
where
    for<'a, 'b, 'c, 'd, 'e> (
        &'a CudaView<'b, T>,
        &'c CudaSlice<u32>,
        &'d mut CudaViewMut<'e, T>,
    ): KernelArgs<K::Params>,
    for<'a, 'b, 'c> (&'a [T], &'b [u32], &'c mut [T]): CpuArgs<K::Params>,
{
    Box::new(move |target, case| {
        let out_words = 4 * case.threads() * case.elem_words;
        match target {
            Target::Gpu(gpu, module) => {
                let input = gpu.upload(&case.input)?;
                let params = gpu.upload(&case.params)?;
                let mut out = gpu.zeros::<u32>(out_words)?;
                module.launch(
                    kernel,
                    case.config(),
                    (
                        &words_view::<T>(&input),
                        &params,
                        &mut words_view_mut::<T>(&mut out),
                    ),
                )?;
                gpu.download(&out)
            }
            Target::Cpu(cpu) => {
                let input = Aligned::new(&case.input);
                let mut out = Aligned::new(&vec![0; out_words]);
                cpu.launch(
                    kernel,
                    case.config(),
                    (input.slice::<T>(), &case.params[..], out.slice_mut::<T>()),
                )?;
                Ok(out.into_words())
            }
        }
    })
}

fn words_in_out_launcher<T: 'static, K: Kernel + 'static>(
    kernel: K,
    out_per_thread: usize,
) -> Launcher
where
    for<'a, 'b, 'c> (&'a CudaView<'b, T>, &'c mut CudaSlice<u32>): KernelArgs<K::Params>,
    for<'a, 'b> (&'a [T], &'b mut [u32]): CpuArgs<K::Params>,
{
    Box::new(move |target, case| {
        let out_words = out_per_thread * case.threads();
        match target {
            Target::Gpu(gpu, module) => {
                let input = gpu.upload(&case.input)?;
                let mut out = gpu.zeros::<u32>(out_words)?;
                module.launch(kernel, case.config(), (&words_view::<T>(&input), &mut out))?;
                gpu.download(&out)
            }
            Target::Cpu(cpu) => {
                let input = Aligned::new(&case.input);
                let mut out = vec![0u32; out_words];
                cpu.launch(kernel, case.config(), (input.slice::<T>(), &mut out[..]))?;
                Ok(out)
            }
        }
    })
}

fn ranks_launcher<K: Kernel + 'static>(kernel: K) -> Launcher
where
    for<'a> (&'a mut CudaSlice<u32>,): KernelArgs<K::Params>,
    for<'a> (&'a mut [u32],): CpuArgs<K::Params>,
{
    Box::new(move |target, case| {
        let out_words = kernels::RANK_FIELDS * case.threads();
        match target {
            Target::Gpu(gpu, module) => {
                let mut out = gpu.zeros::<u32>(out_words)?;
                module.launch(kernel, case.config(), (&mut out,))?;
                gpu.download(&out)
            }
            Target::Cpu(cpu) => {
                let mut out = vec![0u32; out_words];
                cpu.launch(kernel, case.config(), (&mut out[..],))?;
                Ok(out)
            }
        }
    })
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

fn shuffle_cases(
    out: &mut Vec<Case>,
    kernel: &'static str,
    ty: &'static str,
    n: u32,
    elem_words: usize,
    make: impl Fn() -> Launcher,
) {
    for (shape_index, shape) in SHAPES.into_iter().enumerate() {
        let threads = (shape.0.volume() * shape.1.volume()) as usize;
        let mut rng = Rng::new(
            0xC00B
                + n as u64 * 31
                + shape_index as u64
                + elem_words as u64 * 1000
                + ty.len() as u64,
        );
        let input = (0..threads)
            .flat_map(|_| element_words(ty, &mut rng))
            .collect();
        // Per thread: source rank (up to 2N + 3: taken modulo N), deltas up
        // to N + 2 (past the tile: own value), xor masks up to 2N.
        let params = (0..threads)
            .flat_map(|_| {
                [
                    rng.below(2 * n + 4),
                    rng.below(n + 3),
                    rng.below(n + 3),
                    rng.below(2 * n),
                ]
            })
            .collect();
        out.push(Case {
            name: format!("{kernel} shape {shape_index}"),
            kernel,
            family: Family::Shuffles,
            n,
            shape,
            elem_words,
            input,
            params,
            launch: make(),
        });
    }
}

fn vote_cases(out: &mut Vec<Case>, kernel: &'static str, n: u32, make: impl Fn() -> Launcher) {
    for (shape_index, shape) in SHAPES.into_iter().enumerate() {
        let threads = (shape.0.volume() * shape.1.volume()) as usize;
        let mut rng = Rng::new(0x707E + n as u64 + 100 * shape_index as u64);
        // Whole tiles of false, of true, and mixed ones.
        let input = (0..threads)
            .map(|g| match (g / n as usize) % 3 {
                0 => 0,
                1 => 1 + rng.below(7),
                _ => rng.below(2) * (1 + rng.below(7)),
            })
            .collect();
        out.push(Case {
            name: format!("{kernel} shape {shape_index}"),
            kernel,
            family: Family::Votes,
            n,
            shape,
            elem_words: 1,
            input,
            params: Vec::new(),
            launch: make(),
        });
    }
}

fn match_cases(
    out: &mut Vec<Case>,
    kernel: &'static str,
    pool: &[Vec<u32>],
    n: u32,
    make: impl Fn() -> Launcher,
) {
    for (shape_index, shape) in SHAPES.into_iter().enumerate() {
        let threads = (shape.0.volume() * shape.1.volume()) as usize;
        let mut rng = Rng::new(0x3A7C + n as u64 + 10 * shape_index as u64 + pool[0].len() as u64);
        // Every third tile holds one value throughout (match_all succeeds).
        let input = (0..threads)
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
        out.push(Case {
            name: format!("{kernel} shape {shape_index}"),
            kernel,
            family: Family::Matches,
            n,
            shape,
            elem_words: pool[0].len(),
            input,
            params: Vec::new(),
            launch: make(),
        });
    }
}

fn rank_cases(out: &mut Vec<Case>, kernel: &'static str, n: u32, make: impl Fn() -> Launcher) {
    for (shape_index, shape) in SHAPES.into_iter().enumerate() {
        out.push(Case {
            name: format!("{kernel} shape {shape_index}"),
            kernel,
            family: Family::Ranks,
            n,
            shape,
            elem_words: 1,
            input: Vec::new(),
            params: Vec::new(),
            launch: make(),
        });
    }
}

/// Every case of the suite, in a fixed order.
pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    macro_rules! shuffles {
        ($t:ty, $ty:literal: $($k:ident = $n:literal),*) => {$(
            shuffle_cases(&mut out, stringify!($k), $ty, $n, std::mem::size_of::<$t>() / 4, || shuffle_launcher::<$t, _>(kernels::$k));
        )*};
    }
    shuffles!(u32, "u32": shuffles_u32_1 = 1, shuffles_u32_2 = 2, shuffles_u32_4 = 4, shuffles_u32_8 = 8, shuffles_u32_16 = 16, shuffles_u32_32 = 32);
    shuffles!(i64, "i64": shuffles_i64_1 = 1, shuffles_i64_2 = 2, shuffles_i64_4 = 4, shuffles_i64_8 = 8, shuffles_i64_16 = 16, shuffles_i64_32 = 32);
    shuffles!(f32, "f32": shuffles_f32_1 = 1, shuffles_f32_2 = 2, shuffles_f32_4 = 4, shuffles_f32_8 = 8, shuffles_f32_16 = 16, shuffles_f32_32 = 32);
    shuffles!(f64, "f64": shuffles_f64_1 = 1, shuffles_f64_2 = 2, shuffles_f64_4 = 4, shuffles_f64_8 = 8, shuffles_f64_16 = 16, shuffles_f64_32 = 32);
    shuffles!(kernels::Triple, "triple": shuffles_triple_1 = 1, shuffles_triple_2 = 2, shuffles_triple_4 = 4, shuffles_triple_8 = 8, shuffles_triple_16 = 16, shuffles_triple_32 = 32);

    macro_rules! votes {
        ($($k:ident = $n:literal),*) => {$(
            vote_cases(&mut out, stringify!($k), $n, || words_in_out_launcher::<u32, _>(kernels::$k, 4));
        )*};
    }
    votes!(
        votes_1 = 1,
        votes_2 = 2,
        votes_4 = 4,
        votes_8 = 8,
        votes_16 = 16,
        votes_32 = 32
    );

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
    macro_rules! matches {
        ($t:ty, $pool:ident: $($k:ident = $n:literal),*) => {$(
            match_cases(&mut out, stringify!($k), &$pool, $n, || words_in_out_launcher::<$t, _>(kernels::$k, 3));
        )*};
    }
    matches!(u32, u32_pool: matches_u32_1 = 1, matches_u32_2 = 2, matches_u32_4 = 4, matches_u32_8 = 8, matches_u32_16 = 16, matches_u32_32 = 32);
    matches!(i64, i64_pool: matches_i64_1 = 1, matches_i64_2 = 2, matches_i64_4 = 4, matches_i64_8 = 8, matches_i64_16 = 16, matches_i64_32 = 32);
    matches!(f32, f32_pool: matches_f32_1 = 1, matches_f32_2 = 2, matches_f32_4 = 4, matches_f32_8 = 8, matches_f32_16 = 16, matches_f32_32 = 32);
    matches!(f64, f64_pool: matches_f64_1 = 1, matches_f64_2 = 2, matches_f64_4 = 4, matches_f64_8 = 8, matches_f64_16 = 16, matches_f64_32 = 32);

    macro_rules! ranks {
        ($($k:ident = $n:literal),*) => {$(
            rank_cases(&mut out, stringify!($k), $n, || ranks_launcher(kernels::$k));
        )*};
    }
    ranks!(
        ranks_1 = 1,
        ranks_2 = 2,
        ranks_4 = 4,
        ranks_8 = 8,
        ranks_16 = 16,
        ranks_32 = 32
    );
    out
}

/// Counts compared values and keeps the first mismatches.
#[derive(Default)]
pub struct Tally {
    /// Values compared.
    pub compared: usize,
    /// The first mismatches, described.
    pub mismatches: Vec<String>,
}

impl Tally {
    /// Records one comparison.
    pub fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.compared += 1;
        if !ok && self.mismatches.len() < 20 {
            self.mismatches.push(what());
        }
    }
}

/// Compares coop's output of `case` with CUDA's, value by value. For
/// `shfl_xor` with an out-of-tile partner (`mask % 32 >= N`) coop keeps the
/// caller's value; CUDA agrees in the warp's first tile and reads another
/// tile (outside its member mask: undefined) elsewhere, so there only
/// coop's definition is checked.
pub fn compare_with_cuda(case: &Case, coop: &[u32], cuda: &[u32], tally: &mut Tally) {
    if case.family != Family::Shuffles {
        let per_thread = coop.len() / case.threads();
        for (i, (c, r)) in coop.iter().zip(cuda).enumerate() {
            tally.check(c == r, || {
                format!(
                    "{}: thread {} word {}: coop {c:#x} CUDA {r:#x}",
                    case.name,
                    i / per_thread,
                    i % per_thread
                )
            });
        }
        return;
    }
    let w = case.elem_words;
    for g in 0..case.threads() {
        let own = &case.input[g * w..(g + 1) * w];
        for k in 0..4 {
            let at = (4 * g + k) * w;
            let (c, r) = (&coop[at..at + w], &cuda[at..at + w]);
            let p = case.params[4 * g + k];
            if k == 3 && p % 32 >= case.n {
                tally.check(c == own, || {
                    format!(
                        "{}: thread {g}: shfl_xor({p}) gave {c:?}, own {own:?}",
                        case.name
                    )
                });
                if case.tile_base_lane(g) != 0 {
                    continue;
                }
            }
            let op = ["shfl", "shfl_up", "shfl_down", "shfl_xor"][k];
            tally.check(c == r, || {
                format!("{}: thread {g}: {op}({p}) coop {c:?} CUDA {r:?}", case.name)
            });
        }
    }
}

/// The golden file: `<case name>\t<fnv1a hex>` per line, `#` comments.
pub fn parse_golden(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (name, hash) = l.rsplit_once('\t').expect("name<TAB>hash");
            (
                name.to_string(),
                u64::from_str_radix(hash.trim(), 16).expect("hex hash"),
            )
        })
        .collect()
}
