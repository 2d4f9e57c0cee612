//! Device-wide selection from the host: the elements of a buffer that
//! pass a test, compacted to the front of an output in their order
//! (CUB's `DeviceSelect`), or the whole buffer partitioned, the elements
//! that pass first in their order and the others after them in reverse
//! order (CUB's `DevicePartition`), on a GPU or on the CPU backend.
//!
//! ```
//! use coop_host::{select, Device};
//!
//! let device = Device::cpu(); // or Device::gpu_or_cpu()
//! let input = device.upload(&[3u32, 1, 4, 1, 5, 9, 2, 6])?;
//! let flags = device.upload(&[true, false, true, false, true, true, false, false])?;
//! let mut out = device.zeros::<u32>(8)?;
//! let kept = select::flagged(&device, &input, &flags, &mut out)?;
//! assert_eq!(&device.download(&out)?[..kept], [3, 4, 5, 9]);
//! let kept = select::partition_flagged(&device, &input, &flags, &mut out)?;
//! assert_eq!((kept, device.download(&out)?), (4, vec![3, 4, 5, 9, 6, 2, 1, 1]));
//!
//! let sorted = device.upload(&[1u32, 1, 2, 3, 3, 3, 7])?;
//! let kept = select::unique(&device, &sorted, &mut out)?;
//! assert_eq!(&device.download(&out)?[..kept], [1, 2, 3, 7]);
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! The test is a flag an element ([`flagged`], [`partition_flagged`]),
//! "differs from the element before" ([`unique`]), or a predicate of
//! yours in a kernel of your own ([`Selector::if_with`],
//! [`Selector::partition_with`]); flags over a type of yours go through a
//! kernel of yours too ([`Selector::flagged_with`]). A selection reads the input once and
//! writes what it keeps once, in one launch (`coop::device::select`: each
//! block compacts its tile in shared memory and learns where its elements
//! go by decoupled look-back over the tiles before it). The output must
//! hold at least as many elements as the input (the most a selection can
//! keep; a partition writes that many). The calls return the number of
//! elements kept, which they read back from the device; [`Selector`]'s
//! `*_into` forms leave it in a buffer of yours instead and return at
//! once, as CUB's calls do.

mod builtin;
mod selector;

pub use builtin::BuiltinSelect;
pub use selector::Selector;

use selector::Call;

use crate::{Device, Error, Input, LaunchConfig, Launcher, Output, ProgramRef};
use coop::kernel::params::{OutSlice, ParamList, Slice, Value};
use coop::Kernel;

/// The parameter list of the selection kernels that test each element by
/// itself or against the one before: `(input: &[T], output: Out<T>,
/// control: u32, selected: Out<u64>, status: Out<u64>, epoch: u32)`, a
/// kernel that calls `coop::device::select::select_if` or `unique` with
/// them (see `coop::device::select` for what each means).
pub type Params<T> = (
    Slice<T>,
    OutSlice<T>,
    Value<u32>,
    OutSlice<u64>,
    OutSlice<u64>,
    Value<u32>,
);

/// The parameter list of the kernels that select by flags: `(input: &[T],
/// flags: &[bool], output: Out<T>, control: u32, selected: Out<u64>,
/// status: Out<u64>, epoch: u32)`, a kernel that calls
/// `coop::device::select::select_flagged` with them.
pub type FlaggedParams<T> = (
    Slice<T>,
    Slice<bool>,
    OutSlice<T>,
    Value<u32>,
    OutSlice<u64>,
    OutSlice<u64>,
    Value<u32>,
);

/// What a selection's launch takes besides its input and output.
pub(crate) struct Launch<'a, 's, 'w> {
    pub(crate) launcher: Launcher<'a>,
    pub(crate) config: LaunchConfig,
    pub(crate) control: u32,
    pub(crate) selected: &'a mut Output<'s, u64>,
    pub(crate) status: &'a mut Output<'w, u64>,
    pub(crate) epoch: u32,
}

/// How a selection kernel's parameters are given: [`Params`] (a
/// predicate, or unique) or [`FlaggedParams`] (with the flags).
pub(crate) trait SelectParams<T>: ParamList {
    /// Launches `kernel` over `input` into `output`, with `flags` for a
    /// kernel that takes them.
    fn launch<K: Kernel<Params = Self>>(
        kernel: K,
        input: &Input<'_, T>,
        flags: Option<&Input<'_, bool>>,
        output: &mut Output<'_, T>,
        launch: Launch<'_, '_, '_>,
    ) -> Result<(), Error>;
}

impl<T> SelectParams<T> for Params<T> {
    fn launch<K: Kernel<Params = Self>>(
        kernel: K,
        input: &Input<'_, T>,
        _: Option<&Input<'_, bool>>,
        output: &mut Output<'_, T>,
        l: Launch<'_, '_, '_>,
    ) -> Result<(), Error> {
        l.launcher.launch(
            kernel,
            l.config,
            (input, output, l.control, l.selected, l.status, l.epoch),
        )
    }
}

impl<T> SelectParams<T> for FlaggedParams<T> {
    fn launch<K: Kernel<Params = Self>>(
        kernel: K,
        input: &Input<'_, T>,
        flags: Option<&Input<'_, bool>>,
        output: &mut Output<'_, T>,
        l: Launch<'_, '_, '_>,
    ) -> Result<(), Error> {
        // The flagged calls, the only ones whose kernels take flags, pass
        // them.
        let Some(flags) = flags else {
            return Err(Error::InvalidArgument {
                call: "Selector",
                problem: "a kernel that selects by flags was called without flags: run it with \
                          `flagged_with` or `partition_flagged_with`"
                    .into(),
            });
        };
        l.launcher.launch(
            kernel,
            l.config,
            (
                input, flags, output, l.control, l.selected, l.status, l.epoch,
            ),
        )
    }
}

/// Threads per block of a selection's launches, unless
/// [`Selector::with_block_threads`] says otherwise: 256.
///
/// ```
/// assert_eq!(coop_host::select::DEFAULT_BLOCK_THREADS, 256);
/// ```
pub const DEFAULT_BLOCK_THREADS: u32 = 256;

/// Copies the elements of `input` whose flag in `flags` is set to the
/// front of `output`, in their order, on `device`, and returns how many.
/// `flags` is as long as `input`; `output` at least as long. See the
/// [module docs](self).
pub fn flagged<'a, 'f, 'b, T: BuiltinSelect>(
    device: &Device,
    input: impl Into<Input<'a, T>>,
    flags: impl Into<Input<'f, bool>>,
    output: impl Into<Output<'b, T>>,
) -> Result<usize, Error> {
    Selector::new(device)?.counted(
        Call::select("select::flagged"),
        ProgramRef::Own,
        T::FLAGGED,
        input.into(),
        Some(flags.into()),
        output.into(),
    )
}

/// Partitions `input` into `output` on `device`: the elements whose flag
/// is set first, in their order, the others after them in reverse order;
/// returns how many flags were set. See the [module docs](self).
pub fn partition_flagged<'a, 'f, 'b, T: BuiltinSelect>(
    device: &Device,
    input: impl Into<Input<'a, T>>,
    flags: impl Into<Input<'f, bool>>,
    output: impl Into<Output<'b, T>>,
) -> Result<usize, Error> {
    Selector::new(device)?.counted(
        Call::partition("select::partition_flagged"),
        ProgramRef::Own,
        T::FLAGGED,
        input.into(),
        Some(flags.into()),
        output.into(),
    )
}

/// Copies the first element of each run of equal elements of `input` to
/// the front of `output`, in order, on `device` (duplicates removed from
/// sorted input), and returns how many. Floats compare with `==`: `-0.0`
/// equals `0.0`, and a NaN differs from everything, itself included. See
/// the [module docs](self).
pub fn unique<'a, 'b, T: BuiltinSelect>(
    device: &Device,
    input: impl Into<Input<'a, T>>,
    output: impl Into<Output<'b, T>>,
) -> Result<usize, Error> {
    Selector::new(device)?.counted(
        Call::select("select::unique"),
        ProgramRef::Own,
        T::UNIQUE,
        input.into(),
        None,
        output.into(),
    )
}
