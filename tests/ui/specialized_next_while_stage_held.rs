// A consumer of a warp-specialized pipeline taking the next tile while it
// still holds the last one: its release would never come before the
// producers need the stage again, and with a ring of one stage the wait
// for the next tile could never end. The `Stage` borrows the `Consumer`
// until it is released.
use coop::prelude::*;
use coop::memory::pipeline::{Pipeline, Role};

#[kernel]
pub fn pairs(block: ThreadBlock, input: &[f32], out: Out<f32>, ring: Pipeline<[[f32; 256]; 2]>) {
    let warp = block.tiled_partition::<32>();
    match ring.start_specialized(&block, &warp) {
        Role::Producer(mut producer) => {
            producer.load(&warp, &input[..256]);
            producer.load(&warp, &input[256..512]);
        }
        Role::Consumer(mut consumer) => {
            let t = consumer.rank() as usize;
            let first = consumer.next(&warp);
            let second = consumer.next(&warp);
            out.write(t, first.get(t) + second.get(t));
        }
    }
}

fn main() {}
