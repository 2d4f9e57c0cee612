//! `Shuffle`: the values that move between lanes, as 32-bit words.

/// A value that a shuffle can move between the lanes of a tile.
///
/// Shuffles move 32-bit words, so a `Shuffle` type is plain data of at most
/// 32 bytes, moved as `ceil(size / 4)` words (CUDA's cooperative groups draw
/// the same line). Implemented for every primitive integer and float (8 to
/// 128 bits), `bool` and `char`; user structs derive it:
///
/// ```
/// use coop::prelude::*;
///
/// #[derive(Clone, Copy, Debug, PartialEq, Shuffle)]
/// pub struct Particle {
///     position: [f32; 2],
///     id: u32,
/// }
///
/// /// Every lane of a tile of 4 gets its rank-0 particle (3 words each).
/// #[kernel]
/// pub fn leaders(block: ThreadBlock, input: &[Particle], out: Out<Particle>) {
///     let tile = block.tiled_partition::<4>();
///     let r = block.thread_rank() as usize;
///     out.write(r, tile.shfl(input[r], 0));
/// }
///
/// let input: Vec<Particle> =
///     (0..8).map(|i| Particle { position: [i as f32, -(i as f32)], id: i }).collect();
/// let mut out = vec![input[0]; 8];
/// coop_host::Cpu::new().launch(leaders, coop_host::LaunchConfig::new(1, 8), (&input, &mut out))?;
/// assert_eq!(out[3], input[0]);
/// assert_eq!(out[6], input[4]);
/// assert_eq!(<Particle as Shuffle>::WORDS, 3);
/// # Ok::<(), coop_host::Error>(())
/// ```
///
/// The derive checks, when the crate is checked, that every field is
/// `Shuffle`, that the struct has no padding bytes and that it is at most 32
/// bytes:
///
/// ```compile_fail
/// use coop::Shuffle;
///
/// #[derive(Clone, Copy, Shuffle)]
/// struct TooBig {
///     values: [f64; 5], // 40 bytes
/// }
/// ```
///
/// # Safety
///
/// An implementation by hand must only hand the words it is given to
/// `map_words`'s closure and rebuild the value from the words the closure
/// returns; every word the closure returns comes from the same
/// implementation on another lane.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be moved between lanes by a shuffle",
    label = "this type is not `Shuffle`",
    note = "shuffles move plain values of at most 32 bytes as 32-bit words: primitive integers and floats, `bool`, `char`, arrays of them up to 32 bytes, and structs with `#[derive(Shuffle)]` (every field `Shuffle`, no padding, at most 32 bytes)",
    note = "references and pointers cannot be shuffled: they name memory of the thread that holds them"
)]
pub unsafe trait Shuffle: Copy {
    /// How many 32-bit words one value occupies in a shuffle.
    const WORDS: usize;

    /// Applies `f` to each 32-bit word of `self`, in order, and rebuilds a
    /// value from the results. Collectives call it with one shuffle per word.
    fn map_words(self, f: impl FnMut(u32) -> u32) -> Self;
}

macro_rules! shuffle_via_u32 {
    ($($t:ty),*) => {$(
        // SAFETY: an integer of at most 32 bits goes through one word and
        // back losslessly (the conversions are truncations of the same bits).
        unsafe impl Shuffle for $t {
            const WORDS: usize = 1;
            #[inline(always)]
            fn map_words(self, mut f: impl FnMut(u32) -> u32) -> Self {
                f(self as u32) as $t
            }
        }
    )*};
}
shuffle_via_u32!(u8, i8, u16, i16, u32, i32);

macro_rules! shuffle_via_u64 {
    ($($t:ty),*) => {$(
        // SAFETY: a 64-bit integer is exactly its two words, low then high.
        unsafe impl Shuffle for $t {
            const WORDS: usize = 2;
            #[inline(always)]
            fn map_words(self, mut f: impl FnMut(u32) -> u32) -> Self {
                let v = self as u64;
                let lo = f(v as u32) as u64;
                let hi = f((v >> 32) as u32) as u64;
                (lo | (hi << 32)) as $t
            }
        }
    )*};
}
shuffle_via_u64!(u64, i64, usize, isize);

macro_rules! shuffle_via_u128 {
    ($($t:ty),*) => {$(
        // SAFETY: a 128-bit integer is exactly its four words, low first.
        unsafe impl Shuffle for $t {
            const WORDS: usize = 4;
            #[inline(always)]
            fn map_words(self, mut f: impl FnMut(u32) -> u32) -> Self {
                let v = self as u128;
                let mut out = 0u128;
                let mut i = 0;
                while i < 4 {
                    out |= (f((v >> (32 * i)) as u32) as u128) << (32 * i);
                    i += 1;
                }
                out as $t
            }
        }
    )*};
}
shuffle_via_u128!(u128, i128);

// SAFETY: a float moves as its bits; every bit pattern is an `f32`.
unsafe impl Shuffle for f32 {
    const WORDS: usize = 1;
    #[inline(always)]
    fn map_words(self, f: impl FnMut(u32) -> u32) -> Self {
        f32::from_bits(self.to_bits().map_words(f))
    }
}

// SAFETY: as for `f32`, through `u64`'s two words.
unsafe impl Shuffle for f64 {
    const WORDS: usize = 2;
    #[inline(always)]
    fn map_words(self, f: impl FnMut(u32) -> u32) -> Self {
        f64::from_bits(self.to_bits().map_words(f))
    }
}

// SAFETY: no words: the one value of `()` needs nothing moved (the
// "no values" of an algorithm that may carry values along).
unsafe impl Shuffle for () {
    const WORDS: usize = 0;
    #[inline(always)]
    fn map_words(self, _: impl FnMut(u32) -> u32) -> Self {}
}

// SAFETY: one word; any non-zero word rebuilds `true`, so no invalid
// `bool` can be made.
unsafe impl Shuffle for bool {
    const WORDS: usize = 1;
    #[inline(always)]
    fn map_words(self, mut f: impl FnMut(u32) -> u32) -> Self {
        f(self as u32) != 0
    }
}

// SAFETY: one word; a word that is not a `char` becomes U+FFFD instead
// of an invalid `char`.
unsafe impl Shuffle for char {
    const WORDS: usize = 1;
    #[inline(always)]
    fn map_words(self, mut f: impl FnMut(u32) -> u32) -> Self {
        // Every word comes from a `char` on another lane (trait contract).
        char::from_u32(f(self as u32)).unwrap_or(char::REPLACEMENT_CHARACTER)
    }
}

macro_rules! shuffle_arrays {
    ($t:ty: $($n:literal),*) => {$(
        // SAFETY: an array is its elements' words in order, each element
        // rebuilt by its own (sound) `Shuffle` impl.
        unsafe impl Shuffle for [$t; $n] {
            const WORDS: usize = $n * <$t as Shuffle>::WORDS;
            #[inline(always)]
            fn map_words(self, mut f: impl FnMut(u32) -> u32) -> Self {
                self.map(|x| x.map_words(&mut f))
            }
        }
    )*};
}
shuffle_arrays!(u32: 1, 2, 3, 4, 5, 6, 7, 8);
shuffle_arrays!(i32: 1, 2, 3, 4, 5, 6, 7, 8);
shuffle_arrays!(f32: 1, 2, 3, 4, 5, 6, 7, 8);
shuffle_arrays!(u64: 1, 2, 3, 4);
shuffle_arrays!(i64: 1, 2, 3, 4);
shuffle_arrays!(f64: 1, 2, 3, 4);
shuffle_arrays!(u16: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
shuffle_arrays!(u8: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32);
shuffle_arrays!(i8: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32);
shuffle_arrays!(i16: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);

/// Moves `value` through `f` as `W` 32-bit words. Used by
/// `#[derive(Shuffle)]`, which checks at compile time that `T` has no
/// padding and that `4 * W` is `size_of::<T>()` rounded up to a word.
///
/// # Safety
///
/// `T` has no padding bytes, `4 * W >= size_of::<T>()`, and every word `f`
/// returns comes from the same position of another `T`.
#[doc(hidden)]
#[inline(always)]
pub unsafe fn words_of<T: Copy, const W: usize>(value: T, mut f: impl FnMut(u32) -> u32) -> T {
    let mut words = [0u32; W];
    // SAFETY: `words` has room for `T` (caller), `T` has no padding, so all
    // its bytes are initialised.
    unsafe {
        core::ptr::copy_nonoverlapping(
            &value as *const T as *const u8,
            words.as_mut_ptr() as *mut u8,
            core::mem::size_of::<T>(),
        );
    }
    for w in &mut words {
        *w = f(*w);
    }
    // SAFETY: the bytes are those of a `T` from another lane (caller).
    unsafe { core::ptr::read_unaligned(words.as_ptr() as *const T) }
}
