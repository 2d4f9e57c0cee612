//! Runs of equal keys from the host: one result a run of consecutive
//! equal keys, its values summed ([`sum_by_key`], CUB's
//! `DeviceReduce::ReduceByKey`) or its length counted ([`encode`], CUB's
//! `DeviceRunLengthEncode::Encode`); or each element's sum within its run
//! ([`inclusive_sum_by_key`], [`exclusive_sum_by_key`]: CUB's
//! `DeviceScan::InclusiveSumByKey` and `ExclusiveSumByKey`, a segmented
//! scan); on a GPU or on the CPU backend.
//!
//! ```
//! use coop_host::{runs, Device};
//!
//! let device = Device::cpu(); // or Device::gpu_or_cpu()
//! let day = device.upload(&[1u32, 1, 1, 2, 2, 5])?;
//! let sales = device.upload(&[10.0f32, 5.0, 1.0, 7.0, 3.0, 2.0])?;
//! let (mut days, mut totals) = (device.zeros::<u32>(6)?, device.zeros::<f32>(6)?);
//! let n = runs::sum_by_key(&device, &day, &sales, &mut days, &mut totals)?;
//! assert_eq!(&device.download(&days)?[..n], [1, 2, 5]);
//! assert_eq!(&device.download(&totals)?[..n], [16.0, 10.0, 2.0]);
//!
//! let text = device.upload(b"aaabccdddd")?;
//! let (mut letters, mut lengths) = (device.zeros::<u8>(10)?, device.zeros::<u32>(10)?);
//! let n = runs::encode(&device, &text, &mut letters, &mut lengths)?;
//! assert_eq!(&device.download(&letters)?[..n], b"abcd");
//! assert_eq!(&device.download(&lengths)?[..n], [3, 1, 2, 4]);
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! The keys need not be sorted: every run of equal neighbours is a run of
//! its own (sort the keys first for one result a distinct key). One
//! launch reads the keys and values once and writes a key and a result a
//! run (`coop::device::runs`: a tile a block, the runs' counts and partial
//! results carried from tile to tile by decoupled look-back). The outputs
//! must hold as many elements as the keys (the most runs there can be);
//! the calls return the number of runs, read back from the device, and
//! [`RunReducer`]'s `*_into` forms leave it in a buffer of yours instead.
//! Keys compare with `==`: floats' `-0.0` equals `0.0` and a NaN is never
//! equal to anything, so each NaN is a run of its own. A float sum over a
//! run that spans tiles can differ in its last bits from call to call, as
//! CUB's does; a [`RunReducer::deterministic`] reducer's have the same bits
//! on every call, every GPU and the CPU backend.

mod builtin;
mod reducer;

pub use builtin::{BuiltinEncode, BuiltinSumByKey};
pub use reducer::RunReducer;

use crate::{Device, Error, Input, Output};
use coop::device::runs::RunTotal;
use coop::kernel::params::{OutSlice, Slice, Value};
use reducer::Call;

/// The parameter list of a reduce-by-key kernel: `(keys: &[K], values:
/// &[V], keys_out: Out<K>, values_out: Out<V>, runs: Out<u64>, status:
/// Out<u64>, partials: Out<RunTotal<V>>, epoch: u32)`, a kernel that calls
/// `coop::device::runs::reduce_by_key` with them.
pub type Params<K, V> = (
    Slice<K>,
    Slice<V>,
    OutSlice<K>,
    OutSlice<V>,
    OutSlice<u64>,
    OutSlice<u64>,
    OutSlice<RunTotal<V>>,
    Value<u32>,
);

/// The parameter list of a run-length encoding kernel: `(keys: &[K],
/// keys_out: Out<K>, lengths_out: Out<u32>, runs: Out<u64>, status:
/// Out<u64>, partials: Out<RunTotal<u32>>, epoch: u32)`, a kernel that
/// calls `coop::device::runs::run_length_encode` with them.
pub type EncodeParams<K> = (
    Slice<K>,
    OutSlice<K>,
    OutSlice<u32>,
    OutSlice<u64>,
    OutSlice<u64>,
    OutSlice<RunTotal<u32>>,
    Value<u32>,
);

/// The parameter list of a scan-by-key kernel: `(keys: &[K], values:
/// &[V], values_out: Out<V>, control: u32, status: Out<u64>, partials:
/// Out<RunTotal<V>>, epoch: u32)`, a kernel that calls
/// `coop::device::runs::scan_by_key` with them.
pub type ScanParams<K, V> = (
    Slice<K>,
    Slice<V>,
    OutSlice<V>,
    Value<u32>,
    OutSlice<u64>,
    OutSlice<RunTotal<V>>,
    Value<u32>,
);

/// Threads per block of these calls' launches, unless
/// [`RunReducer::with_block_threads`] says otherwise.
///
/// ```
/// assert_eq!(coop_host::runs::DEFAULT_BLOCK_THREADS, 256);
/// ```
pub const DEFAULT_BLOCK_THREADS: u32 = 256;

/// The sum of each run of equal keys' values on `device`: the run's key
/// into `keys_out[r]` and its sum into `sums_out[r]` for the `r`-th run;
/// returns the number of runs. `values` is as long as `keys`; both
/// outputs at least as long. Integers wrap. See the [module docs](self).
pub fn sum_by_key<'k, 'v, 'ko, 'so, K: BuiltinSumByKey<V>, V: coop::DeviceCopy + coop::Shuffle>(
    device: &Device,
    keys: impl Into<Input<'k, K>>,
    values: impl Into<Input<'v, V>>,
    keys_out: impl Into<Output<'ko, K>>,
    sums_out: impl Into<Output<'so, V>>,
) -> Result<usize, Error> {
    RunReducer::new(device)?.counted(|r, count| {
        r.launch_pairs(
            Call("runs::sum_by_key"),
            crate::ProgramRef::Own,
            K::KERNEL,
            keys.into(),
            values.into(),
            keys_out.into(),
            sums_out.into(),
            count,
        )
    })
}

/// Each element's sum of its run's values up to and including it, on
/// `device`: `sums_out[i] = values[j] + ... + values[i]` where `j` starts
/// `i`'s run of equal keys (CUB's `DeviceScan::InclusiveSumByKey`): a
/// segmented scan, the segments given by a key an element. `values` and
/// `sums_out` are as long as `keys`. Integers wrap.
///
/// ```
/// use coop_host::{runs, Device};
///
/// let device = Device::cpu(); // or Device::gpu_or_cpu()
/// // Rows of a sparse matrix, a row index an entry: each row's running sum.
/// let rows = device.upload(&[0u32, 0, 0, 2, 2, 3])?;
/// let entries = device.upload(&[1.5f32, 2.0, -1.0, 4.0, 4.0, 9.0])?;
/// let mut sums = device.zeros::<f32>(6)?;
/// runs::inclusive_sum_by_key(&device, &rows, &entries, &mut sums)?;
/// assert_eq!(device.download(&sums)?, [1.5, 3.5, 2.5, 4.0, 8.0, 9.0]);
/// runs::exclusive_sum_by_key(&device, &rows, &entries, &mut sums)?;
/// assert_eq!(device.download(&sums)?, [0.0, 1.5, 3.5, 0.0, 4.0, 0.0]);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub fn inclusive_sum_by_key<
    'k,
    'v,
    'o,
    K: BuiltinSumByKey<V>,
    V: coop::DeviceCopy + coop::Shuffle,
>(
    device: &Device,
    keys: impl Into<Input<'k, K>>,
    values: impl Into<Input<'v, V>>,
    sums_out: impl Into<Output<'o, V>>,
) -> Result<(), Error> {
    RunReducer::new(device)?.sum_scan_by_key(
        Call("runs::inclusive_sum_by_key"),
        keys.into(),
        values.into(),
        sums_out.into(),
        false,
    )
}

/// Each element's sum of its run's values before it, on `device` (0 at a
/// run's first element; CUB's `DeviceScan::ExclusiveSumByKey`); as
/// [`inclusive_sum_by_key`] otherwise.
pub fn exclusive_sum_by_key<
    'k,
    'v,
    'o,
    K: BuiltinSumByKey<V>,
    V: coop::DeviceCopy + coop::Shuffle,
>(
    device: &Device,
    keys: impl Into<Input<'k, K>>,
    values: impl Into<Input<'v, V>>,
    sums_out: impl Into<Output<'o, V>>,
) -> Result<(), Error> {
    RunReducer::new(device)?.sum_scan_by_key(
        Call("runs::exclusive_sum_by_key"),
        keys.into(),
        values.into(),
        sums_out.into(),
        true,
    )
}

/// The key and length of each run of equal keys on `device`: into
/// `keys_out[r]` and `lengths_out[r]` for the `r`-th run; returns the
/// number of runs. Both outputs are at least as long as `keys`. See the
/// [module docs](self).
pub fn encode<'k, 'ko, 'lo, K: BuiltinEncode>(
    device: &Device,
    keys: impl Into<Input<'k, K>>,
    keys_out: impl Into<Output<'ko, K>>,
    lengths_out: impl Into<Output<'lo, u32>>,
) -> Result<usize, Error> {
    RunReducer::new(device)?.counted(|r, count| {
        r.launch_encode(
            Call("runs::encode"),
            crate::ProgramRef::Own,
            K::KERNEL,
            keys.into(),
            keys_out.into(),
            lengths_out.into(),
            count,
        )
    })
}
