//! Ragged tiles: `RaggedTile<N>`, the tiles of `N` threads (up to one warp)
//! of a block whose thread count need not be a multiple of `N`. Every tile
//! has `N` threads except the block's last, which has the rest: the last
//! warp of a block of 120 threads is a group of 24. The whole tiles run the
//! same instructions as a [`TiledPartition<N>`]; the last one names only
//! the lanes the block has, so no shuffle reads a lane that does not exist.

use super::tile::TiledPartition;
use crate::backend::target::Target;
use crate::backend::{Registers, Site, WarpCollectives, site};
use crate::groups::match_key::MatchKey;
use crate::groups::shuffle::Shuffle;
use crate::{CoalescedGroup, ThreadBlock, TileSize, ValidTileSize};

/// The calling thread's tile of `N` threads (`N` = 1, 2, 4, 8, 16 or 32)
/// in a block of any size: every tile has `N` threads but the block's last,
/// which has the rest (`block.ragged_partition::<32>()` in a block of 120
/// threads: three warps of 32 and one of 24).
///
/// CUDA's `tiled_partition<32>(block)` asks for a block whose size is a
/// multiple of 32, and coop's [`tiled_partition`](ThreadBlock::tiled_partition)
/// holds to it (the CPU backend reports a partial tile), since its type
/// promises `N` threads to every collective. A ragged tile promises no
/// more than the lanes that exist: [`num_threads`](Self::num_threads) is
/// `N` or fewer, shuffles from a rank the tile lacks return the caller's own
/// value, and reductions and scans combine the threads the tile has. In a
/// block whose size is a multiple of `N` it behaves as a `TiledPartition<N>`
/// and costs the same but for the size check.
///
/// ```
/// use coop::prelude::*;
///
/// /// Each warp's running total, in blocks of 120 threads (the integral
/// /// image sample's shape): the last warp has 24 threads.
/// #[kernel]
/// pub fn warp_totals(block: ThreadBlock, out: Out<u32>) {
///     let warp = block.ragged_partition::<32>();
///     let r = block.thread_rank();
///     let running = inclusive_scan(&warp, 1, op::Sum);
///     out.write(r as usize, 100 * warp.num_threads() + running);
/// }
///
/// let mut out = vec![0u32; 120];
/// coop_host::Cpu::new().launch(warp_totals, coop_host::LaunchConfig::new(1, 120), (&mut out,))?;
/// assert_eq!(out[31], 3232); // a whole warp
/// assert_eq!(out[96], 2401); // the last warp: 24 threads
/// assert_eq!(out[119], 2424);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
#[doc(alias = "partial tile")]
#[doc(alias = "partial warp")]
#[doc(alias = "last warp")]
pub struct RaggedTile<const N: u32>
where
    TileSize<N>: ValidTileSize,
{
    /// The tile, its mask cut down to the lanes the block has.
    tile: TiledPartition<N>,
    /// Threads in the tile.
    size: u32,
}

impl ThreadBlock {
    /// The calling thread's tile of `N` threads, the block's last tile
    /// holding the threads that remain; see [`RaggedTile`].
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// /// Blocks of 100 threads in tiles of 8: twelve of 8 and one of 4.
    /// #[kernel]
    /// pub fn tile_sizes(block: ThreadBlock, out: Out<u32>) {
    ///     let tile = block.ragged_partition::<8>();
    ///     let r = block.thread_rank() as usize;
    ///     out.write(r, 100 * tile.meta_group_rank() + tile.num_threads());
    /// }
    ///
    /// let mut out = vec![0u32; 100];
    /// coop_host::Cpu::new().launch(tile_sizes, coop_host::LaunchConfig::new(1, 100), (&mut out,))?;
    /// assert_eq!((out[0], out[95], out[96], out[99]), (8, 1108, 1204, 1204));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "cg::tiled_partition")]
    pub fn ragged_partition<const N: u32>(&self) -> RaggedTile<N>
    where
        TileSize<N>: ValidTileSize,
    {
        let site = site!();
        let t = Target::thread_index(site);
        let d = Target::block_dim(site);
        let (rank, threads) = (d.linearize_u32(t), d.volume_u32());
        let first = rank & !(N - 1);
        let size = if threads - first < N {
            threads - first
        } else {
            N
        };
        let base_lane = Target::lane_id(site) & !(N - 1);
        let lanes = if size >= 32 {
            u32::MAX
        } else {
            ((1u32 << size) - 1) << base_lane
        };
        RaggedTile {
            tile: TiledPartition::with_lanes(
                lanes,
                base_lane,
                rank & (N - 1),
                rank / N,
                threads.div_ceil(N),
            ),
            size,
        }
    }
}

impl<const N: u32> RaggedTile<N>
where
    TileSize<N>: ValidTileSize,
{
    /// The tile as a tile of `N` threads, for the collectives that run the
    /// same on a whole ragged tile; its mask names only the lanes present.
    #[inline(always)]
    pub(crate) fn as_tile(&self) -> &TiledPartition<N> {
        &self.tile
    }

    /// Whether the tile has all `N` threads (every tile but perhaps the
    /// block's last).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn whole(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     out.write(block.thread_rank() as usize, warp.is_whole() as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 40];
    /// coop_host::Cpu::new().launch(whole, coop_host::LaunchConfig::new(1, 40), (&mut out,))?;
    /// assert_eq!((out[31], out[32]), (1, 0));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn is_whole(&self) -> bool {
        self.size == N
    }

    /// Threads in the tile: `N`, or what remains in the block's last tile.
    ///
    /// See [`RaggedTile`] for an example.
    #[inline(always)]
    #[doc(alias = "size")]
    pub fn num_threads(&self) -> u32 {
        self.size
    }

    /// The calling thread's rank in the tile, `0..num_threads()`.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn ranks(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     out.write(block.thread_rank() as usize, warp.thread_rank());
    /// }
    ///
    /// let mut out = vec![0u32; 40];
    /// coop_host::Cpu::new().launch(ranks, coop_host::LaunchConfig::new(1, 40), (&mut out,))?;
    /// assert_eq!((out[31], out[39]), (31, 7));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn thread_rank(&self) -> u32 {
        self.tile.thread_rank()
    }

    /// The tile's number among the block's tiles of `N`.
    ///
    /// See [`ThreadBlock::ragged_partition`] for an example.
    #[inline(always)]
    pub fn meta_group_rank(&self) -> u32 {
        self.tile.meta_group_rank()
    }

    /// How many tiles of `N` the block has, the last one counted even when
    /// it is not whole.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn count(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     out.write(block.thread_rank() as usize, warp.meta_group_size());
    /// }
    ///
    /// let mut out = vec![0u32; 120];
    /// coop_host::Cpu::new().launch(count, coop_host::LaunchConfig::new(1, 120), (&mut out,))?;
    /// assert!(out.iter().all(|&n| n == 4));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn meta_group_size(&self) -> u32 {
        self.tile.meta_group_size()
    }

    /// The tile's lanes as a warp lane mask (bit `l` for lane `l`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn masks(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     out.write(block.thread_rank() as usize, warp.lanes());
    /// }
    ///
    /// let mut out = vec![0u32; 40];
    /// coop_host::Cpu::new().launch(masks, coop_host::LaunchConfig::new(1, 40), (&mut out,))?;
    /// assert_eq!((out[0], out[39]), (u32::MAX, 0xff));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn lanes(&self) -> u32 {
        self.tile.lane_mask()
    }

    /// Waits for the tile's threads (`bar.warp.sync` with the tile's
    /// lanes) and orders their memory accesses.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn after_sync(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     warp.sync();
    ///     out.write(block.thread_rank() as usize, 1);
    /// }
    ///
    /// let mut out = vec![0u32; 50];
    /// coop_host::Cpu::new().launch(after_sync, coop_host::LaunchConfig::new(1, 50), (&mut out,))?;
    /// assert!(out.iter().all(|&v| v == 1));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__syncwarp")]
    #[doc(alias = "bar.warp.sync")]
    pub fn sync(&self) {
        self.tile.sync_at(site!())
    }

    /// The `value` of the thread of rank `src_rank`, taken modulo
    /// [`num_threads`](Self::num_threads) (CUDA's `coalesced_group::shfl`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn lasts(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     let r = block.thread_rank();
    ///     out.write(r as usize, warp.shfl(r, warp.num_threads() - 1));
    /// }
    ///
    /// let mut out = vec![0u32; 40];
    /// coop_host::Cpu::new().launch(lasts, coop_host::LaunchConfig::new(1, 40), (&mut out,))?;
    /// assert_eq!((out[0], out[32]), (31, 39));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__shfl_sync")]
    #[doc(alias = "shfl.sync.idx")]
    pub fn shfl<T: Shuffle>(&self, value: T, src_rank: u32) -> T {
        let src = if src_rank < self.size {
            src_rank
        } else {
            src_rank % self.size
        };
        self.tile.shfl_at(value, src, site!())
    }

    /// The `value` of the thread of rank `src` (`src < num_threads()`).
    #[inline(always)]
    pub(crate) fn shfl_at<T: Shuffle>(&self, value: T, src: u32, site: Site) -> T {
        self.tile.shfl_at(value, src, site)
    }

    /// The `value` of the thread `delta` ranks below; threads of rank below
    /// `delta` keep their own.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn previous(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     let r = block.thread_rank();
    ///     out.write(r as usize, warp.shfl_up(r, 1));
    /// }
    ///
    /// let mut out = vec![0u32; 40];
    /// coop_host::Cpu::new().launch(previous, coop_host::LaunchConfig::new(1, 40), (&mut out,))?;
    /// assert_eq!((out[32], out[33], out[39]), (32, 32, 38));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__shfl_up_sync")]
    #[doc(alias = "shfl.sync.up")]
    pub fn shfl_up<T: Shuffle>(&self, value: T, delta: u32) -> T {
        self.tile.shfl_up_at(value, delta, site!())
    }

    /// The `value` of the thread `delta` ranks above; threads within
    /// `delta` of the tile's last thread keep their own (in the last tile
    /// too, whose last thread is not at rank `N - 1`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn next(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     let r = block.thread_rank();
    ///     out.write(r as usize, warp.shfl_down(r, 2));
    /// }
    ///
    /// let mut out = vec![0u32; 40];
    /// coop_host::Cpu::new().launch(next, coop_host::LaunchConfig::new(1, 40), (&mut out,))?;
    /// assert_eq!((out[30], out[37], out[38], out[39]), (30, 39, 38, 39));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__shfl_down_sync")]
    #[doc(alias = "shfl.sync.down")]
    pub fn shfl_down<T: Shuffle>(&self, value: T, delta: u32) -> T {
        let rank = self.tile.thread_rank();
        let src = if delta < self.size - rank {
            rank + delta
        } else {
            rank
        };
        self.tile.shfl_at(value, src, site!())
    }

    /// The `value` of the thread whose rank is the caller's xor
    /// `lane_mask`; a thread whose partner the tile lacks (in the last
    /// tile) keeps its own.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn swap_pairs(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     let r = block.thread_rank();
    ///     out.write(r as usize, warp.shfl_xor(r, 1));
    /// }
    ///
    /// let mut out = vec![0u32; 37];
    /// coop_host::Cpu::new().launch(swap_pairs, coop_host::LaunchConfig::new(1, 37), (&mut out,))?;
    /// assert_eq!((out[32], out[33], out[36]), (33, 32, 36)); // 36's partner, 37, does not exist
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__shfl_xor_sync")]
    #[doc(alias = "shfl.sync.bfly")]
    pub fn shfl_xor<T: Shuffle>(&self, value: T, lane_mask: u32) -> T {
        let rank = self.tile.thread_rank();
        let partner = rank ^ (lane_mask & (N - 1));
        let src = if lane_mask & 31 < N && partner < self.size {
            partner
        } else {
            rank
        };
        self.tile.shfl_at(value, src, site!())
    }

    /// Whether any thread of the tile has `predicate`.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn any_last(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     let r = block.thread_rank();
    ///     out.write(r as usize, warp.any(r == 39) as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 40];
    /// coop_host::Cpu::new().launch(any_last, coop_host::LaunchConfig::new(1, 40), (&mut out,))?;
    /// assert_eq!((out[0], out[32]), (0, 1));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__any_sync")]
    #[doc(alias = "vote.sync.any")]
    pub fn any(&self, predicate: bool) -> bool {
        Target::vote_any(self.tile.lane_mask(), predicate, site!())
    }

    /// Whether every thread of the tile has `predicate`.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn all_small(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     let r = block.thread_rank();
    ///     out.write(r as usize, warp.all(r < 40) as u32);
    /// }
    ///
    /// let mut out = vec![0u32; 40];
    /// coop_host::Cpu::new().launch(all_small, coop_host::LaunchConfig::new(1, 40), (&mut out,))?;
    /// assert!(out.iter().all(|&v| v == 1));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__all_sync")]
    #[doc(alias = "vote.sync.all")]
    pub fn all(&self, predicate: bool) -> bool {
        Target::vote_all(self.tile.lane_mask(), predicate, site!())
    }

    /// The tile's votes, bit `r` for rank `r` (bits past
    /// [`num_threads`](Self::num_threads) are 0).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn evens(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     let r = block.thread_rank();
    ///     out.write(r as usize, warp.ballot(r % 2 == 0));
    /// }
    ///
    /// let mut out = vec![0u32; 36];
    /// coop_host::Cpu::new().launch(evens, coop_host::LaunchConfig::new(1, 36), (&mut out,))?;
    /// assert_eq!(out[35], 0b0101);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__ballot_sync")]
    #[doc(alias = "vote.sync.ballot")]
    pub fn ballot(&self, predicate: bool) -> u32 {
        let mask = self.tile.lane_mask();
        (Target::vote_ballot(mask, predicate, site!()) & mask) >> self.tile.base_lane()
    }

    /// The ranks of the tile whose `value` equals the caller's, bit `r`
    /// for rank `r`.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn same(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     let r = block.thread_rank();
    ///     out.write(r as usize, warp.match_any(r % 3));
    /// }
    ///
    /// let mut out = vec![0u32; 36];
    /// coop_host::Cpu::new().launch(same, coop_host::LaunchConfig::new(1, 36), (&mut out,))?;
    /// assert_eq!((out[32], out[35]), (0b1001, 0b1001)); // threads 32 and 35, ranks 0 and 3 of the last warp
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__match_any_sync")]
    #[doc(alias = "match.any.sync")]
    pub fn match_any<T: MatchKey>(&self, value: T) -> u32 {
        let mask = self.tile.lane_mask();
        (value.match_any(mask, site!()) & mask) >> self.tile.base_lane()
    }

    /// The tile's ranks, bit `r` for rank `r`, if every thread of the tile
    /// has the same `value`; `None` otherwise.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn uniform(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     let r = block.thread_rank() as usize;
    ///     out.write(r, warp.match_all(warp.meta_group_rank()).unwrap_or(0));
    /// }
    ///
    /// let mut out = vec![0u32; 36];
    /// coop_host::Cpu::new().launch(uniform, coop_host::LaunchConfig::new(1, 36), (&mut out,))?;
    /// assert_eq!((out[0], out[35]), (u32::MAX, 0b1111));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__match_all_sync")]
    #[doc(alias = "match.all.sync")]
    pub fn match_all<T: MatchKey>(&self, value: T) -> Option<u32> {
        let mask = self.tile.lane_mask();
        let (lanes, all_equal) = value.match_all(mask, site!());
        if all_equal {
            Some((lanes & mask) >> self.tile.base_lane())
        } else {
            None
        }
    }

    /// The tile's threads whose `predicate` equals the caller's (CUDA's
    /// `binary_partition`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn sides(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     let r = block.thread_rank();
    ///     let side = warp.binary_partition(r % 2 == 0);
    ///     out.write(r as usize, side.num_threads());
    /// }
    ///
    /// let mut out = vec![0u32; 37];
    /// coop_host::Cpu::new().launch(sides, coop_host::LaunchConfig::new(1, 37), (&mut out,))?;
    /// assert_eq!((out[0], out[32], out[33]), (16, 3, 2));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "cg::binary_partition")]
    pub fn binary_partition(&self, predicate: bool) -> CoalescedGroup {
        self.tile.binary_partition(predicate)
    }

    /// The tile's threads whose `label` equals the caller's (CUDA's
    /// `labeled_partition`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn thirds(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     let r = block.thread_rank();
    ///     out.write(r as usize, warp.labeled_partition(r % 3).num_threads());
    /// }
    ///
    /// let mut out = vec![0u32; 37];
    /// coop_host::Cpu::new().launch(thirds, coop_host::LaunchConfig::new(1, 37), (&mut out,))?;
    /// assert_eq!((out[32], out[33], out[34]), (2, 2, 1));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "cg::labeled_partition")]
    pub fn labeled_partition<L: MatchKey>(&self, label: L) -> CoalescedGroup {
        self.tile.labeled_partition(label)
    }

    /// Runs `f` on the tile's thread of rank 0 (CUDA's `invoke_one`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn tiles(block: ThreadBlock, count: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     warp.invoke_one(|| count.atomic().add(0, 1));
    /// }
    ///
    /// let mut count = vec![0u32];
    /// coop_host::Cpu::new().launch(tiles, coop_host::LaunchConfig::new(2, 120), (&mut count,))?;
    /// assert_eq!(count[0], 8);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[doc(alias = "cg::invoke_one")]
    pub fn invoke_one(&self, f: impl FnOnce()) {
        self.tile.invoke_one(f)
    }

    /// Runs `f` on the tile's thread of rank 0 and gives its result to
    /// every thread of the tile (CUDA's `invoke_one_broadcast`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn tickets(block: ThreadBlock, next: Out<u32>, out: Out<u32>) {
    ///     let warp = block.ragged_partition::<32>();
    ///     let first = warp.invoke_one_broadcast(|| next.atomic().fetch_add(0, warp.num_threads()));
    ///     out.write((first + warp.thread_rank()) as usize, 1);
    /// }
    ///
    /// let (mut next, mut out) = (vec![0u32], vec![0u32; 40]);
    /// coop_host::Cpu::new().launch(tickets, coop_host::LaunchConfig::new(1, 40), (&mut next, &mut out))?;
    /// assert!(out.iter().all(|&x| x == 1));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "cg::invoke_one_broadcast")]
    pub fn invoke_one_broadcast<T: Shuffle + Default>(&self, f: impl FnOnce() -> T) -> T {
        self.tile.invoke_one_broadcast(f)
    }
}
