// A `TensorMap` parameter is read-only: its array is borrowed shared by the
// host. Storing tiles needs a `TensorOut` parameter, which the host passes
// from an exclusive borrow (`TensorMapMut`).
use coop::prelude::*;
use coop::memory::pipeline::Pipeline;
use coop::memory::tensor::TensorMap;

#[kernel]
pub fn copy(block: ThreadBlock, src: TensorMap<[[f32; 32]; 16]>, dst: TensorMap<[[f32; 32]; 16]>,
            ring: Pipeline<[[[f32; 32]; 16]; 2]>) {
    let mut stages = ring.start(&block);
    stages.load_tensor(&block, &src, [0, 0]);
    stages.next(&block).store_tensor(&block, &dst, [0, 0]);
}

fn main() {}
