//! [`DeviceCopy`]: plain data that moves between host and GPU memory as its
//! bytes, the element types of kernel buffers and uploads.

/// A type whose values move between host and device memory as their bytes:
/// the primitive numbers, `bool`, arrays of them, and `#[repr(C)]` structs
/// of them with `#[derive(DeviceCopy)]`. Kernel buffers (`&[T]`, `Out<T>`)
/// of such types can be uploaded, zeroed and downloaded by coop-host's
/// [`Device`](https://docs.rs/coop-host) calls, on the GPU and the CPU
/// backend alike, with no dependency of the kernel crate on the host
/// crates.
///
/// ```
/// use coop::prelude::*;
/// use coop_host::{Device, LaunchConfig};
///
/// #[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
/// #[repr(C)]
/// pub struct Particle {
///     pub position: [f32; 3],
///     pub mass: f32,
/// }
///
/// /// Each particle's momentum along x, for a velocity field.
/// #[kernel]
/// pub fn momentum(grid: Grid, particles: &[Particle], vx: &[f32], out: Out<f32>) {
///     let i = grid.thread_rank();
///     if i < particles.len() {
///         out.write(i, particles[i].mass * vx[i]);
///     }
/// }
/// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("doc", &[]);
///
/// let device = Device::cpu(); // or Device::gpu_or_cpu()
/// let program = device.load(&PTX)?;
/// let particles = device.upload(&[
///     Particle { position: [0.0; 3], mass: 2.0 },
///     Particle { position: [1.0; 3], mass: 0.5 },
/// ])?;
/// let vx = device.upload(&[3.0f32, 4.0])?;
/// let mut out = device.zeros::<f32>(2)?;
/// program.launch(momentum, LaunchConfig::new(1, 32), (&particles, &vx, &mut out))?;
/// assert_eq!(device.download(&out)?, [6.0, 2.0]);
/// # Ok::<(), coop_host::Error>(())
/// ```
///
/// The derive checks, when the kernel crate compiles, that the struct is
/// `#[repr(C)]` (or `#[repr(transparent)]`), has no generic parameters,
/// that every field is `DeviceCopy`, and that it has no padding bytes
/// (which would carry uninitialised memory to the GPU and back). On the
/// host it also implements cudarc's `DeviceRepr` and `ValidAsZeroBits` for
/// the struct, through coop: the kernel crate depends on coop alone.
///
/// # Safety
///
/// Implementing it by hand promises that every byte pattern the GPU or
/// the CPU backend may write into a value is a valid value (all-zero bytes
/// included), and that the type has no padding; the derive checks this.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be copied to and from the GPU as plain bytes",
    label = "not `DeviceCopy`",
    note = "derive it: `#[derive(Clone, Copy, DeviceCopy)]` with `#[repr(C)]` on a struct whose fields are numbers, `bool`, arrays of them or other `DeviceCopy` structs, without padding"
)]
pub unsafe trait DeviceCopy: Copy + 'static + sealed_host::HostRepr {}

/// On the host, what cudarc needs to move a type: its `DeviceRepr` and
/// `ValidAsZeroBits`; nothing on the GPU. Implemented by
/// `#[derive(DeviceCopy)]`, never by hand.
#[doc(hidden)]
pub mod sealed_host {
    #[cfg(not(target_arch = "nvptx64"))]
    pub trait HostRepr: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits {}
    #[cfg(not(target_arch = "nvptx64"))]
    impl<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits> HostRepr for T {}
    #[cfg(target_arch = "nvptx64")]
    pub trait HostRepr {}
    #[cfg(target_arch = "nvptx64")]
    impl<T> HostRepr for T {}
}

macro_rules! device_copy {
    ($($t:ty),*) => {$(
        // SAFETY: every bit pattern of a primitive number is a valid value,
        // and it has no padding.
        unsafe impl DeviceCopy for $t {}
    )*};
}

device_copy!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64
);

// SAFETY: a `bool` from device memory is one a kernel stored (safe code
// stores only 0 or 1) or zeroed memory (false); it has no padding.
unsafe impl DeviceCopy for bool {}

// SAFETY: an array of `DeviceCopy` elements has no padding between them
// (an element's size is a multiple of its alignment) and is valid whenever
// its elements are.
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {}

// `op::Arg`, a value and its index, travels between host and device.
macro_rules! arg_device_copy {
    ($($t:ty),*) => {$(
        // SAFETY: a 4- or 8-byte number followed by two `u32` words: no
        // padding (the words are 4-aligned and the size is a multiple of
        // the value's alignment), and every bit pattern is a valid value.
        unsafe impl crate::DeviceCopy for crate::op::Arg<$t> {}
        // SAFETY: as above: plain bytes without padding.
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe impl cudarc::driver::DeviceRepr for crate::op::Arg<$t> {}
        // SAFETY: all-zero bytes are the value 0 at index 0.
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe impl cudarc::driver::ValidAsZeroBits for crate::op::Arg<$t> {}
    )*};
}
arg_device_copy!(f32, f64, i32, u32, i64, u64);
