//! The cluster kernel of `coop-test-kernels` (`clusters`): a host
//! reference and the run the CPU backend (`tests/cpu_backend.rs`) and the
//! GPU suite (`tests/gpu.rs`, beside CUDA's twin) share.

use crate::kernels::clusters::{self as k, CLUSTER_FIELDS};
use coop_host::{Device, Error, LaunchConfig, Launcher, Program};

/// The host's fields for `blocks` blocks of `threads` in clusters of
/// `cluster` (1-D).
pub fn reference(blocks: u32, threads: u32, cluster: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for b in 0..blocks {
        let rank = b % cluster;
        let next = b - rank + (rank + 1) % cluster;
        for t in 0..threads {
            out.extend([
                rank,
                cluster,
                cluster,
                rank,
                rank * threads + t,
                cluster * threads,
                100 * next + (rank + 1) % cluster,
                1,
                rank * threads + t,
                cluster * threads,
            ]);
        }
    }
    out
}

/// Runs [`k::cluster_ranks`] of `program` on `device`.
pub fn run(
    device: &Device,
    program: &Program,
    blocks: u32,
    threads: u32,
    cluster: u32,
) -> Result<Vec<u32>, Error> {
    let mut stage = device.zeros::<u32>(blocks as usize)?;
    let mut out = device.zeros::<u32>(CLUSTER_FIELDS * (blocks * threads) as usize)?;
    program.launch(
        k::cluster_ranks,
        LaunchConfig::new(blocks, threads).with_cluster(cluster),
        (&mut stage, &mut out),
    )?;
    device.download(&out)
}

/// The cases: clusters of 1, 2, 4 and 8 blocks, and of 16 (sm_90's
/// non-portable size).
pub const CASES: [(u32, u32, u32); 5] = [
    (4, 64, 1),
    (8, 32, 2),
    (16, 128, 4),
    (64, 256, 8),
    (32, 64, 16),
];

/// Every case on `device`, against the host.
pub fn check_all(device: &Device, program: &Program) {
    for (blocks, threads, cluster) in CASES {
        let got = run(device, program, blocks, threads, cluster)
            .unwrap_or_else(|e| panic!("clusters of {cluster}: {e}"));
        assert!(
            got == reference(blocks, threads, cluster),
            "clusters of {cluster}: differs from the host"
        );
    }
}

/// The host's [`k::dsm_rotate`] for `blocks` blocks of 128 threads in
/// clusters of `cluster`.
pub fn dsm_rotate_reference(blocks: u32, cluster: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for b in 0..blocks {
        let rank = b % cluster;
        for r in 0..128 {
            let from = (rank + 1 + r % 3) % cluster;
            out.push(1000 * (b - rank + from) + r);
        }
    }
    out
}

/// Runs [`k::dsm_rotate`] of `program` on `device`.
pub fn run_dsm_rotate(
    device: &Device,
    program: &Program,
    blocks: u32,
    cluster: u32,
) -> Result<Vec<u32>, Error> {
    let mut out = device.zeros::<u32>(blocks as usize * 128)?;
    program.launch(
        k::dsm_rotate,
        LaunchConfig::new(blocks, 128).with_cluster(cluster),
        (&mut out,),
    )?;
    device.download(&out)
}

/// The host's [`k::dsm_histogram`]: `256 * cluster` bins.
pub fn dsm_histogram_reference(input: &[u32], cluster: u32) -> Vec<u32> {
    let mut bins = vec![0u32; 256 * cluster as usize];
    for &x in input {
        bins[(x % (256 * cluster)) as usize] += 1;
    }
    bins
}

/// Runs [`k::dsm_histogram`] of `program` on `device`.
pub fn run_dsm_histogram(
    device: &Device,
    program: &Program,
    input: &[u32],
    blocks: u32,
    cluster: u32,
) -> Result<Vec<u32>, Error> {
    let d_in = device.upload(input)?;
    let mut bins = device.zeros::<u32>(256 * cluster as usize)?;
    program.launch(
        k::dsm_histogram,
        LaunchConfig::new(blocks, 128).with_cluster(cluster),
        (&d_in, &mut bins),
    )?;
    device.download(&bins)
}

/// The host's [`k::dsm_pass_on`] for `blocks` blocks of 128 threads in
/// clusters of `cluster`: block `b` holds what the previous block of its
/// cluster wrote.
pub fn dsm_pass_on_reference(blocks: u32, cluster: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for b in 0..blocks {
        let rank = b % cluster;
        let previous = b - rank + (rank + cluster - 1) % cluster;
        out.extend((0..128).map(|r| 1000 * previous + r));
    }
    out
}

/// Runs [`k::dsm_pass_on`] of `program` on `device`.
pub fn run_dsm_pass_on(
    device: &Device,
    program: &Program,
    blocks: u32,
    cluster: u32,
) -> Result<Vec<u32>, Error> {
    let mut out = device.zeros::<u32>(blocks as usize * 128)?;
    program.launch(
        k::dsm_pass_on,
        LaunchConfig::new(blocks, 128).with_cluster(cluster),
        (&mut out,),
    )?;
    device.download(&out)
}

/// The distributed-shared-memory cases on `device`, against the host.
pub fn check_dsm(device: &Device, program: &Program) {
    for (blocks, cluster) in [(2, 1), (4, 2), (8, 4), (16, 8)] {
        let got = run_dsm_pass_on(device, program, blocks, cluster).unwrap();
        assert!(
            got == dsm_pass_on_reference(blocks, cluster),
            "dsm_pass_on, clusters of {cluster}: differs from the host"
        );
        let got = run_dsm_rotate(device, program, blocks, cluster).unwrap();
        assert!(
            got == dsm_rotate_reference(blocks, cluster),
            "dsm_rotate, clusters of {cluster}: differs from the host"
        );
        let input: Vec<u32> = (0..20_000u32)
            .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
            .collect();
        let got = run_dsm_histogram(device, program, &input, blocks, cluster).unwrap();
        assert!(
            got == dsm_histogram_reference(&input, cluster),
            "dsm_histogram, clusters of {cluster}: differs from the host"
        );
    }
}

/// The host's [`k::cluster_grid_rounds`] for `blocks` blocks in clusters
/// of `cluster` over `rounds` rounds: the sums, then each thread's last
/// value.
pub fn grid_rounds_reference(blocks: u32, cluster: u32, rounds: u32) -> (Vec<u32>, Vec<u32>) {
    let (blocks, cluster, threads) = (blocks as usize, cluster as usize, k::ROUND_THREADS);
    let clusters = blocks / cluster;
    let mut values: Vec<u32> = (0..blocks * threads)
        .map(|i| 1000 * (i / threads) as u32 + (i % threads) as u32)
        .collect();
    let mut sums = Vec::new();
    for _ in 0..rounds {
        let round: Vec<u32> = (0..clusters * threads)
            .map(|i| {
                let (c, t) = (i / threads, i % threads);
                (0..cluster)
                    .map(|p| values[(c * cluster + p) * threads + t])
                    .sum()
            })
            .collect();
        for (i, v) in values.iter_mut().enumerate() {
            let (b, t) = (i / threads, i % threads);
            let next = (b / cluster + 1) % clusters;
            *v = round[next * threads + t] + (b % cluster) as u32;
        }
        sums.extend(round);
    }
    (sums, values)
}

/// Runs [`k::cluster_grid_rounds`] (or its twin) of `program` on
/// `device`: the sums and the last values.
pub fn run_grid_rounds(
    device: &Device,
    program: Launcher<'_>,
    blocks: u32,
    cluster: u32,
    rounds: u32,
) -> Result<(Vec<u32>, Vec<u32>), Error> {
    let threads = k::ROUND_THREADS;
    let mut sums = device.zeros::<u32>((blocks / cluster * rounds) as usize * threads)?;
    let mut out = device.zeros::<u32>(blocks as usize * threads)?;
    program.launch(
        k::cluster_grid_rounds,
        LaunchConfig::new(blocks, threads as u32).with_cluster(cluster),
        (rounds, &mut sums, &mut out),
    )?;
    Ok((device.download(&sums)?, device.download(&out)?))
}

/// The cooperative launches in clusters on `device` (clusters of 1 to 8
/// blocks, up to `max_blocks` blocks), against the host; `program` is
/// coop's kernels or CUDA's twins.
pub fn check_grid_rounds(device: &Device, program: Launcher<'_>, max_blocks: u32) {
    for (blocks, cluster) in [(4, 1), (4, 2), (8, 4), (8, 8), (16, 2), (32, 4), (64, 8)] {
        if blocks > max_blocks {
            continue;
        }
        let got = run_grid_rounds(device, program, blocks, cluster, 3)
            .unwrap_or_else(|e| panic!("{blocks} blocks in clusters of {cluster}: {e}"));
        assert!(
            got == grid_rounds_reference(blocks, cluster, 3),
            "cluster_grid_rounds, {blocks} blocks in clusters of {cluster}: differs from the host"
        );
    }
}
