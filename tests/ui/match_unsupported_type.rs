// Rule: `match_any`/`match_all` compare one 32- or 64-bit value per lane;
// 128-bit integers and arrays are not match keys.
use coop::prelude::*;

fn matches(block: ThreadBlock, wide: u128) {
    let tile = block.tiled_partition::<32>();
    let _ = tile.match_any(wide);
    let _ = tile.match_any([1u32; 2]);
}

fn main() {}
