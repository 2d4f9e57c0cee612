// Combining floats into another block's inbox: the copy engine's
// reductions into shared memory have no float operations.
use coop::prelude::*;
use coop::shared::{ByRank, Inbox, Shared};

#[kernel]
pub fn float_sums(cluster: Cluster, block: ThreadBlock, out: Out<f32>, mine: Shared<[f32; 64]>, inbox: Inbox<[f32; 64]>) {
    let t = block.thread_rank() as usize;
    let own = mine.own(ByRank::new());
    own.set(1.0);
    let sent = own.publish(&block);
    let expected = if cluster.block_rank() == 0 { cluster.num_blocks() } else { 0 };
    let mut exchange = inbox.open_reduce(&cluster, &block, op::Sum, expected);
    exchange.reduce(&block, 0, &sent);
    let got = exchange.wait(&cluster, &block);
    out.write(t, got.get(t));
}

fn main() {}
