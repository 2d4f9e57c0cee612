//! Matrix transpose: a copy of the same shape, a naive transpose, and two
//! through a shared tile (plain and padded), checked against the host and
//! timed on a GPU against a device-to-device copy.

use super::gpu_of;
use crate::kernels::transpose::{
    copy_tiles, transpose_naive, transpose_padded, transpose_shared, ROWS, TILE,
};
use crate::time_gpu;
use coop_host::{Device, Error, LaunchConfig, Program};
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
    ] {
        let launch = |out: &mut coop_host::Buffer<f32>| match kernel {
            Kernel::Copy => program.launch(copy_tiles, cfg, (r, c, &input_dev, out)),
            Kernel::Naive => program.launch(transpose_naive, cfg, (r, c, &input_dev, out)),
            Kernel::Shared => program.launch(transpose_shared, cfg, (r, c, &input_dev, out)),
            Kernel::Padded => program.launch(transpose_padded, cfg, (r, c, &input_dev, out)),
        };
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
