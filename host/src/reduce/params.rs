//! The two parameter lists a reduction kernel may have, and how a launch of
//! each is made on either backend.

use super::plan::THREADS;
use crate::{Cpu, Error, LaunchConfig, Module};
use coop::kernel::params::{OutSlice, Slice};
use coop::Kernel;
use cudarc::driver::{CudaView, CudaViewMut};

/// The parameter lists of the reduction kernels a
/// [`Reducer`](super::Reducer) runs, and how it launches each:
///
/// - `(input: &[T], partials: Out<T>)`, a kernel that calls
///   `coop::grid_reduce::reduce_blocks`: two launches, every block and
///   then one block over the blocks' results;
/// - `(input: &[T], partials: Out<T>, tickets: Out<u32>)`, a kernel that
///   calls `coop::grid_reduce::reduce_grid` (the built-in kernels): one
///   launch, whose last block reduces the blocks' results, when the grid is
///   one wave (every block resident at once); two otherwise (with no
///   tickets, which makes `reduce_grid` a first pass).
pub trait ReductionParams<T>: coop::kernel::params::ParamList + sealed::Sealed {
    /// Whether the kernel takes tickets, and so can finish in one launch.
    const TICKETS: bool;
    /// Launches `kernel` on a GPU over `blocks` blocks.
    #[doc(hidden)]
    fn launch_gpu<K: Kernel<Params = Self>>(
        module: &Module,
        kernel: K,
        blocks: u32,
        input: &CudaView<'_, T>,
        partials: &mut CudaViewMut<'_, T>,
        tickets: &mut CudaViewMut<'_, u32>,
    ) -> Result<(), Error>;
    /// Launches `kernel` on the CPU backend over `blocks` blocks.
    #[doc(hidden)]
    fn launch_cpu<K: Kernel<Params = Self>>(
        cpu: &Cpu,
        kernel: K,
        blocks: u32,
        input: &[T],
        partials: &mut [T],
        tickets: &mut [u32],
    ) -> Result<(), Error>;
}

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for (super::Slice<T>, super::OutSlice<T>) {}
    impl<T> Sealed for (super::Slice<T>, super::OutSlice<T>, super::OutSlice<u32>) {}
}

/// Implements [`ReductionParams`] for one parameter list: `$args` are the
/// launch's arguments, from `input`, `partials` and `tickets`.
macro_rules! reduction_params {
    ($params:ty, $with_tickets:literal, |$input:ident, $partials:ident, $tickets:ident| $args:expr) => {
        impl<T> ReductionParams<T> for $params {
            const TICKETS: bool = $with_tickets;
            fn launch_gpu<K: Kernel<Params = Self>>(
                module: &Module,
                kernel: K,
                blocks: u32,
                $input: &CudaView<'_, T>,
                $partials: &mut CudaViewMut<'_, T>,
                $tickets: &mut CudaViewMut<'_, u32>,
            ) -> Result<(), Error> {
                module.launch(kernel, LaunchConfig::new(blocks, THREADS), $args)
            }
            fn launch_cpu<K: Kernel<Params = Self>>(
                cpu: &Cpu,
                kernel: K,
                blocks: u32,
                $input: &[T],
                $partials: &mut [T],
                $tickets: &mut [u32],
            ) -> Result<(), Error> {
                cpu.launch(kernel, LaunchConfig::new(blocks, THREADS), $args)
                    .map(drop)
            }
        }
    };
}

reduction_params!(
    (Slice<T>, OutSlice<T>),
    false,
    |input, partials, _tickets| (input, partials)
);
reduction_params!(
    (Slice<T>, OutSlice<T>, OutSlice<u32>),
    true,
    |input, partials, tickets| (input, partials, tickets)
);

/// The parameter list of a transform-reduction kernel that a
/// [`Reducer`](super::Reducer) runs with
/// [`transform_reduce_with`](super::Reducer::transform_reduce_with):
/// `(input: &[T], partials: Out<U>, tickets: Out<u32>)`, a kernel that
/// calls `coop::grid_reduce::reduce_grid_map` (or `_scalar`), `U` the
/// map's output. It always finishes in one launch.
pub trait MapReductionParams<T, U>: coop::kernel::params::ParamList + map_sealed::Sealed {
    /// Launches `kernel` on a GPU over `blocks` blocks.
    #[doc(hidden)]
    fn launch_gpu<K: Kernel<Params = Self>>(
        module: &Module,
        kernel: K,
        blocks: u32,
        input: &CudaView<'_, T>,
        partials: &mut CudaViewMut<'_, U>,
        tickets: &mut CudaViewMut<'_, u32>,
    ) -> Result<(), Error>;
    /// Launches `kernel` on the CPU backend over `blocks` blocks.
    #[doc(hidden)]
    fn launch_cpu<K: Kernel<Params = Self>>(
        cpu: &Cpu,
        kernel: K,
        blocks: u32,
        input: &[T],
        partials: &mut [U],
        tickets: &mut [u32],
    ) -> Result<(), Error>;
}

mod map_sealed {
    pub trait Sealed {}
    impl<T, U> Sealed for (super::Slice<T>, super::OutSlice<U>, super::OutSlice<u32>) {}
}

impl<T, U> MapReductionParams<T, U> for (Slice<T>, OutSlice<U>, OutSlice<u32>) {
    fn launch_gpu<K: Kernel<Params = Self>>(
        module: &Module,
        kernel: K,
        blocks: u32,
        input: &CudaView<'_, T>,
        partials: &mut CudaViewMut<'_, U>,
        tickets: &mut CudaViewMut<'_, u32>,
    ) -> Result<(), Error> {
        module.launch(
            kernel,
            LaunchConfig::new(blocks, THREADS),
            (input, partials, tickets),
        )
    }
    fn launch_cpu<K: Kernel<Params = Self>>(
        cpu: &Cpu,
        kernel: K,
        blocks: u32,
        input: &[T],
        partials: &mut [U],
        tickets: &mut [u32],
    ) -> Result<(), Error> {
        cpu.launch(
            kernel,
            LaunchConfig::new(blocks, THREADS),
            (input, partials, tickets),
        )
        .map(drop)
    }
}
