// A tensor map moves tiles of one type: a ring whose stages hold tiles of
// another shape (here 32 rows of 16 where the map's tiles are 16 rows of 32)
// cannot take its copies.
use coop::prelude::*;
use coop::memory::pipeline::Pipeline;
use coop::memory::tensor::TensorMap;

#[kernel]
pub fn tiles(block: ThreadBlock, map: TensorMap<[[f32; 32]; 16]>, out: Out<f32>,
             ring: Pipeline<[[[f32; 16]; 32]; 2]>) {
    let mut stages = ring.start(&block);
    stages.load_tensor(&block, &map, [0, 0]);
    let stage = stages.next(&block);
    out.write(0, stage.get(0));
}

fn main() {}
