//! The atomics examples: the 256-bin byte histogram and stream
//! compaction, against host references.

use crate::kernels::histogram::{compact_odd, histogram_256};
use coop_host::{Device, Error, LaunchConfig, Program};

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

/// The histogram of `input` on `device` (`blocks` of `threads`), and the
/// host's.
pub fn run_histogram(
    device: &Device,
    program: &Program,
    input: &[u8],
    blocks: u32,
    threads: u32,
) -> Result<(Vec<u32>, Vec<u32>), Error> {
    let data = device.upload(input)?;
    let mut hist = device.zeros::<u32>(256)?;
    program.launch(
        histogram_256,
        LaunchConfig::new(blocks, threads),
        (&data, &mut hist),
    )?;
    let mut want = vec![0u32; 256];
    for &b in input {
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
