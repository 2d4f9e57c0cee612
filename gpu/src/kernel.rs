//! What crosses the boundary between a host launch and a kernel: parameter
//! types, their PTX encoding, and the host-side descriptor of a kernel.
//!
//! `#[kernel]` lowers every parameter through [`KernelParam`]: a parameter
//! becomes one or two PTX parameters (`Word0`, `Word1`; a zero-sized word
//! takes no PTX parameter), and names a marker type ([`KernelParam::Host`])
//! that tells `coop_host` which host values may be passed for it.

/// The host-side description of a `#[kernel]` function: its PTX entry name
/// and the parameters the host passes, as a tuple of [`params`] markers.
///
/// `#[kernel] pub fn dot(...)` emits, on the host, a unit struct `dot` that
/// implements this trait; `coop_host` launches it with arguments checked
/// against `Params` at compile time.
///
/// ```
/// use coop::kernel::params::{OutSlice, Slice, Value};
/// use coop::prelude::*;
/// use coop::Kernel;
///
/// #[kernel]
/// pub fn scale(grid: Grid, factor: f32, input: &[f32], out: Out<f32>) {
///     let i = grid.thread_rank();
///     if i < input.len() {
///         out.write(i, factor * input[i]);
///     }
/// }
///
/// assert_eq!(<scale as Kernel>::NAME, "scale");
/// let _: fn(<scale as Kernel>::Params) = |_: (Value<f32>, Slice<f32>, OutSlice<f32>)| {};
/// ```
pub trait Kernel: Copy {
    /// The `.entry` name in the PTX.
    const NAME: &'static str;
    /// Bytes of static shared memory its `Shared<[E; N]>` parameters
    /// declare (each rounded up to 16), which the CPU backend checks
    /// launches against; on a GPU the driver reports the exact figure.
    const STATIC_SHARED_BYTES: usize = 0;
    /// One marker from [`params`] per non-handle parameter, in order.
    type Params: params::ParamList;
    /// The names of those parameters, in the same order, for diagnostics.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::Kernel;
    ///
    /// #[kernel]
    /// pub fn scale(grid: Grid, factor: f32, input: &[f32], out: Out<f32>) {}
    ///
    /// assert_eq!(<scale as Kernel>::PARAM_NAMES, ["factor", "input", "out"]);
    /// ```
    const PARAM_NAMES: &'static [&'static str] = &[];
    /// Whether the kernel is declared `#[kernel(cooperative)]`: it takes a
    /// [`CooperativeGrid`](crate::CooperativeGrid), and is launched with
    /// every block resident at once (the driver's cooperative launch), so
    /// that its grid syncs complete.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::Kernel;
    ///
    /// #[kernel(cooperative)]
    /// pub fn two_phases(grid: CooperativeGrid, out: Out<u32>) {
    ///     grid.sync();
    /// }
    ///
    /// #[kernel]
    /// pub fn one_phase(grid: Grid, out: Out<u32>) {}
    ///
    /// assert!(<two_phases as Kernel>::COOPERATIVE);
    /// assert!(!<one_phase as Kernel>::COOPERATIVE);
    /// ```
    const COOPERATIVE: bool = false;
    /// The file of the kernel's source and the lines of its body (from
    /// its opening brace to its closing one): the CPU backend names the
    /// callers of a collective only when the call lies outside them (in a
    /// helper function), which saves it reading the thread's stack.
    #[doc(hidden)]
    const BODY_LINES: (&'static str, u32, u32) = ("", 0, 0);
    /// The kernel's launch bounds and register cap, from
    /// `#[kernel(max_threads = .., min_blocks = .., max_registers = ..)]`
    /// (CUDA C++'s `__launch_bounds__` and `__maxnreg__`). A launch of
    /// more threads a block than `max_threads` is refused on both
    /// backends.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::{Kernel, LaunchBounds};
    ///
    /// #[kernel(max_threads = 256, min_blocks = 4)]
    /// pub fn bounded(grid: Grid, out: Out<u32>) {}
    ///
    /// #[kernel]
    /// pub fn free(grid: Grid, out: Out<u32>) {}
    ///
    /// assert_eq!(<bounded as Kernel>::LAUNCH_BOUNDS.max_threads, Some(256));
    /// assert_eq!(<bounded as Kernel>::LAUNCH_BOUNDS.min_blocks, Some(4));
    /// assert_eq!(<free as Kernel>::LAUNCH_BOUNDS, LaunchBounds::NONE);
    /// ```
    const LAUNCH_BOUNDS: LaunchBounds = LaunchBounds::NONE;

    /// Runs the kernel's body as the calling thread of the CPU backend.
    ///
    /// # Safety
    ///
    /// Only the CPU backend calls this, inside a launch, with the words of
    /// live host buffers and values matching `Params`.
    #[doc(hidden)]
    unsafe fn run_lane(words: <Self::Params as params::ParamList>::Words);
}

/// What a kernel promises about its launches, and the register cap it
/// asks of ptxas: the arguments of `#[kernel(..)]`.
///
/// `coop_build` turns them into the PTX directives `.maxntid`,
/// `.minnctapersm` and `.maxnreg` on the kernel's entry point, so that
/// ptxas fits the kernel's registers to them (CUDA C++'s
/// `__launch_bounds__(max_threads, min_blocks)` and `__maxnreg__`);
/// `coop_host` refuses a launch of more threads a block than
/// `max_threads`, on a GPU and on the CPU backend alike.
///
/// - `max_threads`: the most threads a block of any launch has (1 to
///   1024). ptxas may then use up to `65536 / max_threads` registers a
///   thread, no more.
/// - `min_blocks`: with `max_threads`, how many such blocks one
///   multiprocessor should run at once (1 to 32); ptxas caps the
///   registers so that they fit, spilling what does not.
/// - `max_registers`: the registers a thread may use (16 to 255), an
///   explicit cap; not together with `min_blocks`, which caps them too.
/// - `block = (x, y, z)` (or `(x, y)`, or `x`): the one block shape every
///   launch has, PTX's `.reqntid`; instead of `max_threads`, which it
///   sets to `x * y * z`. Both backends refuse a launch of another shape,
///   and the compiler learns that thread indices lie below the shape, so
///   index checks against arrays of that shape (a shared tile of
///   `[[T; x]; y]` read at `[y][x]`) cost nothing.
///
/// ```
/// use coop::prelude::*;
/// use coop::{Dim3, Kernel};
///
/// #[kernel(block = (32, 8))]
/// pub fn strips(block: ThreadBlock, out: Out<u32>) {}
///
/// let bounds = <strips as Kernel>::LAUNCH_BOUNDS;
/// assert_eq!((bounds.block, bounds.max_threads), (Some(Dim3::new(32, 8, 1)), Some(256)));
/// ```
///
/// ```
/// use coop::prelude::*;
/// use coop::{Kernel, LaunchBounds};
///
/// #[kernel(max_registers = 40)]
/// pub fn lean(grid: Grid, out: Out<u32>) {}
///
/// assert_eq!(
///     <lean as Kernel>::LAUNCH_BOUNDS,
///     LaunchBounds { max_threads: None, min_blocks: None, max_registers: Some(40), block: None }
/// );
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LaunchBounds {
    /// Most threads a block of any launch of the kernel has.
    pub max_threads: Option<u32>,
    /// Blocks of `max_threads` one multiprocessor should hold at once.
    pub min_blocks: Option<u32>,
    /// Registers a thread may use.
    pub max_registers: Option<u32>,
    /// The one block shape every launch has (`#[kernel(block = (x, y,
    /// z))]`, PTX's `.reqntid`); `max_threads` is then its thread count.
    pub block: Option<crate::Dim3>,
}

impl LaunchBounds {
    /// No bounds: any block the device allows, registers as ptxas sees fit.
    pub const NONE: LaunchBounds = LaunchBounds {
        max_threads: None,
        min_blocks: None,
        max_registers: None,
        block: None,
    };
}

/// Marker types naming what the host passes for each kernel parameter.
///
/// ```
/// use coop::kernel::params::{OutSlice, ParamList, ParamMarker, Slice, Value};
///
/// // The words a launch passes for `(&[f32], f64, Out<u8>)`.
/// type Words = <(Slice<f32>, Value<f64>, OutSlice<u8>) as ParamList>::Words;
/// let _: fn(Words) = |_: ((*const f32, usize), (f64, coop::kernel::NoWord), (*mut u8, usize))| {};
/// let _: fn(<Slice<u32> as ParamMarker>::Word1) = |_: usize| {};
/// ```
pub mod params {
    use core::marker::PhantomData;

    /// A read-only device buffer of `T` (kernel side: `&[T]`).
    ///
    /// ```
    /// use coop::kernel::params::Slice;
    /// use coop::KernelParam;
    /// let _: fn(<&[f32] as KernelParam>::Host) = |_: Slice<f32>| {};
    /// ```
    pub struct Slice<T>(PhantomData<T>);
    /// A writable device buffer of `T` (kernel side: [`Out<T>`](crate::Out)).
    ///
    /// ```
    /// use coop::kernel::params::OutSlice;
    /// use coop::{KernelParam, Out};
    /// let _: fn(<Out<'static, u8> as KernelParam>::Host) = |_: OutSlice<u8>| {};
    /// ```
    pub struct OutSlice<T>(PhantomData<T>);
    /// A value of `T` copied into the launch (kernel side: `T`).
    ///
    /// ```
    /// use coop::kernel::params::Value;
    /// use coop::KernelParam;
    /// let _: fn(<i64 as KernelParam>::Host) = |_: Value<i64>| {};
    /// ```
    pub struct Value<T>(PhantomData<T>);
    /// A tensor map of tiles of type `T` (kernel side:
    /// [`TensorMap<T>`](crate::memory::tensor::TensorMap)).
    ///
    /// ```
    /// use coop::kernel::params::TensorTiles;
    /// use coop::memory::tensor::TensorMap;
    /// use coop::KernelParam;
    /// let _: fn(<TensorMap<[[f32; 8]; 8]> as KernelParam>::Host) = |_: TensorTiles<[[f32; 8]; 8]>| {};
    /// ```
    pub struct TensorTiles<T>(PhantomData<T>);
    /// A tensor map of tiles of type `T` that the kernel stores (kernel
    /// side: [`TensorOut<T>`](crate::memory::tensor::TensorOut)).
    ///
    /// ```
    /// use coop::kernel::params::TensorTilesOut;
    /// use coop::memory::tensor::TensorOut;
    /// use coop::KernelParam;
    /// let _: fn(<TensorOut<[u8; 64]> as KernelParam>::Host) = |_: TensorTilesOut<[u8; 64]>| {};
    /// ```
    pub struct TensorTilesOut<T>(PhantomData<T>);

    /// The two PTX words a parameter marker stands for; the same types as
    /// [`KernelParam`](crate::KernelParam)'s words of the kernel-side type.
    ///
    /// ```
    /// use coop::kernel::params::{OutSlice, ParamMarker};
    /// let _: fn(<OutSlice<f64> as ParamMarker>::Word0) = |_: *mut f64| {};
    /// ```
    pub trait ParamMarker {
        /// First word.
        type Word0: Copy;
        /// Second word ([`NoWord`](super::NoWord) for none).
        type Word1: Copy;

        /// The buffer the words pass, for a buffer parameter: how the
        /// CPU backend names a parameter in its diagnostics.
        #[doc(hidden)]
        fn buffer(_word0: Self::Word0, _word1: Self::Word1) -> Option<BufferWords> {
            None
        }
    }

    /// A buffer parameter's address, length, element size and whether the
    /// kernel may write it.
    #[doc(hidden)]
    #[derive(Clone, Copy, Debug)]
    pub struct BufferWords {
        pub addr: usize,
        pub len: usize,
        pub elem: usize,
        pub writable: bool,
    }

    impl<T> ParamMarker for Slice<T> {
        type Word0 = *const T;
        type Word1 = usize;
        fn buffer(ptr: *const T, len: usize) -> Option<BufferWords> {
            Some(BufferWords {
                addr: ptr as usize,
                len,
                elem: core::mem::size_of::<T>(),
                writable: false,
            })
        }
    }

    impl<T> ParamMarker for OutSlice<T> {
        type Word0 = *mut T;
        type Word1 = usize;
        fn buffer(ptr: *mut T, len: usize) -> Option<BufferWords> {
            Some(BufferWords {
                addr: ptr as usize,
                len,
                elem: core::mem::size_of::<T>(),
                writable: true,
            })
        }
    }

    impl<T: Copy> ParamMarker for Value<T> {
        type Word0 = T;
        type Word1 = super::NoWord;
    }

    impl<T> ParamMarker for TensorTiles<T> {
        type Word0 = *const super::TensorMapData;
        type Word1 = super::NoWord;
    }

    impl<T> ParamMarker for TensorTilesOut<T> {
        type Word0 = *const super::TensorMapData;
        type Word1 = super::NoWord;
    }

    /// A tuple of [`ParamMarker`]s: a kernel's parameter list, and the
    /// words a launch passes for it.
    ///
    /// ```
    /// use coop::kernel::params::{ParamList, Value};
    /// let _: fn(<(Value<u32>,) as ParamList>::Words) = |_: ((u32, coop::kernel::NoWord),)| {};
    /// ```
    pub trait ParamList {
        /// `((Word0, Word1), ...)`, one pair per parameter.
        type Words: Copy;

        /// Each parameter's buffer (`None` for a value), in order.
        #[doc(hidden)]
        fn buffers(words: Self::Words, each: &mut dyn FnMut(Option<BufferWords>));
    }

    macro_rules! param_lists {
        ($(($($p:ident),*)),*) => {$(
            impl<$($p: ParamMarker),*> ParamList for ($($p,)*) {
                type Words = ($(($p::Word0, $p::Word1),)*);
                #[allow(non_snake_case, unused_variables)]
                fn buffers(words: Self::Words, each: &mut dyn FnMut(Option<BufferWords>)) {
                    let ($($p,)*) = words;
                    $(each($p::buffer($p.0, $p.1));)*
                }
            }
        )*};
    }
    param_lists!(
        (),
        (P0),
        (P0, P1),
        (P0, P1, P2),
        (P0, P1, P2, P3),
        (P0, P1, P2, P3, P4),
        (P0, P1, P2, P3, P4, P5),
        (P0, P1, P2, P3, P4, P5, P6),
        (P0, P1, P2, P3, P4, P5, P6, P7),
        (P0, P1, P2, P3, P4, P5, P6, P7, P8),
        (P0, P1, P2, P3, P4, P5, P6, P7, P8, P9),
        (P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10),
        (P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11)
    );
}

/// A tensor map as it lies in device memory: the driver's opaque 128
/// bytes on a GPU (`CUtensorMap`); on the CPU backend coop's own
/// description of the array ([`CpuTensorLayout`]).
#[doc(hidden)]
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
pub struct TensorMapData(pub [u64; 16]);

/// The array a tensor map describes, as the CPU backend reads it: every
/// size innermost first.
#[doc(hidden)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTensorLayout {
    /// Address of element 0.
    pub data: u64,
    /// Bytes of an element.
    pub elem: u32,
    /// Dimensions.
    pub rank: u32,
    /// The array's sizes.
    pub dims: [u64; 5],
    /// Bytes from one element to the next along each dimension.
    pub strides: [u64; 5],
    /// The tile's sizes.
    pub boxes: [u32; 5],
    /// 1 where elements outside the array land as NaN, 0 for zeros.
    pub nan_fill: u32,
    /// The span of the tiles' swizzle in shared memory (32, 64 or 128
    /// bytes), 0 for none.
    pub swizzle: u32,
}

const _: () = assert!(core::mem::size_of::<CpuTensorLayout>() <= 128);

/// Where the copy engine's swizzle of `span` bytes (0: none) puts the byte
/// at `offset` of a region aligned to the swizzle's period: the bits of the
/// offset's 16-byte chunk within a row of `span` bytes flip with bits 7
/// and up (the number of its 128-byte line).
#[inline(always)]
pub(crate) const fn swizzle_offset(offset: u32, span: u32) -> u32 {
    if span == 0 {
        offset
    } else {
        let mask = (span / 16 - 1) << 4;
        offset ^ ((offset >> 3) & mask)
    }
}

impl TensorMapData {
    /// The CPU backend's map of `layout`.
    pub fn from_cpu_layout(layout: CpuTensorLayout) -> TensorMapData {
        let mut data = TensorMapData([0; 16]);
        // SAFETY: the layout is plain data of at most 128 bytes (checked
        // above), written into the map's 128 bytes.
        unsafe { core::ptr::write_unaligned(data.0.as_mut_ptr() as *mut CpuTensorLayout, layout) };
        data
    }

    /// The layout a CPU-backend map holds.
    pub fn cpu_layout(&self) -> CpuTensorLayout {
        // SAFETY: `from_cpu_layout` wrote one there; every bit pattern is
        // a valid `CpuTensorLayout`.
        unsafe { core::ptr::read_unaligned(self.0.as_ptr() as *const CpuTensorLayout) }
    }
}

/// A PTX parameter word that takes no space: zero-sized parameters vanish
/// from the `.entry` signature. The second word of a value parameter.
///
/// ```
/// assert_eq!(core::mem::size_of::<coop::kernel::NoWord>(), 0);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NoWord;

/// A type that can be a parameter of a `#[kernel]` function.
///
/// Implemented for `&[T]` (read-only buffers), [`Out<T>`](crate::Out) (writable
/// buffers), the primitive numbers and arrays of them (values) and tensor maps
/// ([`TensorMap<T>`](crate::memory::tensor::TensorMap)). The handles `ThreadBlock`
/// and `Grid` are parameters too, but are made on the device and take no
/// argument.
///
/// ```
/// use coop::KernelParam;
/// use coop::kernel::params::Slice;
///
/// // A read-only slice travels as a pointer and a length.
/// let data = [1u16, 2, 3];
/// // SAFETY: the words describe `data`, which outlives the slice.
/// let slice = unsafe { <&[u16] as KernelParam>::from_abi(data.as_ptr(), data.len()) };
/// assert_eq!(slice, [1, 2, 3]);
/// let _: fn(<&[u16] as KernelParam>::Host) = |_: Slice<u16>| {};
/// ```
///
/// An array of numbers travels by value, as one PTX parameter (`.param
/// .b8 w[12]` for `[f32; 3]`): small tables a launch needs no buffer
/// for.
///
/// ```
/// use coop::prelude::*;
/// use coop_host::{Cpu, LaunchConfig};
///
/// /// RGB pixels weighted by channel.
/// #[kernel]
/// pub fn weigh(grid: Grid, rgb: &[f32], weights: [f32; 3], out: Out<f32>) {
///     let i = grid.thread_rank();
///     if i < rgb.len() {
///         out.write(i, rgb[i] * weights[i % 3]);
///     }
/// }
///
/// let rgb = [1.0f32, 1.0, 1.0, 2.0, 2.0, 2.0];
/// let mut out = vec![0f32; 6];
/// Cpu::new().launch(weigh, LaunchConfig::new(1, 32), (&rgb[..], [0.5f32, 1.0, 2.0], &mut out))?;
/// assert_eq!(out, [0.5, 1.0, 2.0, 1.0, 2.0, 4.0]);
/// # Ok::<(), coop_host::Error>(())
/// ```
///
/// # Safety
///
/// `from_abi` must accept exactly what `coop_host` passes for `Host`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a kernel parameter",
    label = "not a `KernelParam`",
    note = "a kernel takes `ThreadBlock` and `Grid` handles, read-only buffers `&[T]`, writable buffers `Out<T>`, primitive numbers and arrays of them by value, and tensor maps `TensorMap<T>`/`TensorOut<T>`",
    note = "`&mut [T]` is not allowed: every thread of the launch would hold the same mutable slice at once; use `Out<T>`"
)]
pub unsafe trait KernelParam: Sized {
    /// First PTX parameter.
    type Word0: Copy;
    /// Second PTX parameter, or [`NoWord`] for none.
    type Word1: Copy;
    /// What the host passes: a marker from [`params`], standing for the same
    /// two words.
    type Host: params::ParamMarker<Word0 = Self::Word0, Word1 = Self::Word1>;
    /// Rebuilds the parameter from its PTX words.
    ///
    /// # Safety
    ///
    /// The words are those the host launch passed for `Host`.
    unsafe fn from_abi(word0: Self::Word0, word1: Self::Word1) -> Self;
}

// SAFETY: `Slice<T>` pushes a device pointer and an element count, which
// `from_abi` reads back as the same two words.
unsafe impl<T: Copy> KernelParam for &[T] {
    type Word0 = *const T;
    type Word1 = usize;
    type Host = params::Slice<T>;
    #[inline(always)]
    unsafe fn from_abi(ptr: *const T, len: usize) -> Self {
        if len == 0 {
            &[]
        } else {
            // SAFETY: the host passed a live device buffer of `len` elements.
            unsafe { core::slice::from_raw_parts(ptr, len) }
        }
    }
}

macro_rules! value_params {
    ($($t:ty),*) => {$(
        // SAFETY: `Value<T>` pushes the number itself and no second word.
        unsafe impl KernelParam for $t {
            type Word0 = $t;
            type Word1 = NoWord;
            type Host = params::Value<$t>;
            #[inline(always)]
            unsafe fn from_abi(value: $t, _: NoWord) -> Self {
                value
            }
        }
    )*};
}
value_params!(u8, i8, u16, i16, u32, i32, u64, i64, usize, isize, f32, f64);

macro_rules! array_params {
    ($($t:ty),*) => {$(
        // SAFETY: `Value<[T; N]>` pushes the array itself (PTX passes it
        // as one parameter of `N` elements) and no second word.
        unsafe impl<const N: usize> KernelParam for [$t; N] {
            type Word0 = [$t; N];
            type Word1 = NoWord;
            type Host = params::Value<[$t; N]>;
            #[inline(always)]
            unsafe fn from_abi(value: [$t; N], _: NoWord) -> Self {
                value
            }
        }
    )*};
}
array_params!(u8, i8, u16, i16, u32, i32, u64, i64, usize, isize, f32, f64);
