//! Groups known only at run time, within one warp: `CoalescedGroup` (the
//! lanes that run a call together, or a partition of a tile by a predicate
//! or a label) and its collectives, each the warp instruction of the group's
//! lane mask, with ranks counted among the group's lanes.

use crate::backend::target::Target;
use crate::backend::{Barriers, Registers, Site, WarpCollectives, site};
use crate::groups::match_key::MatchKey;
use crate::groups::shuffle::Shuffle;
use crate::{AnyTileSize, TileSize, TiledPartition, ValidTileSize};

/// Some lanes of one warp, known at run time (CUDA's `coalesced_group`):
/// the lanes that called [`coalesced_threads`] together, or one part of a
/// tile split by [`TiledPartition::binary_partition`] or
/// [`TiledPartition::labeled_partition`].
///
/// Ranks count the group's lanes from the lowest: the group of lanes 3, 7
/// and 9 has ranks 0, 1 and 2. Lane arguments (`shfl`'s source) and the
/// masks that `ballot` and `match_any` return are in ranks too: bit `r`
/// stands for the group's thread of rank `r`. Every collective must be
/// reached by every thread of the group, as for a tile.
///
/// ```
/// use coop::prelude::*;
///
/// /// Warp-aggregated counting: the lanes that find a match add their
/// /// count with one atomic per group instead of one per lane.
/// #[kernel]
/// pub fn count_matches(grid: Grid, input: &[u32], needle: u32, count: Out<u32>) {
///     let i = grid.thread_rank();
///     if i < input.len() && input[i] == needle {
///         let group = coalesced_threads();
///         group.invoke_one(|| count.atomic().add(0, group.num_threads()));
///     }
/// }
///
/// let input: Vec<u32> = (0..1000).map(|i| i % 10).collect();
/// let mut count = vec![0u32];
/// coop_host::Cpu::new()
///     .launch(count_matches, coop_host::LaunchConfig::new(4, 256), (&input, 3u32, &mut count))?;
/// assert_eq!(count[0], 100);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
#[doc(alias = "coalesced_group")]
pub struct CoalescedGroup {
    /// The group's lanes, as a warp lane mask.
    mask: u32,
    /// The calling thread's rank in the group.
    rank: u32,
}

/// The lanes of the calling warp that run this call together with the
/// caller (CUDA's `coalesced_threads()`, `activemask.b32`).
///
/// Which lanes those are depends on how the warp runs at that point: the
/// hardware and the compiler may split a warp's lanes however they like
/// where a branch divides them, so a kernel must be correct for any split
/// (each lane in exactly one group, of the lanes that reached the call). The
/// CPU backend groups the lanes that reached the call before any of them
/// went on, as a warp that stays together would, and splits them at random
/// under schedule exploration (`Emulator::with_schedules`).
///
/// ```
/// use coop::prelude::*;
///
/// /// Each odd thread learns how many threads of its warp took the branch
/// /// with it, and its rank among them.
/// #[kernel]
/// pub fn odd_ones(block: ThreadBlock, out: Out<u32>) {
///     let r = block.thread_rank() as usize;
///     if r % 2 == 1 {
///         let odd = coalesced_threads();
///         out.write(r, odd.num_threads() * 100 + odd.thread_rank());
///     }
/// }
///
/// let mut out = vec![0u32; 32];
/// coop_host::Cpu::new().launch(odd_ones, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
/// assert_eq!(out[1], 1600); // 16 odd lanes; lane 1 is rank 0
/// assert_eq!(out[7], 1603);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "cg::coalesced_threads")]
#[doc(alias = "__activemask")]
#[doc(alias = "activemask")]
pub fn coalesced_threads() -> CoalescedGroup {
    let site = site!();
    CoalescedGroup::of_mask(Target::active_mask(site), site)
}

/// The lane of the warp that holds rank `rank` among the lanes of `mask`
/// (`rank < mask.count_ones()`): a binary search on the counts of set bits.
#[inline(always)]
pub(crate) fn lane_of_rank(mask: u32, rank: u32) -> u32 {
    let mut lane = 0;
    let mut left = rank;
    let mut m = mask;
    let mut width = 16;
    while width > 0 {
        let low = m & ((1u32 << width) - 1);
        let below = low.count_ones();
        if left >= below {
            left -= below;
            m >>= width;
            lane += width;
        } else {
            m = low;
        }
        width /= 2;
    }
    lane
}

/// The bits of `x` at the set positions of `mask`, packed into the low
/// bits in order (x86's `pext`): warp lane bits to group rank bits.
#[inline(always)]
pub(crate) fn compress(x: u32, mask: u32) -> u32 {
    // Five rounds, each moving the bits that must travel 2^i further right
    // by 2^i: the count of unselected positions below each selected bit,
    // taken bit by bit (a parallel prefix of the mask's zeros).
    let mut x = x & mask;
    let mut m = mask;
    let mut zeros_below = !m << 1;
    for i in 0..5 {
        let mut travel = zeros_below ^ (zeros_below << 1);
        travel ^= travel << 2;
        travel ^= travel << 4;
        travel ^= travel << 8;
        travel ^= travel << 16;
        let moving = travel & m;
        m = (m ^ moving) | (moving >> (1 << i));
        let t = x & moving;
        x = (x ^ t) | (t >> (1 << i));
        zeros_below &= !travel;
    }
    x
}

impl CoalescedGroup {
    /// The group of the lanes of `mask`, which holds the caller's lane.
    #[inline(always)]
    fn of_mask(mask: u32, site: Site) -> Self {
        let lane = Target::lane_id(site);
        CoalescedGroup {
            mask,
            rank: (mask & ((1u32 << lane) - 1)).count_ones(),
        }
    }

    /// The group's lanes as a warp lane mask (bit `l` for lane `l` of the
    /// warp), for code that mixes the group with warp-wide values.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn halves(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.tiled_partition::<32>();
    ///     let upper = warp.binary_partition(warp.thread_rank() >= 16);
    ///     out.write(block.thread_rank() as usize, upper.lanes());
    /// }
    ///
    /// let mut out = vec![0u32; 32];
    /// coop_host::Cpu::new().launch(halves, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
    /// assert_eq!((out[0], out[31]), (0x0000_ffff, 0xffff_0000));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn lanes(&self) -> u32 {
        self.mask
    }

    /// The calling thread's rank in the group: how many of its lanes are
    /// below the caller's.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn ranks(block: ThreadBlock, out: Out<u32>) {
    ///     let r = block.thread_rank();
    ///     let warp = block.tiled_partition::<32>();
    ///     let threes = warp.binary_partition(r % 3 == 0);
    ///     out.write(r as usize, threes.thread_rank());
    /// }
    ///
    /// let mut out = vec![0u32; 32];
    /// coop_host::Cpu::new().launch(ranks, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
    /// assert_eq!((out[0], out[3], out[9]), (0, 1, 3)); // lanes 0, 3, 6, 9, ...
    /// assert_eq!((out[1], out[2], out[4]), (0, 1, 2)); // lanes 1, 2, 4, ...
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn thread_rank(&self) -> u32 {
        self.rank
    }

    /// Threads in the group.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn sizes(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.tiled_partition::<32>();
    ///     let small = warp.binary_partition(warp.thread_rank() < 5);
    ///     out.write(block.thread_rank() as usize, small.num_threads());
    /// }
    ///
    /// let mut out = vec![0u32; 32];
    /// coop_host::Cpu::new().launch(sizes, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
    /// assert_eq!((out[0], out[31]), (5, 27));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[doc(alias = "size")]
    pub fn num_threads(&self) -> u32 {
        self.mask.count_ones()
    }

    /// Waits until every thread of the group has arrived
    /// (`bar.warp.sync` with the group's lanes), ordering their memory
    /// accesses.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn after_sync(block: ThreadBlock, out: Out<u32>) {
    ///     let warp = block.tiled_partition::<32>();
    ///     let evens = warp.binary_partition(warp.thread_rank() % 2 == 0);
    ///     evens.sync();
    ///     out.write(block.thread_rank() as usize, evens.num_threads());
    /// }
    ///
    /// let mut out = vec![0u32; 32];
    /// coop_host::Cpu::new().launch(after_sync, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
    /// assert!(out.iter().all(|&n| n == 16));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__syncwarp")]
    pub fn sync(&self) {
        Target::sync_warp(self.mask, site!())
    }

    /// The `value` of the group's thread of rank `src_rank % num_threads()`.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// /// Every thread of each label's group reads the group leader's index.
    /// #[kernel]
    /// pub fn leaders(block: ThreadBlock, labels: &[u32], out: Out<u32>) {
    ///     let r = block.thread_rank();
    ///     let warp = block.tiled_partition::<32>();
    ///     let same = warp.labeled_partition(labels[r as usize]);
    ///     out.write(r as usize, same.shfl(r, 0));
    /// }
    ///
    /// let labels: Vec<u32> = (0..32).map(|i| i % 4).collect();
    /// let mut out = vec![0u32; 32];
    /// coop_host::Cpu::new().launch(leaders, coop_host::LaunchConfig::new(1, 32), (&labels, &mut out))?;
    /// assert_eq!(&out[..8], &[0, 1, 2, 3, 0, 1, 2, 3]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__shfl_sync")]
    pub fn shfl<T: Shuffle>(&self, value: T, src_rank: u32) -> T {
        self.shfl_at(value, src_rank, site!())
    }

    #[inline(always)]
    pub(crate) fn shfl_at<T: Shuffle>(&self, value: T, src_rank: u32, site: Site) -> T {
        let src = lane_of_rank(self.mask, src_rank % self.num_threads());
        self.read_lane(value, src, site)
    }

    /// Every thread reads `value` from warp lane `src` (a lane of the
    /// group).
    #[inline(always)]
    fn read_lane<T: Shuffle>(&self, value: T, src: u32, site: Site) -> T {
        let mask = self.mask;
        value.map_words(|w| Target::shfl_idx(mask, w, src, 0x1f, site))
    }

    /// The `value` of the thread `delta` ranks below; threads of rank below
    /// `delta` keep their own.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn previous(block: ThreadBlock, out: Out<u32>) {
    ///     let r = block.thread_rank();
    ///     let warp = block.tiled_partition::<32>();
    ///     let odd = warp.binary_partition(r % 2 == 1);
    ///     out.write(r as usize, odd.shfl_up(r, 1));
    /// }
    ///
    /// let mut out = vec![0u32; 32];
    /// coop_host::Cpu::new().launch(previous, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
    /// assert_eq!(&out[..6], &[0, 1, 0, 1, 2, 3]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__shfl_up_sync")]
    pub fn shfl_up<T: Shuffle>(&self, value: T, delta: u32) -> T {
        self.shfl_up_at(value, delta, site!())
    }

    #[inline(always)]
    pub(crate) fn shfl_up_at<T: Shuffle>(&self, value: T, delta: u32, site: Site) -> T {
        let src = if self.rank >= delta {
            lane_of_rank(self.mask, self.rank - delta)
        } else {
            Target::lane_id(site)
        };
        self.read_lane(value, src, site)
    }

    /// The `value` of the thread `delta` ranks above; threads within
    /// `delta` of the group's end keep their own.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn next(block: ThreadBlock, out: Out<u32>) {
    ///     let r = block.thread_rank();
    ///     let warp = block.tiled_partition::<32>();
    ///     let low = warp.binary_partition(r < 3);
    ///     out.write(r as usize, low.shfl_down(r, 1));
    /// }
    ///
    /// let mut out = vec![0u32; 32];
    /// coop_host::Cpu::new().launch(next, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
    /// assert_eq!(&out[..4], &[1, 2, 2, 4]);
    /// assert_eq!(out[31], 31);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__shfl_down_sync")]
    pub fn shfl_down<T: Shuffle>(&self, value: T, delta: u32) -> T {
        self.shfl_down_at(value, delta, site!())
    }

    #[inline(always)]
    pub(crate) fn shfl_down_at<T: Shuffle>(&self, value: T, delta: u32, site: Site) -> T {
        let src = if delta < self.num_threads() - self.rank {
            lane_of_rank(self.mask, self.rank + delta)
        } else {
            Target::lane_id(site)
        };
        self.read_lane(value, src, site)
    }

    /// Whether any thread of the group has `predicate`.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn any_big(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    ///     let r = block.thread_rank() as usize;
    ///     let warp = block.tiled_partition::<32>();
    ///     let evens = warp.binary_partition(r % 2 == 0);
    ///     out.write(r, evens.any(input[r] > 100) as u32);
    /// }
    ///
    /// let mut input = vec![0u32; 32];
    /// input[4] = 500;
    /// let mut out = vec![0u32; 32];
    /// coop_host::Cpu::new().launch(any_big, coop_host::LaunchConfig::new(1, 32), (&input, &mut out))?;
    /// assert_eq!((out[0], out[1]), (1, 0)); // only the even lanes saw lane 4's value
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__any_sync")]
    pub fn any(&self, predicate: bool) -> bool {
        Target::vote_any(self.mask, predicate, site!())
    }

    /// Whether every thread of the group has `predicate`.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn all_small(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    ///     let r = block.thread_rank() as usize;
    ///     let warp = block.tiled_partition::<32>();
    ///     let low = warp.binary_partition(r < 16);
    ///     out.write(r, low.all(input[r] < 10) as u32);
    /// }
    ///
    /// let mut input = vec![1u32; 32];
    /// input[20] = 99;
    /// let mut out = vec![0u32; 32];
    /// coop_host::Cpu::new().launch(all_small, coop_host::LaunchConfig::new(1, 32), (&input, &mut out))?;
    /// assert_eq!((out[0], out[31]), (1, 0));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__all_sync")]
    pub fn all(&self, predicate: bool) -> bool {
        Target::vote_all(self.mask, predicate, site!())
    }

    /// Bit `r` set when the group's thread of rank `r` has `predicate`.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn votes(block: ThreadBlock, out: Out<u32>) {
    ///     let r = block.thread_rank();
    ///     let warp = block.tiled_partition::<32>();
    ///     let odd = warp.binary_partition(r % 2 == 1); // lanes 1, 3, 5, ...
    ///     out.write(r as usize, odd.ballot(r % 4 == 3));
    /// }
    ///
    /// let mut out = vec![0u32; 32];
    /// coop_host::Cpu::new().launch(votes, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
    /// assert_eq!(out[1], 0xaaaa); // lanes 3, 7, 11, ... are ranks 1, 3, 5, ...
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__ballot_sync")]
    pub fn ballot(&self, predicate: bool) -> u32 {
        compress(
            Target::vote_ballot(self.mask, predicate, site!()),
            self.mask,
        )
    }

    /// The ranks of the group's threads whose `value` equals the caller's.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn same(block: ThreadBlock, keys: &[u32], out: Out<u32>) {
    ///     let r = block.thread_rank() as usize;
    ///     let warp = block.tiled_partition::<32>();
    ///     let first8 = warp.binary_partition(r < 8);
    ///     out.write(r, first8.match_any(keys[r]));
    /// }
    ///
    /// let keys: Vec<u32> = (0..32).map(|i| i % 2).collect();
    /// let mut out = vec![0u32; 32];
    /// coop_host::Cpu::new().launch(same, coop_host::LaunchConfig::new(1, 32), (&keys, &mut out))?;
    /// assert_eq!((out[0], out[1]), (0b0101_0101, 0b1010_1010));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__match_any_sync")]
    pub fn match_any<T: MatchKey>(&self, value: T) -> u32 {
        compress(value.match_any(self.mask, site!()), self.mask)
    }

    /// `Some(every rank)` when all threads of the group hold the same
    /// `value`, else `None`.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn uniform(block: ThreadBlock, keys: &[u32], out: Out<u32>) {
    ///     let r = block.thread_rank() as usize;
    ///     let warp = block.tiled_partition::<32>();
    ///     let group = warp.labeled_partition(keys[r]);
    ///     out.write(r, group.match_all(keys[r]).unwrap_or(0));
    /// }
    ///
    /// let keys: Vec<u32> = (0..32).map(|i| (i < 4) as u32).collect();
    /// let mut out = vec![0u32; 32];
    /// coop_host::Cpu::new().launch(uniform, coop_host::LaunchConfig::new(1, 32), (&keys, &mut out))?;
    /// assert_eq!((out[0], out[31]), (0b1111, (1u64 << 28) as u32 - 1));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "__match_all_sync")]
    pub fn match_all<T: MatchKey>(&self, value: T) -> Option<u32> {
        let (lanes, all_equal) = value.match_all(self.mask, site!());
        all_equal.then(|| compress(lanes, self.mask))
    }

    /// Runs `f` on one thread of the group, its rank 0 (CUDA's
    /// `invoke_one`): an atomic per group instead of per thread, say.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn groups_seen(block: ThreadBlock, keys: &[u32], count: Out<u32>) {
    ///     let r = block.thread_rank() as usize;
    ///     let warp = block.tiled_partition::<32>();
    ///     let group = warp.labeled_partition(keys[r]);
    ///     group.invoke_one(|| count.atomic().add(0, 1));
    /// }
    ///
    /// let keys: Vec<u32> = (0..64).map(|i| i % 3).collect();
    /// let mut count = vec![0u32];
    /// coop_host::Cpu::new().launch(groups_seen, coop_host::LaunchConfig::new(1, 64), (&keys, &mut count))?;
    /// assert_eq!(count[0], 6); // three labels in each of two warps
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[doc(alias = "cg::invoke_one")]
    pub fn invoke_one(&self, f: impl FnOnce()) {
        if self.rank == 0 {
            f()
        }
    }

    /// Runs `f` on the group's thread of rank 0 and gives its result to
    /// every thread of the group (CUDA's `invoke_one_broadcast`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// /// Each group reserves room for its threads with one atomic; every
    /// /// thread then writes at its own offset.
    /// #[kernel]
    /// pub fn compact(grid: Grid, input: &[u32], next: Out<u32>, out: Out<u32>) {
    ///     let i = grid.thread_rank();
    ///     if i < input.len() && input[i] % 2 == 0 {
    ///         let group = coalesced_threads();
    ///         let base = group.invoke_one_broadcast(|| next.atomic().fetch_add(0, group.num_threads()));
    ///         out.write((base + group.thread_rank()) as usize, input[i]);
    ///     }
    /// }
    ///
    /// let input: Vec<u32> = (0..100).collect();
    /// let (mut next, mut out) = (vec![0u32], vec![0u32; 50]);
    /// coop_host::Cpu::new().launch(compact, coop_host::LaunchConfig::new(2, 64), (&input, &mut next, &mut out))?;
    /// out.sort_unstable();
    /// assert_eq!(out, (0..100).step_by(2).collect::<Vec<u32>>());
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "cg::invoke_one_broadcast")]
    pub fn invoke_one_broadcast<T: Shuffle + Default>(&self, f: impl FnOnce() -> T) -> T {
        let site = site!();
        let mine = if self.rank == 0 { f() } else { T::default() };
        self.read_lane(mine, lane_of_rank(self.mask, 0), site)
    }

    /// The sub-group of the threads whose `predicate` equals the caller's
    /// (CUDA's `binary_partition`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn quarters(block: ThreadBlock, out: Out<u32>) {
    ///     let r = block.thread_rank();
    ///     let warp = block.tiled_partition::<32>();
    ///     let half = warp.binary_partition(r < 16);
    ///     let quarter = half.binary_partition(r % 16 < 8);
    ///     out.write(r as usize, quarter.lanes());
    /// }
    ///
    /// let mut out = vec![0u32; 32];
    /// coop_host::Cpu::new().launch(quarters, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
    /// assert_eq!((out[0], out[8], out[31]), (0xff, 0xff00, 0xff00_0000));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "cg::binary_partition")]
    pub fn binary_partition(&self, predicate: bool) -> CoalescedGroup {
        split_by_vote(self.mask, predicate, site!())
    }

    /// The sub-group of the threads whose `label` equals the caller's
    /// (CUDA's `labeled_partition`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn by_label(block: ThreadBlock, out: Out<u32>) {
    ///     let r = block.thread_rank();
    ///     let warp = block.tiled_partition::<32>();
    ///     let low = warp.binary_partition(r < 8);
    ///     let same = low.labeled_partition(r % 3);
    ///     out.write(r as usize, same.num_threads());
    /// }
    ///
    /// let mut out = vec![0u32; 32];
    /// coop_host::Cpu::new().launch(by_label, coop_host::LaunchConfig::new(1, 32), (&mut out,))?;
    /// assert_eq!(&out[..8], &[3, 3, 2, 3, 3, 2, 3, 3]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "cg::labeled_partition")]
    pub fn labeled_partition<L: MatchKey>(&self, label: L) -> CoalescedGroup {
        let site = site!();
        CoalescedGroup::of_mask(label.match_any(self.mask, site) & self.mask, site)
    }
}

impl crate::ThreadBlock {
    /// Tiles of `size` threads, `size` known only at run time (CUDA's
    /// `tiled_partition(block, size)`): the calling thread's tile, as a
    /// [`CoalescedGroup`] of `size` consecutive lanes. `size` must be 1, 2,
    /// 4, 8, 16 or 32 (a panic names it otherwise, on both targets), and
    /// the block's thread count a multiple of it (the CPU backend reports a
    /// partial tile). With `size` known at compile time,
    /// [`tiled_partition`](Self::tiled_partition) gives a `TiledPartition`,
    /// whose shuffles need no rank-to-lane step.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn tile_sums(block: ThreadBlock, width: u32, out: Out<u32>) {
    ///     let tile = block.tiled_partition_dynamic(width);
    ///     let r = block.thread_rank();
    ///     out.write(r as usize, reduce(&tile, r, op::Sum));
    /// }
    ///
    /// let mut out = vec![0u32; 8];
    /// coop_host::Cpu::new().launch(tile_sums, coop_host::LaunchConfig::new(1, 8), (4u32, &mut out))?;
    /// assert_eq!(out, [6, 6, 6, 6, 22, 22, 22, 22]);
    ///
    /// // 3 is not a tile size: the launch stops with the panic's message.
    /// let err = coop_host::Cpu::new()
    ///     .launch(tile_sums, coop_host::LaunchConfig::new(1, 8), (3u32, &mut out))
    ///     .unwrap_err();
    /// assert!(err.to_string().contains("tiled_partition_dynamic: 3 is not a tile size"), "{err}");
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "cg::tiled_partition")]
    pub fn tiled_partition_dynamic(&self, size: u32) -> CoalescedGroup {
        let site = site!();
        if !size.is_power_of_two() || size > 32 {
            bad_tile_size(size);
        }
        Target::tile_created(size, Target::block_dim(site).volume_u32(), site);
        let lane = Target::lane_id(site);
        let base = lane & !(size - 1);
        let lanes = if size == 32 {
            u32::MAX
        } else {
            ((1u32 << size) - 1) << base
        };
        CoalescedGroup {
            mask: lanes,
            rank: lane - base,
        }
    }
}

/// A run-time tile size that is not one.
#[cold]
#[inline(never)]
#[track_caller]
fn bad_tile_size(size: u32) -> ! {
    panic!(
        "tiled_partition_dynamic: {size} is not a tile size; a tile has 1, 2, 4, 8, 16 or 32 threads"
    )
}

/// The lanes of `mask` whose `predicate` equals the caller's.
#[inline(always)]
fn split_by_vote(mask: u32, predicate: bool, site: Site) -> CoalescedGroup {
    let yes = Target::vote_ballot(mask, predicate, site) & mask;
    CoalescedGroup::of_mask(if predicate { yes } else { mask & !yes }, site)
}

impl<const N: u32> TiledPartition<N>
where
    TileSize<N>: ValidTileSize,
{
    /// The tile's threads whose `predicate` equals the caller's, as a
    /// group (CUDA's `binary_partition(tile, pred)`): two groups per tile,
    /// one of which may be empty.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// /// Positive and non-positive values are added up separately.
    /// #[kernel]
    /// pub fn split_sums(block: ThreadBlock, input: &[i32], out: Out<i32>) {
    ///     let r = block.thread_rank() as usize;
    ///     let tile = block.tiled_partition::<8>();
    ///     let side = tile.binary_partition(input[r] > 0);
    ///     out.write(r, reduce(&side, input[r], op::Sum));
    /// }
    ///
    /// let input = [3, -1, 4, -1, 5, -9, 2, 6];
    /// let mut out = vec![0i32; 8];
    /// coop_host::Cpu::new().launch(split_sums, coop_host::LaunchConfig::new(1, 8), (&input[..], &mut out))?;
    /// assert_eq!(out, [20, -11, 20, -11, 20, -11, 20, 20]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "cg::binary_partition")]
    pub fn binary_partition(&self, predicate: bool) -> CoalescedGroup {
        split_by_vote(self.lane_mask(), predicate, site!())
    }

    /// The tile's threads whose `label` equals the caller's, as a group
    /// (CUDA's `labeled_partition(tile, label)`): one group per distinct
    /// label.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// /// A histogram of small keys: each key's group adds its count once.
    /// #[kernel]
    /// pub fn histogram(grid: Grid, keys: &[u32], bins: Out<u32>) {
    ///     let i = grid.thread_rank();
    ///     let warp = this_thread_block().tiled_partition::<32>();
    ///     let key = if i < keys.len() { keys[i] } else { u32::MAX };
    ///     let same = warp.labeled_partition(key);
    ///     if key != u32::MAX {
    ///         same.invoke_one(|| bins.atomic().add(key as usize, same.num_threads()));
    ///     }
    /// }
    ///
    /// let keys: Vec<u32> = (0..1000).map(|i| (i * 7) % 5).collect();
    /// let mut bins = vec![0u32; 5];
    /// coop_host::Cpu::new().launch(histogram, coop_host::LaunchConfig::new(4, 256), (&keys, &mut bins))?;
    /// assert_eq!(bins, [200; 5]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "cg::labeled_partition")]
    pub fn labeled_partition<L: MatchKey>(&self, label: L) -> CoalescedGroup {
        let site = site!();
        let mask = self.lane_mask();
        CoalescedGroup::of_mask(label.match_any(mask, site) & mask, site)
    }
}

impl<const N: u32> TiledPartition<N>
where
    TileSize<N>: AnyTileSize,
{
    /// Runs `f` on the tile's thread of rank 0 (CUDA's `invoke_one`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn tiles(block: ThreadBlock, count: Out<u32>) {
    ///     let tile = block.tiled_partition::<8>();
    ///     tile.invoke_one(|| count.atomic().add(0, 1));
    /// }
    ///
    /// let mut count = vec![0u32];
    /// coop_host::Cpu::new().launch(tiles, coop_host::LaunchConfig::new(2, 64), (&mut count,))?;
    /// assert_eq!(count[0], 16);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[doc(alias = "cg::invoke_one")]
    pub fn invoke_one(&self, f: impl FnOnce()) {
        if self.thread_rank() == 0 {
            f()
        }
    }

    /// Runs `f` on the tile's thread of rank 0 and gives its result to
    /// every thread of the tile (CUDA's `invoke_one_broadcast`).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// #[kernel]
    /// pub fn tickets(block: ThreadBlock, next: Out<u32>, out: Out<u32>) {
    ///     let tile = block.tiled_partition::<4>();
    ///     let first = tile.invoke_one_broadcast(|| next.atomic().fetch_add(0, 4));
    ///     out.write((first + tile.thread_rank()) as usize, 1);
    /// }
    ///
    /// let (mut next, mut out) = (vec![0u32], vec![0u32; 32]);
    /// coop_host::Cpu::new().launch(tickets, coop_host::LaunchConfig::new(1, 32), (&mut next, &mut out))?;
    /// assert!(out.iter().all(|&x| x == 1));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "cg::invoke_one_broadcast")]
    pub fn invoke_one_broadcast<T: Shuffle + Default>(&self, f: impl FnOnce() -> T) -> T {
        let site = site!();
        let mine = if self.thread_rank_at(site) == 0 {
            f()
        } else {
            T::default()
        };
        self.shfl_at(mine, 0, site)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pext(x: u32, mask: u32) -> u32 {
        let mut out = 0;
        let mut k = 0;
        for b in 0..32 {
            if mask & (1 << b) != 0 {
                out |= ((x >> b) & 1) << k;
                k += 1;
            }
        }
        out
    }

    #[test]
    fn compress_packs_the_selected_bits_in_order() {
        let mut s = 0x9e37_79b9u32;
        for _ in 0..20_000 {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            let x = s;
            let m = s.rotate_left(11) ^ 0x5bd1_e995;
            assert_eq!(compress(x, m), pext(x, m), "x {x:#x} mask {m:#x}");
        }
        assert_eq!(compress(u32::MAX, 0), 0);
        assert_eq!(compress(u32::MAX, u32::MAX), u32::MAX);
        assert_eq!(compress(0b1010, 0b1110), 0b101);
    }

    #[test]
    fn lane_of_rank_finds_the_nth_set_bit() {
        for mask in [1u32, 0x8000_0000, 0xaaaa_aaaa, u32::MAX, 0x0f0f_0001] {
            let lanes: Vec<u32> = (0..32).filter(|l| mask & (1 << l) != 0).collect();
            for (rank, &lane) in lanes.iter().enumerate() {
                assert_eq!(
                    lane_of_rank(mask, rank as u32),
                    lane,
                    "mask {mask:#x} rank {rank}"
                );
            }
        }
    }
}
