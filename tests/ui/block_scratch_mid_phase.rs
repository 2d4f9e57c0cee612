// Passing a shared array in its writing phase to a block-level call as
// scratch: its owners may still be writing it, so it is not `TileScratch`.
use coop::block;
use coop::prelude::*;
use coop::shared::{ByRank, Shared};

#[kernel]
pub fn mid_phase(block: ThreadBlock, input: &[u32], out: Out<u32>, tile: Shared<[u32; 256]>) {
    let mine = tile.own(ByRank::new());
    mine.set(1);
    let items: [u32; 2] = block::load_striped(&block, input, 0, 0);
    let (blocked, _) = block::striped_to_blocked(&block, items, mine);
    block::store_blocked(&block, blocked, &out, 0);
}

fn main() {}
