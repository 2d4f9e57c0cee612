//! A histogram with more bins than fit a block's shared memory: the bins
//! spread over a cluster's blocks (distributed shared memory) against each
//! block counting into its own copy of all bins (where they fit) and every
//! element adding into global memory; the kernels of
//! `examples/kernels/src/wide_histogram.rs`, timed in turns in one process
//! on a GPU (sm_90 for clusters). Prints CSV rows:
//!
//! ```text
//! hist,<global|block|cluster-C>,<bins>,<keys>,<median µs>,<G keys/s>
//! ```
//!
//! Keys are 2^26 pseudo-random `u32`s; every result is checked against
//! the host's histogram. Run: `cargo build --release -p coop-bench --bin
//! wide_histogram_bench`, then the binary on a GPU machine.

use coop_examples::kernels::wide_histogram::{
    wide_histogram_block, wide_histogram_cluster, wide_histogram_global,
};
use coop_examples::{time_gpu_interleaved, PTX};
use coop_host::{Gpu, LaunchConfig};
use std::cell::RefCell;

const THREADS: u32 = 256;
const RUNS: usize = 15;

fn main() {
    if !Gpu::driver_present() {
        eprintln!("wide_histogram_bench needs an NVIDIA GPU");
        std::process::exit(2);
    }
    let gpu = Gpu::new(0).expect("a GPU");
    let module = gpu.load(&PTX).expect("the example kernels");
    let limits = gpu.limits().clone();
    println!("# {} ({} SMs)", limits.name, limits.multiprocessors);
    let n = 1usize << 26;
    let keys: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761).rotate_left(11) ^ (i >> 3))
        .collect();
    let d_keys = gpu.upload(&keys).unwrap();
    let median = |mut v: Vec<f32>| {
        v.sort_by(f32::total_cmp);
        v[v.len() / 2] as f64 * 1e3
    };
    for bins in [4096u32, 16384, 49152, 65536, 131072] {
        let mut expected = vec![0u32; bins as usize];
        for &k in &keys {
            expected[(k % bins) as usize] += 1;
        }
        let out = RefCell::new(gpu.zeros::<u32>(bins as usize).unwrap());
        let (gpu, module, d_keys, out) = (&gpu, &module, &d_keys, &out);
        let mut sides: Vec<(String, Box<dyn FnMut() + '_>)> = Vec::new();
        let sms = limits.multiprocessors;
        let global_cfg = LaunchConfig::new(sms * 8, THREADS);
        sides.push((
            "global".into(),
            Box::new(move || {
                let mut o = out.borrow_mut();
                gpu.stream().memset_zeros(&mut *o).unwrap();
                module
                    .launch(wide_histogram_global, global_cfg, (d_keys, &mut *o))
                    .unwrap();
            }),
        ));
        let bytes = bins * 4;
        if bytes <= limits.max_shared_per_block_optin - 1024 {
            let per_sm = module
                .resident_blocks(wide_histogram_block, THREADS, bytes)
                .unwrap()
                .max(1);
            let cfg = LaunchConfig::new(sms * per_sm, THREADS).with_shared_memory(bytes);
            sides.push((
                "block".into(),
                Box::new(move || {
                    let mut o = out.borrow_mut();
                    gpu.stream().memset_zeros(&mut *o).unwrap();
                    module
                        .launch(wide_histogram_block, cfg, (d_keys, &mut *o))
                        .unwrap();
                }),
            ));
        }
        for cluster in [2u32, 4, 8] {
            let per = bins / cluster;
            if per * 4 > limits.max_shared_per_block_optin - 1024 {
                continue;
            }
            let per_sm = module
                .resident_blocks(wide_histogram_cluster, THREADS, per * 4)
                .unwrap()
                .max(1);
            let blocks = (sms * per_sm).div_ceil(cluster) * cluster;
            let cfg = LaunchConfig::new(blocks, THREADS)
                .with_cluster(cluster)
                .with_shared_memory(per * 4);
            sides.push((
                format!("cluster-{cluster}"),
                Box::new(move || {
                    let mut o = out.borrow_mut();
                    gpu.stream().memset_zeros(&mut *o).unwrap();
                    module
                        .launch(wide_histogram_cluster, cfg, (d_keys, &mut *o))
                        .unwrap();
                }),
            ));
        }
        let names: Vec<String> = sides.iter().map(|(n, _)| n.clone()).collect();
        // Each side once more, checked against the host.
        for (name, f) in sides.iter_mut() {
            f();
            let got = gpu.download(&*out.borrow()).unwrap();
            assert!(
                got == expected,
                "{name} with {bins} bins differs from the host"
            );
        }
        let mut refs: Vec<&mut dyn FnMut()> = sides
            .iter_mut()
            .map(|(_, f)| &mut **f as &mut dyn FnMut())
            .collect();
        let times = time_gpu_interleaved(gpu, RUNS, &mut refs, &mut || ());
        for (name, t) in names.into_iter().zip(times) {
            let us = median(t);
            println!("hist,{name},{bins},{n},{us:.1},{:.2}", n as f64 / us / 1e3);
        }
    }
}
