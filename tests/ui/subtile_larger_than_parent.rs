// Rule: a tile can only be split into smaller tiles: never larger ones, and
// never into tiles of its own size (CUDA's rule too).
use coop::prelude::*;

fn larger(block: ThreadBlock) {
    let _ = block.tiled_partition::<4>().tiled_partition::<8>();
}

fn same_size(block: ThreadBlock) {
    let _ = block.tiled_partition::<16>().tiled_partition::<16>();
}

fn main() {}
