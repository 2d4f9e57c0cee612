//! Segmented reductions from the host: one result per segment of a buffer,
//! the segments given by offsets (CSR style), on a GPU or on the CPU
//! backend.
//!
//! ```
//! use coop_host::{segmented, Device};
//!
//! let device = Device::cpu(); // or Device::gpu_or_cpu()
//! // Rows of a sparse matrix: [5, 1], [], [2, 2, 2]
//! let values = device.upload(&[5i32, 1, 2, 2, 2])?;
//! let row_starts = device.upload(&[0u64, 2, 2, 5])?;
//! let mut row_sums = device.zeros::<i32>(3)?;
//! segmented::sum(&device, &values, &row_starts, &mut row_sums)?;
//! assert_eq!(device.download(&row_sums)?, [6, 0, 6]);
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! Segment `s` is `input[offsets[s]..offsets[s + 1]]`; offsets are `u32` or
//! `u64`, never decrease, and end at most at the input's length. Segments
//! of any length, 0 included, go in one call: each is reduced by its
//! length's strategy, chosen on the GPU while the kernels run (the host
//! never reads the offsets): up to 256 elements by a warp that walks 32
//! segments at once, up to 65 536 by a warp of its own, longer ones by
//! many blocks (see `coop::device::segmented` for the three phases), so that
//! segments of one element, of thousands and of millions, and any mix of
//! them, go at a speed near the device's bandwidth. Values
//! combine in input order within a segment; an empty segment gets the
//! operator's identity.
//!
//! [`SegmentedReducer`] keeps its kernels and work lists between calls and
//! runs your own kernels (user types and operators).

mod builtin;
mod reducer;

pub use builtin::BuiltinSegmented;
pub(crate) use reducer::offset_words;
pub use reducer::SegmentedReducer;

use crate::{Device, Error, Input, LaunchConfig, Launcher, Output};
use coop::device::segmented::Offset;
use coop::kernel::params::{OutSlice, ParamList, Slice, Value};
use coop::op::{Max, Min, Sum};
use coop::{DeviceCopy, Kernel};

/// The parameter list of a segmented-reduction kernel of yours that a
/// [`SegmentedReducer`] runs with
/// [`reduce_with`](SegmentedReducer::reduce_with): `(input: &[T], offsets:
/// &[Off], output: Out<T>, phase: u32, work: Out<u64>, partials: Out<T>)`,
/// a kernel that calls `coop::device::segmented::segmented_reduce` with
/// them; `Off` is `u32` or `u64`.
pub trait SegmentedParams<T, Off>: ParamList + sealed::Sealed {
    /// Launches `kernel` with `args` through `launcher`.
    #[doc(hidden)]
    fn launch<K: Kernel<Params = Self>>(
        launcher: Launcher<'_>,
        kernel: K,
        config: LaunchConfig,
        args: SegmentedArgs<'_, '_, '_, '_, '_, '_, T, Off>,
    ) -> Result<(), Error>;
}

/// The parameters of a segmented kernel of yours over `T` with offsets of
/// `Off`.
pub type Params<T, Off> = (
    Slice<T>,
    Slice<Off>,
    OutSlice<T>,
    Value<u32>,
    OutSlice<u64>,
    OutSlice<T>,
);

/// The arguments of a segmented kernel's launch, in the order of
/// [`Params`].
type SegmentedArgs<'a, 'i, 'f, 'o, 'w, 'p, T, Off> = (
    &'a Input<'i, T>,
    &'a Input<'f, Off>,
    &'a mut Output<'o, T>,
    u32,
    &'a mut Output<'w, u64>,
    &'a mut Output<'p, T>,
);

mod sealed {
    pub trait Sealed {}
    impl<T, Off> Sealed for super::Params<T, Off> {}
}

impl<T, Off> SegmentedParams<T, Off> for Params<T, Off> {
    fn launch<K: Kernel<Params = Self>>(
        launcher: Launcher<'_>,
        kernel: K,
        config: LaunchConfig,
        args: SegmentedArgs<'_, '_, '_, '_, '_, '_, T, Off>,
    ) -> Result<(), Error> {
        launcher.launch(kernel, config, args)
    }
}

/// Threads per block of every segmented launch.
pub const THREADS: u32 = 256;

/// The sum of each segment of `input` into `output` on `device`; see the
/// module docs.
pub fn sum<'a, 'o, 'b, T: BuiltinSegmented<Sum>, Off: Offset + DeviceCopy>(
    device: &Device,
    input: impl Into<Input<'a, T>>,
    offsets: impl Into<Input<'o, Off>>,
    output: impl Into<Output<'b, T>>,
) -> Result<(), Error> {
    SegmentedReducer::new(device)?.reduce(Sum, input, offsets, output)
}

/// The minimum of each segment; see the module docs.
pub fn min<'a, 'o, 'b, T: BuiltinSegmented<Min>, Off: Offset + DeviceCopy>(
    device: &Device,
    input: impl Into<Input<'a, T>>,
    offsets: impl Into<Input<'o, Off>>,
    output: impl Into<Output<'b, T>>,
) -> Result<(), Error> {
    SegmentedReducer::new(device)?.reduce(Min, input, offsets, output)
}

/// The maximum of each segment; see the module docs.
pub fn max<'a, 'o, 'b, T: BuiltinSegmented<Max>, Off: Offset + DeviceCopy>(
    device: &Device,
    input: impl Into<Input<'a, T>>,
    offsets: impl Into<Input<'o, Off>>,
    output: impl Into<Output<'b, T>>,
) -> Result<(), Error> {
    SegmentedReducer::new(device)?.reduce(Max, input, offsets, output)
}
