// Reading a peer block's array after the sharing ended: `unshare` is a
// cluster barrier after which each block may write its own array again
// or return, so the shared view is consumed by it and a peer's array can
// no longer be reached through it. Read the peers before `unshare`.
use coop::prelude::*;
use coop::shared::{ByRank, Shared};

#[kernel]
pub fn ring(cluster: Cluster, out: Out<u32>, buf: Shared<[u32; 32]>) {
    let block = this_thread_block();
    let r = block.thread_rank() as usize;
    let mine = buf.own(ByRank::new());
    mine.set(cluster.block_rank());
    let shared = mine.publish(&block).share(&cluster);
    let next = (cluster.block_rank() + 1) % cluster.num_blocks();
    let own = shared.get(r);
    let _published = shared.unshare(&cluster);
    out.write(r, own + shared.get_from(next, r));
}

fn main() {}
