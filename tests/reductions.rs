//! Reductions and scans checked against a host reference, on any target:
//! each `collectives_*` kernel of `coop-test-kernels` runs one collective
//! (a tile of 1 to 32 threads or the block; reduce, inclusive or exclusive
//! scan) with one operator, and every thread's result must equal the
//! operator folded over its group in rank order.

use crate::differential::{Aligned, Target};
use crate::kernels::{self, GROUPS};
use coop::op::Operator;
use coop::Kernel;
use coop_host::cudarc::driver::{CudaSlice, CudaView, CudaViewMut};
use coop_host::{CpuArgs, Error, KernelArgs, LaunchConfig};

/// What `mode` runs: group size (0 for the block) and operation.
pub fn describe(mode: u32) -> String {
    let group = match GROUPS[(mode / 3) as usize] {
        0 => "block".to_string(),
        n => format!("tile of {n}"),
    };
    format!(
        "{} over a {group}",
        ["reduce", "inclusive_scan", "exclusive_scan"][(mode % 3) as usize]
    )
}

/// The expected output of `mode` over `input`, launched in blocks of
/// `block` threads.
pub fn expected<T: Copy, O: Operator<T>>(input: &[T], block: usize, mode: u32, op: O) -> Vec<T> {
    let n = match GROUPS[(mode / 3) as usize] {
        0 => block,
        n => n as usize,
    };
    let mut out = Vec::with_capacity(input.len());
    for group in input.chunks(n) {
        let total = group
            .iter()
            .copied()
            .fold(op.identity(), |a, b| op.combine(a, b));
        let mut running = op.identity();
        for &v in group {
            let before = running;
            running = op.combine(running, v);
            out.push(match mode % 3 {
                0 => total,
                1 => running,
                _ => before,
            });
        }
    }
    out
}

/// Runs `kernel` with `mode` over `input` in blocks of `block` threads.
pub fn run<T: Copy, K: Kernel>(
    target: &Target,
    kernel: K,
    input: &[T],
    mode: u32,
    block: u32,
) -> Result<Vec<T>, Error>
where
    for<'a, 'b, 'c, 'd> (&'a CudaView<'b, T>, u32, &'c mut CudaViewMut<'d, T>):
        KernelArgs<K::Params>,
    for<'a, 'b> (&'a [T], u32, &'b mut [T]): CpuArgs<K::Params>,
{
    let size = std::mem::size_of::<T>();
    assert!(
        size.is_multiple_of(4) || size < 4,
        "element types are whole words or smaller"
    );
    // SAFETY: plain-data element types.
    let bytes = unsafe {
        std::slice::from_raw_parts(input.as_ptr() as *const u8, std::mem::size_of_val(input))
    };
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect();
    let config = LaunchConfig::new(input.len() as u32 / block, block);
    let out_words = match target {
        Target::Gpu(gpu, module) => {
            let input_dev: CudaSlice<u32> = gpu.upload(&words)?;
            let mut out = gpu.zeros::<u32>(words.len())?;
            let view = view_of::<T>(&input_dev, input.len());
            let mut out_view = view_of_mut::<T>(&mut out, input.len());
            module.launch(kernel, config, (&view, mode, &mut out_view))?;
            gpu.download(&out)?
        }
        Target::Cpu(cpu) => {
            let input_host = Aligned::new(&words);
            let mut out = Aligned::new(&vec![0; words.len()]);
            cpu.launch(
                kernel,
                config,
                (
                    &input_host.slice::<T>()[..input.len()],
                    mode,
                    &mut out.slice_mut::<T>()[..input.len()],
                ),
            )?;
            out.into_words()
        }
    };
    let out_bytes: Vec<u8> = out_words.iter().flat_map(|w| w.to_le_bytes()).collect();
    // SAFETY: the bytes are `input.len()` values of `T` written by the kernel.
    Ok((0..input.len())
        .map(|i| unsafe { std::ptr::read_unaligned(out_bytes.as_ptr().add(i * size) as *const T) })
        .collect())
}

fn view_of<T>(buf: &CudaSlice<u32>, len: usize) -> CudaView<'_, T> {
    // SAFETY: plain-data element types; the buffer holds at least `len`.
    unsafe { buf.transmute::<T>(len) }.expect("fits")
}

fn view_of_mut<T>(buf: &mut CudaSlice<u32>, len: usize) -> CudaViewMut<'_, T> {
    // SAFETY: as above.
    unsafe { buf.transmute_mut::<T>(len) }.expect("fits")
}

/// A test value of each element type from 64 random bits, chosen so that
/// every order of combining gives the same result (floats are small
/// integers, or ±1 for products).
pub trait TestValue: Copy + PartialEq + std::fmt::Debug {
    /// The value for `bits`.
    fn from_bits(bits: u64) -> Self;
    /// Equality, with NaN equal to NaN (an exclusive min-scan gives rank 0
    /// the identity, NaN).
    fn same(self, other: Self) -> bool {
        self == other
    }
}

macro_rules! int_values {
    ($($t:ty),*) => {$(
        impl TestValue for $t {
            fn from_bits(bits: u64) -> Self {
                (bits as u128 | ((bits as u128) << 64)) as $t
            }
        }
    )*};
}
int_values!(u8, i8, u16, i16, u32, i32, u64, i64, u128, i128, usize, isize);

impl TestValue for f32 {
    fn from_bits(bits: u64) -> Self {
        (bits % 2001) as f32 - 1000.0
    }
    fn same(self, other: Self) -> bool {
        self == other || (self.is_nan() && other.is_nan())
    }
}

impl TestValue for f64 {
    fn from_bits(bits: u64) -> Self {
        (bits % 200_001) as f64 - 100_000.0
    }
    fn same(self, other: Self) -> bool {
        self == other || (self.is_nan() && other.is_nan())
    }
}

impl TestValue for kernels::Mat2 {
    /// Shears `[[1, a], [0, 1]]` and `[[1, 0], [b, 1]]`: they do not commute,
    /// and their products (determinant 1) never collapse to zero modulo
    /// 2^32, so the order of any long product shows.
    fn from_bits(bits: u64) -> Self {
        let k = ((bits >> 1) % 6) as i32 - 3;
        let k = if k >= 0 { k + 1 } else { k };
        if bits & 1 == 0 {
            kernels::Mat2([1, k, 0, 1])
        } else {
            kernels::Mat2([1, 0, k, 1])
        }
    }
}

impl TestValue for kernels::ArgMax {
    /// Values from a small range, so that ties (and the index rule) occur.
    fn from_bits(bits: u64) -> Self {
        kernels::ArgMax {
            value: (bits % 50) as i32 - 25,
            index: (bits >> 32) as u32,
        }
    }
}

impl TestValue for kernels::Range {
    /// A range around a small integer (exact in any order).
    fn from_bits(bits: u64) -> Self {
        let centre = (bits % 2001) as f32 - 1000.0;
        let half = ((bits >> 16) % 10) as f32;
        kernels::Range([centre - half, centre + half])
    }
}

impl TestValue for kernels::Vec3 {
    /// Small integers: sums of up to 1024 of them are exact in any order.
    fn from_bits(bits: u64) -> Self {
        let c = |shift: u32| ((bits >> shift) % 2001) as f32 - 1000.0;
        kernels::Vec3([c(0), c(21), c(42)])
    }
}

/// ±1, for float products (any order gives the same exact result).
pub fn sign(bits: u64) -> f32 {
    if bits & 1 == 0 {
        1.0
    } else {
        -1.0
    }
}

/// Every `collectives_*` kernel as a check: given a target, values' bits,
/// a mode and a block size, `Ok(())` or a description of the first
/// difference.
pub type Check = Box<dyn Fn(&Target, &[u64], u32, u32) -> Result<(), String>>;

fn check<T: TestValue + 'static, K: Kernel + 'static, O: Operator<T> + 'static>(
    kernel: K,
    op: O,
    make: fn(u64) -> T,
) -> Check
where
    for<'a, 'b, 'c, 'd> (&'a CudaView<'b, T>, u32, &'c mut CudaViewMut<'d, T>):
        KernelArgs<K::Params>,
    for<'a, 'b> (&'a [T], u32, &'b mut [T]): CpuArgs<K::Params>,
{
    Box::new(move |target, bits, mode, block| {
        let input: Vec<T> = bits.iter().map(|&b| make(b)).collect();
        let got = run(target, kernel, &input, mode, block).map_err(|e| e.to_string())?;
        let want = expected(&input, block as usize, mode, op);
        match got.iter().zip(&want).position(|(g, w)| !g.same(*w)) {
            None => Ok(()),
            Some(i) => Err(format!(
                "{} with {} threads per block: thread {i} got {:?}, expected {:?}",
                describe(mode),
                block,
                got[i],
                want[i]
            )),
        }
    })
}

/// `(kernel name, check)` for every `collectives_*` kernel.
pub fn checks() -> Vec<(&'static str, Check)> {
    use coop::op::*;
    macro_rules! checks {
        ($($k:ident: $t:ty, $op:expr, $make:expr;)*) => {
            vec![$((stringify!($k), check::<$t, _, _>(kernels::$k, $op, $make))),*]
        };
    }
    checks! {
        collectives_u32_sum: u32, Sum, TestValue::from_bits; collectives_u32_min: u32, Min, TestValue::from_bits;
        collectives_u32_max: u32, Max, TestValue::from_bits; collectives_u32_and: u32, BitAnd, TestValue::from_bits;
        collectives_u32_or: u32, BitOr, TestValue::from_bits; collectives_u32_xor: u32, BitXor, TestValue::from_bits;
        collectives_u32_product: u32, Product, TestValue::from_bits;
        collectives_i32_sum: i32, Sum, TestValue::from_bits; collectives_i32_min: i32, Min, TestValue::from_bits;
        collectives_i32_max: i32, Max, TestValue::from_bits; collectives_i32_xor: i32, BitXor, TestValue::from_bits;
        collectives_i64_sum: i64, Sum, TestValue::from_bits; collectives_i64_min: i64, Min, TestValue::from_bits;
        collectives_i64_max: i64, Max, TestValue::from_bits; collectives_i64_and: i64, BitAnd, TestValue::from_bits;
        collectives_u64_product: u64, Product, TestValue::from_bits; collectives_u64_or: u64, BitOr, TestValue::from_bits;
        collectives_u8_sum: u8, Sum, TestValue::from_bits; collectives_i8_max: i8, Max, TestValue::from_bits;
        collectives_u16_min: u16, Min, TestValue::from_bits; collectives_i16_sum: i16, Sum, TestValue::from_bits;
        collectives_u128_sum: u128, Sum, TestValue::from_bits; collectives_i128_max: i128, Max, TestValue::from_bits;
        collectives_usize_sum: usize, Sum, TestValue::from_bits; collectives_isize_min: isize, Min, TestValue::from_bits;
        collectives_f32_sum: f32, Sum, TestValue::from_bits; collectives_f32_min: f32, Min, TestValue::from_bits;
        collectives_f32_max: f32, Max, TestValue::from_bits; collectives_f32_product: f32, Product, sign;
        collectives_f64_sum: f64, Sum, TestValue::from_bits; collectives_f64_min: f64, Min, TestValue::from_bits;
        collectives_f64_max: f64, Max, TestValue::from_bits;
        collectives_mat2_product: kernels::Mat2, kernels::MatMul, TestValue::from_bits;
        collectives_argmax: kernels::ArgMax, kernels::LargestFirst, TestValue::from_bits;
        collectives_range_hull: kernels::Range, kernels::Hull, TestValue::from_bits;
        collectives_vec3_sum: kernels::Vec3, kernels::VecSum, TestValue::from_bits;
    }
}

/// What `block_collectives_chain` computes, on the host.
pub fn chain_expected(input: &[u32], block: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(input.len());
    for chunk in input.chunks(block) {
        let mut v = chunk.to_vec();
        for round in 0..kernels::CHAIN_ROUNDS {
            let total = v.iter().fold(0u32, |a, &b| a.wrapping_add(b));
            let top = v.iter().map(|x| x.wrapping_mul(3)).max().unwrap_or(0);
            let mut prefix = 0u32;
            v = v
                .iter()
                .map(|&x| {
                    let before = prefix;
                    prefix = prefix.wrapping_add(x ^ round);
                    total.wrapping_add(before).wrapping_add(top >> 3)
                })
                .collect();
        }
        out.extend(v);
    }
    out
}

/// Runs `block_collectives_chain` on `target` and compares with the host.
pub fn check_chain(target: &Target, block: u32, blocks: u32, seed: u64) -> Result<(), String> {
    let mut rng = crate::Rng::new(seed);
    let input: Vec<u32> = (0..block * blocks).map(|_| rng.next_u64() as u32).collect();
    let config = LaunchConfig::new(blocks, block);
    let got = match target {
        Target::Gpu(gpu, module) => {
            let x = gpu.upload(&input).map_err(|e| e.to_string())?;
            let mut out = gpu.zeros::<u32>(input.len()).map_err(|e| e.to_string())?;
            module
                .launch(kernels::block_collectives_chain, config, (&x, &mut out))
                .map_err(|e| e.to_string())?;
            gpu.download(&out).map_err(|e| e.to_string())?
        }
        Target::Cpu(cpu) => {
            let mut out = vec![0u32; input.len()];
            cpu.launch(kernels::block_collectives_chain, config, (&input, &mut out))
                .map_err(|e| e.to_string())?;
            out
        }
    };
    let want = chain_expected(&input, block as usize);
    match got.iter().zip(&want).position(|(g, w)| g != w) {
        None => Ok(()),
        Some(i) => Err(format!(
            "block {block}: thread {i} got {}, expected {}",
            got[i], want[i]
        )),
    }
}
