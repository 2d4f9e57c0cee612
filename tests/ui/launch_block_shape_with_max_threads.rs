// A fixed block shape sets the block's thread count: a `max_threads` beside
// it says the same thing twice, or contradicts it.
use coop::prelude::*;

#[kernel(block = (32, 8), max_threads = 512)]
pub fn tile(block: ThreadBlock, out: Out<u32>) {
    out.write(block.thread_rank() as usize, 1);
}

fn main() {}
