//! [`Scanner`]: device-wide scans on one device, keeping the loaded
//! kernels and the tiles' states between calls.

use super::{default_block_threads, BuiltinScan, Pass, ScanParams};
use crate::algorithms::engine::{block_threads, Engine, Scratch, TileStatus};
use crate::ptx_families::SCAN_PTX;
use crate::{Device, Error, Input, LaunchConfig, Output, ProgramRef};
use coop::Kernel;
use std::sync::{Mutex, MutexGuard};

/// Device-wide inclusive and exclusive scans on one device: the built-in
/// ones ([`inclusive`](Self::inclusive), [`exclusive`](Self::exclusive))
/// and your own kernels ([`inclusive_with`](Self::inclusive_with),
/// [`exclusive_with`](Self::exclusive_with)); see the [module
/// docs](super).
///
/// ```
/// use coop::op;
/// use coop_host::{scan::Scanner, Device};
///
/// let device = Device::cpu(); // or Device::gpu_or_cpu()
/// let scanner = Scanner::new(&device)?;
/// let input = device.upload(&[3i64, -1, 4, 1, -5])?;
/// let mut out = device.zeros::<i64>(5)?;
/// scanner.inclusive(op::Max, &input, &mut out)?;
/// assert_eq!(device.download(&out)?, [3, 3, 4, 4, 4]);
/// scanner.exclusive(op::Sum, &input, &mut out)?;
/// assert_eq!(device.download(&out)?, [0, 3, 2, 6, 7]);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct Scanner {
    engine: Engine,
    state: Mutex<TileStates>,
    deterministic: bool,
    /// Threads a block; `None`: [`default_block_threads`] of the type.
    threads: Option<u32>,
}

/// The tiles' status words and values, kept between scans.
#[derive(Default)]
struct TileStates {
    /// Two status words a tile (`coop::device::scan::status_words`): the
    /// epoch of the scan that last wrote it, a flag, and 32 bits of a
    /// value.
    status: TileStatus,
    /// Two values a tile (aggregates, then inclusive prefixes), of the type
    /// of the scan at hand.
    partials: Scratch,
}

impl std::fmt::Debug for Scanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scanner")
            .field("device", &self.engine.describe())
            .field("deterministic", &self.deterministic)
            .field("threads", &self.threads)
            .finish()
    }
}

impl Scanner {
    /// Loads the built-in scan kernels on `device`.
    pub fn new(device: &Device) -> Result<Scanner, Error> {
        Ok(Scanner {
            engine: Engine::new(device, &SCAN_PTX)?,
            state: Mutex::default(),
            deterministic: false,
            threads: None,
        })
    }

    /// The same scanner, launching blocks of `threads` threads (a tile of
    /// `threads × items` elements, items from
    /// `coop::device::scan::items_per_thread`) instead of
    /// [`default_block_threads`] of the element type. Fails
    /// with [`Error::InvalidArgument`] unless `threads` is a multiple of 32
    /// from 64 to 512, on either backend: every built-in scan kernel runs
    /// blocks that large on a GPU (those of 8-byte types hold 90 to 95
    /// registers a thread, which would not allow 1024). A kernel of yours
    /// that holds more than 128 registers a thread may still be refused at
    /// launch on a GPU, with the limit it breaks. A deterministic
    /// scanner's results depend on `threads`: keep it the same where the
    /// bits must match.
    ///
    /// ```
    /// use coop_host::{scan::Scanner, Device, Error};
    /// let scanner = Scanner::new(&Device::cpu())?.with_block_threads(128)?;
    /// let mut out = vec![0u64; 3];
    /// scanner.inclusive(coop::op::Sum, &vec![1u64, 2, 3], &mut out)?;
    /// assert_eq!(out, [1, 3, 6]);
    /// let err = Scanner::new(&Device::cpu())?.with_block_threads(100).unwrap_err();
    /// assert!(matches!(err, Error::InvalidArgument { .. }));
    /// assert!(Scanner::new(&Device::cpu())?.with_block_threads(1024).is_err());
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_block_threads(mut self, threads: u32) -> Result<Self, Error> {
        let threads = block_threads("Scanner::with_block_threads", threads, "a scan's block")?;
        self.threads = Some(threads);
        Ok(self)
    }

    /// The same scanner, combining the tiles before each tile one after
    /// another in tile order, so that its results have the same bits on
    /// every GPU and on the CPU backend, run after run (floating-point sums
    /// included); still one pass over the input. See the [module
    /// docs](super).
    ///
    /// ```
    /// use coop::op;
    /// use coop_host::{scan::Scanner, Device};
    ///
    /// let device = Device::cpu();
    /// let scanner = Scanner::new(&device)?.deterministic();
    /// let input: Vec<f32> = (0..10_000).map(|i| 1.0 / (1.0 + i as f32)).collect();
    /// let mut once = vec![0f32; input.len()];
    /// let mut again = vec![0f32; input.len()];
    /// scanner.inclusive(op::Sum, &input, &mut once)?;
    /// scanner.inclusive(op::Sum, &input, &mut again)?;
    /// assert_eq!(once, again);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn deterministic(mut self) -> Self {
        self.deterministic = true;
        self
    }

    /// Whether this scanner runs the deterministic pass.
    pub fn is_deterministic(&self) -> bool {
        self.deterministic
    }

    /// `output[i] = input[0] op input[1] op ... op input[i]`, with a
    /// built-in kernel. `output` must be as long as `input`. On a GPU the
    /// call returns once the scan is queued: download `output` (or
    /// synchronize) to wait for it.
    pub fn inclusive<'a, 'b, O, T: BuiltinScan<O>>(
        &self,
        _op: O,
        input: impl Into<Input<'a, T>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<(), Error> {
        self.run(
            ProgramRef::Own,
            T::KERNEL,
            input.into(),
            output.into(),
            false,
            Front::None,
            "Scanner::inclusive",
        )
    }

    /// `output[i] = input[0] op ... op input[i - 1]`, and the operator's
    /// identity at 0, with a built-in kernel; as
    /// [`inclusive`](Self::inclusive) otherwise.
    pub fn exclusive<'a, 'b, O, T: BuiltinScan<O>>(
        &self,
        _op: O,
        input: impl Into<Input<'a, T>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<(), Error> {
        self.run(
            ProgramRef::Own,
            T::KERNEL,
            input.into(),
            output.into(),
            true,
            Front::None,
            "Scanner::exclusive",
        )
    }

    /// `output[i] = init op input[0] op ... op input[i]`: an inclusive scan
    /// with `init` in front of the first element (CUB's
    /// `InclusiveScanInit`), with a built-in kernel; as
    /// [`inclusive`](Self::inclusive) otherwise.
    ///
    /// ```
    /// use coop::op;
    /// use coop_host::{scan::Scanner, Device};
    ///
    /// let device = Device::cpu(); // or Device::gpu_or_cpu()
    /// let scanner = Scanner::new(&device)?;
    /// let mut out = vec![0i32; 4];
    /// scanner.inclusive_from(op::Sum, 100, &vec![1, 2, 3, 4], &mut out)?;
    /// assert_eq!(out, [101, 103, 106, 110]);
    /// scanner.inclusive_from(op::Min, 2, &vec![5, 1, 7, 0], &mut out)?;
    /// assert_eq!(out, [2, 1, 1, 0]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn inclusive_from<'a, 'b, O, T: BuiltinScan<O>>(
        &self,
        _op: O,
        init: T,
        input: impl Into<Input<'a, T>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<(), Error> {
        self.run(
            ProgramRef::Own,
            T::KERNEL,
            input.into(),
            output.into(),
            false,
            Front::Host(init),
            "Scanner::inclusive_from",
        )
    }

    /// `output[0] = init` and `output[i] = init op input[0] op ... op
    /// input[i - 1]`: an exclusive scan from `init` instead of the
    /// operator's identity (CUB's `ExclusiveScan` with an initial value),
    /// with a built-in kernel; as [`exclusive`](Self::exclusive) otherwise.
    ///
    /// ```
    /// use coop::op;
    /// use coop_host::{scan::Scanner, Device};
    ///
    /// let device = Device::cpu(); // or Device::gpu_or_cpu()
    /// let scanner = Scanner::new(&device)?;
    /// let sizes = device.upload(&[3u64, 0, 5, 2])?;
    /// let mut offsets = device.zeros::<u64>(4)?;
    /// scanner.exclusive_from(op::Sum, 1000, &sizes, &mut offsets)?;
    /// assert_eq!(device.download(&offsets)?, [1000, 1003, 1003, 1008]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn exclusive_from<'a, 'b, O, T: BuiltinScan<O>>(
        &self,
        _op: O,
        init: T,
        input: impl Into<Input<'a, T>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<(), Error> {
        self.run(
            ProgramRef::Own,
            T::KERNEL,
            input.into(),
            output.into(),
            true,
            Front::Host(init),
            "Scanner::exclusive_from",
        )
    }

    /// A built-in scan with the value `front` names in front of the first
    /// element, for the scans of [`multi`](crate::multi), whose front is a
    /// combination of other GPUs' totals that never crosses to the host.
    #[cfg(feature = "multi")]
    pub(crate) fn builtin_after<'a, 'b, O, T: BuiltinScan<O>>(
        &self,
        exclusive: bool,
        front: Front<'_, T>,
        input: Input<'a, T>,
        output: Output<'b, T>,
        call: &'static str,
    ) -> Result<(), Error> {
        self.run(
            ProgramRef::Own,
            T::KERNEL,
            input,
            output,
            exclusive,
            front,
            call,
        )
    }

    /// An inclusive scan with your own `kernel`, found in `program` (the
    /// [`Program`](crate::Program) or [`Module`](crate::Module) you loaded
    /// it with): a `#[kernel]` with the parameters of [`ScanParams`] that
    /// calls `coop::device::scan::scan` or `scan_scalar`.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::device::scan::scan_scalar;
    /// use coop_host::{scan::Scanner, Device};
    ///
    /// /// Composition of affine maps x -> a x + b: not commutative.
    /// #[derive(Clone, Copy, Debug, PartialEq, Shuffle, DeviceCopy)]
    /// #[repr(C)]
    /// pub struct Affine { pub a: i64, pub b: i64 }
    ///
    /// #[derive(Clone, Copy)]
    /// pub struct Then;
    /// impl op::Operator<Affine> for Then {
    ///     const COMMUTATIVE: bool = false;
    ///     fn combine(&self, f: Affine, g: Affine) -> Affine {
    ///         Affine { a: g.a.wrapping_mul(f.a), b: g.a.wrapping_mul(f.b).wrapping_add(g.b) }
    ///     }
    ///     fn identity(&self) -> Affine { Affine { a: 1, b: 0 } }
    /// }
    ///
    /// #[kernel]
    /// pub fn compose(block: ThreadBlock, input: &[Affine], output: Out<Affine>,
    ///                control: u32, status: Out<u64>, partials: Out<Affine>, epoch: u32) {
    ///     scan_scalar(block, input, output, Then, control, status, partials, epoch)
    /// }
    /// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("doc", &[]);
    ///
    /// let device = Device::cpu();
    /// let program = device.load(&PTX)?;
    /// let maps: Vec<Affine> = (0..5000).map(|i| Affine { a: 1 + i % 3, b: i % 7 - 3 }).collect();
    /// let mut out = vec![Affine { a: 0, b: 0 }; maps.len()];
    /// Scanner::new(&device)?.inclusive_with(&program, compose, &maps, &mut out)?;
    /// let mut acc = Affine { a: 1, b: 0 };
    /// for (m, o) in maps.iter().zip(&out) {
    ///     acc = op::Operator::combine(&Then, acc, *m);
    ///     assert_eq!(*o, acc);
    /// }
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn inclusive_with<'p, 'a, 'b, T, K>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: K,
        input: impl Into<Input<'a, T>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<(), Error>
    where
        T: coop::DeviceCopy,
        K: Kernel,
        K::Params: ScanParams<T>,
    {
        self.run(
            program.into(),
            kernel,
            input.into(),
            output.into(),
            false,
            Front::None,
            "Scanner::inclusive_with",
        )
    }

    /// An exclusive scan with your own `kernel`; as
    /// [`inclusive_with`](Self::inclusive_with) otherwise.
    pub fn exclusive_with<'p, 'a, 'b, T, K>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: K,
        input: impl Into<Input<'a, T>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<(), Error>
    where
        T: coop::DeviceCopy,
        K: Kernel,
        K::Params: ScanParams<T>,
    {
        self.run(
            program.into(),
            kernel,
            input.into(),
            output.into(),
            true,
            Front::None,
            "Scanner::exclusive_with",
        )
    }

    /// Waits until the scans queued on a GPU are done (nothing to wait for
    /// on the CPU backend).
    pub fn synchronize(&self) -> Result<(), Error> {
        self.engine.synchronize()
    }

    // Every argument is one of the scan's inputs; the public calls fix most.
    #[allow(clippy::too_many_arguments)]
    fn run<T, K>(
        &self,
        program: ProgramRef<'_>,
        kernel: K,
        input: Input<'_, T>,
        output: Output<'_, T>,
        exclusive: bool,
        front: Front<'_, T>,
        call: &'static str,
    ) -> Result<(), Error>
    where
        T: coop::DeviceCopy,
        K: Kernel,
        K::Params: ScanParams<T>,
    {
        if input.len() != output.len() {
            return Err(Error::InvalidArgument {
                call,
                problem: format!(
                    "the output holds {} elements and the input {}: a scan writes one \
                     element for each element it reads",
                    output.len(),
                    input.len()
                ),
            });
        }
        if input.is_empty() {
            return Ok(());
        }
        self.engine
            .check_arguments::<K>(&[input.on_gpu(), output.on_gpu()])?;
        let launcher = self.engine.resolve(program, call)?;
        let threads = self.threads.unwrap_or(default_block_threads::<T>());
        let pass = if self.deterministic {
            Pass::Ordered
        } else {
            Pass::Single
        };
        let tiles = coop::device::scan::tiles::<T>(input.len(), threads);
        // The values in front follow the tiles' values.
        let fronts = front.count();
        let slots = 2 * tiles + fronts;
        let mut state = self.lock();
        let TileStates { status, partials } = &mut *state;
        let epoch = status.next_epoch(&self.engine, 2 * tiles, "a scan's tile states")?;
        let mut status = status.all();
        let mut status = status.slice_mut(0..2 * tiles);
        partials.reserve(&self.engine, slots * std::mem::size_of::<T>(), 4096)?;
        // SAFETY: `typed` needs the values read through the view to be
        // valid `T`s: the kernels read a value only after a tile of the
        // same scan stored it (the status word's epoch says so), or the
        // value in front, which `place` stores first; the host never reads
        // them. `T: DeviceCopy` aligns to 16 at most.
        let mut all = unsafe { partials.typed::<T>() };
        let mut values = all.slice_mut(0..slots);
        let control = if fronts == 0 {
            0
        } else {
            front.place(&self.engine, &mut values.slice_mut(2 * tiles..slots))?;
            let count = u32::try_from(fronts)
                .ok()
                .filter(|&c| c < 1 << (32 - coop::device::scan::FRONTS_SHIFT))
                .ok_or_else(|| Error::InvalidArgument {
                    call,
                    problem: format!("{fronts} values in front of a scan; at most 2^28 fit"),
                })?;
            coop::device::scan::PREFIXED | count << coop::device::scan::FRONTS_SHIFT
        };
        let mut output = output;
        K::Params::launch(
            launcher,
            kernel,
            LaunchConfig::new(tiles as u32, threads)
                .with_shared_memory(coop::device::scan::shared_memory_bytes::<T>(threads)),
            (
                &input,
                &mut output,
                pass.control(exclusive) | control,
                &mut status,
                &mut values,
                epoch,
            ),
        )
    }

    fn lock(&self) -> MutexGuard<'_, TileStates> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What a scan puts in front of its first element.
pub(crate) enum Front<'a, T> {
    /// Nothing: the operator's identity.
    None,
    /// A value from the host.
    Host(T),
    /// The combination, in order, of the elements of a buffer on the
    /// scan's device (none: nothing in front), written by launches queued
    /// before the scan.
    #[cfg_attr(not(feature = "multi"), allow(dead_code))]
    Device(Input<'a, T>),
}

impl<T: coop::DeviceCopy> Front<'_, T> {
    /// How many values the scan combines in front of its first element.
    fn count(&self) -> usize {
        match self {
            Front::None => 0,
            Front::Host(_) => 1,
            Front::Device(input) => input.len(),
        }
    }

    /// Stores the values in `slot` (as many elements), in order with the
    /// launches before and after it.
    fn place(&self, engine: &Engine, slot: &mut Output<'_, T>) -> Result<(), Error> {
        const WHAT: &str = "the value in front of a scan";
        match (self, engine.device(), &mut *slot) {
            (Front::None, ..) => Ok(()),
            (Front::Host(value), Device::Gpu(gpu), Output::Gpu(view)) => gpu
                .stream()
                .memcpy_htod(std::slice::from_ref(value), view)
                .map_err(gpu.error(format!("copying {WHAT}"))),
            (Front::Host(value), ..) => {
                engine.copy(&Input::Cpu(std::slice::from_ref(value)), slot, WHAT)
            }
            (Front::Device(input), ..) => engine.copy(input, slot, WHAT),
        }
    }
}
