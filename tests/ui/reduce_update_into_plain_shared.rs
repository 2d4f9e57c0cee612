// A group's result combined into a shared array must go through the
// array's atomic phase: other groups update the same element at the same
// time, and only atomic instructions combine without losing updates.
use coop::prelude::*;
use coop::shared::{ByRank, Shared};

#[kernel]
pub fn warp_sums(block: ThreadBlock, input: &[u32], out: Out<u32>, sums: Shared<[u32; 4]>) {
    let warp = block.tiled_partition::<32>();
    let owned = sums.own(ByRank::new());
    let x = input[block.thread_rank() as usize];
    reduce_update_async(&warp, &owned, 0, x, op::Sum);
    let sums = owned.publish(&block);
    out.write(0, sums.get(0));
}

fn main() {}
