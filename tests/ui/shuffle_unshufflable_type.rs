// Rule: only `Shuffle` types (plain data of at most 32 bytes) move between
// lanes; a struct needs `#[derive(Shuffle)]`, and references never move.
use coop::prelude::*;

#[derive(Clone, Copy)]
struct Pair {
    a: u32,
    b: u32,
}

fn exchange(block: ThreadBlock, pair: Pair, r: &u32) {
    let tile = block.tiled_partition::<32>();
    let _ = tile.shfl(pair, 0);
    let _ = tile.shfl(r, 0);
}

fn main() {}
