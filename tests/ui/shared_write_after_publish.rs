// Writing a shared array while other threads may still read it: a
// published view has no `write` (and the writing phase was consumed by
// `publish`).
use coop::prelude::*;
use coop::shared::{ByRank, Shared};

#[kernel]
pub fn rewrite(block: ThreadBlock, out: Out<f32>, buf: Shared<[f32; 256]>) {
    let r = block.thread_rank() as usize;
    let mine = buf.own(ByRank::new());
    mine.set(1.0);
    let all = mine.publish(&block);
    out.write(r, all.get(255 - r));
    all.write(r, 2.0);
}

fn main() {}
