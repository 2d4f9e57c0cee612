// Static shared arrays are limited to 48 KiB a kernel (less coop's block
// scratch): ptxas would refuse the module, and with it every kernel of the
// crate. The same kernel is refused on the CPU backend, at compile time.
use coop::prelude::*;
use coop::shared::Shared;

#[kernel]
pub fn big(block: ThreadBlock, out: Out<f32>, s: Shared<[f32; 20000]>) {
    let _ = (block, out, s);
}

fn main() {}
