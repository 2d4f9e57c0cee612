// A swizzled tile's rows are exactly the swizzle's span: the copy engine
// permutes the 16-byte chunks of rows of 32, 64 or 128 bytes. Rows of 16
// `f32`s are 64 bytes, which a swizzle of 128 cannot lay out.
use coop::prelude::*;
use coop::memory::pipeline::Pipeline;
use coop::memory::tensor::TensorMap;
use coop::memory::tile::Swizzled;

#[kernel]
pub fn tiles(block: ThreadBlock, map: TensorMap<Swizzled<[[f32; 16]; 8], 128>>, out: Out<f32>,
             ring: Pipeline<[Swizzled<[[f32; 16]; 8], 128>; 2]>) {
    let mut stages = ring.start(&block);
    stages.load_tensor(&block, &map, [0, 0]);
    let stage = stages.next(&block);
    out.write(0, stage.get(0));
}

fn main() {}
