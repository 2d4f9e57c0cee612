// Starting a second asynchronous copy into a shared array while the first
// is still filling it: the in-flight array has no `copy_async`.
use coop::prelude::*;
use coop::shared::Shared;

#[kernel]
pub fn two_tiles(block: ThreadBlock, input: &[u32], out: Out<u32>, tile: Shared<[u32; 256]>) {
    let t = block.thread_rank() as usize;
    let first = tile.copy_async(&block, &input[..256]);
    let second = first.copy_async(&block, &input[256..512]);
    let tile = second.wait(&block);
    out.write(t, tile.get(t));
}

fn main() {}
