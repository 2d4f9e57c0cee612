//! Host arguments for kernel parameters, checked at compile time.
//!
//! A kernel's descriptor names its parameters as markers
//! ([`coop::kernel::params`]); a launch takes a tuple of host values, and
//! [`KernelArgs`] holds only when each value fits its parameter.

use coop::kernel::params::{OutSlice, Slice, Value};
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
pub unsafe trait HostArg<P> {
    /// The second PTX word: the element count of a buffer, unused otherwise.
    fn len_word(&self) -> u64;
    /// Pushes the argument's PTX words; `len` is where `len_word` was stored.
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, len: &'a u64);
}

unsafe impl<T> HostArg<Slice<T>> for &CudaSlice<T> {
    fn len_word(&self) -> u64 {
        self.len() as u64
    }
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, len: &'a u64) {
        args.arg(&**self).arg(len);
    }
}

unsafe impl<T> HostArg<Slice<T>> for &mut CudaSlice<T> {
    fn len_word(&self) -> u64 {
        self.len() as u64
    }
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, len: &'a u64) {
        args.arg(&**self).arg(len);
    }
}

unsafe impl<'v, T> HostArg<Slice<T>> for &CudaView<'v, T> {
    fn len_word(&self) -> u64 {
        self.len() as u64
    }
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, len: &'a u64) {
        args.arg(&**self).arg(len);
    }
}

unsafe impl<T> HostArg<OutSlice<T>> for &mut CudaSlice<T> {
    fn len_word(&self) -> u64 {
        self.len() as u64
    }
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, len: &'a u64) {
        args.arg(&mut **self).arg(len);
    }
}

unsafe impl<'v, T> HostArg<OutSlice<T>> for &mut CudaViewMut<'v, T> {
    fn len_word(&self) -> u64 {
        self.len() as u64
    }
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, len: &'a u64) {
        args.arg(&mut **self).arg(len);
    }
}

macro_rules! value_args {
    ($($t:ty),*) => {$(
        unsafe impl HostArg<Value<$t>> for $t {
            fn len_word(&self) -> u64 {
                0
            }
            fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>, _len: &'a u64) {
                args.arg(&*self);
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
}

macro_rules! kernel_args {
    ($(($p:ident, $a:ident, $i:tt)),*) => {
        impl<$($p, $a: HostArg<$p>),*> KernelArgs<($($p,)*)> for ($($a,)*) {
            fn len_words(&self) -> Vec<u64> {
                vec![$(self.$i.len_word()),*]
            }
            #[allow(unused_variables)]
            fn push_all<'a>(&'a mut self, args: &mut LaunchArgs<'a>, lens: &'a [u64]) {
                $(self.$i.push(args, &lens[$i]);)*
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
