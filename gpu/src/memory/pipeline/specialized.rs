//! Warp-specialized pipelines: the block's first tile of threads loads
//! tiles into the ring while the rest of the block works on the tiles
//! already landed (the producer/consumer split of CUDA's `cuda::pipeline`
//! with producer and consumer roles, and of Hopper's warp-specialized
//! kernels).
//!
//! [`Pipeline::start_specialized`] takes the block and a tile of `N`
//! threads (a [`TiledPartition<N>`]: a warp, or a multi-warp tile), and
//! gives each thread its [`Role`]:
//!
//! - the block's first `N` threads get [`Role::Producer`]: their
//!   [`Producer::load`] (or [`load_tensor`](Producer::load_tensor)) waits
//!   until the consumers have released the stage, then starts the copy;
//! - every other thread gets [`Role::Consumer`]: its
//!   [`Consumer::next`] waits for the oldest tile to land and lends it out
//!   as a [`Stage`], which releases the stage when it is dropped.
//!
//! The two roles meet only at the stages' barriers: a producer never waits
//! for a block barrier the consumers pass, so it can run ahead by as many
//! tiles as the ring has stages. The types keep the protocol: only a
//! producer loads, only a consumer takes a tile, a tile is read through
//! the [`Stage`] `next` returns once it has landed, and `next` cannot be
//! called again while a [`Stage`] is held. Inside the roles a thread may
//! use its tile's collectives, but not the block's (the other role does
//! not come); after the `match`, every thread of the block is together
//! again.
//!
//! Every stage's "full" barrier counts two arrivals of each producer a
//! load and, for the bulk-copy engine, the tile's bytes; its "empty"
//! barrier counts the consumers' arrivals. With [`CopyEngine::Bulk`] (the
//! default) the producers' first thread moves each tile with one bulk copy
//! (`cp.async.bulk`, sm_90) where it can; otherwise each producer copies
//! its 16-byte chunks with `cp.async` and stores a partial tail and the
//! zeros of [`load_filled`](Producer::load_filled) itself. One of its two
//! arrivals is made when its chunks have landed
//! (`cp.async.mbarrier.arrive.noinc`), the other publishes its stores. Both
//! sides must agree on the number of tiles: a consumer that takes a tile
//! nothing loads waits forever (the CPU backend reports the wait), and a
//! producer leaves only once the tiles of its last loads have landed
//! (dropping the [`Producer`] waits for them).
//!
//! With [`Pipeline::start_specialized_in_turns`] the consumers form
//! groups of equal size that take the tiles in turn (group `g` of `G` the
//! tiles `g`, `g + G`, …), as the two consumer warpgroups of a ping-pong
//! matrix product do: a stage is released by the group that took it.
//!
//! ```
//! use coop::prelude::*;
//! use coop::memory::pipeline::{Pipeline, Role};
//! use coop_host::{Cpu, LaunchConfig};
//!
//! /// Each block sums its share of tiles of 256 values: warp 0 loads, the
//! /// other warps add.
//! #[kernel]
//! pub fn specialized_sum(block: ThreadBlock, input: &[f32], sums: Out<f32>,
//!                        ring: Pipeline<[[f32; 256]; 3]>) {
//!     let warp = block.tiled_partition::<32>();
//!     let tiles = input.len().div_ceil(256);
//!     let b = block.group_index().x as usize;
//!     let blocks = this_grid().num_blocks();
//!     let mine = (b..tiles).step_by(blocks);
//!     let sum = match ring.start_specialized(&block, &warp) {
//!         Role::Producer(mut producer) => {
//!             for k in mine {
//!                 producer.load_filled(&warp, &input[k * 256..((k + 1) * 256).min(input.len())]);
//!             }
//!             0.0
//!         }
//!         Role::Consumer(mut consumer) => {
//!             // The thread's share of a tile (the stage borrows `consumer`).
//!             let share = (consumer.rank() as usize..256).step_by(consumer.num_threads() as usize);
//!             let mut sum = 0.0f32;
//!             for _ in mine {
//!                 let stage = consumer.next(&warp);
//!                 for i in share.clone() {
//!                     sum += stage.get(i);
//!                 }
//!             }
//!             sum
//!         }
//!     };
//!     let total = reduce(&block, sum, op::Sum);
//!     if block.thread_rank() == 0 {
//!         sums.write(b, total);
//!     }
//! }
//!
//! let input: Vec<f32> = (0..5000).map(|i| (i % 7) as f32).collect();
//! let mut sums = vec![0f32; 2];
//! Cpu::new().launch(specialized_sum, LaunchConfig::new(2, 160), (&input[..], &mut sums))?;
//! assert_eq!(sums[0] + sums[1], input.iter().sum::<f32>());
//! # Ok::<(), coop_host::Error>(())
//! ```

use super::{CopyEngine, Pipeline, Stage, StageArray, Stages, TensorLoadCall, check_tensor_load};
use crate::backend::target::Target;
use crate::backend::{AsyncCopies, Faults, Naming, Site, site};
use crate::groups::tile::{AnyTileSize, TileSize};
use crate::memory::shared::{CopyPlan, issue_copy};
use crate::memory::tensor::{TensorElem, TensorMap};
use crate::memory::tile::{PlainTile, TileArray};
use crate::{ThreadBlock, TiledPartition};

impl<A: StageArray> Pipeline<A> {
    /// Starts the ring as a warp-specialized pipeline: the block's first
    /// `N` threads (the first tile of `tile`'s size) produce, the others
    /// consume. Every thread of the block calls it, once, before anything
    /// else touches the ring; thread 0 initialises the barriers and a
    /// block barrier publishes them. Tiles move as [`CopyEngine::Bulk`]
    /// says. The block must have more than `N` threads (the call stops the
    /// kernel, naming the rule, otherwise). See the
    /// [module](super::specialized).
    #[inline(always)]
    #[track_caller]
    pub fn start_specialized<const N: u32>(
        self,
        block: &ThreadBlock,
        tile: &TiledPartition<N>,
    ) -> Role<A, N>
    where
        TileSize<N>: AnyTileSize,
    {
        self.start_specialized_at(block, tile, CopyEngine::Bulk, site!())
    }

    /// As [`start_specialized`](Self::start_specialized), with tiles moved
    /// by `engine` (every thread passes the same).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::memory::pipeline::{CopyEngine, Pipeline, Role};
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// One block copies 1000 bytes through a ring of two: a tile of 64
    /// /// threads copies its chunks with `cp.async`, the rest store.
    /// #[kernel]
    /// pub fn relay(block: ThreadBlock, input: &[u8], out: Out<u8>, ring: Pipeline<[[u8; 128]; 2]>) {
    ///     let tile = block.tiled_partition::<64>();
    ///     let tiles = input.len().div_ceil(128);
    ///     match ring.start_specialized_with(&block, &tile, CopyEngine::Threads) {
    ///         Role::Producer(mut p) => {
    ///             for k in 0..tiles {
    ///                 p.load(&tile, &input[k * 128..((k + 1) * 128).min(input.len())]);
    ///             }
    ///         }
    ///         Role::Consumer(mut c) => {
    ///             let i = c.rank() as usize;
    ///             for k in 0..tiles {
    ///                 let stage = c.next(&tile);
    ///                 if k * 128 + i < input.len() {
    ///                     out.write(k * 128 + i, stage.get(i));
    ///                 }
    ///             }
    ///         }
    ///     }
    /// }
    ///
    /// let input: Vec<u8> = (0..1000).map(|i| (i * 7 % 251) as u8).collect();
    /// let mut out = vec![0u8; 1000];
    /// Cpu::new().launch(relay, LaunchConfig::new(1, 192), (&input[..], &mut out))?;
    /// assert_eq!(out, input);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn start_specialized_with<const N: u32>(
        self,
        block: &ThreadBlock,
        tile: &TiledPartition<N>,
        engine: CopyEngine,
    ) -> Role<A, N>
    where
        TileSize<N>: AnyTileSize,
    {
        self.start_specialized_at(block, tile, engine, site!())
    }

    /// As [`start_specialized`](Self::start_specialized), with the
    /// consumers in `groups` groups of equal size that take the tiles in
    /// turn: the consumers of ranks `g c .. (g + 1) c` in the block past
    /// the producers (`c` consumers a group) form group `g`, which takes
    /// tiles `g`, `g + groups`, `g + 2 groups`, … of the producers' loads,
    /// in order; each tile's stage is released by its group alone. A
    /// [`Consumer`]'s [`rank`](Consumer::rank) and
    /// [`num_threads`](Consumer::num_threads) are then its group's, and
    /// [`group`](Consumer::group) says which group it is in. The consumers
    /// must split evenly into `groups` (one or more) groups, and the ring's
    /// stages must be a multiple of `groups`, so that each stage always
    /// holds the same group's tiles (a group's wait on a stage is then never
    /// more than one phase ahead, which is all an mbarrier's parity tells
    /// apart); the call stops the kernel, naming the rule, otherwise.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::memory::pipeline::{Pipeline, Role};
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Warp 0 loads tiles of 64 values; two consumer warps take them in
    /// /// turn, warp 1 the even tiles and warp 2 the odd ones, and each
    /// /// writes its tiles' sums.
    /// #[kernel]
    /// pub fn tile_sums(block: ThreadBlock, input: &[u32], sums: Out<u32>,
    ///                  ring: Pipeline<[[u32; 64]; 4]>) {
    ///     let warp = block.tiled_partition::<32>();
    ///     let tiles = input.len() / 64;
    ///     match ring.start_specialized_in_turns(&block, &warp, 2) {
    ///         Role::Producer(mut p) => {
    ///             for k in 0..tiles {
    ///                 p.load(&warp, &input[k * 64..(k + 1) * 64]);
    ///             }
    ///         }
    ///         Role::Consumer(mut c) => {
    ///             let (g, lane) = (c.group() as usize, c.rank() as usize);
    ///             for k in (g..tiles).step_by(2) {
    ///                 let stage = c.next(&warp);
    ///                 let sum = reduce(&warp, stage.get(lane) + stage.get(lane + 32), op::Sum);
    ///                 if lane == 0 {
    ///                     sums.write(k, sum);
    ///                 }
    ///             }
    ///         }
    ///     }
    /// }
    ///
    /// let input: Vec<u32> = (0..64 * 9).collect();
    /// let mut sums = vec![0u32; 9];
    /// Cpu::new().launch(tile_sums, LaunchConfig::new(1, 96), (&input[..], &mut sums))?;
    /// for (k, sum) in sums.iter().enumerate() {
    ///     assert_eq!(*sum, input[k * 64..(k + 1) * 64].iter().sum::<u32>());
    /// }
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn start_specialized_in_turns<const N: u32>(
        self,
        block: &ThreadBlock,
        tile: &TiledPartition<N>,
        groups: u32,
    ) -> Role<A, N>
    where
        TileSize<N>: AnyTileSize,
    {
        self.start_specialized_in(block, tile, CopyEngine::Bulk, groups, site!())
    }

    #[inline(always)]
    fn start_specialized_at<const N: u32>(
        self,
        block: &ThreadBlock,
        tile: &TiledPartition<N>,
        engine: CopyEngine,
        site: Site,
    ) -> Role<A, N>
    where
        TileSize<N>: AnyTileSize,
    {
        self.start_specialized_in(block, tile, engine, 1, site)
    }

    #[inline(always)]
    fn start_specialized_in<const N: u32>(
        self,
        block: &ThreadBlock,
        _tile: &TiledPartition<N>,
        engine: CopyEngine,
        groups: u32,
        site: Site,
    ) -> Role<A, N>
    where
        TileSize<N>: AnyTileSize,
    {
        const {
            assert!(
                A::STAGES >= 1 && A::TILE >= 1,
                "a pipeline has at least one stage of one element"
            )
        };
        let threads = block.num_threads();
        if threads <= N {
            Target::check_failed(
                c"Pipeline::start_specialized: the block has no thread past the producers' tile to consume; launch more threads than the tile holds",
                site,
            );
        }
        if groups == 0 || !(threads - N).is_multiple_of(groups) {
            Target::check_failed(
                c"Pipeline::start_specialized_in_turns: the consumers (the block's threads past the producers' tile) do not split into `groups` groups of equal size; take a number of groups that divides them",
                site,
            );
        }
        if !(A::STAGES as u32).is_multiple_of(groups) {
            Target::check_failed(
                c"Pipeline::start_specialized_in_turns: the ring's number of stages is not a multiple of `groups`, so a group could wait on a stage two phases ahead of the tile it holds (an mbarrier tells phases apart only by parity); take a ring whose stages are a multiple of the groups",
                site,
            );
        }
        let rank = block.thread_rank();
        let per_group = (threads - N) / groups;
        // Each producer arrives twice a load (`arrive_loaded`); a stage is
        // released by the group that took its tile.
        let mut stages = self.init(
            block,
            (2 * N, per_group),
            engine == CopyEngine::Bulk,
            false,
            site,
        );
        block.sync_named("Pipeline::start_specialized", site);
        if rank < N {
            stages.threads = N;
            Role::Producer(Producer { stages })
        } else {
            stages.rank = (rank - N) % per_group;
            stages.threads = per_group;
            Role::Consumer(Consumer {
                stages,
                group: (rank - N) / per_group,
                groups,
            })
        }
    }
}

/// A thread's part in a warp-specialized pipeline; see the
/// [module](super::specialized).
pub enum Role<A: StageArray, const N: u32>
where
    TileSize<N>: AnyTileSize,
{
    /// One of the block's first `N` threads, which load the tiles.
    Producer(Producer<A, N>),
    /// One of the other threads, which take the tiles.
    Consumer(Consumer<A, N>),
}

/// The loading side of a warp-specialized pipeline, held by each thread of
/// the block's first tile of `N`; see the [module](super::specialized).
pub struct Producer<A: StageArray, const N: u32>
where
    TileSize<N>: AnyTileSize,
{
    /// `rank` the thread's rank in the tile, `threads` `N`; `head` the
    /// tiles loaded.
    stages: Stages<A>,
}

impl<A: StageArray, const N: u32> Producer<A, N>
where
    TileSize<N>: AnyTileSize,
{
    /// Tiles loaded so far.
    #[inline(always)]
    pub fn loaded(&self) -> u32 {
        self.stages.head
    }

    /// Starts loading `src` (at most `TILE` elements) into the next stage,
    /// once the consumers have released the tile it held: every thread of
    /// the producers' tile calls it with the same slice. The stage's
    /// elements past `src.len()` are unspecified (see
    /// [`load_filled`](Self::load_filled)).
    #[inline(always)]
    #[track_caller]
    pub fn load(&mut self, _tile: &TiledPartition<N>, src: &[A::Elem])
    where
        A::Tile: PlainTile,
    {
        self.load_at(src, false, site!())
    }

    /// As [`load`](Self::load), with the stage's elements past `src.len()`
    /// set to zero (a partial last tile).
    #[inline(always)]
    #[track_caller]
    pub fn load_filled(&mut self, _tile: &TiledPartition<N>, src: &[A::Elem])
    where
        A::Tile: PlainTile,
    {
        self.load_at(src, true, site!())
    }

    #[inline(always)]
    fn load_at(&mut self, src: &[A::Elem], fill: bool, site: Site) {
        Target::entering("Producer::load", site);
        if src.len() > A::TILE {
            Target::check_failed(
                c"Producer::load: the source slice is longer than a stage's tile",
                site,
            );
        }
        let s = self.stages.wait_to_refill(site);
        let st = &self.stages;
        let full = Stages::<A>::full(s);
        if st.bulk && Stages::<A>::bulk_able(src, fill, s) {
            // The phase cannot complete before this: it waits for this
            // thread's arrival below.
            if st.rank == 0 {
                Target::bulk_copy(
                    st.base,
                    Stages::<A>::tile_offset(s),
                    src.as_ptr() as *const u8,
                    core::mem::size_of_val(src) as u32,
                    st.base,
                    full,
                    site,
                );
            }
        } else {
            let first = s * A::TILE as u32;
            let plan = CopyPlan::new(first, A::TILE, src, fill);
            issue_copy(
                plan,
                st.base,
                first,
                src,
                st.rank,
                st.threads,
                Some((st.base, full)),
                site,
            );
        }
        self.stages.arrive_loaded(s, site);
    }

    /// Starts loading the tile of `map`'s array at element coordinates
    /// `at` (outermost first) into the next stage through the copy engine
    /// (TMA, `cp.async.bulk.tensor`, sm_90), once the consumers have
    /// released the tile it held: every thread of the producers' tile calls
    /// it with the same map and coordinates, its first thread issues the
    /// copy. The rules of [`Stages::load_tensor`] hold: the innermost
    /// coordinate a multiple of 16 bytes, stages of a multiple of 128
    /// bytes in a ring of several, sm_90.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::memory::pipeline::{Pipeline, Role};
    /// use coop::memory::tensor::TensorMap;
    /// use coop_host::{Cpu, LaunchConfig, TensorMap as HostMap};
    ///
    /// /// Sums each column of a 64 x 32 matrix: warp 0 loads tiles of 8 rows,
    /// /// the next warp adds them up.
    /// #[kernel]
    /// pub fn column_sums(block: ThreadBlock, x: TensorMap<[[u32; 32]; 8]>, out: Out<u32>,
    ///                    ring: Pipeline<[[[u32; 32]; 8]; 2]>) {
    ///     let warp = block.tiled_partition::<32>();
    ///     match ring.start_specialized(&block, &warp) {
    ///         Role::Producer(mut p) => {
    ///             for k in 0..8 {
    ///                 p.load_tensor(&warp, &x, [8 * k, 0]);
    ///             }
    ///         }
    ///         Role::Consumer(mut c) => {
    ///             let column = c.rank() as usize;
    ///             let mut sum = 0;
    ///             for _ in 0..8 {
    ///                 let tile = c.next(&warp);
    ///                 for row in 0..8 {
    ///                     sum += tile.at([row, column]);
    ///                 }
    ///             }
    ///             out.write(column, sum);
    ///         }
    ///     }
    /// }
    ///
    /// let input: Vec<u32> = (0..64 * 32).collect();
    /// let map = HostMap::<[[u32; 32]; 8]>::cpu(&input, [64, 32])?;
    /// let mut out = vec![0u32; 32];
    /// Cpu::new().launch(column_sums, LaunchConfig::new(1, 64), (&map, &mut out))?;
    /// assert_eq!(out[1], (0..64).map(|r| r * 32 + 1).sum::<u32>());
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn load_tensor(
        &mut self,
        _tile: &TiledPartition<N>,
        map: &TensorMap<A::Tile>,
        at: <A::Tile as TileArray>::Coords,
    ) where
        A::Elem: TensorElem,
    {
        let site = site!();
        Target::entering("Producer::load_tensor", site);
        check_tensor_load::<A>(TensorLoadCall::Producer, at, site);
        let s = self.stages.wait_to_refill(site);
        // The phase cannot complete before the copy: it waits for this
        // thread's arrival below.
        self.stages.issue_tensor(s, map, at, site);
        self.stages.arrive_loaded(s, site);
    }
}

impl<A: StageArray> Stages<A> {
    /// A producer's two arrivals on stage `s`'s "full" barrier after its
    /// part of a load: one once its `cp.async` copies have landed (at once
    /// after a bulk or tensor copy), one that publishes its ordinary
    /// stores; the tile counts as loaded.
    #[inline(always)]
    fn arrive_loaded(&mut self, s: u32, site: Site) {
        let full = Stages::<A>::full(s);
        Target::copies_arrive(self.base, full, site);
        Target::barrier_arrive(self.base, full, site);
        self.head += 1;
    }
}

impl<A: StageArray, const N: u32> Drop for Producer<A, N>
where
    TileSize<N>: AnyTileSize,
{
    /// Waits until the tiles of its last loads (one a stage at most) have
    /// landed: a producer leaves no barrier phase it arrived on still
    /// waiting for its copies (compute-sanitizer's synccheck reports a
    /// thread that exits before such a phase completes as a missing wait).
    /// The consumers are waiting for the same phases, so this costs the
    /// producers only time they would spend idle.
    #[inline(always)]
    #[track_caller]
    fn drop(&mut self) {
        if Target::unwinding() {
            return;
        }
        let site = site!();
        let head = self.stages.head;
        let mut k = head.saturating_sub(Stages::<A>::STAGES);
        while k < head {
            let (s, round) = (k % Stages::<A>::STAGES, k / Stages::<A>::STAGES);
            self.stages.wait(Stages::<A>::full(s), round & 1, site);
            k += 1;
        }
    }
}

/// The working side of a warp-specialized pipeline, held by each thread of
/// the block past the producers' tile; see the [module](super::specialized).
pub struct Consumer<A: StageArray, const N: u32>
where
    TileSize<N>: AnyTileSize,
{
    /// `rank` the thread's rank among the consumers of its group,
    /// `threads` their number; `tail` the tiles its group has taken.
    stages: Stages<A>,
    /// The thread's group of consumers, and how many there are.
    group: u32,
    groups: u32,
}

impl<A: StageArray, const N: u32> Consumer<A, N>
where
    TileSize<N>: AnyTileSize,
{
    /// The calling thread's rank among the consumers (its rank in the
    /// block less `N`), or among its group's for
    /// [`Pipeline::start_specialized_in_turns`].
    #[inline(always)]
    pub fn rank(&self) -> u32 {
        self.stages.rank
    }

    /// The consumers: the block's threads less `N`, or its group's for
    /// [`Pipeline::start_specialized_in_turns`].
    #[inline(always)]
    pub fn num_threads(&self) -> u32 {
        self.stages.threads
    }

    /// The calling thread's group of consumers (0 for
    /// [`Pipeline::start_specialized`]): it takes tiles `group`, `group +
    /// groups`, … of the producers' loads.
    #[inline(always)]
    pub fn group(&self) -> u32 {
        self.group
    }

    /// The groups of consumers that take the tiles in turn (1 for
    /// [`Pipeline::start_specialized`]).
    #[inline(always)]
    pub fn groups(&self) -> u32 {
        self.groups
    }

    /// Tiles taken so far, by the calling thread's group.
    #[inline(always)]
    pub fn taken(&self) -> u32 {
        self.stages.tail
    }

    /// Waits for the oldest tile not yet taken to land, and lends it out:
    /// every consumer calls it (every consumer of the group, when groups
    /// take turns: the group's next tile), and reads the tile until the
    /// [`Stage`] is dropped or released, which gives the stage back to the
    /// producers. Taking a tile the producers never load waits forever (the
    /// CPU backend reports it).
    #[inline(always)]
    #[track_caller]
    pub fn next(&mut self, _tile: &TiledPartition<N>) -> Stage<'_, A> {
        let site = site!();
        Target::entering("Consumer::next", site);
        let k = self.group + self.stages.tail * self.groups;
        let (s, round) = (k % Stages::<A>::STAGES, k / Stages::<A>::STAGES);
        self.stages.wait(Stages::<A>::full(s), round & 1, site);
        // The producers' loads are not seen here: the tile counts as written
        // by threads (a `Stage::store` goes by the consumers' stores).
        Stage::lend(
            self.stages.base,
            s,
            (self.stages.rank, self.stages.threads),
            false,
            &mut self.stages.tail,
        )
    }
}
