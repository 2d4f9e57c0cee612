// A block reading another block's part of a cluster's tile while the
// asynchronous copies are filling it, before the copies' wait and the
// cluster's barrier: the in-flight array has no `get_from`.
use coop::prelude::*;
use coop::shared::Shared;

#[kernel]
pub fn halves(cluster: Cluster, block: ThreadBlock, input: &[u32], out: Out<u32>, part: Shared<[u32; 64]>) {
    let r = cluster.block_rank() as usize;
    let copying = part.copy_async(&block, &input[r * 64..r * 64 + 64]);
    let t = block.thread_rank() as usize;
    out.write(r * 64 + t, copying.get_from(1 - r as u32, t));
}

fn main() {}
