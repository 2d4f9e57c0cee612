// Rule: shuffles, votes and matches are warp instructions; call them on a
// tile (`block.tiled_partition::<32>()`), not on the whole block.
use coop::prelude::*;

fn collectives(block: ThreadBlock, v: u32) {
    let _ = block.shfl(v, 0);
    let _ = block.ballot(true);
    let _ = block.match_any(v);
    let _ = block.shfl_xor(v, 1);
    let _ = block.any(true);
}

fn main() {}
