//! [`Input`] and [`Output`]: what a device-wide call (a reduction, a scan,
//! a segmented reduction) reads and writes, device memory of a GPU or host
//! memory for the CPU backend, made from the buffers and slices either
//! holds.

use crate::Buffer;
use cudarc::driver::{CudaSlice, CudaView, CudaViewMut};

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
