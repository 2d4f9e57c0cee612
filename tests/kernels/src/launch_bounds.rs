//! Kernels with launch bounds and register caps (`#[kernel(max_threads =
//! .., min_blocks = .., max_registers = ..)]`): the same bodies as their
//! unbounded twins, so that the results must agree while ptxas fits the
//! registers to the bounds.

use coop::prelude::*;

/// Values of `input` each thread of `mix` keeps live at once.
pub const MIX_TERMS: usize = 24;

/// Per thread `g` below `input.len()`: `out[g]` is the sum of the block's
/// elements (0 past the end of `input`). For blocks of at most 256
/// threads, 8 of which should share a multiprocessor (at most 32 registers
/// a thread).
#[kernel(max_threads = 256, min_blocks = 8)]
pub fn bounded_block_sum(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    block_sum(block, input, out)
}

/// [`bounded_block_sum`] without bounds.
#[kernel]
pub fn unbounded_block_sum(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    block_sum(block, input, out)
}

fn block_sum(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let g = this_grid().thread_rank();
    let v = if g < input.len() { input[g] } else { 0 };
    let total = reduce(&block, v, coop::op::Sum);
    if g < input.len() {
        out.write(g, total);
    }
}

/// Per thread `g` below `n = input.len()`: with `v[j] = input[(g + 97 j) %
/// n]` for `j < MIX_TERMS`, `out[g]` is the wrapping sum over `i < j` of
/// `v[i] * v[j] ^ (i * j)`. At most 24 registers a thread: ptxas spills
/// what the 24 live values need beyond that.
#[kernel(max_registers = 24)]
pub fn capped_mix(input: &[u32], out: Out<u32>) {
    mix(input, out)
}

/// [`capped_mix`] without a cap.
#[kernel]
pub fn uncapped_mix(input: &[u32], out: Out<u32>) {
    mix(input, out)
}

fn mix(input: &[u32], out: Out<u32>) {
    let g = this_grid().thread_rank();
    let n = input.len();
    if g >= n {
        return;
    }
    let mut v = [0u32; MIX_TERMS];
    for (j, x) in v.iter_mut().enumerate() {
        *x = input[(g + 97 * j) % n];
    }
    let mut acc = 0u32;
    for i in 0..MIX_TERMS {
        for j in i + 1..MIX_TERMS {
            acc = acc.wrapping_add(v[i].wrapping_mul(v[j]) ^ (i * j) as u32);
        }
    }
    out.write(g, acc);
}

/// For blocks of exactly 32 x 8 threads (`#[kernel(block = (32, 8))]`):
/// thread `(x, y)` of block `b` writes `1000 y + x` to a shared tile at
/// `[y][x]`, and after a barrier reads the tile's element at `[7 - y][31 -
/// x]` into `out[256 b + 32 y + x]`.
#[kernel(block = (32, 8))]
pub fn fixed_shape_mirror(block: ThreadBlock, out: Out<u32>, tile: Shared<[[u32; 32]; 8]>) {
    let t = block.thread_index();
    let (x, y) = (t.x as usize, t.y as usize);
    let mine = tile.own(coop::shared::RowMajor);
    mine.write((y, x), 1000 * t.y + t.x);
    let all = mine.publish(&block);
    let b = this_grid().block_rank();
    out.write(256 * b + 32 * y + x, all.get((7 - y, 31 - x)));
}
