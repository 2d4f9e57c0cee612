//! Block-level building blocks: a block's tile of `threads × ITEMS`
//! elements, held `ITEMS` to a thread in registers, loaded, stored,
//! rearranged, compared with its neighbours and sorted by the whole block
//! (CUB's `cub/block/`). Device-wide algorithms are made of these pieces;
//! a kernel of yours uses them for its own tiles.
//!
//! # Arrangements
//!
//! A thread holds its items as an array `[T; ITEMS]`, in one of two
//! arrangements of the tile:
//!
//! | arrangement | thread `t` holds | suits |
//! |---|---|---|
//! | **blocked** | elements `t × ITEMS .. (t + 1) × ITEMS`, in order | work on consecutive elements: scans within a thread, neighbours, sorting |
//! | **striped** | elements `t`, `t + threads`, `t + 2 × threads`, ... | global memory: consecutive threads touch consecutive elements (coalesced) |
//!
//! | call | what it does | CUB |
//! |---|---|---|
//! | [`load_blocked`], [`load_striped`] | a tile from a slice, straight into registers; elements past the slice's end take a fill value | `BlockLoad` (`DIRECT`, `STRIPED`) |
//! | [`load_vectorized`], [`store_vectorized`] | the blocked arrangement, a thread's run moved 16 bytes an instruction where it is whole and aligned | `BlockLoad`/`BlockStore` (`VECTORIZE`) |
//! | [`load_transposed`] | striped (coalesced) loads, then [`striped_to_blocked`] | `BlockLoad` (`TRANSPOSE`) |
//! | [`load_warp_striped`], [`store_warp_striped`] | each warp's `32 × ITEMS` consecutive elements striped over its lanes (coalesced, no exchange): the arrangement [`RadixSort::warp_striped`] sorts | `BlockLoad`/`BlockStore` (`WARP_TRANSPOSE`'s first step) |
//! | [`store_blocked`], [`store_striped`], [`store_transposed`] | the same, to an [`Out`](crate::Out); elements past its end are not stored | `BlockStore` |
//! | [`blocked_to_striped`], [`striped_to_blocked`] | the tile rearranged through shared memory | `BlockExchange` |
//! | [`scatter_to_blocked`], [`scatter_to_striped`] | each item to a place in the tile given by its rank | `BlockExchange::ScatterTo*` |
//! | [`flag_heads`], [`flag_tails`], [`flag_heads_and_tails`] | which items differ from their neighbour: the first and last of each run | `BlockDiscontinuity` |
//! | [`flag_tails_partial`], [`flag_heads_and_tails_partial`] | the same for a partial tile's first `valid` items | `BlockDiscontinuity` |
//! | [`subtract_left`], [`subtract_right`] | each item combined with its neighbour | `BlockAdjacentDifference` |
//! | [`subtract_left_partial`], [`subtract_right_partial`] | the same for a partial tile's first `valid` items | `BlockAdjacentDifference` (`*PartialTile`) |
//! | [`histogram`], [`histogram_add`] | the tile's items counted by bin into a shared array, by shared atomics | `BlockHistogram` (`ATOMIC`) |
//! | [`radix_rank`] | each key's place in the tile sorted by one digit, stable | `BlockRadixRank` |
//! | [`RadixSort`] | the tile's keys, or keys and values, sorted | `BlockRadixSort` |
//! | [`merge_sort`], [`merge_sort_pairs`] | the tile (or its first `valid` items) sorted stably by any order | `BlockMergeSort` |
//!
//! Every call is made by every thread of the block, with the same
//! arguments where an argument is the block's (the tile's start, the
//! scratch, the sort's bits), like a barrier. Blocks are whole warps
//! (a multiple of 32 threads) for the calls that talk across threads
//! through warps: the neighbours' and the sort's.
//!
//! # Scratch
//!
//! The calls that move items between threads go through shared memory:
//! a [`Shared`](crate::shared::Shared) array of the item type with at least
//! `threads × ITEMS` elements, passed as a [`TileScratch`]: the array
//! itself on its first use, or the [`Published`](crate::shared::Published)
//! view the previous call handed back, which the next call takes after a
//! barrier. So reusing a tile before every thread is done with it does not
//! compile, and the CPU backend names the line of a too-short array.
//! Neighbours, ranks and the sort's counts go through the block's own
//! scratch, as block reductions do.
//!
//! ```
//! use coop::prelude::*;
//! use coop::block::{self, RadixSort};
//! use coop::shared::Shared;
//!
//! /// Each block sorts its tile of 512 keys (128 threads × 4).
//! #[kernel]
//! pub fn sort_tiles(block: ThreadBlock, keys: &[u32], out: Out<u32>, tile: Shared<[u32; 512]>) {
//!     let first = block.group_index().x as usize * 512;
//!     // Coalesced loads; keys past the end become u32::MAX and sort last.
//!     let (items, tile) = block::load_transposed::<_, _, 4>(&block, keys, first, u32::MAX, tile);
//!     let (sorted, tile) = RadixSort::ascending().keys(&block, items, tile);
//!     let _tile = block::store_transposed(&block, sorted, &out, first, tile);
//! }
//!
//! let keys: Vec<u32> = (0..1000u32).map(|i| i.wrapping_mul(2654435761) >> 12).collect();
//! let mut out = vec![0u32; 1000];
//! coop_host::Cpu::new().launch(sort_tiles, coop_host::LaunchConfig::new(2, 128), (&keys[..], &mut out))?;
//! let mut first = keys[..512].to_vec();
//! first.sort();
//! assert_eq!(out[..512], first[..]);
//! let mut second = keys[512..].to_vec();
//! second.sort();
//! assert_eq!(out[512..], second[..]);
//! # Ok::<(), coop_host::Error>(())
//! ```

mod adjacent_difference;
pub(crate) mod chunks;
mod discontinuity;
mod exchange;
mod histogram;
pub(crate) mod items;
mod load;
pub(crate) mod merge_sort;
mod neighbours;
pub(crate) mod radix_key;
mod radix_sort;
mod store;

pub use crate::shared::TileScratch;
pub use adjacent_difference::{
    subtract_left, subtract_left_partial, subtract_right, subtract_right_partial,
};
pub use discontinuity::{
    flag_heads, flag_heads_and_tails, flag_heads_and_tails_partial, flag_tails, flag_tails_partial,
};
pub use exchange::{
    blocked_to_striped, scatter_to_blocked, scatter_to_striped, striped_to_blocked,
};
pub use histogram::{Bin, histogram, histogram_add};
pub use load::{load_blocked, load_striped, load_transposed, load_vectorized, load_warp_striped};
pub use merge_sort::{merge_sort, merge_sort_pairs};
pub use radix_key::{DESCENDING, RadixKey};
pub use radix_sort::{RANK_BITS, RadixSort, radix_rank};
pub use store::{
    store_blocked, store_striped, store_transposed, store_vectorized, store_warp_striped,
};
