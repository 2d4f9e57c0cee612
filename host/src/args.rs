//! Launch arguments: the host values a launch passes for a kernel's
//! parameters, checked against the parameters at compile time and against
//! the launch's device at run time.
//!
//! A kernel's descriptor names its parameters as markers
//! ([`coop::kernel::params`]); a launch takes a tuple of host values, and
//! [`KernelArgs`] (a GPU launch) or [`CpuArgs`] (the CPU backend) holds
//! only when each value fits its parameter. A [`Buffer`](crate::Buffer) fits both, so
//! which device it lives on is checked when the launch turns its arguments
//! into words: a buffer of the other device gives no words, and the launch
//! fails with [`Error::WrongDevice`](crate::Error::WrongDevice) naming it.
//! No launch can be made from arguments with missing words.
//!
//! A GPU launch's words go onto cudarc's launch builder
//! ([`PushWords::push`]), or, for a launch the builder cannot make (a
//! cooperative launch in clusters, through the driver's
//! `cuLaunchKernelEx`), into a [`RawWords`] list of their addresses with
//! cudarc's stream-ordering guards of the buffers ([`PushWords::push_raw`]).

use coop::kernel::params::{OutSlice, ParamList, ParamMarker, Slice, Value};
use cudarc::driver::{
    CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceRepr, LaunchArgs,
    PushKernelArg, SyncOnDrop,
};

/// A host value that can be passed for a kernel parameter described by `P`
/// in a GPU launch.
///
/// | kernel parameter | `P` | host argument |
/// |---|---|---|
/// | `&[T]` | `Slice<T>` | `&CudaSlice<T>`, `&CudaView<T>`, `&mut CudaSlice<T>`, `&Buffer<T>` |
/// | `Out<T>` | `OutSlice<T>` | `&mut CudaSlice<T>`, `&mut CudaViewMut<T>`, `&mut Buffer<T>` |
/// | `T` (a number) | `Value<T>` | `T`, exactly |
/// | `[T; N]` (numbers) | `Value<[T; N]>` | `[T; N]`, exactly |
///
/// A [`Buffer`](crate::Buffer) of the CPU backend is refused at run time with
/// [`Error::WrongDevice`](crate::Error::WrongDevice).
///
/// # Safety
///
/// The [`Words`](GpuArg::Words) that `gpu_words` returns must push exactly
/// the PTX words `coop::KernelParam` reads for `P`, of GPU memory that stays
/// valid while they borrow the argument.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a kernel parameter described by `{P}`",
    label = "wrong argument type for this kernel parameter",
    note = "`Slice<T>` is a `&[T]` parameter: pass `&CudaSlice<T>` or `&CudaView<T>`; `OutSlice<T>` is an `Out<T>` parameter: pass `&mut CudaSlice<T>` or `&mut CudaViewMut<T>`; `Value<T>` is a number parameter: pass a `T` exactly, numbers are not converted (for an `f32` write `2.0f32`, not `2.0f64`)"
)]
pub unsafe trait GpuArg<P> {
    /// The argument's PTX words, ready to push onto a launch. Only
    /// [`gpu_words`](GpuArg::gpu_words) makes them, and only for an
    /// argument in GPU memory.
    #[doc(hidden)]
    type Words<'a>: PushWords
    where
        Self: 'a;
    /// The argument's words, or `None` for a [`Buffer`](crate::Buffer) of the CPU backend,
    /// which a GPU launch cannot take.
    #[doc(hidden)]
    fn gpu_words(&mut self) -> Option<Self::Words<'_>>;
}

/// PTX words ready to be pushed onto a GPU launch, borrowing the memory
/// they point at for as long as the launch is being built.
pub trait PushWords {
    /// Pushes the words onto `args`, in order.
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>);
    /// Pushes the words' addresses onto `raw`, in order, for a launch
    /// that cudarc's builder cannot make (the driver's `cuLaunchKernelEx`
    /// with launch attributes).
    fn push_raw<'a>(&'a mut self, raw: &mut RawWords<'a>);
}

/// The parameter list of a launch made through the driver directly: the
/// address of each PTX word, and the stream-ordering guards of the buffers
/// (cudarc's: the launch's stream waits for earlier writes of a buffer, and
/// the buffer's later users wait for this launch once the guards drop,
/// after the launch is queued).
pub struct RawWords<'a> {
    stream: &'a CudaStream,
    addresses: Vec<*mut core::ffi::c_void>,
    guards: Vec<SyncOnDrop<'a>>,
}

impl<'a> RawWords<'a> {
    /// An empty list for a launch on `stream`.
    pub(crate) fn new(stream: &'a CudaStream) -> Self {
        RawWords {
            stream,
            addresses: Vec::new(),
            guards: Vec::new(),
        }
    }

    /// The driver's `kernelParams`: one address a word, in order. They
    /// point into the words pushed, which outlive `self`.
    pub(crate) fn addresses(&mut self) -> *mut *mut core::ffi::c_void {
        self.addresses.as_mut_ptr()
    }

    fn word<T>(&mut self, word: &'a T) {
        self.addresses
            .push(word as *const T as *mut core::ffi::c_void);
    }

    /// Pushes the address of `buffer`, which the kernel reads, kept in
    /// `slot` (which the list points at).
    pub(crate) fn push_address<B: DevicePtr<T>, T>(&mut self, buffer: &'a B, slot: &'a mut u64) {
        let (at, guard) = buffer.device_ptr(self.stream);
        self.push_guarded(at, guard, slot);
    }

    /// Pushes the address of `buffer`, which the kernel writes, kept in
    /// `slot`.
    pub(crate) fn push_address_mut<B: DevicePtrMut<T>, T>(
        &mut self,
        buffer: &'a mut B,
        slot: &'a mut u64,
    ) {
        let (at, guard) = buffer.device_ptr_mut(self.stream);
        self.push_guarded(at, guard, slot);
    }

    fn push_guarded(&mut self, at: u64, guard: SyncOnDrop<'a>, slot: &'a mut u64) {
        *slot = at;
        self.guards.push(guard);
        self.word(&*slot);
    }
}

impl core::fmt::Debug for RawWords<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RawWords")
            .field("words", &self.addresses.len())
            .field("buffers", &self.guards.len())
            .finish()
    }
}

/// The two PTX words of a slice parameter: a device buffer, pushed as its
/// pointer (cudarc records the launch's read or write of it for stream
/// ordering), and its element count.
#[derive(Debug)]
pub struct DeviceSlice<B> {
    buffer: B,
    len: u64,
    /// The buffer's device address, for a launch through the driver.
    address: u64,
}

impl<B> DeviceSlice<B> {
    /// The words of `len` elements at `buffer`.
    pub(crate) fn new(buffer: B, len: usize) -> Self {
        DeviceSlice {
            buffer,
            len: len as u64,
            address: 0,
        }
    }
}

/// `PushWords` for a slice the kernel reads (`$buffer` borrowed shared,
/// its address taken by `push_address`) or writes (borrowed mutably,
/// `push_address_mut`, and `mut`).
macro_rules! slice_words {
    ($buffer:ty, $address:ident $(, $mut:tt)?) => {
        impl<T> PushWords for DeviceSlice<$buffer> {
            fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>) {
                args.arg(&$($mut)? *self.buffer).arg(&self.len);
            }
            fn push_raw<'a>(&'a mut self, raw: &mut RawWords<'a>) {
                let DeviceSlice {
                    buffer,
                    len,
                    address,
                } = self;
                raw.$address(&$($mut)? **buffer, address);
                raw.word(&*len);
            }
        }
    };
}
slice_words!(&CudaSlice<T>, push_address);
slice_words!(&CudaView<'_, T>, push_address);
slice_words!(&mut CudaSlice<T>, push_address_mut, mut);
slice_words!(&mut CudaViewMut<'_, T>, push_address_mut, mut);

/// The one PTX word of a number parameter: the value itself.
#[derive(Debug)]
pub struct ValueWord<T>(T);

impl<T: DeviceRepr> PushWords for ValueWord<T> {
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>) {
        args.arg(&self.0);
    }
    fn push_raw<'a>(&'a mut self, raw: &mut RawWords<'a>) {
        raw.word(&self.0);
    }
}

// SAFETY: `Slice<T>` reads a device pointer to `T`s and their count;
// `DeviceSlice` pushes the slice's pointer and `len()`, and borrows the
// slice, which keeps its memory allocated, for as long as the words live.
unsafe impl<T> GpuArg<Slice<T>> for &CudaSlice<T> {
    type Words<'a>
        = DeviceSlice<&'a CudaSlice<T>>
    where
        Self: 'a;
    fn gpu_words(&mut self) -> Option<Self::Words<'_>> {
        Some(DeviceSlice::new(&**self, self.len()))
    }
}

// SAFETY: as for `&CudaSlice<T>`: the slice's pointer and `len()`, pushed
// from a shared reborrow that keeps the slice allocated.
unsafe impl<T> GpuArg<Slice<T>> for &mut CudaSlice<T> {
    type Words<'a>
        = DeviceSlice<&'a CudaSlice<T>>
    where
        Self: 'a;
    fn gpu_words(&mut self) -> Option<Self::Words<'_>> {
        Some(DeviceSlice::new(&**self, self.len()))
    }
}

// SAFETY: `Slice<T>` reads a device pointer to `T`s and their count; the
// view's pointer and `len()` are those of the part of a slice it borrows,
// which stays allocated while the view lives.
unsafe impl<'v, T> GpuArg<Slice<T>> for &CudaView<'v, T> {
    type Words<'a>
        = DeviceSlice<&'a CudaView<'v, T>>
    where
        Self: 'a;
    fn gpu_words(&mut self) -> Option<Self::Words<'_>> {
        Some(DeviceSlice::new(&**self, self.len()))
    }
}

// SAFETY: `OutSlice<T>` reads a device pointer to `T`s and their count,
// as `Slice<T>` does; the slice's pointer and `len()` are pushed from the
// exclusive borrow, so nothing on the host aliases what the kernel writes.
unsafe impl<T> GpuArg<OutSlice<T>> for &mut CudaSlice<T> {
    type Words<'a>
        = DeviceSlice<&'a mut CudaSlice<T>>
    where
        Self: 'a;
    fn gpu_words(&mut self) -> Option<Self::Words<'_>> {
        let len = self.len();
        Some(DeviceSlice::new(&mut **self, len))
    }
}

// SAFETY: as for `&mut CudaSlice<T>`: the view's pointer and `len()`,
// pushed from the exclusive borrow of a view of an allocated slice.
unsafe impl<'v, T> GpuArg<OutSlice<T>> for &mut CudaViewMut<'v, T> {
    type Words<'a>
        = DeviceSlice<&'a mut CudaViewMut<'v, T>>
    where
        Self: 'a;
    fn gpu_words(&mut self) -> Option<Self::Words<'_>> {
        let len = self.len();
        Some(DeviceSlice::new(&mut **self, len))
    }
}

macro_rules! value_args {
    ($($t:ty),*) => {$(
        // SAFETY: `Value<$t>` reads one word, the `$t` itself, which
        // `ValueWord` holds and pushes; no memory is involved.
        unsafe impl GpuArg<Value<$t>> for $t {
            type Words<'a> = ValueWord<$t>;
            fn gpu_words(&mut self) -> Option<ValueWord<$t>> {
                Some(ValueWord(*self))
            }
        }

        // SAFETY: `Value<$t>`'s words are the value and `NoWord`.
        unsafe impl CpuArg<Value<$t>> for $t {
            fn words(&mut self) -> Option<($t, coop::kernel::NoWord)> {
                Some((*self, coop::kernel::NoWord))
            }
        }
    )*};
}
value_args!(u8, i8, u16, i16, u32, i32, u64, i64, usize, isize, f32, f64);

macro_rules! array_args {
    ($($t:ty),*) => {$(
        // SAFETY: `Value<[$t; N]>` reads one word, the array itself, which
        // `ValueWord` holds and pushes (the driver copies its `N`
        // elements); no memory is involved.
        unsafe impl<const N: usize> GpuArg<Value<[$t; N]>> for [$t; N] {
            type Words<'a> = ValueWord<[$t; N]>;
            fn gpu_words(&mut self) -> Option<ValueWord<[$t; N]>> {
                Some(ValueWord(*self))
            }
        }

        // SAFETY: `Value<[$t; N]>`'s words are the array and `NoWord`.
        unsafe impl<const N: usize> CpuArg<Value<[$t; N]>> for [$t; N] {
            fn words(&mut self) -> Option<([$t; N], coop::kernel::NoWord)> {
                Some((*self, coop::kernel::NoWord))
            }
        }
    )*};
}
array_args!(u8, i8, u16, i16, u32, i32, u64, i64, usize, isize, f32, f64);

/// A host value that can be passed for a kernel parameter described by `P`
/// in a launch on the CPU backend.
///
/// | kernel parameter | `P` | host argument |
/// |---|---|---|
/// | `&[T]` | `Slice<T>` | `&[T]`, `&Vec<T>`, `&Buffer<T>` |
/// | `Out<T>` | `OutSlice<T>` | `&mut [T]`, `&mut Vec<T>`, `&mut Buffer<T>` |
/// | `T` (a number) | `Value<T>` | `T`, exactly |
/// | `[T; N]` (numbers) | `Value<[T; N]>` | `[T; N]`, exactly |
///
/// A [`Buffer`](crate::Buffer) on a GPU is refused at run time with
/// [`Error::WrongDevice`](crate::Error::WrongDevice).
///
/// # Safety
///
/// The words `words` returns must be those `coop::KernelParam` reads for
/// `P`: the value, or the pointer and length of host memory that stays
/// valid, and unaliased where the kernel writes it, while `self` is
/// borrowed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a kernel parameter described by `{P}` on the CPU backend",
    label = "wrong argument type for this kernel parameter",
    note = "`Slice<T>` is a `&[T]` parameter: pass `&[T]`, `&[T; N]`, `&Vec<T>` or `&Buffer<T>`; `OutSlice<T>` is an `Out<T>` parameter: pass `&mut [T]`, `&mut [T; N]`, `&mut Vec<T>` or `&mut Buffer<T>`; `Value<T>` is a number parameter: pass a `T` exactly"
)]
pub unsafe trait CpuArg<P: ParamMarker> {
    /// The two words the kernel reads, or `None` for a [`Buffer`](crate::Buffer) on a GPU,
    /// whose memory the CPU backend cannot read.
    fn words(&mut self) -> Option<(P::Word0, P::Word1)>;
}

// SAFETY: `Slice<T>` reads a pointer to `T`s and their count: those of the
// borrowed slice, which stays valid while `self` is borrowed and, being
// shared, is only read.
unsafe impl<T> CpuArg<Slice<T>> for &[T] {
    fn words(&mut self) -> Option<(*const T, usize)> {
        Some((self.as_ptr(), self.len()))
    }
}

// SAFETY: as for `&[T]`: the pointer and length of the vector's elements,
// which the shared borrow keeps in place and unchanged.
unsafe impl<T> CpuArg<Slice<T>> for &Vec<T> {
    fn words(&mut self) -> Option<(*const T, usize)> {
        Some((self.as_ptr(), self.len()))
    }
}

// SAFETY: as for `&[T]`: the array's elements, shared and unmoved while
// borrowed.
unsafe impl<T, const N: usize> CpuArg<Slice<T>> for &[T; N] {
    fn words(&mut self) -> Option<(*const T, usize)> {
        Some((self.as_ptr(), N))
    }
}

// SAFETY: `OutSlice<T>` reads a pointer to `T`s and their count: those of
// the exclusively borrowed slice, which stays valid while `self` is
// borrowed, with nothing else aliasing what the kernel writes.
unsafe impl<T> CpuArg<OutSlice<T>> for &mut [T] {
    fn words(&mut self) -> Option<(*mut T, usize)> {
        Some((self.as_mut_ptr(), self.len()))
    }
}

// SAFETY: as for `&mut [T]`: the array's elements, exclusively borrowed.
unsafe impl<T, const N: usize> CpuArg<OutSlice<T>> for &mut [T; N] {
    fn words(&mut self) -> Option<(*mut T, usize)> {
        Some((self.as_mut_ptr(), N))
    }
}

// SAFETY: as for `&mut [T]`: the pointer and length of the vector's
// elements, which the exclusive borrow keeps in place (it cannot grow).
unsafe impl<T> CpuArg<OutSlice<T>> for &mut Vec<T> {
    fn words(&mut self) -> Option<(*mut T, usize)> {
        Some((self.as_mut_ptr(), self.len()))
    }
}

/// A tuple of host arguments matching a kernel's parameter list `P`, for the
/// CPU backend.
#[diagnostic::on_unimplemented(
    message = "these launch arguments do not match the kernel's parameters",
    label = "arguments `{Self}` for parameters `{P}`",
    note = "pass one argument per kernel parameter other than `ThreadBlock`/`Grid`, in order, as a tuple (a single argument is written `(x,)`)"
)]
pub trait CpuArgs<P: ParamList> {
    /// The words of every argument, or the position (0-based) of the first
    /// argument not in host memory.
    #[doc(hidden)]
    fn words(&mut self) -> Result<P::Words, usize>;
}

/// A tuple of host arguments matching a kernel's parameter list `P`.
#[diagnostic::on_unimplemented(
    message = "these launch arguments do not match the kernel's parameters",
    label = "arguments `{Self}` for parameters `{P}`",
    note = "pass one argument per kernel parameter other than `ThreadBlock`/`Grid`, in order, as a tuple (a single argument is written `(x,)`)"
)]
pub trait KernelArgs<P> {
    /// The words of every argument, in order.
    #[doc(hidden)]
    type Words<'a>: PushWords
    where
        Self: 'a;
    /// The words of every argument, or the position (0-based) of the first
    /// argument not in GPU memory.
    #[doc(hidden)]
    fn gpu_words(&mut self) -> Result<Self::Words<'_>, usize>;
}

macro_rules! kernel_args {
    ($(($p:ident, $a:ident, $w:ident, $i:tt)),*) => {
        impl<$($p, $a: GpuArg<$p>),*> KernelArgs<($($p,)*)> for ($($a,)*) {
            type Words<'a> = ($(<$a as GpuArg<$p>>::Words<'a>,)*) where Self: 'a;
            fn gpu_words(&mut self) -> Result<Self::Words<'_>, usize> {
                Ok(($(self.$i.gpu_words().ok_or::<usize>($i)?,)*))
            }
        }

        impl<$($w: PushWords),*> PushWords for ($($w,)*) {
            #[allow(unused_variables)]
            fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>) {
                $(self.$i.push(args);)*
            }
            #[allow(unused_variables)]
            fn push_raw<'a>(&'a mut self, raw: &mut RawWords<'a>) {
                $(self.$i.push_raw(raw);)*
            }
        }

        impl<$($p: ParamMarker, $a: CpuArg<$p>),*> CpuArgs<($($p,)*)> for ($($a,)*) {
            #[allow(clippy::unused_unit)]
            fn words(&mut self) -> Result<<($($p,)*) as ParamList>::Words, usize> {
                Ok(($(self.$i.words().ok_or::<usize>($i)?,)*))
            }
        }
    };
}
kernel_args!();
kernel_args!((P0, A0, W0, 0));
kernel_args!((P0, A0, W0, 0), (P1, A1, W1, 1));
kernel_args!((P0, A0, W0, 0), (P1, A1, W1, 1), (P2, A2, W2, 2));
kernel_args!(
    (P0, A0, W0, 0),
    (P1, A1, W1, 1),
    (P2, A2, W2, 2),
    (P3, A3, W3, 3)
);
kernel_args!(
    (P0, A0, W0, 0),
    (P1, A1, W1, 1),
    (P2, A2, W2, 2),
    (P3, A3, W3, 3),
    (P4, A4, W4, 4)
);
kernel_args!(
    (P0, A0, W0, 0),
    (P1, A1, W1, 1),
    (P2, A2, W2, 2),
    (P3, A3, W3, 3),
    (P4, A4, W4, 4),
    (P5, A5, W5, 5)
);
kernel_args!(
    (P0, A0, W0, 0),
    (P1, A1, W1, 1),
    (P2, A2, W2, 2),
    (P3, A3, W3, 3),
    (P4, A4, W4, 4),
    (P5, A5, W5, 5),
    (P6, A6, W6, 6)
);
kernel_args!(
    (P0, A0, W0, 0),
    (P1, A1, W1, 1),
    (P2, A2, W2, 2),
    (P3, A3, W3, 3),
    (P4, A4, W4, 4),
    (P5, A5, W5, 5),
    (P6, A6, W6, 6),
    (P7, A7, W7, 7)
);
kernel_args!(
    (P0, A0, W0, 0),
    (P1, A1, W1, 1),
    (P2, A2, W2, 2),
    (P3, A3, W3, 3),
    (P4, A4, W4, 4),
    (P5, A5, W5, 5),
    (P6, A6, W6, 6),
    (P7, A7, W7, 7),
    (P8, A8, W8, 8)
);
kernel_args!(
    (P0, A0, W0, 0),
    (P1, A1, W1, 1),
    (P2, A2, W2, 2),
    (P3, A3, W3, 3),
    (P4, A4, W4, 4),
    (P5, A5, W5, 5),
    (P6, A6, W6, 6),
    (P7, A7, W7, 7),
    (P8, A8, W8, 8),
    (P9, A9, W9, 9)
);
kernel_args!(
    (P0, A0, W0, 0),
    (P1, A1, W1, 1),
    (P2, A2, W2, 2),
    (P3, A3, W3, 3),
    (P4, A4, W4, 4),
    (P5, A5, W5, 5),
    (P6, A6, W6, 6),
    (P7, A7, W7, 7),
    (P8, A8, W8, 8),
    (P9, A9, W9, 9),
    (P10, A10, W10, 10)
);
kernel_args!(
    (P0, A0, W0, 0),
    (P1, A1, W1, 1),
    (P2, A2, W2, 2),
    (P3, A3, W3, 3),
    (P4, A4, W4, 4),
    (P5, A5, W5, 5),
    (P6, A6, W6, 6),
    (P7, A7, W7, 7),
    (P8, A8, W8, 8),
    (P9, A9, W9, 9),
    (P10, A10, W10, 10),
    (P11, A11, W11, 11)
);
