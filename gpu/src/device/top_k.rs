//! Device-wide top-k as functions a kernel calls: the `k` largest (or
//! smallest) keys of an input, alone, with their indices, or with values
//! carried along, found by radix selection rather than by sorting the
//! whole input (CUB's `DeviceTopK`; the "sort, then take the first k"
//! route otherwise).
//!
//! `coop_host::top_k` runs them for the built-in key types and sorts the
//! `k` results when asked; a kernel of yours calls them the same way (see
//! [`count`]'s example).
//!
//! # How the k-th key is found
//!
//! Keys compare by their bits made to sort as their values do
//! ([`RadixKey::ordered`]; for the largest keys every bit flipped, so
//! that the wanted keys are always the smallest numbers). A selection of
//! `B`-bit keys takes [`passes`]`::<K>()` passes of [`DIGIT_BITS`] bits
//! each from the top (the last maybe narrower). Before pass `p`, the bits
//! above its digit of the `k`-th key are known (none before pass 0), and
//! how many of the wanted keys share them (`remaining`). Pass `p` reads
//! every key, and counts the digits of those whose bits above the digit
//! match ([`count`]); the digit of the `k`-th key is then the one where
//! the counts, added up from the smallest digit, reach `remaining`. Every
//! block of the next launch finds it from the counts itself (a block-wide
//! scan of at most 2048 counts), and block 0 records it in `state` for
//! the launch after. Where every key with the bits found so far is
//! wanted, the later passes end at once.
//!
//! [`select_keys`] (or [`select_pairs`], [`select_indices`]) then reads
//! the keys once more: a key below the threshold is wanted, and of the
//! keys equal to it the first `remaining` in input order. Both counts are
//! scanned across the input at once (one 64-bit sum, decoupled look-back
//! over the tiles), so that each key taken knows its place among them:
//! the output holds the `k` keys in their input order, the same keys a
//! stable sort followed by taking the first `k` gives, and always the same
//! output for the same input.
//!
//! # The buffers
//!
//! | parameter | what it holds |
//! |---|---|
//! | `bins` | [`bins_len`]`::<K>()` `u32` counts, zeroed before pass 0 |
//! | `state` | [`state_len`]`::<K>()` `u32` words, written by the passes |
//! | `status` | [`status_len`]`::<K>(len, threads)` status words of the selection, with `epoch` in `1..2^30` changed on every call |
//! | dynamic shared memory | [`count_shared_memory_bytes`] for a pass, [`SELECT_SHARED_MEMORY_BYTES`] for the selection |
//!
//! `k` is from 1 to the number of keys, which is at most `2^32 - 1`;
//! blocks are a multiple of 32 threads.

use crate::backend::target::Target;
use crate::backend::{Faults, Site};
use crate::collectives;
use crate::device::arguments::holds;
use crate::device::blocked::{MAX_ITEMS, each_item, items_within, load_run, loads_by_chunks};
use crate::device::look_back::{look_back, status_words};
use crate::device::radix_sort::{HISTOGRAM_ITEMS, RadixKey};
use crate::device::select::no_partials;
use crate::device::staging::SharedWords;
use crate::op::Sum;
use crate::{Out, Shuffle, ThreadBlock, this_grid};

/// Bits of a key a pass counts: 11, a digit of 2048 values.
pub const DIGIT_BITS: u32 = 11;

/// Counters of a pass: 2048.
pub const BINS: usize = 1 << DIGIT_BITS;

/// The control word of a selection of the largest keys; 0 selects the
/// smallest.
pub const LARGEST: u32 = crate::device::radix_sort::DESCENDING;

/// Words of `state` a pass records.
const STATE_WORDS: usize = 4;

/// Passes a selection of `K` keys takes: one a digit of [`DIGIT_BITS`].
///
/// ```
/// use coop::device::top_k::passes;
/// assert_eq!(passes::<u8>(), 1);
/// assert_eq!(passes::<i16>(), 2);
/// assert_eq!(passes::<f32>(), 3);
/// assert_eq!(passes::<u64>(), 6);
/// ```
pub const fn passes<K: RadixKey>() -> u32 {
    K::BITS.div_ceil(DIGIT_BITS)
}

/// `u32` counts a selection of `K` keys needs in `bins`: [`BINS`] a pass.
///
/// ```
/// use coop::device::top_k::{bins_len, BINS};
/// assert_eq!(bins_len::<f32>(), 3 * BINS);
/// ```
pub const fn bins_len<K: RadixKey>() -> usize {
    BINS * passes::<K>() as usize
}

/// `u32` words a selection of `K` keys needs in `state`: 4 a pass.
///
/// ```
/// use coop::device::top_k::state_len;
/// assert_eq!(state_len::<u64>(), 24);
/// ```
pub const fn state_len<K: RadixKey>() -> usize {
    STATE_WORDS * passes::<K>() as usize
}

/// 16-byte chunks of keys a thread of a counting pass loads at once.
const CHUNKS: usize = 4;

/// Most keys a thread of the selection takes.
const ITEMS: usize = 16;
/// Most bytes of keys a thread of the selection takes.
const THREAD_BYTES: usize = 64;

/// Keys each thread of [`select_keys`] takes: 16, or as many as fit in 64
/// bytes.
///
/// ```
/// use coop::device::top_k::items_per_thread;
/// assert_eq!(items_per_thread::<f32>(), 16);
/// assert_eq!(items_per_thread::<f64>(), 8);
/// ```
pub const fn items_per_thread<K>() -> usize {
    items_within(core::mem::size_of::<K>(), ITEMS, THREAD_BYTES)
}

/// Tiles of a selection of `len` keys by blocks of `threads`: the grid of
/// [`select_keys`] (at least 1).
///
/// ```
/// use coop::device::top_k::{items_per_thread, tiles};
/// assert_eq!(tiles::<u32>(256 * items_per_thread::<u32>() + 1, 256), 2);
/// assert_eq!(tiles::<u32>(0, 256), 1);
/// ```
pub const fn tiles<K>(len: usize, threads: u32) -> usize {
    let n = len.div_ceil(threads as usize * items_per_thread::<K>());
    if n == 0 { 1 } else { n }
}

/// `u64` status words the selection of `len` keys by blocks of `threads`
/// needs: two a tile.
///
/// ```
/// use coop::device::top_k::{status_len, tiles};
/// assert_eq!(status_len::<f32>(1 << 20, 256), 2 * tiles::<f32>(1 << 20, 256));
/// ```
pub const fn status_len<K>(len: usize, threads: u32) -> usize {
    status_words::<u64>() * tiles::<K>(len, threads)
}

/// Bytes of dynamic shared memory a [`count`] launch needs: a counter a
/// digit and the threshold it shares.
///
/// ```
/// assert_eq!(coop::device::top_k::count_shared_memory_bytes(), 4 * (2048 + 4));
/// ```
pub const fn count_shared_memory_bytes() -> u32 {
    (4 * (BINS + STATE_WORDS)) as u32
}

/// Bytes of dynamic shared memory a selection launch needs: the threshold
/// its block shares.
pub const SELECT_SHARED_MEMORY_BYTES: u32 = (4 * (BINS + STATE_WORDS)) as u32;

/// What a launch says when it gave too little dynamic shared memory.
const SHARED_TOO_SMALL: &core::ffi::CStr = c"top-k: the launch's dynamic shared memory is smaller than the pass needs: launch with `coop::device::top_k::count_shared_memory_bytes()` (a pass) or `SELECT_SHARED_MEMORY_BYTES` (the selection) bytes of it (`coop_host::top_k::TopK` does)";

/// What a launch says about `k`.
const BAD_K: &core::ffi::CStr =
    c"top-k: `k` must be from 1 to the number of keys (`coop_host::top_k::TopK` checks it first)";

/// What a launch says about a pass the key does not have.
const BAD_PASS: &core::ffi::CStr = c"top-k: `pass` must be below `coop::device::top_k::passes::<K>()` (`coop_host::top_k::TopK` counts them)";

/// The bits of the `k`-th key found so far: those from `level` up are
/// `prefix`, and `remaining` of the wanted keys have them; `done` once
/// every key with them is wanted (or all bits are known).
#[derive(Clone, Copy)]
struct Threshold {
    prefix: u64,
    level: u32,
    remaining: u32,
    done: bool,
}

impl Threshold {
    /// Before pass 0: nothing known, all `k` keys to find.
    #[inline(always)]
    fn start<K: RadixKey>(k: u32) -> Self {
        Threshold {
            prefix: 0,
            level: K::BITS,
            remaining: k,
            done: false,
        }
    }

    /// Slot `slot` of `state`, read with `read`.
    #[inline(always)]
    fn load(read: impl Fn(usize) -> u32, slot: usize) -> Self {
        let at = slot * STATE_WORDS;
        let flags = read(at + 3);
        Threshold {
            prefix: read(at) as u64 | (read(at + 1) as u64) << 32,
            level: flags & 0xff,
            remaining: read(at + 2),
            done: flags & 0x100 != 0,
        }
    }

    /// Slot `slot` of `state` from this.
    #[inline(always)]
    fn store(self, state: &Out<u32>, slot: usize) {
        let at = slot * STATE_WORDS;
        state.write(at, self.prefix as u32);
        state.write(at + 1, (self.prefix >> 32) as u32);
        state.write(at + 2, self.remaining);
        state.write(at + 3, self.level | if self.done { 0x100 } else { 0 });
    }

    /// A key's bits from `level` up.
    #[inline(always)]
    fn above(&self, ordered: u64) -> u64 {
        if self.level >= 64 {
            0
        } else {
            ordered >> self.level
        }
    }
}

/// The low bit and width of pass `pass`'s digit of `K` keys.
#[inline(always)]
fn pass_bits<K: RadixKey>(pass: u32) -> (u32, u32) {
    let high = K::BITS - pass * DIGIT_BITS;
    let low = high.saturating_sub(DIGIT_BITS);
    (low, high - low)
}

/// The threshold after pass `pass` counted the digits in `counts` (read
/// with `count`), from the one before it: every thread of the block
/// returns it. A block-wide scan of the counts; the thread whose counts
/// reach `remaining` finds the digit and shares it through the words of
/// `shared` from [`BINS`].
#[inline(always)]
fn choose<K: RadixKey>(
    block: &ThreadBlock,
    shared: &SharedWords,
    before: Threshold,
    pass: u32,
    count: impl Fn(usize) -> u32,
    site: Site,
) -> Threshold {
    if before.done {
        return before;
    }
    let (low, width) = pass_bits::<K>(pass);
    let digits = 1usize << width;
    let threads = block.num_threads() as usize;
    let t = block.thread_rank() as usize;
    let each = digits.div_ceil(threads);
    let from = (t * each).min(digits);
    let to = (from + each).min(digits);
    let mut sum = 0u32;
    let mut d = from;
    while d < to {
        sum += count(d);
        d += 1;
    }
    let below = crate::collectives::exclusive_scan_by_warps(block, sum, Sum, site);
    let wanted = before.remaining;
    if below < wanted && wanted <= below + sum {
        let mut d = from;
        let mut below = below;
        loop {
            let c = count(d);
            if below + c >= wanted {
                shared.store(BINS, d as u32, site);
                shared.store(BINS + 1, wanted - below, site);
                shared.store(BINS + 2, c, site);
                break;
            }
            below += c;
            d += 1;
        }
    }
    block.sync_named("top-k", site);
    let digit = shared.load(BINS, 0u32, site);
    let remaining = shared.load(BINS + 1, 0u32, site);
    let bucket = shared.load(BINS + 2, 0u32, site);
    Threshold {
        prefix: before.prefix << width | digit as u64,
        level: low,
        remaining,
        done: remaining == bucket || low == 0,
    }
}

/// Checks `k` against the keys.
#[inline(always)]
fn check_k(k: u32, len: usize, site: Site) {
    if k == 0 || k as usize > len {
        Target::check_failed(BAD_K, site);
    }
}

/// Pass `pass` of a selection of the `k` smallest keys (the largest with
/// [`LARGEST`] in `control`): counts the digits of the keys that still
/// may be wanted into `bins` (pass `p`'s [`BINS`] counts from `BINS × p`),
/// after finding the digit of pass `pass - 1` from its counts and
/// recording it in `state`. Launch passes `0 .. passes::<K>()` in order,
/// `bins` zeroed before the first, then [`select_keys`]. Any grid (a
/// block takes every `grid`-th stretch of the keys), blocks of a multiple
/// of 32 threads with [`count_shared_memory_bytes`] of dynamic shared
/// memory.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::top_k::*;
///
/// #[kernel]
/// pub fn digits(block: ThreadBlock, keys: &[f32], bins: Out<u32>, state: Out<u32>, k: u32,
///               pass: u32, control: u32) {
///     count(block, keys, bins, state, k, pass, control)
/// }
///
/// #[kernel]
/// pub fn best(block: ThreadBlock, keys: &[f32], keys_out: Out<f32>, indices_out: Out<u32>,
///             bins: &[u32], state: &[u32], k: u32, control: u32, status: Out<u64>, epoch: u32) {
///     select_indices(block, keys, keys_out, indices_out, bins, state, k, control, status, epoch)
/// }
///
/// let cpu = coop_host::Cpu::new();
/// let keys: Vec<f32> = (0..5000).map(|i| ((i * 7919) % 5003) as f32 - 2500.0).collect();
/// let (k, threads) = (3, 128);
/// let mut bins = vec![0u32; bins_len::<f32>()];
/// let mut state = vec![0u32; state_len::<f32>()];
/// let config = coop_host::LaunchConfig::new(4, threads).with_shared_memory(count_shared_memory_bytes());
/// for pass in 0..passes::<f32>() {
///     cpu.launch(digits, config, (&keys, &mut bins, &mut state, k, pass, LARGEST))?;
/// }
/// let (mut top, mut at) = (vec![0f32; 3], vec![0u32; 3]);
/// let mut status = vec![0u64; status_len::<f32>(keys.len(), threads)];
/// let config = coop_host::LaunchConfig::new(tiles::<f32>(keys.len(), threads) as u32, threads)
///     .with_shared_memory(SELECT_SHARED_MEMORY_BYTES);
/// cpu.launch(best, config, (&keys, &mut top, &mut at, &bins, &state, k, LARGEST, &mut status, 1))?;
/// // The three largest, in input order; here sorted to compare.
/// let mut expected: Vec<(f32, u32)> = (0..5000).map(|i| (keys[i], i as u32)).collect();
/// expected.sort_by(|a, b| b.0.total_cmp(&a.0));
/// let mut got: Vec<(f32, u32)> = top.into_iter().zip(at).collect();
/// got.sort_by(|a, b| b.0.total_cmp(&a.0));
/// assert_eq!(got, &expected[..3]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "DeviceTopK")]
#[doc(alias = "radix_select")]
pub fn count<K: RadixKey>(
    block: ThreadBlock,
    keys: &[K],
    bins: Out<u32>,
    state: Out<u32>,
    k: u32,
    pass: u32,
    control: u32,
) {
    let site = core::panic::Location::caller();
    let len = keys.len();
    check_k(k, len, site);
    if pass >= passes::<K>() {
        Target::check_failed(BAD_PASS, site);
    }
    holds(
        c"top-k: `bins` (2048 counts a pass)",
        bins.as_mut_ptr() as *const u8,
        bins.len(),
        bins_len::<K>(),
        site,
    );
    holds(
        c"top-k: `state` (4 words a pass)",
        state.as_mut_ptr() as *const u8,
        state.len(),
        state_len::<K>(),
        site,
    );
    let shared = SharedWords::bind(
        "the top-k digit counters",
        count_shared_memory_bytes() as usize,
        SHARED_TOO_SMALL,
        site,
    );
    let grid = this_grid();
    let threshold = if pass == 0 {
        Threshold::start::<K>(k)
    } else {
        let before = Threshold::load(|i| state.read(i), pass as usize - 1);
        let counts = (pass as usize - 1) * BINS;
        choose::<K>(
            &block,
            &shared,
            before,
            pass - 1,
            |d| bins.read(counts + d),
            site,
        )
    };
    let t = block.thread_rank() as usize;
    if grid.block_rank() == 0 && t == 0 {
        threshold.store(&state, pass as usize);
    }
    if threshold.done {
        return;
    }
    let (low, width) = pass_bits::<K>(pass);
    let digits = 1usize << width;
    let mask = digits as u64 - 1;
    let threads = block.num_threads() as usize;
    let mut c = t;
    while c < digits {
        shared.store(c, 0u32, site);
        c += threads;
    }
    block.sync_named("top-k", site);
    let blocks = grid.num_blocks();
    let count_key = |key: K| {
        let o = key.ordered(control);
        if threshold.above(o) == threshold.prefix {
            shared.bump(((o >> low) & mask) as usize, site);
        }
    };
    // Keys of 4 or 8 bytes from a 16-byte aligned start load 16 bytes at
    // a time: stretches of `threads × CHUNKS` chunks of 16 bytes, chunk
    // `j × threads + t` of a stretch to thread `t` (a warp's loads cover
    // 512 consecutive bytes), every `blocks`-th stretch to a block, all of
    // a thread's loads issued before the first count. Other keys, and the
    // keys after the last whole chunk, load one at a time.
    let per_chunk = 16 / core::mem::size_of::<K>().max(1);
    let vector = core::mem::size_of::<K>() >= 4
        && (keys.as_ptr() as usize).is_multiple_of(16)
        && loads_by_chunks::<K>(per_chunk, 16);
    let filler = keys[0];
    let mut single_from = 0;
    if vector {
        let chunks = len / per_chunk;
        let stretch = threads * CHUNKS;
        let mut from = grid.block_rank() * stretch;
        while from < chunks {
            let mut key = [[filler; MAX_ITEMS]; CHUNKS];
            each_item!(j < CHUNKS => {
                let c = from + j * threads + t;
                if c < chunks {
                    // SAFETY: chunk `c` lies inside `keys` (below
                    // `chunks`), 16-byte aligned as the keys' start is.
                    unsafe { load_run(keys.as_ptr().add(c * per_chunk), per_chunk, &mut key[j]) };
                }
            });
            each_item!(j < CHUNKS => {
                if from + j * threads + t < chunks {
                    each_item!(i < per_chunk => {
                        count_key(key[j][i]);
                    });
                }
            });
            from += blocks * stretch;
        }
        single_from = chunks * per_chunk;
    }
    // Stretches of `threads × HISTOGRAM_ITEMS` keys, every `blocks`-th to
    // a block, consecutive threads on consecutive keys (as the radix
    // sort's digit counting does).
    let stretch = threads * HISTOGRAM_ITEMS;
    let mut from = single_from + grid.block_rank() * stretch;
    while from < len {
        let mut key = [filler; MAX_ITEMS];
        each_item!(j < HISTOGRAM_ITEMS => {
            let e = from + j * threads + t;
            if e < len {
                key[j] = keys[e];
            }
        });
        each_item!(j < HISTOGRAM_ITEMS => {
            if from + j * threads + t < len {
                count_key(key[j]);
            }
        });
        from += blocks * stretch;
    }
    block.sync_named("top-k", site);
    let out = bins.atomic();
    let at = pass as usize * BINS;
    let mut c = t;
    while c < digits {
        let n = shared.load(c, 0u32, site);
        if n != 0 {
            out.add(at + c, n);
        }
        c += threads;
    }
}

/// What a selection carries beside each key it keeps.
trait Carry {
    /// Stores what goes with the key at `index` of the input at `at` of
    /// the output.
    fn carry(&self, index: usize, at: usize);
}

/// Keys alone.
struct Nothing;

impl Carry for Nothing {
    #[inline(always)]
    fn carry(&self, _: usize, _: usize) {}
}

/// Each key's index in the input.
struct Indices<'a>(Out<'a, u32>);

impl Carry for Indices<'_> {
    #[inline(always)]
    fn carry(&self, index: usize, at: usize) {
        self.0.write(at, index as u32);
    }
}

/// Each key's value.
struct Values<'a, 'b, V: Copy>(&'a [V], Out<'b, V>);

impl<V: Copy> Carry for Values<'_, '_, V> {
    #[inline(always)]
    fn carry(&self, index: usize, at: usize) {
        self.1.write(at, self.0[index]);
    }
}

/// The selection after the last pass: the `k` smallest keys of `keys`
/// (the largest with [`LARGEST`] in `control`, as the passes were run) to
/// `keys_out`, in their input order (see the [module docs](self)). One tile of
/// `threads ×` [`items_per_thread`] keys a block, [`tiles`] of them, with
/// [`SELECT_SHARED_MEMORY_BYTES`] of dynamic shared memory. See
/// [`count`]'s example.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "DeviceTopK::MaxKeys")]
#[doc(alias = "DeviceTopK::MinKeys")]
pub fn select_keys<K: RadixKey>(
    block: ThreadBlock,
    keys: &[K],
    keys_out: Out<K>,
    bins: &[u32],
    state: &[u32],
    k: u32,
    control: u32,
    status: Out<u64>,
    epoch: u32,
) {
    let site = core::panic::Location::caller();
    run(
        &block, keys, &keys_out, Nothing, bins, state, k, control, &status, epoch, site,
    )
}

/// [`select_keys`] with each key's index in the input to `indices_out`
/// beside it (as long as `keys_out`).
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn select_indices<K: RadixKey>(
    block: ThreadBlock,
    keys: &[K],
    keys_out: Out<K>,
    indices_out: Out<u32>,
    bins: &[u32],
    state: &[u32],
    k: u32,
    control: u32,
    status: Out<u64>,
    epoch: u32,
) {
    let site = core::panic::Location::caller();
    holds(
        c"top-k: `indices_out` (an index a key of `keys_out`)",
        indices_out.as_mut_ptr() as *const u8,
        indices_out.len(),
        k as usize,
        site,
    );
    run(
        &block,
        keys,
        &keys_out,
        Indices(indices_out),
        bins,
        state,
        k,
        control,
        &status,
        epoch,
        site,
    )
}

/// [`select_keys`] with each key's value (`values[i]` of `keys[i]`,
/// `values` as long as `keys`) to `values_out` beside it.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "DeviceTopK::MaxPairs")]
#[doc(alias = "DeviceTopK::MinPairs")]
pub fn select_pairs<K: RadixKey, V: Shuffle>(
    block: ThreadBlock,
    keys: &[K],
    keys_out: Out<K>,
    values: &[V],
    values_out: Out<V>,
    bins: &[u32],
    state: &[u32],
    k: u32,
    control: u32,
    status: Out<u64>,
    epoch: u32,
) {
    let site = core::panic::Location::caller();
    holds(
        c"top-k: `values` (a value a key)",
        values.as_ptr() as *const u8,
        values.len(),
        keys.len(),
        site,
    );
    holds(
        c"top-k: `values_out` (a value a key of `keys_out`)",
        values_out.as_mut_ptr() as *const u8,
        values_out.len(),
        k as usize,
        site,
    );
    run(
        &block,
        keys,
        &keys_out,
        Values(values, values_out),
        bins,
        state,
        k,
        control,
        &status,
        epoch,
        site,
    )
}

/// What [`select_words`] carries: nothing.
pub const CARRY_NOTHING: u32 = 0;
/// What [`select_words`] carries: each key's index, one word.
pub const CARRY_INDICES: u32 = 1;
/// What [`select_words`] carries: each key's value of one word.
pub const CARRY_ONE_WORD: u32 = 2;
/// What [`select_words`] carries: each key's value of two words.
pub const CARRY_TWO_WORDS: u32 = 3;

/// Values as their 32-bit words, `per` a value (1 or 2), or indices.
struct Words<'a, 'b> {
    values: &'a [u32],
    values_out: Out<'b, u32>,
    carry: u32,
}

impl Carry for Words<'_, '_> {
    #[inline(always)]
    fn carry(&self, index: usize, at: usize) {
        match self.carry {
            CARRY_INDICES => self.values_out.write(at, index as u32),
            CARRY_ONE_WORD => self.values_out.write(at, self.values[index]),
            CARRY_TWO_WORDS => {
                self.values_out.write(2 * at, self.values[2 * index]);
                self.values_out
                    .write(2 * at + 1, self.values[2 * index + 1]);
            }
            _ => {}
        }
    }
}

/// What a launch says about `carry`.
const BAD_CARRY: &core::ffi::CStr = c"top-k: `carry` must be one of `coop::device::top_k::CARRY_*` (`coop_host::top_k::TopK` passes one)";

/// [`select_keys`], [`select_indices`] and [`select_pairs`] in one, for
/// values moved as 32-bit words (the form coop-host's built-in kernels
/// take, one kernel a key type): with `carry` [`CARRY_NOTHING`] keys
/// alone (`values` and `values_out` may be empty); [`CARRY_INDICES`] each
/// key's index to `values_out` (`k` words); [`CARRY_ONE_WORD`] or
/// [`CARRY_TWO_WORDS`] each key's value of one or two words from `values`
/// (as many a key) to `values_out` (as many a key taken).
///
/// ```
/// use coop::prelude::*;
/// use coop::device::top_k::*;
///
/// #[kernel]
/// pub fn digits(block: ThreadBlock, keys: &[u16], bins: Out<u32>, state: Out<u32>, k: u32,
///               pass: u32, control: u32) {
///     count(block, keys, bins, state, k, pass, control)
/// }
///
/// #[kernel]
/// pub fn lowest(block: ThreadBlock, keys: &[u16], keys_out: Out<u16>, values: &[u32],
///               values_out: Out<u32>, carry: u32, bins: &[u32], state: &[u32], k: u32,
///               control: u32, status: Out<u64>, epoch: u32) {
///     select_words(block, keys, keys_out, values, values_out, carry, bins, state, k, control,
///                  status, epoch)
/// }
///
/// let cpu = coop_host::Cpu::new();
/// let keys = [7u16, 3, 9, 3, 1];
/// let values = [70u64, 30, 90, 31, 10];
/// let words: Vec<u32> = values.iter().flat_map(|v| [*v as u32, (*v >> 32) as u32]).collect();
/// let (mut bins, mut state) = (vec![0u32; bins_len::<u16>()], vec![0u32; state_len::<u16>()]);
/// let config = coop_host::LaunchConfig::new(1, 64).with_shared_memory(count_shared_memory_bytes());
/// for pass in 0..passes::<u16>() {
///     cpu.launch(digits, config, (&keys[..], &mut bins, &mut state, 2, pass, 0))?;
/// }
/// let (mut low, mut out) = ([0u16; 2], [0u32; 4]);
/// let mut status = vec![0u64; status_len::<u16>(5, 64)];
/// let config = coop_host::LaunchConfig::new(1, 64).with_shared_memory(SELECT_SHARED_MEMORY_BYTES);
/// cpu.launch(lowest, config, (&keys[..], &mut low[..], &words, &mut out[..], CARRY_TWO_WORDS,
///                             &bins, &state, 2, 0, &mut status, 1))?;
/// assert_eq!((low, out), ([3, 1], [30, 0, 10, 0])); // in input order
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn select_words<K: RadixKey>(
    block: ThreadBlock,
    keys: &[K],
    keys_out: Out<K>,
    values: &[u32],
    values_out: Out<u32>,
    carry: u32,
    bins: &[u32],
    state: &[u32],
    k: u32,
    control: u32,
    status: Out<u64>,
    epoch: u32,
) {
    let site = core::panic::Location::caller();
    let (per_in, per_out) = match carry {
        CARRY_NOTHING => (0, 0),
        CARRY_INDICES => (0, 1),
        CARRY_ONE_WORD => (1, 1),
        CARRY_TWO_WORDS => (2, 2),
        _ => Target::check_failed(BAD_CARRY, site),
    };
    holds(
        c"top-k: `values` (its words for each key)",
        values.as_ptr() as *const u8,
        values.len(),
        per_in * keys.len(),
        site,
    );
    holds(
        c"top-k: `values_out` (its words for each key of `keys_out`)",
        values_out.as_mut_ptr() as *const u8,
        values_out.len(),
        per_out * k as usize,
        site,
    );
    let words = Words {
        values,
        values_out,
        carry,
    };
    run(
        &block, keys, &keys_out, words, bins, state, k, control, &status, epoch, site,
    )
}

/// The selection of this block's tile; see the module docs.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run<K: RadixKey, C: Carry>(
    block: &ThreadBlock,
    keys: &[K],
    keys_out: &Out<K>,
    carry: C,
    bins: &[u32],
    state: &[u32],
    k: u32,
    control: u32,
    status: &Out<u64>,
    epoch: u32,
    site: Site,
) {
    let len = keys.len();
    check_k(k, len, site);
    holds(
        c"top-k: `keys_out` (k keys)",
        keys_out.as_mut_ptr() as *const u8,
        keys_out.len(),
        k as usize,
        site,
    );
    holds(
        c"top-k: `bins` (2048 counts a pass)",
        bins.as_ptr() as *const u8,
        bins.len(),
        bins_len::<K>(),
        site,
    );
    holds(
        c"top-k: `state` (4 words a pass)",
        state.as_ptr() as *const u8,
        state.len(),
        state_len::<K>(),
        site,
    );
    let shared = SharedWords::bind(
        "the top-k threshold",
        SELECT_SHARED_MEMORY_BYTES as usize,
        SHARED_TOO_SMALL,
        site,
    );
    let last = passes::<K>() - 1;
    let before = Threshold::load(|i| state[i], last as usize);
    let counts = last as usize * BINS;
    let threshold = choose::<K>(block, &shared, before, last, |d| bins[counts + d], site);
    let items = items_per_thread::<K>();
    let threads = block.num_threads() as usize;
    let tile_len = threads * items;
    let tile = this_grid().block_rank();
    let t = block.thread_rank() as usize;
    let first = tile * tile_len;
    if first >= len {
        return;
    }
    let full = first + tile_len <= len;
    let valid = if full { tile_len } else { len - first };
    let run_first = t * items;
    let run_valid = valid.saturating_sub(run_first).min(items);
    let filler = keys[first];
    let mut x = [filler; MAX_ITEMS];
    let direct = full
        && (keys.as_ptr() as usize).is_multiple_of(16)
        && loads_by_chunks::<K>(items, THREAD_BYTES);
    if direct {
        // SAFETY: a full tile's run lies inside `keys`, 16-byte aligned
        // (the keys' start is, and a run is a whole number of 16-byte
        // chunks from it).
        unsafe { load_run(keys.as_ptr().add(first + run_first), items, &mut x) };
    } else {
        each_item!(i < items => {
            if i < run_valid {
                x[i] = keys[first + run_first + i];
            }
        });
    }
    // One bit a key below the threshold, one a key equal to it.
    let mut below = 0u32;
    let mut equal = 0u32;
    each_item!(i < items => {
        if i < run_valid {
            let above = threshold.above(x[i].ordered(control));
            if above < threshold.prefix {
                below |= 1 << i;
            } else if above == threshold.prefix {
                equal |= 1 << i;
            }
        }
    });
    // Both counts at once: below in the low 32 bits, equal in the high.
    let count = below.count_ones() as u64 | (equal.count_ones() as u64) << 32;
    let warp = block.tiled_partition_at::<32>(site);
    let lane = warp.thread_rank_at(site);
    let inclusive = collectives::warp_inclusive_scan(&warp, count, Sum, site);
    let within = warp.shfl_up_at(inclusive, 1, site);
    let within = if lane == 0 { 0 } else { within };
    let partials = no_partials();
    let (before_warp, _, _) = collectives::prefix_of_warps(
        block,
        &warp,
        inclusive,
        31,
        Sum,
        "top-k",
        site,
        |warp, total| look_back(warp, tile, total, Sum, status, &partials, epoch),
    );
    let exclusive = before_warp + within;
    let below_before = (exclusive & 0xffff_ffff) as usize;
    let equal_before = (exclusive >> 32) as usize;
    let remaining = threshold.remaining as usize;
    if below | equal == 0 {
        return;
    }
    // A key's place among the keys taken, in input order: the keys below
    // the threshold before it, and the equal ones taken before it (the
    // first `remaining` of them). Few keys are taken from most runs, so
    // the loop walks the taken ones only, reading each again from the
    // input (a cache hit) rather than from the run, which would have to
    // be indexed by a loop counter and so leave the registers.
    let mut taken = below;
    let mut rest = equal;
    let mut rank = equal_before;
    while rest != 0 && rank < remaining {
        taken |= rest & rest.wrapping_neg();
        rest &= rest - 1;
        rank += 1;
    }
    while taken != 0 {
        let i = taken.trailing_zeros();
        taken &= taken - 1;
        let before = (1u32 << i) - 1;
        let below_rank = below_before + (below & before).count_ones() as usize;
        let equal_rank = equal_before + (equal & before).count_ones() as usize;
        let at = below_rank + equal_rank.min(remaining);
        let index = first + run_first + i as usize;
        keys_out.write(at, keys[index]);
        carry.carry(index, at);
    }
}
