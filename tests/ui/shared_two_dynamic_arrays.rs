// Two dynamic shared arrays would be the same launch-sized memory.
use coop::prelude::*;
use coop::shared::Shared;

#[kernel]
pub fn two(block: ThreadBlock, a: Shared<[f32]>, b: Shared<[u32]>) {
    let _ = (block, a, b);
}

fn main() {}
