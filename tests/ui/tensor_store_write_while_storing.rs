// Writing a shared array while the copy engine is storing it: the
// `Storing` array has no `write` until `wait` and a new writing phase.
use coop::memory::tensor::TensorOut;
use coop::prelude::*;
use coop::shared::{ByRank, Shared};

#[kernel]
pub fn rows(block: ThreadBlock, out: TensorOut<[u32; 64]>, row: Shared<[u32; 64]>) {
    let t = block.thread_rank();
    let mine = row.own(ByRank::new());
    mine.set(t);
    let storing = mine.store_tensor(&block, &out, [0]);
    storing.write(t as usize, t + 64);
}

fn main() {}
