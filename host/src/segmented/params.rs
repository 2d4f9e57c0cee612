//! The parameter list of a user's segmented-reduction kernel, and how a
//! launch of it is made on either backend.

use crate::{Cpu, Error, LaunchConfig, Module};
use coop::kernel::params::{OutSlice, Slice, Value};
use coop::Kernel;
use cudarc::driver::{CudaView, CudaViewMut};

/// The parameter list of a segmented-reduction kernel of yours that a
/// [`SegmentedReducer`](super::SegmentedReducer) runs with
/// [`reduce_with`](super::SegmentedReducer::reduce_with): `(input: &[T],
/// offsets: &[Off], output: Out<T>, phase: u32, work: Out<u64>, partials:
/// Out<T>)`, a kernel that calls `coop::segmented::segmented_reduce` with
/// them; `Off` is `u32` or `u64`.
pub trait SegmentedParams<T, Off>: coop::kernel::params::ParamList + sealed::Sealed {
    /// Launches `kernel` on a GPU.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn launch_gpu<K: Kernel<Params = Self>>(
        module: &Module,
        kernel: K,
        config: LaunchConfig,
        input: &CudaView<'_, T>,
        offsets: &CudaView<'_, Off>,
        output: &mut CudaViewMut<'_, T>,
        phase: u32,
        work: &mut CudaViewMut<'_, u64>,
        partials: &mut CudaViewMut<'_, T>,
    ) -> Result<(), Error>;
    /// Launches `kernel` on the CPU backend.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn launch_cpu<K: Kernel<Params = Self>>(
        cpu: &Cpu,
        kernel: K,
        config: LaunchConfig,
        input: &[T],
        offsets: &[Off],
        output: &mut [T],
        phase: u32,
        work: &mut [u64],
        partials: &mut [T],
    ) -> Result<(), Error>;
}

mod sealed {
    pub trait Sealed {}
    impl<T, Off> Sealed
        for (
            super::Slice<T>,
            super::Slice<Off>,
            super::OutSlice<T>,
            super::Value<u32>,
            super::OutSlice<u64>,
            super::OutSlice<T>,
        )
    {
    }
}

impl<T, Off> SegmentedParams<T, Off>
    for (
        Slice<T>,
        Slice<Off>,
        OutSlice<T>,
        Value<u32>,
        OutSlice<u64>,
        OutSlice<T>,
    )
{
    fn launch_gpu<K: Kernel<Params = Self>>(
        module: &Module,
        kernel: K,
        config: LaunchConfig,
        input: &CudaView<'_, T>,
        offsets: &CudaView<'_, Off>,
        output: &mut CudaViewMut<'_, T>,
        phase: u32,
        work: &mut CudaViewMut<'_, u64>,
        partials: &mut CudaViewMut<'_, T>,
    ) -> Result<(), Error> {
        module.launch(
            kernel,
            config,
            (input, offsets, output, phase, work, partials),
        )
    }

    fn launch_cpu<K: Kernel<Params = Self>>(
        cpu: &Cpu,
        kernel: K,
        config: LaunchConfig,
        input: &[T],
        offsets: &[Off],
        output: &mut [T],
        phase: u32,
        work: &mut [u64],
        partials: &mut [T],
    ) -> Result<(), Error> {
        cpu.launch(
            kernel,
            config,
            (input, offsets, output, phase, work, partials),
        )
        .map(drop)
    }
}
