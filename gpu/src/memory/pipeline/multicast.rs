//! Multicast pipelines: one tensor copy lands the same tile in every block
//! of a cluster (TMA multicast, sm_90), so that blocks that all need a tile
//! read it from global memory once (CUDA: `cp.async.bulk.tensor` with
//! `.multicast::cluster` and a CTA mask, and the cluster-wide release that
//! has to come with it).
//!
//! [`Pipeline::start_multicast`] starts the ring for the whole cluster
//! (its barriers initialised in every block, then a cluster barrier) and
//! gives [`MulticastStages`]; [`Pipeline::start_multicast_among`] starts it
//! for groups of the cluster's blocks (a matrix product's rows or columns
//! of blocks), each tile landing in the calling block's group only, and
//! what follows holds within each group. Its [`load_tensor`](MulticastStages::load_tensor)
//! is one load for the cluster: every thread of every block calls it with
//! the same map and coordinates. One thread issues the copy, once every
//! block has released the stage's last tile; each block's barrier expects
//! the tile's bytes, so each block's [`next`](MulticastStages::next)
//! returns once the tile has landed in *its* shared memory, and its
//! [`Stage`] is read and released as a block pipeline's is.
//! [`load`](MulticastStages::load) does the same for a slice of a kernel
//! buffer (`cp.async.bulk` with `.multicast::cluster`).
//!
//! The protocol, which the types and the calls keep:
//!
//! - a stage is refilled only after every block of the cluster released its
//!   last tile: each block's first thread, at the next load into the stage,
//!   waits for its own block's release (as a block pipeline does) and
//!   counts it in the cluster's first block
//!   (`atom.acq_rel.cluster.shared::cluster.add`); the block whose count
//!   completes the stage's releases issues the copy, so no thread waits
//!   for another block (a stage's first tile is the first block's);
//! - no block leaves while a tile for it is in flight: dropping the stages
//!   takes every tile still loaded and passes a cluster barrier.
//!
//! On the CPU backend a multicast lands in each block when that block's
//! threads wait for it; blocks of a cluster that name different tiles in
//! the same load are reported with both calls, and a block that skips a
//! load leaves the others waiting for a tile that never comes, which the
//! backend reports as a wait nothing can end. A launch without clusters
//! (or with clusters of one block) loads each block's tiles as
//! [`Stages::load_tensor`] does.
//!
//! ```
//! use coop::prelude::*;
//! use coop::memory::pipeline::Pipeline;
//! use coop::memory::tensor::TensorMap;
//! use coop_host::{Cpu, LaunchConfig};
//!
//! /// Every block of a cluster of two scales the same 8 x 32 tiles of
//! /// `x` by its own factor: block r of the cluster writes `(r + 1) * x`
//! /// into its half of `out`. Each tile is read from `x` once a cluster.
//! #[kernel]
//! pub fn scaled_copies(cluster: Cluster, block: ThreadBlock, x: TensorMap<[[f32; 32]; 8]>,
//!                      rows: u32, out: Out<f32>, ring: Pipeline<[[[f32; 32]; 8]; 2]>) {
//!     let mut stages = ring.start_multicast(&cluster, &block);
//!     let r = cluster.block_rank() as usize;
//!     let t = block.thread_rank() as usize; // 256 threads, one element each
//!     let tiles = rows as usize / 8;
//!     let mut loaded = 0;
//!     for k in 0..tiles {
//!         while loaded < tiles && !stages.is_full() {
//!             stages.load_tensor(&cluster, &x, [8 * loaded as i32, 0]);
//!             loaded += 1;
//!         }
//!         let tile = stages.next(&block);
//!         let value = tile.at([t / 32, t % 32]) * (r + 1) as f32;
//!         out.write(r * tiles * 256 + k * 256 + t, value);
//!     }
//! }
//!
//! let x: Vec<f32> = (0..32 * 32).map(|i| i as f32).collect();
//! let map = coop_host::TensorMap::<[[f32; 32]; 8]>::cpu(&x, [32, 32])?;
//! let mut out = vec![0f32; 2 * 32 * 32];
//! let config = LaunchConfig::new(2, 256).with_cluster(2);
//! Cpu::new().launch(scaled_copies, config, (&map, 32u32, &mut out))?;
//! assert!(out[..1024].iter().zip(&x).all(|(o, x)| o == x));
//! assert!(out[1024..].iter().zip(&x).all(|(o, x)| *o == 2.0 * x));
//! # Ok::<(), coop_host::Error>(())
//! ```

use super::{Pipeline, Stage, StageArray, Stages, TensorLoadCall, check_tensor_load};
use crate::backend::target::Target;
use crate::backend::{AsyncCopies, Faults, Site, site};
use crate::groups::cluster::Cluster;
use crate::memory::tensor::{TensorElem, TensorMap};
use crate::memory::tile::{PlainTile, TileArray};
use crate::{ThreadBlock, this_thread_block};

impl<A: StageArray> Pipeline<A> {
    /// Starts the ring as a multicast pipeline of the calling block's
    /// cluster: every thread of every block of the cluster calls it, once,
    /// before anything else touches the ring. The first thread of each
    /// block initialises its block's barriers, then a cluster barrier
    /// makes them visible to the other blocks' copies and arrivals. See
    /// the [module](super::multicast).
    #[inline(always)]
    #[track_caller]
    pub fn start_multicast(self, cluster: &Cluster, block: &ThreadBlock) -> MulticastStages<A> {
        let all = ((1u32 << cluster.num_blocks()) - 1) as u16;
        self.start_among(cluster, block, all, "Pipeline::start_multicast", site!())
    }

    /// Starts the ring as a multicast pipeline among the blocks of the
    /// cluster whose bits are set in `members` (bit `r`: the block of
    /// cluster rank `r`, as CUDA's `ctaMask`): each tile loaded lands in
    /// those blocks only. Every thread of every block of the cluster calls
    /// it, once, each block naming the members of its own group, a group it
    /// belongs to; blocks of one group name the same members. Groups are
    /// what a matrix product's cluster wants: blocks of a row of the
    /// cluster share the tiles of one operand, blocks of a column those of
    /// the other, each through a ring of its own.
    ///
    /// A member outside the cluster, or members that leave out the calling
    /// block, stop the launch on both backends, naming the call; blocks of
    /// one group that name different members are reported by the CPU
    /// backend at their first load. A group of one block loads as a block
    /// pipeline does. See the [module](super::multicast).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::memory::pipeline::Pipeline;
    /// use coop::memory::tensor::TensorMap;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// A cluster of 2 x 2 blocks: block (i, j) adds the tile of row i of
    /// /// `a` to the tile of column j of `b`. The blocks of a row share
    /// /// each tile of `a`, the blocks of a column each tile of `b`.
    /// #[kernel]
    /// pub fn sums(cluster: Cluster, block: ThreadBlock,
    ///             a: TensorMap<[[f32; 32]; 8]>, b: TensorMap<[[f32; 32]; 8]>, out: Out<f32>,
    ///             rows: Pipeline<[[[f32; 32]; 8]; 1]>, columns: Pipeline<[[[f32; 32]; 8]; 1]>) {
    ///     let r = cluster.block_rank();
    ///     let (i, j) = (r / 2, r % 2);
    ///     let mut a_tiles = rows.start_multicast_among(&cluster, &block, 0b0011 << (2 * i));
    ///     let mut b_tiles = columns.start_multicast_among(&cluster, &block, 0b0101 << j);
    ///     a_tiles.load_tensor(&cluster, &a, [8 * i as i32, 0]);
    ///     b_tiles.load_tensor(&cluster, &b, [0, 0]);
    ///     let t = block.thread_rank() as usize;
    ///     let x = a_tiles.next(&block).at([t / 32, t % 32]);
    ///     let y = b_tiles.next(&block).at([t / 32, t % 32]);
    ///     out.write(r as usize * 256 + t, x + y * (j + 1) as f32);
    /// }
    ///
    /// let a: Vec<f32> = (0..16 * 32).map(|e| e as f32).collect();
    /// let b = vec![1000f32; 8 * 32];
    /// let a_map = coop_host::TensorMap::<[[f32; 32]; 8]>::cpu(&a, [16, 32])?;
    /// let b_map = coop_host::TensorMap::<[[f32; 32]; 8]>::cpu(&b, [8, 32])?;
    /// let mut out = vec![0f32; 4 * 256];
    /// let config = LaunchConfig::new(4, 256).with_cluster(4);
    /// Cpu::new().launch(sums, config, (&a_map, &b_map, &mut out))?;
    /// for r in 0..4 {
    ///     let (i, j) = (r / 2, r % 2);
    ///     let expected = (0..256).map(|t| a[i * 256 + t] + 1000.0 * (j + 1) as f32);
    ///     assert!(out[r * 256..][..256].iter().copied().eq(expected), "block {r}");
    /// }
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[doc(alias = "ctaMask")]
    #[inline(always)]
    #[track_caller]
    pub fn start_multicast_among(
        self,
        cluster: &Cluster,
        block: &ThreadBlock,
        members: u16,
    ) -> MulticastStages<A> {
        self.start_among(
            cluster,
            block,
            members,
            "Pipeline::start_multicast_among",
            site!(),
        )
    }

    #[inline(always)]
    fn start_among(
        self,
        cluster: &Cluster,
        block: &ThreadBlock,
        members: u16,
        call: &'static str,
        site: Site,
    ) -> MulticastStages<A> {
        const {
            assert!(
                A::STAGES >= 1 && A::TILE >= 1,
                "a pipeline has at least one stage of one element"
            )
        };
        let cluster_blocks = cluster.num_blocks();
        let cluster_rank = cluster.block_rank();
        if (members as u32) >> cluster_blocks != 0 {
            Target::check_failed(
                c"Pipeline::start_multicast_among: `members` has a bit set past the cluster's last block (bit r names the block of cluster rank r, below the cluster's number of blocks)",
                site,
            );
        }
        if (members as u32) & (1 << cluster_rank) == 0 {
            Target::check_failed(
                c"Pipeline::start_multicast_among: `members` leaves out the calling block (each block names the members of its own group, itself among them)",
                site,
            );
        }
        let threads = block.num_threads();
        let stages = self.init(block, (threads, threads), true, true, site);
        cluster.sync_named(call, site);
        MulticastStages {
            stages,
            cluster_rank,
            members,
            leader: members.trailing_zeros(),
            blocks: members.count_ones(),
            cluster_blocks,
        }
    }
}

/// A multicast pipeline's stages, as every thread of the cluster sees
/// them; see the [module](super::multicast). Dropping them takes the tiles
/// still loaded and passes a cluster barrier, so every thread of the
/// cluster drops them.
pub struct MulticastStages<A: StageArray> {
    stages: Stages<A>,
    cluster_rank: u32,
    /// The blocks the tiles land in, a bit a cluster rank.
    members: u16,
    /// The lowest of them: it issues a stage's first tile and counts the
    /// releases.
    leader: u32,
    /// How many they are.
    blocks: u32,
    cluster_blocks: u32,
}

impl<A: StageArray> MulticastStages<A> {
    /// Tiles loaded and not yet taken by [`next`](Self::next).
    #[inline(always)]
    pub fn loaded(&self) -> u32 {
        self.stages.loaded()
    }

    /// Whether every stage holds a tile not yet taken (a load now would
    /// wait forever).
    #[inline(always)]
    pub fn is_full(&self) -> bool {
        self.stages.is_full()
    }

    /// How many blocks of the cluster the tiles land in.
    #[inline(always)]
    pub fn blocks(&self) -> u32 {
        self.blocks
    }

    /// The blocks of the cluster the tiles land in, a bit a cluster rank:
    /// every block for [`Pipeline::start_multicast`], the members named
    /// for [`Pipeline::start_multicast_among`].
    #[inline(always)]
    pub fn members(&self) -> u16 {
        self.members
    }

    /// Starts loading the tile of `map`'s array at element coordinates `at`
    /// (outermost first) into the next stage of every block of the cluster,
    /// once every block has released the tile that stage held: every
    /// thread of every block of the cluster calls it, with the same map and
    /// coordinates. The copy engine reads the tile once and writes it into
    /// each block's stage (`.multicast::cluster`); each block's
    /// [`next`](Self::next) returns once it has landed there. Elements
    /// outside the array land as the map's fill, as for
    /// [`Stages::load_tensor`], whose rules (the innermost coordinate a
    /// multiple of 16 bytes, 128-byte stages) apply.
    ///
    /// The tile is issued once the slowest block of the cluster has
    /// released the stage, by that block's first thread: blocks that share
    /// tiles advance together, a ring's depth apart at most.
    ///
    /// See the [module](super::multicast) for an example.
    #[inline(always)]
    #[track_caller]
    pub fn load_tensor(
        &mut self,
        _cluster: &Cluster,
        map: &TensorMap<A::Tile>,
        at: <A::Tile as TileArray>::Coords,
    ) where
        A::Elem: TensorElem,
    {
        let site = site!();
        if self.blocks == 1 {
            self.stages.load_tensor_at(map, at, site);
            return;
        }
        check_tensor_load::<A>(TensorLoadCall::Multicast, at, site);
        if self.is_full() {
            Target::check_failed(
                c"MulticastStages::load_tensor: every stage holds a tile that `next` has not taken; a load now would wait forever for a stage to be released",
                site,
            );
        }
        let k = self.stages.head;
        let s = k % Stages::<A>::STAGES;
        self.stages.mark_engine_landed(s, true);
        let coords = <A::Tile as TileArray>::inner_first(at);
        let base = self.stages.base;
        if self.stages.rank == 0 {
            let issues = self.take_turn(
                map.word.data() as usize,
                coords,
                <A::Tile as TileArray>::RANK as u32,
                site,
            );
            let bytes = <A::Tile as TileArray>::BYTES as u32;
            // Held open by this block's arrivals at `next`, this thread's
            // among them.
            Target::barrier_expect(base, Stages::<A>::full(s), bytes, site);
            if issues {
                if map.word.first_use() {
                    Target::tensor_map_acquire(map.word.data(), site);
                }
                Target::tensor_copy_multicast(
                    base,
                    Stages::<A>::tile_offset(s),
                    map.word.data(),
                    coords,
                    <A::Tile as TileArray>::RANK as u32,
                    bytes,
                    base,
                    Stages::<A>::full(s),
                    self.mask(),
                    site,
                );
            }
        } else {
            self.stages.wait(
                Stages::<A>::empty(s),
                ((k / Stages::<A>::STAGES) & 1) ^ 1,
                site,
            );
        }
        // An empty group of copies, as a bulk load makes: `next` counts one
        // group a load.
        Target::commit_copies(site);
        self.stages.head += 1;
    }

    /// Starts loading `src` (at most `TILE` elements) into the next stage
    /// of every block of the cluster, once every block has released the
    /// tile that stage held: every thread of every block of the cluster
    /// calls it with the same slice. On sm_90, when the slice is 16-byte
    /// aligned and a multiple of 16 bytes long, the bulk-copy engine reads
    /// it once and writes it into each block's stage (`cp.async.bulk` with
    /// `.multicast::cluster`); otherwise each block's threads copy it into
    /// their own stage, as [`Stages::load`] does. The stage's elements past
    /// `src.len()` are unspecified (see [`load_filled`](Self::load_filled)).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::memory::pipeline::Pipeline;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Every block of a cluster of four adds up the whole of `input`, one
    /// /// tile of 1024 at a time, each tile read once a cluster.
    /// #[kernel]
    /// pub fn sums(cluster: Cluster, block: ThreadBlock, input: &[u32], out: Out<u32>,
    ///             ring: Pipeline<[[u32; 1024]; 2]>) {
    ///     let mut stages = ring.start_multicast(&cluster, &block);
    ///     let t = block.thread_rank() as usize;
    ///     let tiles = input.len() / 1024;
    ///     let mut sum = 0u32;
    ///     for k in 0..tiles {
    ///         if k == 0 {
    ///             stages.load(&cluster, &input[..1024]);
    ///         }
    ///         if k + 1 < tiles {
    ///             stages.load(&cluster, &input[(k + 1) * 1024..(k + 2) * 1024]);
    ///         }
    ///         let tile = stages.next(&block);
    ///         for i in (t..1024).step_by(256) {
    ///             sum += tile.get(i);
    ///         }
    ///     }
    ///     let total = reduce(&block, sum, op::Sum);
    ///     if t == 0 {
    ///         out.write(cluster.block_rank() as usize, total);
    ///     }
    /// }
    ///
    /// let input: Vec<u32> = (0..8192).collect();
    /// let mut out = vec![0u32; 4];
    /// let config = LaunchConfig::new(4, 256).with_cluster(4);
    /// Cpu::new().launch(sums, config, (&input[..], &mut out))?;
    /// assert_eq!(out, [8192 * 8191 / 2; 4]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn load(&mut self, cluster: &Cluster, src: &[A::Elem])
    where
        A::Tile: PlainTile,
    {
        self.start_load(cluster, src, false, site!())
    }

    /// As [`load`](Self::load), with the stage's elements past `src.len()`
    /// set to zero (a partial last tile); such a tile goes by each block's
    /// threads, not by multicast.
    #[inline(always)]
    #[track_caller]
    pub fn load_filled(&mut self, cluster: &Cluster, src: &[A::Elem])
    where
        A::Tile: PlainTile,
    {
        self.start_load(cluster, src, true, site!())
    }

    #[inline(always)]
    fn start_load(&mut self, _cluster: &Cluster, src: &[A::Elem], fill: bool, site: Site) {
        let block = this_thread_block();
        if self.blocks == 1 {
            self.stages.start_load(&block, src, fill, site);
            return;
        }
        if src.len() > A::TILE {
            Target::check_failed(
                c"MulticastStages::load: the source slice is longer than a stage's tile",
                site,
            );
        }
        if self.is_full() {
            Target::check_failed(
                c"MulticastStages::load: every stage holds a tile that `next` has not taken; a load now would wait forever for a stage to be released",
                site,
            );
        }
        let k = self.stages.head;
        let s = k % Stages::<A>::STAGES;
        let base = self.stages.base;
        let bytes = core::mem::size_of_val(src) as u32;
        let bulk = Stages::<A>::bulk_able(src, fill, s);
        self.stages.mark_engine_landed(s, bulk);
        if self.stages.rank == 0 {
            let what = [bytes as i32, fill as i32, 0, 0, 0];
            let issues = self.take_turn(src.as_ptr() as usize, what, 0, site);
            if bulk {
                Target::barrier_expect(base, Stages::<A>::full(s), bytes, site);
                if issues {
                    Target::bulk_copy_multicast(
                        base,
                        Stages::<A>::tile_offset(s),
                        src.as_ptr() as *const u8,
                        bytes,
                        base,
                        Stages::<A>::full(s),
                        self.mask(),
                        site,
                    );
                }
            }
        } else {
            self.stages.wait(
                Stages::<A>::empty(s),
                ((k / Stages::<A>::STAGES) & 1) ^ 1,
                site,
            );
        }
        if !bulk {
            // Each block fills its own stage (the turn above still keeps
            // the blocks' loads in step).
            self.stages.copy_by_threads(&block, src, fill, s, site);
        }
        Target::commit_copies(site);
        self.stages.head += 1;
    }

    /// The first thread's turn at the cluster's next load: waits for its
    /// block's release of the stage, checks (CPU) that every block names
    /// the same source (the map at `from` and the tile at `what`, of `rank`
    /// coordinates; or, with `rank` 0, the slice at `from` of `what[0]`
    /// bytes), and counts the block's release. Whether this block issues
    /// the copy: the first block for a stage's first tile, later the block
    /// whose release of the stage came last.
    #[inline(always)]
    fn take_turn(&mut self, from: usize, what: [i32; 5], rank: u32, site: Site) -> bool {
        let k = self.stages.head;
        let (s, round) = (k % Stages::<A>::STAGES, k / Stages::<A>::STAGES);
        let base = self.stages.base;
        // This block's threads have released the stage's last tile.
        self.stages
            .wait(Stages::<A>::empty(s), (round & 1) ^ 1, site);
        Target::multicast_call(base, k, from, what, rank, self.members, site);
        if round == 0 {
            return self.cluster_rank == self.leader;
        }
        // Counted in the members' first block: the block whose count
        // completes the round's releases issues the copy, every member
        // being done with the stage by then.
        let before = Target::count_release(base, Stages::<A>::releases(s), self.leader, site);
        (before + 1).is_multiple_of(self.blocks)
    }

    /// The members, a bit each.
    #[inline(always)]
    fn mask(&self) -> u16 {
        self.members
    }

    /// Waits for the oldest tile loaded and not yet taken to land in this
    /// block, and lends it out to the block's threads, as
    /// [`Stages::next`] does; dropping the [`Stage`] releases it (for this
    /// block; the stage is refilled once every block has released it).
    #[inline(always)]
    #[track_caller]
    pub fn next(&mut self, _block: &ThreadBlock) -> Stage<'_, A> {
        self.stages.next_at("MulticastStages::next", site!())
    }
}

impl<A: StageArray> Drop for MulticastStages<A> {
    #[inline(always)]
    #[track_caller]
    fn drop(&mut self) {
        let site: Site = site!();
        if self.cluster_blocks == 1 || Target::unwinding() {
            return;
        }
        // A tile for this block may still be landing: take it, so that the
        // copy engine is done with this block's shared memory.
        let block = this_thread_block();
        while self.stages.loaded() > 0 {
            drop(self.stages.next(&block));
        }
        // No block leaves while another may still write to it or arrive on
        // its barriers.
        crate::this_cluster().sync_named("MulticastStages (dropped)", site);
    }
}
