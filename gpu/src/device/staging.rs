//! A block's tile staged through shared memory, as CUB's block loads and
//! stores "transpose" it: global memory is read and written in coalesced
//! 16-byte chunks (consecutive threads, consecutive chunks), while each
//! thread works on its own run of consecutive elements (the *blocked*
//! arrangement: thread `t` holds elements `t × items .. (t + 1) × items`).
//!
//! The tile lives in the launch's dynamic shared memory, `threads ×`
//! [`bytes_per_thread`] bytes of it, a thread's run in `chunks` 16-byte
//! chunks. Chunk `k` of thread `t` is stored at chunk `t × chunks + (k ^ (t
//! mod chunks))` (chunks a power of two; `k` otherwise): the eight threads
//! of a quarter warp reading their chunk `k` at once, or storing eight
//! consecutive chunks of the tile, touch eight different 16-byte bank
//! groups, so neither side conflicts.
//!
//! A full tile whose buffer starts 16-byte aligned arrives by `cp.async`
//! (no registers hold it on the way) and leaves by 16-byte vector stores;
//! anything else (a partial tile, an unaligned buffer, a type without a
//! vector form) moves element by element, still coalesced.

use crate::backend::elements::SharedElem;
use crate::backend::target::Target;
use crate::backend::{AsyncCopies, ElemShape, Faults, Rmw, SharedMemory, Site, Word};
use crate::{Out, Shuffle, ThreadBlock};

pub(crate) use crate::block::chunks::Words16;

// SAFETY: four `u32`s, no padding, every bit pattern a value.
unsafe impl SharedElem for Words16 {}

/// Chunk `chunk` of the staging at `base`. The staging's elements are
/// 32-bit words, which the CPU backend tracks one by one (four loads
/// there, one `ld.shared.v4.u32` on the GPU).
#[inline(always)]
fn load16(base: <Target as SharedMemory>::Base, chunk: u32, site: Site) -> Words16 {
    #[cfg(target_arch = "nvptx64")]
    {
        // The region's words as 16-byte elements: chunk `chunk` is words
        // `4 × chunk ..`, 16-byte aligned.
        Target::shared_load::<Words16>(base, chunk, site)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        Words16(core::array::from_fn(|j| {
            Target::shared_load::<u32>(base, chunk * 4 + j as u32, site)
        }))
    }
}

/// Stores chunk `chunk` of the staging at `base`, as [`load16`] loads it.
#[inline(always)]
fn store16(base: <Target as SharedMemory>::Base, chunk: u32, value: Words16, site: Site) {
    #[cfg(target_arch = "nvptx64")]
    Target::shared_store::<Words16>(base, chunk, value, site);
    #[cfg(not(target_arch = "nvptx64"))]
    for (j, word) in value.0.into_iter().enumerate() {
        Target::shared_store::<u32>(base, chunk * 4 + j as u32, word, site);
    }
}

/// Most 32-bit words a thread's run holds.
const MAX_WORDS: usize = 32;

/// Bytes of staging a thread needs for `items` elements of `T`, or 0 when
/// `T` cannot be staged: its size is not its words' (a `Shuffle` type
/// whose words are not its bytes), or the run is not a whole number of
/// 16-byte chunks of at most 128 bytes.
pub(crate) const fn bytes_per_thread<T: Shuffle>(items: usize) -> usize {
    let size = core::mem::size_of::<T>();
    let run = items * size;
    if size == 0 || T::WORDS * 4 != size || !run.is_multiple_of(16) || run > MAX_WORDS * 4 {
        0
    } else {
        run
    }
}

/// The dynamic shared memory the tile of a block of `threads` lives in.
///
/// `items` is a constant where it is bound (a `const fn` of the element
/// type), so that every loop below unrolls and the runs stay in registers.
#[derive(Clone, Copy)]
pub(crate) struct Staging<T: Shuffle> {
    base: <Target as SharedMemory>::Base,
    threads: usize,
    items: usize,
    _t: core::marker::PhantomData<T>,
}

impl<T: Shuffle> Staging<T> {
    /// The launch's dynamic shared memory as the tile of `block`, `items`
    /// elements a thread (with [`bytes_per_thread`] above 0); faults with
    /// `problem` unless the launch gave `threads × bytes_per_thread` bytes.
    #[inline(always)]
    pub(crate) fn bind(
        block: &ThreadBlock,
        items: usize,
        problem: &'static core::ffi::CStr,
        site: Site,
    ) -> Self {
        let shape = ElemShape { size: 4, cols: 0 };
        let (base, bytes) = Target::dynamic_shared("the tile's staging", shape, site);
        let threads = block.num_threads() as usize;
        if (bytes as usize) < threads * bytes_per_thread::<T>(items) {
            Target::check_failed(problem, site);
        }
        Staging {
            base,
            threads,
            items,
            _t: core::marker::PhantomData,
        }
    }

    /// Chunks of 16 bytes in a thread's run.
    #[inline(always)]
    fn chunks(&self) -> usize {
        bytes_per_thread::<T>(self.items) / 16
    }

    /// The shared chunk where chunk `k` of thread `t`'s run lives.
    #[inline(always)]
    fn chunk_at(&self, t: usize, k: usize) -> u32 {
        let chunks = self.chunks();
        let k = if chunks.is_power_of_two() {
            k ^ (t & (chunks - 1))
        } else {
            k
        };
        (t * chunks + k) as u32
    }

    /// The shared word (its chunk, and its word in the chunk) holding word
    /// `w` of the tile, whose element `e` is words `e × T::WORDS ..`.
    #[inline(always)]
    fn word_at(&self, w: usize) -> (u32, usize) {
        let run = self.items * T::WORDS;
        let (t, within) = (w / run, w % run);
        (self.chunk_at(t, within / 4), within % 4)
    }

    /// Starts copying the whole tile from `src` (`threads × items`
    /// elements, 16-byte aligned) into the staging with `cp.async`, each
    /// thread a chunk in turn; [`landed`](Self::landed) waits for them.
    #[inline(always)]
    pub(crate) fn copy_in(&self, block: &ThreadBlock, src: *const T, site: Site) {
        let t = block.thread_rank() as usize;
        let mut j = 0;
        while j < self.chunks() {
            let c = j * self.threads + t;
            let dst = self.chunk_at(c / self.chunks(), c % self.chunks());
            // SAFETY: chunk `c` is inside the tile, which the caller
            // promises is inside `src`'s buffer; both ends 16-byte aligned.
            let from = unsafe { (src as *const u8).add(c * 16) };
            Target::copy_chunk(self.base, dst * 16, from, 16, site);
            j += 1;
        }
        Target::commit_copies(site);
    }

    /// Stores the tile's elements one at a time from `load(e)` for element
    /// `e` of the tile (consecutive threads, consecutive elements).
    #[inline(always)]
    pub(crate) fn store_each(&self, block: &ThreadBlock, load: impl Fn(usize) -> T, site: Site) {
        let t = block.thread_rank() as usize;
        let mut j = 0;
        while j < self.items {
            let e = j * self.threads + t;
            let mut w = e * T::WORDS;
            load(e).map_words(|word| {
                let (chunk, k) = self.word_at(w);
                Target::shared_store::<u32>(self.base, chunk * 4 + k as u32, word, site);
                w += 1;
                word
            });
            j += 1;
        }
    }

    /// Element `e` of the tile (any thread may read any element once the
    /// tile has landed).
    #[inline(always)]
    pub(crate) fn load_at(&self, e: usize, like: T, site: Site) -> T {
        let mut w = e * T::WORDS;
        like.map_words(|_| {
            let (chunk, k) = self.word_at(w);
            w += 1;
            Target::shared_load::<u32>(self.base, chunk * 4 + k as u32, site)
        })
    }

    /// Stores `value` as element `e` of the staging read as a plain array
    /// (element `e` in words `e × T::WORDS ..`, not the tile's chunked
    /// placement): where a block gathers elements at computed places, a
    /// few instructions an element, so that a thread's loop over its run
    /// unrolls and the run stays in registers. Others may read it with
    /// [`load_linear`](Self::load_linear) after a block barrier.
    #[inline(always)]
    pub(crate) fn store_linear(&self, e: usize, value: T, site: Site) {
        let mut w = (e * T::WORDS) as u32;
        value.map_words(|word| {
            Target::shared_store::<u32>(self.base, w, word, site);
            w += 1;
            word
        });
    }

    /// Element `e` of the staging read as a plain array; see
    /// [`store_linear`](Self::store_linear).
    #[inline(always)]
    pub(crate) fn load_linear(&self, e: usize, like: T, site: Site) -> T {
        let mut w = (e * T::WORDS) as u32;
        like.map_words(|_| {
            w += 1;
            Target::shared_load::<u32>(self.base, w - 1, site)
        })
    }

    /// After [`copy_in`](Self::copy_in) or [`store_each`](Self::store_each):
    /// waits for this thread's copies, then a block barrier, after which
    /// every thread may read the tile.
    #[inline(always)]
    pub(crate) fn landed(&self, block: &ThreadBlock, call: &'static str, site: Site) {
        Target::wait_copies::<0>(None, call, site);
        block.sync_named(call, site);
    }

    /// Thread `block.thread_rank()`'s run, its `items` consecutive
    /// elements, into `x`.
    #[inline(always)]
    pub(crate) fn read_run<const N: usize>(&self, block: &ThreadBlock, x: &mut [T; N], site: Site) {
        let t = block.thread_rank() as usize;
        let mut words = [0u32; MAX_WORDS];
        let mut k = 0;
        while k < self.chunks() {
            let c = load16(self.base, self.chunk_at(t, k), site);
            words[4 * k] = c.0[0];
            words[4 * k + 1] = c.0[1];
            words[4 * k + 2] = c.0[2];
            words[4 * k + 3] = c.0[3];
            k += 1;
        }
        let mut n = 0;
        let mut i = 0;
        while i < self.items {
            x[i] = x[i].map_words(|_| {
                n += 1;
                words[n - 1]
            });
            i += 1;
        }
    }

    /// Writes thread `block.thread_rank()`'s run back from `x`; the tile
    /// may be read by others after a block barrier.
    #[inline(always)]
    pub(crate) fn write_run<const N: usize>(&self, block: &ThreadBlock, x: &[T; N], site: Site) {
        let t = block.thread_rank() as usize;
        let mut words = [0u32; MAX_WORDS];
        let mut n = 0;
        let mut i = 0;
        while i < self.items {
            x[i].map_words(|w| {
                words[n] = w;
                n += 1;
                w
            });
            i += 1;
        }
        let mut k = 0;
        while k < self.chunks() {
            let c = Words16([
                words[4 * k],
                words[4 * k + 1],
                words[4 * k + 2],
                words[4 * k + 3],
            ]);
            store16(self.base, self.chunk_at(t, k), c, site);
            k += 1;
        }
    }

    /// Writes the whole tile to `output` from element `first` (16-byte
    /// aligned, the tile inside the buffer) with 16-byte vector stores,
    /// consecutive threads storing consecutive chunks.
    ///
    /// # Safety
    ///
    /// `first + threads × items <= output.len()`, and element `first` of
    /// `output` is 16-byte aligned.
    #[inline(always)]
    #[track_caller]
    pub(crate) unsafe fn write_out(
        &self,
        block: &ThreadBlock,
        output: &Out<T>,
        first: usize,
        site: Site,
    ) {
        let t = block.thread_rank() as usize;
        let lanes = 16 / core::mem::size_of::<T>();
        let mut j = 0;
        while j < self.chunks() {
            let c = j * self.threads + t;
            let chunk = load16(
                self.base,
                self.chunk_at(c / self.chunks(), c % self.chunks()),
                site,
            );
            // SAFETY: chunk `c` is inside the tile, which the caller
            // promises is inside `output` from an aligned element; the
            // chunk is `lanes` elements' bytes (`T`'s size is its words').
            unsafe { output.write_chunk(first + c * lanes, lanes, chunk) };
            j += 1;
        }
    }

    /// Writes the tile's elements one at a time through `store(e, value)`
    /// for element `e` of the tile (consecutive threads, consecutive
    /// elements), the elements `e < valid` only.
    #[inline(always)]
    pub(crate) fn write_each(
        &self,
        block: &ThreadBlock,
        valid: usize,
        like: T,
        store: impl Fn(usize, T),
        site: Site,
    ) {
        let t = block.thread_rank() as usize;
        let mut j = 0;
        while j < self.items {
            let e = j * self.threads + t;
            if e < valid {
                let mut w = e * T::WORDS;
                let value = like.map_words(|_| {
                    let (chunk, k) = self.word_at(w);
                    w += 1;
                    Target::shared_load::<u32>(self.base, chunk * 4 + k as u32, site)
                });
                store(e, value);
            }
            j += 1;
        }
    }
}

/// The launch's dynamic shared memory as 32-bit words, where a block
/// places values of several types at computed word offsets (a value of
/// `U` in its `U::WORDS` words from its offset): the runs of equal keys
/// gather each run's key and result there before storing them coalesced.
#[derive(Clone, Copy)]
pub(crate) struct SharedWords {
    base: <Target as SharedMemory>::Base,
}

impl SharedWords {
    /// The launch's dynamic shared memory; faults with `problem` unless the
    /// launch gave at least `bytes` of it.
    #[inline(always)]
    pub(crate) fn bind(
        name: &'static str,
        bytes: usize,
        problem: &'static core::ffi::CStr,
        site: Site,
    ) -> Self {
        let shape = ElemShape { size: 4, cols: 0 };
        let (base, given) = Target::dynamic_shared(name, shape, site);
        if (given as usize) < bytes {
            Target::check_failed(problem, site);
        }
        SharedWords { base }
    }

    /// Stores `value` in the words from `word`; others may load it after a
    /// block barrier.
    #[inline(always)]
    pub(crate) fn store<U: Shuffle>(&self, word: usize, value: U, site: Site) {
        let mut w = word as u32;
        value.map_words(|x| {
            Target::shared_store::<u32>(self.base, w, x, site);
            w += 1;
            x
        });
    }

    /// The value of `U` in the words from `word` (`like` any value of `U`).
    #[inline(always)]
    pub(crate) fn load<U: Shuffle>(&self, word: usize, like: U, site: Site) -> U {
        let mut w = word as u32;
        like.map_words(|_| {
            w += 1;
            Target::shared_load::<u32>(self.base, w - 1, site)
        })
    }

    /// Adds `value` to the 32-bit word `word` atomically (`atom.shared.add`)
    /// and returns the word before: counters that several threads bump
    /// between barriers.
    #[inline(always)]
    pub(crate) fn add(&self, word: usize, value: u32, site: Site) -> u32 {
        Target::shared_atomic_rmw(
            self.base,
            word as u32,
            Word::U32,
            Rmw::Add,
            value as u64,
            site,
        ) as u32
    }

    /// Adds 1 to the 32-bit word `word` atomically, without its old value
    /// (`red.shared.add`): counters bumped by several threads between
    /// barriers.
    #[inline(always)]
    pub(crate) fn bump(&self, word: usize, site: Site) {
        Target::shared_atomic_reduce(self.base, word as u32, Word::U32, Rmw::Add, 1, site);
    }
}
