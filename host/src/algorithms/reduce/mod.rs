//! Device-wide reductions from the host: the sum, minimum or maximum of a
//! buffer in one call, on a GPU or on the CPU backend.
//!
//! ```
//! use coop_host::{reduce, Device};
//!
//! let device = Device::cpu(); // or Device::gpu_or_cpu()
//! let data = device.upload(&[3.0f32, -1.5, 8.25, 0.5])?;
//! assert_eq!(reduce::sum(&device, &data)?, 10.25);
//! assert_eq!(reduce::min(&device, &data)?, -1.5);
//! assert_eq!(reduce::max(&device, &data)?, 8.25);
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! Each runs one kernel (`coop::device::reduce::reduce_grid`): a grid of
//! blocks, each reducing its tiles of the input (16-byte vector loads, the
//! tiles dealt to the blocks in turn) to one value; when the grid is one
//! wave (every block resident at once), the block that finishes last
//! reduces those values in the same launch, and past that a second launch
//! of one block does. Any length works, 0 included (the operator's
//! identity), and any alignment (a view starting at any element).
//! [`Reducer::with_blocks_per_sm`] and [`Reducer::with_tiles_per_block`]
//! tune the grid; [`DEFAULT_BLOCKS_PER_SM`] says why its default is
//! several waves.
//!
//! Integer sums wrap on overflow and are exact; a float sum `s` of
//! `x_1..x_n` lies within `(n / (4 t) + b / 256 + 48) * eps * sum |x_i|`
//! of the exact sum, `b` and `t` the blocks and threads of the first launch
//! and `eps` the type's machine epsilon: no value passes through more
//! additions (a thread folds its elements into four accumulators, the
//! blocks' results are folded 256 ways, and two block reductions add 8
//! levels each). Float `min`/`max` ignore NaN: the result is NaN
//! only when every value is NaN, or there are none.
//!
//! [`Reducer`] keeps its scratch and loaded kernels between calls;
//! [`Reducer::reduce_with`] runs a reduction kernel of your own (a user
//! operator or type) the same way (see [`ReductionParams`]).

mod builtin;
mod ordered;
mod plan;
mod reducer;

pub use crate::Input;
pub use builtin::{Builtin, BuiltinCount, BuiltinMap, KERNELS_PTX};
pub use plan::{DEFAULT_BLOCKS_PER_SM, MIN_TILES_PER_BLOCK, THREADS};
pub use reducer::Reducer;

use crate::{Device, Error, LaunchConfig, Launcher, Output};
use coop::kernel::params::{OutSlice, ParamList, Slice};
use coop::op::{Max, Min, Sum};
use coop::Kernel;

/// The parameter lists of the reduction kernels a [`Reducer`] runs, and
/// how it launches each:
///
/// - `(input: &[T], partials: Out<T>)`, a kernel that calls
///   `coop::device::reduce::reduce_blocks`: two launches, every block and
///   then one block over the blocks' results;
/// - `(input: &[T], partials: Out<T>, tickets: Out<u32>)`, a kernel that
///   calls `coop::device::reduce::reduce_grid` (the built-in kernels): one
///   launch, whose last block reduces the blocks' results, when the grid is
///   one wave (every block resident at once); two otherwise (with no
///   tickets, which makes `reduce_grid` a first pass).
pub trait ReductionParams<T>: ParamList + sealed::Sealed {
    /// Whether the kernel takes tickets, and so can finish in one launch.
    const TICKETS: bool;
    /// Launches `kernel` over `blocks` blocks through `launcher` (the
    /// tickets unused by a kernel without them).
    #[doc(hidden)]
    fn launch<K: Kernel<Params = Self>>(
        launcher: Launcher<'_>,
        kernel: K,
        blocks: u32,
        input: &Input<'_, T>,
        partials: &mut Output<'_, T>,
        tickets: &mut Output<'_, u32>,
    ) -> Result<(), Error>;
}

/// The parameter list of a transform-reduction kernel that a [`Reducer`]
/// runs with [`transform_reduce_with`](Reducer::transform_reduce_with):
/// `(input: &[T], partials: Out<U>, tickets: Out<u32>)`, a kernel that
/// calls `coop::device::reduce::reduce_grid_map` (or `_scalar`), `U` the
/// map's output. It always finishes in one launch.
pub trait MapReductionParams<T, U>: ParamList + sealed::Sealed {
    /// Launches `kernel` over `blocks` blocks through `launcher`.
    #[doc(hidden)]
    fn launch<K: Kernel<Params = Self>>(
        launcher: Launcher<'_>,
        kernel: K,
        blocks: u32,
        input: &Input<'_, T>,
        partials: &mut Output<'_, U>,
        tickets: &mut Output<'_, u32>,
    ) -> Result<(), Error>;
}

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for (super::Slice<T>, super::OutSlice<T>) {}
    impl<T, U> Sealed for (super::Slice<T>, super::OutSlice<U>, super::OutSlice<u32>) {}
}

impl<T> ReductionParams<T> for (Slice<T>, OutSlice<T>) {
    const TICKETS: bool = false;
    fn launch<K: Kernel<Params = Self>>(
        launcher: Launcher<'_>,
        kernel: K,
        blocks: u32,
        input: &Input<'_, T>,
        partials: &mut Output<'_, T>,
        _tickets: &mut Output<'_, u32>,
    ) -> Result<(), Error> {
        let config = LaunchConfig::new(blocks, THREADS);
        launcher.launch(kernel, config, (input, partials))
    }
}

impl<T> ReductionParams<T> for (Slice<T>, OutSlice<T>, OutSlice<u32>) {
    const TICKETS: bool = true;
    fn launch<K: Kernel<Params = Self>>(
        launcher: Launcher<'_>,
        kernel: K,
        blocks: u32,
        input: &Input<'_, T>,
        partials: &mut Output<'_, T>,
        tickets: &mut Output<'_, u32>,
    ) -> Result<(), Error> {
        // The parameters of a transform-reduction whose map is the identity.
        <Self as MapReductionParams<T, T>>::launch(
            launcher, kernel, blocks, input, partials, tickets,
        )
    }
}

impl<T, U> MapReductionParams<T, U> for (Slice<T>, OutSlice<U>, OutSlice<u32>) {
    fn launch<K: Kernel<Params = Self>>(
        launcher: Launcher<'_>,
        kernel: K,
        blocks: u32,
        input: &Input<'_, T>,
        partials: &mut Output<'_, U>,
        tickets: &mut Output<'_, u32>,
    ) -> Result<(), Error> {
        let config = LaunchConfig::new(blocks, THREADS);
        launcher.launch(kernel, config, (input, partials, tickets))
    }
}

/// The sum of `input` on `device` (integers wrap); see the module docs.
pub fn sum<'a, T: Builtin<Sum>>(
    device: &Device,
    input: impl Into<Input<'a, T>>,
) -> Result<T, Error> {
    Reducer::new(device)?.sum(input)
}

/// The minimum of `input` on `device`; see the module docs.
pub fn min<'a, T: Builtin<Min>>(
    device: &Device,
    input: impl Into<Input<'a, T>>,
) -> Result<T, Error> {
    Reducer::new(device)?.min(input)
}

/// The maximum of `input` on `device`; see the module docs.
pub fn max<'a, T: Builtin<Max>>(
    device: &Device,
    input: impl Into<Input<'a, T>>,
) -> Result<T, Error> {
    Reducer::new(device)?.max(input)
}
