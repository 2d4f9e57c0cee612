//! Tiles that every block of a cluster needs: loaded once a cluster by the
//! copy engine's multicast (`cluster_sums_multicast`), or by each block
//! itself (`cluster_sums_each`), the kernels of
//! `examples/kernels/src/multicast.rs`, timed in turns in one process for
//! clusters of 1, 2, 4 and 8 blocks, each grid the most clusters the GPU
//! holds at once. Every block's sum is checked against the host's, and the
//! two kernels' sums against each other (bit for bit). Needs a GPU. Prints
//! CSV rows:
//!
//! ```text
//! multicast,<kernel>,<floats>,<cluster>,<blocks>,<median µs>,<GB/s of input>,<GB/s delivered>
//! ```
//!
//! "Delivered" counts every block's copy of every tile (the cluster's
//! blocks times the input), "input" the input once.

use coop_examples::kernels::multicast::{cluster_sums_each, cluster_sums_multicast, RowTile, ROW};
use coop_examples::{time_gpu_interleaved, PTX};
use coop_host::cudarc::driver::CudaSlice;
use coop_host::{Gpu, LaunchConfig, TensorMap};

const THREADS: u32 = 256;

fn main() {
    if !Gpu::driver_present() {
        eprintln!("multicast_bench needs an NVIDIA GPU");
        std::process::exit(2);
    }
    let gpu = Gpu::new(0).expect("a GPU");
    let m = gpu.load(&PTX).expect("coop's example kernels");
    let runs = coop_examples::bench::runs();
    let logs: Vec<u32> = std::env::var("COOP_LOGS")
        .unwrap_or_else(|_| "24,28".into())
        .split(',')
        .map(|l| l.trim().parse().expect("COOP_LOGS: powers of two"))
        .collect();
    let clusters: Vec<u32> = std::env::var("COOP_CLUSTERS")
        .unwrap_or_else(|_| "1,2,4,8".into())
        .split(',')
        .map(|l| l.trim().parse().expect("COOP_CLUSTERS: cluster sizes"))
        .collect();
    coop_examples::bench::print_gpu(&gpu);
    println!("row,kernel,floats,cluster,blocks,median_us,GBps_input,GBps_delivered");
    for log in logs {
        let n = 1usize << log;
        let rows = n / ROW;
        let host: Vec<f32> = (0..n).map(|i| ((i % 1021) as f32 - 510.0) / 64.0).collect();
        let input: CudaSlice<f32> = gpu.upload(&host).unwrap();
        let map = TensorMap::<RowTile>::gpu(&gpu, &input, [rows, ROW]).unwrap();
        let tile_sums: Vec<f64> = host
            .chunks(8 * ROW)
            .map(|t| t.iter().map(|&x| x as f64).sum())
            .collect();
        let mut labels = Vec::new();
        let mut outs = Vec::new();
        let mut plans = Vec::new();
        for &c in &clusters {
            let cfg = LaunchConfig::new(c, THREADS).with_cluster(c);
            let fit = if c == 1 {
                m.max_cooperative_blocks(cluster_sums_multicast, THREADS, 0)
                    .unwrap()
                    .min(
                        m.max_cooperative_blocks(cluster_sums_each, THREADS, 0)
                            .unwrap(),
                    )
            } else {
                m.max_active_clusters(cluster_sums_multicast, cfg)
                    .unwrap()
                    .min(m.max_active_clusters(cluster_sums_each, cfg).unwrap())
            };
            let blocks = fit * c;
            for kernel in ["cluster_sums_multicast", "cluster_sums_each"] {
                labels.push((kernel, c, blocks));
                outs.push(std::cell::RefCell::new(
                    gpu.zeros::<f32>(blocks as usize).unwrap(),
                ));
                plans.push((kernel, c, blocks));
            }
        }
        let mut launches: Vec<Box<dyn FnMut() + '_>> = Vec::new();
        for (i, &(kernel, c, blocks)) in plans.iter().enumerate() {
            let (m, map, out) = (&m, &map, &outs[i]);
            let cfg = LaunchConfig::new(blocks, THREADS).with_cluster(c);
            launches.push(Box::new(move || {
                let mut out = out.borrow_mut();
                let args = (map, rows as u32, &mut *out);
                match kernel {
                    "cluster_sums_multicast" => m.launch(cluster_sums_multicast, cfg, args),
                    _ => m.launch(cluster_sums_each, cfg, args),
                }
                .unwrap()
            }));
        }
        let mut refs: Vec<&mut dyn FnMut()> = launches
            .iter_mut()
            .map(|f| &mut **f as &mut dyn FnMut())
            .collect();
        let times = time_gpu_interleaved(&gpu, runs, &mut refs, &mut || ());
        drop(refs);
        drop(launches);
        let sums: Vec<Vec<f32>> = outs
            .iter()
            .map(|o| gpu.download(&*o.borrow()).unwrap())
            .collect();
        for (i, &(kernel, c, blocks)) in plans.iter().enumerate() {
            let clusters_n = (blocks / c) as usize;
            for (b, &got) in sums[i].iter().enumerate() {
                let (cl, r) = (b / c as usize, b % c as usize);
                let want: f64 =
                    tile_sums.iter().skip(cl).step_by(clusters_n).sum::<f64>() * (r + 1) as f64;
                let err = (got as f64 - want).abs();
                assert!(
                    err <= 1e-3 * want.abs().max(1e3),
                    "{kernel} clusters of {c}, block {b}: {got} where the host has {want}"
                );
            }
            if i % 2 == 1 {
                assert!(
                    sums[i] == sums[i - 1],
                    "clusters of {c}: the two kernels' sums differ"
                );
            }
        }
        for ((kernel, c, blocks), t) in labels.iter().zip(times) {
            let us = coop_examples::bench::median_us(t);
            let bytes = 4.0 * n as f64;
            println!(
                "multicast,{kernel},{n},{c},{blocks},{us:.2},{:.0},{:.0}",
                bytes / (us * 1e-6) / 1e9,
                *c as f64 * bytes / (us * 1e-6) / 1e9
            );
        }
    }
}
