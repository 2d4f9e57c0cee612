// A tile is split by label with one `match.any.sync`, which compares one
// 32- or 64-bit register per lane: a label must be a `MatchKey`.
use coop::prelude::*;

#[derive(Clone, Copy)]
pub struct Key {
    pub a: u32,
    pub b: u32,
}

#[kernel]
pub fn by_key(block: ThreadBlock, out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let key = Key { a: block.thread_rank() % 4, b: 0 };
    let same = warp.labeled_partition(key);
    out.write(block.thread_rank() as usize, same.num_threads());
}

fn main() {}
