//! Segmented sort as functions a kernel calls: the keys of each segment of
//! a buffer (segments given by offsets, CSR style: segment `s` is
//! `keys[offsets[s]..offsets[s + 1]]`), or keys with values carried along,
//! sorted in place, in ascending or descending order, stable, segments of
//! any length from 0 to the whole buffer in one call (CUB's
//! `DeviceSegmentedSort`). Keys are the radix sort's ([`RadixKey`]) and
//! compare as it orders them: `-0.0` equal to `0.0`, NaNs by their bits.
//! Keys and values outside every segment are left as they are.
//!
//! `coop_host::sort::SegmentedSorter` runs it for the built-in key types;
//! a kernel of yours calls [`segmented_sort_keys`] or
//! [`segmented_sort_pairs`] the same way.
//!
//! # Phases
//!
//! One kernel, launched once a phase with the same block size, `phase`
//! telling them apart. Each segment is sorted by the strategy its length
//! calls for, merging throughout:
//!
//! | phase | segments | who sorts one | how |
//! |---|---|---|---|
//! | [`CLASSIFY`] | all | — | a thread a segment checks its offsets (the first bad segment is recorded in `work`, and then no phase sorts anything) and lists the segments longer than a warp's tile with their length's class |
//! | [`SMALL`] | up to [`THREAD_MAX`] elements | a thread | a warp takes 32 consecutive segments, a lane each: its keys in registers, an odd-even transposition network |
//! | [`SMALL`] | up to [`WARP_MAX`] elements | a lane group of 4, 8, 16 or 32 | the smallest group whose tile (its lanes `×` [`ITEMS`]) holds the segment, as many groups at once as the warp has: striped loads, to blocked through the warp's part of shared memory, a merge sort of the tile (each lane sorts its items, then runs are merged pairwise along their merge paths, as many rounds as the group's tile takes), striped stores |
//! | [`BLOCKS`] | up to the block's tile, `threads ×` [`ITEMS`] | a block | the same merge sort with the block's threads |
//! | [`BLOCKS`] | longer | many blocks | the listed long segments' tiles, laid end to end after the medium segments, one block a tile: each tile sorted as a segment of a block's |
//! | [`MERGE`] `+ 2p` | longer | many warps | pass `p`'s partition: a warp an output tile finds where the tile's inputs start in the pair of sorted runs of `tile × 2^p` it merges from (the merge path at its first output, 32 points of global memory a step) |
//! | [`MERGE`] `+ 2p + 1` | longer | many blocks | pass `p`'s merge into the other buffer, a block an output tile: it loads the tile's inputs from the two runs and merges them as in a tile |
//!
//! | [`RADIX`] | longer (and up to the block's tile) | a block | instead of [`BLOCKS`] and [`MERGE`]: the medium segments as in [`BLOCKS`], and each long segment whole, by radix passes of 8 bits (4 for 1-byte keys) from the lowest digit: a pass counts the segment's digits (each warp its own counters in shared memory), then takes its tiles in order, ranks each tile's keys by digit with warp ballots as the device-wide sort does, and stores them from the tile in shared memory to where their digit's run has got to |
//!
//! The long segments go through as many merge passes as the longest of
//! them needs ([`merge_passes`]), ping-ponging between the keys and a
//! second buffer as long, so that they end in the keys: the tile sort
//! writes into the second buffer when that number is odd. On the radix
//! route ([`RADIX`]) every key type takes an even number of passes
//! ([`radix_passes`]), so the keys end in their own buffer too. Which
//! route is faster depends on the segments: the radix route does a long
//! segment's work in one block, which pays when there are many long
//! segments to keep the GPU busy and none much longer than the rest;
//! merging spreads a long segment over many blocks. The host chooses
//! after [`CLASSIFY`] from the [`Header`] (`coop_host::sort::LongSegments`).
//!
//! # The buffers
//!
//! | parameter | what it holds |
//! |---|---|
//! | `keys_alt`, `values_alt` | as long as `keys`, or empty when no segment is longer than the block's tile |
//! | `work` | [`work_len`] `u64`s, the first [`HEADER`] zero before [`CLASSIFY`]: after it, `work[BAD_SEGMENT_WORD]` says whether an offset is out of order, and the rest of the header what the next phases have to do ([`Header`]) |
//! | dynamic shared memory | [`shared_memory_bytes`] |
//!
//! ```
//! use coop::prelude::*;
//! use coop::device::segmented::Offset;
//! use coop::device::segmented_sort::*;
//!
//! #[kernel]
//! pub fn sort_rows(block: ThreadBlock, keys: InOut<f32>, keys_alt: InOut<f32>, offsets: &[u32],
//!                  phase: u32, control: u32, work: Out<u64>) {
//!     segmented_sort_keys(block, keys, keys_alt, offsets, phase, control, work)
//! }
//!
//! // Rows of a sparse matrix: [3.5, -1], [], [2, 7, 0.5, 2]
//! let mut keys = vec![3.5f32, -1.0, 2.0, 7.0, 0.5, 2.0];
//! let offsets = [0u32, 2, 2, 6];
//! let cpu = coop_host::Cpu::new();
//! let threads = 64;
//! let config = coop_host::LaunchConfig::new(2, threads)
//!     .with_shared_memory(shared_memory_bytes::<f32, ()>(threads));
//! let mut work = vec![0u64; work_len(keys.len(), 3)];
//! let mut alt: Vec<f32> = Vec::new(); // no segment is longer than a block's tile
//! for phase in [CLASSIFY, SMALL, BLOCKS] {
//!     cpu.launch(sort_rows, config, (&mut keys, &mut alt, &offsets[..], phase, 0, &mut work))?;
//! }
//! assert_eq!(Header::read(&work[..HEADER]).first_bad_segment, None);
//! assert_eq!(keys, [-1.0, 3.5, 0.5, 2.0, 2.0, 7.0]);
//! # Ok::<(), coop_host::Error>(())
//! ```

use crate::backend::target::Target;
use crate::backend::{Faults, Site};
use crate::block::items::for_items;
use crate::block::merge_sort::{MergeScratch, merge_path_warp, sort_items, sort_tile};
use crate::block::radix_key::KeyBits;
pub use crate::block::radix_key::{DESCENDING, RadixKey};
use crate::device::arguments::holds;
use crate::device::radix_sort::{NO_DIGIT, lanes_with};
use crate::device::segmented::{Offset, Offsets};
use crate::device::staging::SharedWords;
use crate::op::Sum;
use crate::{Out, Shuffle, ThreadBlock, TiledPartition, this_grid};

/// The first phase: offsets checked, longer segments listed.
pub const CLASSIFY: u32 = 0;
/// The second phase: threads and warps sort the short segments.
pub const SMALL: u32 = 1;
/// The third phase: a block sorts each listed segment of at most its tile,
/// and each tile of the longer ones.
pub const BLOCKS: u32 = 2;
/// The radix route, in place of [`BLOCKS`] and [`MERGE`]: a block sorts
/// each listed medium segment as [`BLOCKS`] does, and each long segment
/// whole, by radix passes over its tiles (blocks of at least
/// [`RADIX_MIN_THREADS`]). A number apart from the merge passes' phases.
pub const RADIX: u32 = 256;
/// The merge passes over the long segments: pass `p` is two phases,
/// `MERGE + 2p` (where each output tile's inputs start) and `MERGE + 2p +
/// 1` (the merge).
pub const MERGE: u32 = 3;

/// The fewest threads of a block that sorts long segments by radix
/// ([`RADIX`]): a thread a digit of 8 bits.
///
/// ```
/// assert_eq!(coop::device::segmented_sort::RADIX_MIN_THREADS, 256);
/// ```
pub const RADIX_MIN_THREADS: u32 = 256;

/// Digits of a radix pass of [`RADIX`]: 8 bits, 256 digits.
const RADIX_DIGITS: usize = 256;

/// Bits of a digit of a [`RADIX`] pass over keys of `bits` bits: 8, or 4
/// for 1-byte keys, so that every key type takes an even number of
/// passes and the keys end in their own buffer.
///
/// ```
/// use coop::device::segmented_sort::{radix_digit_bits, radix_passes};
/// assert_eq!((radix_digit_bits(32), radix_passes(32)), (8, 4));
/// assert_eq!((radix_digit_bits(8), radix_passes(8)), (4, 2));
/// assert_eq!(radix_passes(64), 8);
/// ```
pub const fn radix_digit_bits(bits: u32) -> u32 {
    if bits == 8 { 4 } else { 8 }
}

/// Passes of [`RADIX`] over keys of `bits` bits (always even).
pub const fn radix_passes(bits: u32) -> u32 {
    bits / radix_digit_bits(bits)
}

/// Items a thread holds in a warp's or a block's sort.
pub const ITEMS: usize = 8;

/// The longest segment a warp sorts: `32 ×` [`ITEMS`].
pub const WARP_MAX: usize = 32 * ITEMS;

/// The longest segment one thread sorts alone.
pub const THREAD_MAX: usize = 8;

/// The block's tile with `threads` threads, `threads ×` [`ITEMS`]: the
/// longest segment one block sorts, and the unit the long segments are
/// cut into.
///
/// ```
/// assert_eq!(coop::device::segmented_sort::block_tile(256), 2048);
/// ```
pub const fn block_tile(threads: u32) -> usize {
    threads as usize * ITEMS
}

/// 32-bit words a value of `T` takes in shared memory.
const fn words<T: Shuffle>() -> usize {
    T::WORDS
}

/// Bytes of dynamic shared memory every phase needs with blocks of
/// `threads`: the block's tile of keys and values (the warps' tiles are
/// its parts), and from [`RADIX_MIN_THREADS`] on the radix route's
/// counters (256 words a warp and 256 more).
///
/// ```
/// use coop::device::segmented_sort::shared_memory_bytes;
/// assert_eq!(shared_memory_bytes::<u32, u32>(64), 4 * 64 * 8 * 2);
/// assert_eq!(shared_memory_bytes::<u32, u32>(256), 4 * 256 * 8 * 2 + 4 * 256 * (8 + 1));
/// ```
pub const fn shared_memory_bytes<K: Shuffle, V: Shuffle>(threads: u32) -> u32 {
    let per = words::<K>() + words::<V>();
    (4 * (block_tile(threads) * per + radix_counters(threads))) as u32
}

/// Words of the radix route's counters after the tile: each warp's count
/// of each digit, then where each digit of a tile goes (none for blocks
/// too small for the route).
const fn radix_counters(threads: u32) -> usize {
    if threads >= RADIX_MIN_THREADS {
        (threads as usize / 32 + 1) * RADIX_DIGITS
    } else {
        0
    }
}

/// Words of `work` the host reads after [`CLASSIFY`] ([`Header`]), zero
/// before it.
pub const HEADER: usize = 4;
/// `work[0]`: `u64::MAX - s` for the first segment `s` with offsets out of
/// order, 0 for none.
pub const BAD_SEGMENT_WORD: usize = 0;
/// `work[1]`: medium segments listed.
const MEDIUM_COUNT: usize = 1;
/// `work[2]`: long segments listed (upper 24 bits) and their tiles (lower
/// 40), taken by one atomic add so that the list is in the order of the
/// tiles.
const LARGE_COUNT: usize = 2;
/// `work[3]`: the longest listed long segment.
const LONGEST: usize = 3;
const TILE_BITS: u32 = 40;

/// The most segments a list can hold: segments longer than a warp's tile.
const fn capacity(len: usize, segments: usize) -> usize {
    let most = len / (WARP_MAX + 1);
    if most < segments { most } else { segments }
}

/// Elements of `work` (`u64`) a sort of `len` keys in `segments` segments
/// needs: the header, the lists, and where each tile of the long segments
/// starts its merge (at most `len / 128 + 1` tiles: blocks of one warp have
/// tiles of 256, and each long segment is more than one).
///
/// ```
/// use coop::device::segmented_sort::{work_len, HEADER};
/// assert_eq!(work_len(100, 10), HEADER + 1);
/// assert_eq!(work_len(1000, 10), HEADER + 3 * 3 + 8);
/// ```
pub const fn work_len(len: usize, segments: usize) -> usize {
    HEADER + 3 * capacity(len, segments) + len / 128 + 1
}

/// What [`CLASSIFY`] found, read from the first [`HEADER`] words of
/// `work`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The first segment whose offsets decrease or pass the end of the
    /// keys; then no phase sorts anything.
    pub first_bad_segment: Option<usize>,
    /// Segments a block sorts alone ([`BLOCKS`]).
    pub medium: usize,
    /// Segments longer than a block's tile ([`BLOCKS`] and [`MERGE`]).
    pub large: usize,
    /// Their tiles.
    pub large_tiles: usize,
    /// Elements of the longest of them.
    pub longest: usize,
}

impl Header {
    /// The header in `words` (the first [`HEADER`] of `work`).
    ///
    /// ```
    /// use coop::device::segmented_sort::Header;
    /// let h = Header::read(&[0, 3, 2 << 40 | 9, 20000]);
    /// assert_eq!((h.first_bad_segment, h.medium, h.large, h.large_tiles, h.longest), (None, 3, 2, 9, 20000));
    /// assert_eq!(Header::read(&[u64::MAX - 4, 0, 0, 0]).first_bad_segment, Some(4));
    /// ```
    pub const fn read(words: &[u64]) -> Header {
        let bad = words[BAD_SEGMENT_WORD];
        let large = words[LARGE_COUNT];
        Header {
            first_bad_segment: if bad == 0 {
                None
            } else {
                Some((u64::MAX - bad) as usize)
            },
            medium: words[MEDIUM_COUNT] as usize,
            large: (large >> TILE_BITS) as usize,
            large_tiles: (large & ((1 << TILE_BITS) - 1)) as usize,
            longest: words[LONGEST] as usize,
        }
    }
}

/// Merge passes that bring runs of `tile` elements to one sorted run of
/// `longest`: `⌈log2(⌈longest / tile⌉)⌉`.
///
/// ```
/// use coop::device::segmented_sort::merge_passes;
/// assert_eq!(merge_passes(4096, 4096), 0);
/// assert_eq!(merge_passes(4097, 4096), 1);
/// assert_eq!(merge_passes(3 * 4096, 4096), 2);
/// assert_eq!(merge_passes(1 << 20, 4096), 8);
/// ```
pub const fn merge_passes(longest: usize, tile: usize) -> u32 {
    let tiles = longest.div_ceil(tile);
    if tiles <= 1 {
        0
    } else {
        usize::BITS - (tiles - 1).leading_zeros()
    }
}

/// What the phases say when the launch gave too little dynamic shared
/// memory.
const SHARED_TOO_SMALL: &core::ffi::CStr = c"segmented sort: the launch's dynamic shared memory is smaller than the sort needs: launch with `coop::device::segmented_sort::shared_memory_bytes::<K, V>(threads)` bytes of it (`coop_host::sort::SegmentedSorter` does)";

/// What [`RADIX`] says about a block of fewer than [`RADIX_MIN_THREADS`].
const RADIX_SMALL_BLOCK: &core::ffi::CStr = c"segmented sort: the radix route (phase `RADIX`) needs blocks of at least 256 threads (`coop::device::segmented_sort::RADIX_MIN_THREADS`: a thread a digit); sort long segments with smaller blocks by the merge route (`BLOCKS`, then `MERGE`)";

/// What a phase says in a kernel built without it.
const NOT_IN_KERNEL: &core::ffi::CStr = c"segmented sort: this kernel was built without the phase it was launched with (coop-host runs the radix route's phase `RADIX` in a kernel of its own)";

/// What the phases say about a block that is not whole warps.
const BAD_BLOCK: &core::ffi::CStr =
    c"segmented sort: a block's threads are not a multiple of 32 (the short segments are sorted by warps)";

/// One phase of the sort of each segment of `keys` (see the [module
/// docs](self)): launch it with [`CLASSIFY`], [`SMALL`], [`BLOCKS`],
/// then [`MERGE`] `+ 2p` and `+ 2p + 1` for each merge pass `p`, or with
/// [`CLASSIFY`], [`SMALL`] and [`RADIX`] (blocks of at least
/// [`RADIX_MIN_THREADS`]), over the same buffers, blocks and `control`
/// ([`DESCENDING`] or 0). The host reads the
/// [`Header`] after the first phase to size the others (a phase with
/// nothing to do may be left out).
///
/// See the [module docs](self) for an example.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "DeviceSegmentedSort::SortKeys")]
pub fn segmented_sort_keys<K: RadixKey, Off: Offset>(
    block: ThreadBlock,
    keys: Out<K>,
    keys_alt: Out<K>,
    offsets: &[Off],
    phase: u32,
    control: u32,
    work: Out<u64>,
) {
    let site = core::panic::Location::caller();
    // SAFETY: a key and the unsigned integer of its width have the same
    // size and alignment, and any bits are either.
    let (keys, keys_alt) = unsafe { (keys.cast::<K::Bits>(), keys_alt.cast::<K::Bits>()) };
    segmented_sort_words::<K::Bits, u32>(
        block,
        keys,
        keys_alt,
        None,
        Off::view(offsets),
        phase,
        words_control(K::KIND, control),
        work,
        site,
    )
}

/// [`segmented_sort_keys`] with `values[i]` carried along with `keys[i]`
/// (`values` as long as `keys`, `values_alt` as `keys_alt`).
///
/// ```
/// use coop::prelude::*;
/// use coop::device::segmented_sort::*;
///
/// #[kernel]
/// pub fn by_score(block: ThreadBlock, keys: InOut<i32>, keys_alt: InOut<i32>, values: InOut<u32>,
///                 values_alt: InOut<u32>, offsets: &[u64], phase: u32, control: u32,
///                 work: Out<u64>) {
///     segmented_sort_pairs(block, keys, keys_alt, values, values_alt, offsets, phase, control,
///                          work)
/// }
///
/// let mut keys = vec![5i32, -2, 5, 9, 1, 1, 0];
/// let mut values: Vec<u32> = (0..7).collect();
/// let offsets = [0u64, 4, 7];
/// let threads = 32;
/// let config = coop_host::LaunchConfig::new(1, threads)
///     .with_shared_memory(shared_memory_bytes::<i32, u32>(threads));
/// let mut work = vec![0u64; work_len(7, 2)];
/// let (mut ka, mut va) = (Vec::<i32>::new(), Vec::<u32>::new());
/// for phase in [CLASSIFY, SMALL, BLOCKS] {
///     coop_host::Cpu::new().launch(by_score, config,
///         (&mut keys, &mut ka, &mut values, &mut va, &offsets[..], phase, DESCENDING, &mut work))?;
/// }
/// assert_eq!(keys, [9, 5, 5, -2, 1, 1, 0]);
/// assert_eq!(values, [3, 0, 2, 1, 4, 5, 6]); // equal keys in their order
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
#[doc(alias = "DeviceSegmentedSort::SortPairs")]
pub fn segmented_sort_pairs<K: RadixKey, V: Shuffle, Off: Offset>(
    block: ThreadBlock,
    keys: Out<K>,
    keys_alt: Out<K>,
    values: Out<V>,
    values_alt: Out<V>,
    offsets: &[Off],
    phase: u32,
    control: u32,
    work: Out<u64>,
) {
    let site = core::panic::Location::caller();
    // SAFETY: as in `segmented_sort_keys`.
    let (keys, keys_alt) = unsafe { (keys.cast::<K::Bits>(), keys_alt.cast::<K::Bits>()) };
    segmented_sort_words(
        block,
        keys,
        keys_alt,
        Some((values, values_alt)),
        Off::view(offsets),
        phase,
        words_control(K::KIND, control),
        work,
        site,
    )
}

/// The control word of [`segmented_sort_words`]: the sort's `control`
/// ([`DESCENDING`](crate::block::DESCENDING) or 0) and the kind of key
/// whose bits it sorts (`RadixKey::KIND`).
#[doc(hidden)]
pub const fn words_control(kind: u32, control: u32) -> u32 {
    (control & DESCENDING) | kind << 1
}

/// [`segmented_sort_pairs`] (values `Some`) or [`segmented_sort_keys`]
/// (`None`, with `V` any word) of keys given as their bits, the kind of
/// key in `control` ([`words_control`]), over offsets of either width
/// behind one code path: coop-host's kernels serve every key type of a
/// width and both offset widths with one kernel.
#[doc(hidden)]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn segmented_sort_words<W: KeyBits, V: Shuffle>(
    block: ThreadBlock,
    keys: Out<W>,
    keys_alt: Out<W>,
    values: Option<(Out<V>, Out<V>)>,
    offsets: Offsets<'_>,
    phase: u32,
    control: u32,
    work: Out<u64>,
    site: Site,
) {
    segmented_sort_routes::<W, V, { MERGE_ROUTE | RADIX_ROUTE }>(
        block, keys, keys_alt, values, offsets, phase, control, work, site,
    )
}

/// The phases of the merge route ([`CLASSIFY`], [`SMALL`], [`BLOCKS`],
/// [`MERGE`]) in [`segmented_sort_routes`].
#[doc(hidden)]
pub const MERGE_ROUTE: u32 = 1;
/// The [`RADIX`] phase in [`segmented_sort_routes`].
#[doc(hidden)]
pub const RADIX_ROUTE: u32 = 2;

/// [`segmented_sort_words`] with only the phases of `ROUTES`
/// ([`MERGE_ROUTE`], [`RADIX_ROUTE`] or both) in the kernel: coop-host
/// runs [`RADIX`] in a kernel of its own, so that the registers of each
/// route's code are its own; another phase faults.
#[doc(hidden)]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn segmented_sort_routes<W: KeyBits, V: Shuffle, const ROUTES: u32>(
    block: ThreadBlock,
    keys: Out<W>,
    keys_alt: Out<W>,
    values: Option<(Out<V>, Out<V>)>,
    offsets: Offsets<'_>,
    phase: u32,
    control: u32,
    work: Out<u64>,
    site: Site,
) {
    let keys = Buffers {
        main: &keys,
        alt: &keys_alt,
    };
    match &values {
        Some((main, alt)) => {
            holds(
                c"segmented sort: the values (one a key)",
                main.as_mut_ptr() as *const u8,
                main.len(),
                keys.main.len(),
                site,
            );
            let values = Values(Buffers { main, alt });
            run::<W, Values<'_, '_, V>, ROUTES>(
                &block, keys, values, offsets, phase, control, &work, site,
            )
        }
        None => {
            run::<W, NoValues, ROUTES>(&block, keys, NoValues, offsets, phase, control, &work, site)
        }
    }
}

/// A buffer and its second buffer, read and written by place.
struct Buffers<'a, 'b, T> {
    main: &'a Out<'b, T>,
    alt: &'a Out<'b, T>,
}

impl<T> Clone for Buffers<'_, '_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Buffers<'_, '_, T> {}

impl<T: Copy> Buffers<'_, '_, T> {
    /// Element `i` of the buffer, or of the second.
    #[inline(always)]
    fn read(&self, alt: bool, i: usize) -> T {
        let buffer = if alt { self.alt } else { self.main };
        // SAFETY: every index a phase reads is below the end of a segment
        // whose offsets `CLASSIFY` checked against the keys' length; the
        // values are as long (`holds` in `segmented_sort_view`), and the
        // second buffers too where a phase reads them (`holds` in `run`).
        unsafe { buffer.read_in_bounds(i) }
    }

    /// Writes element `i` of the buffer, or of the second.
    #[inline(always)]
    fn write(&self, alt: bool, i: usize, value: T) {
        let buffer = if alt { self.alt } else { self.main };
        // SAFETY: as in `read`.
        unsafe { buffer.write_in_bounds(i, value) }
    }

    /// Faults unless the second buffer is as long as the first.
    #[inline(always)]
    fn check_alt(&self, what: &'static core::ffi::CStr, site: Site) {
        holds(
            what,
            self.alt.as_mut_ptr() as *const u8,
            self.alt.len(),
            self.main.len(),
            site,
        );
    }
}

/// What moves with the keys: nothing, or values.
trait Carried: Copy {
    /// A value (`()` for none).
    type Item: Shuffle;
    fn read(&self, alt: bool, i: usize) -> Self::Item;
    fn write(&self, alt: bool, i: usize, value: Self::Item);
    /// Faults unless the second buffer is as long as the first.
    fn check_alt(&self, site: Site);
}

/// Keys alone.
#[derive(Clone, Copy)]
struct NoValues;

impl Carried for NoValues {
    type Item = ();
    #[inline(always)]
    fn read(&self, _: bool, _: usize) {}
    #[inline(always)]
    fn write(&self, _: bool, _: usize, _: ()) {}
    #[inline(always)]
    fn check_alt(&self, _: Site) {}
}

/// Values carried along.
struct Values<'a, 'b, V>(Buffers<'a, 'b, V>);

impl<V> Clone for Values<'_, '_, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<V> Copy for Values<'_, '_, V> {}

impl<V: Shuffle> Carried for Values<'_, '_, V> {
    type Item = V;
    #[inline(always)]
    fn read(&self, alt: bool, i: usize) -> V {
        self.0.read(alt, i)
    }
    #[inline(always)]
    fn write(&self, alt: bool, i: usize, value: V) {
        self.0.write(alt, i, value)
    }
    #[inline(always)]
    fn check_alt(&self, site: Site) {
        self.0.check_alt(
            c"segmented sort: `values_alt` (as long as the values when a segment is longer than a block's tile)",
            site,
        )
    }
}

/// A group's tile in the launch's dynamic shared memory: keys from word
/// `base`, then values; place `p` is element `p ^ ((p / 32) mod 32)` of its
/// row of 32, so that a warp putting its blocked items meets no bank
/// conflict (regions are whole rows).
struct Scratch<K, V> {
    shared: SharedWords,
    keys_at: usize,
    values_at: usize,
    like: K,
    site: Site,
    _values: core::marker::PhantomData<V>,
}

impl<K: Shuffle, V: Shuffle> Scratch<K, V> {
    /// The region of `places` places from word `base`.
    #[inline(always)]
    fn new(shared: SharedWords, base: usize, places: usize, like: K, site: Site) -> Self {
        Scratch {
            shared,
            keys_at: base,
            values_at: base + places * words::<K>(),
            like,
            site,
            _values: core::marker::PhantomData,
        }
    }

    #[inline(always)]
    fn element(place: usize) -> usize {
        (place & !31) | ((place ^ (place >> 5)) & 31)
    }
}

impl<K: Shuffle, V: Shuffle> MergeScratch<K, V> for Scratch<K, V> {
    #[inline(always)]
    fn put(&self, place: usize, key: K, value: V) {
        let e = Self::element(place);
        self.shared
            .store(self.keys_at + e * words::<K>(), key, self.site);
        self.shared
            .store(self.values_at + e * words::<V>(), value, self.site);
    }

    #[inline(always)]
    fn key(&self, place: usize) -> K {
        let e = Self::element(place);
        self.shared
            .load(self.keys_at + e * words::<K>(), self.like, self.site)
    }

    #[inline(always)]
    fn value(&self, place: usize, like: V) -> V {
        let e = Self::element(place);
        self.shared
            .load(self.values_at + e * words::<V>(), like, self.site)
    }
}

/// The phase `phase` of the sort; see the module docs.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run<K: KeyBits, C: Carried, const ROUTES: u32>(
    block: &ThreadBlock,
    keys: Buffers<'_, '_, K>,
    values: C,
    offsets: Offsets<'_>,
    phase: u32,
    control: u32,
    work: &Out<u64>,
    site: Site,
) {
    let threads = block.num_threads();
    if !threads.is_multiple_of(32) {
        Target::check_failed(BAD_BLOCK, site);
    }
    let len = keys.main.len();
    let segments = offsets.len().saturating_sub(1);
    holds(
        c"segmented sort: `work` (coop::device::segmented_sort::work_len)",
        work.as_mut_ptr() as *const u8,
        work.len(),
        work_len(len, segments),
        site,
    );
    let shared = SharedWords::bind(
        "the segmented sort's tiles",
        shared_memory_bytes::<K, C::Item>(threads) as usize,
        SHARED_TOO_SMALL,
        site,
    );
    let sort = Sort {
        block,
        keys,
        values,
        offsets,
        segments,
        control,
        work,
        shared,
        medium_cap: capacity(len, segments),
        site,
    };
    let radix = phase == RADIX;
    let route = if radix { RADIX_ROUTE } else { MERGE_ROUTE };
    if ROUTES & route == 0 {
        Target::check_failed(NOT_IN_KERNEL, site);
    }
    if phase == CLASSIFY {
        sort.classify();
        return;
    }
    // Nothing is sorted when an offset is out of order (segments could
    // overlap).
    if work.read(BAD_SEGMENT_WORD) != 0 || len < 2 {
        return;
    }

    // `ROUTES` is a constant: a kernel holds only its routes' code.
    if radix {
        if ROUTES & RADIX_ROUTE != 0 {
            sort.radix_phase();
        }
    } else if ROUTES & MERGE_ROUTE != 0 {
        sort.sort_phase(phase);
    }
}

/// A phase's view of the launch.
struct Sort<'a, 'b, K, C> {
    block: &'a ThreadBlock,
    keys: Buffers<'a, 'b, K>,
    values: C,
    offsets: Offsets<'a>,
    segments: usize,
    control: u32,
    work: &'a Out<'b, u64>,
    shared: SharedWords,
    medium_cap: usize,
    site: Site,
}

/// A group's part of the launch's dynamic shared memory: `places` places
/// from word `base`.
#[derive(Clone, Copy)]
struct Region {
    base: usize,
    places: usize,
}

impl<K: KeyBits, C: Carried> Sort<'_, '_, K, C> {
    /// Key `i` of the keys or their second buffer, its bits made to sort
    /// as its value does (in the sort's order).
    #[inline(always)]
    fn key(&self, alt: bool, i: usize) -> K {
        let (kind, descending) = self.kind();
        self.keys.read(alt, i).encode(kind, descending)
    }

    /// Writes key `i` from bits made to sort.
    #[inline(always)]
    fn set_key(&self, alt: bool, i: usize, key: K) {
        let (kind, descending) = self.kind();
        self.keys.write(alt, i, key.decode(kind, descending))
    }

    /// The kind of key and the order, from `control`.
    #[inline(always)]
    fn kind(&self) -> (u32, bool) {
        ((self.control >> 1) & 3, self.control & DESCENDING != 0)
    }

    /// Medium segment `i` of the list.
    fn medium_entry(&self, i: usize) -> usize {
        HEADER + i
    }

    /// Long segment `e` of the list: the segment, then its first tile.
    fn large_entry(&self, e: usize) -> usize {
        HEADER + self.medium_cap + 2 * e
    }

    /// The order of keys made to sort: as unsigned integers, with `-0.0`
    /// and `0.0` equal.
    #[inline(always)]
    fn less(&self) -> impl Fn(K, K) -> bool + use<K, C> {
        let zeros = self.kind().0 == K::FLOAT;
        move |a: K, b: K| a.less(b, zeros)
    }

    /// [`CLASSIFY`]: a thread a segment.
    #[inline(always)]
    fn classify(&self) {
        let len = self.keys.main.len();
        let threads = self.block.num_threads();
        let tile = block_tile(threads);
        let grid = this_grid();
        let atomics = self.work.atomic();
        let mut s = grid.thread_rank();
        while s < self.segments {
            let (start, end) = (self.offsets.get(s), self.offsets.get(s + 1));
            if start > end || end > len {
                // The largest word is the first segment; 0 is none.
                atomics.max(BAD_SEGMENT_WORD, u64::MAX - s as u64);
            } else {
                let n = end - start;
                if n > tile {
                    let tiles = n.div_ceil(tile) as u64;
                    let packed = atomics.fetch_add(LARGE_COUNT, 1 << TILE_BITS | tiles);
                    let e = (packed >> TILE_BITS) as usize;
                    let at = self.large_entry(e);
                    self.work.write(at, s as u64);
                    self.work.write(at + 1, packed & ((1 << TILE_BITS) - 1));
                    atomics.max(LONGEST, n as u64);
                } else if n > WARP_MAX {
                    let i = atomics.fetch_add(MEDIUM_COUNT, 1) as usize;
                    self.work.write(self.medium_entry(i), s as u64);
                }
            }
            s += grid.num_threads();
        }
    }

    /// A phase after [`CLASSIFY`]: each group (the block in [`BLOCKS`] and
    /// [`MERGE`]; in [`SMALL`], groups of 4 to 32 lanes of a warp, as many
    /// at once as the warp holds) takes jobs from the phase's list in turn
    /// and does each, through one copy of the code that sorts and merges.
    #[inline(always)]
    fn sort_phase(&self, phase: u32) {
        let site = self.site;
        let warp = self.block.tiled_partition_at::<32>(site);
        let by_warps = phase == SMALL;
        let sync = || {
            if by_warps {
                warp.sync_at(site)
            } else {
                self.block.sync_named("segmented sort", site)
            }
        };
        if phase >= MERGE && (phase - MERGE).is_multiple_of(2) {
            self.partition((phase - MERGE) / 2, &warp);
            return;
        }
        let mut jobs = Jobs::new(self, phase, &warp);
        while let Some((job, group)) = jobs.next(self, &warp) {
            self.run_job(group, job, &sync);
        }
    }

    /// [`RADIX`]: a block a job, the long segments first (they take the
    /// longest), each sorted whole by radix, then the medium segments, each
    /// as in [`BLOCKS`].
    #[inline(always)]
    fn radix_phase(&self) {
        if self.block.num_threads() < RADIX_MIN_THREADS {
            Target::check_failed(RADIX_SMALL_BLOCK, self.site);
        }
        let site = self.site;
        let warp = &self.block.tiled_partition_at::<32>(site);
        let sync = &|| self.block.sync_named("segmented sort", site);
        let (long, _, _) = self.long_segments();
        let medium = self.work.read(MEDIUM_COUNT) as usize;
        let grid = this_grid();
        let mut g = grid.block_rank();
        while g < long + medium {
            let s = if g < long {
                self.work.read(self.large_entry(g))
            } else {
                self.work.read(self.medium_entry(g - long))
            } as usize;
            let first = self.offsets.get(s);
            let n = self.offsets.get(s + 1) - first;
            if g < long {
                self.radix_segment(first, n, warp);
            } else {
                self.run_job(self.whole_block(), Job::sort(first, n, false), sync);
            }
            g += grid.num_blocks();
        }
    }

    /// The block sorts the `n` keys from `first` (more than its tile) by
    /// radix passes from the lowest digit, between the keys and their
    /// second buffer, ending in the keys. A pass counts the segment's keys
    /// of each digit, then takes its tiles in order: warp `w` loads keys
    /// `w × 32 ×` [`ITEMS`]` ..` of the tile (lane `l`'s item `i` is key
    /// `i × 32 + l` of those), the warps count their keys of each digit,
    /// each key's place in the tile is where its warp's keys of its digit
    /// start plus those before it (one ballot a bit of the digit), the
    /// keys and values go to those places in shared memory, and
    /// consecutive threads store consecutive places to where their digit's
    /// run in the segment has got to. Keys of a digit keep their order, so
    /// the sort is stable.
    #[inline(always)]
    fn radix_segment(&self, first: usize, n: usize, warp: &TiledPartition<32>) {
        let site = self.site;
        let block = self.block;
        let shared = self.shared;
        let threads = block.num_threads() as usize;
        let t = block.thread_rank() as usize;
        let lane = warp.thread_rank_at(site) as usize;
        let w = t / 32;
        let warps = threads / 32;
        let tile = block_tile(threads as u32);
        let (kw, vw) = (words::<K>(), words::<C::Item>());
        // The shared words: the tile's keys and values in their sorted
        // order, each warp's counters, where each digit of the tile goes.
        let staged = 0;
        let staged_values = tile * kw;
        let counters = tile * (kw + vw);
        let bases = counters + warps * RADIX_DIGITS;
        let width = radix_digit_bits(K::BITS);
        let digits = 1usize << width;
        // `-0.0` and `0.0` (made to sort: `SIGN - 1` and `SIGN`) have one
        // digit, so that they keep their order between them.
        let zeros = self.kind().0 == K::FLOAT;
        let digit_of = move |k: K, shift: u32| -> u32 {
            let k = if zeros && k.is_below_sign() {
                K::SIGN
            } else {
                k
            };
            k.digit(shift, width, 0)
        };
        let mine = t < digits;
        let below_me = (1u32 << lane) - 1;
        let like_key = self.key(false, first);
        let like_value = self.values.read(false, first);
        let zero_counters = || {
            let mut c = t;
            while c < warps * digits {
                shared.store(counters + c, 0u32, site);
                c += threads;
            }
        };
        let mut pass = 0;
        while pass < radix_passes(K::BITS) {
            let from_alt = pass % 2 == 1;
            let shift = pass * width;
            // The segment's keys of each digit, counted by each warp.
            zero_counters();
            block.sync_named("segmented sort", site);
            let mut i = t;
            while i < n {
                let d = digit_of(self.key(from_alt, first + i), shift);
                shared.bump(counters + w * digits + d as usize, site);
                i += threads;
            }
            block.sync_named("segmented sort", site);
            let mut count = 0u32;
            if mine {
                let mut v = 0;
                while v < warps {
                    count += shared.load(counters + v * digits + t, 0u32, site);
                    v += 1;
                }
            }
            // Thread `d`: where the next key of digit `d` goes.
            let mut running = crate::collectives::exclusive_scan_by_warps(block, count, Sum, site);
            let mut start = 0;
            while start < n {
                let valid = (n - start).min(tile);
                let at = first + start;
                zero_counters();
                // The keys in registers; each one's digit found again
                // where it is needed and its value loaded only once its
                // place is known (registers for the other phases of the
                // kernel, which share its allocation).
                let warp_first = w * 32 * ITEMS;
                let mut key = [like_key; ITEMS];
                for_items!(i < ITEMS => {
                    let e = warp_first + i * 32 + lane;
                    if e < valid {
                        key[i] = self.key(from_alt, at + e);
                    }
                });
                let digit = |i: usize| {
                    if warp_first + i * 32 + lane < valid {
                        digit_of(key[i], shift)
                    } else {
                        NO_DIGIT
                    }
                };
                block.sync_named("segmented sort", site);
                for_items!(i < ITEMS => {
                    let d = digit(i);
                    if d != NO_DIGIT {
                        shared.bump(counters + w * digits + d as usize, site);
                    }
                });
                block.sync_named("segmented sort", site);
                // Thread `d`: the warps' counts of digit `d` made into where
                // each warp's keys of it start in the tile.
                let mut in_tile_count = 0u32;
                if mine {
                    let mut v = 0;
                    while v < warps {
                        let c = counters + v * digits + t;
                        let k = shared.load(c, 0u32, site);
                        shared.store(c, in_tile_count, site);
                        in_tile_count += k;
                        v += 1;
                    }
                }
                let in_tile =
                    crate::collectives::exclusive_scan_by_warps(block, in_tile_count, Sum, site);
                if mine {
                    let mut v = 0;
                    while v < warps {
                        let c = counters + v * digits + t;
                        let k = shared.load(c, 0u32, site);
                        shared.store(c, k + in_tile, site);
                        v += 1;
                    }
                    shared.store(bases + t, running.wrapping_sub(in_tile), site);
                    running += in_tile_count;
                }
                block.sync_named("segmented sort", site);
                for_items!(i < ITEMS => {
                    let d = digit(i);
                    let peers = lanes_with(d, site);
                    let highest = 31 - peers.leading_zeros();
                    let mut s = 0;
                    if lane as u32 == highest && d != NO_DIGIT {
                        s = shared.add(counters + w * digits + d as usize, peers.count_ones(), site);
                    }
                    let s = warp.shfl_at(s, highest, site);
                    let r = (s + (peers & below_me).count_ones()) as usize;
                    if d != NO_DIGIT {
                        shared.store(staged + r * kw, key[i], site);
                        let v = self.values.read(from_alt, at + warp_first + i * 32 + lane);
                        shared.store(staged_values + r * vw, v, site);
                    }
                });
                block.sync_named("segmented sort", site);
                for_items!(j < ITEMS => {
                    let e = j * threads + t;
                    if e < valid {
                        let k = shared.load(staged + e * kw, like_key, site);
                        let d = digit_of(k, shift) as usize;
                        let to = shared.load(bases + d, 0u32, site).wrapping_add(e as u32) as usize;
                        self.set_key(!from_alt, first + to, k);
                        let v = shared.load(staged_values + e * vw, like_value, site);
                        self.values.write(!from_alt, first + to, v);
                    }
                });
                start += tile;
            }
            pass += 1;
        }
    }

    /// A segment of `n` (2 to [`THREAD_MAX`]) elements sorted by this
    /// thread alone, in registers.
    #[inline(always)]
    fn sort_alone(&self, start: usize, n: usize) {
        let mut keys = [self.key(false, start); THREAD_MAX];
        let mut values = [self.values.read(false, start); THREAD_MAX];
        for_items!(i < THREAD_MAX => {
            if i < n {
                keys[i] = self.key(false, start + i);
                values[i] = self.values.read(false, start + i);
            }
        });
        sort_items(&mut keys, &mut values, n, &self.less());
        for_items!(i < THREAD_MAX => {
            if i < n {
                self.set_key(false, start + i, keys[i]);
                self.values.write(false, start + i, values[i]);
            }
        });
    }

    /// The group's `job` (at most `members ×` [`ITEMS`] elements): striped
    /// loads into the scratch; for a sort, to blocked and the merge sort,
    /// for a merge the merge of the two runs; back to striped through the
    /// scratch, striped stores. Starts with a `sync` (the scratch may
    /// still be read from the group's last job) and leaves the scratch
    /// read by other members. `sync` is the group's barrier, or the
    /// barrier of a warp whose groups run their jobs at once (jobs of
    /// their own lengths, and the same number of `sync`s).
    #[inline(always)]
    fn run_job(&self, group: Group, job: Job, sync: &impl Fn()) {
        let Group {
            rank,
            members,
            region,
            uniform,
        } = group;
        let Job {
            out,
            len,
            a,
            b,
            split,
            merge,
            from_alt,
            to_alt,
            like,
        } = job;
        // Any key and value of the inputs give the loads their types.
        let like_value = self.values.read(from_alt, like);
        let scratch = &Scratch::<K, C::Item>::new(
            self.shared,
            region.base,
            region.places,
            self.key(from_alt, like),
            self.site,
        );
        sync();
        // Consecutive members load consecutive inputs: the first run's
        // part, then the second's.
        for_items!(i < ITEMS => {
            let p = rank + i * members;
            if p < len {
                let at = if p < split { a + p } else { b + (p - split) };
                scratch.put(p, self.key(from_alt, at), self.values.read(from_alt, at));
            }
        });
        sync();
        let mut keys = [scratch.like; ITEMS];
        let mut values = [like_value; ITEMS];
        if !merge {
            for_items!(i < ITEMS => {
                let p = rank * ITEMS + i;
                if p < len {
                    keys[i] = scratch.key(p);
                    values[i] = scratch.value(p, like_value);
                }
            });
        }
        sort_tile(
            rank,
            members,
            len,
            uniform,
            if merge { Some(split) } else { None },
            &mut keys,
            &mut values,
            &self.less(),
            scratch,
            sync,
        );
        // Back to striped, stored by consecutive members.
        sync();
        for_items!(i < ITEMS => {
            let p = rank * ITEMS + i;
            if p < len {
                scratch.put(p, keys[i], values[i]);
            }
        });
        sync();
        for_items!(i < ITEMS => {
            let p = rank + i * members;
            if p < len {
                self.set_key(to_alt, out + p, scratch.key(p));
                self.values.write(to_alt, out + p, scratch.value(p, like_value));
            }
        });
    }

    /// Where tile `g`'s merge path starts in merge pass `pass`: its entry of
    /// `work`.
    fn split_entry(&self, g: usize) -> usize {
        HEADER + 3 * self.medium_cap + g
    }

    /// The pair of runs that output tile `g` of the long segments lies in,
    /// in merge pass `pass`.
    #[inline(always)]
    fn pair_of(&self, g: usize, count: usize, pass: u32) -> Pair {
        let tile = block_tile(self.block.num_threads());
        let (first, n, j) = self.long_segment_of(g, count);
        // The pair of runs of `width`, and the tile's place along their
        // merge.
        let width = tile << pass;
        let out = j * tile;
        let pair = out / (2 * width) * (2 * width);
        let a_len = width.min(n - pair);
        let b_len = width.min(n - pair - a_len);
        let a = first + pair;
        let d0 = out - pair;
        Pair {
            first,
            out,
            a,
            a_len,
            b: a + a_len,
            b_len,
            d0,
            d1: (d0 + tile).min(a_len + b_len),
        }
    }

    /// [`MERGE`] `+ 2 × pass`: a warp a tile of the long segments finds
    /// where the tile's inputs start in the pair of runs it merges from
    /// (the merge path at its first output, searched by the warp's lanes
    /// together in global memory) and records it in `work`, so that the
    /// merge's blocks start at once.
    #[inline(always)]
    fn partition(&self, pass: u32, warp: &TiledPartition<32>) {
        let site = self.site;
        let (count, tiles, odd) = self.long_segments();
        let from_alt = odd != (pass % 2 == 1);
        let grid = this_grid();
        let warps = warp.meta_group_size() as usize;
        let mut g = grid.block_rank() * warps + warp.meta_group_rank() as usize;
        let key = |i: usize| self.key(from_alt, i);
        let less = self.less();
        while g < tiles {
            let p = self.pair_of(g, count, pass);
            let taken = merge_path_warp(warp, p.d0, p.a, p.a_len, p.b, p.b_len, &key, &less, site);
            if warp.thread_rank_at(site) == 0 {
                self.work.write(self.split_entry(g), taken as u64);
            }
            g += grid.num_blocks() * warps;
        }
    }

    /// The block as one group, its whole tile of the scratch.
    #[inline(always)]
    fn whole_block(&self) -> Group {
        Group {
            rank: self.block.thread_rank() as usize,
            members: self.block.num_threads() as usize,
            region: Region {
                base: 0,
                places: block_tile(self.block.num_threads()),
            },
            uniform: false,
        }
    }

    /// The long segment of tile `g` (of all the long segments' tiles laid
    /// end to end): its first element and length, and the tile's index
    /// within it. A binary search over the list, whose entries are in the
    /// order of their first tiles.
    #[inline(always)]
    fn long_segment_of(&self, g: usize, count: usize) -> (usize, usize, usize) {
        let (mut lo, mut hi) = (0, count);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if self.work.read(self.large_entry(mid) + 1) as usize <= g {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let at = self.large_entry(lo);
        let s = self.work.read(at) as usize;
        let first_tile = self.work.read(at + 1) as usize;
        let first = self.offsets.get(s);
        (first, self.offsets.get(s + 1) - first, g - first_tile)
    }

    /// What the header says of the long segments: their count, their
    /// tiles, and whether the sorted tiles go to the second buffer (an odd
    /// number of merge passes follows).
    #[inline(always)]
    fn long_segments(&self) -> (usize, usize, bool) {
        let header = Header::read(&[0, 0, self.work.read(LARGE_COUNT), self.work.read(LONGEST)]);
        if header.large > 0 {
            self.keys.check_alt(
                c"segmented sort: `keys_alt` (as long as the keys when a segment is longer than a block's tile)",
                self.site,
            );
            self.values.check_alt(self.site);
        }
        let passes = merge_passes(header.longest, block_tile(self.block.num_threads()));
        (header.large, header.large_tiles, passes % 2 == 1)
    }
}

/// A group's job: `len` elements to `out ..` of the keys (or their second
/// buffer), read from `a ..` (`split` of them) and `b ..` (the rest) of
/// the keys (or their second buffer), sorted, or merged as two sorted
/// runs. Element `like` of the inputs' buffer is any one the group's warp
/// or block owns (read for its type).
#[derive(Clone, Copy)]
struct Job {
    out: usize,
    len: usize,
    a: usize,
    b: usize,
    split: usize,
    merge: bool,
    from_alt: bool,
    to_alt: bool,
    like: usize,
}

impl Job {
    /// The sort of `len` elements from `first` in place (or into the
    /// second buffer).
    fn sort(first: usize, len: usize, to_alt: bool) -> Job {
        Job {
            out: first,
            len,
            a: first,
            b: first,
            split: len,
            merge: false,
            from_alt: false,
            to_alt,
            like: first,
        }
    }
}

/// The pair of runs of a long segment that a merge pass merges into an
/// output tile: the segment's `first` element, the tile's place `out` in
/// it, the runs (`a_len` elements from `a`, `b_len` from `b`), and the
/// tile's first and last-plus-one places `d0`, `d1` along their merge.
struct Pair {
    first: usize,
    out: usize,
    a: usize,
    a_len: usize,
    b: usize,
    b_len: usize,
    d0: usize,
    d1: usize,
}

/// A group: this thread's rank in it, its members, its part of the
/// scratch, and whether its merge rounds are as many as a whole tile's
/// (groups of one warp that run jobs at once).
#[derive(Clone, Copy)]
struct Group {
    rank: usize,
    members: usize,
    region: Region,
    uniform: bool,
}

/// The lane groups of the [`SMALL`] phase, by their lanes: the longest
/// segment each sorts is its lanes `×` [`ITEMS`] (32, 64, 128, 256).
const LANE_GROUPS: [usize; 4] = [4, 8, 16, 32];

/// Where a group is in its phase's list of jobs.
struct Jobs {
    phase: u32,
    /// The next batch of 32 segments ([`SMALL`]), or the next work item.
    next: usize,
    /// How far `next` moves.
    step: usize,
    /// [`SMALL`]: the batch's segments still to sort by lane groups of the
    /// size `LANE_GROUPS[class]`, and this lane's segment.
    warp_sized: u32,
    class: usize,
    start: usize,
    n: usize,
    /// [`BLOCKS`]: listed medium segments; both: long segments and their
    /// tiles, and whether the sorted tiles go to the second buffer.
    medium: usize,
    long: usize,
    tiles: usize,
    odd: bool,
}

impl Jobs {
    #[inline(always)]
    fn new<K: KeyBits, C: Carried>(
        sort: &Sort<'_, '_, K, C>,
        phase: u32,
        warp: &TiledPartition<32>,
    ) -> Jobs {
        let grid = this_grid();
        let (next, step) = if phase == SMALL {
            let warps = warp.meta_group_size() as usize;
            (
                grid.block_rank() * warps + warp.meta_group_rank() as usize,
                grid.num_blocks() * warps,
            )
        } else {
            (grid.block_rank(), grid.num_blocks())
        };
        let (medium, (long, tiles, odd)) = if phase == SMALL {
            (0, (0, 0, false))
        } else {
            (sort.work.read(MEDIUM_COUNT) as usize, sort.long_segments())
        };
        Jobs {
            phase,
            next,
            step,
            warp_sized: 0,
            class: LANE_GROUPS.len(),
            start: 0,
            n: 0,
            medium,
            long,
            tiles,
            odd,
        }
    }

    /// The group's next job, or `None` when its part of the phase is done.
    #[inline(always)]
    fn next<K: KeyBits, C: Carried>(
        &mut self,
        sort: &Sort<'_, '_, K, C>,
        warp: &TiledPartition<32>,
    ) -> Option<(Job, Group)> {
        let site = sort.site;
        match self.phase {
            SMALL => loop {
                // The batch's segments of each size, by groups of lanes,
                // as many at once as the warp holds: group `k` takes the
                // `k`-th left.
                if self.warp_sized != 0 {
                    let lanes = LANE_GROUPS[self.class];
                    let lane = warp.thread_rank_at(site) as usize;
                    let k = lane / lanes;
                    let mut mine = self.warp_sized;
                    let mut i = 0;
                    while i < k {
                        mine &= mine.wrapping_sub(1);
                        i += 1;
                    }
                    // The first of them: any element it owns gives the
                    // loads their types.
                    let like = warp.shfl_at(self.start, self.warp_sized.trailing_zeros(), site);
                    let from = mine.trailing_zeros();
                    let first = warp.shfl_at(self.start, from & 31, site);
                    let len = warp.shfl_at(self.n, from & 31, site);
                    let mut i = 0;
                    while i < 32 / lanes {
                        self.warp_sized &= self.warp_sized.wrapping_sub(1);
                        i += 1;
                    }
                    let per = words::<K>() + words::<C::Item>();
                    let places = lanes * ITEMS;
                    let group = Group {
                        rank: lane % lanes,
                        members: lanes,
                        region: Region {
                            base: (warp.meta_group_rank() as usize * WARP_MAX + k * places) * per,
                            places,
                        },
                        uniform: true,
                    };
                    let len = if mine == 0 { 0 } else { len };
                    let job = Job {
                        like,
                        ..Job::sort(first, len, false)
                    };
                    return Some((job, group));
                }
                // The next size of lane group.
                if self.class + 1 < LANE_GROUPS.len() {
                    self.class += 1;
                    let most = LANE_GROUPS[self.class] * ITEMS;
                    let least = if self.class == 0 {
                        THREAD_MAX
                    } else {
                        LANE_GROUPS[self.class - 1] * ITEMS
                    };
                    self.warp_sized = warp.ballot(self.n > least && self.n <= most);
                    continue;
                }
                // The next batch of 32 segments, a lane each: a lane
                // sorts its segment alone when it is short enough.
                if self.next * 32 >= sort.segments {
                    return None;
                }
                let s = self.next * 32 + warp.thread_rank_at(site) as usize;
                (self.start, self.n) = if s < sort.segments {
                    let start = sort.offsets.get(s);
                    (start, sort.offsets.get(s + 1) - start)
                } else {
                    (0, 0)
                };
                if (2..=THREAD_MAX).contains(&self.n) {
                    sort.sort_alone(self.start, self.n);
                }
                // Lane groups of 4 first.
                self.class = 0;
                self.warp_sized =
                    warp.ballot(self.n > THREAD_MAX && self.n <= LANE_GROUPS[0] * ITEMS);
                self.next += self.step;
            },
            BLOCKS => {
                let g = self.next;
                if g >= self.medium + self.tiles {
                    return None;
                }
                self.next += self.step;
                if g < self.medium {
                    // A block a listed segment.
                    let s = sort.work.read(sort.medium_entry(g)) as usize;
                    let first = sort.offsets.get(s);
                    let job = Job::sort(first, sort.offsets.get(s + 1) - first, false);
                    return Some((job, sort.whole_block()));
                }
                // A block a tile of the long segments.
                let tile = block_tile(sort.block.num_threads());
                let (first, n, j) = sort.long_segment_of(g - self.medium, self.long);
                let at = j * tile;
                let job = Job::sort(first + at, (n - at).min(tile), self.odd);
                Some((job, sort.whole_block()))
            }
            _ => {
                let g = self.next;
                if g >= self.tiles {
                    return None;
                }
                self.next += self.step;
                let pass = (self.phase - MERGE) / 2;
                let from_alt = self.odd != (pass % 2 == 1);
                let p = sort.pair_of(g, self.long, pass);
                // Where the tile's inputs start and end in the two runs:
                // the partition phase found both (the end is where the
                // next tile of the pair starts, or the first run's end).
                let s0 = sort.work.read(sort.split_entry(g)) as usize;
                let s1 = if p.d1 == p.a_len + p.b_len {
                    p.a_len
                } else {
                    sort.work.read(sort.split_entry(g + 1)) as usize
                };
                let job = Job {
                    out: p.first + p.out,
                    len: p.d1 - p.d0,
                    a: p.a + s0,
                    b: p.b + (p.d0 - s0),
                    split: s1 - s0,
                    merge: true,
                    from_alt,
                    to_alt: !from_alt,
                    like: p.a,
                };
                Some((job, sort.whole_block()))
            }
        }
    }
}
