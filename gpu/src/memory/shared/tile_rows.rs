//! [`TileRow`]: a row of a 2-D shared array that one tile of the block
//! fills by asynchronous copies and reads on its own, with the tile's
//! barrier instead of the block's (CUDA's `cooperative_groups::memcpy_async`
//! and `wait` called with a `thread_block_tile`).
//!
//! [`Shared::tile_row`] (or [`Published::tile_row`], after a block barrier
//! that ends every thread's reading) splits a `Shared<[[E; C]; R]>` by
//! rows: the block's tile `k` of `N` threads (ranks `k N .. k N + N`) gets
//! row `k`, and each thread holds its own tile's row only;
//! [`Shared::tile_slice`] cuts a one-dimensional array (`[E; L]`, or `[E]`
//! sized at launch) into parts of a length given at run time the same way.
//! The row then
//! goes through the phases a block's array goes through, with the tile as
//! the group:
//!
//! 1. [`TileRow::copy_async`] starts the tile's threads copying a slice of
//!    a kernel buffer into the row and returns it in flight, a
//!    [`TileCopying`]: no reads, no second copy;
//! 2. [`TileCopying::wait`] (or [`wait_prior`](TileCopying::wait_prior))
//!    waits for the calling thread's copies and passes the tile's barrier,
//!    which returns the row [`TilePublished`]: every thread of the tile
//!    reads any element of it;
//! 3. [`TilePublished::copy_async`] passes the tile's barrier again (every
//!    thread of the tile is done reading) and starts the next copy into the
//!    row; [`TilePublished::join`] passes a block barrier and returns the
//!    whole array [`Published`] to the block.
//!
//! The tiles never wait for each other: a warp that finishes its row goes
//! on to its next one while the others still copy. On the GPU a copy is
//! the block's: 16-byte chunks (8 or 4 where the source or the row is
//! less aligned) by `cp.async`, dealt to the tile's threads in turn, and the
//! source's last partial chunk and the zeros by ordinary stores; the wait
//! is `cp.async.wait_group` and the tile's barrier (`bar.warp.sync` for a
//! tile of up to 32 threads, a named barrier for a multi-warp tile). The
//! CPU backend lands each thread's copies at its wait and checks every
//! access of the row against the tile's barriers.

use super::copying::issue_group;
use super::phase::Published;
use super::{RawShared, Region, Shared, SharedArray, SharedElem};
use crate::backend::target::Target;
use crate::backend::{AsyncCopies, Faults, SharedMemory, Site, site};
use crate::groups::tile::{AnyTileSize, TileSize};
use crate::{ThreadBlock, TiledPartition};
use core::marker::PhantomData;

/// The calling thread's tile's row of a shared array `[[E; C]; R]`, with
/// no copy in flight and nothing in it the tile may read yet; see the
/// [module](self).
///
/// ```
/// use coop::prelude::*;
/// use coop::shared::Shared;
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// Each warp stages its own run of 64 values in its row and writes the
/// /// run reversed; the warps never wait for each other.
/// #[kernel]
/// pub fn reverse_runs(block: ThreadBlock, input: &[u32], out: Out<u32>,
///                     rows: Shared<[[u32; 64]; 4]>) {
///     let warp = block.tiled_partition::<32>();
///     let run = block.group_index().x as usize * 4 + block.thread_rank() as usize / 32;
///     let start = (run * 64).min(input.len());
///     let end = (start + 64).min(input.len());
///     let row = rows.tile_row(&block, &warp).copy_async(&warp, &input[start..end]);
///     // ... the warp's other work overlaps the copy ...
///     let row = row.wait(&warp);
///     let mut k = warp.thread_rank() as usize;
///     while start + k < end {
///         out.write(start + k, row.get(end - start - 1 - k));
///         k += 32;
///     }
/// }
///
/// let input: Vec<u32> = (0..1000).collect();
/// let mut out = vec![0u32; 1000];
/// Cpu::new().launch(reverse_runs, LaunchConfig::new(4, 128), (&input[..], &mut out))?;
/// assert_eq!(&out[..3], &[63, 62, 61]);
/// assert_eq!(&out[960..963], &[999, 998, 997]); // the last run is partial
/// # Ok::<(), coop_host::Error>(())
/// ```
#[must_use = "a tile's row does nothing until the tile copies into it: call `.copy_async(&tile, src)`"]
pub struct TileRow<A: ?Sized, const N: u32> {
    row: RowAt,
    _array: PhantomData<*const A>,
}

/// The calling thread's tile's row while an asynchronous copy fills it:
/// nothing reads it and no copy starts into it before
/// [`wait`](Self::wait) returns it [`TilePublished`]. See the
/// [module](self).
#[must_use = "the copy must be waited for before the row is used: call `.wait(&tile)`"]
pub struct TileCopying<A: ?Sized, const N: u32> {
    row: RowAt,
    /// The copy's group of each thread (the CPU backend's number; 0 on a
    /// GPU).
    group: u32,
    _array: PhantomData<*const A>,
}

/// The calling thread's tile's row after its copy landed and the tile
/// passed its barrier: every thread of the tile reads any element of it,
/// nobody writes. See the [module](self).
pub struct TilePublished<A: ?Sized, const N: u32> {
    row: RowAt,
    _array: PhantomData<*const A>,
}

/// A row: the whole array, and where the row starts in it.
#[derive(Clone, Copy)]
struct RowAt {
    array: Region,
    /// The row's first element, counted from the array's start.
    first: u32,
    /// Elements in the row.
    len: usize,
}

impl<E: SharedElem, const C: usize, const R: usize> Shared<[[E; C]; R]> {
    /// The row of the calling thread's tile: tile `k` of the block's tiles
    /// of `N` threads (the threads of ranks `k N` to `k N + N - 1`, as
    /// [`tiled_partition`](crate::ThreadBlock::tiled_partition) cuts them)
    /// gets row `k`. Every thread of the block calls it with a tile of the
    /// same size; the array needs a row for each tile (`R` at least the
    /// block's threads over `N`): a thread whose tile has no row stops the
    /// kernel, naming the call. No barrier: nothing has touched the array
    /// yet. See [`TileRow`] for an example.
    #[inline(always)]
    #[track_caller]
    pub fn tile_row<const N: u32>(
        self,
        block: &ThreadBlock,
        tile: &TiledPartition<N>,
    ) -> TileRow<[[E; C]; R], N>
    where
        TileSize<N>: AnyTileSize,
    {
        let _ = tile;
        TileRow::at(self.region, block, C, R, site!())
    }
}

impl<E: SharedElem, const C: usize, const R: usize> Published<[[E; C]; R]> {
    /// A block barrier (every thread's reads of the array are done), then
    /// [`Shared::tile_row`]: the tiles refill their rows.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::Shared;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Tiles of 16 copy a row each; the block reads every row (a value
    /// /// from the next tile's row), then the tiles copy the next rows in.
    /// #[kernel]
    /// pub fn two_rounds(block: ThreadBlock, input: &[u32], out: Out<u32>,
    ///                   rows: Shared<[[u32; 16]; 4]>) {
    ///     let tile = block.tiled_partition::<16>();
    ///     let t = block.thread_rank() as usize;
    ///     let k = t / 16;
    ///     let mut sum = 0;
    ///     let mut all = rows
    ///         .tile_row(&block, &tile)
    ///         .copy_async(&tile, &input[k * 16..k * 16 + 16])
    ///         .wait(&tile)
    ///         .join(&block);
    ///     sum += all.get(((k + 1) % 4, t % 16));
    ///     all = all
    ///         .tile_row(&block, &tile)
    ///         .copy_async(&tile, &input[64 + k * 16..64 + k * 16 + 16])
    ///         .wait(&tile)
    ///         .join(&block);
    ///     sum += all.get(((k + 1) % 4, t % 16));
    ///     out.write(t, sum);
    /// }
    ///
    /// let input: Vec<u32> = (0..128).collect();
    /// let mut out = vec![0u32; 64];
    /// Cpu::new().launch(two_rounds, LaunchConfig::new(1, 64), (&input[..], &mut out))?;
    /// assert_eq!(out[0], 16 + 80);
    /// assert_eq!(out[63], 15 + 79);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn tile_row<const N: u32>(
        self,
        block: &ThreadBlock,
        tile: &TiledPartition<N>,
    ) -> TileRow<[[E; C]; R], N>
    where
        TileSize<N>: AnyTileSize,
    {
        let _ = tile;
        let site = site!();
        block.sync_named("tile_row", site);
        TileRow::at(self.region(), block, C, R, site)
    }
}

impl<A: SharedArray<Index = usize> + ?Sized> Shared<A> {
    /// The part of a one-dimensional array (`[E; L]`, or `[E]` sized at
    /// launch) that belongs to the calling thread's tile: tile `k` of the
    /// block's tiles of `N` threads gets the `len` elements from `k len`,
    /// as a [`TileRow`]. Every thread of the block calls it with a tile of
    /// the same size and the same `len`; the array must hold `len` elements
    /// for each tile (a thread whose part would end past the array stops
    /// the kernel, naming the call). No barrier: nothing has touched the
    /// array yet.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::Shared;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Dynamic shared memory, `len` elements a warp: each warp stages
    /// /// its run and writes it shifted by one within the run.
    /// #[kernel]
    /// pub fn rotate_runs(block: ThreadBlock, input: &[u32], len: u32, out: Out<u32>,
    ///                    buf: Shared<[u32]>) {
    ///     let warp = block.tiled_partition::<32>();
    ///     let len = len as usize;
    ///     let run = block.thread_rank() as usize / 32;
    ///     let part = buf
    ///         .tile_slice(&block, &warp, len)
    ///         .copy_async(&warp, &input[run * len..run * len + len])
    ///         .wait(&warp);
    ///     let mut j = warp.thread_rank() as usize;
    ///     while j < len {
    ///         out.write(run * len + j, part.get((j + 1) % len));
    ///         j += 32;
    ///     }
    /// }
    ///
    /// let input: Vec<u32> = (0..200).collect();
    /// let mut out = vec![0u32; 200];
    /// let cfg = LaunchConfig::new(1, 64).with_shared_memory(200 * 4);
    /// Cpu::new().launch(rotate_runs, cfg, (&input[..], 100u32, &mut out))?;
    /// assert_eq!((out[0], out[99], out[100]), (1, 0, 101));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn tile_slice<const N: u32>(
        self,
        block: &ThreadBlock,
        tile: &TiledPartition<N>,
        len: usize,
    ) -> TileRow<A, N>
    where
        TileSize<N>: AnyTileSize,
    {
        let _ = tile;
        TileRow::part_at(self.region, block, len, site!())
    }
}

impl<A: SharedArray<Index = usize> + ?Sized> Published<A> {
    /// A block barrier (every thread's reads of the array are done), then
    /// [`Shared::tile_slice`]: the tiles refill their parts.
    #[inline(always)]
    #[track_caller]
    pub fn tile_slice<const N: u32>(
        self,
        block: &ThreadBlock,
        tile: &TiledPartition<N>,
        len: usize,
    ) -> TileRow<A, N>
    where
        TileSize<N>: AnyTileSize,
    {
        let _ = tile;
        let site = site!();
        block.sync_named("tile_slice", site);
        TileRow::part_at(self.region(), block, len, site)
    }
}

impl<A: SharedArray + ?Sized, const N: u32> TileRow<A, N>
where
    TileSize<N>: AnyTileSize,
{
    /// Part `k` of `len` elements of a one-dimensional array for the
    /// caller's tile `k`.
    #[inline(always)]
    fn part_at(array: Region, block: &ThreadBlock, len: usize, site: Site) -> Self {
        let parts = array.len.checked_div(len).unwrap_or(usize::MAX);
        Self::at(array, block, len, parts, site)
    }

    /// Row `k` of `cols` elements for the caller's tile `k`; `rows` rows
    /// fit in the array.
    #[inline(always)]
    fn at(array: Region, block: &ThreadBlock, cols: usize, rows: usize, site: Site) -> Self {
        let k = block.thread_rank() / N;
        if k as usize >= rows {
            if A::COLS == 0 {
                no_part(site)
            } else {
                no_row(site)
            }
        }
        TileRow {
            row: RowAt {
                array,
                first: k * cols as u32,
                len: cols,
            },
            _array: PhantomData,
        }
    }
}

impl<A: SharedArray + ?Sized, const N: u32> TileRow<A, N>
where
    TileSize<N>: AnyTileSize,
{
    /// Starts copying `src` into the row's first `src.len()` elements (at
    /// most the row's length; `src` longer stops the kernel, naming the
    /// call): every thread of the tile calls it with the same slice and
    /// takes its share of the chunks. The rest of the row is left as it
    /// was. Returns the row in flight; see [`TileRow`] for an example.
    #[inline(always)]
    #[track_caller]
    pub fn copy_async(self, tile: &TiledPartition<N>, src: &[A::Elem]) -> TileCopying<A, N> {
        start(self.row, tile, src, false, site!())
    }

    /// As [`copy_async`](Self::copy_async), with every element of the row
    /// past `src.len()` set to zero: a partial last run reads as zeros.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::Shared;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Each tile of 8 sums a run of up to 8 values (zeros past the end).
    /// #[kernel]
    /// pub fn run_sums(block: ThreadBlock, input: &[i32], out: Out<i32>,
    ///                 rows: Shared<[[i32; 8]; 4]>) {
    ///     let tile = block.tiled_partition::<8>();
    ///     let run = block.thread_rank() as usize / 8;
    ///     let start = (run * 8).min(input.len());
    ///     let end = (start + 8).min(input.len());
    ///     let row = rows
    ///         .tile_row(&block, &tile)
    ///         .copy_async_filled(&tile, &input[start..end])
    ///         .wait(&tile);
    ///     let sum = reduce(&tile, row.get(tile.thread_rank() as usize), op::Sum);
    ///     if tile.thread_rank() == 0 {
    ///         out.write(run, sum);
    ///     }
    /// }
    ///
    /// let input: Vec<i32> = (1..=20).collect();
    /// let mut out = vec![0i32; 4];
    /// Cpu::new().launch(run_sums, LaunchConfig::new(1, 32), (&input[..], &mut out))?;
    /// assert_eq!(out, [36, 100, 74, 0]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn copy_async_filled(self, tile: &TiledPartition<N>, src: &[A::Elem]) -> TileCopying<A, N> {
        start(self.row, tile, src, true, site!())
    }

    /// Elements in the row.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.row.len
    }

    /// Whether the row has no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.row.len == 0
    }
}

/// Issues the calling thread's share of a tile's copy and commits it.
#[inline(always)]
fn start<A: ?Sized, E: SharedElem, const N: u32>(
    row: RowAt,
    tile: &TiledPartition<N>,
    src: &[E],
    fill: bool,
    site: Site,
) -> TileCopying<A, N>
where
    TileSize<N>: AnyTileSize,
{
    if src.len() > row.len {
        too_long(site);
    }
    let group = issue_group(
        row.array.base,
        row.first,
        row.len,
        src,
        fill,
        (tile.thread_rank_at(site), N),
        site,
    );
    TileCopying {
        row,
        group,
        _array: PhantomData,
    }
}

#[cold]
#[inline(never)]
fn too_long(site: Site) -> ! {
    Target::check_failed(
        c"TileRow::copy_async: the source slice is longer than the row; copy at most the row's length",
        site,
    )
}

#[cold]
#[inline(never)]
fn no_part(site: Site) -> ! {
    Target::check_failed(
        c"tile_slice: the array is too short for a part of this length for each tile of the block; give it the part's length times the block's threads over the tile's size",
        site,
    )
}

#[cold]
#[inline(never)]
fn no_row(site: Site) -> ! {
    Target::check_failed(
        c"tile_row: the block has more tiles than the array has rows; give the array a row for each tile (R at least the block's threads over the tile's size)",
        site,
    )
}

/// What a [`TileCopying`] row lacks: the wait for its copy. Nothing
/// implements it; it exists for the error message.
#[diagnostic::on_unimplemented(
    message = "a tile's row that an asynchronous copy is filling cannot be read or copied into",
    label = "the copy may not have landed yet",
    note = "wait for the copy first: `.wait(&tile)` (or `.wait_prior::<K>(&tile)`) returns the row `TilePublished` once the copy has landed, after the tile's barrier",
    note = "the next copy into the row starts from that `TilePublished` row, with its `copy_async`"
)]
pub trait RowLanded {}

impl<A: ?Sized, const N: u32> TileCopying<A, N>
where
    TileSize<N>: AnyTileSize,
{
    /// Does not exist: the copy may not have landed. Calling it is a
    /// compile error that says so.
    ///
    /// ```compile_fail,E0277
    /// use coop::prelude::*;
    /// use coop::shared::Shared;
    ///
    /// #[kernel]
    /// pub fn too_early(block: ThreadBlock, input: &[u32], out: Out<u32>,
    ///                  rows: Shared<[[u32; 32]; 2]>) {
    ///     let warp = block.tiled_partition::<32>();
    ///     let row = rows.tile_row(&block, &warp).copy_async(&warp, &input[..32]);
    ///     out.write(0, row.get(0)); // error: the copy is in flight
    /// }
    /// ```
    #[doc(hidden)]
    pub fn get<E>(&self, _index: usize) -> E
    where
        Self: RowLanded,
    {
        unreachable!("`RowLanded` has no implementations")
    }

    /// Does not exist: another copy into the row must wait until this one
    /// has landed. Calling it is a compile error that says so.
    #[doc(hidden)]
    pub fn copy_async<E>(self, _tile: &TiledPartition<N>, _src: &[E]) -> TileCopying<A, N>
    where
        Self: RowLanded,
    {
        unreachable!("`RowLanded` has no implementations")
    }

    /// Waits until the calling thread's copies have landed, then passes the
    /// tile's barrier: every element of the row is then visible to every
    /// thread of the tile. Every thread of the tile calls it. PTX:
    /// `cp.async.wait_group 0`, then `bar.warp.sync` (a tile of up to 32
    /// threads) or the tile's named barrier.
    ///
    /// See [`TileRow`] for an example.
    #[inline(always)]
    #[track_caller]
    pub fn wait(self, tile: &TiledPartition<N>) -> TilePublished<A, N> {
        let site = site!();
        Target::wait_copies::<0>(Some(self.group), "TileCopying::wait", site);
        tile.sync_at(site);
        TilePublished {
            row: self.row,
            _array: PhantomData,
        }
    }

    /// Waits until this copy has landed, leaving in flight the `K` copies
    /// the calling thread started after it (at most eight, into other rows
    /// or arrays), then the tile's barrier: the next run loads while this
    /// one is used. Copies must be waited for in the order they were
    /// started: with fewer than `K` copies started after this one it would
    /// still be in flight, which the CPU backend reports. PTX:
    /// `cp.async.wait_group K`, then the tile's barrier.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::Shared;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Each warp adds up 4 runs of 32 through two rows that take turns:
    /// /// the next run lands while this one is added.
    /// #[kernel]
    /// pub fn warp_sums(block: ThreadBlock, input: &[u32], out: Out<u32>,
    ///                  a: Shared<[[u32; 32]; 2]>, b: Shared<[[u32; 32]; 2]>) {
    ///     let warp = block.tiled_partition::<32>();
    ///     let w = block.thread_rank() as usize / 32;
    ///     let run = |k: usize| &input[(w * 4 + k) * 32..(w * 4 + k + 1) * 32];
    ///     let lane = warp.thread_rank() as usize;
    ///     let first = a.tile_row(&block, &warp).copy_async(&warp, run(0));
    ///     let second = b.tile_row(&block, &warp).copy_async(&warp, run(1));
    ///     let a = first.wait_prior::<1>(&warp); // run 1 may still be landing
    ///     let mut sum = a.get(lane);
    ///     let third = a.copy_async(&warp, run(2)); // the warp's barrier, then the copy
    ///     let b = second.wait_prior::<1>(&warp);
    ///     sum += b.get(lane);
    ///     let fourth = b.copy_async(&warp, run(3));
    ///     sum += third.wait_prior::<1>(&warp).get(lane);
    ///     sum += fourth.wait(&warp).get(lane);
    ///     let total = reduce(&warp, sum, op::Sum);
    ///     if lane == 0 {
    ///         out.write(w, total);
    ///     }
    /// }
    ///
    /// let input: Vec<u32> = (0..256).collect();
    /// let mut out = vec![0u32; 2];
    /// Cpu::new().launch(warp_sums, LaunchConfig::new(1, 64), (&input[..], &mut out))?;
    /// assert_eq!(out, [(0..128).sum::<u32>(), (128..256).sum::<u32>()]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn wait_prior<const K: u32>(self, tile: &TiledPartition<N>) -> TilePublished<A, N> {
        const { assert!(K <= 8, "wait_prior::<K> keeps at most 8 copies in flight") };
        let site = site!();
        Target::wait_copies::<K>(Some(self.group), "TileCopying::wait_prior", site);
        tile.sync_at(site);
        TilePublished {
            row: self.row,
            _array: PhantomData,
        }
    }

    /// Elements in the row.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.row.len
    }

    /// Whether the row has no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.row.len == 0
    }
}

impl<A: SharedArray + ?Sized, const N: u32> TilePublished<A, N>
where
    TileSize<N>: AnyTileSize,
{
    /// Reads element `index` of the row (`index` below the row's length;
    /// past it stops the kernel, naming the call).
    ///
    /// See [`TileRow`] for an example.
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, index: usize) -> A::Elem {
        let site = site!();
        if index >= self.row.len {
            Target::shared_index_out_of_bounds(index, self.row.len, 0, site);
        }
        Target::shared_load(self.row.array.base, self.row.first + index as u32, site)
    }

    /// The tile's barrier (every thread of the tile is done reading the
    /// row), then [`TileRow::copy_async`]: the tile's next run into the
    /// same row. See [`TileCopying::wait_prior`] for an example.
    #[inline(always)]
    #[track_caller]
    pub fn copy_async(self, tile: &TiledPartition<N>, src: &[A::Elem]) -> TileCopying<A, N> {
        let site = site!();
        tile.sync_at(site);
        start(self.row, tile, src, false, site)
    }

    /// The tile's barrier, then [`TileRow::copy_async_filled`].
    #[inline(always)]
    #[track_caller]
    pub fn copy_async_filled(self, tile: &TiledPartition<N>, src: &[A::Elem]) -> TileCopying<A, N> {
        let site = site!();
        tile.sync_at(site);
        start(self.row, tile, src, true, site)
    }

    /// Gives up the phase checks for raw access to the whole array (see
    /// [`RawShared`]), for what the phases cannot express: a tile that
    /// rewrites its row in place, each thread its own elements, and reads
    /// its neighbours' after the tile's barrier. A 2-D array's raw indices
    /// are `(row, column)`; in a one-dimensional array (`tile_slice`) the
    /// calling thread's part starts at [`first`](Self::first). The CPU backend
    /// still checks every access against the tile's and the block's
    /// barriers.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::Shared;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Each warp doubles its row in place, then reads the next lane's value.
    /// #[kernel]
    /// pub fn doubled_neighbours(block: ThreadBlock, input: &[u32], out: Out<u32>,
    ///                           rows: Shared<[[u32; 32]; 2]>) {
    ///     let warp = block.tiled_partition::<32>();
    ///     let t = block.thread_rank() as usize;
    ///     let w = t / 32;
    ///     let row = rows
    ///         .tile_row(&block, &warp)
    ///         .copy_async(&warp, &input[w * 32..w * 32 + 32])
    ///         .wait(&warp);
    ///     let raw = row.into_raw();
    ///     let lane = warp.thread_rank() as usize;
    ///     // SAFETY: each lane reads and rewrites only its own element of
    ///     // its warp's row; the warp's barrier comes before any other read.
    ///     unsafe { raw.write((w, lane), 2 * raw.read((w, lane))) };
    ///     warp.sync();
    ///     // SAFETY: nobody writes the row after the barrier.
    ///     let next = unsafe { raw.read((w, (lane + 1) % 32)) };
    ///     out.write(t, next);
    /// }
    ///
    /// let input: Vec<u32> = (0..64).collect();
    /// let mut out = vec![0u32; 64];
    /// Cpu::new().launch(doubled_neighbours, LaunchConfig::new(1, 64), (&input[..], &mut out))?;
    /// assert_eq!((out[0], out[31], out[32]), (2, 0, 66));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn into_raw(self) -> RawShared<A> {
        RawShared::new(self.row.array)
    }

    /// The element of the array at which the calling thread's tile's row
    /// starts (counted from the array's first element, row by row).
    #[inline(always)]
    pub fn first(&self) -> usize {
        self.row.first as usize
    }

    /// A block barrier, after which every thread of the block reads every
    /// row: the whole array, [`Published`]. Every thread of the block calls
    /// it. See [`Published::tile_row`] for an example.
    #[inline(always)]
    #[track_caller]
    pub fn join(self, block: &ThreadBlock) -> Published<A> {
        block.sync_named("TilePublished::join", site!());
        Published::new(self.row.array)
    }

    /// Elements in the row.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.row.len
    }

    /// Whether the row has no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.row.len == 0
    }
}
