// Arriving at a split barrier and dropping the token: the thread never
// waits, so its next arrival, collective or return breaks the barrier's
// phases. (A kernel crate that denies `unused_must_use` makes this an
// error; it is a warning by default, and the CPU backend reports the
// thread at run time.)
#![deny(unused_must_use)]
use coop::prelude::*;

#[kernel]
pub fn early(block: ThreadBlock, out: Out<u32>) {
    block.barrier_arrive();
    out.write(block.thread_rank() as usize, 1);
}

fn main() {}
