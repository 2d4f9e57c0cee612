//! Host arguments for kernel parameters, checked at compile time.
//!
//! A kernel's descriptor names its parameters as markers
//! ([`coop::kernel::params`]); a launch takes a tuple of host values, and
//! [`KernelArgs`] holds only when each value fits its parameter.

use crate::Buffer;
use coop::kernel::params::{OutSlice, ParamList, ParamMarker, Slice, Value};
use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, DeviceRepr, LaunchArgs, PushKernelArg};

/// A host value that can be passed for a kernel parameter described by `P`.
///
/// | kernel parameter | `P` | host argument |
/// |---|---|---|
/// | `&[T]` | `Slice<T>` | `&CudaSlice<T>`, `&CudaView<T>`, `&mut CudaSlice<T>` |
/// | `Out<T>` | `OutSlice<T>` | `&mut CudaSlice<T>`, `&mut CudaViewMut<T>` |
/// | `T` (a number) | `Value<T>` | `T`, exactly |
///
/// # Safety
///
/// `push` must push exactly the PTX words `coop::KernelParam` reads for `P`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a kernel parameter described by `{P}`",
    label = "wrong argument type for this kernel parameter",
    note = "`Slice<T>` is a `&[T]` parameter: pass `&CudaSlice<T>` or `&CudaView<T>`; `OutSlice<T>` is an `Out<T>` parameter: pass `&mut CudaSlice<T>` or `&mut CudaViewMut<T>`; `Value<T>` is a number parameter: pass a `T` exactly, numbers are not converted (for an `f32` write `2.0f32`, not `2.0f64`)"
)]
pub unsafe trait GpuArg<P> {
    /// The second PTX word: the element count of a buffer, unused otherwise.
    fn len_word(&self) -> u64;
    /// Pushes the argument's PTX words; `len` is where `len_word` was stored.
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, len: &'a u64);
    /// Whether the argument can go to a GPU launch (a [`Buffer`] of the CPU
    /// cannot).
    fn on_gpu(&self) -> bool {
        true
    }
}

unsafe impl<T> GpuArg<Slice<T>> for &CudaSlice<T> {
    fn len_word(&self) -> u64 {
        self.len() as u64
    }
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, len: &'a u64) {
        args.arg(&**self).arg(len);
    }
}

unsafe impl<T> GpuArg<Slice<T>> for &mut CudaSlice<T> {
    fn len_word(&self) -> u64 {
        self.len() as u64
    }
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, len: &'a u64) {
        args.arg(&**self).arg(len);
    }
}

unsafe impl<'v, T> GpuArg<Slice<T>> for &CudaView<'v, T> {
    fn len_word(&self) -> u64 {
        self.len() as u64
    }
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, len: &'a u64) {
        args.arg(&**self).arg(len);
    }
}

unsafe impl<T> GpuArg<OutSlice<T>> for &mut CudaSlice<T> {
    fn len_word(&self) -> u64 {
        self.len() as u64
    }
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, len: &'a u64) {
        args.arg(&mut **self).arg(len);
    }
}

unsafe impl<'v, T> GpuArg<OutSlice<T>> for &mut CudaViewMut<'v, T> {
    fn len_word(&self) -> u64 {
        self.len() as u64
    }
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, len: &'a u64) {
        args.arg(&mut **self).arg(len);
    }
}

unsafe impl<T> GpuArg<Slice<T>> for &Buffer<T> {
    fn len_word(&self) -> u64 {
        self.len() as u64
    }
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, len: &'a u64) {
        if let Buffer::Gpu(slice) = &**self {
            args.arg(slice).arg(len);
        }
    }
    fn on_gpu(&self) -> bool {
        matches!(self, Buffer::Gpu(_))
    }
}

unsafe impl<T> GpuArg<OutSlice<T>> for &mut Buffer<T> {
    fn len_word(&self) -> u64 {
        self.len() as u64
    }
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, len: &'a u64) {
        if let Buffer::Gpu(slice) = &mut **self {
            args.arg(slice).arg(len);
        }
    }
    fn on_gpu(&self) -> bool {
        matches!(self, Buffer::Gpu(_))
    }
}

macro_rules! value_args {
    ($($t:ty),*) => {$(
        unsafe impl GpuArg<Value<$t>> for $t {
            fn len_word(&self) -> u64 {
                0
            }
            fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, _len: &'a u64) {
                args.arg(&*self);
            }
        }

        unsafe impl CpuArg<Value<$t>> for $t {
            fn words(&mut self) -> ($t, coop::kernel::NoWord) {
                (*self, coop::kernel::NoWord)
            }
        }
    )*};
}
value_args!(u8, i8, u16, i16, u32, i32, u64, i64, usize, isize, f32, f64);

// `Value<T>` words are pushed as `T`, which cudarc must accept.
const _: fn() = || {
    fn device_repr<T: DeviceRepr>() {}
    device_repr::<u8>();
    device_repr::<f64>();
    device_repr::<usize>();
};

/// A host value that can be passed for a kernel parameter described by `P`
/// in a launch on the CPU backend.
///
/// | kernel parameter | `P` | host argument |
/// |---|---|---|
/// | `&[T]` | `Slice<T>` | `&[T]`, `&Vec<T>`, `&Buffer<T>` |
/// | `Out<T>` | `OutSlice<T>` | `&mut [T]`, `&mut Vec<T>`, `&mut Buffer<T>` |
/// | `T` (a number) | `Value<T>` | `T`, exactly |
///
/// # Safety
///
/// `words` must return the words of memory that stays valid for the launch:
/// a buffer's pointer and length, or the value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a kernel parameter described by `{P}` on the CPU backend",
    label = "wrong argument type for this kernel parameter",
    note = "`Slice<T>` is a `&[T]` parameter: pass `&[T]`, `&Vec<T>` or `&Buffer<T>`; `OutSlice<T>` is an `Out<T>` parameter: pass `&mut [T]`, `&mut Vec<T>` or `&mut Buffer<T>`; `Value<T>` is a number parameter: pass a `T` exactly"
)]
pub unsafe trait CpuArg<P: ParamMarker> {
    /// The two words the kernel reads.
    fn words(&mut self) -> (P::Word0, P::Word1);
    /// Whether the argument is in host memory (a [`Buffer`] of the GPU is
    /// not).
    fn in_host_memory(&self) -> bool {
        true
    }
}

unsafe impl<T> CpuArg<Slice<T>> for &[T] {
    fn words(&mut self) -> (*const T, usize) {
        (self.as_ptr(), self.len())
    }
}

unsafe impl<T> CpuArg<Slice<T>> for &Vec<T> {
    fn words(&mut self) -> (*const T, usize) {
        (self.as_ptr(), self.len())
    }
}

unsafe impl<T> CpuArg<OutSlice<T>> for &mut [T] {
    fn words(&mut self) -> (*mut T, usize) {
        (self.as_mut_ptr(), self.len())
    }
}

unsafe impl<T> CpuArg<OutSlice<T>> for &mut Vec<T> {
    fn words(&mut self) -> (*mut T, usize) {
        (self.as_mut_ptr(), self.len())
    }
}

unsafe impl<T> CpuArg<Slice<T>> for &Buffer<T> {
    fn words(&mut self) -> (*const T, usize) {
        match &**self {
            Buffer::Cpu(v) => (v.as_ptr(), v.len()),
            Buffer::Gpu(_) => (std::ptr::null(), 0),
        }
    }
    fn in_host_memory(&self) -> bool {
        matches!(self, Buffer::Cpu(_))
    }
}

unsafe impl<T> CpuArg<OutSlice<T>> for &mut Buffer<T> {
    fn words(&mut self) -> (*mut T, usize) {
        match &mut **self {
            Buffer::Cpu(v) => (v.as_mut_ptr(), v.len()),
            Buffer::Gpu(_) => (std::ptr::null_mut(), 0),
        }
    }
    fn in_host_memory(&self) -> bool {
        matches!(self, Buffer::Cpu(_))
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
    /// The words of every argument.
    #[doc(hidden)]
    fn words(&mut self) -> P::Words;
    /// The position of the first argument not in host memory.
    #[doc(hidden)]
    fn first_off_host(&self) -> Option<usize>;
}

/// A tuple of host arguments matching a kernel's parameter list `P`.
#[diagnostic::on_unimplemented(
    message = "these launch arguments do not match the kernel's parameters",
    label = "arguments `{Self}` for parameters `{P}`",
    note = "pass one argument per kernel parameter other than `ThreadBlock`/`Grid`, in order, as a tuple (a single argument is written `(x,)`)"
)]
pub trait KernelArgs<P> {
    /// The second PTX word of each argument, in order.
    #[doc(hidden)]
    fn len_words(&self) -> Vec<u64>;
    /// Pushes every argument.
    #[doc(hidden)]
    fn push_all<'a>(&'a mut self, args: &mut LaunchArgs<'a>, lens: &'a [u64]);
    /// The position of the first argument that cannot go to the GPU.
    #[doc(hidden)]
    fn first_off_gpu(&self) -> Option<usize>;
}

macro_rules! kernel_args {
    ($(($p:ident, $a:ident, $i:tt)),*) => {
        impl<$($p, $a: GpuArg<$p>),*> KernelArgs<($($p,)*)> for ($($a,)*) {
            fn len_words(&self) -> Vec<u64> {
                vec![$(self.$i.len_word()),*]
            }
            #[allow(unused_variables)]
            fn push_all<'a>(&'a mut self, args: &mut LaunchArgs<'a>, lens: &'a [u64]) {
                $(self.$i.push(args, &lens[$i]);)*
            }
            fn first_off_gpu(&self) -> Option<usize> {
                <[bool]>::iter(&[$(self.$i.on_gpu()),*]).position(|on| !on)
            }
        }

        impl<$($p: ParamMarker, $a: CpuArg<$p>),*> CpuArgs<($($p,)*)> for ($($a,)*) {
            #[allow(clippy::unused_unit)]
            fn words(&mut self) -> <($($p,)*) as ParamList>::Words {
                ($(self.$i.words(),)*)
            }
            fn first_off_host(&self) -> Option<usize> {
                <[bool]>::iter(&[$(self.$i.in_host_memory()),*]).position(|on| !on)
            }
        }
    };
}
kernel_args!();
kernel_args!((P0, A0, 0));
kernel_args!((P0, A0, 0), (P1, A1, 1));
kernel_args!((P0, A0, 0), (P1, A1, 1), (P2, A2, 2));
kernel_args!((P0, A0, 0), (P1, A1, 1), (P2, A2, 2), (P3, A3, 3));
kernel_args!(
    (P0, A0, 0),
    (P1, A1, 1),
    (P2, A2, 2),
    (P3, A3, 3),
    (P4, A4, 4)
);
kernel_args!(
    (P0, A0, 0),
    (P1, A1, 1),
    (P2, A2, 2),
    (P3, A3, 3),
    (P4, A4, 4),
    (P5, A5, 5)
);
kernel_args!(
    (P0, A0, 0),
    (P1, A1, 1),
    (P2, A2, 2),
    (P3, A3, 3),
    (P4, A4, 4),
    (P5, A5, 5),
    (P6, A6, 6)
);
kernel_args!(
    (P0, A0, 0),
    (P1, A1, 1),
    (P2, A2, 2),
    (P3, A3, 3),
    (P4, A4, 4),
    (P5, A5, 5),
    (P6, A6, 6),
    (P7, A7, 7)
);
kernel_args!(
    (P0, A0, 0),
    (P1, A1, 1),
    (P2, A2, 2),
    (P3, A3, 3),
    (P4, A4, 4),
    (P5, A5, 5),
    (P6, A6, 6),
    (P7, A7, 7),
    (P8, A8, 8)
);
kernel_args!(
    (P0, A0, 0),
    (P1, A1, 1),
    (P2, A2, 2),
    (P3, A3, 3),
    (P4, A4, 4),
    (P5, A5, 5),
    (P6, A6, 6),
    (P7, A7, 7),
    (P8, A8, 8),
    (P9, A9, 9)
);
kernel_args!(
    (P0, A0, 0),
    (P1, A1, 1),
    (P2, A2, 2),
    (P3, A3, 3),
    (P4, A4, 4),
    (P5, A5, 5),
    (P6, A6, 6),
    (P7, A7, 7),
    (P8, A8, 8),
    (P9, A9, 9),
    (P10, A10, 10)
);
kernel_args!(
    (P0, A0, 0),
    (P1, A1, 1),
    (P2, A2, 2),
    (P3, A3, 3),
    (P4, A4, 4),
    (P5, A5, 5),
    (P6, A6, 6),
    (P7, A7, 7),
    (P8, A8, 8),
    (P9, A9, 9),
    (P10, A10, 10),
    (P11, A11, 11)
);
