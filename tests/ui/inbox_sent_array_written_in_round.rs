// Writing an array that was sent into another block's inbox before the
// round's wait: the copy engine may still be reading it, and the exchange
// borrows it until the round ends.
use coop::prelude::*;
use coop::shared::{ByRank, Inbox, Shared};

#[kernel]
pub fn overwrite(cluster: Cluster, block: ThreadBlock, out: Out<u32>, mine: Shared<[u32; 64]>, inbox: Inbox<[u32; 64]>) {
    let t = block.thread_rank() as usize;
    let own = mine.own(ByRank::new());
    own.set(1);
    let sent = own.publish(&block);
    let mut exchange = inbox.open(&cluster, &block, 1);
    exchange.send(&block, (cluster.block_rank() + 1) % cluster.num_blocks(), &sent);
    let again = sent.own(&block, ByRank::new()); // the engine may still read it
    again.set(2);
    let got = exchange.wait(&cluster, &block);
    out.write(t, got.get(t));
}

fn main() {}
