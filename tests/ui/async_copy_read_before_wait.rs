// Reading a shared array that an asynchronous copy is filling, before
// waiting for the copy: the in-flight array has no `get`.
use coop::prelude::*;
use coop::shared::Shared;

#[kernel]
pub fn staged(block: ThreadBlock, input: &[u32], out: Out<u32>, tile: Shared<[u32; 256]>) {
    let t = block.thread_rank() as usize;
    let copying = tile.copy_async(&block, &input[..256]);
    out.write(t, copying.get(t));
}

fn main() {}
