// Rule: every field of a `#[derive(Shuffle)]` struct must be `Shuffle`;
// a reference names memory of one thread and cannot move to another lane.
use coop::Shuffle;

#[derive(Clone, Copy, Shuffle)]
struct Holder {
    value: &'static u32,
}

fn main() {}
