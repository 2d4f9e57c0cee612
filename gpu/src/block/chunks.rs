//! 16-byte chunks: a thread's run of consecutive elements moved from
//! global memory 16 bytes an instruction (`ld.global.v4`), the vector
//! loads of [`load_vectorized`](super::load_vectorized) and of the device
//! algorithms that walk a thread's run ([`select`](crate::device::select),
//! [`runs`](crate::device::runs)).

use crate::Shuffle;

/// 16 bytes moved by one instruction (`ld.global.v4.u32`,
/// `ld.shared.v4.u32`, `st.shared.v4.u32`).
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub(crate) struct Words16(pub [u32; 4]);

/// Most items a thread's run holds.
pub(crate) const RUN_ITEMS: usize = 32;

/// `$body` with `$i` bound to each of `0..$n` in turn (`$n` at most
/// [`RUN_ITEMS`], a constant where it is used), written out rather than
/// looped: LLVM does not unroll a loop whose body is this large, and a
/// run indexed by a loop counter would live in local memory.
macro_rules! each_item {
    ($i:ident < $n:expr => $body:block) => {
        $crate::block::chunks::each_item!(@ $i, $n, $body; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
                   16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
    };
    (@ $i:ident, $n:expr, $body:block; $($k:literal)*) => {{$(
        {
            let $i: usize = $k;
            if $i < $n $body
        }
    )*}};
}
pub(crate) use each_item;

/// Whether runs of `items` elements of `T` load 16 bytes at a time with
/// [`load_run`]: `T`'s bytes are its 32-bit words, and the run is a whole
/// number of 16-byte chunks, at most `max_bytes` (and at most 128).
pub(crate) const fn loads_by_chunks<T: Shuffle>(items: usize, max_bytes: usize) -> bool {
    let size = core::mem::size_of::<T>();
    let run = items * size;
    size != 0
        && T::WORDS * 4 == size
        && run.is_multiple_of(16)
        && run <= max_bytes
        && run <= 128
        && items <= RUN_ITEMS
}

/// Loads the `items` elements at `src` into `x`, 16 bytes at a time.
///
/// # Safety
///
/// `src` is 16-byte aligned, the start of `items` elements of a live
/// buffer, and [`loads_by_chunks`]`::<T>(items, _)` holds.
#[inline(always)]
pub(crate) unsafe fn load_run<T: Shuffle>(src: *const T, items: usize, x: &mut [T; RUN_ITEMS]) {
    let chunks = items * core::mem::size_of::<T>() / 16;
    let mut words = [0u32; 32];
    let mut k = 0;
    while k < chunks {
        // SAFETY: chunk `k` of the run, inside the buffer and aligned (the
        // caller's promise).
        let c = unsafe { (src as *const Words16).add(k).read() };
        words[4 * k..4 * k + 4].copy_from_slice(&c.0);
        k += 1;
    }
    let mut n = 0;
    each_item!(i < items => {
        x[i] = x[i].map_words(|_| {
            n += 1;
            words[n - 1]
        });
    });
}
