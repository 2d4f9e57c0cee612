//! Tensor maps: how a kernel names a tile of a 1- to 5-D array in global
//! memory, for the copy engine (TMA, sm_90) to move into shared memory.
//!
//! The host describes the array once, in a *tensor map*: its element
//! type, its sizes and row strides, and the tile (the *box*) that one copy
//! moves. A kernel takes the map as a [`TensorMap<T>`] parameter, where
//! `T` is the tile's Rust array type, outermost dimension first: a tile of
//! 32 rows of 64 `f32`s is `TensorMap<[[f32; 64]; 32]>`. The host builds
//! its map with the same type (`coop_host::TensorMap<[[f32; 64]; 32]>`),
//! so a kernel cannot be launched with a map of another tile or element:
//! the launch does not compile.
//!
//! A tile is loaded into a pipeline stage of the same type, `Pipeline<[T;
//! STAGES]>`, by [`Stages::load_tensor`](crate::memory::pipeline::Stages::load_tensor)
//! at element coordinates, outermost first like the type: `[row, column]`.
//! One thread issues the copy (`cp.async.bulk.tensor`); the stage's
//! barrier counts its bytes. Elements of the tile outside the array (a
//! partial tile at an edge, negative coordinates) land as zeros, or as NaN
//! where the host asked for it.
//!
//! ```
//! use coop::prelude::*;
//! use coop::memory::pipeline::Pipeline;
//! use coop::memory::tensor::TensorMap;
//! use coop_host::{Cpu, LaunchConfig};
//!
//! /// Each block sums one 16 x 16 tile of a 40 x 40 matrix; the tiles at
//! /// the right and bottom edges are partial and read zeros outside it.
//! #[kernel]
//! pub fn tile_sums(block: ThreadBlock, matrix: TensorMap<[[f32; 16]; 16]>, sums: Out<f32>,
//!                  ring: Pipeline<[[[f32; 16]; 16]; 1]>) {
//!     let mut stages = ring.start(&block);
//!     let b = block.group_index();
//!     stages.load_tensor(&block, &matrix, [16 * b.y as i32, 16 * b.x as i32]);
//!     let tile = stages.next(&block);
//!     let t = block.thread_rank() as usize; // 256 threads, one element each
//!     let total = reduce(&block, tile.at([t / 16, t % 16]), op::Sum);
//!     if t == 0 {
//!         sums.write((b.y * 3 + b.x) as usize, total);
//!     }
//! }
//!
//! let data: Vec<f32> = (0..1600).map(|i| (i % 7) as f32).collect();
//! let map = coop_host::TensorMap::<[[f32; 16]; 16]>::cpu(&data, [40, 40])?;
//! let mut sums = vec![0f32; 9];
//! Cpu::new().launch(tile_sums, LaunchConfig::new((3, 3), 256), (&map, &mut sums))?;
//! assert_eq!(sums.iter().sum::<f32>(), data.iter().sum::<f32>());
//! # Ok::<(), coop_host::Error>(())
//! ```

use crate::backend::elements::SharedElem;
use crate::backend::target::Target;
use crate::backend::{AsyncCopies, Faults, Site};
use crate::kernel::params::{TensorTiles, TensorTilesOut};
#[doc(hidden)]
pub use crate::kernel::{CpuTensorLayout, TensorMapData};
use crate::kernel::{KernelParam, NoWord};
use crate::memory::tile::TileArray;
use core::cell::Cell;
use core::marker::PhantomData;

mod sealed {
    pub trait SealedElem {}
    pub trait SealedReduce {}
}

/// An element type the copy engine moves: a primitive integer or float.
///
/// ```
/// use coop::memory::tensor::TensorElem;
/// assert!(<f32 as TensorElem>::FLOAT);
/// assert!(!<u16 as TensorElem>::FLOAT);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an element of a tensor map",
    label = "not a primitive integer or float",
    note = "the copy engine moves elements of 1, 2, 4 or 8 bytes: `u8`, `i8`, `u16`, `i16`, `u32`, `i32`, `u64`, `i64`, `usize`, `isize`, `f32` or `f64`; a struct's tiles go by `Stages::load` instead"
)]
pub trait TensorElem: SharedElem + sealed::SealedElem {
    /// The driver's data type code (`CUtensorMapDataType`).
    const DATA_TYPE: u32;
    /// Whether the element is a float (only floats can be filled with NaN).
    const FLOAT: bool;
}

macro_rules! tensor_elems {
    ($($t:ty => $code:expr, $float:expr);* $(;)?) => {$(
        impl sealed::SealedElem for $t {}
        impl TensorElem for $t {
            const DATA_TYPE: u32 = $code;
            const FLOAT: bool = $float;
        }
    )*};
}
// UINT8 0, UINT16 1, UINT32 2, INT32 3, UINT64 4, INT64 5, FLOAT32 7, FLOAT64 8.
tensor_elems! {
    u8 => 0, false; i8 => 0, false; u16 => 1, false; i16 => 1, false;
    u32 => 2, false; i32 => 3, false; u64 => 4, false; i64 => 5, false;
    usize => 4, false; isize => 5, false; f32 => 7, true; f64 => 8, true;
}

use crate::backend::Rmw;

/// An operator the copy engine applies when it combines a tile from shared
/// memory into an array in global memory (a bulk tensor reduction,
/// `cp.reduce.async.bulk.tensor`, sm_90): [`op::Sum`](crate::op::Sum) of
/// `u32`, `i32`, `u64` and `f32`; [`op::Min`](crate::op::Min) and
/// [`op::Max`](crate::op::Max) of `u32` and `i32`;
/// [`op::BitAnd`](crate::op::BitAnd), [`op::BitOr`](crate::op::BitOr) and
/// [`op::BitXor`](crate::op::BitXor) of `u32`, `i32` and `u64`. Each
/// element is combined atomically: tiles of several blocks may combine
/// into the same elements.
///
/// ```
/// use coop::memory::tensor::TensorReduce;
/// use coop::op;
/// fn combines<E: coop::memory::tensor::TensorElem, O: TensorReduce<E>>(_: O) {}
/// combines::<f32, _>(op::Sum);
/// combines::<u32, _>(op::Max);
/// combines::<u64, _>(op::BitXor);
/// ```
///
/// Other pairs are compile errors that list these:
///
/// ```compile_fail,E0277
/// use coop::memory::tensor::TensorReduce;
/// use coop::op;
/// fn combines<E: coop::memory::tensor::TensorElem, O: TensorReduce<E>>(_: O) {}
/// combines::<f32, _>(op::Max); // the copy engine has no float minimum or maximum
/// ```
#[diagnostic::on_unimplemented(
    message = "the copy engine cannot combine `{E}` elements with `{Self}`",
    label = "no bulk tensor reduction for this operator and element",
    note = "a bulk tensor reduction (`cp.reduce.async.bulk.tensor`) takes `op::Sum` of `u32`, `i32`, `u64` or `f32`; `op::Min` or `op::Max` of `u32` or `i32`; `op::BitAnd`, `op::BitOr` or `op::BitXor` of `u32`, `i32` or `u64`",
    note = "for anything else, combine the tile with atomics (`AtomicOut`) or store it with `store_tensor` and combine the stored tiles in a second pass"
)]
pub trait TensorReduce<E: TensorElem>: crate::op::Operator<E> + sealed::SealedReduce {
    /// The copy engine's operation.
    #[doc(hidden)]
    const OP: Rmw;
    /// The CPU backend's: `*global = op(*global, *tile)`.
    ///
    /// # Safety
    ///
    /// Both point to one (possibly unaligned) `E`, `global` writable.
    #[doc(hidden)]
    unsafe fn combine_element(global: *mut u8, tile: *const u8);
}

/// `*global = op(*global, *tile)`, the CPU backend's combination of one
/// element by the copy engine's reductions (tensor and bulk).
///
/// # Safety
///
/// Both point to one (possibly unaligned) `T`, `global` writable.
#[inline]
pub(crate) unsafe fn combine_in_place<T: Copy, O: crate::op::Operator<T>>(
    op: &O,
    global: *mut u8,
    tile: *const u8,
) {
    let (g, t) = (global as *mut T, tile as *const T);
    // SAFETY: the caller's.
    unsafe { g.write_unaligned(op.combine(g.read_unaligned(), t.read_unaligned())) };
}

macro_rules! tensor_reduces {
    ($($op:ident => $kind:ident: $($t:ty),*);* $(;)?) => {$(
        impl sealed::SealedReduce for crate::op::$op {}
        $(impl TensorReduce<$t> for crate::op::$op {
            const OP: Rmw = Rmw::$kind;
            unsafe fn combine_element(global: *mut u8, tile: *const u8) {
                // SAFETY: the caller's: one `$t` each.
                unsafe { combine_in_place::<$t, _>(&crate::op::$op, global, tile) }
            }
        })*
    )*};
}
tensor_reduces! {
    Sum => Add: u32, i32, u64, f32;
    Min => Min: u32, i32;
    Max => Max: u32, i32;
    BitAnd => And: u32, i32, u64;
    BitOr => Or: u32, i32, u64;
    BitXor => Xor: u32, i32, u64;
}

/// A `&'static CStr` of string literals, for the messages of a check.
macro_rules! c_concat {
    ($($s:expr),+) => {{
        const M: &core::ffi::CStr =
            match core::ffi::CStr::from_bytes_with_nul(concat!($($s),+, "\0").as_bytes()) {
                Ok(m) => m,
                Err(_) => panic!("a message with a nul inside"),
            };
        M
    }};
}

/// The calls that write a tile into a tensor map's array, for their
/// messages.
#[derive(Clone, Copy)]
pub(crate) enum TensorOutCall {
    StageStore,
    StageReduce,
    ArrayStore,
    ArrayReduce,
}

macro_rules! out_messages {
    ($call:literal) => {
        [
            c_concat!($call, ": tensor copies need sm_90 or newer"),
            c_concat!(
                $call,
                ": the innermost (last) coordinate must start the tile on a multiple of 16 bytes \
                 (of 4 elements of 4 bytes, 2 of 8, 8 of 2, 16 of 1); the copy engine faults on any other"
            ),
            c_concat!(
                $call,
                ": a tile is written into a tensor's array at coordinates of 0 or more (the copy \
                 engine faults on one that starts before the array); a tile over the array's far \
                 edges is written in part"
            ),
        ]
    };
}

/// Whether a tensor copy at `at` starts on a multiple of 16 bytes along the
/// innermost dimension, as the copy engine requires (it faults with an
/// illegal instruction otherwise, measured on an H200).
#[inline(always)]
pub(crate) fn inner_aligned<T: TileArray>(at: T::Coords) -> bool {
    let step = (16 / core::mem::size_of::<T::Elem>().clamp(1, 16)) as i32;
    T::inner_first(at)[0] % step == 0
}

/// Refuses, naming `call`, what the copy engine faults on when it writes
/// the tile at `at` into a tensor's array: no copy engine (before sm_90), an
/// innermost coordinate off 16 bytes, a negative coordinate.
#[inline(always)]
pub(crate) fn check_tensor_out<T: TileArray>(call: TensorOutCall, at: T::Coords, site: Site) {
    let [sm90, inner, negative] = match call {
        TensorOutCall::StageStore => out_messages!("Stage::store_tensor"),
        TensorOutCall::StageReduce => out_messages!("Stage::reduce_tensor"),
        TensorOutCall::ArrayStore => out_messages!("store_tensor"),
        TensorOutCall::ArrayReduce => out_messages!("reduce_tensor"),
    };
    if !Target::BULK {
        Target::check_failed(sm90, site);
    }
    if !inner_aligned::<T>(at) {
        Target::check_failed(inner, site);
    }
    if T::inner_first(at).iter().any(|&c| c < 0) {
        Target::check_failed(negative, site);
    }
}

/// What a tensor map parameter holds in each thread: the map's address,
/// and whether this thread has acquired it for the copy engine.
pub(crate) struct MapWord {
    data: *const TensorMapData,
    acquired: Cell<bool>,
}

impl MapWord {
    /// The parameter's word at kernel entry: thread (0, 0, 0) of each block
    /// (the thread that issues a pipeline's copies) acquires the map for
    /// the copy engine now, so that the fence's latency is not paid between
    /// a tile's landing and its store. On the CPU backend nothing needs
    /// acquiring.
    #[inline(always)]
    fn at_entry(data: *const TensorMapData) -> MapWord {
        #[cfg(target_arch = "nvptx64")]
        {
            use crate::backend::target::Target;
            use crate::backend::{AsyncCopies, Registers, site};
            let t = Target::thread_index(site!());
            if Target::BULK && t.x == 0 && t.y == 0 && t.z == 0 {
                Target::tensor_map_acquire(data, site!());
                return MapWord {
                    data,
                    acquired: Cell::new(true),
                };
            }
        }
        MapWord {
            data,
            acquired: Cell::new(false),
        }
    }

    /// The map's address in device memory.
    #[inline(always)]
    pub(crate) fn data(&self) -> *const TensorMapData {
        self.data
    }

    /// Whether the calling thread has yet to acquire the map before its
    /// first copy; marks it acquired.
    #[inline(always)]
    pub(crate) fn first_use(&self) -> bool {
        !self.acquired.replace(true)
    }
}

/// A tensor map parameter: tiles of type `T` of an array in global
/// memory, for [`Stages::load_tensor`](crate::memory::pipeline::Stages::load_tensor).
/// The host passes a `coop_host::TensorMap<T>` built for the same `T`;
/// see the [module](self).
pub struct TensorMap<T: TileArray>
where
    T::Elem: TensorElem,
{
    pub(crate) word: MapWord,
    _tile: PhantomData<T>,
}

// SAFETY: `TensorTiles<T>` pushes the address of a tensor map in device
// memory (GPU) or host memory (CPU backend), which `from_abi` keeps.
unsafe impl<T: TileArray> KernelParam for TensorMap<T>
where
    T::Elem: TensorElem,
{
    type Word0 = *const TensorMapData;
    type Word1 = NoWord;
    type Host = TensorTiles<T>;
    #[inline(always)]
    unsafe fn from_abi(data: *const TensorMapData, _: NoWord) -> Self {
        TensorMap {
            word: MapWord::at_entry(data),
            _tile: PhantomData,
        }
    }
}

/// A tensor map parameter for stores: tiles of type `T` written into an
/// array in global memory by
/// [`Stage::store_tensor`](crate::memory::pipeline::Stage::store_tensor).
/// The host passes a `coop_host::TensorMapMut<T>`, built from an exclusive
/// borrow of the array.
pub struct TensorOut<T: TileArray>
where
    T::Elem: TensorElem,
{
    pub(crate) word: MapWord,
    _tile: PhantomData<T>,
}

// SAFETY: `TensorTilesOut<T>` pushes the address of a tensor map of an
// array the launch may write, which `from_abi` keeps.
unsafe impl<T: TileArray> KernelParam for TensorOut<T>
where
    T::Elem: TensorElem,
{
    type Word0 = *const TensorMapData;
    type Word1 = NoWord;
    type Host = TensorTilesOut<T>;
    #[inline(always)]
    unsafe fn from_abi(data: *const TensorMapData, _: NoWord) -> Self {
        TensorOut {
            word: MapWord::at_entry(data),
            _tile: PhantomData,
        }
    }
}
