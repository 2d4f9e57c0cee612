//! The problems of NVIDIA's small cooperative-groups samples
//! (`warpAggregatedAtomicsCG`, `binaryPartitionCG`, `reductionMultiBlockCG`,
//! `shfl_scan`, the cooperative-groups kernels of `reduction`,
//! `simpleCooperativeGroups`):
//! inputs from a fixed seed at the samples' sizes, one launch of each
//! kernel on a device (coop's or, through the same descriptors, the CUDA
//! twins'), and the host's checks.

use crate::kernels::cg_samples::{
    cg_kernel, cg_reduce, filter_arr, map_to_buckets, max_in_buckets, multi_warp_cg_reduce,
    odd_even_count_and_sum, reduce6, reduce_single_pass, reduce_single_pass_dense, scan_blocks,
    uniform_add, AGGREGATE_THREADS, REDUCTION_THREADS,
};
use coop_host::{Buffer, Device, Error, LaunchConfig, Program};

/// Elements of `shfl_scan`'s simple scan, and its blocks.
pub const SCAN_ELEMENTS: usize = 65536;
/// Threads a block of the simple scan.
pub const SCAN_THREADS: u32 = 256;

/// The buckets of `warpAggregatedAtomicsCG`.
pub const BUCKETS: usize = 5;

/// Blocks of the `reduction` sample's kernels 6, 8 and 9 (its default
/// `maxBlocks`; the sample adds the blocks' sums on the host with
/// `--cpufinal`, as the check here does).
pub const REDUCTION_BLOCKS: u32 = 64;

/// Threads of `simpleCooperativeGroups`' one block.
pub const SIMPLE_THREADS: u32 = 64;

/// `n` values from a fixed seed, each `below` a bound.
pub fn values(n: usize, below: u32, seed: u32) -> Vec<i32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            ((s >> 1) % below) as i32
        })
        .collect()
}

/// The sizes a run uses: the samples' on a GPU, smaller on the CPU
/// backend.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    /// Elements of the warp-aggregated-atomics sample (10 000 000).
    pub aggregate: usize,
    /// Elements of the binary-partition sample (102 400).
    pub partition: usize,
    /// Elements of the multi-block reduction (2^25).
    pub reduction: usize,
    /// Elements of the `reduction` sample's `int` sums (2^24).
    pub int_reduction: usize,
}

impl Sizes {
    /// The samples' sizes.
    pub const SAMPLES: Sizes = Sizes {
        aggregate: 10_000_000,
        partition: 1024 * 100,
        reduction: 1 << 25,
        int_reduction: 1 << 24,
    };
    /// Sizes the CPU backend runs in a second or two.
    pub const SMALL: Sizes = Sizes {
        aggregate: 20_000,
        partition: 1024 * 8,
        reduction: 1 << 15,
        int_reduction: 1 << 14,
    };
}

/// One sample's buffers on a device.
pub struct Samples {
    /// The bucket of each element (0 to 4), as the sample draws them.
    pub buckets: Vec<i32>,
    /// The values whose maxima the buckets keep.
    pub bucket_values: Vec<i32>,
    /// The binary-partition input (0 to 49).
    pub odd_even: Vec<i32>,
    /// The reduction's input.
    pub floats: Vec<f32>,
    /// The `reduction` sample's input (0 to 99, so that its sum fits an
    /// `i32`).
    pub ints: Vec<i32>,
    src: Buffer<i32>,
    values: Buffer<i32>,
    dst: Buffer<i32>,
    count: Buffer<i32>,
    indices: Buffer<i32>,
    counters: Buffer<i32>,
    maxima: Buffer<i32>,
    partition_input: Buffer<i32>,
    odds: Buffer<i32>,
    sums: Buffer<i32>,
    reduce_input: Buffer<f32>,
    partial: Buffer<f32>,
    scan_data: Buffer<i32>,
    scan_totals: Buffer<i32>,
    scan_unused: Buffer<i32>,
    int_input: Buffer<i32>,
    block_sums: Buffer<i32>,
    simple_sums: Buffer<i32>,
}

/// Which kernel a launch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// `filter_arr`.
    Filter,
    /// `map_to_buckets`.
    Buckets,
    /// `max_in_buckets`.
    Maxima,
    /// `odd_even_count_and_sum`.
    OddEven,
    /// `reduce_single_pass`.
    Reduce,
    /// `reduce_single_pass_dense`: two blocks a multiprocessor.
    ReduceDense,
    /// `scan_blocks` twice and `uniform_add`: `shfl_scan`'s simple scan.
    Scan,
    /// `reduce6`: `reduction`'s kernel 6.
    Reduce6,
    /// `cg_reduce`: `reduction`'s kernel 8.
    CgReduce,
    /// `multi_warp_cg_reduce`: `reduction`'s kernel 9.
    MultiWarpCgReduce,
    /// `cg_kernel`: `simpleCooperativeGroups`.
    Simple,
}

impl Kernel {
    /// Every kernel, in the order the samples run them.
    pub const ALL: [Kernel; 11] = [
        Kernel::Filter,
        Kernel::Buckets,
        Kernel::Maxima,
        Kernel::OddEven,
        Kernel::Reduce,
        Kernel::ReduceDense,
        Kernel::Scan,
        Kernel::Reduce6,
        Kernel::CgReduce,
        Kernel::MultiWarpCgReduce,
        Kernel::Simple,
    ];

    /// Launches a timing sample runs back to back: 20 for the kernels of
    /// a few microseconds whose repeated launches leave their results
    /// valid (they rewrite them, or only add to counters or scan data that
    /// the check does not read after a timing run: a repeated scan wraps
    /// around, as the GPU's integers do), one for the rest, whose counters
    /// place the next launch's writes.
    pub fn launches_a_sample(self) -> usize {
        match self {
            Kernel::OddEven
            | Kernel::Reduce
            | Kernel::ReduceDense
            | Kernel::Simple
            | Kernel::Scan => 20,
            _ => 1,
        }
    }

    /// The sample and kernel, for reports.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Filter => "warpAggregatedAtomicsCG filter_arr",
            Kernel::Buckets => "warpAggregatedAtomicsCG mapToBuckets",
            Kernel::Maxima => "warpAggregatedAtomicsCG calculateMaxInEachBuckets",
            Kernel::OddEven => "binaryPartitionCG oddEvenCountAndSumCG",
            Kernel::Reduce => "reductionMultiBlockCG reduceSinglePassMultiBlockCG",
            Kernel::ReduceDense => "reductionMultiBlockCG on two blocks a multiprocessor",
            Kernel::Scan => "shfl_scan simple scan (3 launches)",
            Kernel::Reduce6 => "reduction reduce6 (kernel 6)",
            Kernel::CgReduce => "reduction cg_reduce (kernel 8)",
            Kernel::MultiWarpCgReduce => "reduction multi_warp_cg_reduce (kernel 9)",
            Kernel::Simple => "simpleCooperativeGroups cgkernel",
        }
    }
}

/// The launch shapes of the kernels whose grid depends on the device.
#[derive(Clone, Copy, Debug)]
pub struct Shapes {
    /// `odd_even_count_and_sum`'s grid and block.
    pub odd_even: LaunchConfig,
    /// `reduce_single_pass`'s blocks of [`REDUCE_THREADS`].
    pub reduce_blocks: u32,
    /// `reduce_single_pass_dense`'s blocks of [`REDUCE_THREADS`].
    pub dense_blocks: u32,
}

/// The launch shape of the reduction: blocks of 1024 threads, as many as
/// fit at once (the sample's occupancy query), and the CUDA twin's dynamic
/// shared memory (a `double` a thread; coop's kernel takes none).
pub const REDUCE_THREADS: u32 = 1024;

impl Samples {
    /// The inputs at `sizes`, uploaded to `device`.
    pub fn new(device: &Device, sizes: Sizes) -> Result<Self, Error> {
        let buckets = values(sizes.aggregate, BUCKETS as u32, 0x2545_f491);
        let bucket_values = values(sizes.aggregate, i32::MAX as u32, 0x9e37_79b9);
        let odd_even = values(sizes.partition, 50, 0x1234_5678);
        let floats: Vec<f32> = values(sizes.reduction, 256, 0x0bad_cafe)
            .iter()
            .map(|&v| v as f32 / i32::MAX as f32)
            .collect();
        let ints = values(sizes.int_reduction, 100, 0x5eed_1234);
        Ok(Samples {
            src: device.upload(&buckets)?,
            values: device.upload(&bucket_values)?,
            dst: device.zeros(sizes.aggregate)?,
            count: device.zeros(1)?,
            indices: device.zeros(sizes.aggregate * BUCKETS)?,
            counters: device.zeros(BUCKETS)?,
            maxima: device.zeros(BUCKETS)?,
            partition_input: device.upload(&odd_even)?,
            odds: device.zeros(1)?,
            sums: device.zeros(2)?,
            reduce_input: device.upload(&floats)?,
            partial: device.zeros(1024)?,
            scan_data: device.upload(&vec![1i32; SCAN_ELEMENTS])?,
            scan_totals: device.zeros(SCAN_ELEMENTS / SCAN_THREADS as usize)?,
            scan_unused: device.zeros(1)?,
            int_input: device.upload(&ints)?,
            block_sums: device.zeros(REDUCTION_BLOCKS as usize)?,
            simple_sums: device.zeros(1 + SIMPLE_THREADS as usize / 16)?,
            ints,
            buckets,
            bucket_values,
            odd_even,
            floats,
        })
    }

    /// Sets the counters a kernel adds to back to their starting values
    /// (the bucket counters at `b * n`, as the sample sets them).
    pub fn reset(&mut self, device: &Device, kernel: Kernel) -> Result<(), Error> {
        let n = self.buckets.len() as i32;
        match kernel {
            Kernel::Filter => device.upload_into(&[0], &mut self.count),
            Kernel::Buckets => {
                let starts: Vec<i32> = (0..BUCKETS as i32).map(|b| b * n).collect();
                device.upload_into(&starts, &mut self.counters)
            }
            Kernel::Maxima => device.upload_into(&[0; BUCKETS], &mut self.maxima),
            Kernel::OddEven => {
                device.upload_into(&[0], &mut self.odds)?;
                device.upload_into(&[0, 0], &mut self.sums)
            }
            Kernel::Reduce | Kernel::ReduceDense => Ok(()),
            Kernel::Reduce6 | Kernel::CgReduce | Kernel::MultiWarpCgReduce => {
                device.upload_into(&[0; REDUCTION_BLOCKS as usize], &mut self.block_sums)
            }
            Kernel::Simple => device.upload_into(
                &[0; 1 + SIMPLE_THREADS as usize / 16],
                &mut self.simple_sums,
            ),
            Kernel::Scan => device.upload_into(&vec![1i32; SCAN_ELEMENTS], &mut self.scan_data),
        }
    }

    /// The shapes the binary-partition and reduction launches take on
    /// `program`: the block size that keeps the most threads resident and
    /// its full grid for the first (the sample's occupancy query), and the
    /// blocks of [`REDUCE_THREADS`] that fit at once, with `shared` bytes
    /// of dynamic shared memory a block, for the second. A comparison
    /// takes one side's shapes for both.
    pub fn shapes(program: &Program, shared: u32) -> Result<Shapes, Error> {
        let best = program.occupancy_block_size(odd_even_count_and_sum, |_| 0)?;
        Ok(Shapes {
            odd_even: LaunchConfig::new(best.grid_blocks, best.block_threads),
            reduce_blocks: program
                .max_cooperative_blocks(reduce_single_pass, REDUCE_THREADS, shared)?
                .min(1024),
            dense_blocks: program
                .max_cooperative_blocks(reduce_single_pass_dense, REDUCE_THREADS, shared)?
                .min(1024),
        })
    }

    /// Launches `kernel` once on `program`, the binary partition and the
    /// reduction in `shapes` (`shared` bytes of dynamic shared memory for
    /// the reduction: the CUDA twin's).
    pub fn launch(
        &mut self,
        program: &Program,
        kernel: Kernel,
        shapes: &Shapes,
        shared: u32,
    ) -> Result<(), Error> {
        let n = self.buckets.len();
        let aggregate =
            LaunchConfig::new((n as u32).div_ceil(AGGREGATE_THREADS), AGGREGATE_THREADS);
        match kernel {
            Kernel::Filter => program.launch(
                filter_arr,
                aggregate,
                (&mut self.dst, &mut self.count, &self.src),
            ),
            Kernel::Buckets => program.launch(
                map_to_buckets,
                aggregate,
                (&self.src, &mut self.indices, &mut self.counters),
            ),
            Kernel::Maxima => program.launch(
                max_in_buckets,
                aggregate,
                (&self.src, &self.values, &mut self.maxima),
            ),
            Kernel::OddEven => program.launch(
                odd_even_count_and_sum,
                shapes.odd_even,
                (&self.partition_input, &mut self.odds, &mut self.sums),
            ),
            Kernel::Reduce => program.launch(
                reduce_single_pass,
                LaunchConfig::new(shapes.reduce_blocks, REDUCE_THREADS).with_shared_memory(shared),
                (&self.reduce_input, &mut self.partial),
            ),
            Kernel::ReduceDense => program.launch(
                reduce_single_pass_dense,
                LaunchConfig::new(shapes.dense_blocks, REDUCE_THREADS).with_shared_memory(shared),
                (&self.reduce_input, &mut self.partial),
            ),
            Kernel::Scan => {
                // The sample's three launches; its dynamic shared memory
                // (an `int` a warp) only for the CUDA twin (`shared` > 0).
                let blocks = (SCAN_ELEMENTS as u32) / SCAN_THREADS;
                let dynamic = |threads: u32| if shared > 0 { 4 * threads / 32 } else { 0 };
                let totals_threads = blocks.min(SCAN_THREADS);
                program.launch(
                    scan_blocks,
                    LaunchConfig::new(blocks, SCAN_THREADS)
                        .with_shared_memory(dynamic(SCAN_THREADS)),
                    (&mut self.scan_data, &mut self.scan_totals),
                )?;
                program.launch(
                    scan_blocks,
                    LaunchConfig::new(blocks.div_ceil(totals_threads), totals_threads)
                        .with_shared_memory(dynamic(totals_threads)),
                    (&mut self.scan_totals, &mut self.scan_unused),
                )?;
                program.launch(
                    uniform_add,
                    LaunchConfig::new(blocks - 1, SCAN_THREADS),
                    (&mut self.scan_data, &self.scan_totals),
                )
            }
            Kernel::Reduce6 | Kernel::CgReduce | Kernel::MultiWarpCgReduce => {
                // The CUDA twins' dynamic shared memory: an `int` a thread.
                let config = LaunchConfig::new(REDUCTION_BLOCKS, REDUCTION_THREADS)
                    .with_shared_memory(if shared > 0 { 4 * REDUCTION_THREADS } else { 0 });
                let args = (&self.int_input, &mut self.block_sums);
                match kernel {
                    Kernel::Reduce6 => program.launch(reduce6, config, args),
                    Kernel::CgReduce => program.launch(cg_reduce, config, args),
                    _ => program.launch(multi_warp_cg_reduce, config, args),
                }
            }
            Kernel::Simple => program.launch(
                cg_kernel,
                LaunchConfig::new(1, SIMPLE_THREADS).with_shared_memory(if shared > 0 {
                    4 * SIMPLE_THREADS
                } else {
                    0
                }),
                (&mut self.simple_sums,),
            ),
        }
    }

    /// Checks `kernel`'s last results against the host's; the message
    /// names what differs.
    pub fn check(&self, device: &Device, kernel: Kernel) -> Result<(), String> {
        let err = |e: Error| e.to_string();
        let n = self.buckets.len();
        match kernel {
            Kernel::Filter => {
                let count = device.download(&self.count).map_err(err)?[0] as usize;
                let mut got = device.download(&self.dst).map_err(err)?;
                got.truncate(count);
                got.sort_unstable();
                let mut want: Vec<i32> = self.buckets.iter().copied().filter(|&v| v > 0).collect();
                want.sort_unstable();
                (got == want)
                    .then_some(())
                    .ok_or(format!("filtered {count} values, the host {}", want.len()))
            }
            Kernel::Buckets => {
                let counters = device.download(&self.counters).map_err(err)?;
                let indices = device.download(&self.indices).map_err(err)?;
                for (b, &counter) in counters.iter().enumerate() {
                    let want: Vec<i32> = (0..n as i32)
                        .filter(|&i| self.buckets[i as usize] == b as i32)
                        .collect();
                    let start = b * n;
                    let filled = counter as usize - start;
                    let mut got = indices[start..start + filled].to_vec();
                    got.sort_unstable();
                    if got != want {
                        return Err(format!(
                            "bucket {b}: {filled} indices, the host {}",
                            want.len()
                        ));
                    }
                }
                Ok(())
            }
            Kernel::Maxima => {
                let got = device.download(&self.maxima).map_err(err)?;
                let mut want = [0i32; BUCKETS];
                for (&b, &v) in self.buckets.iter().zip(&self.bucket_values) {
                    want[b as usize] = want[b as usize].max(v);
                }
                (got == want)
                    .then_some(())
                    .ok_or(format!("maxima {got:?}, the host's {want:?}"))
            }
            Kernel::OddEven => {
                let odds = device.download(&self.odds).map_err(err)?[0];
                let sums = device.download(&self.sums).map_err(err)?;
                let odd: Vec<i32> = self
                    .odd_even
                    .iter()
                    .copied()
                    .filter(|v| v & 1 == 1)
                    .collect();
                let want = (
                    odd.len() as i32,
                    odd.iter().sum::<i32>(),
                    self.odd_even.iter().filter(|v| *v & 1 == 0).sum::<i32>(),
                );
                (want == (odds, sums[0], sums[1]))
                    .then_some(())
                    .ok_or(format!("odds {odds}, sums {sums:?}; the host {want:?}"))
            }
            Kernel::Scan => {
                let got = device.download(&self.scan_data).map_err(err)?;
                match got.iter().enumerate().find(|(i, &v)| v != *i as i32 + 1) {
                    None => Ok(()),
                    Some((i, v)) => Err(format!("element {i} is {v}, the host's {}", i + 1)),
                }
            }
            Kernel::Reduce6 | Kernel::CgReduce | Kernel::MultiWarpCgReduce => {
                // The sample's `--cpufinal`: the host adds the blocks' sums.
                let sums = device.download(&self.block_sums).map_err(err)?;
                let got: i64 = sums.iter().map(|&s| s as i64).sum();
                let want: i64 = self.ints.iter().map(|&v| v as i64).sum();
                (got == want)
                    .then_some(())
                    .ok_or(format!("sum {got}, the host's {want}"))
            }
            Kernel::Simple => {
                let got = device.download(&self.simple_sums).map_err(err)?;
                let t = SIMPLE_THREADS as i32;
                let mut want = vec![(t - 1) * t / 2];
                want.extend(std::iter::repeat_n(15 * 16 / 2, t as usize / 16));
                (got == want)
                    .then_some(())
                    .ok_or(format!("sums {got:?}, the sample expects {want:?}"))
            }
            Kernel::Reduce | Kernel::ReduceDense => {
                let got = device.download(&self.partial).map_err(err)?[0] as f64;
                let want: f64 = self.floats.iter().map(|&v| v as f64).sum();
                ((got - want).abs() <= 1e-5 * want.abs())
                    .then_some(())
                    .ok_or(format!("sum {got}, the host's {want}"))
            }
        }
    }
}
