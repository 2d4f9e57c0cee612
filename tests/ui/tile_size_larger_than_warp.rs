// Rule: a tile fits in one 32-lane warp; for more threads, use the block.
use coop::prelude::*;

fn tiles(block: ThreadBlock) {
    let _ = block.tiled_partition::<33>();
    let _ = block.tiled_partition::<64>();
}

fn two_warps(_tile: TiledPartition<64>) {}

fn main() {}
