//! [`RunReducer`]: sums by key and run-length encodings on one device,
//! keeping the loaded kernels and the tiles' states between calls.

use super::{
    BuiltinEncode, BuiltinSumByKey, EncodeParams, Params, ScanParams, DEFAULT_BLOCK_THREADS,
};
use crate::algorithms::engine::{block_threads, CountBuffer, Engine, Scratch, TileStatus};
use crate::ptx_families::RUNS_PTX;
use crate::{Device, Error, Input, LaunchConfig, Launcher, Output, ProgramRef};
use coop::device::runs::{
    partials_len, shared_memory_bytes, status_len, tiles, RunTotal, EXCLUSIVE,
};
use coop::{DeviceCopy, Kernel, Shuffle};
use std::sync::{Mutex, MutexGuard};

/// Sums by key and run-length encodings on one device: the built-in ones
/// ([`sum_by_key`](Self::sum_by_key), [`encode`](Self::encode)) and your
/// own kernels ([`reduce_by_key_with`](Self::reduce_by_key_with),
/// [`encode_with`](Self::encode_with)); see the [module docs](super).
/// Each returns the number of runs, read back from the device; the
/// `*_into` forms store it in a buffer of yours and return without
/// waiting.
///
/// ```
/// use coop_host::{runs::RunReducer, Device};
///
/// let device = Device::cpu(); // or Device::gpu_or_cpu()
/// let reducer = RunReducer::new(&device)?;
/// let keys: Vec<u64> = (0..10_000).map(|i| i / 3).collect();
/// let values = vec![1i32; keys.len()];
/// let (mut keys_out, mut sums) = (vec![0u64; keys.len()], vec![0i32; keys.len()]);
/// let n = reducer.sum_by_key(&keys, &values, &mut keys_out, &mut sums)?;
/// assert_eq!(n, 3334);
/// assert_eq!((keys_out[3333], sums[3333]), (3333, 1));
/// assert!(sums[..3333].iter().all(|&s| s == 3));
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct RunReducer {
    engine: Engine,
    state: Mutex<State>,
    count: CountBuffer,
    threads: u32,
    deterministic: bool,
}

/// What a reducer keeps between calls.
#[derive(Default)]
struct State {
    /// The tiles' status words (`coop::device::runs::status_len`).
    status: TileStatus,
    /// Two run totals a tile where they do not travel in the status words
    /// (`coop::device::runs::partials_len`), of the value type of the call
    /// at hand.
    partials: Scratch,
}

/// A call's name, for its errors.
#[derive(Clone, Copy)]
pub(super) struct Call(pub(super) &'static str);

impl std::fmt::Debug for RunReducer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunReducer")
            .field("device", &self.engine.describe())
            .field("threads", &self.threads)
            .field("deterministic", &self.deterministic)
            .finish()
    }
}

impl RunReducer {
    /// Loads the built-in kernels on `device`.
    pub fn new(device: &Device) -> Result<RunReducer, Error> {
        Ok(RunReducer {
            engine: Engine::new(device, &RUNS_PTX)?,
            state: Mutex::default(),
            count: CountBuffer::default(),
            threads: DEFAULT_BLOCK_THREADS,
            deterministic: false,
        })
    }

    /// The same reducer, whose built-in float sums by key
    /// ([`sum_by_key`](Self::sum_by_key), [`sum_by_key_into`](Self::sum_by_key_into),
    /// [`inclusive_sum_by_key`](Self::inclusive_sum_by_key),
    /// [`exclusive_sum_by_key`](Self::exclusive_sum_by_key)) have the same
    /// bits on every call, on every GPU and on the CPU backend, for the
    /// same block size: each tile's look-back combines the tiles before it
    /// one after another in tile order
    /// (`coop::device::runs::reduce_by_key_in_order`), where the default
    /// combines whatever tiles had published when it looked, so that a
    /// run spanning tiles can change in its last bits from call to call
    /// (as CUB's reduce-by-key does; CUB has no deterministic form).
    /// Integer sums are exact in any grouping and run the plain kernels.
    /// The order costs time: 1.6–1.9 times the default's for `f32` sums
    /// on an H100, measured before the kernels got the plain ones'
    /// register caps (guide, chapter 7). Your own kernels choose for
    /// themselves (`reduce_by_key_in_order`, `scan_by_key_in_order`).
    ///
    /// ```
    /// use coop_host::{runs::RunReducer, Device};
    ///
    /// let device = Device::cpu(); // or Device::gpu_or_cpu()
    /// let reducer = RunReducer::new(&device)?.deterministic();
    /// assert!(reducer.is_deterministic());
    /// // One run over many tiles, summed twice: the same bits.
    /// let keys = vec![3u32; 50_000];
    /// let values: Vec<f32> = (0..50_000).map(|i| ((i * 7919) % 1000) as f32 * 1e-3).collect();
    /// let (mut k, mut a, mut b) = (vec![0u32; 50_000], vec![0f32; 50_000], vec![0f32; 50_000]);
    /// assert_eq!(reducer.sum_by_key(&keys, &values, &mut k, &mut a)?, 1);
    /// assert_eq!(reducer.sum_by_key(&keys, &values, &mut k, &mut b)?, 1);
    /// assert_eq!((k[0], a[0].to_bits()), (3, b[0].to_bits()));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn deterministic(mut self) -> Self {
        self.deterministic = true;
        self
    }

    /// Whether this reducer's float sums by key are deterministic
    /// ([`deterministic`](Self::deterministic)).
    pub fn is_deterministic(&self) -> bool {
        self.deterministic
    }

    /// The same reducer, launching blocks of `threads` threads. Fails with
    /// [`Error::InvalidArgument`] unless `threads` is a multiple of 32
    /// from 64 to 512, on either backend.
    ///
    /// ```
    /// use coop_host::{runs::RunReducer, Device, Error};
    /// let reducer = RunReducer::new(&Device::cpu())?.with_block_threads(64)?;
    /// let (mut k, mut l) = (vec![0u8; 3], vec![0u32; 3]);
    /// assert_eq!(reducer.encode(&vec![4u8, 4, 9], &mut k, &mut l)?, 2);
    /// let err = RunReducer::new(&Device::cpu())?.with_block_threads(48).unwrap_err();
    /// assert!(matches!(err, Error::InvalidArgument { .. }));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_block_threads(mut self, threads: u32) -> Result<Self, Error> {
        self.threads = block_threads("RunReducer::with_block_threads", threads, "a block")?;
        Ok(self)
    }

    /// The same reducer, running its built-in calls from `module` instead
    /// of the PTX coop-host ships: a build of `coop-host-kernels` with the
    /// `runs` feature of your own (other register limits, another
    /// toolchain), with the same items a thread as this crate's.
    ///
    /// Fails with [`Error::Unavailable`] on the CPU backend, which runs the
    /// kernels' Rust code and loads no module, and when `module` was
    /// loaded on another GPU.
    ///
    /// ```no_run
    /// use coop_host::{runs::RunReducer, Device, Gpu};
    ///
    /// let gpu = Gpu::new(0)?;
    /// let ptx = std::fs::read_to_string("runs-variant.sm_90.ptx").unwrap();
    /// let module = gpu.load_ptx("runs-variant", &ptx)?;
    /// let reducer = RunReducer::new(&Device::Gpu(gpu))?.with_module(module)?;
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_module(mut self, module: crate::Module) -> Result<Self, Error> {
        self.engine.set_own(module, "RunReducer::with_module")?;
        Ok(self)
    }

    /// The sum of each run of equal keys' values: the run's key into
    /// `keys_out[r]` and its sum into `sums_out[r]` for the `r`-th run;
    /// returns the number of runs. `values` is as long as `keys`, both
    /// outputs at least as long.
    pub fn sum_by_key<'k, 'v, 'ko, 'so, K: BuiltinSumByKey<V>, V: DeviceCopy + Shuffle>(
        &self,
        keys: impl Into<Input<'k, K>>,
        values: impl Into<Input<'v, V>>,
        keys_out: impl Into<Output<'ko, K>>,
        sums_out: impl Into<Output<'so, V>>,
    ) -> Result<usize, Error> {
        let call = Call("RunReducer::sum_by_key");
        self.counted(|r, count| {
            let (keys, values) = (keys.into(), values.into());
            let out = (keys_out.into(), sums_out.into());
            r.launch_sums(call, keys, values, out.0, out.1, count)
        })
    }

    /// [`sum_by_key`](Self::sum_by_key), storing the number of runs in
    /// `count[0]` on the device and returning without waiting for it.
    pub fn sum_by_key_into<'k, 'v, 'ko, 'so, 'c, K: BuiltinSumByKey<V>, V: DeviceCopy + Shuffle>(
        &self,
        keys: impl Into<Input<'k, K>>,
        values: impl Into<Input<'v, V>>,
        keys_out: impl Into<Output<'ko, K>>,
        sums_out: impl Into<Output<'so, V>>,
        count: impl Into<Output<'c, u64>>,
    ) -> Result<(), Error> {
        let call = Call("RunReducer::sum_by_key_into");
        let (keys, values) = (keys.into(), values.into());
        let out = (keys_out.into(), sums_out.into());
        self.launch_sums(call, keys, values, out.0, out.1, count.into())
    }

    /// A built-in sum by key: the plain kernel, or for a deterministic
    /// reducer the ordered one over the keys' bits.
    pub(super) fn launch_sums<K: BuiltinSumByKey<V>, V: DeviceCopy + Shuffle>(
        &self,
        call: Call,
        keys: Input<'_, K>,
        values: Input<'_, V>,
        keys_out: Output<'_, K>,
        sums_out: Output<'_, V>,
        count: Output<'_, u64>,
    ) -> Result<(), Error> {
        if !self.deterministic {
            return self.launch_pairs(
                call,
                ProgramRef::Own,
                K::KERNEL,
                keys,
                values,
                keys_out,
                sums_out,
                count,
            );
        }
        let mut keys_out = keys_out;
        // SAFETY: a key and the unsigned integer of its width have the
        // same size and alignment, any bits are either, and keys compare
        // by their bits.
        let (keys, keys_out) = unsafe {
            (
                keys.reinterpret::<K::KeyBits>(),
                keys_out.reinterpret_mut::<K::KeyBits>(),
            )
        };
        self.launch_pairs(
            call,
            ProgramRef::Own,
            K::ORDERED_KERNEL,
            keys,
            values,
            keys_out,
            sums_out,
            count,
        )
    }

    /// Each run's values combined by your `kernel` (in `program`), which
    /// has the parameters of [`Params`] and calls
    /// `coop::device::runs::reduce_by_key` with your types and operator;
    /// as [`sum_by_key`](Self::sum_by_key) otherwise.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::device::runs::{reduce_by_key, RunTotal};
    /// use coop_host::{runs::RunReducer, Device};
    ///
    /// /// The highest reading of each run of one sensor's readings.
    /// #[kernel]
    /// pub fn peaks(block: ThreadBlock, keys: &[u16], values: &[f32], keys_out: Out<u16>,
    ///              values_out: Out<f32>, runs: Out<u64>, status: Out<u64>,
    ///              partials: Out<RunTotal<f32>>, epoch: u32) {
    ///     reduce_by_key(block, keys, values, keys_out, values_out, op::Max, runs, status, partials, epoch)
    /// }
    /// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("doc", &[]);
    ///
    /// let device = Device::cpu();
    /// let program = device.load(&PTX)?;
    /// let sensor = [3u16, 3, 3, 8, 8];
    /// let reading = [20.5f32, 22.0, 21.0, -4.0, -6.5];
    /// let (mut sensors, mut highs) = ([0u16; 5], [0f32; 5]);
    /// let n = RunReducer::new(&device)?
    ///     .reduce_by_key_with(&program, peaks, &sensor[..], &reading[..], &mut sensors[..], &mut highs[..])?;
    /// assert_eq!((&sensors[..n], &highs[..n]), (&[3, 8][..], &[22.0, -4.0][..]));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn reduce_by_key_with<'p, 'k, 'v, 'ko, 'vo, K, V, Kern>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: Kern,
        keys: impl Into<Input<'k, K>>,
        values: impl Into<Input<'v, V>>,
        keys_out: impl Into<Output<'ko, K>>,
        values_out: impl Into<Output<'vo, V>>,
    ) -> Result<usize, Error>
    where
        K: DeviceCopy + Shuffle,
        V: DeviceCopy + Shuffle,
        Kern: Kernel<Params = Params<K, V>>,
    {
        let call = Call("RunReducer::reduce_by_key_with");
        self.counted(|r, count| {
            let (keys, values) = (keys.into(), values.into());
            let out = (keys_out.into(), values_out.into());
            r.launch_pairs(
                call,
                program.into(),
                kernel,
                keys,
                values,
                out.0,
                out.1,
                count,
            )
        })
    }

    /// The key and length of each run of equal keys: into `keys_out[r]`
    /// and `lengths_out[r]` for the `r`-th run; returns the number of
    /// runs. Both outputs are at least as long as `keys`.
    pub fn encode<'k, 'ko, 'lo, K: BuiltinEncode>(
        &self,
        keys: impl Into<Input<'k, K>>,
        keys_out: impl Into<Output<'ko, K>>,
        lengths_out: impl Into<Output<'lo, u32>>,
    ) -> Result<usize, Error> {
        let call = Call("RunReducer::encode");
        self.counted(|r, count| {
            let out = (keys_out.into(), lengths_out.into());
            r.launch_encode(
                call,
                ProgramRef::Own,
                K::KERNEL,
                keys.into(),
                out.0,
                out.1,
                count,
            )
        })
    }

    /// [`encode`](Self::encode), storing the number of runs in `count[0]`
    /// on the device and returning without waiting for it.
    pub fn encode_into<'k, 'ko, 'lo, 'c, K: BuiltinEncode>(
        &self,
        keys: impl Into<Input<'k, K>>,
        keys_out: impl Into<Output<'ko, K>>,
        lengths_out: impl Into<Output<'lo, u32>>,
        count: impl Into<Output<'c, u64>>,
    ) -> Result<(), Error> {
        let call = Call("RunReducer::encode_into");
        let out = (keys_out.into(), lengths_out.into());
        self.launch_encode(
            call,
            ProgramRef::Own,
            K::KERNEL,
            keys.into(),
            out.0,
            out.1,
            count.into(),
        )
    }

    /// The encoding with your `kernel` (in `program`), which has the
    /// parameters of [`EncodeParams`] and calls
    /// `coop::device::runs::run_length_encode` for a key type of yours; as
    /// [`encode`](Self::encode) otherwise.
    pub fn encode_with<'p, 'k, 'ko, 'lo, K, Kern>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: Kern,
        keys: impl Into<Input<'k, K>>,
        keys_out: impl Into<Output<'ko, K>>,
        lengths_out: impl Into<Output<'lo, u32>>,
    ) -> Result<usize, Error>
    where
        K: DeviceCopy + Shuffle,
        Kern: Kernel<Params = EncodeParams<K>>,
    {
        let call = Call("RunReducer::encode_with");
        self.counted(|r, count| {
            let out = (keys_out.into(), lengths_out.into());
            r.launch_encode(
                call,
                program.into(),
                kernel,
                keys.into(),
                out.0,
                out.1,
                count,
            )
        })
    }

    /// Each element's sum of its run's values up to and including it into
    /// `sums_out` (CUB's `DeviceScan::InclusiveSumByKey`: a segmented scan,
    /// a key an element); `values` and `sums_out` as long as `keys`.
    /// Returns once the launch is queued.
    ///
    /// ```
    /// use coop_host::{runs::RunReducer, Device};
    ///
    /// let device = Device::cpu(); // or Device::gpu_or_cpu()
    /// let reducer = RunReducer::new(&device)?;
    /// // Each customer's balance after each of their transactions.
    /// let customer = [5u64, 5, 5, 9, 9];
    /// let amount = [100i64, -20, -30, 7, 8];
    /// let mut balance = [0i64; 5];
    /// reducer.inclusive_sum_by_key(&customer[..], &amount[..], &mut balance[..])?;
    /// assert_eq!(balance, [100, 80, 50, 7, 15]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn inclusive_sum_by_key<'k, 'v, 'o, K: BuiltinSumByKey<V>, V: DeviceCopy + Shuffle>(
        &self,
        keys: impl Into<Input<'k, K>>,
        values: impl Into<Input<'v, V>>,
        sums_out: impl Into<Output<'o, V>>,
    ) -> Result<(), Error> {
        let call = Call("RunReducer::inclusive_sum_by_key");
        self.sum_scan_by_key(call, keys.into(), values.into(), sums_out.into(), false)
    }

    /// Each element's sum of its run's values before it (0 at a run's
    /// first element; CUB's `DeviceScan::ExclusiveSumByKey`); as
    /// [`inclusive_sum_by_key`](Self::inclusive_sum_by_key) otherwise.
    pub fn exclusive_sum_by_key<'k, 'v, 'o, K: BuiltinSumByKey<V>, V: DeviceCopy + Shuffle>(
        &self,
        keys: impl Into<Input<'k, K>>,
        values: impl Into<Input<'v, V>>,
        sums_out: impl Into<Output<'o, V>>,
    ) -> Result<(), Error> {
        let call = Call("RunReducer::exclusive_sum_by_key");
        self.sum_scan_by_key(call, keys.into(), values.into(), sums_out.into(), true)
    }

    /// Each element's scan within its run of equal keys by your `kernel`
    /// (in `program`), which has the parameters of [`ScanParams`] and calls
    /// `coop::device::runs::scan_by_key` with your types and operator;
    /// inclusive, or `exclusive`. As
    /// [`inclusive_sum_by_key`](Self::inclusive_sum_by_key) otherwise.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::device::runs::{scan_by_key, RunTotal};
    /// use coop_host::{runs::RunReducer, Device};
    ///
    /// /// Each lap's best time so far, per runner.
    /// #[kernel]
    /// pub fn best_so_far(block: ThreadBlock, runner: &[u16], lap: &[f32], best: Out<f32>,
    ///                    control: u32, status: Out<u64>, partials: Out<RunTotal<f32>>,
    ///                    epoch: u32) {
    ///     scan_by_key(block, runner, lap, best, op::Min, control, status, partials, epoch)
    /// }
    /// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("doc", &[]);
    ///
    /// let device = Device::cpu();
    /// let program = device.load(&PTX)?;
    /// let runner = [1u16, 1, 1, 4, 4];
    /// let lap = [61.5f32, 59.0, 60.2, 70.0, 68.5];
    /// let mut best = [0f32; 5];
    /// RunReducer::new(&device)?
    ///     .scan_by_key_with(&program, best_so_far, &runner[..], &lap[..], &mut best[..], false)?;
    /// assert_eq!(best, [61.5, 59.0, 59.0, 70.0, 68.5]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn scan_by_key_with<'p, 'k, 'v, 'o, K, V, Kern>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: Kern,
        keys: impl Into<Input<'k, K>>,
        values: impl Into<Input<'v, V>>,
        values_out: impl Into<Output<'o, V>>,
        exclusive: bool,
    ) -> Result<(), Error>
    where
        K: DeviceCopy + Shuffle,
        V: DeviceCopy + Shuffle,
        Kern: Kernel<Params = ScanParams<K, V>>,
    {
        let call = Call("RunReducer::scan_by_key_with");
        self.launch_scan(
            call,
            program.into(),
            kernel,
            keys.into(),
            values.into(),
            values_out.into(),
            exclusive,
        )
    }

    /// A sum scanned by key with the built-in kernel of its key width and
    /// value kind.
    pub(super) fn sum_scan_by_key<K: BuiltinSumByKey<V>, V: DeviceCopy + Shuffle>(
        &self,
        call: Call,
        keys: Input<'_, K>,
        values: Input<'_, V>,
        mut sums_out: Output<'_, V>,
        exclusive: bool,
    ) -> Result<(), Error> {
        // SAFETY: a key and the unsigned integer of its width, an integer
        // value and the unsigned integer of its width (floats stay what
        // they are) have the same size and alignment, and any bits are
        // either; keys compare by their bits and integers sum alike.
        let (keys, values, sums_out) = unsafe {
            (
                keys.reinterpret::<K::KeyBits>(),
                values.reinterpret::<K::ValueWord>(),
                sums_out.reinterpret_mut::<K::ValueWord>(),
            )
        };
        if self.deterministic {
            return self.launch_scan(
                call,
                ProgramRef::Own,
                K::ORDERED_SCAN_KERNEL,
                keys,
                values,
                sums_out,
                exclusive,
            );
        }
        self.launch_scan(
            call,
            ProgramRef::Own,
            K::SCAN_KERNEL,
            keys,
            values,
            sums_out,
            exclusive,
        )
    }

    /// The launch of a scan by key.
    #[allow(clippy::too_many_arguments)]
    fn launch_scan<K, V, Kern>(
        &self,
        call: Call,
        program: ProgramRef<'_>,
        kernel: Kern,
        keys: Input<'_, K>,
        values: Input<'_, V>,
        mut values_out: Output<'_, V>,
        exclusive: bool,
    ) -> Result<(), Error>
    where
        K: DeviceCopy + Shuffle,
        V: DeviceCopy + Shuffle,
        Kern: Kernel<Params = ScanParams<K, V>>,
    {
        let len = keys.len();
        one_value_a_key(call, len, values.len())?;
        let outputs = [("the scan's output", values_out.len())];
        let on_gpu = [keys.on_gpu(), values.on_gpu(), values_out.on_gpu()];
        let control = if exclusive { EXCLUSIVE } else { 0 };
        self.launch_tiles::<K, V, Kern>(
            call,
            program,
            len,
            &outputs,
            &on_gpu,
            None,
            |launcher, config, _, status, partials, epoch| {
                launcher.launch(
                    kernel,
                    config,
                    (
                        &keys,
                        &values,
                        &mut values_out,
                        control,
                        status,
                        partials,
                        epoch,
                    ),
                )
            },
        )
    }

    /// Waits until the calls queued on a GPU are done (nothing to wait for
    /// on the CPU backend).
    pub fn synchronize(&self) -> Result<(), Error> {
        self.engine.synchronize()
    }

    /// Runs `launch` with the reducer's own count buffer and reads the
    /// count back.
    pub(super) fn counted(
        &self,
        launch: impl FnOnce(&Self, Output<'_, u64>) -> Result<(), Error>,
    ) -> Result<usize, Error> {
        let count = self
            .count
            .counted(&self.engine, |count| launch(self, count))?;
        Ok(count as usize)
    }

    /// Checks that the outputs hold `len` elements and the count (if any)
    /// one.
    fn check(
        call: Call,
        len: usize,
        outputs: &[(&str, usize)],
        count: Option<usize>,
    ) -> Result<(), Error> {
        for (what, n) in outputs {
            if *n < len {
                return Err(Error::InvalidArgument {
                    call: call.0,
                    problem: format!(
                        "{what} holds {n} elements and the keys {len}: it must hold at least as \
                         many as the keys (there can be that many runs)"
                    ),
                });
            }
        }
        if count == Some(0) {
            return Err(Error::InvalidArgument {
                call: call.0,
                problem: "the count's buffer is empty: it needs one element".into(),
            });
        }
        Ok(())
    }

    /// What every call does around its launch: checks that the outputs
    /// hold `len` elements and the count (a scan has none) one, and that
    /// the arguments (`on_gpu`) are on the device; stores a count of 0 for
    /// no keys; otherwise runs `launch` with the launcher, the grid, the
    /// count's element, the tiles' status words and partial totals, and
    /// the call's epoch.
    #[allow(clippy::too_many_arguments)]
    fn launch_tiles<K: Shuffle, V: Shuffle, Kern: Kernel>(
        &self,
        call: Call,
        program: ProgramRef<'_>,
        len: usize,
        outputs: &[(&str, usize)],
        on_gpu: &[bool],
        mut count: Option<Output<'_, u64>>,
        launch: impl FnOnce(
            Launcher<'_>,
            LaunchConfig,
            Option<&mut Output<'_, u64>>,
            &mut Output<'_, u64>,
            &mut Output<'_, RunTotal<V>>,
            u32,
        ) -> Result<(), Error>,
    ) -> Result<(), Error> {
        Self::check(call, len, outputs, count.as_ref().map(|c| c.len()))?;
        self.engine.check_arguments::<Kern>(on_gpu)?;
        if len == 0 {
            return match &mut count {
                Some(count) => self.engine.clear(&mut count.slice_mut(0..1), "the count"),
                None => Ok(()),
            };
        }
        let launcher = self.engine.resolve(program, call.0)?;
        let mut runs = count.as_mut().map(|c| c.slice_mut(0..1));
        let tiles = tiles::<K, V>(len, self.threads);
        let words = status_len::<K, V>(len, self.threads);
        let totals = partials_len::<K, V>(len, self.threads);
        let mut state = self.lock();
        let State { status, partials } = &mut *state;
        let epoch = status.next_epoch(&self.engine, words, "the tiles' states of runs")?;
        let mut all = status.all();
        let mut status = all.slice_mut(0..words);
        partials.reserve(
            &self.engine,
            totals * std::mem::size_of::<RunTotal<V>>(),
            4096,
        )?;
        // SAFETY: `typed` needs the values read through the view to be
        // valid run totals: a kernel reads a tile's total only after the
        // tile of the same call stored it (its status word's epoch says
        // so), and the host never reads them. `RunTotal<V>` aligns as `V`
        // (a `DeviceCopy`, 16 at most) or to 4.
        let mut every = unsafe { partials.typed::<RunTotal<V>>() };
        let mut partials = every.slice_mut(0..totals);
        let config = LaunchConfig::new(tiles as u32, self.threads)
            .with_shared_memory(shared_memory_bytes::<K, V>(self.threads));
        launch(
            launcher,
            config,
            runs.as_mut(),
            &mut status,
            &mut partials,
            epoch,
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn launch_pairs<K, V, Kern>(
        &self,
        call: Call,
        program: ProgramRef<'_>,
        kernel: Kern,
        keys: Input<'_, K>,
        values: Input<'_, V>,
        mut keys_out: Output<'_, K>,
        mut values_out: Output<'_, V>,
        count: Output<'_, u64>,
    ) -> Result<(), Error>
    where
        K: DeviceCopy + Shuffle,
        V: DeviceCopy + Shuffle,
        Kern: Kernel<Params = Params<K, V>>,
    {
        let len = keys.len();
        one_value_a_key(call, len, values.len())?;
        let outputs = [
            ("the keys' output", keys_out.len()),
            ("the results' output", values_out.len()),
        ];
        let on_gpu = [
            keys.on_gpu(),
            values.on_gpu(),
            keys_out.on_gpu(),
            values_out.on_gpu(),
            count.on_gpu(),
        ];
        self.launch_tiles::<K, V, Kern>(
            call,
            program,
            len,
            &outputs,
            &on_gpu,
            Some(count),
            |launcher, config, runs, status, partials, epoch| {
                let runs = runs.expect("a reduction has its count");
                launcher.launch(
                    kernel,
                    config,
                    (
                        &keys,
                        &values,
                        &mut keys_out,
                        &mut values_out,
                        runs,
                        status,
                        partials,
                        epoch,
                    ),
                )
            },
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn launch_encode<K, Kern>(
        &self,
        call: Call,
        program: ProgramRef<'_>,
        kernel: Kern,
        keys: Input<'_, K>,
        mut keys_out: Output<'_, K>,
        mut lengths_out: Output<'_, u32>,
        count: Output<'_, u64>,
    ) -> Result<(), Error>
    where
        K: DeviceCopy + Shuffle,
        Kern: Kernel<Params = EncodeParams<K>>,
    {
        let outputs = [
            ("the keys' output", keys_out.len()),
            ("the lengths' output", lengths_out.len()),
        ];
        let on_gpu = [
            keys.on_gpu(),
            keys_out.on_gpu(),
            lengths_out.on_gpu(),
            count.on_gpu(),
        ];
        self.launch_tiles::<K, u32, Kern>(
            call,
            program,
            keys.len(),
            &outputs,
            &on_gpu,
            Some(count),
            |launcher, config, runs, status, partials, epoch| {
                let runs = runs.expect("an encoding has its count");
                launcher.launch(
                    kernel,
                    config,
                    (
                        &keys,
                        &mut keys_out,
                        &mut lengths_out,
                        runs,
                        status,
                        partials,
                        epoch,
                    ),
                )
            },
        )
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `call`'s values hold one for each of its `keys` keys, or the error
/// that says how many there are.
fn one_value_a_key(call: Call, keys: usize, values: usize) -> Result<(), Error> {
    if values == keys {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        call: call.0,
        problem: format!("{values} values for {keys} keys: the values hold one for each key"),
    })
}
