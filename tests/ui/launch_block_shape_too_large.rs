// A block has at most 1024 threads (and at most 64 along z): a fixed
// block shape beyond that is an error in the kernel's source.
use coop::prelude::*;

#[kernel(block = (64, 32))]
pub fn tile(block: ThreadBlock, out: Out<u32>) {
    out.write(block.thread_rank() as usize, 1);
}

fn main() {}
