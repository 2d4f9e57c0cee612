//! The parameter list of a scan kernel, and how a launch of it is made on
//! either backend.

use crate::{Cpu, Error, LaunchConfig, Module};
use coop::kernel::params::{OutSlice, Slice, Value};
use coop::Kernel;
use cudarc::driver::{CudaView, CudaViewMut};

/// The parameter list of the scan kernels a [`Scanner`](super::Scanner)
/// runs: `(input: &[T], output: Out<T>, control: u32, status: Out<u64>,
/// partials: Out<T>, epoch: u32)`, a kernel that calls
/// `coop::device_scan::scan` or `scan_scalar` with them (see
/// `coop::device_scan` for what each means).
pub trait ScanParams<T>: coop::kernel::params::ParamList + sealed::Sealed {
    /// Launches `kernel` on a GPU over `blocks` blocks of `threads`.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn launch_gpu<K: Kernel<Params = Self>>(
        module: &Module,
        kernel: K,
        config: LaunchConfig,
        input: &CudaView<'_, T>,
        output: &mut CudaViewMut<'_, T>,
        control: u32,
        status: &mut CudaViewMut<'_, u64>,
        partials: &mut CudaViewMut<'_, T>,
        epoch: u32,
    ) -> Result<(), Error>;
    /// Launches `kernel` on the CPU backend.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn launch_cpu<K: Kernel<Params = Self>>(
        cpu: &Cpu,
        kernel: K,
        config: LaunchConfig,
        input: &[T],
        output: &mut [T],
        control: u32,
        status: &mut [u64],
        partials: &mut [T],
        epoch: u32,
    ) -> Result<(), Error>;
}

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed
        for (
            super::Slice<T>,
            super::OutSlice<T>,
            super::Value<u32>,
            super::OutSlice<u64>,
            super::OutSlice<T>,
            super::Value<u32>,
        )
    {
    }
}

impl<T> ScanParams<T>
    for (
        Slice<T>,
        OutSlice<T>,
        Value<u32>,
        OutSlice<u64>,
        OutSlice<T>,
        Value<u32>,
    )
{
    fn launch_gpu<K: Kernel<Params = Self>>(
        module: &Module,
        kernel: K,
        config: LaunchConfig,
        input: &CudaView<'_, T>,
        output: &mut CudaViewMut<'_, T>,
        control: u32,
        status: &mut CudaViewMut<'_, u64>,
        partials: &mut CudaViewMut<'_, T>,
        epoch: u32,
    ) -> Result<(), Error> {
        module.launch(
            kernel,
            config,
            (input, output, control, status, partials, epoch),
        )
    }

    fn launch_cpu<K: Kernel<Params = Self>>(
        cpu: &Cpu,
        kernel: K,
        config: LaunchConfig,
        input: &[T],
        output: &mut [T],
        control: u32,
        status: &mut [u64],
        partials: &mut [T],
        epoch: u32,
    ) -> Result<(), Error> {
        cpu.launch(
            kernel,
            config,
            (input, output, control, status, partials, epoch),
        )
        .map(drop)
    }
}
