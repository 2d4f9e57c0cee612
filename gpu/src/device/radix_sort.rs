//! Device-wide radix sort as functions a kernel calls: keys, or keys with
//! values carried along, in ascending or descending order of the keys,
//! stable (equal keys keep their input order), over all of a key's bits or
//! a range of them. CUB's `DeviceRadixSort` with its single-pass digit
//! binning ("onesweep"): one launch of [`histogram`] counts every pass's
//! digits in one read of the keys, then one launch of [`onesweep_keys`]
//! (or [`onesweep_pairs`]) a pass of [`RADIX_BITS`] bits moves every key
//! to its place for that digit, reading and writing each key once.
//!
//! `coop_host::sort` runs them for the built-in key types, with the
//! buffers and launches this module describes; a kernel of yours calls
//! them the same way (see [`onesweep_keys`]'s example).
//!
//! # Keys
//!
//! A key is a [`RadixKey`]: an unsigned or signed integer of 8 to 64 bits
//! or a float. Its bits are first made to sort as its values do: a
//! signed integer's sign bit is flipped; a float with the sign bit set has
//! every bit flipped, another has its sign bit set. `-0.0` counts as
//! `0.0` (the two keep their input order between them), and a NaN sorts by
//! its bits: after `+inf` when its sign bit is clear, before `-inf` when it
//! is set (as CUB's sort does). For a descending sort every bit is then
//! flipped, so the order reverses while equal keys keep theirs.
//!
//! # A pass
//!
//! Pass `p` sorts by the digit of bits `begin_bit + 8p ..` (fewer bits for
//! the last pass of a range that is not a whole number of digits). Block
//! `b` takes tile `b`, `threads ×` [`items_per_thread`] consecutive keys,
//! warp `w` of it the keys `w × 32 × items ..`, lane `l` item `i` the key
//! `i × 32 + l` of those (coalesced loads). Each warp first counts its
//! keys of each digit in counters of its own in shared memory; thread `d`
//! of the first 256 adds up digit `d` over the warps and publishes the
//! tile's count of it at once (one status word a digit and tile,
//! [`status_len`]), so that the tiles after find it while this one works
//! on. The counts, scanned across warps and digits, say where each warp's
//! keys of each digit start in the tile sorted by digit; each warp then
//! ranks its keys item by item, in their order: the lanes holding one
//! digit find each other (ballots over the digit's bits), and the highest
//! of them moves the warp's counter of that digit on by their number, so
//! a key's place is the counter before plus the lanes below it with its
//! digit. Thread `d` learns how many keys of digit `d` the tiles before
//! hold by decoupled look-back over their counts of `d`, and adds where
//! digit `d` starts in the output (the exclusive scan of the pass's
//! [`histogram`] counts). The block places its keys in shared memory in
//! tile order by digit and stores them with consecutive threads on
//! consecutive keys, which land at consecutive places of the output
//! within a digit; a key's value goes to shared memory beside it, at the
//! same place, and leaves with it.
//!
//! # The buffers
//!
//! | parameter | what it holds |
//! |---|---|
//! | `bins` | `256 ×` [`passes`] `u32` counts, zeroed before [`histogram`] runs, which adds to them |
//! | `status` | [`status_len`] `u64` status words, with `epoch` in `1..2^30` changed on every pass |
//! | dynamic shared memory | [`shared_memory_bytes`] |
//!
//! A sort ping-pongs between the keys and a second buffer as long: pass
//! `p` reads what pass `p - 1` wrote. Blocks have at least 256 threads (a
//! thread a digit in the look-back), a multiple of 32; at most `2^32 - 1`
//! keys (counts are 32 bits).

use crate::backend::target::Target;
use crate::backend::{Faults, Site, WarpCollectives};
use crate::device::arguments::holds;
use crate::device::blocked::{MAX_ITEMS, each_item, items_within};
use crate::device::look_back::{AGGREGATE, INCLUSIVE};
use crate::device::staging::SharedWords;
use crate::memory::atomic::Ordering;
use crate::op::Sum;
use crate::{Out, Shuffle, ThreadBlock, this_grid};

/// Bits of a key a pass sorts by: 8, a digit of 256 values.
pub const RADIX_BITS: u32 = 8;

/// Values of a digit: 256.
pub const DIGITS: usize = 1 << RADIX_BITS;

/// Fewest threads a block of a sort has: one a digit.
pub const MIN_BLOCK_THREADS: u32 = DIGITS as u32;

pub use crate::block::radix_key::{DESCENDING, RadixKey};

/// Passes a sort of bits `begin_bit..end_bit` takes: one a digit of
/// [`RADIX_BITS`], the last maybe narrower (0 for an empty range).
///
/// ```
/// use coop::device::radix_sort::passes;
/// assert_eq!(passes(0, 32), 4);
/// assert_eq!(passes(0, 64), 8);
/// assert_eq!(passes(4, 17), 2);
/// assert_eq!(passes(9, 9), 0);
/// ```
pub const fn passes(begin_bit: u32, end_bit: u32) -> u32 {
    if end_bit <= begin_bit {
        0
    } else {
        (end_bit - begin_bit).div_ceil(RADIX_BITS)
    }
}

/// Keys (with their values) each thread of a pass takes: 24, or as many
/// as fit in 192 bytes of key and value (values of `()` for keys alone).
/// Chapter 7 of the guide has the figures against 16.
///
/// ```
/// use coop::device::radix_sort::items_per_thread;
/// assert_eq!(items_per_thread::<u32, ()>(), 24);
/// assert_eq!(items_per_thread::<u64, ()>(), 24);
/// assert_eq!(items_per_thread::<u64, u32>(), 16);
/// assert_eq!(items_per_thread::<f64, f64>(), 12);
/// ```
pub const fn items_per_thread<K, V>() -> usize {
    items_within(
        core::mem::size_of::<K>() + core::mem::size_of::<V>(),
        ITEMS,
        THREAD_BYTES,
    )
}

/// Most keys a thread takes.
const ITEMS: usize = 24;
/// Keys a thread of [`histogram`] loads at once (a stretch is `threads ×` this).
pub const HISTOGRAM_ITEMS: usize = 16;
/// Most bytes of keys and values a thread takes.
const THREAD_BYTES: usize = 192;

/// Tiles of a pass over `len` keys by blocks of `threads`: the grid of
/// [`onesweep_keys`] (at least 1).
///
/// ```
/// use coop::device::radix_sort::{items_per_thread, tiles};
/// assert_eq!(tiles::<u32, ()>(256 * items_per_thread::<u32, ()>() + 1, 256), 2);
/// assert_eq!(tiles::<u32, ()>(0, 256), 1);
/// ```
pub const fn tiles<K, V>(len: usize, threads: u32) -> usize {
    let tile = threads as usize * items_per_thread::<K, V>();
    let n = len.div_ceil(tile);
    if n == 0 { 1 } else { n }
}

/// `u64` status words a pass over `len` keys by blocks of `threads` needs:
/// one a digit and tile.
///
/// ```
/// use coop::device::radix_sort::{status_len, tiles};
/// assert_eq!(status_len::<u32, ()>(1 << 20, 256), 256 * tiles::<u32, ()>(1 << 20, 256));
/// ```
pub const fn status_len<K, V>(len: usize, threads: u32) -> usize {
    DIGITS * tiles::<K, V>(len, threads)
}

/// `u32` counts a sort of bits `begin_bit..end_bit` needs in `bins`: 256
/// a pass.
///
/// ```
/// use coop::device::radix_sort::bins_len;
/// assert_eq!(bins_len(0, 32), 1024);
/// ```
pub const fn bins_len(begin_bit: u32, end_bit: u32) -> usize {
    DIGITS * passes(begin_bit, end_bit) as usize
}

/// 32-bit words of `T` in shared memory (a value below 4 bytes takes one,
/// `()` none).
const fn words<T: Shuffle>() -> usize {
    T::WORDS
}

/// Bytes of dynamic shared memory a pass with blocks of `threads` needs:
/// 256 counters a warp, where each digit starts a tile, and the tile of
/// keys and of values.
///
/// ```
/// use coop::device::radix_sort::shared_memory_bytes;
/// assert_eq!(shared_memory_bytes::<u32, ()>(256), 4 * (8 * 256 + 256 + 256 * 24));
/// // Keys and values of 4 bytes: 24 pairs a thread, a word of each.
/// assert_eq!(shared_memory_bytes::<u32, u32>(256), 4 * (8 * 256 + 256 + 256 * 24 * 2));
/// ```
pub const fn shared_memory_bytes<K: Shuffle, V: Shuffle>(threads: u32) -> u32 {
    let warps = threads as usize / 32;
    let k = words::<K>();
    let v = words::<V>();
    (4 * (warps * DIGITS + DIGITS + threads as usize * items_per_thread::<K, V>() * (k + v))) as u32
}

/// Bytes of dynamic shared memory a [`histogram`] launch needs: 256
/// counters a pass.
///
/// ```
/// use coop::device::radix_sort::histogram_shared_memory_bytes;
/// assert_eq!(histogram_shared_memory_bytes(0, 64), 4 * 8 * 256);
/// ```
pub const fn histogram_shared_memory_bytes(begin_bit: u32, end_bit: u32) -> u32 {
    4 * bins_len(begin_bit, end_bit) as u32
}

/// What a pass says when its launch gave too little dynamic shared memory.
const PASS_SHARED_TOO_SMALL: &core::ffi::CStr = c"radix sort: the launch's dynamic shared memory is smaller than a pass needs: launch with `coop::device::radix_sort::shared_memory_bytes::<K, V>(threads)` bytes of it (`coop_host::sort::Sorter` does)";

/// What the histogram says when its launch gave too little dynamic shared
/// memory.
const HISTOGRAM_SHARED_TOO_SMALL: &core::ffi::CStr = c"radix sort: the histogram's dynamic shared memory is smaller than 256 counters a pass: launch with `coop::device::radix_sort::histogram_shared_memory_bytes(begin_bit, end_bit)` bytes of it (`coop_host::sort::Sorter` does)";

/// What a pass or the histogram says about a bit range the key lacks.
const BAD_BITS: &core::ffi::CStr = c"radix sort: the bit range is not within the key's bits: `begin_bit <= end_bit <= bits of the key` (`coop_host::sort::Sorter` checks it first)";

/// What a pass says about a block of fewer than 256 threads.
const SMALL_BLOCK: &core::ffi::CStr = c"radix sort: a block of a pass has fewer than 256 threads (one a digit) or a number that is not a multiple of 32";

/// Checks the bit range against `K`'s bits.
#[inline(always)]
fn check_bits<K: RadixKey>(begin_bit: u32, end_bit: u32, site: Site) {
    if begin_bit > end_bit || end_bit > K::BITS {
        Target::check_failed(BAD_BITS, site);
    }
}

/// The shift and width of pass `pass`'s digit.
#[inline(always)]
fn digit_bits(begin_bit: u32, end_bit: u32, pass: u32) -> (u32, u32) {
    let shift = begin_bit + pass * RADIX_BITS;
    let width = if end_bit - shift < RADIX_BITS {
        end_bit - shift
    } else {
        RADIX_BITS
    };
    (shift, width)
}

/// Counts the digits of every pass of a sort of `keys` by bits
/// `begin_bit..end_bit` into `bins` (256 `u32` counts a pass, pass `p`'s
/// from `256 × p`), adding to what `bins` holds: zero it first. Any grid
/// (each block takes every `grid`-th stretch of the keys), blocks of any
/// size with [`histogram_shared_memory_bytes`] of dynamic shared memory.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::radix_sort::{histogram, histogram_shared_memory_bytes};
///
/// #[kernel]
/// pub fn digit_counts(block: ThreadBlock, keys: &[u16], bins: Out<u32>, begin_bit: u32,
///                     end_bit: u32, control: u32) {
///     histogram(block, keys, bins, begin_bit, end_bit, control)
/// }
///
/// let keys = [0x0102u16, 0x0103, 0x0203];
/// let mut bins = vec![0u32; 512];
/// let config = coop_host::LaunchConfig::new(2, 64).with_shared_memory(histogram_shared_memory_bytes(0, 16));
/// coop_host::Cpu::new().launch(digit_counts, config, (&keys[..], &mut bins, 0, 16, 0))?;
/// assert_eq!((bins[2], bins[3]), (1, 2)); // the low bytes
/// assert_eq!((bins[256 + 1], bins[256 + 2]), (2, 1)); // the high bytes
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "DeviceRadixSortHistogramKernel")]
pub fn histogram<K: RadixKey>(
    block: ThreadBlock,
    keys: &[K],
    bins: Out<u32>,
    begin_bit: u32,
    end_bit: u32,
    control: u32,
) {
    let site = core::panic::Location::caller();
    check_bits::<K>(begin_bit, end_bit, site);
    let passes = passes(begin_bit, end_bit);
    let counters = bins_len(begin_bit, end_bit);
    holds(
        c"radix sort: `bins` (256 counts a pass)",
        bins.as_mut_ptr() as *const u8,
        bins.len(),
        counters,
        site,
    );
    let shared = SharedWords::bind(
        "the sort's digit counters",
        counters * 4,
        HISTOGRAM_SHARED_TOO_SMALL,
        site,
    );
    let threads = block.num_threads() as usize;
    let t = block.thread_rank() as usize;
    let mut c = t;
    while c < counters {
        shared.store(c, 0u32, site);
        c += threads;
    }
    block.sync_named("radix sort histogram", site);
    // Stretches of `threads × HISTOGRAM_ITEMS` keys, every `blocks`-th to
    // a block; consecutive threads read consecutive keys, all of a
    // stretch's loads issued before the first count (the counters'
    // atomics would otherwise hold each load back until the one before
    // was counted).
    let grid = this_grid();
    let blocks = grid.num_blocks();
    let stretch = threads * HISTOGRAM_ITEMS;
    let len = keys.len();
    let mut from = grid.block_rank() * stretch;
    while from < len {
        let filler = keys[from];
        let mut key = [filler; MAX_ITEMS];
        each_item!(j < HISTOGRAM_ITEMS => {
            let e = from + j * threads + t;
            if e < len {
                key[j] = keys[e];
            }
        });
        each_item!(j < HISTOGRAM_ITEMS => {
            if from + j * threads + t < len {
                let mut p = 0;
                while p < passes {
                    let (shift, width) = digit_bits(begin_bit, end_bit, p);
                    let d = key[j].digit(shift, width, control) as usize;
                    shared.bump(p as usize * DIGITS + d, site);
                    p += 1;
                }
            }
        });
        from += blocks * stretch;
    }
    block.sync_named("radix sort histogram", site);
    let counts = bins.atomic();
    let mut c = t;
    while c < counters {
        let n = shared.load(c, 0u32, site);
        if n != 0 {
            counts.add(c, n);
        }
        c += threads;
    }
}

/// One pass of a sort of keys: the keys of `keys` to `keys_out`, stably
/// ordered by the digit of pass `pass` of bits `begin_bit..end_bit` (see
/// the [module docs](self) for the parameters). Run [`histogram`] first,
/// then a launch of this a pass, swapping the buffers between passes.
///
/// ```
/// use coop::prelude::*;
/// use coop::device::radix_sort::*;
///
/// #[kernel]
/// pub fn counts(block: ThreadBlock, keys: &[i32], bins: Out<u32>, begin_bit: u32, end_bit: u32,
///               control: u32) {
///     histogram(block, keys, bins, begin_bit, end_bit, control)
/// }
///
/// #[kernel]
/// pub fn sort_pass(block: ThreadBlock, keys: &[i32], keys_out: Out<i32>, bins: &[u32],
///             status: Out<u64>, begin_bit: u32, end_bit: u32, pass: u32, control: u32, epoch: u32) {
///     onesweep_keys(block, keys, keys_out, bins, status, begin_bit, end_bit, pass, control, epoch)
/// }
///
/// let cpu = coop_host::Cpu::new();
/// let mut keys: Vec<i32> = (0..5000).map(|i| (i * 7919) % 6007 - 3000).collect();
/// let mut other = vec![0i32; keys.len()];
/// let (threads, n) = (256, keys.len());
/// let mut bins = vec![0u32; bins_len(0, 32)];
/// let config = coop_host::LaunchConfig::new(4, threads).with_shared_memory(histogram_shared_memory_bytes(0, 32));
/// cpu.launch(counts, config, (&keys, &mut bins, 0, 32, 0))?;
/// let mut status = vec![0u64; status_len::<i32, ()>(n, threads)];
/// let config = coop_host::LaunchConfig::new(tiles::<i32, ()>(n, threads) as u32, threads)
///     .with_shared_memory(shared_memory_bytes::<i32, ()>(threads));
/// for p in 0..passes(0, 32) {
///     cpu.launch(sort_pass, config, (&keys, &mut other, &bins, &mut status, 0, 32, p, 0, p + 1))?;
///     std::mem::swap(&mut keys, &mut other);
/// }
/// assert!(keys.windows(2).all(|w| w[0] <= w[1]));
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "DeviceRadixSort::SortKeys")]
#[doc(alias = "DeviceRadixSortOnesweepKernel")]
pub fn onesweep_keys<K: RadixKey>(
    block: ThreadBlock,
    keys: &[K],
    keys_out: Out<K>,
    bins: &[u32],
    status: Out<u64>,
    begin_bit: u32,
    end_bit: u32,
    pass: u32,
    control: u32,
    epoch: u32,
) {
    let site = core::panic::Location::caller();
    let bits = Bits {
        begin_bit,
        end_bit,
        pass,
        control,
    };
    run::<K, ()>(
        &block, keys, &keys_out, None, bins, &status, bits, epoch, site,
    )
}

/// [`onesweep_keys`] with `values[i]` carried along with `keys[i]` to
/// `values_out` (`values` as long as `keys`).
///
/// ```
/// use coop::prelude::*;
/// use coop::device::radix_sort::*;
///
/// #[kernel]
/// pub fn counts(block: ThreadBlock, keys: &[f32], bins: Out<u32>, begin_bit: u32, end_bit: u32,
///               control: u32) {
///     histogram(block, keys, bins, begin_bit, end_bit, control)
/// }
///
/// #[kernel]
/// pub fn sort_pass(block: ThreadBlock, keys: &[f32], keys_out: Out<f32>, values: &[u32],
///             values_out: Out<u32>, bins: &[u32], status: Out<u64>, begin_bit: u32, end_bit: u32,
///             pass: u32, control: u32, epoch: u32) {
///     onesweep_pairs(block, keys, keys_out, values, values_out, bins, status, begin_bit,
///                    end_bit, pass, control, epoch)
/// }
///
/// let cpu = coop_host::Cpu::new();
/// let mut keys = vec![2.5f32, -1.0, 2.5, 0.0, -7.25];
/// let mut values: Vec<u32> = (0..5).collect();
/// let (mut k2, mut v2) = (vec![0f32; 5], vec![0u32; 5]);
/// let mut bins = vec![0u32; bins_len(0, 32)];
/// let config = coop_host::LaunchConfig::new(1, 256).with_shared_memory(histogram_shared_memory_bytes(0, 32));
/// cpu.launch(counts, config, (&keys, &mut bins, 0, 32, DESCENDING))?;
/// let mut status = vec![0u64; status_len::<f32, u32>(5, 256)];
/// let config = coop_host::LaunchConfig::new(1, 256).with_shared_memory(shared_memory_bytes::<f32, u32>(256));
/// for p in 0..4 {
///     cpu.launch(sort_pass, config, (&keys, &mut k2, &values, &mut v2, &bins, &mut status, 0, 32, p, DESCENDING, p + 1))?;
///     std::mem::swap(&mut keys, &mut k2);
///     std::mem::swap(&mut values, &mut v2);
/// }
/// assert_eq!(keys, [2.5, 2.5, 0.0, -1.0, -7.25]);
/// assert_eq!(values, [0, 2, 3, 1, 4]); // equal keys in their input order
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "DeviceRadixSort::SortPairs")]
pub fn onesweep_pairs<K: RadixKey, V: Shuffle>(
    block: ThreadBlock,
    keys: &[K],
    keys_out: Out<K>,
    values: &[V],
    values_out: Out<V>,
    bins: &[u32],
    status: Out<u64>,
    begin_bit: u32,
    end_bit: u32,
    pass: u32,
    control: u32,
    epoch: u32,
) {
    let site = core::panic::Location::caller();
    holds(
        c"radix sort: the values (one a key)",
        values.as_ptr() as *const u8,
        values.len(),
        keys.len(),
        site,
    );
    holds(
        c"radix sort: the values' output (at least as long as the keys)",
        values_out.as_mut_ptr() as *const u8,
        values_out.len(),
        keys.len(),
        site,
    );
    let bits = Bits {
        begin_bit,
        end_bit,
        pass,
        control,
    };
    run::<K, V>(
        &block,
        keys,
        &keys_out,
        Some((values, &values_out)),
        bins,
        &status,
        bits,
        epoch,
        site,
    )
}

/// Which bits a pass sorts by.
#[derive(Clone, Copy)]
struct Bits {
    begin_bit: u32,
    end_bit: u32,
    pass: u32,
    control: u32,
}

/// A digit no key has: the items past the end of the input.
pub(crate) const NO_DIGIT: u32 = DIGITS as u32;

/// One pass over this block's tile; see the module docs.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run<K: RadixKey, V: Shuffle>(
    block: &ThreadBlock,
    keys: &[K],
    keys_out: &Out<K>,
    values: Option<(&[V], &Out<V>)>,
    bins: &[u32],
    status: &Out<u64>,
    bits: Bits,
    epoch: u32,
    site: Site,
) {
    let len = keys.len();
    check_bits::<K>(bits.begin_bit, bits.end_bit, site);
    let Bits {
        begin_bit,
        end_bit,
        pass,
        control,
    } = bits;
    if pass >= passes(begin_bit, end_bit) {
        Target::check_failed(
            c"radix sort: `pass` is not a pass of the bit range (`0..passes(begin_bit, end_bit)`)",
            site,
        );
    }
    holds(
        c"radix sort: the keys' output (at least as long as the keys)",
        keys_out.as_mut_ptr() as *const u8,
        keys_out.len(),
        len,
        site,
    );
    holds(
        c"radix sort: `bins` (256 counts a pass)",
        bins.as_ptr() as *const u8,
        bins.len(),
        bins_len(begin_bit, end_bit),
        site,
    );
    let threads = block.num_threads() as usize;
    if threads < DIGITS || !threads.is_multiple_of(32) {
        Target::check_failed(SMALL_BLOCK, site);
    }
    let items = items_per_thread::<K, V>();
    let tile_len = threads * items;
    let tile = this_grid().block_rank();
    let first = tile * tile_len;
    if first >= len {
        return;
    }
    holds(
        c"radix sort: `status` (256 words a tile)",
        status.as_mut_ptr() as *const u8,
        status.len(),
        (tile + 1) * DIGITS,
        site,
    );
    let valid = if first + tile_len <= len {
        tile_len
    } else {
        len - first
    };
    let (shift, width) = digit_bits(begin_bit, end_bit, pass);
    let warps = threads / 32;
    // The shared words: each warp's 256 counters, then where each digit
    // goes in the output less where it starts in the tile, then the tile's
    // keys, then its values, each in the tile's sorted order.
    let counters = 0;
    let bases = warps * DIGITS;
    let staged = bases + DIGITS;
    let k_words = words::<K>();
    let staged_values = staged + tile_len * k_words;
    let shared = SharedWords::bind(
        "the sort's tile",
        shared_memory_bytes::<K, V>(threads as u32) as usize,
        PASS_SHARED_TOO_SMALL,
        site,
    );
    let t = block.thread_rank() as usize;
    let warp = block.tiled_partition_at::<32>(site);
    let lane = warp.thread_rank_at(site) as usize;
    let w = t / 32;
    let mut c = t;
    while c < warps * DIGITS {
        shared.store(counters + c, 0u32, site);
        c += threads;
    }
    // Warp `w` takes keys `w × 32 × items ..` of the tile, lane `l` item
    // `i` the key `i × 32 + l` of those.
    let warp_first = w * 32 * items;
    let filler = keys[first];
    let mut key = [filler; MAX_ITEMS];
    each_item!(i < items => {
        let e = warp_first + i * 32 + lane;
        if e < valid {
            // SAFETY: `first + e < first + valid <= len`.
            key[i] = unsafe { *keys.get_unchecked(first + e) };
        }
    });
    let value = match values {
        Some((values, _)) => {
            let mut value = [values[first]; MAX_ITEMS];
            each_item!(i < items => {
                let e = warp_first + i * 32 + lane;
                if e < valid {
                    // SAFETY: `first + e < len <= values.len()`, which
                    // `onesweep_pairs` checked (`holds`) before this pass.
                    value[i] = unsafe { *values.get_unchecked(first + e) };
                }
            });
            Some(value)
        }
        None => None,
    };
    block.sync_named("radix sort", site);
    // Early counts: each warp counts its keys of each digit.
    let mut digit = [0u32; MAX_ITEMS];
    each_item!(i < items => {
        let e = warp_first + i * 32 + lane;
        if e < valid {
            let d = key[i].digit(shift, width, control);
            digit[i] = d;
            shared.bump(counters + w * DIGITS + d as usize, site);
        } else {
            digit[i] = NO_DIGIT;
        }
    });
    block.sync_named("radix sort", site);
    // Thread `d` of the first 256: the tile's count of digit `d`, which it
    // publishes at once (the tiles after look back over it while this one
    // ranks its keys), and the warps' counts of it made into where each
    // warp's keys of it start among the tile's keys of it.
    let mine = t < DIGITS;
    let mut count = 0u32;
    if mine {
        let mut v = 0;
        while v < warps {
            let at = counters + v * DIGITS + t;
            let n = shared.load(at, 0u32, site);
            shared.store(at, count, site);
            count += n;
            v += 1;
        }
        publish_digit(status, tile, t, count, epoch);
    }
    // Where digit `d` starts in the tile and in the output.
    let in_tile = crate::collectives::exclusive_scan_by_warps(block, count, Sum, site);
    let bin = if mine {
        bins[pass as usize * DIGITS + t]
    } else {
        0
    };
    let in_output = crate::collectives::exclusive_scan_by_warps(block, bin, Sum, site);
    if mine {
        let mut v = 0;
        while v < warps {
            let at = counters + v * DIGITS + t;
            let start = shared.load(at, 0u32, site);
            shared.store(at, start + in_tile, site);
            v += 1;
        }
    }
    block.sync_named("radix sort", site);
    // Each key's place in the tile, item by item (in the keys' order):
    // where its warp's keys of its digit start, plus those of them before
    // this item, plus the lanes below with the digit in this item. The
    // highest of those lanes moves the warp's start on by their number.
    // The key, and its value, go to that place in the tile at once.
    let below_me = (1u32 << lane) - 1;
    let v_words = words::<V>();
    each_item!(i < items => {
        let d = digit[i];
        let peers = lanes_with(d, site);
        let highest = 31 - peers.leading_zeros();
        let mut start = 0;
        if lane as u32 == highest && d != NO_DIGIT {
            start = shared.add(counters + w * DIGITS + d as usize, peers.count_ones(), site);
        }
        let start = warp.shfl_at(start, highest, site);
        let r = start + (peers & below_me).count_ones();
        if d != NO_DIGIT {
            shared.store(staged + r as usize * k_words, key[i], site);
            if let Some(value) = &value {
                shared.store(staged_values + r as usize * v_words, value[i], site);
            }
        }
    });
    // The keys of digit `d` in the tiles before, by look-back over their
    // counts, which by now most have published.
    if mine {
        let before = look_back_digit(status, tile, t, count, epoch);
        shared.store(
            bases + t,
            in_output.wrapping_add(before).wrapping_sub(in_tile),
            site,
        );
    }
    block.sync_named("radix sort", site);
    // Consecutive threads store consecutive keys of the tile (and their
    // values), each to where its digit goes in the output plus its place
    // in the tile.
    let value_like = values.map(|(values, _)| values[first]);
    each_item!(j < items => {
        let e = j * threads + t;
        if e < valid {
            let k = shared.load(staged + e * k_words, filler, site);
            let d = k.digit(shift, width, control);
            let at = shared.load(bases + d as usize, 0u32, site).wrapping_add(e as u32);
            keys_out.write(at as usize, k);
            if let (Some((_, values_out)), Some(like)) = (values, value_like) {
                let v = shared.load(staged_values + e * v_words, like, site);
                values_out.write(at as usize, v);
            }
        }
    });
}

/// The lanes of the warp whose `digit` (at most [`NO_DIGIT`]) is this
/// lane's: one ballot a bit of the digit and of the bit that marks keys
/// past the input's end, as CUB's ranking finds them (chapter 7 of the
/// guide has the figures against `match.any.sync` and against ballots
/// written with the compiler's own bit tests); on the CPU backend one
/// meeting of the lanes, `match_any` of the same bits.
#[inline(always)]
pub(crate) fn lanes_with(digit: u32, site: Site) -> u32 {
    Target::match_low_bits::<{ RADIX_BITS + 1 }>(u32::MAX, digit, site)
}

/// A status word: `count << 32 | epoch << 2 | flag`.
#[inline(always)]
fn status_word(flag: u32, count: u32, epoch: u32) -> u64 {
    (count as u64) << 32 | (epoch << 2 | flag) as u64
}

/// Thread `d` of tile `tile` publishes the tile's `count` of keys of digit
/// `d`: inclusive for tile 0, an aggregate for the others. Stored relaxed:
/// the word orders nothing but itself.
#[inline(always)]
fn publish_digit(status: &Out<u64>, tile: usize, d: usize, count: u32, epoch: u32) {
    let flag = if tile == 0 { INCLUSIVE } else { AGGREGATE };
    status
        .atomic()
        .with_ordering(Ordering::Relaxed)
        .store(tile * DIGITS + d, status_word(flag, count, epoch));
}

/// Thread `d` of tile `tile` (which published its `count` of digit `d`
/// with [`publish_digit`]): adds the counts of the tiles before, nearest
/// first, waiting for each to publish, until one holds an inclusive
/// count; publishes its own inclusive count and returns the keys of digit
/// `d` in the tiles before.
#[inline(always)]
fn look_back_digit(status: &Out<u64>, tile: usize, d: usize, count: u32, epoch: u32) -> u32 {
    if tile == 0 {
        return 0;
    }
    let words = status.atomic().with_ordering(Ordering::Relaxed);
    let mut before = 0u32;
    let mut j = tile;
    loop {
        j -= 1;
        let found = loop {
            let found = words.load(j * DIGITS + d);
            if (found as u32) >> 2 == epoch && found & 3 != 0 {
                break found;
            }
        };
        before = before.wrapping_add((found >> 32) as u32);
        if found & 3 == INCLUSIVE as u64 {
            break;
        }
    }
    words.store(
        tile * DIGITS + d,
        status_word(INCLUSIVE, before.wrapping_add(count), epoch),
    );
    before
}
