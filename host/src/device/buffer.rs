//! [`Buffer`]: memory on a [`Device`](crate::Device), a GPU's or the host's
//! for the CPU backend, and how a launch on either takes it as an argument.

use crate::args::{CpuArg, DeviceSlice, GpuArg};
use coop::kernel::params::{OutSlice, Slice};
use cudarc::driver::CudaSlice;

/// A buffer on a [`Device`](crate::Device): device memory of a GPU, or host memory for the
/// CPU backend.
#[derive(Debug)]
pub enum Buffer<T> {
    /// On a GPU.
    Gpu(CudaSlice<T>),
    /// In host memory, for the CPU backend.
    Cpu(Vec<T>),
}

impl<T> Buffer<T> {
    /// Elements in the buffer.
    pub fn len(&self) -> usize {
        match self {
            Buffer::Gpu(s) => s.len(),
            Buffer::Cpu(v) => v.len(),
        }
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

// SAFETY: a buffer on a GPU gives the words of its `CudaSlice`, as
// `&CudaSlice<T>` does; one in host memory gives none, so no launch is
// built from it.
unsafe impl<T> GpuArg<Slice<T>> for &Buffer<T> {
    type Words<'a>
        = DeviceSlice<&'a CudaSlice<T>>
    where
        Self: 'a;
    fn gpu_words(&mut self) -> Option<Self::Words<'_>> {
        match &**self {
            Buffer::Gpu(slice) => Some(DeviceSlice::new(slice, slice.len())),
            Buffer::Cpu(_) => None,
        }
    }
}

// SAFETY: a buffer on a GPU gives the words of its `CudaSlice`, as
// `&mut CudaSlice<T>` does, from the exclusive borrow; one in host memory
// gives none, so no launch is built from it.
unsafe impl<T> GpuArg<OutSlice<T>> for &mut Buffer<T> {
    type Words<'a>
        = DeviceSlice<&'a mut CudaSlice<T>>
    where
        Self: 'a;
    fn gpu_words(&mut self) -> Option<Self::Words<'_>> {
        match &mut **self {
            Buffer::Gpu(slice) => Some(DeviceSlice::new(slice, slice.len())),
            Buffer::Cpu(_) => None,
        }
    }
}

// SAFETY: a buffer in host memory gives its vector's words, as `&Vec<T>`
// does; one on a GPU gives none, so no launch is made from it.
unsafe impl<T> CpuArg<Slice<T>> for &Buffer<T> {
    fn words(&mut self) -> Option<(*const T, usize)> {
        match &**self {
            Buffer::Cpu(v) => Some((v.as_ptr(), v.len())),
            Buffer::Gpu(_) => None,
        }
    }
}

// SAFETY: a buffer in host memory gives its vector's words, as
// `&mut Vec<T>` does; one on a GPU gives none, so no launch is made from it.
unsafe impl<T> CpuArg<OutSlice<T>> for &mut Buffer<T> {
    fn words(&mut self) -> Option<(*mut T, usize)> {
        match &mut **self {
            Buffer::Cpu(v) => Some((v.as_mut_ptr(), v.len())),
            Buffer::Gpu(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{CpuArgs, KernelArgs};
    use coop::kernel::params::Value;

    #[test]
    fn a_buffer_in_host_memory_gives_a_gpu_launch_no_words() {
        let input = Buffer::Cpu(vec![1.0f32, 2.0]);
        let mut out = Buffer::Cpu(vec![0.0f32; 2]);
        let mut args = (2.0f32, &input, &mut out);
        let words = KernelArgs::<(Value<f32>, Slice<f32>, OutSlice<f32>)>::gpu_words(&mut args);
        assert_eq!(words.err(), Some(1), "the first argument off the GPU");
    }

    #[test]
    fn a_buffer_in_host_memory_gives_the_cpu_backend_its_words() {
        let input = Buffer::Cpu(vec![1.0f32, 2.0, 3.0]);
        let mut out = Buffer::Cpu(vec![0.0f32; 2]);
        let mut args = (&input, 7u32, &mut out);
        let ((input_ptr, input_len), (value, _), (_, out_len)) =
            CpuArgs::<(Slice<f32>, Value<u32>, OutSlice<f32>)>::words(&mut args).unwrap();
        assert_eq!((input_len, value, out_len), (3, 7, 2));
        let Buffer::Cpu(host) = &input else {
            unreachable!()
        };
        assert_eq!(input_ptr, host.as_ptr());
    }
}
