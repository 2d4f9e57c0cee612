//! Atomics in practice: a 256-bin byte histogram (shared-memory atomics,
//! with the variants it was measured against) and stream compaction
//! through one warp-aggregated global counter.

use coop::prelude::*;
use coop::shared::{Atomics, ByRank, Shared};

/// Sixteen input bytes, loaded with one 128-bit load.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Chunk(pub [u32; 4]);

/// Calls `count(byte)` for each byte of `input` this thread takes: whole
/// [`Chunk`]s in a grid-stride loop (128-bit loads), then the unaligned
/// head and tail (fewer than 16 bytes each) on the grid's first threads.
#[inline(always)]
fn each_chunk(input: &[u8], mut count: impl FnMut(&[u8; 16])) -> (&[u8], &[u8]) {
    let grid = this_grid();
    // SAFETY: any bytes are a valid `Chunk`; `align_to` keeps the chunks in
    // bounds and aligned.
    let (head, body, tail) = unsafe { input.align_to::<Chunk>() };
    let (g, stride) = (grid.thread_rank(), grid.num_threads());
    let bytes_of = |chunk: Chunk| {
        let mut bytes = [0u8; 16];
        for (w, word) in chunk.0.iter().enumerate() {
            bytes[4 * w..4 * w + 4].copy_from_slice(&word.to_le_bytes());
        }
        bytes
    };
    let mut i = g;
    if i < body.len() {
        // Software-pipelined: the next chunk's load is issued before this
        // one's bytes are counted.
        // SAFETY: `i < body.len()`.
        let mut chunk = unsafe { *body.get_unchecked(i) };
        i += stride;
        while i < body.len() {
            // SAFETY: `i < body.len()`.
            let next = unsafe { *body.get_unchecked(i) };
            count(&bytes_of(chunk));
            chunk = next;
            i += stride;
        }
        count(&bytes_of(chunk));
    }
    (head, tail)
}

/// The bins of a block: `sets` sets of 256 counters, `stride` words apart,
/// in one shared array of `WORDS` words; the calling thread counts into
/// the set starting at word `set`. Zeroes the array, counts this thread's
/// bytes (with `RUNS`, a run of equal bytes within a chunk as one update
/// of its length; without, each byte an increment by one), and adds the
/// sets' non-zero totals to `hist` (global atomics) after the barrier that
/// ends the counting.
#[inline(always)]
fn histogram_in_sets<const WORDS: usize, const RUNS: bool>(
    block: &ThreadBlock,
    input: &[u8],
    hist: &Out<u32>,
    bins: Shared<[u32; WORDS]>,
    (sets, stride, set): (usize, usize, usize),
) {
    let threads = block.num_threads() as usize;
    let zero = bins.own(ByRank::new());
    let mut n = 0;
    while zero.mine() + n * threads < WORDS {
        zero.write_nth(n, 0);
        n += 1;
    }
    let bins = zero.atomics(block);
    let (head, tail) = each_chunk(input, |bytes| {
        if !RUNS {
            for &b in bytes {
                bins.add(set + b as usize, 1);
            }
            return;
        }
        let (mut run, mut n) = (bytes[0], 1);
        for &b in &bytes[1..] {
            if b == run {
                n += 1;
            } else {
                bins.add(set + run as usize, n);
                (run, n) = (b, 1);
            }
        }
        bins.add(set + run as usize, n);
    });
    let g = this_grid().thread_rank();
    if g < head.len() {
        bins.add(set + head[g] as usize, 1);
    }
    if g < tail.len() {
        bins.add(set + tail[g] as usize, 1);
    }
    let bins = bins.publish(block);
    let mut b = block.thread_rank() as usize;
    while b < 256 {
        let mut count = 0;
        for c in 0..sets {
            count += bins.get(c * stride + b);
        }
        if count > 0 {
            hist.atomic().add(b, count);
        }
        b += threads;
    }
}

/// A 256-bin histogram of `input`, added to `hist` (which starts zeroed):
/// the one to use.
///
/// Each block counts into one set of 256 bins in shared memory, reading 16
/// bytes a thread at a time with one 128-bit load (the next load issued
/// before these bytes are counted), each byte an increment by one
/// (`red.shared.add.u32` of 1). ptxas turns that into an increment the
/// shared-memory unit merges across the lanes of a warp that hit the same
/// bin (`ATOMS.POPC.INC`), so that skewed data (many lanes on one bin) is
/// no slower than uniform data. At the end each block adds its non-zero
/// bins to `hist` with global atomics.
#[kernel]
pub fn histogram_256(block: ThreadBlock, input: &[u8], hist: Out<u32>, bins: Shared<[u32; 256]>) {
    histogram_in_sets::<256, false>(&block, input, &hist, bins, (1, 256, 0));
}

/// The previous design of [`histogram_256`], for comparison: a run of
/// equal bytes within a chunk is one update of its length (`ATOMS.ADD`,
/// which the lanes of a warp that hit one bin wait for in turn), and the
/// block keeps 8 sets of the bins, lane `l` of a warp counting into set
/// `l % 8`, 257 words apart, so that such lanes hit 8 addresses in 8
/// banks instead of one.
#[kernel]
pub fn histogram_256_runs(
    block: ThreadBlock,
    input: &[u8],
    hist: Out<u32>,
    bins: Shared<[u32; 2056]>,
) {
    let set = (block.thread_rank() as usize % 32 % 8) * 257;
    histogram_in_sets::<2056, true>(&block, input, &hist, bins, (8, 257, set));
}

/// [`histogram_256_runs`] with 4 sets of bins instead of 8 (for
/// comparison).
#[kernel]
pub fn histogram_256_copies4(
    block: ThreadBlock,
    input: &[u8],
    hist: Out<u32>,
    bins: Shared<[u32; 1028]>,
) {
    let set = (block.thread_rank() as usize % 32 % 4) * 257;
    histogram_in_sets::<1028, true>(&block, input, &hist, bins, (4, 257, set));
}

/// [`histogram_256_runs`] with one set of bins: runs merged, and the lanes
/// of a warp that hit one bin wait for each other (the slowest on skewed
/// data; see the performance guide).
#[kernel]
pub fn histogram_256_one_set(
    block: ThreadBlock,
    input: &[u8],
    hist: Out<u32>,
    bins: Shared<[u32; 256]>,
) {
    histogram_in_sets::<256, true>(&block, input, &hist, bins, (1, 256, 0));
}

/// [`histogram_256_runs`] with one set of 256 bins per warp of the block
/// (up to 8 warps; warp `w` counts into set `w % 8`): warps no longer
/// contend for a bin that many of their bytes fall into, but the lanes of
/// a warp still do.
#[kernel]
pub fn histogram_256_per_warp(
    block: ThreadBlock,
    input: &[u8],
    hist: Out<u32>,
    bins: Shared<[u32; 2048]>,
) {
    let set = (block.thread_rank() as usize / 32 % 8) * 256;
    histogram_in_sets::<2048, true>(&block, input, &hist, bins, (8, 256, set));
}

/// Zeroes 256 `bins` (each thread its elements under [`ByRank`]) and
/// starts their atomic phase.
#[inline(always)]
fn zeroed_bins(block: &ThreadBlock, bins: Shared<[u32; 256]>) -> Atomics<[u32; 256]> {
    let threads = block.num_threads() as usize;
    let zero = bins.own(ByRank::new());
    let mut n = 0;
    while zero.mine() + n * threads < 256 {
        zero.write_nth(n, 0);
        n += 1;
    }
    zero.atomics(block)
}

/// Adds the block's non-zero bins to `hist` (global atomics), after the
/// barrier that ends the counting.
#[inline(always)]
fn flush(block: &ThreadBlock, bins: Atomics<[u32; 256]>, hist: &Out<u32>) {
    let bins = bins.publish(block);
    let mut b = block.thread_rank() as usize;
    while b < 256 {
        let count = bins.get(b);
        if count > 0 {
            hist.atomic().add(b, count);
        }
        b += block.num_threads() as usize;
    }
}

/// [`histogram_256`] with warp aggregation: for each of its 16 bytes, the
/// lanes of a warp holding the same value agree on it with `match_any`,
/// and the lowest of them adds the group's count: one shared atomic where
/// there were as many as lanes, at the price of a `match.any` for every
/// byte. Every lane of a warp runs the same number of rounds (lanes past
/// the end match on a value no byte has), as `match_any` needs.
#[kernel]
pub fn histogram_256_warp_aggregated(
    block: ThreadBlock,
    input: &[u8],
    hist: Out<u32>,
    bins: Shared<[u32; 256]>,
) {
    let bins = zeroed_bins(&block, bins);
    let warp = block.tiled_partition::<32>();
    let grid = this_grid();
    // SAFETY: as in `each_chunk`.
    let (head, body, tail) = unsafe { input.align_to::<Chunk>() };
    let (g, stride) = (grid.thread_rank(), grid.num_threads());
    let rounds = body.len().div_ceil(stride);
    let mut i = g;
    for _ in 0..rounds {
        let chunk = if i < body.len() {
            body[i].0
        } else {
            [u32::MAX; 4]
        };
        for word in chunk {
            for k in 0..4 {
                // 256 + byte for lanes past the end: matches no real byte.
                let key = if i < body.len() {
                    (word >> (8 * k)) & 255
                } else {
                    256
                };
                let same = warp.match_any(key);
                if key < 256 && warp.thread_rank() == same.trailing_zeros() {
                    bins.add(key as usize, same.count_ones());
                }
            }
        }
        i += stride;
    }
    if g < head.len() {
        bins.add(head[g] as usize, 1);
    }
    if g < tail.len() {
        bins.add(tail[g] as usize, 1);
    }
    flush(&block, bins, &hist);
}

/// [`histogram_256`] reading one byte a thread at a time and updating
/// one bin per byte: the simplest kernel, for comparison.
#[kernel]
pub fn histogram_256_bytewise(
    block: ThreadBlock,
    input: &[u8],
    hist: Out<u32>,
    bins: Shared<[u32; 256]>,
) {
    let bins = zeroed_bins(&block, bins);
    let grid = this_grid();
    let mut i = grid.thread_rank();
    while i < input.len() {
        bins.add(input[i] as usize, 1);
        i += grid.num_threads();
    }
    flush(&block, bins, &hist);
}

/// Copies the elements of `input` that satisfy `keep` (here: odd values)
/// to the front of `out`, in no particular order, and their number to
/// `count[0]` (which starts at 0).
///
/// A warp's keeping lanes take their slots with one atomic: the lowest
/// of them adds the warp's count (`ballot`), and each lane's slot is the
/// warp's base plus the keeping lanes below it (`lanemask_lt`).
#[kernel]
pub fn compact_odd(block: ThreadBlock, input: &[u32], out: Out<u32>, count: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let grid = this_grid();
    let stride = grid.num_threads();
    let rounds = input.len().div_ceil(stride);
    let mut i = grid.thread_rank();
    for _ in 0..rounds {
        let keep = i < input.len() && input[i] % 2 == 1;
        let votes = warp.ballot(keep);
        if votes != 0 {
            let first = votes.trailing_zeros();
            let mut base = 0;
            if warp.thread_rank() == first {
                base = count.atomic().fetch_add(0, votes.count_ones());
            }
            let base = warp.shfl(base, first);
            if keep {
                let below = (votes & warp.lanemask_lt()).count_ones();
                out.write((base + below) as usize, input[i]);
            }
        }
        i += stride;
    }
}
