// A pipeline's ring must be `[[E; TILE]; STAGES]`: a flat array is not a
// ring of stages.
use coop::prelude::*;
use coop::memory::pipeline::Pipeline;

#[kernel]
pub fn streamed(block: ThreadBlock, input: &[f32], out: Out<f32>, ring: Pipeline<[f32; 512]>) {
    let mut stages = ring.start(&block);
    stages.load(&block, &input[..256]);
    let stage = stages.next(&block);
    out.write(0, stage.get(0));
}

fn main() {}
