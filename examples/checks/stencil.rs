//! The smoothing-stencil tutorial's 3-point stencil: host, global-memory
//! and shared-memory versions, and one whose tiles arrive by the bulk-copy
//! engine through a ring of stages.

use super::{gpu_of, relative_error};
use crate::kernels::stencil::{smooth_global, smooth_shared, BLOCK};
use crate::kernels::streaming::{stencil_bulk, TILE};
use crate::time_gpu;
use coop_host::{Device, Error, LaunchConfig, Program};
use std::time::{Duration, Instant};

/// `b[k] = (a[k-1] + 2 a[k] + a[k+1]) / 4`, zero outside `a`: the
/// smoothing-stencil tutorial's host version.
pub fn smooth_host(a: &[f32]) -> Vec<f32> {
    let n = a.len();
    (0..n)
        .map(|k| {
            let left = if k > 0 { a[k - 1] } else { 0.0 };
            let right = if k + 1 < n { a[k + 1] } else { 0.0 };
            (left + 2.0 * a[k] + right) * 0.25
        })
        .collect()
}

/// The input, of the kind the smoothing-stencil tutorial uses:
/// pseudo-random values in [0, 1).
pub fn stencil_input(n: usize) -> Vec<f32> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

/// One version's relative error against the host and its time.
#[derive(Clone, Debug)]
pub struct StencilVersion {
    /// Which version.
    pub name: &'static str,
    /// The smoothing-stencil tutorial's relative error against the host
    /// version.
    pub error: f64,
    /// Time per smoothing (median kernel time on a GPU; wall time of one
    /// call for the host version).
    pub time: Option<Duration>,
}

/// Smooths `a` with every version on `device`.
pub fn run_stencil(
    device: &Device,
    program: &Program,
    a: &[f32],
) -> Result<Vec<StencilVersion>, Error> {
    let start = Instant::now();
    let want = smooth_host(a);
    let host_time = start.elapsed();
    let n = a.len();
    let a_dev = device.upload(a)?;
    let mut b = device.zeros::<f32>(n)?;
    let cfg = LaunchConfig::new(n.div_ceil(BLOCK).max(1) as u32, BLOCK as u32);
    let mut versions = vec![StencilVersion {
        name: "host",
        error: 0.0,
        time: Some(host_time),
    }];
    for (name, shared) in [("global memory", false), ("shared memory", true)] {
        let launch = |b: &mut coop_host::Buffer<f32>| {
            if shared {
                program.launch(smooth_shared, cfg, (&a_dev, b))
            } else {
                program.launch(smooth_global, cfg, (&a_dev, b))
            }
        };
        launch(&mut b)?;
        let error = relative_error(&device.download(&b)?, &want);
        let time = gpu_of(device).map(|gpu| time_gpu(gpu, 51, || launch(&mut b).unwrap()));
        versions.push(StencilVersion { name, error, time });
    }
    // Tiles through a ring of stages: every block the device holds at once,
    // at most one a tile.
    let threads = 256;
    let blocks = program
        .max_cooperative_blocks(stencil_bulk, threads, 0)?
        .min(n.div_ceil(TILE).max(1) as u32);
    let cfg = LaunchConfig::new(blocks, threads);
    let launch = |b: &mut coop_host::Buffer<f32>| program.launch(stencil_bulk, cfg, (&a_dev, b));
    launch(&mut b)?;
    let error = relative_error(&device.download(&b)?, &want);
    let time = gpu_of(device).map(|gpu| time_gpu(gpu, 51, || launch(&mut b).unwrap()));
    versions.push(StencilVersion {
        name: "bulk-copy ring",
        error,
        time,
    });
    Ok(versions)
}
