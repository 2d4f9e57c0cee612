// Rule: a `Shuffle` struct has no padding bytes (a shuffle moves only
// initialised words); `a: u8` is followed by 3 bytes of padding.
use coop::Shuffle;

#[derive(Clone, Copy, Shuffle)]
struct Padded {
    a: u8,
    b: u32,
}

fn main() {}
