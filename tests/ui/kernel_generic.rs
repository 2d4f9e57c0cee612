// Rule: a `#[kernel]` is a PTX entry point with one concrete signature, so it
// cannot be generic.
use coop::prelude::*;

#[kernel]
pub fn k<T: Copy>(block: ThreadBlock, x: &[T]) {}

fn main() {}
