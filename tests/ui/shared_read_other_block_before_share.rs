// Rule: another block of the cluster may still be writing its shared
// array; read it only after the cluster's barrier (`share`).
use coop::prelude::*;
use coop::shared::{ByRank, Shared};

#[kernel]
pub fn peek(cluster: Cluster, block: ThreadBlock, out: Out<u32>, s: Shared<[u32; 32]>) {
    let mine = s.own(ByRank::new());
    mine.set(block.thread_rank());
    let published = mine.publish(&block);
    let next = (cluster.block_rank() + 1) % cluster.num_blocks();
    out.write(block.thread_rank() as usize, published.get_from(next, 0));
}

fn main() {}
