//! The split-barrier kernels of `coop-test-kernels` (`split_barriers`):
//! host references and the runs the CPU backend (`tests/split_barriers.rs`)
//! and the GPU suite (`tests/gpu.rs`, beside CUDA's twins) share.

use crate::kernels::split_barriers::{self as k, SPLIT_ROUNDS};
use coop_host::{Device, Dim3, Error, LaunchConfig, Program};

/// The input of [`k::split_rounds`] for `threads` threads in all.
pub fn rounds_input(threads: usize) -> Vec<u32> {
    (0..threads as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 7)
        .collect()
}

/// The host's `out` of [`k::split_rounds`] for blocks of `block_threads`.
pub fn rounds_reference(input: &[u32], block_threads: usize) -> Vec<u32> {
    let mut out = vec![0u32; input.len()];
    for (b, block) in input.chunks(block_threads).enumerate() {
        let n = block.len();
        for t in 0..n {
            let mine = block[t];
            let mut acc = 0u32;
            for r in 0..SPLIT_ROUNDS {
                acc = acc.wrapping_mul(31).wrapping_add(mine ^ r);
                let a = block[(t + 1) % n].wrapping_add(r);
                let c = block[(t + 33) % n].wrapping_add(r);
                acc = acc.wrapping_add(a).wrapping_add(c.rotate_left(3));
            }
            out[b * block_threads + t] = acc;
        }
    }
    out
}

/// Runs [`k::split_rounds`] of `program` on `device`: `blocks` blocks of
/// `block` threads, in clusters of `cluster` blocks when it is above 1.
pub fn run_rounds(
    device: &Device,
    program: &Program,
    blocks: u32,
    block: Dim3,
    cluster: u32,
) -> Result<Vec<u32>, Error> {
    let n = blocks as usize * block.volume() as usize;
    let input = device.upload(&rounds_input(n))?;
    let mut out = device.zeros::<u32>(n)?;
    let mut config = LaunchConfig::new(blocks, block);
    if cluster > 1 {
        config = config.with_cluster(cluster);
    }
    program.launch(k::split_rounds, config, (&input, &mut out))?;
    device.download(&out)
}

/// The host's `out` of [`k::cluster_split_rounds`].
pub fn cluster_reference(blocks: u32, threads: u32, cluster: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for b in 0..blocks {
        let rank = b % cluster;
        let partner = b - rank + (rank + 1) % cluster;
        for _ in 0..threads {
            for r in 0..2 {
                out.push(100 * partner + 10 * r + (rank + 1) % cluster);
            }
        }
    }
    out
}

/// Runs [`k::cluster_split_rounds`] of `program` on `device`.
pub fn run_cluster(
    device: &Device,
    program: &Program,
    blocks: u32,
    threads: u32,
    cluster: u32,
) -> Result<Vec<u32>, Error> {
    let mut stage = device.zeros::<u32>(2 * blocks as usize)?;
    let mut out = device.zeros::<u32>(2 * (blocks * threads) as usize)?;
    program.launch(
        k::cluster_split_rounds,
        LaunchConfig::new(blocks, threads).with_cluster(cluster),
        (&mut stage, &mut out),
    )?;
    device.download(&out)
}

/// The host's `out` of [`k::grid_split_rounds`].
pub fn grid_reference(blocks: u32, threads: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for b in 0..blocks {
        let partner = (b + 1) % blocks;
        for _ in 0..threads {
            for r in 0..2 {
                out.push(100 * partner + 10 * r);
            }
        }
    }
    out
}

/// Runs [`k::grid_split_rounds`] of `program` on `device` (a cooperative
/// launch).
pub fn run_grid(
    device: &Device,
    program: &Program,
    blocks: u32,
    threads: u32,
) -> Result<Vec<u32>, Error> {
    let mut stage = device.zeros::<u32>(2 * blocks as usize)?;
    let mut out = device.zeros::<u32>(2 * (blocks * threads) as usize)?;
    program.launch(
        k::grid_split_rounds,
        LaunchConfig::new(blocks, threads),
        (&mut stage, &mut out),
    )?;
    device.download(&out)
}

/// Grid cases: (blocks, threads).
pub const GRIDS: [(u32, u32); 3] = [(1, 64), (4, 128), (8, 96)];

/// Block shapes of the block cases: whole warps, a partial warp, a 2-D
/// block, the largest block.
pub const BLOCKS: [(u32, Dim3); 6] = [
    (3, Dim3::new(32, 1, 1)),
    (4, Dim3::new(64, 1, 1)),
    (5, Dim3::new(100, 1, 1)),
    (2, Dim3::new(8, 8, 2)),
    (6, Dim3::new(256, 1, 1)),
    (2, Dim3::new(1024, 1, 1)),
];

/// Cluster cases: (blocks, threads, cluster).
pub const CLUSTERS: [(u32, u32, u32); 3] = [(4, 64, 1), (8, 32, 2), (16, 128, 4)];

/// Every case on `device`, against the host; `clusters`: the device runs
/// launches in clusters (sm_90 GPUs and the CPU backend). Returns the
/// number of cases.
pub fn check_all(
    device: &Device,
    program: &Program,
    clusters: bool,
    limit: Option<std::time::Duration>,
) -> usize {
    let watch = &|what: String| limit.map(|l| crate::watchdog::watch(what, l));
    let mut cases = 0;
    for (blocks, block) in BLOCKS {
        let in_clusters: &[u32] = if clusters { &[1, 2] } else { &[1] };
        for &cluster in in_clusters {
            let what = format!("split_rounds {blocks} blocks of {block} in clusters of {cluster}");
            let _w = watch(what.clone());
            let blocks = blocks.next_multiple_of(cluster);
            let got = run_rounds(device, program, blocks, block, cluster)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let n = blocks as usize * block.volume() as usize;
            let expected = rounds_reference(&rounds_input(n), block.volume() as usize);
            assert!(got == expected, "{what}: differs from the host");
            cases += 1;
        }
    }
    for (blocks, threads) in GRIDS {
        let what = format!("grid_split_rounds {blocks} blocks of {threads}");
        let _w = watch(what.clone());
        let got =
            run_grid(device, program, blocks, threads).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            got == grid_reference(blocks, threads),
            "{what}: differs from the host"
        );
        cases += 1;
    }
    if clusters {
        for (blocks, threads, cluster) in CLUSTERS {
            let what = format!(
                "cluster_split_rounds {blocks} blocks of {threads} in clusters of {cluster}"
            );
            let _w = watch(what.clone());
            let got = run_cluster(device, program, blocks, threads, cluster)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(
                got == cluster_reference(blocks, threads, cluster),
                "{what}: differs from the host"
            );
            cases += 1;
        }
    }
    cases
}
