//! Transposing a square `f32` matrix: coop's padded-tile kernel and its
//! copy-engine kernel (`transpose_padded`, `transpose_tensor` of
//! `examples/kernels/src/transpose.rs`) beside their CUDA C++ twins
//! (`examples/bench/transpose_tensor.cu`, loaded from the PTX nvcc makes
//! of it, named by `COOP_CUDA_PTX`) and the driver's device-to-device copy
//! of the same bytes, timed in turns in one process (medians of
//! `COOP_RUNS`, 21 by default). Every output is checked against the host's
//! transpose. `transpose_tensor` runs on a grid of the blocks the GPU
//! holds at once (each block takes every `blocks`-th tile); the padded
//! kernels on one block a tile. Needs a GPU of sm_90 or newer; `examples/bench/transpose_tensor.sh`
//! builds the CUDA side and runs it. Prints CSV rows:
//!
//! ```text
//! transpose,<side>,<kernel>,<n>,<median µs>,<GB/s read+write>,<% of the driver's copy>
//! ```
//!
//! `COOP_SIZES` lists the matrix sides (default `4096,8192,16384`).

use coop_examples::kernels::transpose::{transpose_padded, transpose_tensor, Tile, ROWS, TILE};
use coop_examples::time_gpu_interleaved;
use coop_host::cudarc::driver::CudaSlice;
use coop_host::{Gpu, LaunchConfig, TensorMap, TensorMapMut};
use std::cell::RefCell;

fn main() {
    if !Gpu::driver_present() {
        eprintln!("transpose_bench needs an NVIDIA GPU");
        std::process::exit(2);
    }
    let gpu = Gpu::new(0).expect("a GPU");
    let sides = coop_examples::bench::sides(&gpu, "cuda", "transpose_tensor.cu");
    let runs = coop_examples::bench::runs();
    let sizes: Vec<usize> = std::env::var("COOP_SIZES")
        .unwrap_or_else(|_| "4096,8192,16384".into())
        .split(',')
        .map(|s| {
            s.trim()
                .parse()
                .expect("COOP_SIZES: matrix sides, comma-separated")
        })
        .collect();
    coop_examples::bench::print_gpu(&gpu);
    println!("row,side,kernel,n,median_us,GBps,percent_of_copy");
    for n in sizes {
        let host: Vec<f32> = (0..n * n).map(|i| (i % 16_777_213) as f32).collect();
        let mut want = vec![0f32; n * n];
        for r in 0..n {
            for c in 0..n {
                want[c * n + r] = host[r * n + c];
            }
        }
        let input: CudaSlice<f32> = gpu.upload(&host).unwrap();
        let cfg = LaunchConfig::new(
            (n.div_ceil(TILE) as u32, n.div_ceil(TILE) as u32),
            (TILE as u32, ROWS as u32),
        );
        // One output per side and kernel, and the tensor maps, made before
        // the timing.
        let padded_outs: Vec<RefCell<CudaSlice<f32>>> = sides
            .iter()
            .map(|_| RefCell::new(gpu.zeros::<f32>(n * n).unwrap()))
            .collect();
        let mut tensor_outs: Vec<CudaSlice<f32>> = sides
            .iter()
            .map(|_| gpu.zeros::<f32>(n * n).unwrap())
            .collect();
        let in_map = TensorMap::<Tile>::gpu(&gpu, &input, [n, n]).unwrap();
        let out_maps: Vec<TensorMapMut<'_, Tile>> = tensor_outs
            .iter_mut()
            .map(|o| TensorMapMut::gpu(&gpu, o, [n, n]).unwrap())
            .collect();
        let mut copy_out = gpu.zeros::<f32>(n * n).unwrap();
        let mut labels = Vec::new();
        let mut launches: Vec<Box<dyn FnMut() + '_>> = Vec::new();
        for (s, (side, m)) in sides.iter().enumerate() {
            let (input, out) = (&input, &padded_outs[s]);
            labels.push((side.clone(), "transpose_padded"));
            launches.push(Box::new(move || {
                let mut out = out.borrow_mut();
                m.launch(
                    transpose_padded,
                    cfg,
                    (n as u32, n as u32, input, &mut *out),
                )
                .unwrap()
            }));
            let (in_map, out_map) = (&in_map, &out_maps[s]);
            let tiles = n.div_ceil(TILE).pow(2);
            let resident = m
                .max_cooperative_blocks(transpose_tensor, (TILE * ROWS) as u32, 0)
                .unwrap();
            let persistent =
                LaunchConfig::new(resident.min(tiles as u32), (TILE as u32, ROWS as u32));
            labels.push((side.clone(), "transpose_tensor"));
            launches.push(Box::new(move || {
                m.launch(
                    transpose_tensor,
                    persistent,
                    (n as u32, n as u32, in_map, out_map),
                )
                .unwrap()
            }));
        }
        {
            let (input, copy_out, gpu) = (&input, &mut copy_out, &gpu);
            labels.push(("driver".into(), "memcpy_dtod"));
            launches.push(Box::new(move || {
                gpu.stream().memcpy_dtod(input, copy_out).unwrap()
            }));
        }
        let mut refs: Vec<&mut dyn FnMut()> = launches
            .iter_mut()
            .map(|f| &mut **f as &mut dyn FnMut())
            .collect();
        let times = time_gpu_interleaved(&gpu, runs, &mut refs, &mut || ());
        drop(refs);
        drop(launches);
        drop(out_maps);
        for (s, (side, _)) in sides.iter().enumerate() {
            let got = gpu.download(&*padded_outs[s].borrow()).unwrap();
            assert!(got == want, "{side} transpose_padded is wrong at n = {n}");
            let got = gpu.download(&tensor_outs[s]).unwrap();
            assert!(got == want, "{side} transpose_tensor is wrong at n = {n}");
        }
        let bytes = 2.0 * 4.0 * (n * n) as f64;
        let medians: Vec<f64> = times
            .into_iter()
            .map(coop_examples::bench::median_us)
            .collect();
        let copy = *medians.last().unwrap();
        for ((side, kernel), us) in labels.iter().zip(&medians) {
            println!(
                "transpose,{side},{kernel},{n},{us:.2},{:.0},{:.1}",
                bytes / (us * 1e-6) / 1e9,
                100.0 * copy / us
            );
        }
    }
}
