// Reading another thread's element of a shared array before the barrier
// that publishes it: the writing phase has no `get`.
use coop::prelude::*;
use coop::shared::{ByRank, Shared};

#[kernel]
pub fn neighbours(block: ThreadBlock, out: Out<f32>, buf: Shared<[f32; 256]>) {
    let r = block.thread_rank() as usize;
    let mine = buf.own(ByRank::new());
    mine.set(r as f32);
    out.write(r, mine.get((r + 1) % 256));
}

fn main() {}
