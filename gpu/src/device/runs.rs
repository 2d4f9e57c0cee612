//! Runs of equal keys as functions a kernel calls: one result per run of
//! consecutive equal keys, the run's values combined with an
//! [`Operator`] ([`reduce_by_key`], CUB's `DeviceReduce::ReduceByKey`), or
//! counted ([`run_length_encode`], CUB's `DeviceRunLengthEncode::Encode`).
//! The keys need not be sorted: each run of equal neighbours is its own
//! run (sort first to get one result per distinct key). One launch, one
//! read of the keys and values, one write a run.
//!
//! `coop_host::runs` runs them for the built-in types; a kernel crate
//! wraps [`reduce_by_key`] in a `#[kernel]` of this shape for its own
//! types and operators:
//!
//! ```
//! use coop::prelude::*;
//! use coop::device::runs::{reduce_by_key, RunTotal};
//!
//! /// The largest reading of each run of one sensor's readings.
//! #[kernel]
//! pub fn peak_by_sensor(
//!     block: ThreadBlock,
//!     keys: &[u32],
//!     values: &[f32],
//!     keys_out: Out<u32>,
//!     values_out: Out<f32>,
//!     runs: Out<u64>,
//!     status: Out<u64>,
//!     partials: Out<RunTotal<f32>>,
//!     epoch: u32,
//! ) {
//!     reduce_by_key(block, keys, values, keys_out, values_out, op::Max, runs, status, partials, epoch)
//! }
//! ```
//!
//! # How a tile is reduced
//!
//! Block `b` takes tile `b`: `threads ×` [`ITEMS`] consecutive elements.
//! Thread `t` walks its run of [`ITEMS`] keys and values; an element
//! starts a run where it is the first of the input or its key differs from
//! the one before. The thread's elements fold into a [`RunTotal`]: how
//! many runs started in them, and the combined values since the last
//! start. Those totals are scanned across the block with the segmented
//! operator ([`Segmented`]: a total with a start in it replaces the value
//! before it, one without combines with it), and warp 0 learns the total
//! of the tiles before by decoupled look-back over the same operator
//! ([`look_back`](crate::device::look_back); a total is more than two
//! words, so it travels in `partials`, written before a release store of
//! its status word and read after an acquire load). Each thread then
//! walks its run again with what came before it in front: where the next
//! element starts a run (or the input ends), the run that ends here is
//! complete, and the thread writes its key and value at the run's rank.
//! The thread holding the input's last element stores the number of runs
//! in `runs[0]`.
//!
//! Values combine in input order, so an operator that is not commutative
//! gives the ordered result. Where a run spans tiles its floating-point
//! result can differ in the last bits from call to call (where each
//! tile's look-back stopped decides the grouping of its additions), as
//! CUB's does.
//!
//! # The parameters
//!
//! `values` is at least as long as `keys`; `keys_out` and `values_out`
//! hold at least as many elements as `keys` (there are at most that many
//! runs); `runs` at least one; `status` one `u64` a tile ([`tiles`]) and
//! `partials` two [`RunTotal`]s a tile, with `epoch` in `1..2^30`
//! changed on every call, as for a scan.

use crate::backend::target::Target;
use crate::backend::{Faults, Site};
use crate::collectives;
use crate::device::look_back::look_back;
use crate::op::Operator;
use crate::{this_grid, Out, Shuffle, ThreadBlock};

/// Elements each thread walks.
pub const ITEMS: usize = 8;

/// Tiles of a call over `len` elements by blocks of `threads`: the grid a
/// launch needs (at least 1).
///
/// ```
/// use coop::device::runs::{tiles, ITEMS};
/// assert_eq!(tiles(256 * ITEMS + 1, 256), 2);
/// assert_eq!(tiles(0, 256), 1);
/// ```
pub const fn tiles(len: usize, threads: u32) -> usize {
    let n = len.div_ceil(threads as usize * ITEMS);
    if n == 0 {
        1
    } else {
        n
    }
}

/// How many runs started in a stretch of elements, and the combined
/// values of the last run in it since its start (of the whole stretch when
/// none started): what a tile publishes to the tiles after it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RunTotal<V> {
    /// The combined values since the last start.
    pub value: V,
    /// Runs started, low word first.
    starts: [u32; 2],
}

impl<V> RunTotal<V> {
    /// `starts` runs started, and `value` since the last.
    #[inline(always)]
    pub const fn new(starts: u64, value: V) -> Self {
        RunTotal {
            value,
            starts: [starts as u32, (starts >> 32) as u32],
        }
    }

    /// Runs started.
    #[inline(always)]
    pub const fn starts(&self) -> u64 {
        self.starts[0] as u64 | (self.starts[1] as u64) << 32
    }
}

// SAFETY: the value's words, then the count's two words, each rebuilt by
// a sound `Shuffle` impl; no padding is read (the fields move one by one).
unsafe impl<V: Shuffle> Shuffle for RunTotal<V> {
    const WORDS: usize = V::WORDS + 2;
    #[inline(always)]
    fn map_words(self, mut f: impl FnMut(u32) -> u32) -> Self {
        let value = self.value.map_words(&mut f);
        let lo = f(self.starts[0]);
        let hi = f(self.starts[1]);
        RunTotal {
            value,
            starts: [lo, hi],
        }
    }
}

/// The segmented form of `O` over [`RunTotal`]s: `a` then `b` is `b`'s
/// starts added to `a`'s, and `b`'s value if a run started in `b`, else
/// `a`'s value combined with `b`'s. Associative where `O` is; never
/// commutative.
#[derive(Clone, Copy, Debug)]
pub struct Segmented<O>(pub O);

impl<V: Copy, O: Operator<V>> Operator<RunTotal<V>> for Segmented<O> {
    const COMMUTATIVE: bool = false;
    #[inline(always)]
    fn combine(&self, a: RunTotal<V>, b: RunTotal<V>) -> RunTotal<V> {
        let value = if b.starts() > 0 {
            b.value
        } else {
            self.0.combine(a.value, b.value)
        };
        RunTotal::new(a.starts() + b.starts(), value)
    }
    #[inline(always)]
    fn identity(&self) -> RunTotal<V> {
        RunTotal::new(0, self.0.identity())
    }
}

/// Writes the key and the combined values of each run of equal keys of
/// `keys` (values from `values`, combined with `op` in order) to
/// `keys_out[r]` and `values_out[r]` for the `r`-th run, and the number of
/// runs to `runs[0]`. See the [module docs](self) for the parameters.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::runs::{reduce_by_key, tiles, RunTotal};
///
/// #[kernel]
/// pub fn sums_by_key(block: ThreadBlock, keys: &[u32], values: &[i64], keys_out: Out<u32>,
///                    values_out: Out<i64>, runs: Out<u64>, status: Out<u64>,
///                    partials: Out<RunTotal<i64>>, epoch: u32) {
///     reduce_by_key(block, keys, values, keys_out, values_out, op::Sum, runs, status, partials, epoch)
/// }
///
/// let keys = [7u32, 7, 3, 3, 3, 7, 1];
/// let values = [1i64, 2, 10, 20, 30, 5, -1];
/// let (mut keys_out, mut values_out, mut runs) = ([0u32; 7], [0i64; 7], [0u64]);
/// let mut status = vec![0u64; tiles(7, 32)];
/// let mut partials = vec![RunTotal::new(0, 0i64); 2 * tiles(7, 32)];
/// coop_host::Cpu::new().launch(sums_by_key, coop_host::LaunchConfig::new(1, 32),
///     (&keys[..], &values[..], &mut keys_out[..], &mut values_out[..], &mut runs[..],
///      &mut status, &mut partials, 1))?;
/// assert_eq!(runs[0], 4);
/// assert_eq!((&keys_out[..4], &values_out[..4]), (&[7, 3, 7, 1][..], &[3, 60, 5, -1][..]));
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "DeviceReduce::ReduceByKey")]
#[doc(alias = "ReduceByKey")]
pub fn reduce_by_key<K: Shuffle + PartialEq, V: Shuffle, O: Operator<V>>(
    block: ThreadBlock,
    keys: &[K],
    values: &[V],
    keys_out: Out<K>,
    values_out: Out<V>,
    op: O,
    runs: Out<u64>,
    status: Out<u64>,
    partials: Out<RunTotal<V>>,
    epoch: u32,
) {
    let site = core::panic::Location::caller();
    if values.len() < keys.len() {
        Target::index_out_of_bounds(
            c"device_runs: the values (one a key)",
            values.as_ptr() as *const u8,
            keys.len() - 1,
            values.len(),
            site,
        );
    }
    run(
        &block,
        keys,
        // SAFETY: `i` is below the keys' length, which the values' was
        // checked against.
        |i| unsafe { *values.get_unchecked(i) },
        &keys_out,
        &values_out,
        op,
        &runs,
        &status,
        &partials,
        epoch,
        site,
    )
}

/// Writes the key and the length of each run of equal keys of `keys` to
/// `keys_out[r]` and `lengths_out[r]` for the `r`-th run, and the number
/// of runs to `runs[0]` (CUB's `DeviceRunLengthEncode::Encode`); as
/// [`reduce_by_key`] of ones with a sum otherwise.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::runs::{run_length_encode, tiles, RunTotal};
///
/// #[kernel]
/// pub fn encode(block: ThreadBlock, keys: &[u8], keys_out: Out<u8>, lengths_out: Out<u32>,
///               runs: Out<u64>, status: Out<u64>, partials: Out<RunTotal<u32>>, epoch: u32) {
///     run_length_encode(block, keys, keys_out, lengths_out, runs, status, partials, epoch)
/// }
///
/// let keys = b"aaabccddddx";
/// let (mut keys_out, mut lengths, mut runs) = ([0u8; 11], [0u32; 11], [0u64]);
/// let mut status = vec![0u64; tiles(11, 32)];
/// let mut partials = vec![RunTotal::new(0, 0u32); 2 * tiles(11, 32)];
/// coop_host::Cpu::new().launch(encode, coop_host::LaunchConfig::new(1, 32),
///     (&keys[..], &mut keys_out[..], &mut lengths[..], &mut runs[..], &mut status, &mut partials, 1))?;
/// assert_eq!(runs[0], 5);
/// assert_eq!((&keys_out[..5], &lengths[..5]), (&b"abcdx"[..], &[3, 1, 2, 4, 1][..]));
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "DeviceRunLengthEncode::Encode")]
pub fn run_length_encode<K: Shuffle + PartialEq>(
    block: ThreadBlock,
    keys: &[K],
    keys_out: Out<K>,
    lengths_out: Out<u32>,
    runs: Out<u64>,
    status: Out<u64>,
    partials: Out<RunTotal<u32>>,
    epoch: u32,
) {
    let site = core::panic::Location::caller();
    run(
        &block,
        keys,
        |_| 1u32,
        &keys_out,
        &lengths_out,
        crate::op::Sum,
        &runs,
        &status,
        &partials,
        epoch,
        site,
    )
}

/// Faults (at `site`) unless `out` holds `len` elements.
#[inline(always)]
fn fits<T: Copy>(out: &Out<T>, len: usize, what: &'static core::ffi::CStr, site: Site) {
    if out.len() < len {
        Target::index_out_of_bounds(
            what,
            out.as_mut_ptr() as *const u8,
            len - 1,
            out.len(),
            site,
        );
    }
}

/// This block's tile of a reduce-by-key; see the module docs.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run<K: Shuffle + PartialEq, V: Shuffle, O: Operator<V>>(
    block: &ThreadBlock,
    keys: &[K],
    value: impl Fn(usize) -> V,
    keys_out: &Out<K>,
    values_out: &Out<V>,
    op: O,
    runs: &Out<u64>,
    status: &Out<u64>,
    partials: &Out<RunTotal<V>>,
    epoch: u32,
    site: Site,
) {
    let len = keys.len();
    fits(
        keys_out,
        len,
        c"device_runs: the keys' output (as long as the keys)",
        site,
    );
    fits(
        values_out,
        len,
        c"device_runs: the results' output (as long as the keys)",
        site,
    );
    fits(
        runs,
        1,
        c"device_runs: `runs` (one element, the number of runs)",
        site,
    );
    let threads = block.num_threads() as usize;
    let tile_len = threads * ITEMS;
    let tile = this_grid().block_rank();
    let t = block.thread_rank() as usize;
    let first = tile * tile_len;
    if first >= len {
        if tile == 0 && t == 0 {
            runs.write(0, 0);
        }
        return;
    }
    let start = first + t * ITEMS;
    // Elements of this thread's run below the end of the input.
    let valid = len.saturating_sub(start).min(ITEMS);
    let seg = Segmented(op);
    // The thread's keys and values, whether each starts a run, and their
    // total.
    let filler = keys[first];
    let mut k = [filler; ITEMS];
    let mut v = [op.identity(); ITEMS];
    let mut i = 0;
    while i < ITEMS {
        if i < valid {
            // SAFETY: `start + i < len`.
            k[i] = unsafe { *keys.get_unchecked(start + i) };
            v[i] = value(start + i);
        }
        i += 1;
    }
    let before = if valid > 0 && start > 0 {
        // SAFETY: `start - 1 < len`.
        Some(unsafe { *keys.get_unchecked(start - 1) })
    } else {
        None
    };
    let mut starts = 0u32;
    let mut total = op.identity();
    let mut i = 0;
    while i < ITEMS {
        if i < valid {
            let head = if i == 0 {
                before.is_none_or(|b| b != k[0])
            } else {
                k[i] != k[i - 1]
            };
            if head {
                starts |= 1 << i;
                total = v[i];
            } else {
                total = op.combine(total, v[i]);
            }
        }
        i += 1;
    }
    let mine = RunTotal::new(starts.count_ones() as u64, total);
    let warp = block.tiled_partition_at::<32>(site);
    let lane = warp.thread_rank_at(site);
    let inclusive = collectives::warp_inclusive_scan(&warp, mine, seg, site);
    let within = warp.shfl_up_at(inclusive, 1, site);
    let within = if lane == 0 { seg.identity() } else { within };
    let (before_warp, _, _) = collectives::prefix_of_warps(
        block,
        &warp,
        inclusive,
        31,
        seg,
        "reduce_by_key",
        site,
        |warp, total| look_back(warp, tile, total, seg, status, partials, epoch),
    );
    // What comes before this thread's first element, then each element in
    // turn; a run ends where the next element starts one.
    let mut running = seg.combine(before_warp, within);
    let next = if start + ITEMS < len && valid == ITEMS {
        // SAFETY: below `len`.
        Some(unsafe { *keys.get_unchecked(start + ITEMS) })
    } else {
        None
    };
    let mut i = 0;
    while i < ITEMS {
        if i < valid {
            running = if starts & (1 << i) != 0 {
                RunTotal::new(running.starts() + 1, v[i])
            } else {
                RunTotal::new(running.starts(), op.combine(running.value, v[i]))
            };
            let ends = if i + 1 < valid {
                starts & (1 << (i + 1)) != 0
            } else {
                next.is_none_or(|n| n != k[i])
            };
            if ends {
                let r = running.starts() as usize - 1;
                // SAFETY: `r` counts the runs that started before this
                // element's, fewer than `len`, which both outputs hold
                // (checked above).
                unsafe {
                    keys_out.write_in_bounds(r, k[i]);
                    values_out.write_in_bounds(r, running.value);
                }
                if start + i + 1 == len {
                    runs.write(0, running.starts());
                }
            }
        }
        i += 1;
    }
}
