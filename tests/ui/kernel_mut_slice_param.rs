// Rule: a kernel cannot take `&mut [T]`: every thread of the launch would hold
// the same mutable slice at once; writable buffers are `Out<T>`.
use coop::prelude::*;

#[kernel]
pub fn k(block: ThreadBlock, out: &mut [f32]) {
    out[block.thread_rank() as usize] = 1.0;
}

fn main() {}
