//! Device-wide selection as functions a kernel calls: the elements of an
//! input that pass a test, copied to the front of an output in their
//! order (stream compaction, CUB's `DeviceSelect`), or every element
//! partitioned, those that pass first in their order and the others after
//! them in reverse order (CUB's `DevicePartition`). The test is a
//! predicate of yours ([`select_if`]), a flag an element
//! ([`select_flagged`]), or "differs from the element before"
//! ([`unique`]: the first element of each run of equal ones). One launch,
//! one read of the input and one write of what is kept.
//!
//! `coop_host::select` runs the flagged and unique forms for the built-in
//! types; a kernel crate wraps [`select_if`] in a `#[kernel]` of this shape
//! for its own predicate, and `coop_host::select::Selector::if_with`
//! launches it:
//!
//! ```
//! use coop::prelude::*;
//! use coop::device::select::select_if;
//!
//! /// Keeps the readings inside the sensor's range.
//! #[kernel]
//! pub fn in_range(
//!     block: ThreadBlock,
//!     input: &[f32],
//!     output: Out<f32>,
//!     control: u32,
//!     selected: Out<u64>,
//!     status: Out<u64>,
//!     epoch: u32,
//! ) {
//!     select_if(block, input, output, |x: f32| (-40.0..=125.0).contains(&x), control, selected, status, epoch)
//! }
//! ```
//!
//! # How a tile is selected
//!
//! Block `b` takes tile `b`: `threads × items` consecutive elements, items
//! per thread from [`items_per_thread`] (16, at most 128 bytes of them).
//! Thread `t` tests its run of consecutive elements `t × items ..`, one
//! bit an element. A full tile of a 16-byte aligned primitive input whose
//! runs are at most 64 bytes (4-byte elements) loads each run straight
//! into registers, 16 bytes a load; a longer run (8-byte elements) arrives
//! in the launch's dynamic shared memory ([`shared_memory_bytes`]) by
//! `cp.async`, as a scan's tile does, and is read from there, once to be
//! tested and again after the scan, so that no register holds it
//! meanwhile (chapter 7 of the guide has the figures for both ways).
//! The runs' counts are scanned across the block (shuffles, then the
//! warps' totals), and warp 0 learns how many elements the tiles before
//! kept by decoupled look-back over their counts
//! ([`look_back`](crate::device::look_back), 64-bit counts in two status
//! words a tile). Each thread then places its run in shared memory, the
//! kept elements at their rank among the tile's kept ones and the others
//! from the tile's end backwards (every element goes somewhere, so no
//! lane branches on its own test), and after a barrier the block stores
//! the kept ones (for a partition, all of them, the others to the
//! output's end in reverse order) with consecutive threads on
//! consecutive elements. The last tile stores the number kept in
//! `selected[0]`. Types that are not staged (sizes that are not whole
//! 32-bit words, runs that are not whole 16-byte chunks) read and write
//! their runs directly in global memory.
//!
//! # The parameters
//!
//! `output` holds at least as many elements as `input` (a partition
//! writes all of them); `selected` at least one; `status` two `u64`s a
//! tile ([`status_len`]), with `epoch` in `1..2^30` changed on every call,
//! as for a scan. `control` is 0 to select, [`PARTITION`] to partition. A
//! launch without [`shared_memory_bytes`] of dynamic shared memory stops
//! with a message that says so.

use crate::backend::Site;
use crate::collectives;
use crate::device::arguments::holds;
use crate::device::blocked::{MAX_ITEMS, each_item, items_within, load_run};
use crate::device::look_back::{look_back, status_words};
use crate::device::staging::{Staging, bytes_per_thread};
use crate::kernel::KernelParam;
use crate::op::Sum;
use crate::{Out, Shuffle, ThreadBlock, this_grid};

/// The control word of a partition: kept elements first in their order,
/// the others after them in reverse order; 0 selects.
pub const PARTITION: u32 = 1;

/// Whether a full, aligned tile of `T` loads its runs straight into
/// registers (a thread's own run, 16 bytes a load) rather than through
/// shared memory by `cp.async`: runs of at most 64 bytes. Longer runs
/// would be held in registers across the block's scan; chapter 7 of the
/// guide has the figures for both on each type.
const fn loads_direct<T>() -> bool {
    items_per_thread::<T>() * core::mem::size_of::<T>() <= 64
}

/// Most items a thread tests: 16 (at most [`MAX_ITEMS`]).
const ITEMS: usize = 16;
/// Most bytes of items a thread tests (a staged run is at most 128).
const THREAD_BYTES: usize = 128;

/// Items each thread of a selection tests, for elements of `T`: 16, or as
/// many as fit in 128 bytes (at least 1).
///
/// ```
/// use coop::device::select::items_per_thread;
/// assert_eq!(items_per_thread::<u32>(), 16);
/// assert_eq!(items_per_thread::<f64>(), 16);
/// assert_eq!(items_per_thread::<u8>(), 16);
/// assert_eq!(items_per_thread::<[u64; 2]>(), 8);
/// assert_eq!(items_per_thread::<[u64; 32]>(), 1);
/// ```
pub const fn items_per_thread<T>() -> usize {
    items_within(core::mem::size_of::<T>(), ITEMS, THREAD_BYTES)
}

/// Tiles of a selection of `len` elements of `T` by blocks of `threads`:
/// the grid a launch needs (at least 1).
///
/// ```
/// use coop::device::select::{items_per_thread, tiles};
/// assert_eq!(tiles::<u32>(256 * items_per_thread::<u32>() + 1, 256), 2);
/// assert_eq!(tiles::<u32>(0, 256), 1);
/// ```
pub const fn tiles<T>(len: usize, threads: u32) -> usize {
    let tile = threads as usize * items_per_thread::<T>();
    let n = len.div_ceil(tile);
    if n == 0 { 1 } else { n }
}

/// Bytes of dynamic shared memory a selection's launch over elements of
/// `T` needs for blocks of `threads`: the block's tile, where a thread's
/// run is a whole number of 16-byte chunks (0 otherwise: such runs are
/// not staged).
///
/// ```
/// use coop::device::select::shared_memory_bytes;
/// assert_eq!(shared_memory_bytes::<u32>(256), 256 * 64);
/// assert_eq!(shared_memory_bytes::<f64>(256), 256 * 128);
/// assert_eq!(shared_memory_bytes::<[u8; 24]>(256), 0);
/// ```
pub const fn shared_memory_bytes<T>(threads: u32) -> u32 {
    let run = items_per_thread::<T>() * core::mem::size_of::<T>();
    if run.is_multiple_of(16) && run <= 128 {
        (threads as usize * run) as u32
    } else {
        0
    }
}

/// `u64` status words a selection of `len` elements of `T` by blocks of
/// `threads` needs: two a tile (its 64-bit count).
///
/// ```
/// use coop::device::select::{status_len, tiles};
/// assert_eq!(status_len::<f32>(1 << 20, 256), 2 * tiles::<f32>(1 << 20, 256));
/// ```
pub const fn status_len<T>(len: usize, threads: u32) -> usize {
    status_words::<u64>() * tiles::<T>(len, threads)
}

/// What a selection kernel says when its launch gave too little dynamic
/// shared memory for the tile.
const STAGING_TOO_SMALL: &core::ffi::CStr = c"device_select: the launch's dynamic shared memory is smaller than the block's tile: launch with `coop::device::select::shared_memory_bytes::<T>(threads)` bytes of it (`coop_host::select::Selector` does)";

/// Copies the elements of `input` for which `keep` is true to the front of
/// `output`, in their order, and stores how many in `selected[0]`; with
/// [`PARTITION`] in `control`, writes the others after them in reverse
/// order. See the [module docs](self) for the parameters.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::select::{select_if, shared_memory_bytes, status_len, tiles};
///
/// #[kernel]
/// pub fn evens(block: ThreadBlock, input: &[u32], output: Out<u32>, control: u32,
///              selected: Out<u64>, status: Out<u64>, epoch: u32) {
///     select_if(block, input, output, |x: u32| x % 2 == 0, control, selected, status, epoch)
/// }
///
/// let input: Vec<u32> = (0..10_000).collect();
/// let mut output = vec![0u32; input.len()];
/// let mut selected = [0u64];
/// let mut status = vec![0u64; status_len::<u32>(input.len(), 128)];
/// let config = coop_host::LaunchConfig::new(tiles::<u32>(input.len(), 128) as u32, 128)
///     .with_shared_memory(shared_memory_bytes::<u32>(128));
/// coop_host::Cpu::new().launch(evens, config, (&input, &mut output, 0, &mut selected[..], &mut status, 1))?;
/// assert_eq!(selected[0], 5000);
/// assert!(output[..5000].iter().copied().eq((0..10_000).step_by(2)));
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "DeviceSelect::If")]
#[doc(alias = "DevicePartition::If")]
#[doc(alias = "stream_compaction")]
pub fn select_if<T: Shuffle>(
    block: ThreadBlock,
    input: &[T],
    output: Out<T>,
    keep: impl Fn(T) -> bool,
    control: u32,
    selected: Out<u64>,
    status: Out<u64>,
    epoch: u32,
) {
    let site = core::panic::Location::caller();
    run(
        &block,
        input,
        &output,
        KeepIf(keep),
        control,
        &selected,
        &status,
        epoch,
        site,
    )
}

/// [`select_if`] with `flags[i]` as the test of `input[i]` (`flags` at
/// least as long as `input`).
///
/// ```
/// use coop::prelude::*;
/// use coop::device::select::{select_flagged, shared_memory_bytes, status_len, tiles};
///
/// #[kernel]
/// pub fn flagged(block: ThreadBlock, input: &[i64], flags: &[bool], output: Out<i64>,
///                control: u32, selected: Out<u64>, status: Out<u64>, epoch: u32) {
///     select_flagged(block, input, flags, output, control, selected, status, epoch)
/// }
///
/// let input = [5i64, -2, 7, 0, 3];
/// let flags = [true, false, true, false, false];
/// let mut output = [0i64; 5];
/// let mut selected = [0u64];
/// let mut status = vec![0u64; status_len::<i64>(5, 64)];
/// let config = coop_host::LaunchConfig::new(1, 64).with_shared_memory(shared_memory_bytes::<i64>(64));
/// coop_host::Cpu::new().launch(flagged, config,
///     (&input[..], &flags[..], &mut output[..], coop::device::select::PARTITION, &mut selected[..], &mut status, 1))?;
/// assert_eq!(selected[0], 2);
/// assert_eq!(output, [5, 7, 3, 0, -2]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "DeviceSelect::Flagged")]
#[doc(alias = "DevicePartition::Flagged")]
pub fn select_flagged<T: Shuffle>(
    block: ThreadBlock,
    input: &[T],
    flags: &[bool],
    output: Out<T>,
    control: u32,
    selected: Out<u64>,
    status: Out<u64>,
    epoch: u32,
) {
    let site = core::panic::Location::caller();
    holds(
        c"device_select: the flags (one an element of the input)",
        flags.as_ptr() as *const u8,
        flags.len(),
        input.len(),
        site,
    );
    run(
        &block,
        input,
        &output,
        Flagged(flags),
        control,
        &selected,
        &status,
        epoch,
        site,
    )
}

/// [`select_if`] keeping the first element of each run of equal elements
/// (`input[i]` is kept where `i` is 0 or `input[i] != input[i - 1]`):
/// CUB's `DeviceSelect::Unique`, duplicates removed from sorted input.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::select::{unique, shared_memory_bytes, status_len, tiles};
///
/// #[kernel]
/// pub fn dedup(block: ThreadBlock, input: &[u32], output: Out<u32>, control: u32,
///              selected: Out<u64>, status: Out<u64>, epoch: u32) {
///     unique(block, input, output, control, selected, status, epoch)
/// }
///
/// let input = [1u32, 1, 2, 2, 2, 3, 1, 1];
/// let mut output = [0u32; 8];
/// let mut selected = [0u64];
/// let mut status = vec![0u64; status_len::<u32>(8, 32)];
/// let config = coop_host::LaunchConfig::new(1, 32).with_shared_memory(shared_memory_bytes::<u32>(32));
/// coop_host::Cpu::new().launch(dedup, config, (&input[..], &mut output[..], 0, &mut selected[..], &mut status, 1))?;
/// assert_eq!(&output[..selected[0] as usize], [1, 2, 3, 1]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "DeviceSelect::Unique")]
pub fn unique<T: Shuffle + PartialEq>(
    block: ThreadBlock,
    input: &[T],
    output: Out<T>,
    control: u32,
    selected: Out<u64>,
    status: Out<u64>,
    epoch: u32,
) {
    let site = core::panic::Location::caller();
    run(
        &block, input, &output, Unique, control, &selected, &status, epoch, site,
    )
}

/// How a selection tests a thread's run of elements.
trait Test<T> {
    /// Whether the test needs the element before each run.
    const NEEDS_BEFORE: bool;
    /// One bit an element of `x[..valid]`: element `i` of the run is
    /// `input[index + i]`; `before` is the element before the run (when
    /// [`NEEDS_BEFORE`](Self::NEEDS_BEFORE) and `index > 0`).
    fn mask(
        &self,
        x: &[T; MAX_ITEMS],
        items: usize,
        valid: usize,
        index: usize,
        before: Option<T>,
    ) -> u32;
}

struct KeepIf<P>(P);

impl<T: Copy, P: Fn(T) -> bool> Test<T> for KeepIf<P> {
    const NEEDS_BEFORE: bool = false;
    #[inline(always)]
    fn mask(&self, x: &[T; MAX_ITEMS], items: usize, valid: usize, _: usize, _: Option<T>) -> u32 {
        let mut mask = 0;
        let mut i = 0;
        while i < items {
            if i < valid && (self.0)(x[i]) {
                mask |= 1 << i;
            }
            i += 1;
        }
        mask
    }
}

struct Flagged<'a>(&'a [bool]);

impl<T: Copy> Test<T> for Flagged<'_> {
    const NEEDS_BEFORE: bool = false;
    #[inline(always)]
    fn mask(
        &self,
        _: &[T; MAX_ITEMS],
        items: usize,
        valid: usize,
        index: usize,
        _: Option<T>,
    ) -> u32 {
        let mut mask = 0;
        let mut i = 0;
        while i < items {
            // SAFETY: `index + i` is an element of the input, whose length
            // the flags' was checked against.
            if i < valid && unsafe { *self.0.get_unchecked(index + i) } {
                mask |= 1 << i;
            }
            i += 1;
        }
        mask
    }
}

struct Unique;

impl<T: Copy + PartialEq> Test<T> for Unique {
    const NEEDS_BEFORE: bool = true;
    #[inline(always)]
    fn mask(
        &self,
        x: &[T; MAX_ITEMS],
        items: usize,
        valid: usize,
        _: usize,
        before: Option<T>,
    ) -> u32 {
        let mut mask = 0;
        let mut i = 0;
        while i < items {
            let differs = if i == 0 {
                before.is_none_or(|b| b != x[0])
            } else {
                x[i] != x[i - 1]
            };
            if i < valid && differs {
                mask |= 1 << i;
            }
            i += 1;
        }
        mask
    }
}

/// A `partials` view for the look-back over counts, which travel in their
/// status words and never touch it.
#[inline(always)]
pub(crate) fn no_partials<'a>() -> Out<'a, u64> {
    // SAFETY: an empty view: no element of it is ever read or written.
    unsafe { Out::from_abi(core::ptr::NonNull::<u64>::dangling().as_ptr(), 0) }
}

/// The selection of this block's tile with `test`; see the module docs.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run<T: Shuffle, X: Test<T>>(
    block: &ThreadBlock,
    input: &[T],
    output: &Out<T>,
    test: X,
    control: u32,
    selected: &Out<u64>,
    status: &Out<u64>,
    epoch: u32,
    site: Site,
) {
    let len = input.len();
    holds(
        c"device_select: the output (at least as long as the input)",
        output.as_mut_ptr() as *const u8,
        output.len(),
        len,
        site,
    );
    holds(
        c"device_select: `selected` (one element, the count kept)",
        selected.as_mut_ptr() as *const u8,
        selected.len(),
        1,
        site,
    );
    let partition = control & PARTITION != 0;
    let items = items_per_thread::<T>();
    let threads = block.num_threads() as usize;
    let tile_len = threads * items;
    let tile = this_grid().block_rank();
    let t = block.thread_rank() as usize;
    let first = tile * tile_len;
    if first >= len {
        // An empty input's one tile (or a grid larger than the input):
        // nothing to select, and the count is 0 when the input is empty.
        if tile == 0 && t == 0 {
            selected.write(0, 0);
        }
        return;
    }
    let full = first + tile_len <= len;
    let valid = if full { tile_len } else { len - first };
    let last = first + tile_len >= len;
    let staged = bytes_per_thread::<T>(items) > 0;
    let run_first = t * items;
    // Elements of this thread's run below the end of the input.
    let run_valid = valid.saturating_sub(run_first).min(items);
    let vector = (input.as_ptr() as usize).is_multiple_of(16);
    // A full, aligned tile of short runs is loaded straight into
    // registers (16-byte loads, a thread's own run), the staging kept for
    // placing the kept elements.
    let direct = loads_direct::<T>() && staged && full && vector;
    let staging = if staged {
        let staging = Staging::<T>::bind(block, items, STAGING_TOO_SMALL, site);
        if direct {
            // Loaded below, into registers.
        } else if full && vector {
            // SAFETY: a full tile lies inside `input`, whose start is
            // 16-byte aligned, as is the tile's (a whole number of 16-byte
            // chunks from the start).
            staging.copy_in(block, unsafe { input.as_ptr().add(first) }, site);
        } else {
            staging.store_each(
                block,
                |e| input[first + if e < valid { e } else { 0 }],
                site,
            );
        }
        Some(staging)
    } else {
        None
    };
    // Loaded while the tile is on its way: any element, to fill the
    // run's array, and the element before the tile for a test that
    // compares with it.
    let filler = input[first];
    let tile_before = if X::NEEDS_BEFORE && t == 0 && first > 0 {
        Some(input[first - 1])
    } else {
        None
    };
    let mut x = [filler; MAX_ITEMS];
    match &staging {
        // SAFETY: a full tile's run lies inside `input`, 16-byte aligned
        // (as the tile is), a whole number of 16-byte chunks.
        Some(_) if direct => unsafe {
            load_run(input.as_ptr().add(first + run_first), items, &mut x)
        },
        Some(staging) => {
            staging.landed(block, "select", site);
            staging.read_run(block, &mut x, site);
        }
        None => each_item!(i < items => {
            if i < run_valid {
                x[i] = input[first + run_first + i];
            }
        }),
    }
    // The element before the run: the last of the lane before's run
    // (a shuffle) where the runs are in registers, else from the staging
    // or the input.
    let warp = block.tiled_partition_at::<32>(site);
    let lane = warp.thread_rank_at(site);
    let from_lane_before = if X::NEEDS_BEFORE && direct {
        Some(warp.shfl_up_at(x[items - 1], 1, site))
    } else {
        None
    };
    let before = if X::NEEDS_BEFORE && first + run_first > 0 && run_valid > 0 {
        Some(match (&staging, tile_before, from_lane_before) {
            (_, Some(before), _) => before,
            (_, None, Some(before)) if lane > 0 => before,
            (Some(staging), None, _) if !direct => staging.load_at(run_first - 1, filler, site),
            _ => input[first + run_first - 1],
        })
    } else {
        None
    };
    let mask = test.mask(&x, items, run_valid, first + run_first, before);
    // The runs' counts scanned across the block, the tiles' before it by
    // look-back: `local` elements of the tile before this run are kept,
    // `prefix` elements of the input before the tile.
    let count = mask.count_ones();
    // Within the block in 32 bits (a tile holds fewer elements), across
    // tiles in 64.
    let inclusive = collectives::warp_inclusive_scan(&warp, count, Sum, site);
    let within = warp.shfl_up_at(inclusive, 1, site);
    let within = if lane == 0 { 0 } else { within };
    let partials = no_partials();
    let (before_warp, prefix, kept) = collectives::prefix_of_warps(
        block,
        &warp,
        inclusive as u64,
        31,
        Sum,
        "select",
        site,
        |warp, total| look_back(warp, tile, total, Sum, status, &partials, epoch),
    );
    let local = (before_warp - prefix) as usize + within as usize;
    let kept = kept as usize;
    let prefix = prefix as usize;
    // Elements of the input before the tile that were not kept.
    let rejected_before = first - prefix;
    if last && t == 0 {
        selected.write(0, (prefix + kept) as u64);
    }
    // A staged run is read again rather than held in registers across
    // the scan and the look-back (as the scan's runs are): fewer
    // registers, more blocks a multiprocessor. Every thread has read it
    // before any writes the staging again.
    match &staging {
        Some(staging) if !direct => {
            staging.read_run(block, &mut x, site);
            block.sync_named("select", site);
        }
        _ => {}
    }
    // Where each element of the run goes: kept ones at their rank among
    // the tile's kept ones, the others from the end backwards (in shared
    // memory every element goes somewhere, so that no lane branches on
    // its own flag; only a partition writes the others out). Written out
    // item by item (`each_item!`), so that the run stays in registers.
    match &staging {
        Some(staging) => each_item!(i < items => {
            if i < run_valid {
                let before_it = (mask & ((1u32 << i) - 1)).count_ones() as usize;
                let at = if mask & (1 << i) != 0 {
                    local + before_it
                } else {
                    valid - 1 - (run_first + i - local - before_it)
                };
                staging.store_linear(at, x[i], site);
            }
        }),
        None => each_item!(i < items => {
            if i < run_valid {
                let before_it = (mask & ((1u32 << i) - 1)).count_ones() as usize;
                if mask & (1 << i) != 0 {
                    // SAFETY: `prefix + local + before_it` counts kept
                    // elements before this one, fewer than `len`, which
                    // `output` holds (checked above).
                    unsafe { output.write_in_bounds(prefix + local + before_it, x[i]) };
                } else if partition {
                    let rejected = run_first + i - local - before_it;
                    let at = len - 1 - (rejected_before + rejected);
                    // SAFETY: `rejected_before + rejected` counts rejected
                    // elements before this one, fewer than `len`.
                    unsafe { output.write_in_bounds(at, x[i]) };
                }
            }
        }),
    }
    if let Some(staging) = staging {
        // The tile was read (runs, and the elements before them) before
        // the scan's barriers; now its kept elements are in place, the
        // staging read as a plain array.
        block.sync_named("select", site);
        let out_len = if partition { valid } else { kept };
        // Consecutive threads store consecutive elements.
        let mut e = t;
        while e < out_len {
            let v = staging.load_linear(e, filler, site);
            let at = if e < kept {
                prefix + e
            } else {
                len - 1 - (rejected_before + (valid - 1 - e))
            };
            // SAFETY: as for the direct writes above: kept ranks and
            // rejected ranks are below `len`.
            unsafe { output.write_in_bounds(at, v) };
            e += threads;
        }
    }
}
