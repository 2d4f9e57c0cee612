//! The shapes of tiles: the Rust array types, 1 to 5 dimensions written
//! outermost first, that a pipeline's stages hold and a tensor map's
//! copies move, and how an element of one is named.
//!
//! A tile of 32 rows of 64 `f32`s is `[[f32; 64]; 32]`: its elements are
//! named `[row, column]`, laid out row after row (row-major), and the copy
//! engine, which lists sizes innermost first, sees a box of 64 x 32.

use crate::backend::elements::SharedElem;
use core::fmt::Debug;

mod sealed {
    pub trait Sealed {}
    impl<E, const A: usize> Sealed for [E; A] {}
}

/// The type of a tile: a Rust array of 1 to 5 dimensions, outermost
/// first, of a [`SharedElem`]: `[E; A]`, `[[E; B]; A]` (`A` rows of `B`),
/// `[[[E; C]; B]; A]`, and so on.
///
/// ```
/// use coop::memory::tile::TileArray;
/// type Tile = [[f32; 64]; 32]; // 32 rows of 64
/// assert_eq!(<Tile as TileArray>::RANK, 2);
/// assert_eq!(<Tile as TileArray>::BOX, [64, 32, 1, 1, 1]); // innermost first
/// assert_eq!(<Tile as TileArray>::BYTES, 8192);
/// assert_eq!(<Tile as TileArray>::inner_first([5, 7]), [7, 5, 0, 0, 0]);
/// assert_eq!(<Tile as TileArray>::flat([1, 2]), Some(66));
/// assert_eq!(<Tile as TileArray>::flat([32, 0]), None);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tile",
    label = "not an array of 1 to 5 dimensions of shared-memory elements",
    note = "a tile is written as a Rust array, outermost dimension first: `[f32; 256]`, `[[f32; 64]; 32]` (32 rows of 64), up to 5 dimensions",
    note = "a pipeline's ring is `Pipeline<[T; STAGES]>` of tiles `T`: `Pipeline<[[f32; 256]; 3]>` is 3 stages of 256 floats, while `Pipeline<[f32; 512]>` has no tiles"
)]
pub trait TileArray: sealed::Sealed + 'static {
    /// The element type.
    type Elem: SharedElem;
    /// Where a tile starts in the array: element coordinates, outermost
    /// first (`[row, column]`); negative or past the end where the tile
    /// hangs over an edge.
    type Coords: Copy + Debug;
    /// The array's sizes (elements), outermost first.
    type Dims: Copy + Debug + AsRef<[usize]>;
    /// An element of the tile, outermost first.
    type Index: Copy + Debug;
    /// Dimensions (1 to 5).
    const RANK: usize;
    /// The tile's sizes, innermost first (the driver's order), 1 past
    /// `RANK`.
    const BOX: [u32; 5];
    /// Elements in a tile.
    const ELEMENTS: usize;
    /// Bytes in a tile.
    const BYTES: usize = Self::ELEMENTS * core::mem::size_of::<Self::Elem>();
    /// The coordinates innermost first, 0 past `RANK`.
    fn inner_first(coords: Self::Coords) -> [i32; 5];
    /// The element number (row-major) of `index`, or `None` outside the tile.
    fn flat(index: Self::Index) -> Option<usize>;
}

impl<E: SharedElem, const A: usize> TileArray for [E; A] {
    type Elem = E;
    type Coords = [i32; 1];
    type Dims = [usize; 1];
    type Index = usize;
    const RANK: usize = 1;
    const BOX: [u32; 5] = [A as u32, 1, 1, 1, 1];
    const ELEMENTS: usize = A;
    #[inline(always)]
    fn inner_first([a]: [i32; 1]) -> [i32; 5] {
        [a, 0, 0, 0, 0]
    }
    #[inline(always)]
    fn flat(index: usize) -> Option<usize> {
        (index < A).then_some(index)
    }
}

impl<E: SharedElem, const B: usize, const A: usize> TileArray for [[E; B]; A] {
    type Elem = E;
    type Coords = [i32; 2];
    type Dims = [usize; 2];
    type Index = [usize; 2];
    const RANK: usize = 2;
    const BOX: [u32; 5] = [B as u32, A as u32, 1, 1, 1];
    const ELEMENTS: usize = A * B;
    #[inline(always)]
    fn inner_first([a, b]: [i32; 2]) -> [i32; 5] {
        [b, a, 0, 0, 0]
    }
    #[inline(always)]
    fn flat([a, b]: [usize; 2]) -> Option<usize> {
        (a < A && b < B).then_some(a * B + b)
    }
}

impl<E: SharedElem, const C: usize, const B: usize, const A: usize> TileArray for [[[E; C]; B]; A] {
    type Elem = E;
    type Coords = [i32; 3];
    type Dims = [usize; 3];
    type Index = [usize; 3];
    const RANK: usize = 3;
    const BOX: [u32; 5] = [C as u32, B as u32, A as u32, 1, 1];
    const ELEMENTS: usize = A * B * C;
    #[inline(always)]
    fn inner_first([a, b, c]: [i32; 3]) -> [i32; 5] {
        [c, b, a, 0, 0]
    }
    #[inline(always)]
    fn flat([a, b, c]: [usize; 3]) -> Option<usize> {
        (a < A && b < B && c < C).then_some((a * B + b) * C + c)
    }
}

impl<E: SharedElem, const D: usize, const C: usize, const B: usize, const A: usize> TileArray
    for [[[[E; D]; C]; B]; A]
{
    type Elem = E;
    type Coords = [i32; 4];
    type Dims = [usize; 4];
    type Index = [usize; 4];
    const RANK: usize = 4;
    const BOX: [u32; 5] = [D as u32, C as u32, B as u32, A as u32, 1];
    const ELEMENTS: usize = A * B * C * D;
    #[inline(always)]
    fn inner_first([a, b, c, d]: [i32; 4]) -> [i32; 5] {
        [d, c, b, a, 0]
    }
    #[inline(always)]
    fn flat([a, b, c, d]: [usize; 4]) -> Option<usize> {
        (a < A && b < B && c < C && d < D).then_some(((a * B + b) * C + c) * D + d)
    }
}

impl<
        E: SharedElem,
        const F: usize,
        const D: usize,
        const C: usize,
        const B: usize,
        const A: usize,
    > TileArray for [[[[[E; F]; D]; C]; B]; A]
{
    type Elem = E;
    type Coords = [i32; 5];
    type Dims = [usize; 5];
    type Index = [usize; 5];
    const RANK: usize = 5;
    const BOX: [u32; 5] = [F as u32, D as u32, C as u32, B as u32, A as u32];
    const ELEMENTS: usize = A * B * C * D * F;
    #[inline(always)]
    fn inner_first([a, b, c, d, f]: [i32; 5]) -> [i32; 5] {
        [f, d, c, b, a]
    }
    #[inline(always)]
    fn flat([a, b, c, d, f]: [usize; 5]) -> Option<usize> {
        (a < A && b < B && c < C && d < D && f < F)
            .then_some((((a * B + b) * C + c) * D + d) * F + f)
    }
}
