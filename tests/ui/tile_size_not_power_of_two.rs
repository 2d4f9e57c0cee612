// Rule: a tile has a power of two of threads (1, 2, 4, ..., 1024); it must
// split a warp, or a block's warps, evenly.
use coop::prelude::*;

fn tiles(block: ThreadBlock) {
    let _ = block.tiled_partition::<0>();
    let _ = block.tiled_partition::<3>();
    let _ = block.tiled_partition::<6>();
    let _ = block.tiled_partition::<12>();
    let _ = block.tiled_partition::<24>();
    let _ = block.tiled_partition::<96>();
}

fn main() {}
