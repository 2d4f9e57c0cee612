//! The block's scratch as slots of values: how the threads of a block, or
//! of a tile of more than one warp, pass values through shared memory (the
//! backend's [`Scratch`](crate::backend::Scratch), 1312 bytes a block).
//! A slot holds a [`Shuffle`] value as 32-bit words, word `j` of slot `i`
//! at word `stride * j + i`, so that lanes reading or writing consecutive
//! slots touch consecutive banks. Ordering between threads comes from the
//! barriers around the accesses, which the callers place.

use crate::Shuffle;
use crate::backend::target::Target;
use crate::backend::{Scratch, Site};

/// Stores `value` in slot `i` (words `stride` apart) with `st.shared`, one
/// 32-bit word at a time, in the threads where `pred` holds (predicated
/// stores, not a branch).
#[inline(always)]
pub(crate) fn store_if<T: Shuffle>(pred: bool, stride: u32, i: u32, value: T, site: Site) {
    let mut offset = i * 4;
    value.map_words(|w| {
        Target::scratch_store_if(pred, offset, w, site);
        offset += stride * 4;
        w
    });
}

/// Loads the `T` in slot `i` with `ld.shared`, one 32-bit word at a time.
/// `like` only gives the type its shape; its words are not used.
#[inline(always)]
pub(crate) fn load<T: Shuffle>(stride: u32, i: u32, like: T, site: Site) -> T {
    let mut offset = i * 4;
    // The words were stored by `store_if` from a `T`: the `Shuffle` contract.
    like.map_words(|_| {
        let w = Target::scratch_load(offset, site);
        offset += stride * 4;
        w
    })
}

/// The `T`s in slots `i..i + 4` (`i` a multiple of 4), with one 16-byte
/// load per word.
#[inline(always)]
pub(crate) fn load4<T: Shuffle>(stride: u32, i: u32, like: T, site: Site) -> [T; 4] {
    let mut offset = i * 4;
    let mut words = [[0u32; 4]; 8];
    let mut n = 0;
    like.map_words(|w| {
        words[n] = Target::scratch_load4(offset, site);
        offset += stride * 4;
        n += 1;
        w
    });
    // The words were stored by `store_if` from `T`s: the `Shuffle` contract.
    core::array::from_fn(|k| {
        let mut n = 0;
        like.map_words(|_| {
            n += 1;
            words[n - 1][k]
        })
    })
}
