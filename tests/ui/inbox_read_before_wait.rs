// Reading an inbox before the round's wait: the arrays sent into it may
// not have landed, and an `Exchange` has no `get`.
use coop::prelude::*;
use coop::shared::{ByRank, Inbox, Shared};

#[kernel]
pub fn early(cluster: Cluster, block: ThreadBlock, out: Out<u32>, mine: Shared<[u32; 64]>, inbox: Inbox<[u32; 64]>) {
    let t = block.thread_rank() as usize;
    let own = mine.own(ByRank::new());
    own.set(1);
    let sent = own.publish(&block);
    let mut exchange = inbox.open(&cluster, &block, 1);
    exchange.send(&block, (cluster.block_rank() + 1) % cluster.num_blocks(), &sent);
    out.write(t, exchange.get(t));
}

fn main() {}
