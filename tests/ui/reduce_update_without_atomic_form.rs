// A group's result combined into memory by one atomic instruction: there
// is none for a product, nor a minimum of floats.
use coop::prelude::*;

#[kernel]
pub fn products(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let x = input[block.thread_rank() as usize];
    reduce_update_async(&block, &out.atomic(), 0, x, op::Product);
}

fn main() {}
