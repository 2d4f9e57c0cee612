// A stage of swizzled tiles is filled by the copy engine, which permutes
// each row's 16-byte chunks as it writes them; `load` copies a slice as it
// lies in memory, so reading the stage by `[row, column]` would find the
// wrong elements. Swizzled tiles land by `load_tensor` only.
use coop::prelude::*;
use coop::memory::pipeline::Pipeline;
use coop::memory::tile::Swizzled;

#[kernel]
pub fn tiles(block: ThreadBlock, input: &[f32], out: Out<f32>,
             ring: Pipeline<[Swizzled<[[f32; 32]; 8], 128>; 2]>) {
    let mut stages = ring.start(&block);
    stages.load(&block, &input[..256]);
    let stage = stages.next(&block);
    out.write(0, stage.at([1, 0]));
}

fn main() {}
