//! Sorting each block's (or warp's) tile, and a block's histogram of its
//! tile: coop's `coop::block` and `coop::warp` kernels of
//! `examples/kernels/src/tile_sort.rs` (coalesced loads through shared
//! memory, `RadixSort`, coalesced stores) beside their CUB twins
//! (`examples/bench/tile_sort.cu`: `BlockLoad`, `BlockRadixSort`,
//! `BlockStore`, `WarpLoad`, `WarpMergeSort`, `WarpStore`,
//! `BlockHistogram`; nvcc makes their PTX, named by `COOP_CUDA_PTX`), timed in
//! turns in one process. Every output is checked against the host's sort
//! of each tile. Needs a GPU; `examples/bench/tile_sort.sh` builds the
//! CUDA side and runs it. Prints CSV rows:
//!
//! ```text
//! tile_sort,<side>,<kernel>,<keys>,<median µs>,<G keys/s>
//! ```
//!
//! `COOP_LOGS` (default `20,24`) sets the sizes as powers of two,
//! `COOP_RUNS` (default 21) the timed rounds.

use coop_examples::kernels::tile_sort::{
    block_histogram_u8_128x8, tile_sort_pairs_u32_128x4, tile_sort_u32_128x4,
    tile_sort_u32_128x4_ws, tile_sort_u32_256x8, tile_sort_u32_256x8_ws, tile_sort_u64_128x4,
    warp_sort_u32_32x8,
};
use coop_examples::time_gpu_interleaved;
use coop_host::cudarc::driver::CudaSlice;
use coop_host::{Gpu, LaunchConfig};
use std::cell::RefCell;

/// Each tile of `tile` elements sorted by `key`, stably.
fn sorted_tiles<T: Copy, O: Ord>(v: &[T], tile: usize, key: impl Fn(&T) -> O) -> Vec<T> {
    let mut out = v.to_vec();
    for chunk in out.chunks_mut(tile) {
        chunk.sort_by_key(&key);
    }
    out
}

fn keys(n: usize) -> Vec<u64> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

fn main() {
    if !Gpu::driver_present() {
        eprintln!("tile_sort_bench needs an NVIDIA GPU");
        std::process::exit(2);
    }
    let gpu = Gpu::new(0).expect("a GPU");
    let sides = coop_examples::bench::sides(&gpu, "cub", "tile_sort.cu");
    let runs = coop_examples::bench::runs();
    let logs: Vec<u32> = std::env::var("COOP_LOGS")
        .unwrap_or_else(|_| "20,24".into())
        .split(',')
        .map(|l| l.trim().parse().expect("COOP_LOGS: powers of two"))
        .collect();
    coop_examples::bench::print_gpu(&gpu);
    println!("row,side,kernel,keys,median_us,Gkeys_per_s");
    for log in logs {
        let n = 1usize << log;
        let words = keys(n);
        let k32: Vec<u32> = words.iter().map(|&w| (w >> 32) as u32).collect();
        let v32: Vec<u32> = (0..n as u32).collect();
        let (d32, dv32, d64): (CudaSlice<u32>, CudaSlice<u32>, CudaSlice<u64>) = (
            gpu.upload(&k32).unwrap(),
            gpu.upload(&v32).unwrap(),
            gpu.upload(&words).unwrap(),
        );
        let bytes: Vec<u8> = words.iter().map(|&w| (w >> 24) as u8 % 200).collect();
        let d8: CudaSlice<u8> = gpu.upload(&bytes).unwrap();
        let names = [
            "u32_128x4",
            "u32_256x8",
            "u32_128x4_ws",
            "u32_256x8_ws",
            "u64_128x4",
            "pairs_u32_128x4",
            "warp_u32_32x8",
            "histogram_u8_128x8",
        ];
        let mut labels = Vec::new();
        let mut outs32: Vec<RefCell<(CudaSlice<u32>, CudaSlice<u32>)>> = Vec::new();
        let mut outs64: Vec<RefCell<CudaSlice<u64>>> = Vec::new();
        for (side, _) in &sides {
            for name in names {
                labels.push((side.clone(), name));
                outs32.push(RefCell::new((
                    gpu.zeros::<u32>(n).unwrap(),
                    gpu.zeros::<u32>(n).unwrap(),
                )));
                outs64.push(RefCell::new(gpu.zeros::<u64>(n).unwrap()));
            }
        }
        let mut launches: Vec<Box<dyn FnMut() + '_>> = Vec::new();
        for (i, (side, name)) in labels.iter().enumerate() {
            let m = &sides.iter().find(|(s, _)| s == side).unwrap().1;
            let (d32, dv32, d64, d8) = (&d32, &dv32, &d64, &d8);
            let (o32, o64) = (&outs32[i], &outs64[i]);
            let name = *name;
            launches.push(Box::new(move || {
                let (mut o, mut o64) = (o32.borrow_mut(), o64.borrow_mut());
                match name {
                    "u32_128x4" => m.launch(
                        tile_sort_u32_128x4,
                        LaunchConfig::new(n.div_ceil(512) as u32, 128),
                        (d32, &mut o.0),
                    ),
                    "u32_256x8" => m.launch(
                        tile_sort_u32_256x8,
                        LaunchConfig::new(n.div_ceil(2048) as u32, 256),
                        (d32, &mut o.0),
                    ),
                    "u32_128x4_ws" => m.launch(
                        tile_sort_u32_128x4_ws,
                        LaunchConfig::new(n.div_ceil(512) as u32, 128),
                        (d32, &mut o.0),
                    ),
                    "u32_256x8_ws" => m.launch(
                        tile_sort_u32_256x8_ws,
                        LaunchConfig::new(n.div_ceil(2048) as u32, 256),
                        (d32, &mut o.0),
                    ),
                    "u64_128x4" => m.launch(
                        tile_sort_u64_128x4,
                        LaunchConfig::new(n.div_ceil(512) as u32, 128),
                        (d64, &mut *o64),
                    ),
                    "warp_u32_32x8" => m.launch(
                        warp_sort_u32_32x8,
                        LaunchConfig::new(n.div_ceil(1024) as u32, 128),
                        (d32, &mut o.0),
                    ),
                    "histogram_u8_128x8" => m.launch(
                        block_histogram_u8_128x8,
                        LaunchConfig::new(n.div_ceil(1024) as u32, 128),
                        (d8, &mut o.0),
                    ),
                    _ => {
                        let (ko, vo) = &mut *o;
                        m.launch(
                            tile_sort_pairs_u32_128x4,
                            LaunchConfig::new(n.div_ceil(512) as u32, 128),
                            (d32, dv32, ko, vo),
                        )
                    }
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
        let want_512 = sorted_tiles(&k32, 512, |&k| k);
        let want_256 = sorted_tiles(&k32, 256, |&k| k);
        let mut want_counts = vec![0u32; n / 4];
        for (i, &b) in bytes.iter().enumerate() {
            want_counts[i / 1024 * 256 + b as usize] += 1;
        }
        let want_2048 = sorted_tiles(&k32, 2048, |&k| k);
        let want_64 = sorted_tiles(&words, 512, |&k| k);
        let pairs: Vec<(u32, u32)> = k32.iter().copied().zip(v32.iter().copied()).collect();
        let want_pairs = sorted_tiles(&pairs, 512, |p| p.0);
        for (i, (side, name)) in labels.iter().enumerate() {
            let ok = match *name {
                "u32_128x4" => gpu.download(&outs32[i].borrow().0).unwrap() == want_512,
                "u32_256x8" => gpu.download(&outs32[i].borrow().0).unwrap() == want_2048,
                "u32_128x4_ws" => gpu.download(&outs32[i].borrow().0).unwrap() == want_512,
                "u32_256x8_ws" => gpu.download(&outs32[i].borrow().0).unwrap() == want_2048,
                "u64_128x4" => gpu.download(&*outs64[i].borrow()).unwrap() == want_64,
                "warp_u32_32x8" => gpu.download(&outs32[i].borrow().0).unwrap() == want_256,
                "histogram_u8_128x8" => {
                    gpu.download(&outs32[i].borrow().0).unwrap()[..n / 4] == want_counts[..]
                }
                _ => {
                    let o = outs32[i].borrow();
                    let (k, v) = (gpu.download(&o.0).unwrap(), gpu.download(&o.1).unwrap());
                    k.into_iter().zip(v).collect::<Vec<_>>() == want_pairs
                }
            };
            assert!(ok, "{side} {name} differs from the host's sort at 2^{log}");
        }
        for ((side, name), t) in labels.iter().zip(times) {
            let us = coop_examples::bench::median_us(t);
            println!(
                "tile_sort,{side},{name},{n},{us:.2},{:.2}",
                n as f64 / (us * 1e-6) / 1e9
            );
        }
    }
}
