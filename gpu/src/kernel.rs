//! What crosses the boundary between a host launch and a kernel: parameter
//! types, their PTX encoding, and the host-side descriptor of a kernel.
//!
//! `#[kernel]` lowers every parameter through [`KernelParam`]: a parameter
//! becomes one or two PTX parameters (`Word0`, `Word1`; a zero-sized word
//! takes no PTX parameter), and names a marker type ([`KernelParam::Host`])
//! that tells `coop_host` which host values may be passed for it.

use crate::backend::{site, Faults, Target};
use core::marker::PhantomData;

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

    /// Runs the kernel's body as the calling thread of the CPU backend.
    ///
    /// # Safety
    ///
    /// Only the CPU backend calls this, inside a launch, with the words of
    /// live host buffers and values matching `Params`.
    #[doc(hidden)]
    unsafe fn run_lane(words: <Self::Params as params::ParamList>::Words);
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
    }

    impl<T> ParamMarker for Slice<T> {
        type Word0 = *const T;
        type Word1 = usize;
    }

    impl<T> ParamMarker for OutSlice<T> {
        type Word0 = *mut T;
        type Word1 = usize;
    }

    impl<T: Copy> ParamMarker for Value<T> {
        type Word0 = T;
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
    }

    macro_rules! param_lists {
        ($(($($p:ident),*)),*) => {$(
            impl<$($p: ParamMarker),*> ParamList for ($($p,)*) {
                type Words = ($(($p::Word0, $p::Word1),)*);
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
/// Implemented for `&[T]` (read-only buffers), [`Out<T>`] (writable
/// buffers) and the primitive numbers (values). The handles `ThreadBlock`
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
/// # Safety
///
/// `from_abi` must accept exactly what `coop_host` passes for `Host`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a kernel parameter",
    label = "not a `KernelParam`",
    note = "a kernel takes `ThreadBlock` and `Grid` handles, read-only buffers `&[T]`, writable buffers `Out<T>`, and primitive numbers by value",
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

// SAFETY: `OutSlice<T>` pushes a device pointer and an element count,
// which `from_abi` reads back as the same two words.
unsafe impl<T: Copy> KernelParam for Out<'_, T> {
    type Word0 = *mut T;
    type Word1 = usize;
    type Host = params::OutSlice<T>;
    #[inline(always)]
    unsafe fn from_abi(ptr: *mut T, len: usize) -> Self {
        Out {
            ptr,
            len,
            _buffer: PhantomData,
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

/// A writable device buffer shared by every thread of a launch.
///
/// Threads write elements with [`write`](Self::write); the host reads the
/// buffer after the launch. Each element should be written by at most one
/// thread per launch: two threads writing the same element race, and which
/// value remains is unspecified.
///
/// ```
/// use coop::prelude::*;
///
/// #[kernel]
/// pub fn iota(grid: Grid, out: Out<u32>) {
///     let i = grid.thread_rank();
///     if i < out.len() {
///         out.write(i, i as u32);
///     }
/// }
///
/// let mut out = vec![0u32; 5];
/// coop_host::Cpu::new().launch(iota, coop_host::LaunchConfig::new(1, 8), (&mut out,))?;
/// assert_eq!(out, [0, 1, 2, 3, 4]);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct Out<'a, T> {
    ptr: *mut T,
    len: usize,
    _buffer: PhantomData<&'a [core::cell::UnsafeCell<T>]>,
}

impl<T: Copy> Out<'_, T> {
    /// Elements in the buffer.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn fill(grid: Grid, out: Out<u8>) {
    ///     let i = grid.thread_rank();
    ///     if i < out.len() {
    ///         out.write(i, 7);
    ///     }
    /// }
    ///
    /// let mut out = vec![0u8; 10]; // fewer elements than threads
    /// Cpu::new().launch(fill, LaunchConfig::new(1, 32), (&mut out,))?;
    /// assert_eq!(out, [7; 10]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn count_if_any(grid: Grid, out: Out<u32>) {
    ///     if !out.is_empty() && grid.thread_rank() == 0 {
    ///         out.write(0, grid.num_threads() as u32);
    ///     }
    /// }
    ///
    /// let mut none: Vec<u32> = Vec::new();
    /// Cpu::new().launch(count_if_any, LaunchConfig::new(1, 32), (&mut none,))?;
    /// let mut one = vec![0u32];
    /// Cpu::new().launch(count_if_any, LaunchConfig::new(1, 32), (&mut one,))?;
    /// assert_eq!(one, [32]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Stores `value` at `index`.
    ///
    /// # Panics
    ///
    /// When `index >= len()`, naming the index, the length and the caller's
    /// `file:line`; on the GPU the thread prints that report and stops the
    /// kernel with `trap`, and the host's next wait returns an error.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn squares(grid: Grid, out: Out<u64>) {
    ///     let i = grid.thread_rank();
    ///     out.write(i, (i * i) as u64);
    /// }
    ///
    /// let mut out = vec![0u64; 4];
    /// Cpu::new().launch(squares, LaunchConfig::new(1, 4), (&mut out,))?;
    /// assert_eq!(out, [0, 1, 4, 9]);
    ///
    /// // One thread too many: the write past the end is reported, not performed.
    /// let err = Cpu::new().launch(squares, LaunchConfig::new(1, 5), (&mut out,)).unwrap_err();
    /// let report = err.to_string();
    /// assert!(report.contains("thread 4 panicked at "), "{report}");
    /// assert!(report.contains("Out::write: index 4 is out of bounds for a buffer of 4 elements"));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn write(&self, index: usize, value: T) {
        if index >= self.len {
            Target::index_out_of_bounds(c"Out::write", index, self.len, site!());
        }
        // SAFETY: in bounds, and the buffer is live for the launch.
        unsafe { self.ptr.add(index).write(value) }
    }

    /// Stores `value` at `index` without a bounds check.
    ///
    /// # Safety
    ///
    /// `index < len()`.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn ones(grid: Grid, out: Out<u32>) {
    ///     let i = grid.thread_rank();
    ///     if i < out.len() {
    ///         // SAFETY: checked just above.
    ///         unsafe { out.write_unchecked(i, 1) };
    ///     }
    /// }
    ///
    /// let mut out = vec![0u32; 3];
    /// Cpu::new().launch(ones, LaunchConfig::new(1, 8), (&mut out,))?;
    /// assert_eq!(out, [1, 1, 1]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub unsafe fn write_unchecked(&self, index: usize, value: T) {
        // SAFETY: the caller keeps `index` in bounds.
        unsafe { self.ptr.add(index).write(value) }
    }

    /// The buffer's first element, for patterns `write` does not cover
    /// (atomics, vector stores).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn pairs(grid: Grid, out: Out<u32>) {
    ///     let i = grid.thread_rank();
    ///     let pair = out.as_mut_ptr() as *mut [u32; 2];
    ///     // SAFETY: `out` holds 2 * threads elements; thread i owns pair i.
    ///     unsafe { pair.add(i).write([i as u32, 10 * i as u32]) };
    /// }
    ///
    /// let mut out = vec![0u32; 6];
    /// Cpu::new().launch(pairs, LaunchConfig::new(1, 3), (&mut out,))?;
    /// assert_eq!(out, [0, 0, 1, 10, 2, 20]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn as_mut_ptr(&self) -> *mut T {
        self.ptr
    }
}
