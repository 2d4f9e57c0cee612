//! The dynamic-group kernels of `coop-test-kernels` (`dynamic`): inputs,
//! a host reference for the compaction, and the runs the CPU backend
//! (`tests/cpu_backend.rs`) and the GPU suite (`tests/gpu.rs`, beside
//! CUDA's twins) share.

use crate::kernels::dynamic::{self as k, PARTITION_FIELDS};
use coop_host::{Device, Error, LaunchConfig, Program};

/// Threads of a [`k::partitions`] case: two blocks of 64.
pub const THREADS: usize = 128;

/// Values, predicates and labels of the partition case: predicates and
/// labels in runs and patterns that give groups of every size from 1 to
/// 32, including a whole warp with one label.
pub fn partition_inputs() -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let values = (0..THREADS as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % 1000)
        .collect();
    let preds = (0..THREADS as u32)
        .map(|i| match i / 32 {
            0 => i % 2,
            1 => (i % 32 < 3) as u32,
            2 => 1,
            _ => (i * 7 % 11 < 4) as u32,
        })
        .collect();
    let labels = (0..THREADS as u32)
        .map(|i| match i / 32 {
            0 => i % 5,
            1 => 7,
            2 => (i % 32) / 9,
            _ => i % 32,
        })
        .collect();
    (values, preds, labels)
}

/// Runs [`k::partitions`] of `program` on `device`.
pub fn run_partitions(device: &Device, program: &Program) -> Result<Vec<u32>, Error> {
    let (values, preds, labels) = partition_inputs();
    let (v, p, l) = (
        device.upload(&values)?,
        device.upload(&preds)?,
        device.upload(&labels)?,
    );
    let mut out = device.zeros::<u32>(PARTITION_FIELDS * THREADS)?;
    program.launch(
        k::partitions,
        LaunchConfig::new(2, 64),
        (&v, &p, &l, &mut out),
    )?;
    device.download(&out)
}

/// The host's view of a few of [`k::partitions`]' fields, for every
/// thread: the predicate group's rank, size and sum, and the label group's
/// rank and size.
pub fn check_partitions(out: &[u32]) {
    let (values, preds, labels) = partition_inputs();
    for g in 0..THREADS {
        let warp = g / 32 * 32..g / 32 * 32 + 32;
        let same_pred: Vec<usize> = warp.clone().filter(|&h| preds[h] == preds[g]).collect();
        let same_label: Vec<usize> = warp.filter(|&h| labels[h] == labels[g]).collect();
        let f = &out[PARTITION_FIELDS * g..PARTITION_FIELDS * (g + 1)];
        let rank = |set: &[usize]| set.iter().position(|&h| h == g).unwrap() as u32;
        let sum: u32 = same_pred.iter().map(|&h| values[h]).sum();
        assert_eq!(
            (f[0], f[1], f[8]),
            (rank(&same_pred), same_pred.len() as u32, sum),
            "thread {g}: predicate group"
        );
        assert_eq!(
            (f[10], f[11]),
            (rank(&same_label), same_label.len() as u32),
            "thread {g}: label group"
        );
    }
}

/// Runs [`k::compact_even`] of `program` on `device` over `input`: the
/// count and the compacted values, sorted.
pub fn run_compaction(
    device: &Device,
    program: &Program,
    input: &[u32],
) -> Result<(u32, Vec<u32>), Error> {
    let d_in = device.upload(input)?;
    let mut count = device.zeros::<u32>(1)?;
    let mut out = device.zeros::<u32>(input.len())?;
    program.launch(
        k::compact_even,
        LaunchConfig::for_elements(input.len(), 256),
        (&d_in, &mut count, &mut out),
    )?;
    let n = device.download(&count)?[0];
    let mut kept = device.download(&out)?;
    kept.truncate(n as usize);
    kept.sort_unstable();
    Ok((n, kept))
}

/// The host's compaction of `input`, sorted.
pub fn compaction_reference(input: &[u32]) -> (u32, Vec<u32>) {
    let mut kept: Vec<u32> = input.iter().copied().filter(|x| x % 2 == 0).collect();
    kept.sort_unstable();
    (kept.len() as u32, kept)
}

/// The compaction's input: runs of even and odd values, so that warps
/// split in many ways.
pub fn compaction_input(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| i.wrapping_mul(2_246_822_519) >> 9)
        .collect()
}
