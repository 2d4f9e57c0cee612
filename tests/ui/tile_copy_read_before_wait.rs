// A tile reading its row of a shared array while an asynchronous copy is
// filling it, before the tile's wait: the in-flight row has no `get`.
use coop::prelude::*;
use coop::shared::Shared;

#[kernel]
pub fn staged(block: ThreadBlock, input: &[u32], out: Out<u32>, rows: Shared<[[u32; 32]; 8]>) {
    let warp = block.tiled_partition::<32>();
    let w = block.thread_rank() as usize / 32;
    let copying = rows.tile_row(&block, &warp).copy_async(&warp, &input[w * 32..w * 32 + 32]);
    out.write(block.thread_rank() as usize, copying.get(warp.thread_rank() as usize));
}

fn main() {}
