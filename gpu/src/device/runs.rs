//! Runs of equal keys as functions a kernel calls: one result per run of
//! consecutive equal keys, the run's values combined with an
//! [`Operator`] ([`reduce_by_key`], CUB's `DeviceReduce::ReduceByKey`), or
//! counted ([`run_length_encode`], CUB's `DeviceRunLengthEncode::Encode`);
//! or each element's scan within its run ([`scan_by_key`], CUB's
//! `DeviceScan::InclusiveScanByKey` and `ExclusiveScanByKey`: a segmented
//! scan, a key an element naming its segment).
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
//! Block `b` takes tile `b`: `threads ×` [`items_per_thread`] consecutive
//! elements (16 for keys and values of up to 4 bytes, 8 for 8-byte ones).
//! Thread `t` holds its run of consecutive keys and values in registers
//! (16 bytes a load where the buffers allow, CUB's "direct" blocked load);
//! an element starts a run where it is the first of the input or its key
//! differs from the one before (the key before a thread's run comes from
//! the lane before by a shuffle). The thread's elements fold into a
//! [`RunTotal`]: how many runs started in them, and the combined values
//! since the last start. Those totals are scanned across the block with
//! the segmented operator ([`Segmented`]: a total with a start in it
//! replaces the value before it, one without combines with it), counts in
//! 32 bits inside the block, one barrier. Each thread then walks its run
//! again with what the tile holds before it in front: where the next
//! element starts a run (or the input ends), the run that ends here is
//! complete, and the thread places its key and result at the run's rank
//! among the tile's runs in the launch's dynamic shared memory
//! ([`shared_memory_bytes`]). Warp 0, after its own walk and while the
//! other warps walk theirs, learns the total of the tiles before by
//! decoupled look-back over the same operator
//! ([`look_back`](crate::device::look_back), 64-bit counts; a total of up
//! to four 32-bit words travels in its status words, one a word, larger
//! ones in `partials`, written before a release store of the status word
//! and read after an acquire load). After a second barrier the block
//! stores the tile's runs with consecutive threads on consecutive runs
//! (CUB's two-phase scatter), the first run (the one the tile continues
//! from the tiles before, if it ends here) with the look-back's values in
//! front. Thread 0 of the input's last tile stores the number of runs in
//! `runs[0]`. Every tile but the input's last runs a body that tests no
//! item against the input's end.
//!
//! Values combine in input order, so an operator that is not commutative
//! gives the ordered result. Where a run spans tiles its floating-point
//! result can differ in the last bits from call to call (where each
//! tile's look-back stopped decides the grouping of its additions), as
//! CUB's does; [`reduce_by_key_in_order`] and [`scan_by_key_in_order`]
//! fold the tiles in tile order instead, for results with the same bits
//! on every call, every GPU and the CPU backend.
//!
//! # The parameters
//!
//! `values` is at least as long as `keys`; `keys_out` and `values_out`
//! hold at least as many elements as `keys` (there are at most that many
//! runs); `runs` at least one; `status` [`status_len`] `u64`s and
//! `partials` [`partials_len`] [`RunTotal`]s (none where a total travels
//! in its status words), with `epoch` in `1..2^30` changed on every call,
//! as for a scan. The launch has [`tiles`] blocks and
//! [`shared_memory_bytes`] of dynamic shared memory; one without them
//! stops with a message that says so.

use crate::backend::Site;
use crate::collectives;
use crate::device::arguments::holds;
use crate::device::blocked::{MAX_ITEMS, each_item, items_within, load_run, loads_by_chunks};
use crate::device::look_back::{look_back_over, packed_status_words};
use crate::device::staging::SharedWords;
use crate::op::Operator;
use crate::{Out, Shuffle, ThreadBlock, this_grid};

/// Most words of a [`RunTotal`] that travel in its tile's status words.
const PACK: usize = 4;

/// Most items a thread walks.
const ITEMS: usize = 16;

/// Most bytes of keys (and of values) a thread holds.
const RUN_BYTES: usize = 64;

/// Items each thread walks for keys of `K` and values of `V`: 16, or as
/// many as fit in 64 bytes of the larger (at least 1).
///
/// ```
/// use coop::device::runs::items_per_thread;
/// assert_eq!(items_per_thread::<u32, f32>(), 16);
/// assert_eq!(items_per_thread::<u8, u32>(), 16);
/// assert_eq!(items_per_thread::<u32, f64>(), 8);
/// assert_eq!(items_per_thread::<u64, [f64; 16]>(), 1);
/// ```
pub const fn items_per_thread<K, V>() -> usize {
    let k = core::mem::size_of::<K>();
    let v = core::mem::size_of::<V>();
    items_within(if k > v { k } else { v }, ITEMS, RUN_BYTES)
}

/// Tiles of a call over `len` keys of `K` (values of `V`) by blocks of
/// `threads`: the grid a launch needs (at least 1).
///
/// ```
/// use coop::device::runs::{items_per_thread, tiles};
/// assert_eq!(tiles::<u32, f32>(256 * items_per_thread::<u32, f32>() + 1, 256), 2);
/// assert_eq!(tiles::<u32, f32>(0, 256), 1);
/// ```
pub const fn tiles<K, V>(len: usize, threads: u32) -> usize {
    let n = len.div_ceil(threads as usize * items_per_thread::<K, V>());
    if n == 0 { 1 } else { n }
}

/// `u64` status words a call over `len` keys of `K` (values of `V`) by
/// blocks of `threads` needs: one a word of [`RunTotal<V>`] a tile where
/// the total is at most four words (values of one or two words), else
/// one a tile.
///
/// ```
/// use coop::device::runs::{status_len, tiles};
/// assert_eq!(status_len::<u32, f32>(1 << 20, 256), 3 * tiles::<u32, f32>(1 << 20, 256));
/// assert_eq!(status_len::<u32, f64>(1 << 20, 256), 4 * tiles::<u32, f64>(1 << 20, 256));
/// assert_eq!(status_len::<u32, [f64; 2]>(1 << 20, 256), tiles::<u32, [f64; 2]>(1 << 20, 256));
/// ```
pub const fn status_len<K, V: Shuffle>(len: usize, threads: u32) -> usize {
    packed_status_words::<RunTotal<V>>(PACK) * tiles::<K, V>(len, threads)
}

/// [`RunTotal`]s a call over `len` keys of `K` (values of `V`) by blocks
/// of `threads` needs in `partials`: none where a tile's total travels in
/// its status words ([`status_len`]), else two a tile.
///
/// ```
/// use coop::device::runs::{partials_len, tiles};
/// assert_eq!(partials_len::<u32, f64>(1 << 20, 256), 0);
/// assert_eq!(partials_len::<u32, [f64; 2]>(1 << 20, 256), 2 * tiles::<u32, [f64; 2]>(1 << 20, 256));
/// ```
pub const fn partials_len<K, V: Shuffle>(len: usize, threads: u32) -> usize {
    if RunTotal::<V>::WORDS <= PACK {
        0
    } else {
        2 * tiles::<K, V>(len, threads)
    }
}

/// Bytes of dynamic shared memory a launch over keys of `K` and values
/// of `V` needs for blocks of `threads`: a key and a result for each run
/// that can end in the tile, and two words (a scan by key stages its
/// results there).
///
/// ```
/// use coop::device::runs::shared_memory_bytes;
/// assert_eq!(shared_memory_bytes::<u32, f32>(256), 8 + (256 * 16 + 1) * 8);
/// assert_eq!(shared_memory_bytes::<u64, f64>(256), 8 + (256 * 8 + 1) * 16);
/// ```
pub const fn shared_memory_bytes<K: Shuffle, V: Shuffle>(threads: u32) -> u32 {
    let slots = threads as usize * items_per_thread::<K, V>() + 1;
    // At least a word a key: a scan by key stages the tile's results,
    // with a word of padding every 32, where the keys would go.
    let k = if K::WORDS == 0 { 1 } else { K::WORDS };
    (4 * (2 + slots * (k + V::WORDS))) as u32
}

/// What a runs kernel says when its launch gave too little dynamic shared
/// memory.
const SHARED_TOO_SMALL: &core::ffi::CStr = c"device_runs: the launch's dynamic shared memory is smaller than the tile's runs: launch with `coop::device::runs::shared_memory_bytes::<K, V>(threads)` bytes of it (`coop_host::runs::RunReducer` does)";

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

/// A [`RunTotal`] inside one tile, whose runs a 32-bit count holds: what
/// the block's scan shuffles.
#[derive(Clone, Copy)]
struct Local<V> {
    value: V,
    starts: u32,
}

// SAFETY: the value's words, then the count's word, each rebuilt by a
// sound `Shuffle` impl.
unsafe impl<V: Shuffle> Shuffle for Local<V> {
    const WORDS: usize = V::WORDS + 1;
    #[inline(always)]
    fn map_words(self, mut f: impl FnMut(u32) -> u32) -> Self {
        let value = self.value.map_words(&mut f);
        let starts = f(self.starts);
        Local { value, starts }
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

impl<V: Copy, O: Operator<V>> Operator<Local<V>> for Segmented<O> {
    const COMMUTATIVE: bool = false;
    #[inline(always)]
    fn combine(&self, a: Local<V>, b: Local<V>) -> Local<V> {
        let value = if b.starts > 0 {
            b.value
        } else {
            self.0.combine(a.value, b.value)
        };
        Local {
            value,
            starts: a.starts + b.starts,
        }
    }
    #[inline(always)]
    fn identity(&self) -> Local<V> {
        Local {
            value: self.0.identity(),
            starts: 0,
        }
    }
}

/// Writes the key and the combined values of each run of equal keys of
/// `keys` (values from `values`, combined with `op` in order) to
/// `keys_out[r]` and `values_out[r]` for the `r`-th run, and the number of
/// runs to `runs[0]`. See the [module docs](self) for the parameters.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::runs::{partials_len, reduce_by_key, shared_memory_bytes, status_len, tiles, RunTotal};
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
/// let mut status = vec![0u64; status_len::<u32, i64>(7, 32)];
/// let mut partials = vec![RunTotal::new(0, 0i64); partials_len::<u32, i64>(7, 32)];
/// let config = coop_host::LaunchConfig::new(tiles::<u32, i64>(7, 32) as u32, 32)
///     .with_shared_memory(shared_memory_bytes::<u32, i64>(32));
/// coop_host::Cpu::new().launch(sums_by_key, config,
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
    reduce_by_key_as::<K, V, O, false>(
        block,
        keys,
        values,
        keys_out,
        values_out,
        op,
        runs,
        status,
        partials,
        epoch,
        core::panic::Location::caller(),
    )
}

/// [`reduce_by_key`] whose results have the same bits whatever the
/// timing: each tile's look-back combines the tiles before it one after
/// another in tile order
/// ([`look_back_in_order`](crate::device::look_back::look_back_in_order)),
/// so that a run's result is the left fold of its tiles' partial results,
/// the same on every GPU and on the CPU backend for the same block size.
/// For float sums, whose last bits depend on the grouping of the
/// additions (CUB's reduce-by-key has no such mode). Its parameters and
/// launch are [`reduce_by_key`]'s; a look-back that walks forward again
/// costs some speed where runs span many tiles.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::runs::{partials_len, reduce_by_key_in_order, shared_memory_bytes, status_len, tiles, RunTotal};
///
/// #[kernel]
/// pub fn sums_by_day(block: ThreadBlock, days: &[u32], amounts: &[f32], days_out: Out<u32>,
///                    sums_out: Out<f32>, runs: Out<u64>, status: Out<u64>,
///                    partials: Out<RunTotal<f32>>, epoch: u32) {
///     reduce_by_key_in_order(block, days, amounts, days_out, sums_out, op::Sum, runs, status, partials, epoch)
/// }
///
/// // One long run and a short one, over many tiles of 64 threads.
/// let n = 40_000;
/// let days: Vec<u32> = (0..n).map(|i| if i < n - 10 { 1 } else { 2 }).collect();
/// let amounts: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 * 1e-3).collect();
/// let (threads, cpu) = (64, coop_host::Cpu::new());
/// let config = coop_host::LaunchConfig::new(tiles::<u32, f32>(n, threads) as u32, threads)
///     .with_shared_memory(shared_memory_bytes::<u32, f32>(threads));
/// let mut bits = Vec::new();
/// for epoch in 1..=2 {
///     let (mut days_out, mut sums, mut runs) = (vec![0u32; n], vec![0f32; n], [0u64]);
///     let mut status = vec![0u64; status_len::<u32, f32>(n, threads)];
///     let mut partials = vec![RunTotal::new(0, 0f32); partials_len::<u32, f32>(n, threads)];
///     cpu.launch(sums_by_day, config, (&days[..], &amounts[..], &mut days_out[..], &mut sums[..],
///                                      &mut runs[..], &mut status, &mut partials, epoch))?;
///     assert_eq!((runs[0], &days_out[..2]), (2, &[1, 2][..]));
///     let exact: f64 = amounts[..n - 10].iter().map(|&a| a as f64).sum();
///     assert!((sums[0] as f64 - exact).abs() < 1e-2 * exact.sqrt());
///     bits.push(sums[0].to_bits());
/// }
/// assert_eq!(bits[0], bits[1]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "deterministic reduce by key")]
pub fn reduce_by_key_in_order<K: Shuffle + PartialEq, V: Shuffle, O: Operator<V>>(
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
    reduce_by_key_as::<K, V, O, true>(
        block,
        keys,
        values,
        keys_out,
        values_out,
        op,
        runs,
        status,
        partials,
        epoch,
        core::panic::Location::caller(),
    )
}

/// [`reduce_by_key`], its look-back in tile order where `ORDERED`, its
/// faults at `site`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn reduce_by_key_as<K: Shuffle + PartialEq, V: Shuffle, O: Operator<V>, const ORDERED: bool>(
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
    site: Site,
) {
    holds(
        c"device_runs: the values (one a key)",
        values.as_ptr() as *const u8,
        values.len(),
        keys.len(),
        site,
    );
    let identity = op.identity();
    let emit = Emit::Runs {
        keys_out: &keys_out,
        values_out: &values_out,
        runs: &runs,
    };
    run::<K, V, O, ORDERED>(
        &block,
        keys,
        Some(values),
        identity,
        emit,
        op,
        &status,
        &partials,
        epoch,
        site,
    )
}

/// Writes the key and the length of each run of equal keys of `keys` to
/// `keys_out[r]` and `lengths_out[r]` for the `r`-th run, and the number
/// of runs to `runs[0]` (CUB's `DeviceRunLengthEncode::Encode`); as
/// [`reduce_by_key`] of ones with a sum otherwise (the sizing helpers
/// take `u32` for the values).
///
/// ```
/// use coop::prelude::*;
/// use coop::device::runs::{partials_len, run_length_encode, shared_memory_bytes, status_len, tiles, RunTotal};
///
/// #[kernel]
/// pub fn encode(block: ThreadBlock, keys: &[u8], keys_out: Out<u8>, lengths_out: Out<u32>,
///               runs: Out<u64>, status: Out<u64>, partials: Out<RunTotal<u32>>, epoch: u32) {
///     run_length_encode(block, keys, keys_out, lengths_out, runs, status, partials, epoch)
/// }
///
/// let keys = b"aaabccddddx";
/// let (mut keys_out, mut lengths, mut runs) = ([0u8; 11], [0u32; 11], [0u64]);
/// let mut status = vec![0u64; status_len::<u8, u32>(11, 32)];
/// let mut partials = vec![RunTotal::new(0, 0u32); partials_len::<u8, u32>(11, 32)];
/// let config = coop_host::LaunchConfig::new(tiles::<u8, u32>(11, 32) as u32, 32)
///     .with_shared_memory(shared_memory_bytes::<u8, u32>(32));
/// coop_host::Cpu::new().launch(encode, config,
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
    let emit = Emit::Runs {
        keys_out: &keys_out,
        values_out: &lengths_out,
        runs: &runs,
    };
    run::<K, u32, crate::op::Sum, false>(
        &block,
        keys,
        None,
        1u32,
        emit,
        crate::op::Sum,
        &status,
        &partials,
        epoch,
        site,
    )
}

/// The control word of a [`scan_by_key`] whose element gets the values of
/// its run before it (the operator's identity for a run's first), instead
/// of those up to and including it.
pub const EXCLUSIVE: u32 = 1;

/// The scan of each run of equal keys of `keys`: `values_out[i]` is the
/// values of `i`'s run up to and including `values[i]` combined with
/// `op` in order, or, with [`EXCLUSIVE`] in `control`, those before it
/// (the operator's identity at a run's first element). CUB's
/// `DeviceScan::InclusiveScanByKey` and `ExclusiveScanByKey`: a scan that
/// starts again wherever the key changes, so that segments given as a key
/// an element (a segment's index, a row's id) are scanned each on its own.
/// One launch, one read of the keys and values, one write of the results;
/// the parameters and the launch are [`reduce_by_key`]'s less its key and
/// run outputs (`values_out` as long as the keys).
///
/// ```
/// use coop::prelude::*;
/// use coop::device::runs::{partials_len, scan_by_key, shared_memory_bytes, status_len, tiles, RunTotal, EXCLUSIVE};
///
/// #[kernel]
/// pub fn running_totals(block: ThreadBlock, accounts: &[u32], amounts: &[i64],
///                       balances: Out<i64>, control: u32, status: Out<u64>,
///                       partials: Out<RunTotal<i64>>, epoch: u32) {
///     scan_by_key(block, accounts, amounts, balances, op::Sum, control, status, partials, epoch)
/// }
///
/// let accounts = [7u32, 7, 7, 3, 3, 9];
/// let amounts = [100i64, -30, 5, 50, 20, -1];
/// let mut balances = [0i64; 6];
/// let mut status = vec![0u64; status_len::<u32, i64>(6, 32)];
/// let mut partials = vec![RunTotal::new(0, 0i64); partials_len::<u32, i64>(6, 32)];
/// let config = coop_host::LaunchConfig::new(tiles::<u32, i64>(6, 32) as u32, 32)
///     .with_shared_memory(shared_memory_bytes::<u32, i64>(32));
/// let cpu = coop_host::Cpu::new();
/// cpu.launch(running_totals, config,
///     (&accounts[..], &amounts[..], &mut balances[..], 0, &mut status, &mut partials, 1))?;
/// assert_eq!(balances, [100, 70, 75, 50, 70, -1]);
/// cpu.launch(running_totals, config,
///     (&accounts[..], &amounts[..], &mut balances[..], EXCLUSIVE, &mut status, &mut partials, 2))?;
/// assert_eq!(balances, [0, 100, 70, 0, 50, 0]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "DeviceScan::InclusiveScanByKey")]
#[doc(alias = "DeviceScan::ExclusiveScanByKey")]
#[doc(alias = "segmented scan")]
pub fn scan_by_key<K: Shuffle + PartialEq, V: Shuffle, O: Operator<V>>(
    block: ThreadBlock,
    keys: &[K],
    values: &[V],
    values_out: Out<V>,
    op: O,
    control: u32,
    status: Out<u64>,
    partials: Out<RunTotal<V>>,
    epoch: u32,
) {
    scan_by_key_as::<K, V, O, false>(
        block,
        keys,
        values,
        values_out,
        op,
        control,
        status,
        partials,
        epoch,
        core::panic::Location::caller(),
    )
}

/// [`scan_by_key`] whose results have the same bits whatever the timing,
/// as [`reduce_by_key_in_order`]'s: each tile's look-back combines the
/// tiles before it in tile order. Its parameters and launch are
/// [`scan_by_key`]'s.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::runs::{partials_len, scan_by_key_in_order, shared_memory_bytes, status_len, tiles, RunTotal};
///
/// #[kernel]
/// pub fn balances(block: ThreadBlock, accounts: &[u32], amounts: &[f64], out: Out<f64>,
///                 control: u32, status: Out<u64>, partials: Out<RunTotal<f64>>, epoch: u32) {
///     scan_by_key_in_order(block, accounts, amounts, out, op::Sum, control, status, partials, epoch)
/// }
///
/// let n = 20_000;
/// let accounts: Vec<u32> = (0..n as u32).map(|i| i / 7000).collect();
/// let amounts: Vec<f64> = (0..n).map(|i| ((i * 7919) % 1000) as f64 * 0.01).collect();
/// let threads = 64;
/// let config = coop_host::LaunchConfig::new(tiles::<u32, f64>(n, threads) as u32, threads)
///     .with_shared_memory(shared_memory_bytes::<u32, f64>(threads));
/// let mut out = vec![0f64; n];
/// let mut status = vec![0u64; status_len::<u32, f64>(n, threads)];
/// let mut partials = vec![RunTotal::new(0, 0f64); partials_len::<u32, f64>(n, threads)];
/// coop_host::Cpu::new().launch(balances, config,
///     (&accounts[..], &amounts[..], &mut out[..], 0, &mut status, &mut partials, 1))?;
/// let exact: f64 = amounts[7000..14000].iter().sum();
/// assert!((out[13999] - exact).abs() < 1e-6);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "deterministic segmented scan")]
pub fn scan_by_key_in_order<K: Shuffle + PartialEq, V: Shuffle, O: Operator<V>>(
    block: ThreadBlock,
    keys: &[K],
    values: &[V],
    values_out: Out<V>,
    op: O,
    control: u32,
    status: Out<u64>,
    partials: Out<RunTotal<V>>,
    epoch: u32,
) {
    scan_by_key_as::<K, V, O, true>(
        block,
        keys,
        values,
        values_out,
        op,
        control,
        status,
        partials,
        epoch,
        core::panic::Location::caller(),
    )
}

/// [`scan_by_key`], its look-back in tile order where `ORDERED`, its
/// faults at `site`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn scan_by_key_as<K: Shuffle + PartialEq, V: Shuffle, O: Operator<V>, const ORDERED: bool>(
    block: ThreadBlock,
    keys: &[K],
    values: &[V],
    values_out: Out<V>,
    op: O,
    control: u32,
    status: Out<u64>,
    partials: Out<RunTotal<V>>,
    epoch: u32,
    site: Site,
) {
    holds(
        c"device_runs: the values (one a key)",
        values.as_ptr() as *const u8,
        values.len(),
        keys.len(),
        site,
    );
    let identity = op.identity();
    let emit = Emit::Scan {
        out: &values_out,
        exclusive: control & EXCLUSIVE != 0,
    };
    run::<K, V, O, ORDERED>(
        &block,
        keys,
        Some(values),
        identity,
        emit,
        op,
        &status,
        &partials,
        epoch,
        site,
    )
}

/// What a tile's walk writes: its runs (a key and a result a run, and
/// their number), or every element's scan within its run.
enum Emit<'a, 'b, K, V> {
    Runs {
        keys_out: &'a Out<'b, K>,
        values_out: &'a Out<'b, V>,
        runs: &'a Out<'b, u64>,
    },
    Scan {
        out: &'a Out<'b, V>,
        exclusive: bool,
    },
}

/// Faults (at `site`) unless `out` holds `len` elements.
#[inline(always)]
fn fits<T: Copy>(out: &Out<T>, len: usize, what: &'static core::ffi::CStr, site: Site) {
    holds(what, out.as_mut_ptr() as *const u8, out.len(), len, site);
}

/// Thread `run_first`'s run of `items` elements of `src` from `first`
/// (`valid` of them inside the input) into `x`: 16 bytes a load where the
/// run is whole and aligned, element by element otherwise.
#[inline(always)]
fn load_items<T: Shuffle>(
    src: &[T],
    first: usize,
    items: usize,
    valid: usize,
    x: &mut [T; MAX_ITEMS],
) {
    // SAFETY: `first` is an element of `src`, or one past its end when
    // `valid` is 0 (nothing is read then).
    let at = unsafe { src.as_ptr().add(first) };
    if loads_by_chunks::<T>(items, RUN_BYTES) && valid == items && (at as usize).is_multiple_of(16)
    {
        // SAFETY: the run's `items` elements lie inside `src` (`valid ==
        // items`), from a 16-byte aligned address, in whole chunks.
        unsafe { load_run(at, items, x) }
    } else {
        each_item!(i < items => {
            if i < valid {
                // SAFETY: `first + i < src.len()` (`i < valid`).
                x[i] = unsafe { *src.get_unchecked(first + i) };
            }
        });
    }
}

/// This block's tile of a reduce-by-key: values from `values`, or `unit`
/// each where there are none; see the module docs.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run<K: Shuffle + PartialEq, V: Shuffle, O: Operator<V>, const ORDERED: bool>(
    block: &ThreadBlock,
    keys: &[K],
    values: Option<&[V]>,
    unit: V,
    emit: Emit<'_, '_, K, V>,
    op: O,
    status: &Out<u64>,
    partials: &Out<RunTotal<V>>,
    epoch: u32,
    site: Site,
) {
    let len = keys.len();
    match &emit {
        Emit::Runs {
            keys_out,
            values_out,
            runs,
        } => {
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
        }
        Emit::Scan { out, .. } => fits(
            out,
            len,
            c"device_runs: the scan's output (as long as the keys)",
            site,
        ),
    }
    let items = items_per_thread::<K, V>();
    let threads = block.num_threads() as usize;
    let tile_len = threads * items;
    let tile = this_grid().block_rank();
    let t = block.thread_rank() as usize;
    let first = tile * tile_len;
    if first >= len {
        if let Emit::Runs { runs, .. } = &emit
            && tile == 0
            && t == 0
        {
            runs.write(0, 0);
        }
        return;
    }
    // Every tile but the input's last is whole: its code tests no item
    // against the end (CUB's full-tile path), which halves the
    // instructions a tile executes.
    let args = (keys, values, unit, op, status, partials, epoch, site);
    if first + tile_len <= len {
        tile_of::<true, ORDERED, K, V, O>(block, args, emit);
    } else {
        tile_of::<false, ORDERED, K, V, O>(block, args, emit);
    }
}

/// What [`tile_of`] takes besides the block and what it writes: the keys,
/// the values (or none), the value an element has where there are none,
/// the operator, the status words, the partials, the epoch and the call's
/// site.
type TileArgs<'a, 'b, K, V, O> = (
    &'a [K],
    Option<&'a [V]>,
    V,
    O,
    &'a Out<'b, u64>,
    &'a Out<'b, RunTotal<V>>,
    u32,
    Site,
);

/// This block's tile (not past the input's end), whole where `FULL`, its
/// look-back in tile order where `ORDERED`: see [`run`].
#[inline(always)]
fn tile_of<
    const FULL: bool,
    const ORDERED: bool,
    K: Shuffle + PartialEq,
    V: Shuffle,
    O: Operator<V>,
>(
    block: &ThreadBlock,
    (keys, values, unit, op, status, partials, epoch, site): TileArgs<'_, '_, K, V, O>,
    emit: Emit<'_, '_, K, V>,
) {
    let len = keys.len();
    let items = items_per_thread::<K, V>();
    let threads = block.num_threads() as usize;
    let tile_len = threads * items;
    let tile = this_grid().block_rank();
    let t = block.thread_rank() as usize;
    let first = tile * tile_len;
    // The tile's runs: words 0 and 1 the first and the end slot stored,
    // then a key a slot, then a result a slot. (A scan binds it too, and
    // places nothing there: its launches are a reduction's.)
    let slots = tile_len + 1;
    let shared = SharedWords::bind(
        "the tile's runs",
        shared_memory_bytes::<K, V>(threads as u32) as usize,
        SHARED_TOO_SMALL,
        site,
    );
    let key_word = |s: usize| 2 + s * K::WORDS;
    let value_word = |s: usize| 2 + slots * K::WORDS + s * V::WORDS;
    let start = first + t * items;
    // Elements of this thread's run below the end of the input.
    let valid = if FULL {
        items
    } else {
        len.saturating_sub(start).min(items)
    };
    let seg = Segmented(op);
    let filler = keys[first];
    let mut k = [filler; MAX_ITEMS];
    let mut v = [unit; MAX_ITEMS];
    load_items(keys, start, items, valid, &mut k);
    if let Some(values) = values {
        load_items(values, start, items, valid, &mut v);
    }
    let warp = block.tiled_partition_at::<32>(site);
    let lane = warp.thread_rank_at(site);
    // The key before the run (the lane before's last, or from memory for
    // lane 0) and after it (the lane after's first, or from memory for
    // lane 31). A lane with elements has a full run before it; one whose
    // run is full and not the input's end has elements after it.
    let from_before = warp.shfl_up_at(k[items - 1], 1, site);
    let from_after = warp.shfl_down_at(k[0], 1, site);
    let before = if valid == 0 || start == 0 {
        None
    } else if lane > 0 {
        Some(from_before)
    } else {
        // SAFETY: `0 < start <= len`.
        Some(unsafe { *keys.get_unchecked(start - 1) })
    };
    let after = if valid < items || start + items >= len {
        None
    } else if lane < 31 {
        Some(from_after)
    } else {
        // SAFETY: `start + items < len`.
        Some(unsafe { *keys.get_unchecked(start + items) })
    };
    // One bit an element that starts a run.
    let mut heads = 0u32;
    each_item!(i < items => {
        let head = if i == 0 {
            before.is_none_or(|b| b != k[0])
        } else {
            k[i] != k[i - 1]
        };
        if i < valid && head {
            heads |= 1 << i;
        }
    });
    // Whether the run's last element ends a run.
    let last_ends = after.is_none_or(|a| a != k[items - 1]);
    let mut total = op.identity();
    each_item!(i < items => {
        if i < valid {
            total = if heads & (1 << i) != 0 { v[i] } else { op.combine(total, v[i]) };
        }
    });
    let mine = Local {
        value: total,
        starts: heads.count_ones(),
    };
    let inclusive = collectives::warp_inclusive_scan(&warp, mine, seg, site);
    let within = warp.shfl_up_at(inclusive, 1, site);
    let within = if lane == 0 { seg.identity() } else { within };
    // The tile's own scan first: each thread walks its run and places its
    // results with what the tile holds before it, and warp 0 looks back
    // after its own walk, while the other warps walk theirs. Only the run
    // the tile continues from the tiles before (slot 0) and, in a scan,
    // the elements before the tile's first start take the look-back's
    // value afterwards.
    let call = match emit {
        Emit::Runs { .. } => "reduce_by_key",
        Emit::Scan { .. } => "scan_by_key",
    };
    let (before_warp, block_total) =
        collectives::warps_before(block, &warp, inclusive, 31, seg, call, site);
    // The runs started in the tile before this thread's first element
    // (the slot of the run it continues: slot 0 is the run the tile
    // continues from the tiles before, if any), and the values since the
    // last start in the tile (or since the tile's first element).
    let before = seg.combine(before_warp, within);
    let mut slot = before.starts as usize;
    let mut acc = before.value;
    let total = RunTotal::new(block_total.starts as u64, block_total.value);
    let look_back = |warp: &crate::TiledPartition<32>| {
        look_back_over::<_, _, PACK, ORDERED>(
            warp,
            tile,
            total,
            seg,
            status,
            partials,
            partials.len() / 2,
            epoch,
        )
    };
    let (keys_out, values_out, runs) = match emit {
        Emit::Runs {
            keys_out,
            values_out,
            runs,
        } => (keys_out, values_out, runs),
        Emit::Scan { out, exclusive } => {
            // Each element's scan: the values of its run up to it (or
            // before it), staged in shared memory (place `p` of the tile
            // at element `p + p / 32`, so that a thread's run of places
            // meets no bank conflict) and stored by consecutive threads
            // on consecutive elements.
            let stage = |p: usize| 2 + (p + p / 32) * V::WORDS;
            if heads != 0 && before.starts == 0 {
                // The tile's first start: the elements before it continue
                // the tiles before's run.
                shared.store(0, (t * items) as u32 + heads.trailing_zeros(), site);
            }
            each_item!(i < items => {
                if i < valid {
                    let before = acc;
                    acc = if heads & (1 << i) != 0 { v[i] } else { op.combine(acc, v[i]) };
                    let result = if !exclusive {
                        acc
                    } else if heads & (1 << i) != 0 {
                        op.identity()
                    } else {
                        before
                    };
                    shared.store(stage(t * items + i), result, site);
                }
            });
            let prefix = collectives::from_warp0(block, &warp, look_back, total, call, site);
            let first_start = if block_total.starts == 0 {
                tile_len
            } else {
                shared.load(0, 0u32, site) as usize
            };
            let result = |e: usize| {
                let staged = shared.load(stage(e), unit, site);
                if e < first_start {
                    op.combine(prefix.value, staged)
                } else {
                    staged
                }
            };
            if FULL {
                // A whole tile: `items` stores a thread, written out.
                each_item!(j < items => {
                    let e = t + j * threads;
                    // SAFETY: `first + e < first + tile_len <= len`,
                    // which `out` holds (checked above).
                    unsafe { out.write_in_bounds(first + e, result(e)) };
                });
            } else {
                let tile_valid = len - first;
                let mut e = t;
                while e < tile_valid {
                    // SAFETY: `first + e < len`, which `out` holds
                    // (checked above).
                    unsafe { out.write_in_bounds(first + e, result(e)) };
                    e += threads;
                }
            }
            return;
        }
    };
    if t == 0 {
        // The first slot the tile stores: 0 where its first element
        // continues a run of the tiles before.
        shared.store(0, heads & 1, site);
    }
    each_item!(i < items => {
        if i < valid {
            if heads & (1 << i) != 0 {
                slot += 1;
                acc = v[i];
            } else {
                acc = op.combine(acc, v[i]);
            }
            let ends = if i + 1 < valid { (heads >> i) & 2 != 0 } else { last_ends };
            if ends {
                shared.store(key_word(slot), k[i], site);
                shared.store(value_word(slot), acc, site);
            }
            if i + 1 == valid && start + valid == (first + tile_len).min(len) {
                // The tile's last element: the slots end after its run's
                // if that run ends here.
                shared.store(1, (slot + ends as usize) as u32, site);
            }
        }
    });
    // The barrier also orders the walk's stores before the loads below.
    let prefix = collectives::from_warp0(block, &warp, look_back, total, call, site);
    if t == 0 && first + tile_len >= len {
        // The input's last tile: the runs are those before it and its own.
        runs.write(0, prefix.starts() + block_total.starts as u64);
    }
    // Consecutive threads store consecutive runs: slot `s` is run
    // `prefix.starts() + s - 1` of the input; slot 0 continues the tiles
    // before's run, whose values so far the look-back gave.
    let lo = shared.load(0, 0u32, site) as usize;
    let end = shared.load(1, 0u32, site) as usize;
    let mut s = lo + t;
    while s < end {
        let r = prefix.starts() as usize + s - 1;
        let key = shared.load(key_word(s), filler, site);
        let value = shared.load(value_word(s), unit, site);
        let value = if s == 0 {
            op.combine(prefix.value, value)
        } else {
            value
        };
        // SAFETY: `r` counts the runs that started before this slot's,
        // fewer than `len`, which both outputs hold (checked above).
        unsafe {
            keys_out.write_in_bounds(r, key);
            values_out.write_in_bounds(r, value);
        }
        s += threads;
    }
}
