//! The block-level kernels of `coop-test-kernels` (`block_tiles`): inputs,
//! host references and the runs the CPU backend (`tests/block_tiles.rs`)
//! and the GPU suite (`tests/gpu.rs`, beside CUB's twins in
//! `reference/block_tiles.cu`) share.
//!
//! A reference pads each tile with the kernel's fill value, sorts or
//! flags the whole tile as the block does, and keeps the valid part.

use crate::kernels::block_tiles::{self as k};
use coop::block::RadixKey;
use coop_host::{Device, Error, LaunchConfig, Program};

/// Data patterns of the cases.
#[derive(Clone, Copy, Debug)]
pub enum Pattern {
    /// Pseudo-random bits.
    Random,
    /// Every element the same.
    Equal,
    /// Already in ascending order.
    Sorted,
    /// In descending order.
    Reversed,
    /// Runs of equal elements of pseudo-random lengths 1 to 9.
    Runs,
}

/// Every pattern.
pub const PATTERNS: [Pattern; 5] = [
    Pattern::Random,
    Pattern::Equal,
    Pattern::Sorted,
    Pattern::Reversed,
    Pattern::Runs,
];

/// `n` pseudo-random 64-bit words from `seed`.
pub fn words(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

/// `n` elements of `pattern`, made from 64-bit words by `from`, ordered
/// by `key` for the sorted patterns.
fn data<T: Copy, O: Ord>(
    n: usize,
    pattern: Pattern,
    seed: u64,
    from: impl Fn(u64) -> T,
    key: impl Fn(&T) -> O,
) -> Vec<T> {
    let w = words(n, seed);
    let mut v: Vec<T> = match pattern {
        Pattern::Equal => vec![from(w.first().copied().unwrap_or(7)); n],
        Pattern::Runs => {
            let mut out = Vec::with_capacity(n);
            let mut i = 0;
            while out.len() < n {
                let len = 1 + (w[i] % 9) as usize;
                let value = from(w[(i * 7 + 3) % n]);
                out.extend(std::iter::repeat_n(value, len.min(n - out.len())));
                i += 1;
            }
            out
        }
        _ => w.iter().map(|&x| from(x)).collect(),
    };
    match pattern {
        Pattern::Sorted => v.sort_by_key(&key),
        Pattern::Reversed => {
            v.sort_by_key(&key);
            v.reverse();
        }
        _ => {}
    }
    v
}

/// Each tile of `tile` elements padded with `fill`, stably sorted by
/// `key`, and cut back to its valid length.
fn sorted_tiles<T: Copy, O: Ord>(
    input: &[T],
    tile: usize,
    fill: T,
    key: impl Fn(&T) -> O,
) -> Vec<T> {
    let mut out = Vec::with_capacity(input.len());
    for chunk in input.chunks(tile) {
        let mut padded = chunk.to_vec();
        padded.resize(tile, fill);
        padded.sort_by_key(&key);
        out.extend_from_slice(&padded[..chunk.len()]);
    }
    out
}

fn tiles(len: usize, tile: usize) -> u32 {
    len.div_ceil(tile).max(1) as u32
}

/// [`k::block_sort_u32`] of `keys`.
pub fn run_sort_u32(device: &Device, program: &Program, keys: &[u32]) -> Result<Vec<u32>, Error> {
    let (threads, items) = k::SORT_U32;
    let input = device.upload(keys)?;
    let mut out = device.zeros::<u32>(keys.len())?;
    let config = LaunchConfig::new(tiles(keys.len(), threads as usize * items), threads);
    program.launch(k::block_sort_u32, config, (&input, &mut out))?;
    device.download(&out)
}

/// [`k::block_sort_warp_striped_u32`] of `keys`.
pub fn run_sort_warp_striped_u32(
    device: &Device,
    program: &Program,
    keys: &[u32],
) -> Result<Vec<u32>, Error> {
    let (threads, items) = k::SORT_U32;
    let input = device.upload(keys)?;
    let mut out = device.zeros::<u32>(keys.len())?;
    let config = LaunchConfig::new(tiles(keys.len(), threads as usize * items), threads);
    program.launch(k::block_sort_warp_striped_u32, config, (&input, &mut out))?;
    device.download(&out)
}

/// The host's [`k::block_sort_u32`] (and [`k::block_sort_warp_striped_u32`]).
pub fn sort_u32_reference(keys: &[u32]) -> Vec<u32> {
    sorted_tiles(keys, 512, u32::MAX, |&k| k)
}

/// [`k::block_sort_pairs_f32`] of `keys`: the sorted keys and their
/// indices.
pub fn run_pairs_f32(
    device: &Device,
    program: &Program,
    keys: &[f32],
) -> Result<(Vec<f32>, Vec<u32>), Error> {
    let (threads, items) = k::PAIRS_F32;
    let input = device.upload(keys)?;
    let mut keys_out = device.zeros::<f32>(keys.len())?;
    let mut indices = device.zeros::<u32>(keys.len())?;
    let config = LaunchConfig::new(tiles(keys.len(), threads as usize * items), threads);
    program.launch(
        k::block_sort_pairs_f32,
        config,
        (&input, &mut keys_out, &mut indices),
    )?;
    Ok((device.download(&keys_out)?, device.download(&indices)?))
}

/// The host's [`k::block_sort_pairs_f32`]: keys as bits (NaNs compare by
/// them) and indices.
pub fn pairs_f32_reference(keys: &[f32]) -> (Vec<u32>, Vec<u32>) {
    let fill = (f32::from_bits(u32::MAX), u32::MAX);
    let pairs: Vec<(f32, u32)> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| (k, i as u32))
        .collect();
    let sorted = sorted_tiles(&pairs, 512, fill, |p| std::cmp::Reverse(p.0.ordered(0)));
    (
        sorted.iter().map(|p| p.0.to_bits()).collect(),
        sorted.iter().map(|p| p.1).collect(),
    )
}

/// [`k::block_sort_i64_bits`] of `keys` by bits `begin..end`.
pub fn run_i64_bits(
    device: &Device,
    program: &Program,
    keys: &[i64],
    begin: u32,
    end: u32,
) -> Result<Vec<i64>, Error> {
    let (threads, items) = k::BITS_I64;
    let input = device.upload(keys)?;
    let mut out = device.zeros::<i64>(keys.len())?;
    let config = LaunchConfig::new(tiles(keys.len(), threads as usize * items), threads)
        .with_shared_memory((threads as usize * items * 8) as u32);
    program.launch(
        k::block_sort_i64_bits,
        config,
        (&input, &mut out, begin, end),
    )?;
    device.download(&out)
}

/// The host's [`k::block_sort_i64_bits`].
pub fn i64_bits_reference(keys: &[i64], begin: u32, end: u32) -> Vec<i64> {
    let width = end - begin;
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    sorted_tiles(keys, 192, i64::MAX, |k| {
        if width == 0 {
            0
        } else {
            (k.ordered(0) >> begin) & mask
        }
    })
}

/// [`k::block_sort_u8`] of `keys`.
pub fn run_sort_u8(device: &Device, program: &Program, keys: &[u8]) -> Result<Vec<u8>, Error> {
    let (threads, items) = k::SORT_U8;
    let input = device.upload(keys)?;
    let mut out = device.zeros::<u8>(keys.len())?;
    let config = LaunchConfig::new(tiles(keys.len(), threads as usize * items), threads);
    program.launch(k::block_sort_u8, config, (&input, &mut out))?;
    device.download(&out)
}

/// The host's [`k::block_sort_u8`].
pub fn sort_u8_reference(keys: &[u8]) -> Vec<u8> {
    sorted_tiles(keys, 512, u8::MAX, |&k| k)
}

/// [`k::block_merge_sort_i32`] of `keys`.
pub fn run_merge_i32(device: &Device, program: &Program, keys: &[i32]) -> Result<Vec<i32>, Error> {
    let (threads, items) = k::MERGE_I32;
    let input = device.upload(keys)?;
    let mut out = device.zeros::<i32>(keys.len())?;
    let config = LaunchConfig::new(tiles(keys.len(), threads as usize * items), threads);
    program.launch(k::block_merge_sort_i32, config, (&input, &mut out))?;
    device.download(&out)
}

/// The host's [`k::block_merge_sort_i32`]: each tile's valid keys,
/// descending.
pub fn merge_i32_reference(keys: &[i32]) -> Vec<i32> {
    keys.chunks(512)
        .flat_map(|tile| {
            let mut tile = tile.to_vec();
            tile.sort_by(|a, b| b.cmp(a));
            tile
        })
        .collect()
}

/// [`k::block_merge_sort_pairs_u64`] of `keys`: the sorted keys and their
/// indices.
pub fn run_merge_pairs_u64(
    device: &Device,
    program: &Program,
    keys: &[u64],
) -> Result<(Vec<u64>, Vec<u32>), Error> {
    let (threads, items) = k::MERGE_PAIRS_U64;
    let input = device.upload(keys)?;
    let mut keys_out = device.zeros::<u64>(keys.len())?;
    let mut indices = device.zeros::<u32>(keys.len())?;
    let config = LaunchConfig::new(tiles(keys.len(), threads as usize * items), threads);
    program.launch(
        k::block_merge_sort_pairs_u64,
        config,
        (&input, &mut keys_out, &mut indices),
    )?;
    Ok((device.download(&keys_out)?, device.download(&indices)?))
}

/// The host's [`k::block_merge_sort_pairs_u64`]: each tile stably sorted
/// by the keys' low 16 bits, with the indices.
pub fn merge_pairs_u64_reference(keys: &[u64]) -> (Vec<u64>, Vec<u32>) {
    let mut index: Vec<u32> = (0..keys.len() as u32).collect();
    for tile in index.chunks_mut(320) {
        tile.sort_by_key(|&i| keys[i as usize] & 0xffff);
    }
    (index.iter().map(|&i| keys[i as usize]).collect(), index)
}

/// [`k::block_flags_u32`] of `keys` (whole tiles): heads and tails.
pub fn run_flags_u32(
    device: &Device,
    program: &Program,
    keys: &[u32],
) -> Result<(Vec<u32>, Vec<u32>), Error> {
    run_flags_with(device, program, k::block_flags_u32, keys)
}

/// `kernel` ([`k::block_flags_u32`] or [`k::block_flags_apart_u32`]) of
/// `keys` (whole tiles): heads and tails.
fn run_flags_with<K>(
    device: &Device,
    program: &Program,
    kernel: K,
    keys: &[u32],
) -> Result<(Vec<u32>, Vec<u32>), Error>
where
    K: coop::Kernel<
        Params = (
            coop::kernel::params::Slice<u32>,
            coop::kernel::params::OutSlice<u32>,
            coop::kernel::params::OutSlice<u32>,
        ),
    >,
{
    let (threads, items) = k::FLAGS_U32;
    let input = device.upload(keys)?;
    let mut heads = device.zeros::<u32>(keys.len())?;
    let mut tails = device.zeros::<u32>(keys.len())?;
    let config = LaunchConfig::new(tiles(keys.len(), threads as usize * items), threads);
    program.launch(kernel, config, (&input, &mut heads, &mut tails))?;
    Ok((device.download(&heads)?, device.download(&tails)?))
}

/// The host's [`k::block_flags_u32`]: the tiles' neighbours are the
/// input's, so these are the whole input's heads and tails.
pub fn flags_u32_reference(keys: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let n = keys.len();
    let heads = (0..n)
        .map(|i| u32::from(i == 0 || keys[i - 1] != keys[i]))
        .collect();
    let tails = (0..n)
        .map(|i| u32::from(i + 1 == n || keys[i] != keys[i + 1]))
        .collect();
    (heads, tails)
}

/// [`k::block_differences_i32`] of `values` (whole tiles): left and right.
pub fn run_differences_i32(
    device: &Device,
    program: &Program,
    values: &[i32],
) -> Result<(Vec<i32>, Vec<i32>), Error> {
    let (threads, items) = k::DIFFERENCES_I32;
    let input = device.upload(values)?;
    let mut left = device.zeros::<i32>(values.len())?;
    let mut right = device.zeros::<i32>(values.len())?;
    let config = LaunchConfig::new(tiles(values.len(), threads as usize * items), threads);
    program.launch(
        k::block_differences_i32,
        config,
        (&input, &mut left, &mut right),
    )?;
    Ok((device.download(&left)?, device.download(&right)?))
}

/// The host's [`k::block_differences_i32`].
pub fn differences_i32_reference(v: &[i32]) -> (Vec<i32>, Vec<i32>) {
    let n = v.len();
    let left = (0..n)
        .map(|i| {
            if i == 0 {
                v[0]
            } else {
                v[i].wrapping_sub(v[i - 1])
            }
        })
        .collect();
    let right = (0..n)
        .map(|i| {
            if i + 1 == n {
                v[i]
            } else {
                v[i].wrapping_sub(v[i + 1])
            }
        })
        .collect();
    (left, right)
}

/// [`k::block_histogram_u8`] of `samples`: 256 counts a tile.
pub fn run_histogram_u8(
    device: &Device,
    program: &Program,
    samples: &[u8],
) -> Result<Vec<u32>, Error> {
    let (threads, items) = k::HISTOGRAM_U8;
    let blocks = tiles(samples.len(), threads as usize * items);
    let input = device.upload(samples)?;
    let mut counts = device.zeros::<u32>(blocks as usize * 256)?;
    let config = LaunchConfig::new(blocks, threads);
    program.launch(k::block_histogram_u8, config, (&input, &mut counts))?;
    device.download(&counts)
}

/// The host's [`k::block_histogram_u8`].
pub fn histogram_u8_reference(samples: &[u8]) -> Vec<u32> {
    let blocks = tiles(samples.len(), 1024) as usize;
    let mut counts = vec![0u32; blocks * 256];
    for (b, chunk) in samples.chunks(1024).enumerate() {
        for &s in chunk {
            counts[b * 256 + s as usize] += 1;
        }
    }
    counts
}

/// [`k::block_histogram_u16`] of `samples`: 1000 counts a block of 4
/// tiles.
pub fn run_histogram_u16(
    device: &Device,
    program: &Program,
    samples: &[u16],
) -> Result<Vec<u32>, Error> {
    let (threads, items, per_block) = k::HISTOGRAM_U16;
    let blocks = tiles(samples.len(), threads as usize * items * per_block);
    let input = device.upload(samples)?;
    let mut counts = device.zeros::<u32>(blocks as usize * k::HISTOGRAM_U16_BINS)?;
    let config = LaunchConfig::new(blocks, threads);
    program.launch(k::block_histogram_u16, config, (&input, &mut counts))?;
    device.download(&counts)
}

/// The host's [`k::block_histogram_u16`].
pub fn histogram_u16_reference(samples: &[u16]) -> Vec<u32> {
    let bins = k::HISTOGRAM_U16_BINS;
    let blocks = tiles(samples.len(), 1024) as usize;
    let mut counts = vec![0u32; blocks * bins];
    for (b, chunk) in samples.chunks(1024).enumerate() {
        for &s in chunk {
            counts[b * bins + s as usize % bins] += 1;
        }
    }
    counts
}

/// [`k::block_flags_partial_u32`] of `keys`: heads and tails.
pub fn run_flags_partial_u32(
    device: &Device,
    program: &Program,
    keys: &[u32],
) -> Result<(Vec<u32>, Vec<u32>), Error> {
    let (threads, items) = k::FLAGS_PARTIAL_U32;
    let input = device.upload(keys)?;
    let mut heads = device.zeros::<u32>(keys.len())?;
    let mut tails = device.zeros::<u32>(keys.len())?;
    let config = LaunchConfig::new(tiles(keys.len(), threads as usize * items), threads);
    program.launch(
        k::block_flags_partial_u32,
        config,
        (&input, &mut heads, &mut tails),
    )?;
    Ok((device.download(&heads)?, device.download(&tails)?))
}

/// The host's [`k::block_flags_partial_u32`]: the input's heads, and
/// tails where each tile's last key is one.
pub fn flags_partial_u32_reference(keys: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let (heads, mut tails) = flags_u32_reference(keys);
    for end in (288..keys.len()).step_by(288) {
        tails[end - 1] = 1;
    }
    (heads, tails)
}

/// [`k::block_differences_partial_i32`] of `values`: left and right.
pub fn run_differences_partial_i32(
    device: &Device,
    program: &Program,
    values: &[i32],
) -> Result<(Vec<i32>, Vec<i32>), Error> {
    let (threads, items) = k::DIFFERENCES_PARTIAL_I32;
    let input = device.upload(values)?;
    let mut left = device.zeros::<i32>(values.len())?;
    let mut right = device.zeros::<i32>(values.len())?;
    let config = LaunchConfig::new(tiles(values.len(), threads as usize * items), threads);
    program.launch(
        k::block_differences_partial_i32,
        config,
        (&input, &mut left, &mut right),
    )?;
    Ok((device.download(&left)?, device.download(&right)?))
}

/// The host's [`k::block_differences_partial_i32`]: the whole input's
/// left differences; right ones where each tile's last value stays.
pub fn differences_partial_i32_reference(v: &[i32]) -> (Vec<i32>, Vec<i32>) {
    let (left, mut right) = differences_i32_reference(v);
    for end in (320..v.len()).step_by(320) {
        right[end - 1] = v[end - 1];
    }
    (left, right)
}

/// [`k::warp_sort_u32`] of `keys`.
pub fn run_warp_sort_u32(
    device: &Device,
    program: &Program,
    keys: &[u32],
) -> Result<Vec<u32>, Error> {
    let (threads, lanes, items) = k::WARP_SORT_U32;
    let tile = lanes as usize * items * (threads / lanes) as usize;
    let input = device.upload(keys)?;
    let mut out = device.zeros::<u32>(keys.len())?;
    let config = LaunchConfig::new(tiles(keys.len(), tile), threads);
    program.launch(k::warp_sort_u32, config, (&input, &mut out))?;
    device.download(&out)
}

/// The host's [`k::warp_sort_u32`]: each tile of 224 sorted descending.
pub fn warp_sort_u32_reference(keys: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(keys.len());
    for chunk in keys.chunks(224) {
        let mut c = chunk.to_vec();
        c.sort_by(|a, b| b.cmp(a));
        out.extend(c);
    }
    out
}

/// [`k::warp_sort_pairs_i64`] of `keys`: the sorted keys and their
/// indices.
pub fn run_warp_sort_pairs_i64(
    device: &Device,
    program: &Program,
    keys: &[i64],
) -> Result<(Vec<i64>, Vec<u32>), Error> {
    let (threads, lanes, items) = k::WARP_SORT_PAIRS_I64;
    let tile = lanes as usize * items * (threads / lanes) as usize;
    let input = device.upload(keys)?;
    let mut keys_out = device.zeros::<i64>(keys.len())?;
    let mut indices = device.zeros::<u32>(keys.len())?;
    let config = LaunchConfig::new(tiles(keys.len(), tile), threads);
    program.launch(
        k::warp_sort_pairs_i64,
        config,
        (&input, &mut keys_out, &mut indices),
    )?;
    Ok((device.download(&keys_out)?, device.download(&indices)?))
}

/// The host's [`k::warp_sort_pairs_i64`]: each tile of 64 stably sorted
/// by the low 8 bits.
pub fn warp_sort_pairs_i64_reference(keys: &[i64]) -> (Vec<i64>, Vec<u32>) {
    let mut index: Vec<u32> = Vec::with_capacity(keys.len());
    for (t, chunk) in keys.chunks(64).enumerate() {
        let mut c: Vec<u32> = (0..chunk.len() as u32)
            .map(|i| (t * 64) as u32 + i)
            .collect();
        c.sort_by_key(|&i| keys[i as usize] & 0xff);
        index.extend(c);
    }
    (index.iter().map(|&i| keys[i as usize]).collect(), index)
}

/// [`k::block_scatter_u64`] of `values` (whole tiles).
pub fn run_scatter_u64(
    device: &Device,
    program: &Program,
    values: &[u64],
) -> Result<Vec<u64>, Error> {
    let (threads, items) = k::SCATTER_U64;
    let input = device.upload(values)?;
    let mut out = device.zeros::<u64>(values.len())?;
    let config = LaunchConfig::new(tiles(values.len(), threads as usize * items), threads);
    program.launch(k::block_scatter_u64, config, (&input, &mut out))?;
    device.download(&out)
}

/// The host's [`k::block_scatter_u64`].
pub fn scatter_u64_reference(values: &[u64]) -> Vec<u64> {
    let mut out = vec![0; values.len()];
    for (t, chunk) in values.chunks(224).enumerate() {
        for (p, &v) in chunk.iter().enumerate() {
            out[t * 224 + (5 * p + 3) % 224] = v;
        }
    }
    out
}

/// [`k::block_rank_u32`] of `keys` by the digit `shift .. shift + width`.
pub fn run_rank_u32(
    device: &Device,
    program: &Program,
    keys: &[u32],
    shift: u32,
    width: u32,
    descending: bool,
) -> Result<Vec<u32>, Error> {
    let (threads, items) = k::RANK_U32;
    let input = device.upload(keys)?;
    let mut out = device.zeros::<u32>(keys.len())?;
    let config = LaunchConfig::new(tiles(keys.len(), threads as usize * items), threads);
    program.launch(
        k::block_rank_u32,
        config,
        (&input, &mut out, shift, width, u32::from(descending)),
    )?;
    device.download(&out)
}

/// The host's [`k::block_rank_u32`].
pub fn rank_u32_reference(keys: &[u32], shift: u32, width: u32, descending: bool) -> Vec<u32> {
    let mut out = Vec::with_capacity(keys.len());
    for chunk in keys.chunks(512) {
        let mut padded = chunk.to_vec();
        padded.resize(512, u32::MAX);
        let digit = |k: u32| {
            let d = (k >> shift) & ((1 << width) - 1);
            if descending {
                (1 << width) - 1 - d
            } else {
                d
            }
        };
        let mut order: Vec<usize> = (0..512).collect();
        order.sort_by_key(|&i| digit(padded[i]));
        let mut rank = vec![0u32; 512];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r as u32;
        }
        out.extend_from_slice(&rank[..chunk.len()]);
    }
    out
}

/// Float keys of `pattern`: finite values from the words, and with
/// `specials` some infinities, NaNs of both signs and `-0.0`/`0.0`.
pub fn f32_keys(n: usize, pattern: Pattern, seed: u64, specials: bool) -> Vec<f32> {
    let mut v = data(
        n,
        pattern,
        seed,
        |w| ((w >> 40) as i32 - (1 << 23)) as f32 * 0.25,
        |f: &f32| f.ordered(0),
    );
    if specials {
        let extra = [
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            -0.0,
            0.0,
            f32::from_bits(u32::MAX),
        ];
        for (i, w) in words(n / 7, seed ^ 5).into_iter().enumerate() {
            v[(w % n as u64) as usize] = extra[i % extra.len()];
        }
    }
    v
}

/// Runs a `block_copy_vectorized_*` kernel over `input[offset..]` into an
/// output of `shift` zeros and then room for the copy, in blocks of 64
/// threads of `items` elements each; whether the output is the zeros and
/// then the copy.
fn copy_vectorized<T, K>(
    device: &Device,
    program: &Program,
    kernel: K,
    input: &[T],
    offset: usize,
    shift: usize,
    items: usize,
) -> Result<bool, Error>
where
    T: coop::DeviceCopy + Default + PartialEq + Copy,
    K: coop::Kernel<
        Params = (
            coop::kernel::params::Slice<T>,
            coop::kernel::params::Value<u32>,
            coop::kernel::params::Value<u32>,
            coop::kernel::params::OutSlice<T>,
        ),
    >,
{
    let body = &input[offset..];
    let blocks = body.len().div_ceil(64 * items).max(1) as u32;
    let data = device.upload(input)?;
    let mut out = device.zeros::<T>(shift + body.len())?;
    program.launch(
        kernel,
        LaunchConfig::new(blocks, 64),
        (&data, offset as u32, shift as u32, &mut out),
    )?;
    let got = device.download(&out)?;
    let mut want = vec![T::default(); shift];
    want.extend_from_slice(body);
    Ok(got == want)
}

/// Runs every case of every kernel on `device`, checking each against the
/// host; `specials` adds float specials (`-0.0`, NaNs) to the float keys,
/// and `ranks` runs [`k::block_rank_u32`] and [`k::block_flags_apart_u32`]
/// too (CUB's twins have no ranking kernel, and flag heads and tails
/// together). Returns the number of cases. With `limit`, each case
/// runs under a watchdog of that length.
pub fn check_all(
    device: &Device,
    program: &Program,
    specials: bool,
    ranks: bool,
    limit: Option<std::time::Duration>,
) -> usize {
    let watch = &|what: String| limit.map(|l| crate::watchdog::watch(what, l));
    let mut cases = 0;
    let mut case = |what: String, run: &mut dyn FnMut() -> bool| {
        let _w = watch(what.clone());
        assert!(run(), "{what}: differs from the host");
        cases += 1;
    };
    // Vectorized copies: aligned and offset views on both sides, whole and
    // partial tiles (blocks of 64).
    for n in [1usize, 511, 512, 513, 2000] {
        for (offset, shift) in [(0usize, 0usize), (1, 0), (0, 1), (4, 4), (2, 6)] {
            if offset > n {
                continue;
            }
            case(
                format!("block_copy_vectorized_u32 {n} +{offset} -> +{shift}"),
                &mut || {
                    let input: Vec<u32> = (0..n as u32)
                        .map(|i| i.wrapping_mul(2_654_435_761))
                        .collect();
                    copy_vectorized(
                        device,
                        program,
                        k::block_copy_vectorized_u32,
                        &input,
                        offset,
                        shift,
                        8,
                    )
                    .unwrap()
                },
            );
            case(
                format!("block_copy_vectorized_i64 {n} +{offset} -> +{shift}"),
                &mut || {
                    let input: Vec<i64> = (0..n as i64).map(|i| i * -7_000_000_019).collect();
                    copy_vectorized(
                        device,
                        program,
                        k::block_copy_vectorized_i64,
                        &input,
                        offset,
                        shift,
                        6,
                    )
                    .unwrap()
                },
            );
            case(
                format!("block_copy_vectorized_f32x3 {n} +{offset} -> +{shift}"),
                &mut || {
                    let input: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 3.0).collect();
                    copy_vectorized(
                        device,
                        program,
                        k::block_copy_vectorized_f32x3,
                        &input,
                        offset,
                        shift,
                        3,
                    )
                    .unwrap()
                },
            );
        }
    }
    for (p, &pattern) in PATTERNS.iter().enumerate() {
        let seed = 11 + p as u64;
        for n in [1, 511, 512, 513, 2000] {
            let keys = data(n, pattern, seed, |w| (w >> 20) as u32, |&k| k);
            case(format!("block_sort_u32 {n} {pattern:?}"), &mut || {
                run_sort_u32(device, program, &keys).unwrap() == sort_u32_reference(&keys)
            });
            case(
                format!("block_sort_warp_striped_u32 {n} {pattern:?}"),
                &mut || {
                    run_sort_warp_striped_u32(device, program, &keys).unwrap()
                        == sort_u32_reference(&keys)
                },
            );
            let keys = data(n, pattern, seed, |w| (w >> 13) as u8 % 37, |&k| k);
            case(format!("block_sort_u8 {n} {pattern:?}"), &mut || {
                run_sort_u8(device, program, &keys).unwrap() == sort_u8_reference(&keys)
            });
            let keys = f32_keys(n, pattern, seed, specials);
            case(format!("block_sort_pairs_f32 {n} {pattern:?}"), &mut || {
                let (k, i) = run_pairs_f32(device, program, &keys).unwrap();
                let bits: Vec<u32> = k.iter().map(|f| f.to_bits()).collect();
                (bits, i) == pairs_f32_reference(&keys)
            });
        }
        for n in [1, 2, 511, 512, 513, 1700] {
            let keys = data(n, pattern, seed, |w| (w >> 40) as i32 - (1 << 23), |&k| k);
            case(format!("block_merge_sort_i32 {n} {pattern:?}"), &mut || {
                run_merge_i32(device, program, &keys).unwrap() == merge_i32_reference(&keys)
            });
        }
        for n in [1, 319, 320, 321, 1000] {
            // Low 16 bits from few values: many ties, which keep their order.
            let keys = data(
                n,
                pattern,
                seed,
                |w| (w & !0xffff) | ((w >> 20) % 7),
                |&k| k,
            );
            case(
                format!("block_merge_sort_pairs_u64 {n} {pattern:?}"),
                &mut || {
                    run_merge_pairs_u64(device, program, &keys).unwrap()
                        == merge_pairs_u64_reference(&keys)
                },
            );
        }
        for n in [1, 191, 192, 193, 1000] {
            let keys = data(n, pattern, seed, |w| w as i64 >> (w % 40), |&k| k);
            for (begin, end) in [(0, 64), (0, 13), (20, 31), (60, 64), (5, 5)] {
                case(
                    format!("block_sort_i64_bits {n} {pattern:?} {begin}..{end}"),
                    &mut || {
                        run_i64_bits(device, program, &keys, begin, end).unwrap()
                            == i64_bits_reference(&keys, begin, end)
                    },
                );
            }
        }
        for n in [288, 864] {
            let keys = data(n, pattern, seed, |w| (w % 5) as u32, |&k| k);
            case(format!("block_flags_u32 {n} {pattern:?}"), &mut || {
                run_flags_u32(device, program, &keys).unwrap() == flags_u32_reference(&keys)
            });
            if ranks {
                case(
                    format!("block_flags_apart_u32 {n} {pattern:?}"),
                    &mut || {
                        run_flags_with(device, program, k::block_flags_apart_u32, &keys).unwrap()
                            == flags_u32_reference(&keys)
                    },
                );
            }
        }
        for n in [320, 960] {
            let values = data(n, pattern, seed, |w| w as i32, |&k| k);
            case(
                format!("block_differences_i32 {n} {pattern:?}"),
                &mut || {
                    run_differences_i32(device, program, &values).unwrap()
                        == differences_i32_reference(&values)
                },
            );
        }
        for n in [1, 287, 288, 289, 1000] {
            let keys = data(n, pattern, seed, |w| (w % 5) as u32, |&k| k);
            case(
                format!("block_flags_partial_u32 {n} {pattern:?}"),
                &mut || {
                    run_flags_partial_u32(device, program, &keys).unwrap()
                        == flags_partial_u32_reference(&keys)
                },
            );
            let values = data(n, pattern, seed, |w| w as i32, |&k| k);
            case(
                format!("block_differences_partial_i32 {n} {pattern:?}"),
                &mut || {
                    run_differences_partial_i32(device, program, &values).unwrap()
                        == differences_partial_i32_reference(&values)
                },
            );
        }
        for n in [1, 1023, 1024, 1025, 5000] {
            let samples = data(n, pattern, seed, |w| (w >> 20) as u8, |&k| k);
            case(format!("block_histogram_u8 {n} {pattern:?}"), &mut || {
                run_histogram_u8(device, program, &samples).unwrap()
                    == histogram_u8_reference(&samples)
            });
            let samples = data(n, pattern, seed, |w| (w >> 30) as u16, |&k| k);
            case(format!("block_histogram_u16 {n} {pattern:?}"), &mut || {
                run_histogram_u16(device, program, &samples).unwrap()
                    == histogram_u16_reference(&samples)
            });
        }
        for n in [1, 2, 223, 224, 225, 1000] {
            let keys = data(n, pattern, seed, |w| (w >> 40) as u32 % 5000, |&k| k);
            case(format!("warp_sort_u32 {n} {pattern:?}"), &mut || {
                run_warp_sort_u32(device, program, &keys).unwrap() == warp_sort_u32_reference(&keys)
            });
        }
        for n in [1, 63, 64, 65, 300] {
            // Keys equal in their low 8 bits, with other bits apart: ties
            // whose order shows.
            let keys = data(n, pattern, seed, |w| (w >> 3) as i64 & !0xf8, |&k| k);
            case(format!("warp_sort_pairs_i64 {n} {pattern:?}"), &mut || {
                run_warp_sort_pairs_i64(device, program, &keys).unwrap()
                    == warp_sort_pairs_i64_reference(&keys)
            });
        }
        for n in [224, 672] {
            let values = data(n, pattern, seed, |w| w, |&k| k);
            case(format!("block_scatter_u64 {n} {pattern:?}"), &mut || {
                run_scatter_u64(device, program, &values).unwrap() == scatter_u64_reference(&values)
            });
        }
        for n in [1, 512, 700] {
            if !ranks {
                break;
            }
            let keys = data(n, pattern, seed, |w| (w >> 32) as u32, |&k| k);
            for (shift, width, descending) in
                [(0, 4, false), (28, 4, true), (5, 3, false), (31, 1, true)]
            {
                case(
                    format!(
                        "block_rank_u32 {n} {pattern:?} {shift}+{width} descending {descending}"
                    ),
                    &mut || {
                        run_rank_u32(device, program, &keys, shift, width, descending).unwrap()
                            == rank_u32_reference(&keys, shift, width, descending)
                    },
                );
            }
        }
    }
    cases
}
