//! One kernel per tile size (4, 16, 32) running every tile collective once,
//! so that the PTX of each size can be inspected and the results checked.

use coop::prelude::*;
use coop::{TileSize, ValidTileSize};

/// What each thread writes, in this order, `FIELDS` values per thread.
pub const FIELDS: usize = 8;

#[inline(always)]
fn tile_tour<const N: u32>(block: ThreadBlock, input: &[u32], out: Out<u32>)
where
    TileSize<N>: ValidTileSize,
{
    let tile = block.tiled_partition::<N>();
    let i = this_grid().thread_rank();
    let v = input[i];
    let results = [
        tile.shfl(v, 0),         // the tile leader's value
        tile.shfl_up(v, 1),      // the previous rank's value
        tile.shfl_down(v, 1),    // the next rank's value
        tile.shfl_xor(v, N / 2), // the partner across the tile's middle
        tile.ballot(v % 2 == 1), // which ranks hold odd values
        tile.any(v == 0) as u32 + 2 * tile.all(v > 0) as u32,
        tile.match_any(v % 4), // ranks with the same value mod 4
        tile.match_all(v / 1_000_000).unwrap_or(u32::MAX),
    ];
    for (k, r) in results.into_iter().enumerate() {
        out.write(FIELDS * i + k, r);
    }
}

/// [`tile_tour`] over tiles of 4 threads.
#[kernel]
pub fn tile_tour_4(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    tile_tour::<4>(block, input, out)
}

/// [`tile_tour`] over tiles of 16 threads.
#[kernel]
pub fn tile_tour_16(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    tile_tour::<16>(block, input, out)
}

/// [`tile_tour`] over tiles of 32 threads (whole warps).
#[kernel]
pub fn tile_tour_32(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    tile_tour::<32>(block, input, out)
}
