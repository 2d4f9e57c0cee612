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
//! Each runs one kernel (`coop::grid_reduce::reduce_grid`): a grid of
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
mod cpu;
mod gpu;
mod ordered;
mod params;
mod plan;
mod reducer;

pub use crate::views::Input;
pub use builtin::{Builtin, BuiltinCount, BuiltinMap, KERNELS_PTX};
#[cfg(feature = "multi")]
pub(crate) use gpu::GpuReducer;
pub use params::{MapReductionParams, ReductionParams};
pub use plan::{DEFAULT_BLOCKS_PER_SM, MIN_TILES_PER_BLOCK, THREADS};
pub use reducer::Reducer;

use crate::{Device, Error};
use coop::op::{Max, Min, Sum};

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
