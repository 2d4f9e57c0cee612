// Rule: a tile of more than 32 threads spans several warps, so the single
// warp instructions (shuffles by offset or mask, ballots, matches, lane
// masks) do not exist for it; split it into warp tiles for those.
use coop::prelude::*;

#[kernel]
pub fn wide(block: ThreadBlock, out: Out<u32>) {
    let tile = block.tiled_partition::<128>();
    let r = tile.thread_rank();
    let a = tile.shfl_xor(r, 1);
    let b = tile.ballot(r % 2 == 0);
    let c = tile.shfl_down(r, 1);
    out.write(block.thread_rank() as usize, a + b + c);
}

fn main() {}
