//! Inboxes (`kernels::inboxes`): whole shared arrays sent into, or
//! combined into, other blocks' shared memory by the copy engine, against
//! host references, on whichever device: run on the CPU backend by
//! `async_copies.rs` and on a GPU by `gpu.rs`.

use coop_host::{Device, Error, LaunchConfig, Program};
use coop_test_kernels::inboxes as k;

/// Deterministic values of every bit pattern's reach.
fn values(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x ^ (x >> 29)
        })
        .collect()
}

/// Runs one reduction kernel of `kernels::inboxes` over clusters of
/// `size` blocks, `clusters` of them, with the rounds' targets `targets`,
/// and checks each round's inbox against the host's combination.
macro_rules! check_reduction {
    ($device:expr, $program:expr, $watch:expr, $kernel:ident, $e:ty, $combine:expr, $identity:expr, $size:expr, $clusters:expr, $targets:expr) => {{
        let (size, clusters): (usize, usize) = ($size, $clusters);
        let targets: Vec<u32> = $targets;
        let what = format!(
            "{} clusters of {size} x {clusters}, targets {targets:?}",
            stringify!($kernel)
        );
        let _w = $watch(what.clone());
        let blocks = size * clusters;
        let input: Vec<$e> = values(targets.len() * blocks * 64, 7 + size as u64)
            .into_iter()
            .map(|v| v as $e)
            .collect();
        let got = (|| -> Result<Vec<$e>, Error> {
            let values = $device.upload(&input)?;
            let ts = $device.upload(&targets)?;
            let mut out = $device.zeros::<$e>(targets.len() * clusters * 64)?;
            let config = LaunchConfig::new(blocks as u32, 64).with_cluster(size as u32);
            $program.launch(k::$kernel, config, (&values, &ts, &mut out))?;
            $device.download(&out)
        })()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let combine = $combine;
        let mut expected = Vec::with_capacity(got.len());
        for k in 0..targets.len() {
            for c in 0..clusters {
                for t in 0..64 {
                    let mut acc: $e = $identity;
                    for r in 0..size {
                        acc = combine(acc, input[(k * blocks + c * size + r) * 64 + t]);
                    }
                    expected.push(acc);
                }
            }
        }
        assert!(got == expected, "{what}: differs from the host");
        1
    }};
}

/// Runs every case on `device`; the number of cases. With a `limit` (a
/// GPU), each launch under a watchdog of that limit and every cluster
/// size up to 8; without, the shapes that reach every path at the CPU
/// backend's speed.
pub fn check_all(device: &Device, program: &Program, limit: Option<std::time::Duration>) -> usize {
    let full = limit.is_some();
    let watch = &|what: String| limit.map(|l| crate::watchdog::watch(what, l));
    let mut cases = 0;
    let shapes: &[(usize, usize, &[u32])] = if full {
        &[
            (1, 3, &[0, 0]),
            (2, 5, &[1, 0, 1]),
            (4, 4, &[3, 0, 2, 1]),
            (8, 2, &[5, 7]),
        ]
    } else {
        &[(1, 2, &[0]), (2, 2, &[1, 0]), (4, 1, &[3, 0, 2])]
    };
    for &(size, clusters, targets) in shapes {
        // The four first pairs on every shape; the rest on the GPU, and on
        // clusters of 2 on the CPU backend.
        let all = full || size == 2;
        macro_rules! reductions {
            ($($kernel:ident: $e:ty, $combine:expr, $identity:expr, $always:expr;)*) => {$(
                if $always || all {
                    cases += check_reduction!(device, program, watch, $kernel, $e, $combine,
                        $identity, size, clusters, targets.to_vec());
                }
            )*};
        }
        reductions! {
            inbox_reduce_sum_u32: u32, |a: u32, b: u32| a.wrapping_add(b), 0, true;
            inbox_reduce_sum_u64: u64, |a: u64, b: u64| a.wrapping_add(b), 0, true;
            inbox_reduce_min_i32: i32, |a: i32, b: i32| a.min(b), i32::MAX, true;
            inbox_reduce_xor_u32: u32, |a: u32, b: u32| a ^ b, 0, true;
            inbox_reduce_sum_i32: i32, |a: i32, b: i32| a.wrapping_add(b), 0, false;
            inbox_reduce_sum_i64: i64, |a: i64, b: i64| a.wrapping_add(b), 0, false;
            inbox_reduce_max_u32: u32, |a: u32, b: u32| a.max(b), 0, false;
            inbox_reduce_and_u32: u32, |a: u32, b: u32| a & b, u32::MAX, false;
            inbox_reduce_or_i32: i32, |a: i32, b: i32| a | b, 0, false;
        }
    }
    for &(size, clusters) in if full {
        &[(2usize, 3usize), (4, 2), (8, 1)][..]
    } else {
        &[(3, 1)][..]
    } {
        cases += check_all_max(device, program, watch, size, clusters);
    }
    let passes: &[(usize, usize, &[u32])] = if full {
        &[
            (1, 2, &[0, 0]),
            (2, 3, &[1, 0, 1]),
            (4, 2, &[1, 3, 0, 2, 2]),
            (8, 1, &[3, 0, 7]),
        ]
    } else {
        &[(1, 1, &[0]), (3, 1, &[1, 0, 2])]
    };
    for &(size, clusters, shifts) in passes {
        cases += check_pass(device, program, watch, size, clusters, shifts);
    }
    cases
}

/// The cases of the two kernels `reference/inboxes.cu` has twins of, run
/// by `program` (that module, or coop's): every cluster size up to 8; the
/// number of cases.
pub fn check_twins(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
) -> usize {
    let mut cases = 0;
    for (size, clusters, targets) in [
        (1usize, 3usize, vec![0u32, 0]),
        (2, 5, vec![1, 0, 1]),
        (4, 4, vec![3, 0, 2, 1]),
        (8, 2, vec![5, 7]),
    ] {
        cases += check_reduction!(
            device,
            program,
            watch,
            inbox_reduce_sum_u32,
            u32,
            |a: u32, b: u32| a.wrapping_add(b),
            0,
            size,
            clusters,
            targets
        );
    }
    for (size, clusters, shifts) in [
        (1usize, 2usize, &[0u32, 0][..]),
        (2, 3, &[1, 0, 1]),
        (4, 2, &[1, 3, 0, 2, 2]),
        (8, 1, &[3, 0, 7]),
    ] {
        cases += check_pass(device, program, watch, size, clusters, shifts);
    }
    cases
}

/// `inbox_all_max_i32`: every block combines its array into every inbox of
/// its cluster, in an order that differs between cluster sizes.
fn check_all_max(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
    size: usize,
    clusters: usize,
) -> usize {
    let what = format!("inbox_all_max_i32 clusters of {size} x {clusters}");
    let _w = watch(what.clone());
    let blocks = size * clusters;
    let input: Vec<i32> = values(blocks * 64, 11)
        .into_iter()
        .map(|v| v as i32)
        .collect();
    let order: Vec<u32> = (0..size as u32)
        .map(|r| (r * 5 + 1) % size as u32)
        .collect();
    // Only a permutation of the ranks sends each block's array once into
    // each inbox (5 is prime to every size here).
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert!(
        sorted == (0..size as u32).collect::<Vec<_>>(),
        "{what}: {order:?}"
    );
    let got = (|| -> Result<Vec<i32>, Error> {
        let v = device.upload(&input)?;
        let o = device.upload(&order)?;
        let mut out = device.zeros::<i32>(blocks * 64)?;
        let config = LaunchConfig::new(blocks as u32, 64).with_cluster(size as u32);
        program.launch(k::inbox_all_max_i32, config, (&v, &o, &mut out))?;
        device.download(&out)
    })()
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    let expected: Vec<i32> = (0..blocks * 64)
        .map(|i| {
            let (b, t) = (i / 64, i % 64);
            let c = b / size;
            (0..size)
                .map(|r| input[(c * size + r) * 64 + t])
                .max()
                .unwrap()
        })
        .collect();
    assert!(got == expected, "{what}: differs from the host");
    1
}

/// `inbox_pass_2d_f32`: tiles passed around the cluster by whole-array
/// copies, a shift a round (0: each block to itself).
fn check_pass(
    device: &Device,
    program: &Program,
    watch: &dyn Fn(String) -> Option<crate::watchdog::Watch>,
    size: usize,
    clusters: usize,
    shifts: &[u32],
) -> usize {
    let what = format!("inbox_pass_2d_f32 clusters of {size} x {clusters}, shifts {shifts:?}");
    let _w = watch(what.clone());
    let blocks = size * clusters;
    let input: Vec<f32> = (0..blocks * 128).map(|i| i as f32 * 0.5 - 7.0).collect();
    let got = (|| -> Result<Vec<f32>, Error> {
        let v = device.upload(&input)?;
        let s = device.upload(shifts)?;
        let mut out = device.zeros::<f32>(shifts.len() * blocks * 128)?;
        let config = LaunchConfig::new(blocks as u32, (16, 8)).with_cluster(size as u32);
        program.launch(k::inbox_pass_2d_f32, config, (&v, &s, &mut out))?;
        device.download(&out)
    })()
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    // Which block's round-0 tile each block holds after each round.
    let mut holds: Vec<usize> = (0..blocks).collect();
    let mut expected = Vec::with_capacity(got.len());
    for &shift in shifts {
        let mut next = holds.clone();
        for (b, &h) in holds.iter().enumerate() {
            let (c, r) = (b / size, b % size);
            next[c * size + (r + shift as usize) % size] = h;
        }
        holds = next;
        for &h in &holds {
            expected.extend_from_slice(&input[h * 128..(h + 1) * 128]);
        }
    }
    assert!(got == expected, "{what}: differs from the host");
    1
}
