//! A block's histogram of its tile (CUB's `BlockHistogram`): each thread
//! holds the bins of its items, and the block counts them into a shared
//! array of counters by shared-memory atomics.
//!
//! A thread's run of equal bins among its items is one atomic update (a
//! sorted or blocked tile of repeating samples costs fewer updates); a bin
//! past the array's end counts nowhere, so that a partial tile's fill
//! value can be such a bin.

use super::items::for_items;
use crate::ThreadBlock;
use crate::backend::target::Target;
use crate::backend::{Rmw, SharedMemory, Site, site};
use crate::memory::atomic::AtomicInteger;
use crate::memory::shared::{Published, RawShared, SharedArray, SharedElem, TileScratch};

/// A bin number an item of a block histogram holds: `u8`, `u16`, `u32`,
/// `u64`, `usize`, `i32` or `i64`. A bin outside `0 .. counters` (a
/// negative one too) counts nowhere.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
/// use coop::shared::Shared;
///
/// /// Offsets from -3 to 3 counted in 4 bins: the negative ones nowhere.
/// #[kernel]
/// pub fn offsets(block: ThreadBlock, input: &[i32], out: Out<u32>, counts: Shared<[u32; 4]>) {
///     let t = block.thread_rank() as usize;
///     let counts = block::histogram(&block, [input[t]], counts);
///     if t < 4 {
///         out.write(t, counts.get(t));
///     }
/// }
///
/// let input: Vec<i32> = (0..32).map(|i| i % 7 - 3).collect();
/// let mut out = vec![0u32; 4];
/// coop_host::Cpu::new().launch(offsets, coop_host::LaunchConfig::new(1, 32), (&input[..], &mut out))?;
/// assert_eq!(out, [5, 4, 4, 4]); // i % 7 is 3 five times in 0 .. 32
/// # Ok::<(), coop_host::Error>(())
/// ```
///
/// A float is no bin number:
///
/// ```compile_fail
/// use coop::prelude::*;
/// use coop::block;
/// use coop::shared::Shared;
///
/// #[kernel]
/// pub fn halves(block: ThreadBlock, input: &[f32], counts: Shared<[u32; 4]>) {
///     let t = block.thread_rank() as usize;
///     let _ = block::histogram(&block, [input[t] * 0.5], counts); // error: not a bin number
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a bin number of a block histogram",
    label = "the items' bins",
    note = "give each item its bin as u8, u16, u32, u64, usize, i32 or i64 (a bin outside the counters counts nowhere)"
)]
pub trait Bin: Copy {
    /// The bin as a counter's index; `u32::MAX` for a bin no counter
    /// array has (negative, or past `u32::MAX`).
    fn index(self) -> u32;
}

macro_rules! unsigned_bins {
    ($($t:ty)*) => {$(
        impl Bin for $t {
            #[inline(always)]
            fn index(self) -> u32 {
                u32::try_from(self).unwrap_or(u32::MAX)
            }
        }
    )*};
}
unsigned_bins!(u8 u16 u32 u64 usize i32 i64);

/// The counters set to zero, one barrier, the tile's bins counted into
/// them, one barrier. `counts` is a shared array of counters (`u32`,
/// `i32`, `u64` or `i64`), fresh or the [`Published`] view a previous call
/// handed back (then one more barrier first, after every thread's reads);
/// it comes back [`Published`], every counter holding how many of the
/// block's items have its bin. An item whose bin is `counts.len()` or more
/// counts nowhere: give a partial tile's missing items such a bin (CUB's
/// `BlockHistogram::Histogram`).
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
/// use coop::shared::Shared;
///
/// /// Each block's histogram of its 512 bytes (a partial last tile too),
/// /// written to its row of 256 counts.
/// #[kernel]
/// pub fn byte_counts(block: ThreadBlock, bytes: &[u8], rows: Out<u32>, counts: Shared<[u32; 256]>) {
///     let first = block.group_index().x as usize * 512;
///     let t = block.thread_rank() as usize;
///     // Striped: item i of thread t is byte first + i × 128 + t; 256 is no bin.
///     let bins: [u32; 4] = core::array::from_fn(|i| {
///         bytes.get(first + i * 128 + t).map_or(256, |&b| u32::from(b))
///     });
///     let counts = block::histogram(&block, bins, counts);
///     let row = block.group_index().x as usize * 256;
///     rows.write(row + t, counts.get(t));
///     rows.write(row + t + 128, counts.get(t + 128));
/// }
///
/// let bytes: Vec<u8> = (0..700u32).map(|i| (i % 10) as u8).collect();
/// let mut rows = vec![0u32; 2 * 256];
/// coop_host::Cpu::new().launch(byte_counts, coop_host::LaunchConfig::new(2, 128), (&bytes[..], &mut rows))?;
/// assert_eq!(rows[..10], [52, 52, 51, 51, 51, 51, 51, 51, 51, 51]); // bytes 0 .. 512
/// assert_eq!(rows[256..266], [18, 18, 19, 19, 19, 19, 19, 19, 19, 19]); // 512 .. 700
/// assert!(rows[10..256].iter().all(|&c| c == 0));
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockHistogram")]
#[doc(alias = "Histogram")]
pub fn histogram<B, C, A, const ITEMS: usize>(
    block: &ThreadBlock,
    bins: [B; ITEMS],
    counts: impl TileScratch<A>,
) -> Published<A>
where
    B: Bin,
    C: AtomicInteger + SharedElem,
    A: SharedArray<Elem = C> + ?Sized,
{
    let (call, site) = ("block::histogram", site!());
    let raw = counts.__claim(block, call, site);
    let threads = block.num_threads() as usize;
    let mut e = block.thread_rank() as usize;
    while e < raw.len() {
        Target::shared_store(raw.region().base, e as u32, C::from_bits(0), site);
        e += threads;
    }
    block.sync_named(call, site);
    count(&raw, bins, site);
    block.sync_named(call, site);
    raw.handed_back()
}

/// The tile's bins added to the counts a previous [`histogram`] or
/// `histogram_add` handed back (CUB's `BlockHistogram::Composite`): one
/// barrier after every thread's reads of them, the updates, one barrier;
/// handed back [`Published`]. A block that counts several tiles calls
/// [`histogram`] for the first and this for the others.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
/// use coop::shared::Shared;
///
/// /// One block counts the whole input, 64 × 4 items at a time, into 16
/// /// bins by the low four bits.
/// #[kernel]
/// pub fn low_bits(block: ThreadBlock, input: &[u16], out: Out<u32>, counts: Shared<[u32; 16]>) {
///     let t = block.thread_rank() as usize;
///     let bins_at = |first: usize| -> [u32; 4] {
///         core::array::from_fn(|i| input.get(first + i * 64 + t).map_or(16, |&x| u32::from(x & 15)))
///     };
///     let mut counts = block::histogram(&block, bins_at(0), counts);
///     let mut first = 256;
///     while first < input.len() {
///         counts = block::histogram_add(&block, bins_at(first), counts);
///         first += 256;
///     }
///     if t < 16 {
///         out.write(t, counts.get(t));
///     }
/// }
///
/// let input: Vec<u16> = (0..1000).collect();
/// let mut out = vec![0u32; 16];
/// coop_host::Cpu::new().launch(low_bits, coop_host::LaunchConfig::new(1, 64), (&input[..], &mut out))?;
/// assert_eq!(out[..8], [63; 8]);
/// assert_eq!(out[8..], [62; 8]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[inline(always)]
#[track_caller]
#[doc(alias = "BlockHistogram")]
#[doc(alias = "Composite")]
pub fn histogram_add<B, C, A, const ITEMS: usize>(
    block: &ThreadBlock,
    bins: [B; ITEMS],
    counts: Published<A>,
) -> Published<A>
where
    B: Bin,
    C: AtomicInteger + SharedElem,
    A: SharedArray<Elem = C> + ?Sized,
{
    let (call, site) = ("block::histogram_add", site!());
    let raw = counts.__claim(block, call, site);
    count(&raw, bins, site);
    block.sync_named(call, site);
    raw.handed_back()
}

/// Adds the thread's bins to the counters: a run of equal bins as one
/// update of its length, a bin past the counters as none.
#[inline(always)]
fn count<B, C, A, const ITEMS: usize>(raw: &RawShared<A>, bins: [B; ITEMS], site: Site)
where
    B: Bin,
    C: AtomicInteger + SharedElem,
    A: SharedArray<Elem = C> + ?Sized,
{
    let len = raw.len();
    let add = |bin: u32, n: u64| {
        if (bin as usize) < len && n > 0 {
            let n = C::from_bits(n);
            Target::shared_atomic_reduce(
                raw.region().base,
                bin,
                C::WORD,
                Rmw::Add,
                n.to_bits(),
                site,
            );
        }
    };
    let mut run: u32 = match bins.first() {
        Some(&b) => b.index(),
        None => return,
    };
    let mut n: u64 = 0;
    for_items!(i < ITEMS => {
        let bin = bins[i].index();
        if bin != run {
            add(run, n);
            run = bin;
            n = 0;
        }
        n += 1;
    });
    add(run, n);
}
