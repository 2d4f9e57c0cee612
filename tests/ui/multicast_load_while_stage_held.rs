// A multicast load while this block still holds a stage: the load may be
// the one that refills the stage being read, in this block and in every
// other block of the cluster. The `Stage` borrows the multicast stages
// until it is released.
use coop::prelude::*;
use coop::memory::pipeline::Pipeline;

#[kernel]
pub fn streamed(cluster: Cluster, block: ThreadBlock, input: &[f32], out: Out<f32>,
                ring: Pipeline<[[f32; 256]; 2]>) {
    let t = block.thread_rank() as usize;
    let mut stages = ring.start_multicast(&cluster, &block);
    stages.load(&cluster, &input[..256]);
    let stage = stages.next(&block);
    stages.load(&cluster, &input[256..512]);
    out.write(t, stage.get(t));
}

fn main() {}
