//! The *rows* variant of the single pass, for inclusive scans of one-word
//! types (`i32`, `u32`, `f32`) from and to 16-byte aligned buffers: the
//! tile stays in registers. Warp `w` holds the `w`-th run of `32 × items`
//! elements of the tile in rows of `32 × row` elements (`row` from
//! [`items_per_row`]: one 16-byte vector): lane `l` holds elements `l ×
//! row .. (l + 1) × row` of each row, so that a warp's load or store of a
//! row is one 16-byte vector a lane over 512 consecutive bytes. Each lane
//! scans its part of a row; a warp scan of the lanes' totals (shuffles)
//! and the total of the rows before give every element its prefix within
//! the warp; the warps' totals and the look-back then work as in the
//! staged variant. It needs no shared memory for the tile and two block
//! barriers instead of four, but a warp scan a row instead of one a run;
//! chapter 7 of the guide has the figures that chose it for these scans
//! alone.

use super::{MAX_ITEMS, items_per_row, items_per_thread};
use crate::collectives;
use crate::device::staging::Words16;
use crate::op::Operator;
use crate::{Out, Shuffle, ThreadBlock};

/// Most rows a thread holds.
const MAX_ROWS: usize = 8;

/// `body` for each row `r` below `rows` (at most [`MAX_ROWS`]): written out
/// on the GPU, where LLVM may leave a loop with shuffles in it rolled (and
/// the items then go to local memory); a loop elsewhere.
macro_rules! unrolled_rows {
    ($rows:expr, |$r:ident| $body:block) => {
        #[cfg(target_arch = "nvptx64")]
        unrolled_rows!(@ $rows, $r, $body, 0 1 2 3 4 5 6 7);
        #[cfg(not(target_arch = "nvptx64"))]
        for $r in 0..$rows {
            $body
        }
    };
    (@ $rows:expr, $r:ident, $body:block, $($k:literal)*) => {
        $(
            if $k < $rows {
                let $r: usize = $k;
                $body
            }
        )*
    };
}

/// Whether the rows variant scans `T`: a type of one 32-bit word, whose
/// row of [`items_per_row`] is one 16-byte vector.
pub(super) const fn applies<T: Shuffle>() -> bool {
    core::mem::size_of::<T>() == 4
        && T::WORDS == 1
        && items_per_row::<T>() == 4
        && items_per_thread::<T>() <= MAX_ROWS * 4
}

/// The single pass's inclusive scan of this block's tile in rows (see the
/// module docs). `input` and `output` start 16-byte aligned, `output` is
/// as long as `input`, and [`applies`] holds.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn single_pass_inclusive<T: Shuffle, O: Operator<T>>(
    block: &ThreadBlock,
    input: &[T],
    output: &Out<T>,
    op: O,
    tile: usize,
    status: &Out<u64>,
    partials: &Out<T>,
    epoch: u32,
    prefixed: usize,
    site: crate::backend::Site,
) {
    let len = input.len();
    let items = items_per_thread::<T>();
    let row = items_per_row::<T>();
    let rows = items / row;
    let threads = block.num_threads() as usize;
    let tile_len = threads * items;
    let t = block.thread_rank() as usize;
    let (w, lane) = (t / 32, t % 32);
    let stride = 32 * row;
    let first = tile * tile_len + w * 32 * items + lane * row;
    let at = |i: usize| first + (i / row) * stride + i % row;
    let full = (tile + 1) * tile_len <= len;
    let mut x = [op.identity(); MAX_ITEMS];
    if full {
        let chunks = input.as_ptr() as *const Words16;
        let mut r = 0;
        while r < rows {
            // SAFETY: a full tile: the thread's rows are inside `input`,
            // at multiples of 4 elements from a 16-byte aligned start.
            let chunk = unsafe { *chunks.add((first + r * stride) / 4) };
            let mut l = 0;
            while l < 4 {
                x[r * 4 + l] = x[r * 4 + l].map_words(|_| chunk.0[l]);
                l += 1;
            }
            r += 1;
        }
    } else {
        // The last tile: elements past the end are the identity.
        let mut i = 0;
        while i < items {
            if at(i) < len {
                x[i] = input[at(i)];
            }
            i += 1;
        }
    }
    let warp = block.tiled_partition_at::<32>(site);
    // What the rows before this one hold, in the whole warp.
    let mut carry = op.identity();
    unrolled_rows!(rows, |r| {
        let o = r * row;
        let mut l = 1;
        while l < row {
            x[o + l] = op.combine(x[o + l - 1], x[o + l]);
            l += 1;
        }
        let inclusive = collectives::warp_inclusive_scan(&warp, x[o + row - 1], op, site);
        let within = warp.shfl_up_at(inclusive, 1, site);
        let row_total = warp.shfl_at(inclusive, 31, site);
        let base = if lane == 0 {
            carry
        } else {
            op.combine(carry, within)
        };
        let mut l = 0;
        while l < row {
            x[o + l] = op.combine(base, x[o + l]);
            l += 1;
        }
        carry = op.combine(carry, row_total);
    });
    let (before, _, _) =
        collectives::prefix_of_warps(block, &warp, carry, 0, op, "scan", site, |warp, total| {
            super::look_back_after::<T, O, false>(
                warp, tile, total, op, status, partials, epoch, prefixed,
            )
        });
    let mut i = 0;
    while i < items {
        x[i] = op.combine(before, x[i]);
        i += 1;
    }
    if full {
        let mut r = 0;
        while r < rows {
            let mut words = [0u32; 4];
            let mut l = 0;
            while l < 4 {
                x[r * 4 + l].map_words(|word| {
                    words[l] = word;
                    word
                });
                l += 1;
            }
            // SAFETY: a full tile of `output`, which is as long as
            // `input`, at a multiple of 4 elements from a 16-byte aligned
            // start; the chunk is 4 one-word elements.
            unsafe { output.write_chunk(first + r * stride, 4, Words16(words)) };
            r += 1;
        }
    } else {
        // The thread's elements before the end are its first `valid`
        // items (a count, not the loads' tests, so that the compiler keeps
        // one number instead of a predicate an item).
        let rest = len.saturating_sub(first);
        let valid = ((rest / stride) * row + (rest % stride).min(row)).min(items);
        let mut i = 0;
        while i < items {
            if i < valid {
                // SAFETY: below the input's length, as long as the output.
                unsafe { output.write_in_bounds(at(i), x[i]) };
            }
            i += 1;
        }
    }
}
