// Starting an asynchronous copy and dropping the in-flight array: nothing
// waits for the copy, so the array can never be read. (A kernel crate
// that denies `unused_must_use` makes this an error; it is a warning by
// default.)
#![deny(unused_must_use)]
use coop::prelude::*;
use coop::shared::Shared;

#[kernel]
pub fn staged(block: ThreadBlock, input: &[u32], tile: Shared<[u32; 256]>) {
    tile.copy_async(&block, &input[..256]);
}

fn main() {}
