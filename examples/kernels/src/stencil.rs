//! The smoothing-stencil tutorial's 3-point stencil,
//! `b[k] = (a[k-1] + 2 a[k] + a[k+1]) / 4` with zeros outside the array, in
//! its device versions: every thread reading its three inputs from global
//! memory, and a block staging its inputs and two halo cells in shared
//! memory first. The host version is
//! `coop_examples::checks::stencil::smooth_host`.

use coop::prelude::*;
use coop::shared::{ByRank, Shared};

/// Threads per block of [`smooth_shared`] (the smoothing-stencil tutorial's
/// `BLOCK`).
pub const BLOCK: usize = 512;

/// Each thread reads `a[k-1]`, `a[k]` and `a[k+1]` from global memory.
#[kernel]
pub fn smooth_global(grid: Grid, a: &[f32], b: Out<f32>) {
    let n = a.len();
    let k = grid.thread_rank();
    if k < n {
        let left = if k > 0 { a[k - 1] } else { 0.0 };
        let right = if k + 1 < n { a[k + 1] } else { 0.0 };
        b.write(k, (left + 2.0 * a[k] + right) * 0.25);
    }
}

/// Each thread loads one input into `s[t + 1]`; the halo cells `s[0]` and
/// `s[BLOCK + 1]` come from the neighbouring blocks' ranges (zero at the
/// ends). Under `ByRank::offset(1)` thread `t` owns `s[t + 1]`, the last
/// thread owns `s[0]` and thread 0 owns `s[BLOCK + 1]`, so the halo loads
/// are safe writes too. Launch with [`BLOCK`] threads per block.
#[kernel]
pub fn smooth_shared(block: ThreadBlock, a: &[f32], b: Out<f32>, s: Shared<[f32; BLOCK + 2]>) {
    let n = a.len();
    let base = block.group_index().x as usize * BLOCK;
    let t = block.thread_rank() as usize;
    let load = |i: usize| if i < n { a[i] } else { 0.0 };
    let mine = s.own(ByRank::offset(1));
    mine.write(t + 1, load(base + t));
    if t == BLOCK - 1 {
        mine.write(0, if base > 0 { a[base - 1] } else { 0.0 });
    }
    if t == 0 {
        mine.write(BLOCK + 1, load(base + BLOCK));
    }
    let s = mine.publish(&block);
    if base + t < n {
        b.write(
            base + t,
            (s.get(t) + 2.0 * s.get(t + 1) + s.get(t + 2)) * 0.25,
        );
    }
}
