// Loading the next tile while a stage taken with `next` is still held: the
// load could refill the very stage being read. The `Stage` borrows the
// pipeline until it is released.
use coop::prelude::*;
use coop::memory::pipeline::Pipeline;

#[kernel]
pub fn streamed(block: ThreadBlock, input: &[f32], out: Out<f32>, ring: Pipeline<[[f32; 256]; 2]>) {
    let t = block.thread_rank() as usize;
    let mut stages = ring.start(&block);
    stages.load(&block, &input[..256]);
    let stage = stages.next(&block);
    stages.load(&block, &input[256..512]);
    out.write(t, stage.get(t));
}

fn main() {}
