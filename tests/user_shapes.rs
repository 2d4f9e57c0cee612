//! The user-shaped kernels of `coop-test-kernels` (`user_shapes`): every
//! block collective behind a guarded load and before a guarded store, on
//! every block shape and on the sizes where guards split warps and blocks,
//! checked against a host reference. The same cases run on the CPU backend
//! (`tests/user_shaped.rs`) and on a GPU (`tests/gpu.rs`).

use crate::kernels::user_shapes::{self as k, Collective, MAX_BLOCK};
use coop::Dim3;
use coop_host::{Device, Error, LaunchConfig, Program};

/// Where the guards stand (see the kernels' module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// Load and store guarded by `i < input.len()`.
    Both,
    /// Only the load guarded.
    Before,
    /// Only the store guarded.
    After,
}

/// The block shapes: 1-D from one warp to 1024 threads, and 2-D and 3-D
/// blocks whose rows are shorter or longer than a warp.
pub const BLOCKS: [(u32, u32, u32); 11] = [
    (32, 1, 1),
    (64, 1, 1),
    (96, 1, 1),
    (128, 1, 1),
    (256, 1, 1),
    (512, 1, 1),
    (1024, 1, 1),
    (16, 16, 1),
    (16, 6, 1),
    (8, 4, 4),
    (32, 32, 1),
];

/// The sizes for a block of `b` threads: empty, one, around a warp, around
/// a block, and several blocks and one more.
pub fn sizes(b: usize) -> Vec<usize> {
    let mut n = vec![0, 1, 31, 32, 33, b - 1, b, b + 1, 3 * b + 1];
    n.sort_unstable();
    n.dedup();
    n
}

/// Every (kernel name, collective, guard) of the family.
pub fn kernels() -> Vec<(&'static str, Collective, Guard)> {
    use Collective::*;
    use Guard::*;
    vec![
        ("shape_sync_both", Sync, Both),
        ("shape_sync_before", Sync, Before),
        ("shape_sync_after", Sync, After),
        ("shape_reduce_both", Reduce, Both),
        ("shape_reduce_before", Reduce, Before),
        ("shape_reduce_after", Reduce, After),
        ("shape_reduce_wide_both", ReduceWide, Both),
        ("shape_reduce_wide_before", ReduceWide, Before),
        ("shape_reduce_wide_after", ReduceWide, After),
        ("shape_inclusive_scan_both", InclusiveScan, Both),
        ("shape_inclusive_scan_before", InclusiveScan, Before),
        ("shape_inclusive_scan_after", InclusiveScan, After),
        ("shape_exclusive_scan_both", ExclusiveScan, Both),
        ("shape_exclusive_scan_before", ExclusiveScan, Before),
        ("shape_exclusive_scan_after", ExclusiveScan, After),
        ("shape_scans_both", Scans, Both),
        ("shape_scans_before", Scans, Before),
        ("shape_scans_after", Scans, After),
        ("shape_reduce_then_scan_both", ReduceThenScan, Both),
        ("shape_reduce_then_scan_before", ReduceThenScan, Before),
        ("shape_reduce_then_scan_after", ReduceThenScan, After),
        ("shape_publish_both", Publish, Both),
        ("shape_publish_before", Publish, Before),
        ("shape_publish_after", Publish, After),
        ("shape_publish_twice_both", PublishTwice, Both),
        ("shape_publish_twice_before", PublishTwice, Before),
        ("shape_publish_twice_after", PublishTwice, After),
        ("shape_publish_then_reduce_both", PublishThenReduce, Both),
        (
            "shape_publish_then_reduce_before",
            PublishThenReduce,
            Before,
        ),
        ("shape_publish_then_reduce_after", PublishThenReduce, After),
        ("shape_sync_count_both", SyncCount, Both),
        ("shape_sync_count_before", SyncCount, Before),
        ("shape_sync_count_after", SyncCount, After),
        ("shape_sync_all_both", SyncAll, Both),
        ("shape_sync_all_before", SyncAll, Before),
        ("shape_sync_all_after", SyncAll, After),
        ("shape_sync_any_both", SyncAny, Both),
        ("shape_sync_any_before", SyncAny, Before),
        ("shape_sync_any_after", SyncAny, After),
        ("shape_lane_masks_both", TileLaneMasks, Both),
        ("shape_lane_masks_before", TileLaneMasks, Before),
        ("shape_lane_masks_after", TileLaneMasks, After),
    ]
}

/// One launch of one kernel of the family.
#[derive(Clone, Debug)]
pub struct Case {
    /// The kernel's name.
    pub kernel: &'static str,
    /// Its collective.
    pub collective: Collective,
    /// Its guards.
    pub guard: Guard,
    /// The block's shape.
    pub block: Dim3,
    /// Elements the guards let through.
    pub n: usize,
}

impl Case {
    /// `"shape_scans_both, block 16x6x1, n 97"`.
    pub fn name(&self) -> String {
        let b = self.block;
        format!(
            "{}, block {}x{}x{}, n {}",
            self.kernel, b.x, b.y, b.z, self.n
        )
    }

    fn threads_per_block(&self) -> usize {
        self.block.volume() as usize
    }

    /// Blocks of the launch: enough for `n` threads, at least one.
    pub fn blocks(&self) -> usize {
        self.n.div_ceil(self.threads_per_block()).max(1)
    }

    fn grid_threads(&self) -> usize {
        self.blocks() * self.threads_per_block()
    }

    /// The input: `n` values, or one per thread of the grid when the load
    /// is not guarded. Values mix high and low bits so that sums wrap.
    pub fn input(&self) -> Vec<u32> {
        let len = match self.guard {
            Guard::After => self.grid_threads(),
            _ => self.n,
        };
        (0..len as u32)
            .map(|i| i.wrapping_mul(0x9e37_79b9).rotate_left(7) ^ (i % 7))
            .collect()
    }

    /// Words of the output: two per guarded thread, or per grid thread when
    /// the store is not guarded.
    pub fn out_len(&self) -> usize {
        2 * match self.guard {
            Guard::Before => self.grid_threads(),
            _ => self.n,
        }
    }

    /// What the kernel must write: each block's collective over the values
    /// its threads loaded (0 past the input when the load is guarded).
    pub fn expected(&self) -> Vec<u32> {
        let input = self.input();
        let b = self.threads_per_block();
        let mut out = Vec::with_capacity(2 * self.grid_threads());
        for block in 0..self.blocks() {
            let xs: Vec<u32> = (block * b..(block + 1) * b)
                .map(|i| input.get(i).copied().unwrap_or(0))
                .collect();
            out.extend(reference(self.collective, &xs));
        }
        out.truncate(self.out_len());
        out
    }

    /// Runs the case with `program` on `device`.
    pub fn run(&self, device: &Device, program: &Program) -> Result<Vec<u32>, Error> {
        let input = device.upload(&self.input())?;
        let mut out = device.zeros::<u32>(self.out_len())?;
        let config = LaunchConfig::new(self.blocks() as u32, self.block);
        macro_rules! dispatch {
            ($($name:ident)*) => {
                match self.kernel {
                    $(stringify!($name) => program.launch(k::$name, config, (&input, &mut out))?,)*
                    other => unreachable!("no user-shaped kernel {other}"),
                }
            };
        }
        dispatch!(
            shape_sync_both shape_sync_before shape_sync_after
            shape_reduce_both shape_reduce_before shape_reduce_after
            shape_reduce_wide_both shape_reduce_wide_before shape_reduce_wide_after
            shape_inclusive_scan_both shape_inclusive_scan_before shape_inclusive_scan_after
            shape_exclusive_scan_both shape_exclusive_scan_before shape_exclusive_scan_after
            shape_scans_both shape_scans_before shape_scans_after
            shape_reduce_then_scan_both shape_reduce_then_scan_before shape_reduce_then_scan_after
            shape_publish_both shape_publish_before shape_publish_after
            shape_publish_twice_both shape_publish_twice_before shape_publish_twice_after
            shape_publish_then_reduce_both shape_publish_then_reduce_before
            shape_publish_then_reduce_after
            shape_sync_count_both shape_sync_count_before shape_sync_count_after
            shape_sync_all_both shape_sync_all_before shape_sync_all_after
            shape_sync_any_both shape_sync_any_before shape_sync_any_after
            shape_lane_masks_both shape_lane_masks_before shape_lane_masks_after
        );
        device.download(&out)
    }

    /// Runs the case and compares with [`expected`](Self::expected): `Err`
    /// names the case and the first word that differs.
    pub fn check(&self, device: &Device, program: &Program) -> Result<(), String> {
        let got = self
            .run(device, program)
            .map_err(|e| format!("{}: {e}", self.name()))?;
        let want = self.expected();
        if got.len() != want.len() {
            return Err(format!(
                "{}: {} words written, {} expected",
                self.name(),
                got.len(),
                want.len()
            ));
        }
        match got.iter().zip(&want).position(|(g, w)| g != w) {
            None => Ok(()),
            Some(w) => Err(format!(
                "{}: thread {} word {}: got {:#x}, expected {:#x}",
                self.name(),
                w / 2,
                w % 2,
                got[w],
                want[w]
            )),
        }
    }
}

/// Runs every case of [`cases`] on `device`, each launch under the
/// watchdog when `limit` is given (on a GPU, where a hang never returns),
/// and panics listing the first failures.
pub fn check_all(device: &Device, program: &Program, limit: Option<std::time::Duration>) {
    check_tile_leader_sums(device, program).unwrap();
    let cases = cases();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            let _watch = limit.map(|l| crate::watchdog::watch(c.name(), l));
            c.check(device, program).err()
        })
        .collect();
    eprintln!(
        "user-shaped kernels on {}: {} cases, {} failed",
        device.describe(),
        cases.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases failed, the first ones:\n{}",
        failures.len(),
        cases.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

/// Checks the outputs of `block_scans` (1024-thread blocks) over `input`.
pub fn check_block_scans(input: &[u32], inclusive: &[u32], exclusive: &[u32]) {
    let n = input.len();
    for (b, chunk) in input.chunks(1024).enumerate() {
        let mut acc = 0u32;
        for (t, &x) in chunk.iter().enumerate() {
            assert_eq!(exclusive[b * 1024 + t], acc, "n {n}, block {b}, thread {t}");
            acc = acc.wrapping_add(x);
            assert_eq!(inclusive[b * 1024 + t], acc, "n {n}, block {b}, thread {t}");
        }
    }
}

/// Every case: each kernel on each block shape and each of its sizes.
pub fn cases() -> Vec<Case> {
    let mut all = Vec::new();
    for (kernel, collective, guard) in kernels() {
        for &(x, y, z) in &BLOCKS {
            let block = Dim3::new(x, y, z);
            assert!(block.volume() as usize <= MAX_BLOCK);
            for n in sizes(block.volume() as usize) {
                all.push(Case {
                    kernel,
                    collective,
                    guard,
                    block,
                    n,
                });
            }
        }
    }
    all
}

/// The two words each thread of a block gets from `which`, for the block's
/// values `xs` in thread-rank order.
pub fn reference(which: Collective, xs: &[u32]) -> Vec<u32> {
    let b = xs.len();
    let sum = xs.iter().fold(0u32, |a, &x| a.wrapping_add(x));
    let inclusive: Vec<u32> = xs
        .iter()
        .scan(0u32, |acc, &x| {
            *acc = acc.wrapping_add(x);
            Some(*acc)
        })
        .collect();
    let exclusive = |t: usize| inclusive[t].wrapping_sub(xs[t]);
    let mut out = Vec::with_capacity(2 * b);
    for t in 0..b {
        let pair = match which {
            Collective::Sync => [xs[t], !xs[t]],
            Collective::Reduce => [sum, 0],
            Collective::ReduceWide => {
                let r = xs
                    .iter()
                    .fold(0u64, |a, &x| a.wrapping_add(x as u64 * 0x1_0000_0001));
                [r as u32, (r >> 32) as u32]
            }
            Collective::InclusiveScan => [inclusive[t], 0],
            Collective::ExclusiveScan => [exclusive(t), 0],
            Collective::Scans => [inclusive[t], exclusive(t)],
            Collective::ReduceThenScan => {
                let m = xs.iter().copied().max().unwrap_or(0);
                let e = xs[..t].iter().fold(0u32, |a, &x| a.wrapping_add(x ^ m));
                [m, e]
            }
            Collective::Publish => [xs[(t + 1) % b], xs[b - 1 - t]],
            Collective::PublishTwice => {
                let y = |t: usize| xs[(t + 1) % b];
                [y(t), y((t + 2) % b).wrapping_mul(2).wrapping_add(1)]
            }
            Collective::PublishThenReduce => [xs[b - 1 - t], xs.iter().copied().min().unwrap_or(0)],
            Collective::SyncCount => [xs.iter().filter(|&&x| x & 1 == 1).count() as u32, 0],
            Collective::SyncAll => [xs.iter().all(|&x| x & 0xf != 0xf) as u32, 0],
            Collective::SyncAny => [xs.iter().any(|&x| x & 0x3f == 0x21) as u32, 0],
            Collective::TileLaneMasks => {
                let (tile, r) = (t - t % 8, t % 8);
                let before = xs[tile..t].iter().filter(|&&x| x & 1 == 1).count() as u32;
                let lt = (1u32 << r) - 1;
                let eq = 1u32 << r;
                let ge = 0xff & !lt;
                let gt = 0xff & !(lt | eq);
                [before, ge | (gt << 8) | ((lt | eq) << 16) | (eq << 24)]
            }
        };
        out.extend(pair);
    }
    out
}

/// Runs `tile_leader_sums` on blocks of 32 to 1024 threads over an input
/// that ends inside the last block, against the host's block sums,
/// `tile_run_sums` (128-thread tiles copying runs into their rows in a
/// grid-stride loop) against the host's run sums, and `owned_pairs` (a
/// user's ownership map) against the host's layout.
pub fn check_tile_leader_sums(device: &Device, program: &Program) -> Result<(), Error> {
    for block in [32u32, 96, 256, 1024] {
        let n = 3 * block as usize - 17;
        let data: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2654435761) >> 12)
            .collect();
        let input = device.upload(&data)?;
        let mut out = device.zeros::<u32>(3)?;
        program.launch(
            k::tile_leader_sums,
            LaunchConfig::new(3, block),
            (&input, &mut out),
        )?;
        let want: Vec<u32> = data
            .chunks(block as usize)
            .map(|c| c.iter().fold(0u32, |a, &x| a.wrapping_add(x)))
            .collect();
        assert_eq!(
            device.download(&out)?,
            want,
            "tile_leader_sums, blocks of {block}"
        );
        // 128-thread tiles copying and summing runs in a grid-stride loop.
        if block >= 128 {
            for (n, blocks) in [(1usize, 1u32), (5000, 2), (40_000, 3)] {
                let data: Vec<u32> = (0..n as u32)
                    .map(|i| i.wrapping_mul(2654435761) >> 7)
                    .collect();
                let input = device.upload(&data)?;
                let mut sums = device.zeros::<u32>(n.div_ceil(512))?;
                program.launch(
                    k::tile_run_sums,
                    LaunchConfig::new(blocks, block),
                    (&input, &mut sums),
                )?;
                let want: Vec<u32> = data
                    .chunks(512)
                    .map(|c| c.iter().fold(0u32, |a, &x| a.wrapping_add(x)))
                    .collect();
                assert_eq!(
                    device.download(&sums)?,
                    want,
                    "tile_run_sums n {n}, {blocks} blocks of {block}"
                );
            }
        }
        // A user's map: pairs of elements a thread.
        let mut pairs = device.zeros::<u32>(3 * block as usize)?;
        program.launch(k::owned_pairs, LaunchConfig::new(3, block), (&mut pairs,))?;
        let want: Vec<u32> = (0..3 * block)
            .map(|g| 1000 * (g / block) + (2 * (g % block) + 3) % (2 * block))
            .collect();
        assert_eq!(
            device.download(&pairs)?,
            want,
            "owned_pairs, blocks of {block}"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_scans_and_publishes_as_documented() {
        assert_eq!(reference(Collective::Scans, &[3, 1, 4]), [3, 0, 4, 3, 8, 4]);
        assert_eq!(
            reference(Collective::Publish, &[3, 1, 4]),
            [1, 4, 4, 1, 3, 3]
        );
    }
}
