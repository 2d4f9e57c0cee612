//! [`Reducer`]: device-wide reductions on one device, keeping the loaded
//! kernels, the grid settings and the scratch between calls, and sending
//! each reduction to its backend.

use super::cpu;
use super::gpu::GpuReducer;
use super::ordered::{self, OrderedMap};
use super::plan::Sizing;
use super::{Builtin, BuiltinCount, BuiltinMap, Input, MapReductionParams, ReductionParams};
use crate::{Cpu, Device, Error, Module, ProgramRef};
use coop::map::{Abs, CountIf, Square, WithIndex};
use coop::op::{Arg, ArgMax, ArgMin, Max, Min, Sum};
use coop::Kernel;
use cudarc::driver::CudaView;

/// Device-wide reductions on one device, keeping the loaded kernels and the
/// scratch for partial results between calls.
pub struct Reducer {
    backend: Backend,
    sizing: Sizing,
    deterministic: bool,
}

enum Backend {
    Gpu(Box<GpuReducer>),
    Cpu(Cpu),
}

impl std::fmt::Debug for Reducer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let on = match &self.backend {
            Backend::Gpu(gpu) => gpu.device_name(),
            Backend::Cpu(_) => "the CPU backend",
        };
        f.debug_struct("Reducer")
            .field("device", &on)
            .field("blocks_per_sm", &self.sizing.blocks_per_sm)
            .field("tiles_per_block", &self.sizing.tiles_per_block)
            .field("deterministic", &self.deterministic)
            .finish()
    }
}

impl Reducer {
    /// Loads the built-in reduction kernels on `device`.
    pub fn new(device: &Device) -> Result<Reducer, Error> {
        let backend = match device {
            Device::Gpu(gpu) => Backend::Gpu(Box::new(GpuReducer::new(gpu)?)),
            Device::Cpu(cpu) => Backend::Cpu(cpu.clone()),
        };
        Ok(Reducer {
            backend,
            sizing: Sizing::default(),
            deterministic: false,
        })
    }

    /// The same reducer, computing float sums ([`sum`](Self::sum),
    /// [`sum_abs`](Self::sum_abs), [`sum_squares`](Self::sum_squares) of
    /// `f32` and `f64`) in an order fixed by the input's length alone, so
    /// that they have the same bits on every GPU, on the CPU backend, and
    /// from run to run (`coop::grid_reduce::reduce_ordered`: a grid of
    /// `ceil(n / 65536)` blocks, at most 4096, then one block). Other
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
    /// `coop::grid_reduce::reduce_blocks` (two launches), or one taking
    /// `(input, partials, tickets)` that calls `reduce_grid` (one launch
    /// when the grid is one wave, as the built-in kernels); see
    /// [`ReductionParams`].
    ///
    /// `T` is plain data: a `Shuffle` type, for which all-zero bytes are a
    /// valid value.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::grid_reduce::reduce_grid_scalar;
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
    /// use coop::map::CountIf;
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
        match (&self.backend, input) {
            (Backend::Gpu(gpu), Input::Gpu(view)) => {
                let module = gpu.family(&crate::ptx_families::TRANSFORM_PTX)?;
                // SAFETY: the count kernel calls `reduce_grid_map`, which
                // stores its total, a `u64`, in the last slot.
                unsafe {
                    gpu.one_launch::<T, u64, _>(
                        module,
                        kernel,
                        view.len(),
                        &self.sizing,
                        |blocks, partials, tickets| {
                            module.launch(
                                kernel,
                                crate::LaunchConfig::new(blocks, super::THREADS),
                                (&view, code, threshold, partials, tickets),
                            )
                        },
                    )
                }
            }
            (Backend::Cpu(cpu), Input::Cpu(slice)) => {
                // SAFETY: all-zero bytes are a valid `u64`.
                unsafe {
                    cpu::one_launch::<T, u64>(
                        cpu,
                        slice.len(),
                        &self.sizing,
                        |blocks, partials, tickets| {
                            cpu.launch(
                                kernel,
                                crate::LaunchConfig::new(blocks, super::THREADS),
                                (slice, code, threshold, partials, tickets),
                            )
                            .map(drop)
                        },
                    )
                }
            }
            (Backend::Gpu(_), Input::Cpu(_)) => Err(wrong_device::<T::Kernel>("GPU")),
            (Backend::Cpu(_), Input::Gpu(_)) => Err(wrong_device::<T::Kernel>("CPU")),
        }
    }

    /// A transform-reduction with your own `kernel`, found in `program`: a
    /// `#[kernel]` taking `(input: &[T], partials: Out<U>, tickets:
    /// Out<u32>)` that calls `coop::grid_reduce::reduce_grid_map` (or
    /// `_scalar`), `U` its map's output. One launch, whatever the input's
    /// length: a grid of at most one wave, each block taking as many tiles
    /// as it needs, the last block to finish reducing the blocks' results.
    ///
    /// `U` is plain data: a `Shuffle` type, for which all-zero bytes are a
    /// valid value.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::grid_reduce::reduce_grid_map;
    /// use coop::map;
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
        let program = match &self.backend {
            Backend::Gpu(gpu) => ProgramRef::Module(gpu.family(T::PTX)?),
            Backend::Cpu(_) => ProgramRef::Own,
        };
        // SAFETY: built-in kernels call `reduce_grid_map`, which stores its
        // total in the last slot; their outputs (the primitives and
        // `Arg`s of them) are valid as all-zero bytes.
        unsafe { self.map_run::<T, T::Output, T::Kernel>(program, T::KERNEL, input, "Reducer") }
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
        match (&self.backend, input) {
            (Backend::Gpu(gpu), Input::Gpu(view)) => {
                let module = gpu.module(program, call)?;
                // SAFETY: the caller's promise.
                unsafe {
                    gpu.one_launch::<T, U, K>(
                        module,
                        kernel,
                        view.len(),
                        &self.sizing,
                        |blocks, partials, tickets| {
                            K::Params::launch_gpu(module, kernel, blocks, &view, partials, tickets)
                        },
                    )
                }
            }
            (Backend::Cpu(cpu), Input::Cpu(slice)) => {
                program.check_cpu(call)?;
                // SAFETY: the caller's promise.
                unsafe {
                    cpu::one_launch::<T, U>(
                        cpu,
                        slice.len(),
                        &self.sizing,
                        |blocks, partials, tickets| {
                            K::Params::launch_cpu(cpu, kernel, blocks, slice, partials, tickets)
                        },
                    )
                }
            }
            (Backend::Gpu(_), Input::Cpu(_)) => Err(wrong_device::<K>("GPU")),
            (Backend::Cpu(_), Input::Gpu(_)) => Err(wrong_device::<K>("CPU")),
        }
    }

    /// The GPU reducer, `None` on the CPU backend.
    pub(super) fn gpu_reducer(&self) -> Option<&GpuReducer> {
        match &self.backend {
            Backend::Gpu(gpu) => Some(gpu),
            Backend::Cpu(_) => None,
        }
    }

    /// The CPU backend, `None` on a GPU.
    pub(super) fn cpu(&self) -> Option<&Cpu> {
        match &self.backend {
            Backend::Gpu(_) => None,
            Backend::Cpu(cpu) => Some(cpu),
        }
    }

    /// Starts the reduction of `input` with the built-in kernel for `O` on
    /// the GPU without waiting for it; [`result`](Self::result) reads the
    /// value. For pipelines and timing: a GPU's launches are asynchronous.
    /// Only on a GPU (the CPU backend has nothing to overlap).
    pub fn enqueue<'a, O, T: Builtin<O>>(
        &self,
        input: impl Into<Input<'a, T>>,
    ) -> Result<(), Error> {
        match (&self.backend, input.into()) {
            // SAFETY: `enqueue` needs a kernel that stores its reduction:
            // `T::KERNEL` is a built-in kernel, which calls `reduce_grid`.
            (Backend::Gpu(gpu), Input::Gpu(view)) => unsafe {
                gpu.enqueue(None, T::KERNEL, view, &self.sizing)
            },
            (Backend::Gpu(_), Input::Cpu(_)) => Err(wrong_device::<T::Kernel>("GPU")),
            (Backend::Cpu(_), _) => Err(Error::Unavailable {
                call: "Reducer::enqueue",
                reason: "the CPU backend reduces when it is called, with nothing to \
                         overlap: call sum, min, max or reduce_with, which return the value"
                    .into(),
            }),
        }
    }

    /// The result of the last [`enqueue`](Self::enqueue)d reduction, once
    /// it has finished (this waits for it). `T` must be the type that
    /// reduction was of.
    ///
    /// Fails with [`Error::Unavailable`] on the CPU backend, when nothing
    /// has been enqueued, or when the last reduction was of another type.
    pub fn result<T: Builtin<Sum>>(&self) -> Result<T, Error> {
        match &self.backend {
            // SAFETY: `result` needs every reduction queued on the reducer
            // to have had a kernel that stores its reduction. They were
            // queued by `sum`, `min`, `max`, `enqueue` (built-in kernels,
            // which do) and `reduce_with` (whose caller's kernel does).
            Backend::Gpu(gpu) => unsafe { gpu.result::<T>() },
            Backend::Cpu(_) => Err(Error::Unavailable {
                call: "Reducer::result",
                reason: "the CPU backend enqueues nothing: its sum, min, max and \
                         reduce_with return the value"
                    .into(),
            }),
        }
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
        match &mut self.backend {
            Backend::Gpu(gpu) => gpu.set_module(module).map(|()| self),
            Backend::Cpu(_) => Err(Error::Unavailable {
                call: "Reducer::with_module",
                reason: "the CPU backend runs the kernels' Rust code and loads no module".into(),
            }),
        }
    }

    /// Reduces `input` with `kernel` (from `module`, or the reducer's own)
    /// on the reducer's backend.
    ///
    /// # Safety
    ///
    /// `kernel` must store the reduction of its input, a valid `T`, in its
    /// `partials` as `coop::grid_reduce::reduce_grid` and `reduce_blocks`
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
        self.dispatch::<K, _, _>(
            input,
            |gpu, view| {
                let module = gpu.module(program, "Reducer::reduce_with")?;
                // SAFETY: `GpuReducer::reduce` needs a kernel that stores its
                // reduction, as this function's caller promised.
                unsafe { gpu.reduce(Some(module), kernel, view, &self.sizing) }
            },
            |cpu, slice| {
                program.check_cpu("Reducer::reduce_with")?;
                // SAFETY: `cpu::reduce` needs a `T` valid as all-zero bytes,
                // as this function's caller promised.
                unsafe { cpu::reduce(cpu, kernel, slice, &self.sizing) }
            },
        )
    }
}

impl Reducer {
    /// Sends `input` to `gpu` or `cpu`, whichever backend the reducer is
    /// on; an input of the other device is [`Error::WrongDevice`] for
    /// kernel `K`.
    fn dispatch<'a, K: Kernel, T, R>(
        &self,
        input: Input<'a, T>,
        gpu: impl FnOnce(&GpuReducer, CudaView<'a, T>) -> Result<R, Error>,
        cpu: impl FnOnce(&Cpu, &'a [T]) -> Result<R, Error>,
    ) -> Result<R, Error> {
        match (&self.backend, input) {
            (Backend::Gpu(g), Input::Gpu(view)) => gpu(g, view),
            (Backend::Cpu(c), Input::Cpu(slice)) => cpu(c, slice),
            (Backend::Gpu(_), Input::Cpu(_)) => Err(wrong_device::<K>("GPU")),
            (Backend::Cpu(_), Input::Gpu(_)) => Err(wrong_device::<K>("CPU")),
        }
    }
}

/// A reduction started by [`Reducer::start`]: queued on a GPU, or already
/// done on the CPU backend.
#[cfg(feature = "multi")]
pub(crate) enum Started<T> {
    /// Queued on the GPU; [`Reducer::finish`] waits and reads the total.
    Queued,
    /// Done on the CPU backend.
    Done(T),
}

/// For [`multi::Reducer`](crate::multi::Reducer): a reduction started on
/// each device of a set first and finished after, so that the GPUs work at
/// once, and the totals combined where they lie.
#[cfg(feature = "multi")]
impl Reducer {
    /// Starts reducing `input` with `kernel` (from `module`, or the
    /// reducer's own): queues it on a GPU, runs it on the CPU backend.
    ///
    /// # Safety
    ///
    /// As for [`run`](Self::run): `kernel` stores the reduction of its
    /// input, a valid `T`, and all-zero bytes are a valid `T`.
    pub(crate) unsafe fn start<T, K>(
        &self,
        module: Option<&Module>,
        kernel: K,
        input: Input<'_, T>,
    ) -> Result<Started<T>, Error>
    where
        T: Copy + 'static,
        K: Kernel,
        K::Params: ReductionParams<T>,
    {
        self.dispatch::<K, _, _>(
            input,
            // SAFETY: `enqueue` needs a kernel that stores its reduction,
            // as this function's caller promised.
            |gpu, view| unsafe {
                gpu.enqueue(module, kernel, view, &self.sizing)
                    .map(|()| Started::Queued)
            },
            |cpu, slice| {
                // SAFETY: `cpu::reduce` needs a `T` valid as all-zero bytes,
                // as this function's caller promised.
                unsafe { cpu::reduce(cpu, kernel, slice, &self.sizing) }.map(Started::Done)
            },
        )
    }

    /// The total of a reduction [`start`](Self::start)ed last on this
    /// reducer, once it has finished.
    ///
    /// # Safety
    ///
    /// As for [`start`](Self::start), for the reduction `started` is of.
    pub(crate) unsafe fn finish<T: Copy + 'static>(&self, started: Started<T>) -> Result<T, Error> {
        match (&self.backend, started) {
            (_, Started::Done(total)) => Ok(total),
            // SAFETY: `result` needs the queued reductions' kernels to store
            // their totals, as this function's caller promised of the last;
            // the earlier ones were queued by this type's safe calls, whose
            // kernels do.
            (Backend::Gpu(gpu), Started::Queued) => unsafe { gpu.result::<T>() },
            (Backend::Cpu(_), Started::Queued) => unreachable!("the CPU backend queues nothing"),
        }
    }

    /// The GPU reducer, for work on the total of the last queued reduction
    /// where it lies; `None` on the CPU backend.
    pub(crate) fn gpu(&self) -> Option<&GpuReducer> {
        match &self.backend {
            Backend::Gpu(gpu) => Some(gpu),
            Backend::Cpu(_) => None,
        }
    }
}

/// The error for an input of the other device than the reducer's `device`:
/// the input is the kernel's argument 0.
pub(super) fn wrong_device<K: Kernel>(device: &'static str) -> Error {
    Error::WrongDevice {
        kernel: K::NAME,
        device,
        argument: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_backend_says_why_it_enqueues_nothing() {
        let reducer = Reducer::new(&Device::cpu()).unwrap();
        let data = vec![1.0f32; 10];
        let err = reducer.enqueue::<Sum, f32>(&data).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Unavailable {
                    call: "Reducer::enqueue",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("call sum, min, max"), "{err}");
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
