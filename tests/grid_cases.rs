//! The cooperative kernels of `coop-test-kernels` (`grids`), checked
//! against a host reference: the grid's ranks, and rounds of a stencil
//! that reads across blocks between grid syncs. The same cases run on the
//! CPU backend (`tests/cpu_backend.rs`) and on a GPU (`tests/gpu.rs`, where
//! CUDA's `cg::grid_group` twin runs beside them).

use crate::kernels::grids::{self as k, GRID_FIELDS};
use coop_host::{Device, Error, LaunchConfig, Program};

/// Both buffers of [`k::grid_steps`] after `steps` rounds from `a`, and
/// the ranks its `threads` threads of `blocks` blocks write.
#[derive(Debug, PartialEq, Eq)]
pub struct Steps {
    /// `a` at the end.
    pub a: Vec<u32>,
    /// `b` at the end.
    pub b: Vec<u32>,
    /// `GRID_FIELDS` words per thread.
    pub ranks: Vec<u32>,
}

/// The input of a case of `n` elements.
pub fn input(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect()
}

/// The host's [`k::grid_steps`].
pub fn reference(a: &[u32], steps: u32, blocks: u32, threads: u32) -> Steps {
    let n = a.len();
    let mut bufs = [a.to_vec(), vec![0u32; n]];
    for s in 0..steps as usize {
        let (src, dst) = (s % 2, 1 - s % 2);
        for i in 0..n {
            bufs[dst][i] = bufs[src][(i + n - 1) % n]
                .wrapping_add(bufs[src][i].wrapping_mul(3))
                .wrapping_add(bufs[src][(i + 1) % n]);
        }
    }
    let total = blocks * threads;
    let ranks = (0..total)
        .flat_map(|g| [g, total, g / threads, blocks, blocks, 1])
        .collect();
    let [a, b] = bufs;
    Steps { a, b, ranks }
}

/// Runs [`k::grid_steps`] of `program` on `device`.
pub fn run(
    device: &Device,
    program: &Program,
    a: &[u32],
    steps: u32,
    blocks: u32,
    threads: u32,
) -> Result<Steps, Error> {
    let mut d_a = device.upload(a)?;
    let mut d_b = device.zeros::<u32>(a.len())?;
    let mut ranks = device.zeros::<u32>(GRID_FIELDS * (blocks * threads) as usize)?;
    program.launch(
        k::grid_steps,
        LaunchConfig::new(blocks, threads),
        (steps, &mut d_a, &mut d_b, &mut ranks),
    )?;
    Ok(Steps {
        a: device.download(&d_a)?,
        b: device.download(&d_b)?,
        ranks: device.download(&ranks)?,
    })
}

/// Every case on `device`, for grids up to `max_blocks` (the most the
/// device holds at once for 128-thread blocks): the result equals the
/// host's, and one block more is refused before the launch.
pub fn check_all(device: &Device, program: &Program, max_blocks: u32) {
    for (blocks, threads, n, steps) in [
        (1, 32, 50, 3),
        (2, 64, 1000, 8),
        (3, 128, 383, 5),
        (max_blocks, 128, 3 * (max_blocks as usize * 128) + 17, 20),
    ] {
        let a = input(n);
        let got = run(device, program, &a, steps, blocks, threads)
            .unwrap_or_else(|e| panic!("grid_steps, {blocks} x {threads}: {e}"));
        let want = reference(&a, steps, blocks, threads);
        assert!(
            got == want,
            "grid_steps, {blocks} blocks of {threads}, n {n}, {steps} rounds: differs from the host"
        );
    }
    let err = run(device, program, &input(10), 1, max_blocks + 1, 128).unwrap_err();
    assert!(
        matches!(
            &err,
            Error::InvalidLaunch {
                problem: coop_host::LaunchProblem::GridNotCoResident { max, .. },
                ..
            } if *max == max_blocks as u64
        ),
        "{err}"
    );
}
