//! Matrix transpose: a copy of the same shape, a naive transpose, two
//! through a shared tile (plain and padded), and one whose tiles the copy
//! engine moves (tensor load, tensor store), checked against the host and
//! timed on a GPU against a device-to-device copy.

use super::gpu_of;
use crate::kernels::transpose::{
    copy_tiles, transpose_naive, transpose_padded, transpose_shared, transpose_tensor, Tile, ROWS,
    TILE,
};
use crate::time_gpu;
use coop_host::{Device, Error, LaunchConfig, Program, TensorMap, TensorMapMut};
use std::time::Duration;

/// The transpose of a `rows x cols` row-major matrix.
pub fn transpose_host(input: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = input[r * cols + c];
        }
    }
    out
}

/// One kernel's outcome.
#[derive(Clone, Debug)]
pub struct TransposeVersion {
    /// The kernel (or "cuMemcpyDtoD").
    pub name: &'static str,
    /// Whether its output is right (the copy's: equal to the input).
    pub correct: bool,
    /// Median time on a GPU.
    pub time: Option<Duration>,
}

impl TransposeVersion {
    /// Effective bandwidth: the matrix read once and written once.
    pub fn gb_per_s(&self, bytes: usize) -> Option<f64> {
        self.time
            .map(|t| 2.0 * bytes as f64 / t.as_secs_f64() / 1e9)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Kernel {
    Copy,
    Naive,
    Shared,
    Padded,
    Tensor,
}

/// Runs every version over a `rows x cols` matrix of distinct values.
pub fn run_transpose(
    device: &Device,
    program: &Program,
    rows: usize,
    cols: usize,
) -> Result<Vec<TransposeVersion>, Error> {
    let input: Vec<f32> = (0..rows * cols).map(|i| (i % 16_777_216) as f32).collect();
    let want = transpose_host(&input, rows, cols);
    let input_dev = device.upload(&input)?;
    let mut out = device.zeros::<f32>(rows * cols)?;
    let cfg = LaunchConfig::new(
        (cols.div_ceil(TILE) as u32, rows.div_ceil(TILE) as u32),
        (TILE as u32, ROWS as u32),
    );
    let (r, c) = (rows as u32, cols as u32);
    let mut versions = Vec::new();
    if let (Some(gpu), Device::Gpu(_)) = (gpu_of(device), device) {
        let (coop_host::Buffer::Gpu(src), coop_host::Buffer::Gpu(dst)) = (&input_dev, &mut out)
        else {
            unreachable!("buffers of a GPU device live on it")
        };
        let time = time_gpu(gpu, 21, || gpu.stream().memcpy_dtod(src, dst).unwrap());
        versions.push(TransposeVersion {
            name: "cuMemcpyDtoD",
            correct: true,
            time: Some(time),
        });
    }
    for (name, kernel) in [
        ("copy_tiles", Kernel::Copy),
        ("transpose_naive", Kernel::Naive),
        ("transpose_shared", Kernel::Shared),
        ("transpose_padded", Kernel::Padded),
        ("transpose_tensor", Kernel::Tensor),
    ] {
        // Tensor copies need sm_90 (the CPU backend has them too), and
        // tensor stores rows of a multiple of 16 bytes.
        if kernel == Kernel::Tensor
            && (!rows.is_multiple_of(4) || gpu_of(device).is_some_and(|g| g.limits().sm < 90))
        {
            continue;
        }
        let launch = |out: &mut coop_host::Buffer<f32>| match kernel {
            Kernel::Copy => program.launch(copy_tiles, cfg, (r, c, &input_dev, out)),
            Kernel::Naive => program.launch(transpose_naive, cfg, (r, c, &input_dev, out)),
            Kernel::Shared => program.launch(transpose_shared, cfg, (r, c, &input_dev, out)),
            Kernel::Padded => program.launch(transpose_padded, cfg, (r, c, &input_dev, out)),
            Kernel::Tensor => unreachable!("launched below, with its maps"),
        };
        if kernel == Kernel::Tensor {
            // The maps are made once, outside the timing; the output's map
            // borrows it until the download.
            let from = TensorMap::<Tile>::new(device, &input_dev, [rows, cols])?;
            // A block takes every `blocks`-th tile: a grid of about the
            // blocks an H100 or H200 holds at once.
            let tiles = rows.div_ceil(TILE) * cols.div_ceil(TILE);
            let persistent =
                LaunchConfig::new(tiles.min(132 * 8) as u32, (TILE as u32, ROWS as u32));
            let time = {
                let to = TensorMapMut::<Tile>::new(device, &mut out, [cols, rows])?;
                program.launch(transpose_tensor, persistent, (r, c, &from, &to))?;
                gpu_of(device).map(|gpu| {
                    time_gpu(gpu, 21, || {
                        program
                            .launch(transpose_tensor, persistent, (r, c, &from, &to))
                            .unwrap()
                    })
                })
            };
            versions.push(TransposeVersion {
                name,
                correct: device.download(&out)? == want,
                time,
            });
            continue;
        }
        launch(&mut out)?;
        let got = device.download(&out)?;
        let correct = if kernel == Kernel::Copy {
            got == input
        } else {
            got == want
        };
        let time = gpu_of(device).map(|gpu| time_gpu(gpu, 21, || launch(&mut out).unwrap()));
        versions.push(TransposeVersion {
            name,
            correct,
            time,
        });
    }
    Ok(versions)
}
