//! The atomics examples: the 256-bin byte histogram and stream
//! compaction, against host references.

use crate::kernels::histogram::{
    compact_odd, histogram_256, histogram_256_bytewise, histogram_256_copies4,
    histogram_256_one_set, histogram_256_per_warp, histogram_256_runs,
    histogram_256_warp_aggregated,
};
use coop_host::{Buffer, Device, Error, LaunchConfig, Program};

/// `n` bytes: uniform (a hash of the index) or skewed (three quarters
/// one value, the rest uniform).
pub fn histogram_input(n: usize, skewed: bool) -> Vec<u8> {
    (0..n as u64)
        .map(|i| {
            let h = (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 29) as u8;
            if skewed && i % 4 != 0 {
                7
            } else {
                h
            }
        })
        .collect()
}

/// The histogram kernels: the one to use, and those it was measured
/// against.
pub const HISTOGRAM_VARIANTS: [&str; 7] = [
    "histogram_256",
    "runs",
    "one-set",
    "per-warp",
    "copies4",
    "warp-aggregated",
    "bytewise",
];

/// The histogram of `input[offset..]` on `device` (`blocks` of
/// `threads`) by the kernel `variant` names (one of
/// [`HISTOGRAM_VARIANTS`]), and the host's. The input is uploaded whole
/// and the kernel reads it from `offset` on, so that an offset that is not
/// a multiple of 16 gives the kernel an unaligned head.
pub fn run_histogram(
    device: &Device,
    program: &Program,
    variant: &str,
    input: &[u8],
    offset: usize,
    blocks: u32,
    threads: u32,
) -> Result<(Vec<u32>, Vec<u32>), Error> {
    let data = device.upload(input)?;
    let mut hist = device.zeros::<u32>(256)?;
    let cfg = LaunchConfig::new(blocks, threads);
    macro_rules! launch {
        ($kernel:expr) => {
            match (program, &data, &mut hist) {
                (Program::Gpu(module), Buffer::Gpu(d), Buffer::Gpu(h)) => {
                    module.launch($kernel, cfg, (&d.slice(offset..), h))?
                }
                (Program::Cpu(cpu), Buffer::Cpu(d), Buffer::Cpu(h)) => {
                    cpu.launch($kernel, cfg, (&d[offset..], h)).map(drop)?
                }
                _ => unreachable!("the buffers come from the program's device"),
            }
        };
    }
    match variant {
        "warp-aggregated" => launch!(histogram_256_warp_aggregated),
        "bytewise" => launch!(histogram_256_bytewise),
        "per-warp" => launch!(histogram_256_per_warp),
        "copies4" => launch!(histogram_256_copies4),
        "one-set" => launch!(histogram_256_one_set),
        "runs" => launch!(histogram_256_runs),
        _ => launch!(histogram_256),
    }
    let mut want = vec![0u32; 256];
    for &b in &input[offset..] {
        want[b as usize] += 1;
    }
    Ok((device.download(&hist)?, want))
}

/// Compacts the odd values of `input` on `device`; returns what was kept
/// (sorted) and the host's selection.
pub fn run_compaction(
    device: &Device,
    program: &Program,
    input: &[u32],
    blocks: u32,
    threads: u32,
) -> Result<(Vec<u32>, Vec<u32>), Error> {
    let data = device.upload(input)?;
    let mut out = device.zeros::<u32>(input.len())?;
    let mut count = device.zeros::<u32>(1)?;
    program.launch(
        compact_odd,
        LaunchConfig::new(blocks, threads),
        (&data, &mut out, &mut count),
    )?;
    let n = device.download(&count)?[0] as usize;
    let mut got = device.download(&out)?;
    got.truncate(n);
    got.sort_unstable();
    let want: Vec<u32> = input.iter().copied().filter(|v| v % 2 == 1).collect();
    let mut want_sorted = want;
    want_sorted.sort_unstable();
    Ok((got, want_sorted))
}
