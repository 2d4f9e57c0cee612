// A block histogram of float items: an item's bin is a counter's index, an
// integer, so the block must turn its samples into bins first.
use coop::block;
use coop::prelude::*;
use coop::shared::Shared;

#[kernel]
pub fn halves(block: ThreadBlock, input: &[f32], out: Out<u32>, counts: Shared<[u32; 4]>) {
    let t = block.thread_rank() as usize;
    let counts = block::histogram(&block, [input[t] * 0.5], counts);
    if t < 4 {
        out.write(t, counts.get(t));
    }
}

fn main() {}
