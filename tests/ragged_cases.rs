//! The ragged-tile kernels of `coop-test-kernels` (`ragged`): host
//! references and the checks the CPU backend (`tests/ragged_tiles.rs`) and
//! the GPU suite (`tests/gpu.rs`) share.

use crate::kernels::ragged::{self as k, RAGGED_FIELDS};
use coop_host::{Device, Dim3, Error, LaunchConfig, Program};

/// Block shapes the checks run: sizes that are and are not multiples of 8
/// and 32, a block of one thread, and a 2-D block of 120.
pub const SHAPES: [(u32, u32); 8] = [
    (120, 1),
    (100, 1),
    (37, 1),
    (64, 1),
    (33, 1),
    (1, 1),
    (12, 10),
    (1000, 1),
];

/// The input of thread `g`: odd and even, some multiples of 7, never 0.
pub fn input(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 20) + 1)
        .collect()
}

/// The host's rows (see [`RAGGED_FIELDS`]) for blocks of `block` threads
/// cut in tiles of `tile`.
pub fn reference(input: &[u32], block: usize, tile: usize) -> Vec<u32> {
    let mut out = vec![0u32; RAGGED_FIELDS * input.len()];
    for (g, row) in out.chunks_mut(RAGGED_FIELDS).enumerate() {
        let rank = g % block;
        let first = rank - rank % tile;
        let size = tile.min(block - first);
        let start = g - (rank - first);
        let members = &input[start..start + size];
        let r = rank - first;
        let v = input[g];
        let at = |k: usize| members[k];
        row[0] = size as u32;
        row[1] = r as u32;
        row[2] = (1000 * (rank / tile) + block.div_ceil(tile)) as u32;
        row[3] = members.iter().fold(0u32, |a, &x| a.wrapping_add(x));
        row[4] = members.iter().map(|&x| 3 * x as u64).sum::<u64>() as u32;
        row[5] = members[..=r].iter().fold(0u32, |a, &x| a.wrapping_add(x));
        row[6] = members[..r].iter().copied().max().unwrap_or(0);
        row[7] = at((r + 3) % size);
        row[8] = if r >= 2 { at(r - 2) } else { v };
        row[9] = if r + 3 < size { at(r + 3) } else { v };
        // Both tile sizes are above 5, so the partner is rank `r ^ 5`.
        let partner = r ^ 5;
        row[10] = if partner < size { at(partner) } else { v };
        row[11] = members
            .iter()
            .enumerate()
            .filter(|(_, &x)| x % 2 == 1)
            .fold(0u32, |b, (k, _)| b | 1 << k);
        row[12] =
            members.iter().any(|&x| x % 7 == 0) as u32 + 2 * members.iter().all(|&x| x > 0) as u32;
        row[13] = members.iter().filter(|&&x| x % 2 == v % 2).count() as u32;
        row[14] = members[..r].iter().map(|&x| x as u64).sum::<u64>() as u32;
    }
    out
}

/// Runs both ragged kernels on every shape of [`SHAPES`] (3 blocks each)
/// on `device` and checks them against the host. Returns the cases run.
pub fn check_all(device: &Device, program: &Program) -> Result<usize, Error> {
    let mut cases = 0;
    for (x, y) in SHAPES {
        let block = (x * y) as usize;
        let n = 3 * block;
        let data = input(n);
        let input = device.upload(&data)?;
        for tile in [32usize, 8] {
            let mut out = device.zeros::<u32>(RAGGED_FIELDS * n)?;
            let config = LaunchConfig::new(3, Dim3::new(x, y, 1));
            if tile == 32 {
                program.launch(k::ragged_warps, config, (&input, &mut out))?;
            } else {
                program.launch(k::ragged_eights, config, (&input, &mut out))?;
            }
            let got = device.download(&out)?;
            let want = reference(&data, block, tile);
            for (g, (a, b)) in got
                .chunks(RAGGED_FIELDS)
                .zip(want.chunks(RAGGED_FIELDS))
                .enumerate()
            {
                assert_eq!(
                    a, b,
                    "tiles of {tile}, block ({x}, {y}), thread {g} (rank {}): got the left row, want the right",
                    g % block
                );
            }
            cases += 1;
        }
    }
    Ok(cases)
}
