//! The shared-memory dot product tutorial's dot product in three
//! versions: warp shuffles, the tutorial's shared-memory tree, and
//! `reduce`.

use super::gpu_of;
use crate::kernels::dot::{dot, dot_reduce, dot_shared_tree, TREE_THREADS};
use crate::{dot_blocks, dot_inputs, time_gpu, DOT_N, DOT_THREADS_PER_BLOCK};
use coop_host::{Device, Error, LaunchConfig, Program};
use std::time::Duration;

/// One version's result and, on a GPU, its kernel time.
#[derive(Clone, Debug)]
pub struct DotVersion {
    /// Which kernel.
    pub name: &'static str,
    /// The sum of its partial results, in f64.
    pub result: f64,
    /// Median kernel time on the GPU.
    pub time: Option<Duration>,
}

/// Runs the three versions over the tutorial's inputs.
pub fn run_dot_versions(device: &Device, program: &Program) -> Result<Vec<DotVersion>, Error> {
    assert_eq!(TREE_THREADS as u32, DOT_THREADS_PER_BLOCK);
    let (a, b) = dot_inputs(DOT_N);
    let blocks = dot_blocks(DOT_N);
    let cfg = LaunchConfig::new(blocks, DOT_THREADS_PER_BLOCK);
    let a = device.upload(&a)?;
    let b = device.upload(&b)?;
    let warps = (blocks * DOT_THREADS_PER_BLOCK / 32) as usize;
    let mut per_warp = device.zeros::<f32>(warps)?;
    let mut per_block = device.zeros::<f32>(blocks as usize)?;
    let mut versions = Vec::new();
    for (name, kernel) in [
        ("warp shuffles", Version::Warp),
        ("shared-memory tree", Version::Tree),
        ("reduce", Version::Reduce),
    ] {
        let launch = |per_warp: &mut coop_host::Buffer<f32>,
                      per_block: &mut coop_host::Buffer<f32>| match kernel {
            Version::Warp => program.launch(dot, cfg, (&a, &b, per_warp)),
            Version::Tree => program.launch(dot_shared_tree, cfg, (&a, &b, per_block)),
            Version::Reduce => program.launch(dot_reduce, cfg, (&a, &b, per_block)),
        };
        launch(&mut per_warp, &mut per_block)?;
        let partial = match kernel {
            Version::Warp => device.download(&per_warp)?,
            _ => device.download(&per_block)?,
        };
        let result = partial.iter().map(|&p| p as f64).sum();
        let time = gpu_of(device)
            .map(|gpu| time_gpu(gpu, 21, || launch(&mut per_warp, &mut per_block).unwrap()));
        versions.push(DotVersion { name, result, time });
    }
    Ok(versions)
}

#[derive(Clone, Copy)]
enum Version {
    Warp,
    Tree,
    Reduce,
}
