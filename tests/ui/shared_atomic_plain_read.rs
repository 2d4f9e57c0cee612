// Reading a shared array plainly while other threads may still be updating
// it atomically: the atomic phase has no `get` until the barrier of
// `publish`.
use coop::prelude::*;
use coop::shared::{ByRank, Shared};

#[kernel]
pub fn counts(block: ThreadBlock, input: &[u8], out: Out<u32>, bins: Shared<[u32; 256]>) {
    let t = block.thread_rank() as usize;
    let zero = bins.own(ByRank::new());
    zero.set(0);
    let bins = zero.atomics(&block);
    if t < input.len() {
        bins.add(input[t] as usize, 1);
    }
    out.write(t, bins.get(t));
}

fn main() {}
