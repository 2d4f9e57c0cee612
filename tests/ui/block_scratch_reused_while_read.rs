// Reading a block-level call's scratch after handing it to the next call:
// the next call's writes would race with this read, so the view is moved.
use coop::block;
use coop::prelude::*;
use coop::shared::Shared;

#[kernel]
pub fn reuse(block: ThreadBlock, input: &[u32], out: Out<u32>, tile: Shared<[u32; 256]>) {
    let items: [u32; 2] = block::load_striped(&block, input, 0, 0);
    let (blocked, scratch) = block::striped_to_blocked(&block, items, tile);
    let (striped, _) = block::blocked_to_striped(&block, blocked, scratch);
    out.write(0, scratch.get(0) + striped[0]);
}

fn main() {}
