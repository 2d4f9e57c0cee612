//! The warp functions and cooperative groups tutorial's votes and
//! shuffles, against a host reference.

use crate::kernels::warp_vote::{warp_vote, FIELDS};
use coop_host::{Device, Error, LaunchConfig, Program};

/// The input: 0 at thread 5 of every warp, 150 at thread 40 of each 64.
pub fn warp_vote_input(threads: usize) -> Vec<u32> {
    (0..threads as u32)
        .map(|i| match i % 64 {
            5 | 37 => 0,
            40 => 150,
            r => r * 3 + 1,
        })
        .collect()
}

/// What `warp_vote` writes, from CUDA's definitions of the functions.
pub fn warp_vote_reference(input: &[u32]) -> Vec<u32> {
    let mut out = vec![0u32; input.len() * FIELDS];
    for (w, warp) in input.chunks(32).enumerate() {
        let ballot = warp
            .iter()
            .enumerate()
            .filter(|&(_, &v)| v > 0)
            .fold(0u32, |m, (l, _)| m | 1 << l);
        let any_zero = warp.contains(&0) as u32;
        let all_small = warp.iter().all(|&v| v < 100) as u32;
        let sum = warp.iter().fold(0u32, |s, &v| s.wrapping_add(v));
        for (l, &v) in warp.iter().enumerate() {
            let o = &mut out[(w * 32 + l) * FIELDS..][..FIELDS];
            let in16 = l % 16;
            o[0] = ballot;
            o[1] = any_zero;
            o[2] = all_small;
            o[3] = warp[l - l % 8];
            o[4] = if in16 >= 2 { warp[l - 2] } else { v };
            o[5] = if in16 + 2 < 16 { warp[l + 2] } else { v };
            o[6] = warp[l ^ 1];
            o[7] = sum;
        }
    }
    out
}

/// Runs `warp_vote` over `input` (blocks of 64 threads); returns what it
/// wrote and what the reference expects.
pub fn run_warp_vote(
    device: &Device,
    program: &Program,
    input: &[u32],
) -> Result<(Vec<u32>, Vec<u32>), Error> {
    let input_dev = device.upload(input)?;
    let mut out = device.zeros::<u32>(input.len() * FIELDS)?;
    let cfg = LaunchConfig::new((input.len() / 64) as u32, 64);
    program.launch(warp_vote, cfg, (&input_dev, &mut out))?;
    Ok((device.download(&out)?, warp_vote_reference(input)))
}
