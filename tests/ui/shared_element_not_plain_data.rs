// Shared memory holds plain data: every bit pattern must be a value.
use coop::prelude::*;
use coop::shared::Shared;

#[kernel]
pub fn flags(block: ThreadBlock, seen: Shared<[bool; 64]>) {
    let _ = (block, seen);
}

fn main() {}
