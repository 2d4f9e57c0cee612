// Rule: a tile has 1, 2, 4, 8, 16 or 32 threads; it must split a warp evenly.
use coop::prelude::*;

fn tiles(block: ThreadBlock) {
    let _ = block.tiled_partition::<0>();
    let _ = block.tiled_partition::<3>();
    let _ = block.tiled_partition::<6>();
    let _ = block.tiled_partition::<12>();
    let _ = block.tiled_partition::<24>();
}

fn main() {}
