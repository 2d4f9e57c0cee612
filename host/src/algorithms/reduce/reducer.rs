//! [`Reducer`]: device-wide reductions on one device, keeping the loaded
//! kernels, the grid settings and the scratch between calls.

use super::ordered::{self, OrderedMap};
use super::plan::{Sizing, Strategy, THREADS};
use super::{Builtin, BuiltinCount, BuiltinMap, Input, MapReductionParams, ReductionParams};
use crate::algorithms::engine::{Engine, Scratch};
use crate::gpu::Landing;
use crate::ptx_families::REDUCE_PTX;
use crate::{Buffer, Device, Error, LaunchConfig, Launcher, Module, Output, ProgramRef};
use coop::device::map::{Abs, CountIf, Square, WithIndex};
use coop::op::{Arg, ArgMax, ArgMin, Max, Min, Sum};
use coop::Kernel;
use std::any::TypeId;
use std::sync::{Mutex, MutexGuard};

/// Device-wide reductions on one device, keeping the loaded kernels and the
/// scratch for partial results between calls.
pub struct Reducer {
    engine: Engine,
    slots: Mutex<Slots>,
    sizing: Sizing,
    deterministic: bool,
}

/// Memory kept between reductions: slots for the blocks' results and, in
/// the last slot, the total; the one-launch kernels' ticket counter; and
/// the type of the total the last reduction left.
#[derive(Default)]
struct Slots {
    /// Slots of the reduced type, at least 16 bytes a block plus the final
    /// slot; it only grows.
    slots: Scratch,
    /// The counter of [`Strategy::OneLaunch`]: zero between launches.
    tickets: Option<Buffer<u32>>,
    /// The type of the value in the final slot, once a reduction's
    /// launches are queued; `None` while they are not.
    total: Option<(TypeId, &'static str)>,
    /// On a GPU: page-locked host memory the total is copied into.
    landing: Option<Landing>,
    /// Whether the copy of the current total into `landing` is queued.
    landed: bool,
}

impl std::fmt::Debug for Reducer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reducer")
            .field("device", &self.engine.describe())
            .field("blocks_per_sm", &self.sizing.blocks_per_sm)
            .field("tiles_per_block", &self.sizing.tiles_per_block)
            .field("deterministic", &self.deterministic)
            .finish()
    }
}

impl Reducer {
    /// Loads the built-in reduction kernels on `device`.
    pub fn new(device: &Device) -> Result<Reducer, Error> {
        Ok(Reducer {
            engine: Engine::new(device, &REDUCE_PTX)?,
            slots: Mutex::default(),
            sizing: Sizing::default(),
            deterministic: false,
        })
    }

    /// The same reducer, computing float sums ([`sum`](Self::sum),
    /// [`sum_abs`](Self::sum_abs), [`sum_squares`](Self::sum_squares) of
    /// `f32` and `f64`) in an order fixed by the input's length alone, so
    /// that they have the same bits on every GPU, on the CPU backend, and
    /// from run to run (`coop::device::reduce::reduce_ordered_grid`: one
    /// launch of `ceil(n / 4096)` blocks, at most 4096, whose last block
    /// to finish reduces the blocks' results in a fixed order). Other
    /// results are exact, so already the same everywhere; a user kernel's
    /// order is the kernel's.
    ///
    /// ```
    /// use coop_host::{reduce::Reducer, Device};
    ///
    /// let device = Device::cpu();
    /// let reducer = Reducer::new(&device)?.deterministic();
    /// let data: Vec<f32> = (0..100_000).map(|i| ((i * 7919) % 1000) as f32 * 1e-3).collect();
    /// let once = reducer.sum(&data)?;
    /// // A view that starts elsewhere in memory gives the same bits.
    /// let copy = data.clone();
    /// assert_eq!(reducer.sum(&copy)?.to_bits(), once.to_bits());
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn deterministic(mut self) -> Self {
        self.deterministic = true;
        self
    }

    /// The engine the reducer launches on.
    pub(super) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Whether float sums are deterministic (see
    /// [`deterministic`](Self::deterministic)).
    pub fn is_deterministic(&self) -> bool {
        self.deterministic
    }

    /// The same reducer launching at most `blocks` blocks per
    /// multiprocessor (at least 1) in its first pass; the default is
    /// [`DEFAULT_BLOCKS_PER_SM`](super::DEFAULT_BLOCKS_PER_SM).
    pub fn with_blocks_per_sm(mut self, blocks: u32) -> Self {
        self.sizing.blocks_per_sm = blocks.max(1);
        self
    }

    /// The same reducer giving each block of its first pass at least
    /// `tiles` tiles (at least 1) once every multiprocessor has a wave of
    /// blocks (as many as it runs at once); the default is
    /// [`MIN_TILES_PER_BLOCK`](super::MIN_TILES_PER_BLOCK). More tiles a block make fewer, longer
    /// blocks.
    pub fn with_tiles_per_block(mut self, tiles: usize) -> Self {
        self.sizing.tiles_per_block = tiles.max(1);
        self
    }

    /// The sum (integers wrap).
    pub fn sum<'a, T: Builtin<Sum>>(&self, input: impl Into<Input<'a, T>>) -> Result<T, Error> {
        let input = input.into();
        if self.deterministic {
            if let Some(total) = ordered::sum(self, &input, OrderedMap::Identity) {
                return total;
            }
        }
        // SAFETY: `run` needs a kernel that stores its reduction and a `T`
        // valid as all-zero bytes: `T::KERNEL` is a built-in kernel, which
        // calls `reduce_grid`, and `Builtin` requires `DeviceCopy` (valid as zeros).
        unsafe { self.run(ProgramRef::Own, T::KERNEL, input) }
    }

    /// The minimum (floats: NaN-ignoring); for no input, the type's maximum
    /// (integers) or NaN (floats).
    pub fn min<'a, T: Builtin<Min>>(&self, input: impl Into<Input<'a, T>>) -> Result<T, Error> {
        // SAFETY: as in `sum`: a built-in kernel and a `Builtin` type.
        unsafe { self.run(ProgramRef::Own, T::KERNEL, input.into()) }
    }

    /// The maximum (floats: NaN-ignoring); for no input, the type's minimum
    /// (integers) or NaN (floats).
    pub fn max<'a, T: Builtin<Max>>(&self, input: impl Into<Input<'a, T>>) -> Result<T, Error> {
        // SAFETY: as in `sum`: a built-in kernel and a `Builtin` type.
        unsafe { self.run(ProgramRef::Own, T::KERNEL, input.into()) }
    }

    /// Reduces `input` with your own `kernel`, found in `program` (the
    /// [`Program`](crate::Program) or [`Module`] you loaded it with): a
    /// `#[kernel]` taking `(input, partials)` that calls
    /// `coop::device::reduce::reduce_blocks` (two launches), or one taking
    /// `(input, partials, tickets)` that calls `reduce_grid` (one launch
    /// when the grid is one wave, as the built-in kernels); see
    /// [`ReductionParams`].
    ///
    /// `T` is plain data: a `Shuffle` type, for which all-zero bytes are a
    /// valid value.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::device::reduce::reduce_grid_scalar;
    /// use coop_host::{reduce::Reducer, Device};
    ///
    /// /// Bitwise OR of 64-bit masks, a user operator through a closure.
    /// #[kernel]
    /// pub fn any_bits(block: ThreadBlock, input: &[u64], partials: Out<u64>, tickets: Out<u32>) {
    ///     let or = op::from_fn(0u64, |a, b| a | b).commutative();
    ///     reduce_grid_scalar(block, input, or, partials, tickets)
    /// }
    /// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("doc", &[]);
    ///
    /// let device = Device::cpu();
    /// let program = device.load(&PTX)?;
    /// let masks: Vec<u64> = (0..5000).map(|i| 1 << (i % 40)).collect();
    /// let all = Reducer::new(&device)?.reduce_with(&program, any_bits, &masks)?;
    /// assert_eq!(all, (1 << 40) - 1);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn reduce_with<'p, 'a, T, K>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: K,
        input: impl Into<Input<'a, T>>,
    ) -> Result<T, Error>
    where
        T: coop::Shuffle + 'static,
        K: Kernel,
        K::Params: ReductionParams<T>,
    {
        // SAFETY: `run` needs a kernel that stores its reduction and a `T`
        // valid as all-zero bytes: this function's documented requirements,
        // which the types do not check. `Shuffle` types are plain data (the
        // primitives, `bool`, `char`, and arrays and `#[derive(Shuffle)]`
        // structs of them, all valid as zeros; a hand-written `Shuffle`
        // impl is not held to it), and a kernel with these parameters is
        // one that calls `reduce_blocks` or `reduce_grid` only by the
        // caller's word.
        unsafe { self.run(program.into(), kernel, input.into()) }
    }

    /// The sum of the absolute values (the L1 norm; integers wrap, and
    /// `|MIN|` is `MIN`), in one launch without storing the absolute values.
    /// Deterministic for floats on a [`deterministic`](Self::deterministic)
    /// reducer.
    ///
    /// ```
    /// use coop_host::{reduce::Reducer, Device};
    /// let reducer = Reducer::new(&Device::cpu())?;
    /// assert_eq!(reducer.sum_abs(&vec![-1.5f32, 2.0, -0.5])?, 4.0);
    /// assert_eq!(reducer.max_abs(&vec![3i64, -9, 4])?, 9);
    /// assert_eq!(reducer.sum_squares(&vec![3u32, 4])?, 25);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn sum_abs<'a, T: BuiltinMap<Abs, Sum, Output = T>>(
        &self,
        input: impl Into<Input<'a, T>>,
    ) -> Result<T, Error> {
        let input = input.into();
        if self.deterministic {
            if let Some(total) = ordered::sum(self, &input, OrderedMap::Abs) {
                return total;
            }
        }
        self.builtin_map::<Abs, Sum, T>(input)
    }

    /// The largest absolute value (the infinity norm; NaN-ignoring for
    /// floats). For no input, [`Max`]'s identity, as [`max`](Self::max)
    /// gives: the type's minimum, or NaN.
    pub fn max_abs<'a, T: BuiltinMap<Abs, Max, Output = T>>(
        &self,
        input: impl Into<Input<'a, T>>,
    ) -> Result<T, Error> {
        self.builtin_map::<Abs, Max, T>(input.into())
    }

    /// The sum of the squares (the squared L2 norm; integers wrap).
    /// Deterministic for floats on a [`deterministic`](Self::deterministic)
    /// reducer.
    pub fn sum_squares<'a, T: BuiltinMap<Square, Sum, Output = T>>(
        &self,
        input: impl Into<Input<'a, T>>,
    ) -> Result<T, Error> {
        let input = input.into();
        if self.deterministic {
            if let Some(total) = ordered::sum(self, &input, OrderedMap::Square) {
                return total;
            }
        }
        self.builtin_map::<Square, Sum, T>(input)
    }

    /// The index and value of the largest element, `None` for no input.
    /// Of equal values the first wins; NaN loses to every number (the
    /// result is NaN only when every element is, and then the first).
    /// One launch over the input, reading each element once.
    ///
    /// ```
    /// use coop_host::{reduce::Reducer, Device};
    /// let reducer = Reducer::new(&Device::cpu())?;
    /// let data = vec![2.0f32, f32::NAN, 7.5, -1.0, 7.5];
    /// assert_eq!(reducer.arg_max(&data)?, Some((2, 7.5)));
    /// assert_eq!(reducer.arg_min(&data)?, Some((3, -1.0)));
    /// assert_eq!(reducer.arg_max(&Vec::<i32>::new())?, None);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[doc(alias = "ArgMax")]
    pub fn arg_max<'a, T: BuiltinMap<WithIndex, ArgMax, Output = Arg<T>>>(
        &self,
        input: impl Into<Input<'a, T>>,
    ) -> Result<Option<(usize, T)>, Error> {
        let input = input.into();
        let empty = input.is_empty();
        let best = self.builtin_map::<WithIndex, ArgMax, T>(input)?;
        Ok((!empty).then_some((best.index(), best.value)))
    }

    /// The index and value of the smallest element; as
    /// [`arg_max`](Self::arg_max) otherwise.
    #[doc(alias = "ArgMin")]
    pub fn arg_min<'a, T: BuiltinMap<WithIndex, ArgMin, Output = Arg<T>>>(
        &self,
        input: impl Into<Input<'a, T>>,
    ) -> Result<Option<(usize, T)>, Error> {
        let input = input.into();
        let empty = input.is_empty();
        let best = self.builtin_map::<WithIndex, ArgMin, T>(input)?;
        Ok((!empty).then_some((best.index(), best.value)))
    }

    /// How many elements compare with the threshold as `test` says (a NaN
    /// compares false, so counts only under `NotEqual` and `IsNan`).
    ///
    /// ```
    /// use coop::device::map::CountIf;
    /// use coop_host::{reduce::Reducer, Device};
    /// let reducer = Reducer::new(&Device::cpu())?;
    /// let data = vec![0.5f64, -2.0, 3.0, f64::NAN, 0.0];
    /// assert_eq!(reducer.count_if(&data, CountIf::greater(0.0))?, 2);
    /// assert_eq!(reducer.count_if(&data, CountIf::nan())?, 1);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn count_if<'a, T: BuiltinCount>(
        &self,
        input: impl Into<Input<'a, T>>,
        test: CountIf<T>,
    ) -> Result<u64, Error> {
        let input = input.into();
        let (code, threshold) = (test.compare as u32, test.threshold);
        let kernel = T::KERNEL;
        self.engine
            .check_arguments::<T::Kernel>(&[input.on_gpu()])?;
        let launcher = self.engine.family(&crate::ptx_families::TRANSFORM_PTX)?;
        // SAFETY: the count kernel calls `reduce_grid_map`, which stores its
        // total, a `u64`, in the last slot.
        unsafe {
            self.one_launch::<T, u64, _>(
                launcher,
                kernel,
                input.len(),
                |blocks, partials, tickets| {
                    launcher.launch(
                        kernel,
                        LaunchConfig::new(blocks, THREADS),
                        (&input, code, threshold, partials, tickets),
                    )
                },
            )
        }
    }

    /// A transform-reduction with your own `kernel`, found in `program`: a
    /// `#[kernel]` taking `(input: &[T], partials: Out<U>, tickets:
    /// Out<u32>)` that calls `coop::device::reduce::reduce_grid_map` (or
    /// `_scalar`), `U` its map's output. One launch, whatever the input's
    /// length: a grid of at most one wave, each block taking as many tiles
    /// as it needs, the last block to finish reducing the blocks' results.
    ///
    /// `U` is plain data: a `Shuffle` type, for which all-zero bytes are a
    /// valid value.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::device::reduce::reduce_grid_map;
    /// use coop::device::map;
    /// use coop_host::{reduce::Reducer, Device};
    ///
    /// /// How many elements are out of place in what should be 0, 1, 2, ...
    /// #[kernel]
    /// pub fn misplaced(block: ThreadBlock, input: &[u32], partials: Out<u64>, tickets: Out<u32>) {
    ///     let wrong = map::from_fn(|i: usize, x: u32| (x as usize != i) as u64);
    ///     reduce_grid_map(block, input, wrong, op::Sum, partials, tickets)
    /// }
    /// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("doc", &[]);
    ///
    /// let device = Device::cpu();
    /// let program = device.load(&PTX)?;
    /// let mut data: Vec<u32> = (0..20_000).collect();
    /// data.swap(10, 19_999);
    /// let reducer = Reducer::new(&device)?;
    /// assert_eq!(reducer.transform_reduce_with(&program, misplaced, &data)?, 2);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn transform_reduce_with<'p, 'a, T, U, K>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: K,
        input: impl Into<Input<'a, T>>,
    ) -> Result<U, Error>
    where
        T: 'static,
        U: coop::Shuffle + 'static,
        K: Kernel,
        K::Params: MapReductionParams<T, U>,
    {
        // SAFETY: the kernel stores its total, a valid `U`, in the last
        // slot and all-zero bytes are a valid `U`: this function's
        // documented requirements (see `reduce_with`).
        unsafe {
            self.map_run::<T, U, K>(
                program.into(),
                kernel,
                input.into(),
                "Reducer::transform_reduce_with",
            )
        }
    }

    /// A built-in transform-reduction.
    fn builtin_map<M, O, T: BuiltinMap<M, O>>(
        &self,
        input: Input<'_, T>,
    ) -> Result<T::Output, Error> {
        self.engine
            .check_arguments::<T::Kernel>(&[input.on_gpu()])?;
        let launcher = self.engine.family(T::PTX)?;
        let kernel = T::KERNEL;
        // SAFETY: built-in kernels call `reduce_grid_map`, which stores its
        // total in the last slot; their outputs (the primitives and
        // `Arg`s of them) are valid as all-zero bytes.
        unsafe {
            self.one_launch::<T, T::Output, _>(launcher, kernel, input.len(), |blocks, p, t| {
                <T::Kernel as Kernel>::Params::launch(launcher, kernel, blocks, &input, p, t)
            })
        }
    }

    /// Runs a one-launch transform-reduction kernel.
    ///
    /// # Safety
    ///
    /// `kernel` stores its total, a valid `U`, in the last of its
    /// `partials`, and all-zero bytes are a valid `U`.
    unsafe fn map_run<T: 'static, U: Copy + 'static, K: Kernel>(
        &self,
        program: ProgramRef<'_>,
        kernel: K,
        input: Input<'_, T>,
        call: &'static str,
    ) -> Result<U, Error>
    where
        K::Params: MapReductionParams<T, U>,
    {
        self.engine.check_arguments::<K>(&[input.on_gpu()])?;
        let launcher = self.engine.resolve(program, call)?;
        // SAFETY: the caller's promise.
        unsafe {
            self.one_launch::<T, U, K>(
                launcher,
                kernel,
                input.len(),
                |blocks, partials, tickets| {
                    K::Params::launch(launcher, kernel, blocks, &input, partials, tickets)
                },
            )
        }
    }

    /// Starts the reduction of `input` with the built-in kernel for `O`
    /// without waiting for it; [`result`](Self::result) reads the value.
    /// For pipelines and timing: a GPU's launches are asynchronous (on the
    /// CPU backend the launches run at once, and `result` reads what they
    /// left).
    ///
    /// ```
    /// use coop::op::Sum;
    /// use coop_host::{reduce::Reducer, Device};
    /// let device = Device::cpu(); // or Device::gpu_or_cpu()
    /// let reducer = Reducer::new(&device)?;
    /// let data = device.upload(&[1.5f32, 2.5, 4.0])?;
    /// reducer.enqueue::<Sum, f32>(&data)?;
    /// // ... other work, on the host or queued on the GPU ...
    /// assert_eq!(reducer.result::<f32>()?, 8.0);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn enqueue<'a, O, T: Builtin<O>>(
        &self,
        input: impl Into<Input<'a, T>>,
    ) -> Result<(), Error> {
        // SAFETY: `queue` needs a kernel that stores its reduction:
        // `T::KERNEL` is a built-in kernel, which calls `reduce_grid`.
        unsafe {
            self.queue(
                ProgramRef::Own,
                T::KERNEL,
                &input.into(),
                "Reducer::enqueue",
            )
        }
    }

    /// The result of the last [`enqueue`](Self::enqueue)d reduction, once
    /// it has finished (this waits for it). `T` must be the type that
    /// reduction was of.
    ///
    /// Fails with [`Error::Unavailable`] when nothing has been enqueued, or
    /// when the last reduction was of another type.
    pub fn result<T: Builtin<Sum>>(&self) -> Result<T, Error> {
        // SAFETY: `total` needs every reduction queued on the reducer to
        // have had a kernel that stores its reduction. They were queued by
        // `sum`, `min`, `max`, `enqueue` (built-in kernels, which do) and
        // `reduce_with` (whose caller's kernel does).
        unsafe { self.total::<T>(&mut self.lock()) }
    }

    /// The same reducer running the built-in kernels of `module` instead of
    /// the ones coop-host ships: a build of `coop-host-kernels` of your own
    /// (other flags, another target, a variant of its PTX), loaded on this
    /// reducer's GPU. The module must have every built-in kernel a call
    /// asks for, or that call fails with [`Error::KernelNotFound`].
    ///
    /// Fails with [`Error::Unavailable`] on the CPU backend, which runs the
    /// kernels' Rust code and loads no module, and when `module` was
    /// loaded on another GPU.
    pub fn with_module(mut self, module: Module) -> Result<Self, Error> {
        self.engine.set_own(module, "Reducer::with_module")?;
        Ok(self)
    }

    /// Reduces `input` with `kernel` (from `module`, or the reducer's own)
    /// on the reducer's backend.
    ///
    /// # Safety
    ///
    /// `kernel` must store the reduction of its input, a valid `T`, in its
    /// `partials` as `coop::device::reduce::reduce_grid` and `reduce_blocks`
    /// do, and all-zero bytes must be a valid `T`.
    unsafe fn run<T, K>(
        &self,
        program: ProgramRef<'_>,
        kernel: K,
        input: Input<'_, T>,
    ) -> Result<T, Error>
    where
        T: Copy + 'static,
        K: Kernel,
        K::Params: ReductionParams<T>,
    {
        let mut slots = self.lock();
        // SAFETY: the caller's promise, which `total` needs too; the slots
        // stay locked in between.
        unsafe {
            self.queue_locked(&mut slots, program, kernel, &input, "Reducer::reduce_with")?;
            self.total::<T>(&mut slots)
        }
    }

    /// Queues the reduction of `input` with `kernel` without waiting for
    /// it; [`total`](Self::total) reads the result.
    ///
    /// # Safety
    ///
    /// As for [`run`](Self::run).
    pub(crate) unsafe fn queue<T, K>(
        &self,
        program: ProgramRef<'_>,
        kernel: K,
        input: &Input<'_, T>,
        call: &'static str,
    ) -> Result<(), Error>
    where
        T: Copy + 'static,
        K: Kernel,
        K::Params: ReductionParams<T>,
    {
        // SAFETY: the caller's promise.
        unsafe { self.queue_locked(&mut self.lock(), program, kernel, input, call) }
    }

    /// Queues the launches of the reduction of `input` with `kernel`
    /// (from `program`, or the reducer's own), following the plan, into
    /// `slots`.
    ///
    /// # Safety
    ///
    /// As for [`run`](Self::run).
    unsafe fn queue_locked<T, K>(
        &self,
        slots: &mut Slots,
        program: ProgramRef<'_>,
        kernel: K,
        input: &Input<'_, T>,
        call: &'static str,
    ) -> Result<(), Error>
    where
        T: Copy + 'static,
        K: Kernel,
        K::Params: ReductionParams<T>,
    {
        self.engine.check_arguments::<K>(&[input.on_gpu()])?;
        let launcher = self.engine.resolve(program, call)?;
        let plan = self.sizing.plan::<T>(
            input.len(),
            launcher.multiprocessors(),
            launcher.resident_blocks(kernel, THREADS, 0)?,
            K::Params::TICKETS,
        );
        let blocks = plan.blocks as usize;
        let size = std::mem::size_of::<T>();
        slots.reserve(&self.engine, (blocks + 1) * size.max(16))?;
        let Slots {
            slots: scratch,
            tickets,
            total,
            ..
        } = slots;
        let tickets = tickets.as_mut().expect("allocated by reserve");
        let mut tickets = Output::from(tickets);
        // SAFETY: `typed` needs the values read as `T` through the view to
        // be valid `T`s. Through it only the kernels read the slots, and
        // only those a block of the same reduction stored first; the host
        // reads the final slot in `total`, under that function's
        // precondition (this function's caller's promise).
        let mut all = unsafe { scratch.typed::<T>() };
        let count = all.len();
        let launched = match plan.strategy {
            Strategy::OneLaunch => {
                // The blocks' results, then the final slot, where the last
                // block stores the total.
                let mut span = all.slice_mut(count - 1 - blocks..count);
                K::Params::launch(
                    launcher,
                    kernel,
                    plan.blocks,
                    input,
                    &mut span,
                    &mut tickets.slice_mut(0..1),
                )
            }
            Strategy::OneBlock => {
                let mut total = all.slice_mut(count - 1..count);
                K::Params::launch(
                    launcher,
                    kernel,
                    1,
                    input,
                    &mut total,
                    &mut tickets.slice_mut(0..0),
                )
            }
            Strategy::TwoLaunches => {
                let (mut partials, mut total) = all.split_at_mut(count - 1);
                let mut partials = partials.slice_mut(0..blocks);
                // No tickets: `reduce_grid` does the first of two launches.
                let mut no_tickets = tickets.slice_mut(0..0);
                K::Params::launch(
                    launcher,
                    kernel,
                    plan.blocks,
                    input,
                    &mut partials,
                    &mut no_tickets,
                )
                .and_then(|()| {
                    K::Params::launch(
                        launcher,
                        kernel,
                        1,
                        &partials.as_input(),
                        &mut total,
                        &mut no_tickets,
                    )
                })
            }
        };
        if launched.is_err() {
            // A launch that failed part of the way (a rule broken on the
            // CPU backend) may leave the counter taken: the next reduction
            // starts from zero.
            let _ = self
                .engine
                .clear(&mut tickets, "a reduction's ticket counter");
        }
        launched?;
        *total = Some((TypeId::of::<T>(), std::any::type_name::<T>()));
        Ok(())
    }

    /// Runs a reduction that finishes in one launch (a transform-reduction)
    /// over `len` elements of `T` with `kernel` from `launcher`: `launch`
    /// queues it over the blocks it is given, into the partial results'
    /// slots and the ticket counter; returns the total, a `U`, once the
    /// launch has finished.
    ///
    /// # Safety
    ///
    /// What `launch` queues must store a valid `U` in the last of the slots
    /// it is given, as `coop::device::reduce::reduce_grid_map` does.
    unsafe fn one_launch<T, U: Copy + 'static, K: Kernel>(
        &self,
        launcher: Launcher<'_>,
        kernel: K,
        len: usize,
        launch: impl FnOnce(u32, &mut Output<'_, U>, &mut Output<'_, u32>) -> Result<(), Error>,
    ) -> Result<U, Error> {
        let resident = launcher.resident_blocks(kernel, THREADS, 0)?;
        let blocks = self
            .sizing
            .one_wave::<T>(len, launcher.multiprocessors(), resident);
        // SAFETY: the caller's promise.
        unsafe { self.finish_in_one_launch(blocks, launch) }
    }

    /// [`one_launch`](Self::one_launch) over `blocks` blocks.
    ///
    /// # Safety
    ///
    /// As for [`one_launch`](Self::one_launch).
    pub(super) unsafe fn finish_in_one_launch<U: Copy + 'static>(
        &self,
        blocks: u32,
        launch: impl FnOnce(u32, &mut Output<'_, U>, &mut Output<'_, u32>) -> Result<(), Error>,
    ) -> Result<U, Error> {
        let size = std::mem::size_of::<U>();
        let mut slots = self.lock();
        slots.reserve(&self.engine, (blocks as usize + 1) * size.max(16))?;
        let Slots {
            slots: scratch,
            tickets,
            total,
            ..
        } = &mut *slots;
        let mut tickets = Output::from(tickets.as_mut().expect("allocated by reserve"));
        // SAFETY: as in `queue_locked`: the kernels read only slots a block
        // of the same launch stored first, and the host reads the final
        // slot under this function's precondition.
        let mut all = unsafe { scratch.typed::<U>() };
        let count = all.len();
        let mut span = all.slice_mut(count - 1 - blocks as usize..count);
        let launched = launch(blocks, &mut span, &mut tickets.slice_mut(0..1));
        if launched.is_err() {
            let _ = self
                .engine
                .clear(&mut tickets, "a reduction's ticket counter");
        }
        launched?;
        *total = Some((TypeId::of::<U>(), std::any::type_name::<U>()));
        // SAFETY: the launch just queued stores a valid `U` in the final
        // slot (this function's precondition).
        unsafe { self.total::<U>(&mut slots) }
    }

    /// The value in the final slot as a `T`, once the launches before have
    /// finished. Fails with [`Error::Unavailable`] when no reduction has
    /// been queued, or the last was of another type.
    ///
    /// # Safety
    ///
    /// The kernel of the last reduction queued must have stored a valid
    /// value of its type in the final slot.
    unsafe fn total<T: Copy + 'static>(&self, slots: &mut Slots) -> Result<T, Error> {
        // SAFETY: the caller's promise.
        unsafe { self.land::<T>(slots)? };
        self.engine.synchronize()?;
        // SAFETY: as for `land`; the copy it queued has finished.
        unsafe { slots.landed::<T>() }
    }

    /// On a GPU, queues the copy of the final slot, a `T`, into the
    /// page-locked landing (without waiting); on the CPU backend, nothing.
    /// Fails as [`total`](Self::total) does when no reduction of `T` was
    /// queued last.
    ///
    /// # Safety
    ///
    /// As for [`total`](Self::total).
    unsafe fn land<T: Copy + 'static>(&self, slots: &mut Slots) -> Result<(), Error> {
        slots.check_total::<T>()?;
        let size = std::mem::size_of::<T>();
        if let Device::Gpu(gpu) = self.engine.device() {
            // A landing of exactly one `T`: a copy fills all of it.
            if slots.landing.as_ref().is_none_or(|l| l.len() != size) {
                slots.landing = Some(gpu.landing(size)?);
            }
            // SAFETY: the final slot holds a valid `T`: the last reduction
            // was of `T` (checked above) and stored it (the caller's
            // promise).
            let all = unsafe { slots.slots.typed::<T>() };
            let count = all.len();
            let Input::Gpu(last) = all.as_input().slice(count - 1..count) else {
                unreachable!("a GPU's reducer keeps its slots on the GPU")
            };
            // SAFETY: `transmute` needs the memory read as `u8`s to be valid
            // `u8`s: any bytes are.
            let bytes = unsafe { last.transmute::<u8>(size) }.expect("one element");
            let landing = slots.landing.as_mut().expect("allocated above");
            gpu.queue_landing(&bytes, landing)?;
        }
        slots.landed = true;
        Ok(())
    }

    fn lock(&self) -> MutexGuard<'_, Slots> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Slots {
    /// Makes room for `bytes` of slots and the ticket counter, and forgets
    /// the total: until the next launches are queued, the final slot holds
    /// nothing [`Reducer::total`] may read.
    fn reserve(&mut self, engine: &Engine, bytes: usize) -> Result<(), Error> {
        self.total = None;
        self.landed = false;
        self.slots.reserve(engine, bytes, 4096)?;
        if self.tickets.is_none() {
            self.tickets = Some(engine.zeros::<u32>(1)?);
        }
        Ok(())
    }

    /// The total [`Reducer::land`] copied, once the work queued on the
    /// device before has finished (the caller waited for it).
    ///
    /// # Safety
    ///
    /// As for [`Reducer::total`].
    unsafe fn landed<T: Copy + 'static>(&mut self) -> Result<T, Error> {
        self.check_total::<T>()?;
        if !self.landed {
            return Err(Error::Unavailable {
                call: "Reducer::result",
                reason: "the total was not copied to the host".into(),
            });
        }
        match &self.landing {
            Some(landing) => {
                let bytes = landing.bytes()?;
                // SAFETY: `read_unaligned` needs `size` readable bytes that
                // make a valid `T`: copied from the final slot, where the
                // caller's promise puts one.
                Ok(unsafe { std::ptr::read_unaligned(bytes.as_ptr() as *const T) })
            }
            None => {
                // SAFETY: the final slot holds a valid `T` (the caller's
                // promise; its type was checked above).
                let all = unsafe { self.slots.typed::<T>() };
                let count = all.len();
                match all.as_input().slice(count - 1..count) {
                    Input::Cpu(last) => Ok(last[0]),
                    Input::Gpu(_) => unreachable!("a GPU's total is landed"),
                }
            }
        }
    }

    /// Fails with [`Error::Unavailable`] when no reduction has been queued,
    /// or the last was of another type than `T`.
    fn check_total<T: 'static>(&self) -> Result<(), Error> {
        let Some((type_id, name)) = self.total else {
            return Err(Error::Unavailable {
                call: "Reducer::result",
                reason: "nothing has been reduced with this Reducer yet: call enqueue first".into(),
            });
        };
        if type_id != TypeId::of::<T>() {
            let wanted = std::any::type_name::<T>();
            return Err(Error::Unavailable {
                call: "Reducer::result",
                reason: format!(
                    "the last reduction was of `{name}`, not `{wanted}`: ask for \
                     `result::<{name}>()`"
                ),
            });
        }
        Ok(())
    }
}

/// For [`multi::Reducer`](crate::multi::Reducer): the total of the last
/// queued reduction, where it lies, for work queued after it on the same
/// device (an NCCL collective combining the totals of several GPUs in
/// place).
#[cfg(feature = "multi")]
impl Reducer {
    /// Calls `f` with the slot where the last queued reduction, of `T`,
    /// leaves its total. Fails as [`result`](Self::result) does when no
    /// reduction of `T` was queued last.
    ///
    /// # Safety
    ///
    /// As for [`total`](Self::total): the last queued reduction's kernel
    /// stores a valid `T` in its final slot. What `f` queues must leave a
    /// valid `T` there.
    pub(crate) unsafe fn with_total_mut<T: Copy + 'static, R>(
        &self,
        f: impl FnOnce(&mut Output<'_, T>) -> R,
    ) -> Result<R, Error> {
        let mut slots = self.lock();
        slots.check_total::<T>()?;
        // SAFETY: only the final slot is lent out, where the last reduction,
        // of `T` (checked above), stores its total (the caller's promise).
        let mut all = unsafe { slots.slots.typed::<T>() };
        let count = all.len();
        Ok(f(&mut all.slice_mut(count - 1..count)))
    }

    /// The total of the last queued reduction, once it has finished: the
    /// reduction [`queue`](Self::queue)d last, of `T`.
    ///
    /// # Safety
    ///
    /// As for [`total`](Self::total).
    pub(crate) unsafe fn queued_total<T: Copy + 'static>(&self) -> Result<T, Error> {
        // SAFETY: the caller's promise.
        unsafe { self.total::<T>(&mut self.lock()) }
    }

    /// Queues the copy of the last queued reduction's total, of `T`, to
    /// the host without waiting; [`landed_total`](Self::landed_total)
    /// reads it once the device's work has finished. Fails as
    /// [`result`](Self::result) does when no reduction of `T` was queued
    /// last.
    ///
    /// # Safety
    ///
    /// As for [`total`](Self::total).
    pub(crate) unsafe fn land_total<T: Copy + 'static>(&self) -> Result<(), Error> {
        // SAFETY: the caller's promise.
        unsafe { self.land::<T>(&mut self.lock()) }
    }

    /// The total [`land_total`](Self::land_total) copied; the caller has
    /// waited for the device.
    ///
    /// # Safety
    ///
    /// As for [`total`](Self::total).
    pub(crate) unsafe fn landed_total<T: Copy + 'static>(&self) -> Result<T, Error> {
        // SAFETY: the caller's promise.
        unsafe { self.lock().landed::<T>() }
    }

    /// The reducer's device.
    pub(crate) fn device(&self) -> &Device {
        self.engine.device()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enqueue_and_result_work_on_the_cpu_backend_too() {
        let reducer = Reducer::new(&Device::cpu()).unwrap();
        let err = reducer.result::<f32>().unwrap_err();
        assert!(
            matches!(
                err,
                Error::Unavailable {
                    call: "Reducer::result",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("call enqueue first"), "{err}");
        let data = vec![1.0f32; 10];
        reducer.enqueue::<Sum, f32>(&data).unwrap();
        assert_eq!(reducer.result::<f32>().unwrap(), 10.0);
        let err = reducer.result::<u32>().unwrap_err();
        assert!(err.to_string().contains("result::<f32>()"), "{err}");
        // The synchronous calls work.
        assert_eq!(reducer.sum(&data).unwrap(), 10.0);
    }

    #[test]
    fn debug_names_the_device_and_the_grid_settings() {
        let reducer = Reducer::new(&Device::cpu()).unwrap();
        let debug = format!("{reducer:?}");
        assert!(debug.contains("the CPU backend"), "{debug}");
        assert!(debug.contains("blocks_per_sm: 64"), "{debug}");
    }
}
