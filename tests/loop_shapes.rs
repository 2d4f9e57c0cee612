//! The grid-stride-loop kernels of `kernels::loop_shapes` (multi-warp
//! tiles, clusters, grid syncs, several collectives an iteration) with
//! their host references; run on the CPU backend by `user_shaped.rs` and
//! on a GPU, under compute-sanitizer too, by `gpu.rs`.

use coop_host::{Device, Error, LaunchConfig, Program};
use coop_test_kernels::loop_shapes as k;

/// A deterministic input of `n` words with small values (their sums stay
/// well inside `u32`, so that the references need not wrap).
pub fn input(n: usize) -> Vec<u32> {
    (0..n as u64)
        .map(|i| ((i.wrapping_mul(2654435761) >> 7) % 97) as u32)
        .collect()
}

/// Scans, and each tile's maximum of them, of a tile of `tile` threads in
/// blocks of `threads`, over `input`: what `tile_loop_*` stores.
pub fn tile_loop_reference(input: &[u32], tile: usize) -> (Vec<u32>, Vec<u32>) {
    let mut scans = vec![0u32; input.len()];
    let mut maxima = vec![0u32; input.len().div_ceil(tile)];
    for (t, chunk) in input.chunks(tile).enumerate() {
        let mut acc = 0u32;
        let inclusive: Vec<u32> = chunk
            .iter()
            .map(|&x| {
                acc = acc.wrapping_add(x);
                acc
            })
            .collect();
        // The tile's last thread may be past the end: it scans a 0.
        let last = acc;
        for (j, &s) in inclusive.iter().enumerate() {
            scans[t * tile + j] = s ^ last;
        }
        maxima[t] = acc;
    }
    (scans, maxima)
}

/// The sizes and block shapes every loop kernel runs: lengths around tile,
/// block and grid edges, grids smaller than the input (several rounds).
pub const LENGTHS: [usize; 5] = [1, 63, 200, 1024, 4097];

/// Runs `tile_loop_<tile>` over `input` with `blocks` blocks of `threads`.
pub fn run_tile_loop(
    device: &Device,
    program: &Program,
    tile: usize,
    blocks: u32,
    threads: u32,
    input: &[u32],
) -> Result<(Vec<u32>, Vec<u32>), Error> {
    let data = device.upload(input)?;
    let mut scans = device.zeros::<u32>(input.len())?;
    let mut maxima = device.zeros::<u32>(input.len().div_ceil(tile))?;
    let config = LaunchConfig::new(blocks, threads);
    let args = (&data, &mut scans, &mut maxima);
    match tile {
        64 => program.launch(k::tile_loop_64, config, args),
        128 => program.launch(k::tile_loop_128, config, args),
        256 => program.launch(k::tile_loop_256, config, args),
        _ => program.launch(k::tile_loop_512, config, args),
    }?;
    Ok((device.download(&scans)?, device.download(&maxima)?))
}

/// `cluster_loop`'s outputs: `x + next block's x` (the next block of the
/// cluster, in the same round) and each block's total a round.
pub fn cluster_loop_reference(
    input: &[u32],
    blocks: usize,
    cluster: usize,
) -> (Vec<u32>, Vec<u32>) {
    let chunks = input.len().div_ceil(128);
    let at = |i: usize| input.get(i).copied().unwrap_or(0);
    let mut out = vec![0u32; input.len()];
    let mut totals = vec![0u32; chunks];
    for chunk in 0..chunks {
        let b = chunk % blocks;
        let next = b - b % cluster + (b % cluster + 1) % cluster;
        let next_chunk = chunk - b + next;
        let mut total = 0u32;
        for t in 0..128 {
            let y = at(chunk * 128 + t).wrapping_add(at(next_chunk * 128 + t));
            total = total.wrapping_add(y);
            if chunk * 128 + t < input.len() {
                out[chunk * 128 + t] = y;
            }
        }
        totals[chunk] = total;
    }
    (out, totals)
}

/// `grid_loop`'s output: `x ^ (sum of the round's elements)`.
pub fn grid_loop_reference(input: &[u32], blocks: usize, threads: usize) -> Vec<u32> {
    let round = blocks * threads;
    input
        .chunks(round)
        .flat_map(|chunk| {
            let sum = chunk.iter().fold(0u32, |a, &x| a.wrapping_add(x));
            chunk.iter().map(move |&x| x ^ sum)
        })
        .collect()
}

/// Every loop kernel on `device`, against the host references; `limit`
/// arms a watchdog around each launch (GPU).
pub fn check_all(device: &Device, program: &Program, limit: Option<std::time::Duration>) -> usize {
    let watch = |what: String| limit.map(|l| crate::watchdog::watch(what, l));
    let mut cases = 0;
    for n in LENGTHS {
        let input = input(n);
        for (tile, threads) in [
            (64, 128),
            (64, 512),
            (128, 256),
            (128, 1024),
            (256, 256),
            (512, 512),
        ] {
            // Grids of one block, of two, and of as many as the input needs.
            for blocks in [1u32, 2, n.div_ceil(threads).max(1) as u32] {
                let what = format!("tile_loop_{tile}, {blocks} x {threads}, n {n}");
                let _w = watch(what.clone());
                let got = run_tile_loop(device, program, tile, blocks, threads as u32, &input)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(
                    got == tile_loop_reference(&input, tile),
                    "{what}: differs from the host"
                );
                cases += 1;
            }
        }
        if device_has_clusters(device) {
            for (blocks, cluster) in [(2u32, 2u32), (8, 4), (4, 1)] {
                let what = format!("cluster_loop, {blocks} blocks in clusters of {cluster}, n {n}");
                let _w = watch(what.clone());
                let data = device.upload(&input).unwrap();
                let mut out = device.zeros::<u32>(n).unwrap();
                let mut totals = device.zeros::<u32>(n.div_ceil(128)).unwrap();
                program
                    .launch(
                        k::cluster_loop,
                        LaunchConfig::new(blocks, 128).with_cluster(cluster),
                        (&data, &mut out, &mut totals),
                    )
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let got = (
                    device.download(&out).unwrap(),
                    device.download(&totals).unwrap(),
                );
                let expected = cluster_loop_reference(&input, blocks as usize, cluster as usize);
                assert!(got == expected, "{what}: differs from the host");
                cases += 1;
            }
        }
        for (blocks, threads) in [(1u32, 64u32), (3, 128), (8, 256)] {
            let what = format!("grid_loop, {blocks} x {threads}, n {n}");
            let _w = watch(what.clone());
            let data = device.upload(&input).unwrap();
            let mut out = device.zeros::<u32>(n).unwrap();
            let mut sums = device.zeros::<u32>(blocks as usize).unwrap();
            program
                .launch(
                    k::grid_loop,
                    LaunchConfig::new(blocks, threads),
                    (&data, &mut out, &mut sums),
                )
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let got = device.download(&out).unwrap();
            assert!(
                got == grid_loop_reference(&input, blocks as usize, threads as usize),
                "{what}: differs from the host"
            );
            cases += 1;
        }
    }
    eprintln!(
        "loop-shaped kernels on {}: {cases} cases",
        device.describe()
    );
    cases
}

/// Clusters need sm_90 on a GPU; the CPU backend emulates an sm_90 device.
fn device_has_clusters(device: &Device) -> bool {
    match device {
        Device::Gpu(gpu) => gpu.limits().sm >= 90,
        Device::Cpu(_) => true,
    }
}
