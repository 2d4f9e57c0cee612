//! The shapes of tiles: the Rust array types, 1 to 5 dimensions written
//! outermost first, that a pipeline's stages hold and a tensor map's
//! copies move, and how an element of one is named.
//!
//! A tile of 32 rows of 64 `f32`s is `[[f32; 64]; 32]`: its elements are
//! named `[row, column]`, laid out row after row (row-major), and the copy
//! engine, which lists sizes innermost first, sees a box of 64 x 32.
//!
//! [`Swizzled<T, SPAN>`] is the same tile as the copy engine lays it out
//! with a *swizzle*: the 16-byte chunks of each row of `SPAN` bytes (32, 64
//! or 128) trade places by the row's number, so that the chunks of one
//! column of the tile fall in different shared-memory banks. Its elements
//! are named as `T`'s; a stage of swizzled tiles finds each where the copy
//! engine put it.

use crate::backend::elements::SharedElem;
use core::fmt::Debug;

mod sealed {
    pub trait Sealed {}
    impl<E, const A: usize> Sealed for [E; A] {}
    impl<T, const SPAN: usize> Sealed for super::Swizzled<T, SPAN> {}
    pub trait SealedRows<const SPAN: usize> {}
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
    /// The span of the copy engine's swizzle in bytes (32, 64 or 128), 0
    /// for a tile laid out row after row; see [`Swizzled`].
    const SWIZZLE: u32 = 0;
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

impl<E: SharedElem, const F: usize, const D: usize, const C: usize, const B: usize, const A: usize>
    TileArray for [[[[[E; F]; D]; C]; B]; A]
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

/// A tile laid out row after row, as a slice lies in memory: every array
/// tile, not a [`Swizzled`] one. A pipeline's `load` of a slice, which
/// copies the slice's bytes as they are, takes only these.
#[diagnostic::on_unimplemented(
    message = "a stage of `{Self}` tiles is filled by the copy engine's swizzle, not by copying a slice",
    label = "`load` copies a slice as it lies in memory, without the swizzle",
    note = "load swizzled tiles with `load_tensor` from a `TensorMap` of the same tile type, or make the ring's tiles plain arrays"
)]
pub trait PlainTile: TileArray {}

impl<E: SharedElem, const A: usize> PlainTile for [E; A] {}
impl<E: SharedElem, const B: usize, const A: usize> PlainTile for [[E; B]; A] {}
impl<E: SharedElem, const C: usize, const B: usize, const A: usize> PlainTile for [[[E; C]; B]; A] {}
impl<E: SharedElem, const D: usize, const C: usize, const B: usize, const A: usize> PlainTile
    for [[[[E; D]; C]; B]; A]
{
}
impl<E: SharedElem, const F: usize, const D: usize, const C: usize, const B: usize, const A: usize>
    PlainTile for [[[[[E; F]; D]; C]; B]; A]
{
}

/// A tile of type `T` as the copy engine lays it out in shared memory with
/// a swizzle of `SPAN` bytes (32, 64 or 128; `CU_TENSOR_MAP_SWIZZLE_32B`,
/// `_64B`, `_128B`): `T`'s rows (its innermost dimension) are `SPAN` bytes
/// each, and the copy engine puts the 16-byte chunk `c` of row `r` at chunk
/// `c ^ (r * SPAN / 128 % (SPAN / 16))` of that row (`c ^ (r % 8)` for 128
/// bytes). Reading a column of a tile then touches `SPAN / 16` groups of
/// four banks instead of one, which is
/// what makes a transpose or a column sum through shared memory run
/// without bank conflicts (and the layout a matrix product's operands
/// take).
///
/// A `Swizzled<T, SPAN>` is named where `T` would be, on both sides of a
/// launch: the kernel's [`TensorMap`](crate::memory::tensor::TensorMap)
/// and `Pipeline` parameters and the host's `coop_host::TensorMap`, so
/// the map the host encodes and the stage the kernel reads agree by type.
/// A [`Stage`](crate::memory::pipeline::Stage)'s `at` and `get` name
/// elements as `T`'s and read each where the copy engine put it; tensor
/// stores from the stage swizzle back. Rows of another width are a
/// compile error (the copy engine's rule is at most `SPAN`; coop's is
/// exactly, so that a tile's type gives its bytes).
///
/// ```
/// use coop::memory::tile::{Swizzled, TileArray};
/// type Tile = Swizzled<[[f32; 32]; 16], 128>; // 16 rows of 128 bytes
/// assert_eq!(<Tile as TileArray>::SWIZZLE, 128);
/// assert_eq!(<Tile as TileArray>::BOX, [32, 16, 1, 1, 1]);
/// // Element [1, 0] (chunk 0 of row 1) lies in chunk 1 of its row.
/// assert_eq!(coop::memory::tile::swizzled_element::<Tile>(32), 36);
/// ```
///
/// ```compile_fail,E0277
/// use coop::memory::tile::{Swizzled, TileArray};
/// // Rows of 64 bytes cannot take a swizzle of 128.
/// let _ = <Swizzled<[[f32; 16]; 8], 128> as TileArray>::BYTES;
/// ```
#[repr(transparent)]
pub struct Swizzled<T, const SPAN: usize>(T);

/// A tile whose rows (its innermost dimension) are `SPAN` bytes, which
/// [`Swizzled<Self, SPAN>`] can lay out: an array of 1 to 5 dimensions of
/// [`SharedElem`]s whose innermost size times the element's bytes is 32, 64
/// or 128 (`[[f32; 32]; R]` for 128, `[[u16; 16]; R]` for 32).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be swizzled over {SPAN} bytes",
    label = "rows (the innermost dimension) are not {SPAN} bytes",
    note = "a swizzled tile's rows are exactly the swizzle's span: 32, 64 or 128 bytes (`Swizzled<[[f32; 32]; R], 128>`, `Swizzled<[[f32; 16]; R], 64>`, `Swizzled<[[u8; 32]; R], 32>`)",
    note = "for wider rows, load the tile as several maps of `SPAN`-byte columns, or leave it unswizzled"
)]
pub trait SwizzleRows<const SPAN: usize>: TileArray + sealed::SealedRows<SPAN> {}

macro_rules! swizzle_rows {
    ($span:literal: $($e:ty => $n:literal),*) => {$(
        impl sealed::SealedRows<$span> for [$e; $n] {}
        impl SwizzleRows<$span> for [$e; $n] {}
        impl<const A: usize> sealed::SealedRows<$span> for [[$e; $n]; A] {}
        impl<const A: usize> SwizzleRows<$span> for [[$e; $n]; A] {}
        impl<const B: usize, const A: usize> sealed::SealedRows<$span> for [[[$e; $n]; B]; A] {}
        impl<const B: usize, const A: usize> SwizzleRows<$span> for [[[$e; $n]; B]; A] {}
        impl<const C: usize, const B: usize, const A: usize> sealed::SealedRows<$span>
            for [[[[$e; $n]; C]; B]; A] {}
        impl<const C: usize, const B: usize, const A: usize> SwizzleRows<$span>
            for [[[[$e; $n]; C]; B]; A] {}
        impl<const D: usize, const C: usize, const B: usize, const A: usize>
            sealed::SealedRows<$span> for [[[[[$e; $n]; D]; C]; B]; A] {}
        impl<const D: usize, const C: usize, const B: usize, const A: usize> SwizzleRows<$span>
            for [[[[[$e; $n]; D]; C]; B]; A] {}
    )*};
}
swizzle_rows!(32: u8 => 32, i8 => 32, u16 => 16, i16 => 16, u32 => 8, i32 => 8, f32 => 8,
    u64 => 4, i64 => 4, f64 => 4, usize => 4, isize => 4);
swizzle_rows!(64: u8 => 64, i8 => 64, u16 => 32, i16 => 32, u32 => 16, i32 => 16, f32 => 16,
    u64 => 8, i64 => 8, f64 => 8, usize => 8, isize => 8);
swizzle_rows!(128: u8 => 128, i8 => 128, u16 => 64, i16 => 64, u32 => 32, i32 => 32, f32 => 32,
    u64 => 16, i64 => 16, f64 => 16, usize => 16, isize => 16);

impl<T: SwizzleRows<SPAN>, const SPAN: usize> TileArray for Swizzled<T, SPAN> {
    type Elem = T::Elem;
    type Coords = T::Coords;
    type Dims = T::Dims;
    type Index = T::Index;
    const RANK: usize = T::RANK;
    const BOX: [u32; 5] = T::BOX;
    const ELEMENTS: usize = T::ELEMENTS;
    const SWIZZLE: u32 = SPAN as u32;
    #[inline(always)]
    fn inner_first(coords: T::Coords) -> [i32; 5] {
        T::inner_first(coords)
    }
    #[inline(always)]
    fn flat(index: T::Index) -> Option<usize> {
        T::flat(index)
    }
}

/// Where the copy engine's swizzle of `span` bytes (32, 64, 128; 0: none)
/// puts the byte at `offset` of a region aligned to the swizzle's period
/// (8 lines of `span` bytes): the bits that number a 16-byte chunk within a
/// row of `span` bytes (bits 4 to 6 at most) flip with the same number of
/// bits from bit 7 up (the offset's 128-byte line), as CUDA's programming
/// guide tabulates the patterns.
///
/// ```
/// use coop::memory::tile::swizzle_offset;
/// assert_eq!(swizzle_offset(128, 128), 144); // row 1, chunk 0 -> chunk 1
/// assert_eq!(swizzle_offset(7 * 128 + 16, 128), 7 * 128 + 6 * 16); // 1 ^ 7
/// assert_eq!(swizzle_offset(128 + 4, 64), 128 + 16 + 4); // bits 4-5 flip with bits 7-8
/// assert_eq!(swizzle_offset(300, 0), 300);
/// ```
#[inline(always)]
pub const fn swizzle_offset(offset: u32, span: u32) -> u32 {
    crate::kernel::swizzle_offset(offset, span)
}

/// The element number in shared memory of element `e` (row-major, counted
/// from a region aligned to the swizzle's period) of a ring of tiles of
/// type `T`: `e` itself without a swizzle.
#[inline(always)]
pub const fn swizzled_element<T: TileArray>(e: u32) -> u32 {
    if T::SWIZZLE == 0 {
        return e;
    }
    let size = core::mem::size_of::<T::Elem>() as u32;
    swizzle_offset(e * size, T::SWIZZLE) / size
}
