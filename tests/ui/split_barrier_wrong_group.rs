// Passing a block's arrival to the cluster's wait: a token belongs to the
// group it arrived at, and the cluster's barrier never saw this thread
// arrive.
use coop::prelude::*;

#[kernel]
pub fn mixed(block: ThreadBlock, cluster: Cluster, out: Out<u32>) {
    let arrival = block.barrier_arrive();
    cluster.barrier_wait(arrival);
    out.write(block.thread_rank() as usize, 1);
}

fn main() {}
