// Rule: a `#[kernel]` returns nothing; results go through `Out<T>` buffers.
use coop::prelude::*;

#[kernel]
pub fn k(block: ThreadBlock) -> u32 {
    0
}

fn main() {}
