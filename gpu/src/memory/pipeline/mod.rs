//! Multi-stage pipelines: a ring of tiles in shared memory that the block
//! fills from global memory asynchronously while it works on the tiles
//! already landed (CUDA's `cuda::pipeline` with a ring of stages, on
//! `mbarrier`s).
//!
//! A kernel takes the ring as a parameter, [`Pipeline<[[E; TILE];
//! STAGES]>`](Pipeline), which `#[kernel]` places in shared memory with two
//! mbarriers and a counter a stage (the counter for
//! [`start_multicast`](Pipeline::start_multicast), see [`multicast`]).
//! [`Pipeline::start`] initialises the barriers (one
//! block barrier) and gives [`Stages`]:
//!
//! - [`Stages::load`] starts loading a slice of a kernel buffer into the
//!   next stage, once the tile the stage held before has been released;
//! - [`Stages::next`] waits for the oldest loaded tile and lends it out as
//!   a [`Stage`], readable by every thread of the block;
//! - dropping the [`Stage`] (or [`Stage::release`]) gives the stage back.
//!
//! The types keep the protocol: a tile can only be read through the
//! [`Stage`] that [`next`](Stages::next) returns once it has landed; while
//! a [`Stage`] is held, `load` and `next` cannot be called (the `Stage`
//! borrows the pipeline), so no stage is refilled before it is released;
//! and a stage is always released (dropping it releases it). Loading into a
//! ring whose every stage holds a tile not yet taken, or taking a tile
//! nothing loaded, would wait forever: both are refused, naming the call,
//! on the GPU and the CPU backend.
//!
//! On an sm_90 GPU one thread moves each tile with the bulk-copy engine
//! (`cp.async.bulk`, its bytes expected by the stage's barrier) when the
//! source is 16-byte aligned and a multiple of 16 bytes long
//! ([`CopyEngine::Bulk`], the default). Otherwise, before sm_90, and with
//! [`CopyEngine::Threads`], every thread copies its 16-byte chunks (8, 4)
//! of a tile with `cp.async`, one group of copies a load, and the tile's
//! partial tail and zeros with ordinary stores, which a block barrier
//! publishes. `next` waits for the calling thread's own
//! group of the tile (`cp.async.wait_group`, the newer groups left in
//! flight) and arrives on the stage's barrier; the tile is the block's
//! once every thread has arrived and every bulk byte has landed. A second
//! barrier a stage counts the releases, which a load into the stage waits
//! for. The CPU backend lands a tile
//! when a thread waits for it.
//!
//! ```
//! use coop::prelude::*;
//! use coop::memory::pipeline::Pipeline;
//! use coop_host::{Cpu, LaunchConfig};
//!
//! /// Each block sums its share of tiles of 256 values, three tiles in flight.
//! #[kernel]
//! pub fn streamed_sum(block: ThreadBlock, input: &[f32], sums: Out<f32>,
//!                     ring: Pipeline<[[f32; 256]; 3]>) {
//!     let mut stages = ring.start(&block);
//!     let tiles = input.len().div_ceil(256);
//!     let b = block.group_index().x as usize;
//!     let blocks = this_grid().num_blocks();
//!     let tile = |k: usize| &input[k * 256..((k + 1) * 256).min(input.len())];
//!     let mut next_load = b;
//!     // Fill the ring, then take a tile, use it, release it and load the next.
//!     while next_load < tiles && stages.loaded() < 3 {
//!         stages.load_filled(&block, tile(next_load));
//!         next_load += blocks;
//!     }
//!     let t = block.thread_rank() as usize;
//!     let mut sum = 0.0f32;
//!     while stages.loaded() > 0 {
//!         let stage = stages.next(&block);
//!         sum += stage.get(t);
//!         stage.release();
//!         if next_load < tiles {
//!             stages.load_filled(&block, tile(next_load));
//!             next_load += blocks;
//!         }
//!     }
//!     let total = reduce(&block, sum, op::Sum);
//!     if t == 0 {
//!         sums.write(b, total);
//!     }
//! }
//!
//! let input: Vec<f32> = (0..5000).map(|i| (i % 3) as f32).collect();
//! let mut sums = vec![0f32; 2];
//! Cpu::new().launch(streamed_sum, LaunchConfig::new(2, 256), (&input[..], &mut sums))?;
//! assert_eq!(sums[0] + sums[1], input.iter().sum::<f32>());
//! # Ok::<(), coop_host::Error>(())
//! ```

use crate::ThreadBlock;
use crate::backend::ElemShape;
use crate::backend::target::{SharedBase, Target};
use crate::backend::{AsyncCopies, Faults, Naming, SharedMemory, Site, site};
use crate::memory::out::Out;
use crate::memory::shared::{CopyPlan, SharedElem, SharedParam, issue_copy};
use crate::memory::tensor::{
    TensorElem, TensorMap, TensorOut, TensorOutCall, TensorReduce, check_tensor_out,
};
use crate::memory::tile::{PlainTile, TileArray, swizzled_element};
use core::marker::PhantomData;

pub mod multicast;
pub use multicast::MulticastStages;
pub mod specialized;
pub use specialized::{Consumer, Producer, Role};

mod sealed {
    pub trait Sealed {}
    impl<T, const S: usize> Sealed for [T; S] {}
}

/// The shape of a pipeline's ring: `[T; STAGES]`, `STAGES` tiles of type
/// `T`, a [`TileArray`]: `[[E; TILE]; STAGES]` for tiles of `TILE`
/// elements, `[[[E; C]; R]; STAGES]` for tiles of `R` rows of `C`.
///
/// ```
/// use coop::memory::pipeline::StageArray;
/// assert_eq!(<[[f32; 256]; 3] as StageArray>::TILE, 256);
/// assert_eq!(<[[[u16; 64]; 8]; 2] as StageArray>::TILE, 512);
/// assert_eq!(<[[[u16; 64]; 8]; 2] as StageArray>::STAGES, 2);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the ring of a pipeline",
    label = "not `[T; STAGES]` with `T` a tile",
    note = "a pipeline's ring is `Pipeline<[T; STAGES]>`: STAGES tiles of type T, `[E; TILE]` or an array of up to 5 dimensions such as `[[E; C]; R]`, with `E: SharedElem`"
)]
pub trait StageArray: sealed::Sealed {
    /// The type of a tile.
    type Tile: TileArray<Elem = Self::Elem>;
    /// The element type.
    type Elem: SharedElem;
    /// Elements of a tile.
    const TILE: usize;
    /// Stages in the ring.
    const STAGES: usize;
    /// Bytes of the ring's tiles.
    const BYTES: usize = Self::TILE * Self::STAGES * core::mem::size_of::<Self::Elem>();
}

impl<T: TileArray, const S: usize> StageArray for [T; S] {
    type Tile = T;
    type Elem = T::Elem;
    const TILE: usize = T::ELEMENTS;
    const STAGES: usize = S;
}

/// A pipeline's ring of stages in shared memory, as a kernel parameter
/// (no argument at launch); see the [module](self).
pub struct Pipeline<A: StageArray> {
    base: SharedBase,
    _ring: PhantomData<*const A>,
}

/// Bytes of the ring before its barriers.
const fn ring_bytes<A: StageArray>() -> usize {
    A::BYTES.next_multiple_of(16)
}

// SAFETY: the declaration holds the ring and, after it, two 8-byte
// barriers and an 8-byte counter a stage, 128-byte aligned (what bulk copies and tensor copies
// want of a shared destination), or aligned to the period of a swizzled tile's pattern (8 rows
// of its span), from which the stages' element numbers are swizzled; the handles stay inside it.
unsafe impl<A: StageArray> SharedParam for Pipeline<A> {
    const BYTES: usize = ring_bytes::<A>() + 24 * A::STAGES;
    const ALIGN: usize = if <A::Tile as TileArray>::SWIZZLE != 0 {
        8 * <A::Tile as TileArray>::SWIZZLE as usize
    } else {
        128
    };
    #[inline(always)]
    #[track_caller]
    unsafe fn __bind_static(binding: crate::backend::target::StaticBinding) -> Self {
        let base = Target::static_shared(
            binding,
            Self::BYTES,
            Self::ALIGN,
            ElemShape {
                size: core::mem::size_of::<A::Elem>() as u32,
                cols: 0,
            },
            site!(),
        );
        Pipeline {
            base,
            _ring: PhantomData,
        }
    }
}

/// Which engine moves a pipeline's tiles; see [`Pipeline::start_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyEngine {
    /// Every thread of the block copies its 16-byte chunks of each tile
    /// with `cp.async` (sm_80 and later), which arrive on the stage's
    /// barrier as they land.
    Threads,
    /// On sm_90, one thread moves each tile with the bulk-copy engine
    /// (`cp.async.bulk`) when the source is 16-byte aligned and a multiple
    /// of 16 bytes long; other tiles, and every tile before sm_90, as
    /// [`Threads`](Self::Threads).
    Bulk,
}

impl<A: StageArray> Pipeline<A> {
    /// Initialises the stages' barriers (thread 0) and passes a block
    /// barrier; every thread of the block calls it, once, before anything
    /// else touches the ring. Tiles move as [`CopyEngine::Bulk`] says: one
    /// thread's instruction a tile, which leaves the other threads' issue
    /// slots to the kernel's work (on an H200 streaming tiles of 8 KiB, 4 %
    /// faster than every thread copying its chunks at 1 GiB, 3 % slower at
    /// 64 MiB: chapter 7 of the guide); see [`start_with`](Self::start_with)
    /// for the other engine.
    #[inline(always)]
    #[track_caller]
    pub fn start(self, block: &ThreadBlock) -> Stages<A> {
        self.start_with(block, CopyEngine::Bulk)
    }

    /// As [`start`](Self::start), with tiles moved by `engine`. Every
    /// thread of the block passes the same engine.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::memory::pipeline::{CopyEngine, Pipeline};
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Block 0 adds up 4096 values in tiles of 1024 moved by the bulk-copy engine.
    /// #[kernel]
    /// pub fn bulk_sum(block: ThreadBlock, input: &[u32], out: Out<u32>, ring: Pipeline<[[u32; 1024]; 2]>) {
    ///     let mut stages = ring.start_with(&block, CopyEngine::Bulk);
    ///     let t = block.thread_rank() as usize;
    ///     let mut sum = 0u32;
    ///     stages.load(&block, &input[..1024]);
    ///     for k in 1..=4 {
    ///         if k < 4 {
    ///             stages.load(&block, &input[k * 1024..(k + 1) * 1024]);
    ///         }
    ///         let stage = stages.next(&block);
    ///         for i in (t..1024).step_by(256) {
    ///             sum += stage.get(i);
    ///         }
    ///     }
    ///     let total = reduce(&block, sum, op::Sum);
    ///     if t == 0 {
    ///         out.write(0, total);
    ///     }
    /// }
    ///
    /// let input: Vec<u32> = (0..4096).collect();
    /// let mut out = vec![0u32; 1];
    /// Cpu::new().launch(bulk_sum, LaunchConfig::new(1, 256), (&input[..], &mut out))?;
    /// assert_eq!(out[0], 4096 * 4095 / 2);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn start_with(self, block: &ThreadBlock, engine: CopyEngine) -> Stages<A> {
        const {
            assert!(
                A::STAGES >= 1 && A::TILE >= 1,
                "a pipeline has at least one stage of one element"
            )
        };
        let site = site!();
        let threads = block.num_threads();
        let stages = self.init(
            block,
            (threads, threads),
            engine == CopyEngine::Bulk,
            false,
            site,
        );
        block.sync_named("Pipeline::start", site);
        stages
    }

    /// The block's `Stages`, after its first thread initialised each
    /// stage's barriers (and, with `counters`, its release counter): its
    /// "full" barrier for `fills` arrivals a phase, its "empty" one for
    /// `releases`; the caller's barrier publishes them.
    #[inline(always)]
    fn init(
        self,
        block: &ThreadBlock,
        (fills, releases): (u32, u32),
        bulk: bool,
        counters: bool,
        site: Site,
    ) -> Stages<A> {
        let threads = block.num_threads();
        let stages = Stages {
            base: self.base,
            head: 0,
            tail: 0,
            rank: block.thread_rank(),
            threads,
            bulk,
            engine_landed: 0,
            _ring: PhantomData,
        };
        if stages.rank == 0 {
            let mut s = 0;
            while s < A::STAGES as u32 {
                Target::barrier_init(self.base, Stages::<A>::full(s), fills, site);
                Target::barrier_init(self.base, Stages::<A>::empty(s), releases, site);
                if counters {
                    Target::release_counter_init(self.base, Stages::<A>::releases(s), site);
                }
                s += 1;
            }
            Target::barriers_initialized(site);
        }
        stages
    }
}

/// A pipeline's stages, as every thread of the block sees them: which
/// tiles it has loaded and taken. See the [module](self).
pub struct Stages<A: StageArray> {
    base: SharedBase,
    /// Tiles loaded so far.
    head: u32,
    /// Tiles taken and released so far.
    tail: u32,
    rank: u32,
    threads: u32,
    /// Whether tiles go by the bulk-copy engine where they can.
    bulk: bool,
    /// Bit `s` (of the first 64 stages): stage `s`'s tile was written by
    /// the copy engine alone, so the engine may read it back for a store
    /// without a fence of the threads' writes.
    engine_landed: u64,
    _ring: PhantomData<*const A>,
}

impl<A: StageArray> Stages<A> {
    const STAGES: u32 = A::STAGES as u32;

    /// Byte offset of stage `s`'s "full" barrier.
    #[inline(always)]
    const fn full(s: u32) -> u32 {
        ring_bytes::<A>() as u32 + 8 * s
    }

    /// Byte offset of stage `s`'s "empty" barrier.
    #[inline(always)]
    const fn empty(s: u32) -> u32 {
        ring_bytes::<A>() as u32 + 8 * (A::STAGES as u32 + s)
    }

    /// Byte offset of stage `s`'s count of releases by the blocks of the
    /// cluster (a multicast pipeline's, in its cluster's first block).
    #[inline(always)]
    const fn releases(s: u32) -> u32 {
        ring_bytes::<A>() as u32 + 8 * (2 * A::STAGES as u32 + s)
    }

    /// Byte offset of stage `s`'s tile in the ring.
    #[inline(always)]
    const fn tile_offset(s: u32) -> u32 {
        (s as usize * A::TILE * core::mem::size_of::<A::Elem>()) as u32
    }

    /// Tiles loaded and not yet taken by [`next`](Self::next).
    #[inline(always)]
    pub fn loaded(&self) -> u32 {
        self.head - self.tail
    }

    /// Whether every stage holds a tile not yet taken (a `load` now would
    /// wait forever).
    #[inline(always)]
    pub fn is_full(&self) -> bool {
        self.loaded() == Self::STAGES
    }

    /// Starts loading `src` (at most `TILE` elements) into the next stage,
    /// once the tile that stage held has been released: every thread of
    /// the block calls it with the same slice. The stage's elements past
    /// `src.len()` are unspecified (see [`load_filled`](Self::load_filled)).
    #[inline(always)]
    #[track_caller]
    pub fn load(&mut self, block: &ThreadBlock, src: &[A::Elem])
    where
        A::Tile: PlainTile,
    {
        self.start_load(block, src, false, site!())
    }

    /// As [`load`](Self::load), with the stage's elements past `src.len()`
    /// set to zero (a partial last tile).
    #[inline(always)]
    #[track_caller]
    pub fn load_filled(&mut self, block: &ThreadBlock, src: &[A::Elem])
    where
        A::Tile: PlainTile,
    {
        self.start_load(block, src, true, site!())
    }

    #[inline(always)]
    fn start_load(&mut self, block: &ThreadBlock, src: &[A::Elem], fill: bool, site: Site) {
        Target::entering("Stages::load", site);
        if src.len() > A::TILE {
            Target::check_failed(
                c"Stages::load: the source slice is longer than a stage's tile",
                site,
            );
        }
        if self.is_full() {
            Target::check_failed(
                c"Stages::load: every stage holds a tile that `next` has not taken; a load now would wait forever for a stage to be released",
                site,
            );
        }
        let s = self.wait_to_refill(site);
        let bytes = core::mem::size_of_val(src);
        let offset = Self::tile_offset(s);
        let by_engine = self.bulk && Self::bulk_able(src, fill, s);
        self.mark_engine_landed(s, by_engine);
        if by_engine {
            // The phase cannot complete before this: it waits for every
            // thread's arrival at `next`, this thread's among them.
            if self.rank == 0 {
                Target::bulk_copy(
                    self.base,
                    offset,
                    src.as_ptr() as *const u8,
                    bytes as u32,
                    self.base,
                    Self::full(s),
                    site,
                );
            }
        } else {
            self.copy_by_threads(block, src, fill, s, site);
        }
        // One group of copies a load (empty for a bulk copy), so that
        // `next` knows how many of the thread's groups may stay in flight.
        Target::commit_copies(site);
        self.head += 1;
    }

    /// Records whether stage `s`'s next tile is written by the copy engine
    /// alone (stages past the 64th never are, for this record).
    #[inline(always)]
    fn mark_engine_landed(&mut self, s: u32, by_engine: bool) {
        if s < 64 {
            let bit = 1u64 << s;
            self.engine_landed = if by_engine {
                self.engine_landed | bit
            } else {
                self.engine_landed & !bit
            };
        }
    }

    /// Whether stage `s`'s tile was written by the copy engine alone.
    #[inline(always)]
    fn engine_landed(&self, s: u32) -> bool {
        s < 64 && self.engine_landed & (1u64 << s) != 0
    }

    /// Whether `src` can go to stage `s` by the bulk-copy engine: sm_90, a
    /// non-empty source 16-byte aligned and a multiple of 16 bytes long, a
    /// stage 16-byte aligned, and no zeros to fill.
    #[inline(always)]
    fn bulk_able(src: &[A::Elem], fill: bool, s: u32) -> bool {
        let bytes = core::mem::size_of_val(src);
        Target::BULK
            && bytes > 0
            && bytes.is_multiple_of(16)
            && (src.as_ptr() as usize).is_multiple_of(16)
            && Self::tile_offset(s).is_multiple_of(16)
            && (!fill || src.len() == A::TILE)
    }

    /// Every thread of the block copies its chunks of `src` into stage `s`
    /// with `cp.async` (the partial tail and the zeros of a filling copy by
    /// ordinary stores, between block barriers).
    #[inline(always)]
    fn copy_by_threads(
        &mut self,
        block: &ThreadBlock,
        src: &[A::Elem],
        fill: bool,
        s: u32,
        site: Site,
    ) {
        let first = s * A::TILE as u32;
        let plan = CopyPlan::new(first, A::TILE, src, fill);
        // Part of the tile may go by ordinary stores (a partial tail,
        // zeros): block barriers order them after every thread's reads of
        // the stage's last tile, and before any thread can take this one.
        let stores = plan.stores();
        if stores {
            block.sync_named("Stages::load", site);
        }
        issue_copy(
            plan,
            self.base,
            first,
            src,
            self.rank,
            self.threads,
            None,
            site,
        );
        if stores {
            block.sync_named("Stages::load", site);
        }
    }

    /// Starts loading the tile of `map`'s array at element coordinates
    /// `at` (outermost first, `[row, column]` for a 2-D tile) into the
    /// next stage, once the tile that stage held has been released: every
    /// thread of the block calls it with the same map and coordinates. One
    /// thread issues the copy to the copy engine (TMA,
    /// `cp.async.bulk.tensor`, sm_90); the stage's barrier counts its
    /// bytes, so [`next`](Self::next) returns once the tile has landed.
    /// Elements of the tile outside the array (a tile over an edge,
    /// negative coordinates) land as zeros, or NaN where the host's map
    /// asked for it.
    ///
    /// The innermost coordinate must be a multiple of 16 bytes (4 `f32`s,
    /// 16 `u8`s): the copy engine faults on any other, so coop refuses it
    /// at the call, on the GPU and the CPU backend, naming the rule.
    ///
    /// The map's tile type is the stage's (`TensorMap<T>` for
    /// `Pipeline<[T; STAGES]>`), and a stage must start on a 128-byte
    /// boundary: a ring of more than one stage needs tiles of a multiple
    /// of 128 bytes (a compile error names the tile otherwise). A GPU
    /// before sm_90 has no copy engine: the kernel stops with a fault
    /// naming the call (the host refuses to build a map for such a GPU).
    ///
    /// See [`tensor`](crate::memory::tensor) for an example.
    #[inline(always)]
    #[track_caller]
    pub fn load_tensor(
        &mut self,
        _block: &ThreadBlock,
        map: &TensorMap<A::Tile>,
        at: <A::Tile as TileArray>::Coords,
    ) where
        A::Elem: TensorElem,
    {
        self.load_tensor_at(map, at, site!())
    }

    /// [`load_tensor`](Self::load_tensor) of the call at `site`.
    #[inline(always)]
    fn load_tensor_at(
        &mut self,
        map: &TensorMap<A::Tile>,
        at: <A::Tile as TileArray>::Coords,
        site: Site,
    ) where
        A::Elem: TensorElem,
    {
        Target::entering("Stages::load_tensor", site);
        check_tensor_load::<A>(TensorLoadCall::Stages, at, site);
        if self.is_full() {
            Target::check_failed(
                c"Stages::load_tensor: every stage holds a tile that `next` has not taken; a load now would wait forever for a stage to be released",
                site,
            );
        }
        let s = self.wait_to_refill(site);
        self.mark_engine_landed(s, true);
        // The phase cannot complete before this: it waits for every
        // thread's arrival at `next`, this thread's among them.
        self.issue_tensor(s, map, at, site);
        // An empty group of copies, as a bulk load makes: `next` counts one
        // group a load.
        Target::commit_copies(site);
        self.head += 1;
    }

    /// Waits for the oldest tile loaded and not yet taken, and lends it
    /// out: every thread of the block calls it, and can read every element
    /// of the tile until the [`Stage`] is dropped or released, which gives
    /// the stage back for a later load.
    #[inline(always)]
    #[track_caller]
    pub fn next(&mut self, _block: &ThreadBlock) -> Stage<'_, A> {
        self.next_at("Stages::next", site!())
    }

    /// [`next`](Self::next), called as `call` at `site`.
    #[inline(always)]
    fn next_at(&mut self, call: &'static str, site: Site) -> Stage<'_, A> {
        Target::entering(call, site);
        if self.loaded() == 0 {
            Target::check_failed(
                c"Stages::next: no tile is loaded and not yet taken; `load` one first (waiting now would wait forever)",
                site,
            );
        }
        let k = self.tail;
        let (s, round) = (k % Self::STAGES, k / Self::STAGES);
        // This thread's copies of the tile have landed (the groups of the
        // tiles loaded after it may stay in flight); its arrival releases
        // them to the block, and the phase completes once every thread's
        // copies and the tile's bulk bytes are in.
        wait_copies_keeping(self.loaded() - 1, site);
        Target::barrier_arrive(self.base, Self::full(s), site);
        self.wait(Self::full(s), round & 1, site);
        let engine = self.engine_landed(s);
        Stage::lend(
            self.base,
            s,
            (self.rank, self.threads),
            engine,
            &mut self.tail,
        )
    }

    /// Waits until the stage the next load fills has been released (for
    /// the first round the parity names the phase before the barrier's
    /// first: done); that stage.
    #[inline(always)]
    fn wait_to_refill(&self, site: Site) -> u32 {
        let k = self.head;
        let (s, round) = (k % Self::STAGES, k / Self::STAGES);
        self.wait(Self::empty(s), (round & 1) ^ 1, site);
        s
    }

    /// The first thread's tensor copy of `map`'s tile at `at` into stage
    /// `s`, completing on its "full" barrier (acquiring the map at its
    /// first use). Precondition: the barrier's phase cannot complete before
    /// the call.
    #[inline(always)]
    fn issue_tensor(
        &self,
        s: u32,
        map: &TensorMap<A::Tile>,
        at: <A::Tile as TileArray>::Coords,
        site: Site,
    ) where
        A::Elem: TensorElem,
    {
        if self.rank == 0 {
            if map.word.first_use() {
                Target::tensor_map_acquire(map.word.data(), site);
            }
            Target::tensor_copy(
                self.base,
                Self::tile_offset(s),
                map.word.data(),
                <A::Tile as TileArray>::inner_first(at),
                <A::Tile as TileArray>::RANK as u32,
                <A::Tile as TileArray>::BYTES as u32,
                self.base,
                Self::full(s),
                site,
            );
        }
    }

    #[inline(always)]
    fn wait(&self, bar: u32, parity: u32, site: Site) {
        while !Target::barrier_test(self.base, bar, parity, site) {}
    }
}

/// The pipeline call that loads a tensor tile, whose name opens the
/// messages of [`check_tensor_load`].
#[derive(Clone, Copy)]
enum TensorLoadCall {
    Stages,
    Multicast,
    Producer,
}

/// The rules of a tensor load into a ring of `A` that every pipeline
/// shares: stages on 128-byte boundaries (at compile time), a GPU with the
/// copy engine, the innermost coordinate `at` on a multiple of 16 bytes.
#[inline(always)]
fn check_tensor_load<A: StageArray>(
    call: TensorLoadCall,
    at: <A::Tile as TileArray>::Coords,
    site: Site,
) {
    const {
        assert!(
            A::STAGES == 1 || (A::TILE * core::mem::size_of::<A::Elem>()).is_multiple_of(128),
            "a tensor copy lands on a 128-byte boundary: the stages of a ring of several must each be a multiple of 128 bytes; make the tile larger or pad its rows"
        )
    };
    if !Target::BULK {
        Target::check_failed(
            match call {
                TensorLoadCall::Stages => c"Stages::load_tensor: tensor copies need sm_90 or newer",
                TensorLoadCall::Multicast => {
                    c"MulticastStages::load_tensor: tensor copies need sm_90 or newer"
                }
                TensorLoadCall::Producer => {
                    c"Producer::load_tensor: tensor copies need sm_90 or newer"
                }
            },
            site,
        );
    }
    if !crate::memory::tensor::inner_aligned::<A::Tile>(at) {
        Target::check_failed(
            match call {
                TensorLoadCall::Stages => c"Stages::load_tensor: the innermost (last) coordinate must start the tile on a multiple of 16 bytes (of 4 elements of 4 bytes, 2 of 8, 8 of 2, 16 of 1); the copy engine faults on any other",
                TensorLoadCall::Multicast => c"MulticastStages::load_tensor: the innermost (last) coordinate must start the tile on a multiple of 16 bytes (of 4 elements of 4 bytes, 2 of 8, 8 of 2, 16 of 1); the copy engine faults on any other",
                TensorLoadCall::Producer => c"Producer::load_tensor: the innermost (last) coordinate must start the tile on a multiple of 16 bytes (of 4 elements of 4 bytes, 2 of 8, 8 of 2, 16 of 1); the copy engine faults on any other",
            },
            site,
        );
    }
}

/// Waits until the calling thread's groups of copies but the `keep` newest
/// have landed (at most 7 stay in flight: with more, the wait also waits for
/// some of the newer ones, which only costs overlap).
#[inline(always)]
fn wait_copies_keeping(keep: u32, site: Site) {
    match keep {
        0 => Target::wait_copies::<0>(None, "Stages::next", site),
        1 => Target::wait_copies::<1>(None, "Stages::next", site),
        2 => Target::wait_copies::<2>(None, "Stages::next", site),
        3 => Target::wait_copies::<3>(None, "Stages::next", site),
        4 => Target::wait_copies::<4>(None, "Stages::next", site),
        5 => Target::wait_copies::<5>(None, "Stages::next", site),
        6 => Target::wait_copies::<6>(None, "Stages::next", site),
        _ => Target::wait_copies::<7>(None, "Stages::next", site),
    }
}

/// A landed tile, lent out by [`Stages::next`]: every thread of the block
/// reads it; dropping it (or [`release`](Self::release)) gives the stage
/// back to the pipeline.
pub struct Stage<'p, A: StageArray> {
    base: SharedBase,
    /// The count of tiles taken and released of the ring the stage is
    /// lent from (which the lend borrows, so nothing loads or takes a tile
    /// meanwhile); one more once the stage is released.
    tail: &'p mut u32,
    stage: u32,
    /// Whether this thread issues the stage's tensor stores.
    issuer: bool,
    /// The calling thread's rank among the threads the stage is lent to,
    /// and their number.
    rank: u32,
    threads: u32,
    /// Whether the copy engine alone wrote the tile (so it may read it
    /// back for [`Stage::store`] without a fence of the threads' writes).
    engine: bool,
    /// Whether this thread issued a tensor store from the stage, which
    /// must have read it before the stage is released.
    stored: bool,
    _ring: PhantomData<*const A>,
}

impl<'p, A: StageArray> Stage<'p, A> {
    /// Stage `stage` of the ring at `base`, landed and lent out until it is
    /// released, which arrives on its "empty" barrier and counts one more
    /// in `tail`, to `threads` threads (the caller of rank `rank` among
    /// them); `engine` if the copy engine alone wrote its tile.
    #[inline(always)]
    fn lend(
        base: SharedBase,
        stage: u32,
        (rank, threads): (u32, u32),
        engine: bool,
        tail: &'p mut u32,
    ) -> Self {
        Stage {
            base,
            tail,
            stage,
            issuer: rank == 0,
            rank,
            threads,
            engine,
            stored: false,
            _ring: PhantomData,
        }
    }
}

impl<A: StageArray> Stage<'_, A> {
    /// Element `index` of the tile (panics outside it).
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, index: usize) -> A::Elem {
        let site = site!();
        if index >= A::TILE {
            Target::index_out_of_bounds(c"Stage::get", core::ptr::null(), index, A::TILE, site);
        }
        self.load_element(index as u32, site)
    }

    /// Elements `index .. index + K` of the tile (row-major), in one vector
    /// load where the address allows it (CUDA's `reinterpret_cast<const
    /// float4 *>(&tile[i])[0]`): `ld.shared.v4` for 16 bytes and
    /// `ld.shared.v2` for 8 bytes starting at an element whose offset in the
    /// ring is a multiple of that size, one load an element otherwise, with
    /// the same values. A warp whose lanes read consecutive runs of 16 bytes
    /// takes four shared-memory wavefronts for 128 elements of 4 bytes,
    /// where four scalar loads a lane take four wavefronts for 32 each.
    /// Panics, on both targets, when the elements do not all lie in the
    /// tile, naming the first that does not.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::memory::pipeline::Pipeline;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Sums each run of four floats of a tile of 256.
    /// #[kernel]
    /// pub fn quads(block: ThreadBlock, input: &[f32], out: Out<f32>,
    ///              ring: Pipeline<[[f32; 256]; 1]>) {
    ///     let mut stages = ring.start(&block);
    ///     stages.load(&block, &input[..256]);
    ///     let tile = stages.next(&block);
    ///     let t = block.thread_rank() as usize;
    ///     let [a, b, c, d] = tile.get_array::<4>(4 * t);
    ///     out.write(t, a + b + c + d);
    /// }
    ///
    /// let input: Vec<f32> = (0..256).map(|i| i as f32).collect();
    /// let mut out = vec![0.0f32; 64];
    /// Cpu::new().launch(quads, LaunchConfig::new(1, 64), (&input[..], &mut out))?;
    /// assert_eq!(out[1], 4.0 + 5.0 + 6.0 + 7.0);
    ///
    /// // A 65th thread's run starts past the tile.
    /// let err = Cpu::new()
    ///     .launch(quads, LaunchConfig::new(1, 65), (&input[..], &mut vec![0.0; 65]))
    ///     .unwrap_err();
    /// assert!(err.to_string().contains("Stage::get_array: index 256 is out of bounds"), "{err}");
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "ld.shared.v4")]
    pub fn get_array<const K: usize>(&self, index: usize) -> [A::Elem; K] {
        let site = site!();
        if index >= A::TILE || A::TILE - index < K {
            let first_outside = if index >= A::TILE { index } else { A::TILE };
            Target::index_out_of_bounds(
                c"Stage::get_array",
                core::ptr::null(),
                first_outside,
                A::TILE,
                site,
            );
        }
        let e = self.stage * A::TILE as u32 + index as u32;
        let size = core::mem::size_of::<A::Elem>() as u32;
        let bytes = size * K as u32;
        // A swizzle moves whole 16-byte chunks, so a run of 8 or 16 bytes
        // aligned to its size stays together; any other run is read an
        // element at a time from where each element went.
        let together = (bytes == 8 || bytes == 16) && (e * size).is_multiple_of(bytes);
        if <A::Tile as TileArray>::SWIZZLE == 0 || together {
            Target::shared_load_array(self.base, swizzled_element::<A::Tile>(e), site)
        } else {
            core::array::from_fn(|k| self.load_element(e + k as u32, site))
        }
    }

    /// Element `e` (row-major) of the tile, from where the copy engine put
    /// it (swizzled, for a [`Swizzled`](crate::memory::tile::Swizzled) tile).
    #[inline(always)]
    fn load_element(&self, e: u32, site: Site) -> A::Elem {
        let at = swizzled_element::<A::Tile>(self.stage * A::TILE as u32 + e);
        Target::shared_load(self.base, at, site)
    }

    /// The element at `index` of the tile, outermost first (`[row,
    /// column]` for a 2-D tile; a `usize` for a 1-D one); panics outside
    /// it.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::memory::pipeline::Pipeline;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Transposes an 8 x 8 block through a 2-D stage.
    /// #[kernel]
    /// pub fn transpose8(block: ThreadBlock, input: &[u32], out: Out<u32>,
    ///                   ring: Pipeline<[[[u32; 8]; 8]; 1]>) {
    ///     let mut stages = ring.start(&block);
    ///     stages.load(&block, &input[..64]);
    ///     let tile = stages.next(&block);
    ///     let t = block.thread_rank() as usize;
    ///     out.write(t, tile.at([t % 8, t / 8]));
    /// }
    ///
    /// let input: Vec<u32> = (0..64).collect();
    /// let mut out = vec![0u32; 64];
    /// Cpu::new().launch(transpose8, LaunchConfig::new(1, 64), (&input[..], &mut out))?;
    /// assert_eq!(out[1], 8);
    /// assert_eq!(out[8], 1);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn at(&self, index: <A::Tile as TileArray>::Index) -> A::Elem {
        let site = site!();
        match <A::Tile as TileArray>::flat(index) {
            Some(i) => self.load_element(i as u32, site),
            None => {
                let cols = match <A::Tile as TileArray>::RANK {
                    1 => 0,
                    _ => <A::Tile as TileArray>::BOX[0] as usize,
                };
                Target::shared_index_out_of_bounds(index, A::TILE, cols, site)
            }
        }
    }

    /// Stores the tile's first `len` elements into `out[at .. at + len]`:
    /// every thread the stage is lent to calls it with the same buffer,
    /// `at` and `len`, and the stage is released once the store has read
    /// it. On sm_90, when the tile was landed by the copy engine (a bulk
    /// or tensor load) and `out[at]` lies on 16 bytes, one thread hands the
    /// run's whole 16-byte chunks to the bulk-copy engine
    /// (`cp.async.bulk.global.shared::cta`), so they go from shared to
    /// global memory without passing through a register, and the threads
    /// store the few elements after the last chunk; otherwise (a tile the
    /// threads copied, `CopyEngine::Threads`, a warp-specialized
    /// pipeline's consumers, a GPU before sm_90) the threads store every
    /// element. Either way the writes land by the end of the launch.
    /// `len` larger than the tile, or a run past the end of `out`, is
    /// refused at the call, naming it.
    ///
    /// On an H200, a copy whose tiles of 4 KiB go both ways by the engine
    /// streams at 0.96 of the driver's device-to-device copy (chapter 7 of
    /// the guide).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::memory::pipeline::Pipeline;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Copies `input` to `output` in tiles of 256, two in flight, the
    /// /// last tile partial.
    /// #[kernel]
    /// pub fn relay(block: ThreadBlock, input: &[u32], output: Out<u32>,
    ///              ring: Pipeline<[[u32; 256]; 2]>) {
    ///     let mut stages = ring.start(&block);
    ///     let part = |k: usize| &input[k * 256..((k + 1) * 256).min(input.len())];
    ///     let tiles = input.len().div_ceil(256);
    ///     let mut loaded = 0;
    ///     for k in 0..tiles {
    ///         while loaded < tiles && !stages.is_full() {
    ///             stages.load(&block, part(loaded));
    ///             loaded += 1;
    ///         }
    ///         stages.next(&block).store(&block, &output, k * 256, part(k).len());
    ///     }
    /// }
    ///
    /// let input: Vec<u32> = (0..1001).map(|i| i * 3).collect();
    /// let mut output = vec![0u32; 1001];
    /// Cpu::new().launch(relay, LaunchConfig::new(1, 64), (&input[..], &mut output))?;
    /// assert_eq!(output, input);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn store(mut self, _block: &ThreadBlock, out: &Out<A::Elem>, at: usize, len: usize)
    where
        A::Tile: PlainTile,
    {
        let site = site!();
        let elem = core::mem::size_of::<A::Elem>();
        if len > A::TILE {
            Target::check_failed(
                c"Stage::store: `len` is larger than the stage's tile; a stage holds TILE elements",
                site,
            );
        }
        if at > out.len() || out.len() - at < len {
            Target::index_out_of_bounds(
                c"Stage::store",
                out.as_mut_ptr() as *const u8,
                at.saturating_add(len.max(1) - 1),
                out.len(),
                site,
            );
        }
        let offset = Stages::<A>::tile_offset(self.stage);
        // The engine's part: whole 16-byte chunks from an engine-landed
        // tile to a 16-byte boundary of the buffer.
        #[cfg(target_arch = "nvptx64")]
        let aligned = (out.as_mut_ptr().wrapping_add(at) as usize).is_multiple_of(16);
        #[cfg(not(target_arch = "nvptx64"))]
        let aligned = (at * elem).is_multiple_of(16);
        let chunks = if Target::BULK
            && self.engine
            && aligned
            && offset.is_multiple_of(16)
            && 16usize.is_multiple_of(elem)
        {
            (len * elem) / 16 * 16
        } else {
            0
        };
        if chunks > 0 && self.issuer {
            Target::bulk_store(
                self.base,
                offset,
                out.as_mut_ptr() as *mut u8,
                at,
                chunks as u32,
                elem as u32,
                site,
            );
            self.stored = true;
        }
        let mut i = chunks / elem + self.rank as usize;
        while i < len {
            out.write(at + i, self.load_element(i as u32, site));
            i += self.threads as usize;
        }
    }

    /// Stores the tile into `out`'s array at element coordinates `at`
    /// (outermost first), through the copy engine (TMA,
    /// `cp.async.bulk.tensor` from shared to global memory, sm_90): every
    /// thread of the block calls it with the same map and coordinates, one
    /// thread issues the store. Elements of the tile past the array's far
    /// edges are not written; a store cannot start before the array (no
    /// negative coordinate), and its innermost coordinate must be a
    /// multiple of 16 bytes, as for loads: the copy engine faults otherwise,
    /// so coop refuses both at the call, naming the rule. Releasing the stage waits until the copy engine has
    /// read it (`cp.async.bulk.wait_group.read`), so the next load into the
    /// stage cannot overwrite a tile still being stored; the writes to
    /// global memory land by the end of the launch. The tile moves from
    /// global to global memory without passing through a register.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::memory::pipeline::Pipeline;
    /// use coop::memory::tensor::{TensorMap, TensorOut};
    /// use coop_host::{Cpu, LaunchConfig, TensorMap as HostMap, TensorMapMut};
    ///
    /// /// Copies a 50 x 40 matrix in tiles of 8 x 16, one tile a block.
    /// #[kernel]
    /// pub fn copy_tiles(block: ThreadBlock, src: TensorMap<[[u32; 16]; 8]>,
    ///                   dst: TensorOut<[[u32; 16]; 8]>, ring: Pipeline<[[[u32; 16]; 8]; 1]>) {
    ///     let mut stages = ring.start(&block);
    ///     let b = block.group_index();
    ///     let at = [8 * b.y as i32, 16 * b.x as i32];
    ///     stages.load_tensor(&block, &src, at);
    ///     stages.next(&block).store_tensor(&block, &dst, at);
    /// }
    ///
    /// let input: Vec<u32> = (0..2000).collect();
    /// let mut output = vec![0u32; 2000];
    /// let src = HostMap::<[[u32; 16]; 8]>::cpu(&input, [50, 40])?;
    /// let dst = TensorMapMut::<[[u32; 16]; 8]>::cpu(&mut output, [50, 40])?;
    /// Cpu::new().launch(copy_tiles, LaunchConfig::new((3, 7), 32), (&src, &dst))?;
    /// drop(dst);
    /// assert_eq!(output, input);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn store_tensor(
        mut self,
        _block: &ThreadBlock,
        out: &TensorOut<A::Tile>,
        at: <A::Tile as TileArray>::Coords,
    ) where
        A::Elem: TensorElem,
    {
        let site = site!();
        check_tensor_out::<A::Tile>(TensorOutCall::StageStore, at, site);
        if self.issuer {
            if out.word.first_use() {
                Target::tensor_map_acquire(out.word.data(), site);
            }
            Target::tensor_store(
                self.base,
                Stages::<A>::tile_offset(self.stage),
                out.word.data(),
                <A::Tile as TileArray>::inner_first(at),
                <A::Tile as TileArray>::RANK as u32,
                site,
            );
            self.stored = true;
        }
    }

    /// Combines the tile into `out`'s array at element coordinates `at`
    /// with `op`, element by element, through the copy engine (a bulk
    /// tensor reduction, `cp.reduce.async.bulk.tensor`, sm_90): each
    /// element of the array becomes `op(element, tile's element)`,
    /// atomically, so tiles of several blocks may land on the same
    /// elements. Every thread of the block calls it with the same map,
    /// coordinates and operator; one thread issues it. The operators and
    /// element types the copy engine combines are [`TensorReduce`]'s; the
    /// coordinates follow [`store_tensor`](Self::store_tensor)'s rules, and
    /// releasing the stage waits until the copy engine has read it, as
    /// there.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::memory::pipeline::Pipeline;
    /// use coop::memory::tensor::{TensorMap, TensorOut};
    /// use coop_host::{Cpu, LaunchConfig, TensorMap as HostMap, TensorMapMut};
    ///
    /// /// Adds every 8 x 16 tile of a 32 x 64 matrix into one 8 x 16 sum.
    /// #[kernel]
    /// pub fn tile_total(block: ThreadBlock, src: TensorMap<[[f32; 16]; 8]>,
    ///                   total: TensorOut<[[f32; 16]; 8]>, ring: Pipeline<[[[f32; 16]; 8]; 1]>) {
    ///     let mut stages = ring.start(&block);
    ///     let b = block.group_index();
    ///     stages.load_tensor(&block, &src, [8 * b.y as i32, 16 * b.x as i32]);
    ///     stages.next(&block).reduce_tensor(&block, &total, [0, 0], op::Sum);
    /// }
    ///
    /// let input: Vec<f32> = (0..32 * 64).map(|i| (i % 5) as f32).collect();
    /// let mut sum = vec![0f32; 8 * 16];
    /// let src = HostMap::<[[f32; 16]; 8]>::cpu(&input, [32, 64])?;
    /// let dst = TensorMapMut::<[[f32; 16]; 8]>::cpu(&mut sum, [8, 16])?;
    /// Cpu::new().launch(tile_total, LaunchConfig::new((4, 4), 32), (&src, &dst))?;
    /// drop(dst);
    /// let expected: f32 = (0..16).map(|t| input[(t / 4 * 8) * 64 + t % 4 * 16]).sum();
    /// assert_eq!(sum[0], expected); // element [0, 0] of each of the 16 tiles
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn reduce_tensor<O: TensorReduce<A::Elem>>(
        mut self,
        _block: &ThreadBlock,
        out: &TensorOut<A::Tile>,
        at: <A::Tile as TileArray>::Coords,
        op: O,
    ) where
        A::Elem: TensorElem,
    {
        let site = site!();
        // The operator is a type: its value carries nothing.
        let _ = op;
        check_tensor_out::<A::Tile>(TensorOutCall::StageReduce, at, site);
        if self.issuer {
            if out.word.first_use() {
                Target::tensor_map_acquire(out.word.data(), site);
            }
            Target::tensor_reduce(
                self.base,
                Stages::<A>::tile_offset(self.stage),
                out.word.data(),
                <A::Tile as TileArray>::inner_first(at),
                <A::Tile as TileArray>::RANK as u32,
                O::OP,
                O::combine_element,
                site,
            );
            self.stored = true;
        }
    }

    /// Elements in a tile (`TILE`).
    #[inline(always)]
    pub const fn len(&self) -> usize {
        A::TILE
    }

    /// Whether a tile has no elements.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        A::TILE == 0
    }

    /// Gives the stage back to the pipeline (as dropping it does).
    #[inline(always)]
    #[track_caller]
    pub fn release(self) {
        drop(self)
    }
}

impl<A: StageArray> Drop for Stage<'_, A> {
    #[inline(always)]
    #[track_caller]
    fn drop(&mut self) {
        if self.stored {
            // The copy engine has read the tile before anything refills it.
            Target::tensor_stores_read(site!());
        }
        // Every thread's reads of the stage are done when the barrier's
        // phase completes (the arrival releases them).
        Target::barrier_arrive(self.base, Stages::<A>::empty(self.stage), site!());
        *self.tail += 1;
    }
}
