// Waiting for the same asynchronous copy twice: the wait takes the
// in-flight array and returns it published, so the second wait has nothing
// to wait on.
use coop::prelude::*;
use coop::shared::Shared;

#[kernel]
pub fn staged(block: ThreadBlock, input: &[u32], out: Out<u32>, tile: Shared<[u32; 256]>) {
    let t = block.thread_rank() as usize;
    let copying = tile.copy_async(&block, &input[..256]);
    let a = copying.wait(&block);
    let b = copying.wait(&block);
    out.write(t, a.get(t) + b.get(t));
}

fn main() {}
