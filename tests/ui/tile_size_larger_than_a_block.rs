// Rule: a tile is a power of two of threads from 1 to 1024; a block has at
// most 1024 threads, and a tile splits it evenly.
use coop::prelude::*;

fn tiles(block: ThreadBlock) {
    let _ = block.tiled_partition::<33>();
    let _ = block.tiled_partition::<2048>();
}

fn too_big(_tile: TiledPartition<2048>) {}

fn main() {}
