// Waiting twice for one arrival at a split barrier: the wait consumes the
// token, so the second wait has no arrival to wait for (on the GPU it
// would wait for a phase the thread never arrived at).
use coop::prelude::*;

#[kernel]
pub fn rounds(block: ThreadBlock, out: Out<u32>) {
    let arrival = block.barrier_arrive();
    block.barrier_wait(arrival);
    block.barrier_wait(arrival);
    out.write(block.thread_rank() as usize, 1);
}

fn main() {}
