//! Asynchronous copies (`kernels::async_copies`) against host references,
//! on whichever device: run on the CPU backend by `async_copies.rs` and on
//! a GPU by `gpu.rs`.

use coop_host::{Device, Error, LaunchConfig, Program};
use coop_test_kernels::async_copies as k;

fn data_u32(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 3)
        .collect()
}

fn data_u8(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 37 + i / 7) as u8).collect()
}

/// Runs every case on `device`; returns the number of cases. With a
/// `limit` (a GPU), every size, each launch under a watchdog of that
/// limit; without, the sizes that reach every path and edge at the CPU
/// backend's speed.
pub fn check_all(device: &Device, program: &Program, limit: Option<std::time::Duration>) -> usize {
    let full = limit.is_some();
    let watch = &|what: String| limit.map(|l| crate::watchdog::watch(what, l));
    let pick = |all: &'static [usize], few: &'static [usize]| if full { all } else { few };
    let mut cases = 0;
    for &n in pick(&[1, 255, 256, 257, 1000, 4099], &[1, 257, 1000]) {
        for offset in [0usize, 1, 2, 3] {
            for &threads in if full { &[64u32, 256][..] } else { &[64][..] } {
                let what = format!("copy_tiles_u32 n {n} offset {offset} threads {threads}");
                let _w = watch(what.clone());
                let got = copy_tiles_u32(device, program, n, offset, threads)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let input = data_u32(n);
                let body = &input[offset.min(n)..];
                let blocks = body.len().div_ceil(256).max(1);
                let expected: Vec<u32> = (0..blocks * 256)
                    .map(|i| {
                        let x = body.get(i).copied().unwrap_or(0);
                        x.wrapping_mul(2).wrapping_add((i % 256) as u32)
                    })
                    .collect();
                assert!(got == expected, "{what}: differs from the host");
                cases += 1;
            }
        }
    }
    for &n in pick(&[1, 999, 1000, 1001, 5003], &[999, 1001]) {
        for offset in [0usize, 1, 3, 4, 8, 16] {
            let what = format!("copy_tiles_u8 n {n} offset {offset}");
            let _w = watch(what.clone());
            let input = data_u8(n);
            let body = &input[offset.min(n)..];
            let blocks = body.len().div_ceil(1000).max(1);
            let got = (|| -> Result<Vec<u8>, Error> {
                let data = device.upload(&input)?;
                let mut out = device.zeros::<u8>(blocks * 1000)?;
                program.launch(
                    k::copy_tiles_u8,
                    LaunchConfig::new(blocks as u32, 128),
                    (&data, offset as u32, &mut out),
                )?;
                device.download(&out)
            })()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let expected: Vec<u8> = (0..blocks * 1000)
                .map(|i| body.get(i).copied().unwrap_or(0) ^ 0x5a)
                .collect();
            assert!(got == expected, "{what}: differs from the host");
            cases += 1;
        }
    }
    for n in [384usize, 300, 129, 1] {
        let what = format!("copy_three_tiles n {n}");
        let _w = watch(what.clone());
        let input: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 - 7.0).collect();
        let got = (|| -> Result<Vec<f64>, Error> {
            let data = device.upload(&input)?;
            let mut out = device.zeros::<f64>(128)?;
            program.launch(
                k::copy_three_tiles,
                LaunchConfig::new(1, 128),
                (&data, &mut out),
            )?;
            device.download(&out)
        })()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let at = |i: usize| input.get(i).copied().unwrap_or(0.0);
        let expected: Vec<f64> = (0..128)
            .map(|t| at(t) + 2.0 * at(128 + t) + 3.0 * at(256 + t))
            .collect();
        assert!(got == expected, "{what}: differs from the host");
        cases += 1;
    }
    for &n in pick(&[0, 1, 1023, 1024, 1025, 9000], &[0, 1, 1025, 3000]) {
        for offset in [0usize, 1, 2] {
            for &(blocks, threads) in if full {
                &[(1u32, 256u32), (3, 128), (5, 512)][..]
            } else {
                &[(1, 256), (3, 128)][..]
            } {
                cases += check_pipeline_sums(device, program, n, offset, blocks, threads, watch);
            }
        }
    }
    for &n in pick(&[0, 1, 95, 96, 1000, 4099, 100_003], &[0, 95, 1000, 4099]) {
        for offset in [0usize, 1, 2] {
            for &(blocks, threads) in if full {
                &[(1u32, 128u32), (3, 256), (40, 128)][..]
            } else {
                &[(1, 128), (3, 256)][..]
            } {
                cases += check_tile_rows(device, program, n, offset, blocks, threads, watch);
            }
        }
    }
    for &n in pick(&[1, 1000, 100_003], &[1, 1000]) {
        for (offset, len) in [(0usize, 64usize), (1, 37), (2, 100)] {
            for (blocks, threads) in [(2u32, 64u32), (5, 256)] {
                let what = format!("tile_slices_dynamic n {n} offset {offset} len {len}");
                let _w = watch(what.clone());
                check_tile_slices(device, program, n, offset, len, blocks, threads)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                cases += 1;
            }
        }
    }
    for &n in pick(&[1, 1000, 100_003], &[1, 1000, 4099]) {
        for offset in [0usize, 1] {
            for &(blocks, threads, cluster) in if full {
                &[(2u32, 128u32, 2u32), (8, 64, 4), (40, 128, 2), (3, 96, 1)][..]
            } else {
                &[(2, 128, 2), (8, 64, 4), (3, 96, 1)][..]
            } {
                let what = format!(
                    "cluster_windows n {n} offset {offset}, {blocks} x {threads} in clusters of {cluster}"
                );
                let _w = watch(what.clone());
                check_cluster_windows(device, program, n, offset, blocks, threads, cluster)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                cases += 1;
            }
        }
    }
    cases += check_specialized_turns(device, program, watch);
    for &n in pick(&[1, 2047, 2048, 10_000, 100_003], &[1, 2049, 10_000]) {
        for &blocks in if full { &[1u32, 3, 8][..] } else { &[1, 3][..] } {
            let what = format!("pipeline_copy n {n} blocks {blocks}");
            let _w = watch(what.clone());
            let input: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
            let got = (|| -> Result<Vec<f32>, Error> {
                let data = device.upload(&input)?;
                let mut out = device.zeros::<f32>(n)?;
                program.launch(
                    k::pipeline_copy,
                    LaunchConfig::new(blocks, 256),
                    (&data, &mut out),
                )?;
                device.download(&out)
            })()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(got == input, "{what}: differs from the input");
            cases += 1;
        }
    }
    for &n in pick(&[1, 999, 1000, 1003, 7001, 40_002], &[1, 1003, 7001]) {
        let shapes: &[(usize, usize)] = if full {
            &[(0, 0), (0, 4), (0, 1), (1, 0), (4, 2), (3, 3)]
        } else {
            &[(0, 0), (0, 1), (1, 0)]
        };
        for &(offset, shift) in shapes {
            for engine in [1u32, 0] {
                for &(blocks, threads) in if full {
                    &[(1u32, 32u32), (3, 128), (7, 96)][..]
                } else {
                    &[(2, 32)][..]
                } {
                    let what = format!(
                        "pipeline_store n {n} offset {offset} shift {shift} engine {engine} blocks {blocks} threads {threads}"
                    );
                    let _w = watch(what.clone());
                    let input = data_u32(n);
                    let body = &input[offset.min(n)..];
                    let got = (|| -> Result<Vec<u32>, Error> {
                        let data = device.upload(&input)?;
                        let mut out = device.zeros::<u32>(shift + body.len())?;
                        program.launch(
                            k::pipeline_store,
                            LaunchConfig::new(blocks, threads),
                            (&data, offset as u32, shift as u32, engine, &mut out),
                        )?;
                        device.download(&out)
                    })()
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                    let mut expected = vec![0u32; shift];
                    expected.extend_from_slice(body);
                    assert!(got == expected, "{what}: differs from the host");
                    cases += 1;
                }
            }
        }
    }
    for &n in pick(&[1, 127, 128, 1000, 100_003], &[1, 1000]) {
        for &threads in &[128u32, 256] {
            let what = format!("async_reductions n {n} threads {threads}");
            let _w = watch(what.clone());
            check_async_reductions(device, program, n, threads)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            cases += 1;
            let what = format!("scan_updates n {n} threads {threads}");
            let _w = watch(what.clone());
            check_scan_updates(device, program, n, threads)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            cases += 1;
        }
        for &threads in &[64u32, 192, 1024] {
            let what = format!("shared_async_reductions n {n} threads {threads}");
            let _w = watch(what.clone());
            check_shared_async_reductions(device, program, n, threads)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            cases += 1;
        }
    }
    eprintln!(
        "asynchronous copies on {}: {cases} cases",
        device.describe()
    );
    cases
}

fn copy_tiles_u32(
    device: &Device,
    program: &Program,
    n: usize,
    offset: usize,
    threads: u32,
) -> Result<Vec<u32>, Error> {
    let input = data_u32(n);
    let blocks = (n - offset.min(n)).div_ceil(256).max(1);
    let data = device.upload(&input)?;
    let mut out = device.zeros::<u32>(blocks * 256)?;
    program.launch(
        k::copy_tiles_u32,
        LaunchConfig::new(blocks as u32, threads),
        (&data, offset as u32, &mut out),
    )?;
    device.download(&out)
}

/// `scan_updates` over `n` elements in blocks of `threads`, against the
/// host: each list holds the kept inputs (in some order between groups, in
/// rank order within one), its counter their number; each thread's running
/// maximum is at least its warp's maximum up to it, and the last counter
/// is the input's maximum.
pub fn check_scan_updates(
    device: &Device,
    program: &Program,
    n: usize,
    threads: u32,
) -> Result<(), Error> {
    let input: Vec<u32> = data_u32(n).iter().map(|&x| x % 100_000).collect();
    let blocks = n.div_ceil(threads as usize).max(1);
    let data = device.upload(&input)?;
    let mut used = device.zeros::<u32>(5)?;
    let mut lists: Vec<_> = (0..4)
        .map(|_| device.zeros::<u32>(n.max(1)))
        .collect::<Result<_, _>>()?;
    let mut maxima = device.zeros::<u32>(n.max(1))?;
    let [block_out, warp_out, tile_out, odd_out] = &mut lists[..] else {
        unreachable!()
    };
    program.launch(
        k::scan_updates,
        LaunchConfig::new(blocks as u32, threads),
        (
            &data,
            &mut used,
            block_out,
            warp_out,
            tile_out,
            odd_out,
            &mut maxima,
        ),
    )?;
    let what = format!("scan_updates n {n} threads {threads}");
    let used = device.download(&used)?;
    let sorted = |mut v: Vec<u32>| {
        v.sort_unstable();
        v
    };
    let thirds = sorted(input.iter().copied().filter(|x| x % 3 == 0).collect());
    let odds = sorted(input.iter().copied().filter(|x| x % 2 == 1).collect());
    for (k, (name, expected)) in [
        ("block", &thirds),
        ("warp", &thirds),
        ("tile", &thirds),
        ("coalesced", &odds),
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(
            used[k] as usize,
            expected.len(),
            "{what}: the {name} counter"
        );
        let got = sorted(device.download(&lists[k])?[..expected.len()].to_vec());
        assert!(&got == expected, "{what}: the {name} list");
    }
    assert_eq!(
        used[4],
        input.iter().copied().max().unwrap_or(0),
        "{what}: the maximum"
    );
    let maxima = device.download(&maxima)?;
    for (g, &x) in input.iter().enumerate() {
        let warp_start = g - g % 32;
        let prefix = input[warp_start..=g].iter().copied().max().unwrap();
        assert!(
            maxima[g] >= prefix && maxima[g] >= x,
            "{what}: running maximum of thread {g}"
        );
    }
    Ok(())
}

/// `async_reductions` over `n` elements in blocks of `threads`, against
/// the host.
fn check_async_reductions(
    device: &Device,
    program: &Program,
    n: usize,
    threads: u32,
) -> Result<(), Error> {
    let input: Vec<u32> = data_u32(n).iter().map(|&x| x % 100_000).collect();
    let blocks = n.div_ceil(threads as usize).max(1);
    let tiles = blocks * threads as usize / 128;
    let data = device.upload(&input)?;
    let mut sums = device.zeros::<u64>(1)?;
    let mut maxima = device.zeros::<u32>(1)?;
    let mut bits = device.zeros::<u32>(1)?;
    let mut tile_sums = device.zeros::<u32>(tiles)?;
    program.launch(
        k::async_reductions,
        LaunchConfig::new(blocks as u32, threads),
        (&data, &mut sums, &mut maxima, &mut bits, &mut tile_sums),
    )?;
    let what = format!("async_reductions n {n} threads {threads}");
    let sum: u64 = input.iter().map(|&x| x as u64).sum();
    assert_eq!(device.download(&sums)?, [sum], "{what}: the sum");
    let max = input.iter().copied().max().unwrap_or(0);
    assert_eq!(device.download(&maxima)?, [max], "{what}: the maximum");
    let or = input.iter().fold(0u32, |acc, &x| acc | 1 << (x % 32));
    assert_eq!(device.download(&bits)?, [or], "{what}: the bits");
    let expected: Vec<u32> = (0..tiles)
        .map(|t| {
            let end = ((t + 1) * 128).min(n);
            input[(t * 128).min(n)..end]
                .iter()
                .fold(0u32, |acc, &x| acc.wrapping_add(x))
        })
        .collect();
    assert_eq!(
        device.download(&tile_sums)?,
        expected,
        "{what}: the tiles' sums"
    );
    Ok(())
}

/// `shared_async_reductions` over `n` elements in blocks of `threads`
/// (a multiple of 64), against the host: each block's bins, maximum, list
/// (as a sorted set: warps append in any order) and tiles' sums.
fn check_shared_async_reductions(
    device: &Device,
    program: &Program,
    n: usize,
    threads: u32,
) -> Result<(), Error> {
    let input: Vec<u32> = data_u32(n).iter().map(|&x| x % 100_000).collect();
    let t = threads as usize;
    let blocks = n.div_ceil(t).max(1);
    let tiles = t / 64;
    let data = device.upload(&input)?;
    let mut bins = device.zeros::<u64>(4 * blocks)?;
    let mut maxima = device.zeros::<u32>(blocks)?;
    let mut counts = device.zeros::<u32>(blocks)?;
    let mut lists = device.zeros::<u32>(blocks * t)?;
    let mut tile_sums = device.zeros::<u32>(blocks * tiles)?;
    program.launch(
        k::shared_async_reductions,
        LaunchConfig::new(blocks as u32, threads),
        (
            &data,
            &mut bins,
            &mut maxima,
            &mut counts,
            &mut lists,
            &mut tile_sums,
        ),
    )?;
    let what = format!("shared_async_reductions n {n} threads {threads}");
    let (bins, maxima) = (device.download(&bins)?, device.download(&maxima)?);
    let (counts, lists) = (device.download(&counts)?, device.download(&lists)?);
    let tile_sums = device.download(&tile_sums)?;
    let value = |i: usize| if i < n { input[i] } else { 0 };
    for b in 0..blocks {
        let mine: Vec<u32> = (b * t..(b + 1) * t).map(value).collect();
        let mut expected_bins = [0u64; 4];
        for (w, warp) in mine.chunks(32).enumerate() {
            expected_bins[w % 4] += warp.iter().map(|&x| x as u64).sum::<u64>();
        }
        assert_eq!(
            bins[4 * b..4 * b + 4],
            expected_bins,
            "{what}: block {b}'s bins"
        );
        let max = mine.iter().copied().max().unwrap_or(0);
        assert_eq!(maxima[b], max, "{what}: block {b}'s maximum");
        let mut kept: Vec<u32> = (b * t..((b + 1) * t).min(n))
            .map(|i| input[i])
            .filter(|x| x % 3 == 0)
            .collect();
        assert_eq!(counts[b] as usize, kept.len(), "{what}: block {b}'s count");
        let mut got = lists[b * t..b * t + kept.len()].to_vec();
        got.sort_unstable();
        kept.sort_unstable();
        assert_eq!(got, kept, "{what}: block {b}'s list");
        for (j, tile) in mine.chunks(64).enumerate() {
            let sum = tile.iter().fold(0u32, |acc, &x| acc.wrapping_add(x));
            assert_eq!(tile_sums[b * tiles + j], sum, "{what}: block {b} tile {j}");
        }
    }
    Ok(())
}

/// Consumer groups taking a warp-specialized pipeline's tiles in turn
/// (`specialized_turns_u32`, a ring of 6): 1, 2, 3 and 6 groups of 32 to
/// 96 consumers, 1 to 3 blocks; the number of cases.
fn check_specialized_turns(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
) -> usize {
    let mut cases = 0;
    for (n, blocks, threads, groups) in [
        (2000usize, 1u32, 96u32, 2u32),
        (2000, 1, 224, 2),
        (3000, 3, 128, 3),
        (5003, 2, 224, 6),
        (700, 1, 64, 1),
    ] {
        let what =
            format!("specialized_turns_u32 n {n}, {blocks} x {threads} threads, {groups} groups");
        let _w = watch(what.clone());
        let input = data_u32(n);
        let tiles = n.div_ceil(256);
        let got = (|| -> Result<Vec<u32>, Error> {
            let data = device.upload(&input)?;
            let mut out = device.zeros::<u32>(tiles * 256)?;
            program.launch(
                k::specialized_turns_u32,
                LaunchConfig::new(blocks, threads),
                (&data, groups, &mut out),
            )?;
            device.download(&out)
        })()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        for (at, &value) in got.iter().enumerate() {
            let k = at / 256;
            // Tile `k` is its block's `k / blocks`-th, taken by that turn's group.
            let group = (k / blocks as usize) as u32 % groups;
            let x = input.get(at).copied().unwrap_or(0);
            let expected = x.wrapping_mul(2).wrapping_add(group);
            assert!(
                value == expected,
                "{what}: element {} of tile {k}: {value}, the host has {expected} (group {group})",
                at % 256
            );
        }
        cases += 1;
    }
    cases
}

/// One size of every `pipeline_sum_*` kernel; the number of cases.
fn check_pipeline_sums(
    device: &Device,
    program: &Program,
    n: usize,
    offset: usize,
    blocks: u32,
    threads: u32,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
) -> usize {
    macro_rules! case {
        ($kernel:ident, $t:ty, $tile:literal, $data:expr) => {{
            let what = format!(
                "{} n {n} offset {offset}, {blocks} x {threads}",
                stringify!($kernel)
            );
            let _w = watch(what.clone());
            let input: Vec<$t> = $data;
            let got = (|| -> Result<Vec<$t>, Error> {
                let data = device.upload(&input)?;
                let mut out = device.zeros::<$t>(blocks as usize * $tile)?;
                program.launch(
                    k::$kernel,
                    LaunchConfig::new(blocks, threads),
                    (&data, offset as u32, &mut out),
                )?;
                device.download(&out)
            })()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let body = &input[offset.min(n)..];
            let mut expected = vec![0 as $t; blocks as usize * $tile];
            for (tile, chunk) in body.chunks($tile).enumerate() {
                let b = tile % blocks as usize;
                for (t, &x) in chunk.iter().enumerate() {
                    expected[b * $tile + t] = expected[b * $tile + t].wrapping_add(x);
                }
            }
            assert!(got == expected, "{what}: differs from the host");
        }};
    }
    case!(pipeline_sum_u32_1024x4, u32, 1024, data_u32(n));
    case!(pipeline_sum_u32_1024x4_bulk, u32, 1024, data_u32(n));
    case!(pipeline_sum_u32_256x2, u32, 256, data_u32(n));
    case!(pipeline_sum_u8_512x3, u8, 512, data_u8(n));
    case!(pipeline_sum_u8_512x3_bulk, u8, 512, data_u8(n));
    case!(
        pipeline_sum_u64_256x1,
        u64,
        256,
        data_u32(n).iter().map(|&x| x as u64 * 3).collect()
    );
    // The same sums through warp-specialized pipelines (a producer tile of
    // 32 or 64 threads).
    case!(specialized_sum_u32_1024x4_w32, u32, 1024, data_u32(n));
    case!(specialized_sum_u32_1024x4_w32_bulk, u32, 1024, data_u32(n));
    case!(specialized_sum_u32_256x2_w64_bulk, u32, 256, data_u32(n));
    case!(specialized_sum_u8_512x3_w32, u8, 512, data_u8(n));
    case!(specialized_sum_u8_512x3_w64_bulk, u8, 512, data_u8(n));
    case!(
        specialized_sum_u64_256x1_w32,
        u64,
        256,
        data_u32(n).iter().map(|&x| x as u64 * 3).collect()
    );
    12
}

/// The tiles' rows (`kernels::async_copies::tile_rows_*`, tiles of 8, 32,
/// 64 and 128 threads) over `n` values from `offset`, on `blocks` blocks
/// of `threads`, against the host; `program` is coop's test kernels or
/// CUDA's twins (`reference/tile_copies.cu`). Returns the cases run.
pub fn check_tile_rows(
    device: &Device,
    program: &Program,
    n: usize,
    offset: usize,
    blocks: u32,
    threads: u32,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
) -> usize {
    let input = data_u32(n);
    let body = &input[offset.min(n)..];
    macro_rules! case {
        ($kernel:ident, $row:literal) => {{
            let what = format!(
                "{} n {n} offset {offset}, {blocks} x {threads}",
                stringify!($kernel)
            );
            let _w = watch(what.clone());
            let runs = body.len().div_ceil($row);
            let got = (|| -> Result<Vec<u32>, Error> {
                let data = device.upload(&input)?;
                let mut out = device.zeros::<u32>((runs * $row).max(1))?;
                program.launch(
                    k::$kernel,
                    LaunchConfig::new(blocks, threads),
                    (&data, offset as u32, &mut out),
                )?;
                device.download(&out)
            })()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(
                got == reversed_runs(body, $row),
                "{what}: differs from the host"
            );
        }};
    }
    case!(tile_rows_t8, 33);
    case!(tile_rows_t32, 96);
    case!(tile_rows_t64, 50);
    case!(tile_rows_t128, 256);
    4
}

/// The host's result of the tiles' rows and parts: `body` in runs of
/// `len` (the last zero-filled), each read backwards, `out[run len + j] =
/// 3 x[run len + len - 1 - j] + j`.
fn reversed_runs(body: &[u32], len: usize) -> Vec<u32> {
    let runs = body.len().div_ceil(len);
    let mut expected = vec![0u32; (runs * len).max(1)];
    for r in 0..runs {
        for j in 0..len {
            let x = body.get(r * len + len - 1 - j).copied().unwrap_or(0);
            expected[r * len + j] = x.wrapping_mul(3).wrapping_add(j as u32);
        }
    }
    expected
}

/// `tile_slices_dynamic`: parts of `len` values a warp of a dynamic shared
/// array, over `n` values from `offset`, against the host.
pub fn check_tile_slices(
    device: &Device,
    program: &Program,
    n: usize,
    offset: usize,
    len: usize,
    blocks: u32,
    threads: u32,
) -> Result<(), Error> {
    let input = data_u32(n);
    let body = &input[offset.min(n)..];
    let runs = body.len().div_ceil(len);
    let data = device.upload(&input)?;
    let mut out = device.zeros::<u32>((runs * len).max(1))?;
    program.launch(
        k::tile_slices_dynamic,
        LaunchConfig::new(blocks, threads).with_shared_memory(threads / 32 * len as u32 * 4),
        (&data, offset as u32, len as u32, &mut out),
    )?;
    let got = device.download(&out)?;
    assert!(
        got == reversed_runs(body, len),
        "tile_slices_dynamic n {n} offset {offset} len {len}, {blocks} x {threads}: differs from the host"
    );
    Ok(())
}

/// `cluster_windows`: windows of `cluster x 128` values of `input[offset..]`
/// copied in parts by the blocks of each cluster, `out[w W + j] = 3 x[w W +
/// j] + x[w W + W - 1 - j]` (zeros past the input), against the host.
pub fn check_cluster_windows(
    device: &Device,
    program: &Program,
    n: usize,
    offset: usize,
    blocks: u32,
    threads: u32,
    cluster: u32,
) -> Result<(), Error> {
    let input = data_u32(n);
    let body = &input[offset.min(n)..];
    let width = cluster as usize * 128;
    let windows = body.len().div_ceil(width);
    let data = device.upload(&input)?;
    let mut out = device.zeros::<u32>((windows * width).max(1))?;
    program.launch(
        k::cluster_windows,
        LaunchConfig::new(blocks, threads).with_cluster(cluster),
        (&data, offset as u32, &mut out),
    )?;
    let got = device.download(&out)?;
    let at = |i: usize| body.get(i).copied().unwrap_or(0);
    let mut expected = vec![0u32; (windows * width).max(1)];
    for w in 0..windows {
        for j in 0..width {
            expected[w * width + j] = at(w * width + j)
                .wrapping_mul(3)
                .wrapping_add(at(w * width + width - 1 - j));
        }
    }
    if let Some(i) = (0..expected.len()).find(|&i| got[i] != expected[i]) {
        panic!(
            "cluster_windows n {n} offset {offset}, {blocks} x {threads} in clusters of {cluster}: \
             out[{i}] is {} where the host has {}",
            got[i], expected[i]
        );
    }
    Ok(())
}
