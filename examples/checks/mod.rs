//! The checks of each example: its inputs, host references, launches and
//! comparisons, shared by the example programs (which print the outcome)
//! and the test suites (which assert it).

pub mod cg_samples;
pub mod conjugate_gradient;
pub mod dot;
pub mod histogram;
pub mod integral_image;
pub mod shared_tiles;
pub mod stencil;
pub mod transpose;
pub mod warp_vote;

/// The GPU behind `device` when it is one and timings are wanted (not
/// with `--quick`).
pub fn gpu_of(device: &coop_host::Device) -> Option<&coop_host::Gpu> {
    match device {
        coop_host::Device::Gpu(gpu) if !crate::quick() => Some(gpu),
        _ => None,
    }
}

/// `sqrt(sum (got - want)^2 / sum want^2)`, the smoothing-stencil
/// tutorial's error measure.
pub fn relative_error(got: &[f32], want: &[f32]) -> f64 {
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (&g, &w) in got.iter().zip(want) {
        diff += (g as f64 - w as f64).powi(2);
        norm += (w as f64).powi(2);
    }
    if norm == 0.0 {
        diff.sqrt()
    } else {
        (diff / norm).sqrt()
    }
}
