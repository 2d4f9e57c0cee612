//! A split barrier against a whole one: rounds in which every warp first
//! does an uneven share of work (warp `w` does `(w + round) % 4` units),
//! publishes a value, then does a unit of work that needs no other thread,
//! and reads a neighbour's value. With `barrier_arrive` before the
//! independent unit and `barrier_wait` after it, the early warps do their
//! unit while the late ones arrive; with `sync` before it, every warp waits
//! for the last. `examples/bench/split_barrier.cu` has the CUDA C++ twins
//! and `split_barrier_bench` times both.

use coop::prelude::*;

/// `units` of a dependent chain of 64 mixing steps on `x` (a shift, an
/// exclusive or and a multiplication each, which no compiler folds into
/// fewer steps).
#[inline(always)]
fn work(mut x: u32, units: u32) -> u32 {
    for _ in 0..units * 64 {
        x = (x ^ (x >> 13)).wrapping_mul(0x5bd1_e995);
    }
    x
}

/// Per round: uneven work, write the slot, arrive (`SPLIT`) or sync, one
/// unit, wait, read the next thread's slot. Returns the thread's value.
#[inline(always)]
fn rounds<const SPLIT: bool>(block: ThreadBlock, rounds: u32, slots: Shared<[u32; 2048]>) -> u32 {
    let slots = slots.into_raw();
    let n = block.num_threads() as usize;
    let t = block.thread_rank() as usize;
    let w = t as u32 / 32;
    let mut x = t as u32;
    for r in 0..rounds {
        x = work(x, (w + r) % 4);
        let base = (r as usize % 2) * 1024;
        // SAFETY: each thread writes its own slot of this round's buffer,
        // whose readers two rounds ago have arrived (synced) since.
        unsafe { slots.write(base + t, x) };
        if SPLIT {
            let arrival = block.barrier_arrive();
            x = work(x, 1);
            block.barrier_wait(arrival);
        } else {
            block.sync();
            x = work(x, 1);
        }
        // SAFETY: written before every thread's arrival.
        x ^= unsafe { slots.read(base + (t + 1) % n) };
    }
    x
}

/// The rounds with `barrier_arrive` before the independent unit and
/// `barrier_wait` after it; `out[g]` ends with the thread's value.
#[kernel]
pub fn rounds_split(block: ThreadBlock, rounds: u32, out: Out<u32>, slots: Shared<[u32; 2048]>) {
    out.write(
        this_grid().thread_rank(),
        self::rounds::<true>(block, rounds, slots),
    );
}

/// The rounds with a whole barrier (`sync`) where the arrival was.
#[kernel]
pub fn rounds_sync(block: ThreadBlock, rounds: u32, out: Out<u32>, slots: Shared<[u32; 2048]>) {
    out.write(
        this_grid().thread_rank(),
        self::rounds::<false>(block, rounds, slots),
    );
}
