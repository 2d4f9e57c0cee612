//! Tiles loaded as whole 16-byte vectors: [`Vectorized`] element types,
//! whose chunks of 16 bytes ([`Align16`]) one load instruction moves
//! (`ld.global.v4.u32` and the like). The device-wide reductions fold
//! chunks with it, and the scans load and store their rows with it.

use crate::Shuffle;
use crate::device::map::Map;
use crate::op::Operator;

/// 16 bytes of `A`, aligned to 16 so that one load instruction moves them
/// (`ld.global.v4.f32` and the like).
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug)]
pub struct Align16<A>(pub A);

/// An element type that loads as whole 16-byte vectors.
pub trait Vectorized: Shuffle {
    /// 16 bytes of elements.
    type Chunk: Copy;
    /// Elements in a chunk.
    const LANES: usize;
    /// Folds the chunk's elements, in order, mapped by `map`, into `acc`;
    /// `first` is the index of the chunk's first element in the input.
    fn fold_chunk<M: Map<Self>, O: Operator<M::Output>>(
        chunk: Self::Chunk,
        first: usize,
        acc: M::Output,
        map: M,
        op: O,
    ) -> M::Output;
    /// Element `i` of the chunk (`i < LANES`).
    fn lane(chunk: Self::Chunk, i: usize) -> Self;
    /// A chunk whose element `i` is `f(i)`.
    fn chunk_from_fn(f: impl FnMut(usize) -> Self) -> Self::Chunk;
}

macro_rules! vectorized {
    ($($t:ty: $k:literal),*) => {$(
        impl Vectorized for $t {
            type Chunk = Align16<[$t; $k]>;
            const LANES: usize = $k;
            #[inline(always)]
            fn fold_chunk<M: Map<Self>, O: Operator<M::Output>>(
                chunk: Self::Chunk,
                first: usize,
                acc: M::Output,
                map: M,
                op: O,
            ) -> M::Output {
                let mut acc = acc;
                let mut i = 0;
                while i < $k {
                    acc = op.combine(acc, map.apply(first + i, chunk.0[i]));
                    i += 1;
                }
                acc
            }
            #[inline(always)]
            fn lane(chunk: Self::Chunk, i: usize) -> Self {
                chunk.0[i]
            }
            #[inline(always)]
            fn chunk_from_fn(f: impl FnMut(usize) -> Self) -> Self::Chunk {
                Align16(core::array::from_fn(f))
            }
        }
    )*};
}
vectorized!(u8: 16, i8: 16, u16: 8, i16: 8, u32: 4, i32: 4, f32: 4, u64: 2, i64: 2, f64: 2, usize: 2, isize: 2, u128: 1, i128: 1);
