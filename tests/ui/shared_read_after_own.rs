// Reading a published view after its array entered a new writing phase:
// `own` is a block barrier after which threads write again, so the
// published view is consumed by it and cannot be read any more (on a GPU
// the read would race with the new writes). Read before `own`, or read
// the new phase's own elements.
use coop::prelude::*;
use coop::shared::{ByRank, Shared};

#[kernel]
pub fn reuse(block: ThreadBlock, out: Out<f32>, buf: Shared<[f32; 256]>) {
    let r = block.thread_rank() as usize;
    let mine = buf.own(ByRank::new());
    mine.set(1.0);
    let all = mine.publish(&block);
    let again = all.own(&block, ByRank::new());
    again.set(2.0);
    out.write(r, all.get(255 - r));
}

fn main() {}
