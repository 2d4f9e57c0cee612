// Rule: a `Shuffle` struct is at most 32 bytes (8 words); both of these are 40.
use coop::Shuffle;

#[derive(Clone, Copy, Shuffle)]
struct Big {
    v: [f64; 5],
}

#[derive(Clone, Copy, Shuffle)]
struct Wide {
    a: [f64; 4],
    b: f64,
}

fn main() {}
