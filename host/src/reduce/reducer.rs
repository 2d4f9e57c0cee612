//! [`Reducer`]: device-wide reductions on one device, keeping the loaded
//! kernels, the grid settings and the scratch between calls, and sending
//! each reduction to its backend.

use super::cpu;
use super::gpu::GpuReducer;
use super::plan::Sizing;
use super::{Builtin, Input, ReductionParams};
use crate::{Cpu, Device, Error, Module};
use coop::op::{Max, Min, Sum};
use coop::Kernel;
use cudarc::driver::CudaView;

/// Device-wide reductions on one device, keeping the loaded kernels and the
/// scratch for partial results between calls.
pub struct Reducer {
    backend: Backend,
    sizing: Sizing,
}

enum Backend {
    Gpu(GpuReducer),
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
            .finish()
    }
}

impl Reducer {
    /// Loads the built-in reduction kernels on `device`.
    pub fn new(device: &Device) -> Result<Reducer, Error> {
        let backend = match device {
            Device::Gpu(gpu) => Backend::Gpu(GpuReducer::new(gpu)?),
            Device::Cpu(cpu) => Backend::Cpu(cpu.clone()),
        };
        Ok(Reducer {
            backend,
            sizing: Sizing::default(),
        })
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
        // SAFETY: `run` needs a kernel that stores its reduction and a `T`
        // valid as all-zero bytes: `T::KERNEL` is a built-in kernel, which
        // calls `reduce_grid`, and `Builtin` requires `DeviceCopy` (valid as zeros).
        unsafe { self.run(None, T::KERNEL, input.into()) }
    }

    /// The minimum (floats: NaN-ignoring); for no input, the type's maximum
    /// (integers) or NaN (floats).
    pub fn min<'a, T: Builtin<Min>>(&self, input: impl Into<Input<'a, T>>) -> Result<T, Error> {
        // SAFETY: as in `sum`: a built-in kernel and a `Builtin` type.
        unsafe { self.run(None, T::KERNEL, input.into()) }
    }

    /// The maximum (floats: NaN-ignoring); for no input, the type's minimum
    /// (integers) or NaN (floats).
    pub fn max<'a, T: Builtin<Max>>(&self, input: impl Into<Input<'a, T>>) -> Result<T, Error> {
        // SAFETY: as in `sum`: a built-in kernel and a `Builtin` type.
        unsafe { self.run(None, T::KERNEL, input.into()) }
    }

    /// Reduces `input` with your own `kernel` from `module`: a `#[kernel]`
    /// taking `(input, partials)` that calls
    /// `coop::grid_reduce::reduce_blocks` (two launches), or one taking
    /// `(input, partials, tickets)` that calls `reduce_grid` (one launch
    /// when the grid is one wave, as the built-in kernels); see
    /// [`ReductionParams`]. On the CPU backend `module` is unused.
    ///
    /// `T` is plain data: a `Shuffle` type, for which all-zero bytes are a
    /// valid value.
    pub fn reduce_with<'a, T, K>(
        &self,
        module: Option<&Module>,
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
        unsafe { self.run(module, kernel, input.into()) }
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
        module: Option<&Module>,
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
            // SAFETY: `GpuReducer::reduce` needs a kernel that stores its
            // reduction, as this function's caller promised.
            |gpu, view| unsafe { gpu.reduce(module, kernel, view, &self.sizing) },
            // SAFETY: `cpu::reduce` needs a `T` valid as all-zero bytes, as
            // this function's caller promised.
            |cpu, slice| unsafe { cpu::reduce(cpu, kernel, slice, &self.sizing) },
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
fn wrong_device<K: Kernel>(device: &'static str) -> Error {
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
