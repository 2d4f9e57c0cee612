//! Device-wide scans from the host: every prefix of a buffer combined with
//! an operator, inclusive or exclusive, on a GPU or on the CPU backend.
//!
//! ```
//! use coop_host::{scan, Device};
//!
//! let device = Device::cpu(); // or Device::gpu_or_cpu()
//! let input = device.upload(&[3u32, 1, 4, 1, 5, 9])?;
//! let mut out = device.zeros::<u32>(6)?;
//! scan::inclusive_sum(&device, &input, &mut out)?;
//! assert_eq!(device.download(&out)?, [3, 4, 8, 9, 14, 23]);
//! scan::exclusive_sum(&device, &input, &mut out)?;
//! assert_eq!(device.download(&out)?, [0, 3, 4, 8, 9, 14]);
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! A scan reads each element once and writes each once, in one launch
//! (`coop::device::scan::scan`, decoupled look-back): block `b` scans tile
//! `b` of 8192 elements (2048 of 8-byte types), publishes its total, and
//! finds what comes before it from the totals and prefixes the tiles
//! before it published. Any length works, 0 included, and any alignment.
//! Integer scans wrap on overflow and are exact. A float scan's last bits
//! can change from run to run (where each tile's look-back stopped
//! decides the order of its additions), as CUB's do;
//! [`Scanner::deterministic`] runs the same single pass with each tile's
//! look-back combining the tiles before it one after another, in tile
//! order, so that its results have the same bits on every GPU and on the
//! CPU backend, run after run.
//!
//! [`Scanner`] keeps its kernels and tile states between calls and runs
//! your own scan kernels (user types and operators, in order for an
//! operator that is not commutative).

mod builtin;
mod scanner;

pub use builtin::BuiltinScan;
#[cfg(feature = "multi")]
pub(crate) use scanner::Front;
pub use scanner::Scanner;

use crate::{Device, Error, Input, LaunchConfig, Launcher, Output};
use coop::kernel::params::{OutSlice, ParamList, Slice, Value};
use coop::op::Sum;
use coop::Kernel;

/// The parameter list of the scan kernels a [`Scanner`] runs: `(input:
/// &[T], output: Out<T>, control: u32, status: Out<u64>, partials: Out<T>,
/// epoch: u32)`, a kernel that calls `coop::device::scan::scan` or
/// `scan_scalar` with them (see `coop::device::scan` for what each means).
pub trait ScanParams<T>: ParamList + sealed::Sealed {
    /// Launches `kernel` with `args` through `launcher`.
    #[doc(hidden)]
    fn launch<K: Kernel<Params = Self>>(
        launcher: Launcher<'_>,
        kernel: K,
        config: LaunchConfig,
        args: ScanArgs<'_, '_, '_, '_, '_, T>,
    ) -> Result<(), Error>;
}

/// The parameters of a scan kernel over `T`.
pub type Params<T> = (
    Slice<T>,
    OutSlice<T>,
    Value<u32>,
    OutSlice<u64>,
    OutSlice<T>,
    Value<u32>,
);

/// The arguments of a scan kernel's launch, in the order of [`Params`].
type ScanArgs<'a, 'i, 'o, 's, 'p, T> = (
    &'a Input<'i, T>,
    &'a mut Output<'o, T>,
    u32,
    &'a mut Output<'s, u64>,
    &'a mut Output<'p, T>,
    u32,
);

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for super::Params<T> {}
}

impl<T> ScanParams<T> for Params<T> {
    fn launch<K: Kernel<Params = Self>>(
        launcher: Launcher<'_>,
        kernel: K,
        config: LaunchConfig,
        args: ScanArgs<'_, '_, '_, '_, '_, T>,
    ) -> Result<(), Error> {
        launcher.launch(kernel, config, args)
    }
}

/// Threads per block of a scan of `T`'s launches, unless
/// [`Scanner::with_block_threads`] says otherwise: 256 (chapter 7 of the
/// guide has the figures for other sizes). It depends on the type alone,
/// so a deterministic scan's bits do too.
///
/// ```
/// use coop_host::scan::default_block_threads;
/// assert_eq!(default_block_threads::<f32>(), 256);
/// assert_eq!(default_block_threads::<u64>(), 256);
/// ```
pub const fn default_block_threads<T>() -> u32 {
    let _ = std::mem::size_of::<T>();
    256
}

/// The pass of a scan: the single pass, or the deterministic one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    Single,
    Ordered,
}

impl Pass {
    /// The kernel's control word for this pass.
    pub(crate) fn control(self, exclusive: bool) -> u32 {
        use coop::device::scan as s;
        let pass = match self {
            Pass::Single => s::SINGLE_PASS,
            Pass::Ordered => s::ORDERED,
        };
        pass | if exclusive { s::EXCLUSIVE } else { 0 }
    }
}

/// The inclusive sum of `input` into `output` on `device` (integers wrap):
/// `output[i] = input[0] + ... + input[i]`. See the module docs.
pub fn inclusive_sum<'a, 'b, T: BuiltinScan<Sum>>(
    device: &Device,
    input: impl Into<Input<'a, T>>,
    output: impl Into<Output<'b, T>>,
) -> Result<(), Error> {
    Scanner::new(device)?.inclusive(Sum, input, output)
}

/// The exclusive sum of `input` into `output` on `device`: `output[i] =
/// input[0] + ... + input[i - 1]`, and 0 at 0. See the module docs.
pub fn exclusive_sum<'a, 'b, T: BuiltinScan<Sum>>(
    device: &Device,
    input: impl Into<Input<'a, T>>,
    output: impl Into<Output<'b, T>>,
) -> Result<(), Error> {
    Scanner::new(device)?.exclusive(Sum, input, output)
}
