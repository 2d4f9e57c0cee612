//! [`Input`] and [`Output`]: what a device-wide call (a reduction, a scan,
//! a segmented reduction) reads and writes, device memory of a GPU or host
//! memory for the CPU backend, made from the buffers and slices either
//! holds. Either is a kernel argument on its own backend (an `&Input` for
//! a `&[T]` parameter, an `&mut Output` for an `Out<T>`), so that an
//! algorithm launches its kernels with them on both backends through one
//! call.

use crate::args::{CpuArg, DeviceSlice, GpuArg};
use crate::Buffer;
use coop::kernel::params::{OutSlice, Slice};
use cudarc::driver::{CudaSlice, CudaView, CudaViewMut};
use std::ops::Range;

/// What a device-wide call reads: a GPU buffer or view, or host memory for
/// the CPU backend.
#[derive(Debug)]
pub enum Input<'a, T> {
    /// On a GPU.
    Gpu(CudaView<'a, T>),
    /// In host memory.
    Cpu(&'a [T]),
}

impl<'a, T> Input<'a, T> {
    /// Elements to reduce.
    pub fn len(&self) -> usize {
        match self {
            Input::Gpu(v) => v.len(),
            Input::Cpu(s) => s.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The same input again, for one more call (an input is taken by
    /// value).
    ///
    /// ```
    /// use coop_host::{reduce::Reducer, Device, Input};
    /// let data = vec![4i32, -2, 9];
    /// let input = Input::from(&data);
    /// let reducer = Reducer::new(&Device::cpu())?;
    /// assert_eq!(reducer.max(input.reborrow())?, 9);
    /// assert_eq!(reducer.min(input)?, -2);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn reborrow(&self) -> Input<'a, T> {
        match self {
            Input::Gpu(v) => Input::Gpu(v.slice(..)),
            Input::Cpu(s) => Input::Cpu(s),
        }
    }

    /// Elements `range` of the input.
    ///
    /// # Panics
    ///
    /// When `range` is not within the input.
    pub(crate) fn slice(&self, range: Range<usize>) -> Input<'a, T> {
        match self {
            Input::Gpu(v) => Input::Gpu(v.slice(range)),
            Input::Cpu(s) => Input::Cpu(&s[range]),
        }
    }

    /// Whether it lives on a GPU.
    pub(crate) fn on_gpu(&self) -> bool {
        matches!(self, Input::Gpu(_))
    }

    /// The same elements as values of `U` (a key as its bits, a number as
    /// the word of its size).
    ///
    /// # Safety
    ///
    /// `U` has `T`'s size and an alignment no greater, and the bits of
    /// every element are a valid `U`.
    pub(crate) unsafe fn reinterpret<U>(&self) -> Input<'a, U> {
        let len = self.len();
        match self {
            Input::Gpu(view) => {
                // SAFETY: the caller's promise.
                let elements = unsafe { view.transmute::<U>(len) };
                Input::Gpu(elements.expect("elements of the same size"))
            }
            Input::Cpu(slice) => {
                // SAFETY: the caller's promise; `len` elements at the same
                // address, borrowed for the same lifetime.
                let elements =
                    unsafe { std::slice::from_raw_parts(slice.as_ptr() as *const U, len) };
                Input::Cpu(elements)
            }
        }
    }
}

impl<'a, T> From<&'a Buffer<T>> for Input<'a, T> {
    fn from(b: &'a Buffer<T>) -> Self {
        match b {
            Buffer::Gpu(s) => Input::Gpu(s.as_view()),
            Buffer::Cpu(v) => Input::Cpu(v),
        }
    }
}

impl<'a, T> From<&'a CudaSlice<T>> for Input<'a, T> {
    fn from(s: &'a CudaSlice<T>) -> Self {
        Input::Gpu(s.as_view())
    }
}

impl<'a, T> From<CudaView<'a, T>> for Input<'a, T> {
    fn from(v: CudaView<'a, T>) -> Self {
        Input::Gpu(v)
    }
}

impl<'a, T> From<&'a [T]> for Input<'a, T> {
    fn from(s: &'a [T]) -> Self {
        Input::Cpu(s)
    }
}

impl<'a, T> From<&'a Vec<T>> for Input<'a, T> {
    fn from(v: &'a Vec<T>) -> Self {
        Input::Cpu(v)
    }
}

/// What a device-wide call writes: a GPU buffer or view, or host memory
/// for the CPU backend.
#[derive(Debug)]
pub enum Output<'a, T> {
    /// On a GPU.
    Gpu(CudaViewMut<'a, T>),
    /// In host memory.
    Cpu(&'a mut [T]),
}

impl<T> Output<'_, T> {
    /// Elements it holds.
    pub fn len(&self) -> usize {
        match self {
            Output::Gpu(v) => v.len(),
            Output::Cpu(s) => s.len(),
        }
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Elements `range`, to write.
    ///
    /// # Panics
    ///
    /// When `range` is not within the output.
    pub(crate) fn slice_mut(&mut self, range: Range<usize>) -> Output<'_, T> {
        match self {
            Output::Gpu(v) => Output::Gpu(v.slice_mut(range)),
            Output::Cpu(s) => Output::Cpu(&mut s[range]),
        }
    }

    /// Elements before `mid` and from `mid` on, to write.
    pub(crate) fn split_at_mut(&mut self, mid: usize) -> (Output<'_, T>, Output<'_, T>) {
        match self {
            Output::Gpu(v) => {
                let (a, b) = v.split_at_mut(mid);
                (Output::Gpu(a), Output::Gpu(b))
            }
            Output::Cpu(s) => {
                let (a, b) = s.split_at_mut(mid);
                (Output::Cpu(a), Output::Cpu(b))
            }
        }
    }

    /// The same elements, to read.
    pub(crate) fn as_input(&self) -> Input<'_, T> {
        match self {
            Output::Gpu(v) => Input::Gpu(v.as_view()),
            Output::Cpu(s) => Input::Cpu(s),
        }
    }

    /// Whether it lives on a GPU.
    pub(crate) fn on_gpu(&self) -> bool {
        matches!(self, Output::Gpu(_))
    }

    /// The same elements as values of `U`, to write.
    ///
    /// # Safety
    ///
    /// As [`Input::reinterpret`], both ways: the bits of every `U` written
    /// are a valid `T`.
    pub(crate) unsafe fn reinterpret_mut<U>(&mut self) -> Output<'_, U> {
        let len = self.len();
        match self {
            Output::Gpu(view) => {
                // SAFETY: the caller's promise.
                let elements = unsafe { view.transmute_mut::<U>(len) };
                Output::Gpu(elements.expect("elements of the same size"))
            }
            Output::Cpu(slice) => {
                // SAFETY: the caller's promise; `len` elements at the same
                // address, borrowed mutably for the view's lifetime.
                let elements =
                    unsafe { std::slice::from_raw_parts_mut(slice.as_mut_ptr() as *mut U, len) };
                Output::Cpu(elements)
            }
        }
    }
}

impl<'a, T> From<&'a mut Buffer<T>> for Output<'a, T> {
    fn from(b: &'a mut Buffer<T>) -> Self {
        match b {
            Buffer::Gpu(s) => Output::Gpu(s.as_view_mut()),
            Buffer::Cpu(v) => Output::Cpu(v),
        }
    }
}

impl<'a, T> From<&'a mut CudaSlice<T>> for Output<'a, T> {
    fn from(s: &'a mut CudaSlice<T>) -> Self {
        Output::Gpu(s.as_view_mut())
    }
}

impl<'a, T> From<CudaViewMut<'a, T>> for Output<'a, T> {
    fn from(v: CudaViewMut<'a, T>) -> Self {
        Output::Gpu(v)
    }
}

impl<'a, T> From<&'a mut [T]> for Output<'a, T> {
    fn from(s: &'a mut [T]) -> Self {
        Output::Cpu(s)
    }
}

impl<'a, T> From<&'a mut Vec<T>> for Output<'a, T> {
    fn from(v: &'a mut Vec<T>) -> Self {
        Output::Cpu(v)
    }
}

// SAFETY: an input on a GPU gives its view's pointer and `len()`, as
// `&CudaView<T>` does, borrowed for as long as the words live; one in host
// memory gives none, so no GPU launch is built from it.
unsafe impl<'v, T> GpuArg<Slice<T>> for &Input<'v, T> {
    type Words<'a>
        = DeviceSlice<&'a CudaView<'v, T>>
    where
        Self: 'a;
    fn gpu_words(&mut self) -> Option<Self::Words<'_>> {
        match &**self {
            Input::Gpu(view) => Some(DeviceSlice::new(view, view.len())),
            Input::Cpu(_) => None,
        }
    }
}

// SAFETY: an output on a GPU gives its view's pointer and `len()` from the
// exclusive borrow, as `&mut CudaViewMut<T>` does; one in host memory
// gives none.
unsafe impl<'v, T> GpuArg<OutSlice<T>> for &mut Output<'v, T> {
    type Words<'a>
        = DeviceSlice<&'a mut CudaViewMut<'v, T>>
    where
        Self: 'a;
    fn gpu_words(&mut self) -> Option<Self::Words<'_>> {
        match &mut **self {
            Output::Gpu(view) => {
                let len = view.len();
                Some(DeviceSlice::new(view, len))
            }
            Output::Cpu(_) => None,
        }
    }
}

// SAFETY: an input in host memory gives its slice's pointer and length, as
// `&[T]` does (shared, so only read); one on a GPU gives none.
unsafe impl<T> CpuArg<Slice<T>> for &Input<'_, T> {
    fn words(&mut self) -> Option<(*const T, usize)> {
        match &**self {
            Input::Cpu(s) => Some((s.as_ptr(), s.len())),
            Input::Gpu(_) => None,
        }
    }
}

// SAFETY: an output in host memory gives its slice's pointer and length
// from the exclusive borrow, as `&mut [T]` does; one on a GPU gives none.
unsafe impl<T> CpuArg<OutSlice<T>> for &mut Output<'_, T> {
    fn words(&mut self) -> Option<(*mut T, usize)> {
        match &mut **self {
            Output::Cpu(s) => Some((s.as_mut_ptr(), s.len())),
            Output::Gpu(_) => None,
        }
    }
}
