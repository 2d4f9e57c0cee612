// Rule: a launch's arguments are checked against the kernel's parameters:
// one argument per parameter, each of exactly the parameter's type.
mod kernels {
    use coop::prelude::*;

    #[kernel]
    pub fn scale(grid: Grid, input: &[f32], factor: f32, out: Out<f32>) {
        let i = grid.thread_rank();
        if i < input.len() {
            out.write(i, factor * input[i]);
        }
    }
}

use coop_host::{CudaSlice, LaunchConfig, Module};

fn launch(module: &Module, a: &CudaSlice<u32>, b: &CudaSlice<f32>, out: &mut CudaSlice<f32>) {
    // A `u32` buffer for the `&[f32]` parameter `input`.
    let _ = module.launch(kernels::scale, LaunchConfig::new(1, 32), (a, 2.0f32, &mut *out));
    // An `f64` for the `f32` parameter `factor`.
    let _ = module.launch(kernels::scale, LaunchConfig::new(1, 32), (b, 2.0f64, &mut *out));
    // Two arguments for three parameters.
    let _ = module.launch(kernels::scale, LaunchConfig::new(1, 32), (b, 2.0f32));
}

fn main() {}
