//! One API over both backends: [`Device`] is a GPU or the CPU backend,
//! [`Buffer`] memory on either, and [`Program`] kernels ready to launch on
//! either; a program written against them runs unchanged on both.

use crate::args::{CpuArgs, KernelArgs};
use crate::{Cpu, Error, Gpu, LaunchConfig, Module, PtxSet, Report};
use coop::DeviceCopy;
use coop::Kernel;
use cudarc::driver::CudaSlice;

/// A GPU or the CPU backend, behind one API: the same program runs on
/// either.
///
/// ```
/// use coop::prelude::*;
/// use coop_host::{Device, LaunchConfig, PtxSet};
///
/// #[kernel]
/// pub fn square(grid: Grid, input: &[f32], out: Out<f32>) {
///     let i = grid.thread_rank();
///     if i < input.len() {
///         out.write(i, input[i] * input[i]);
///     }
/// }
/// # static PTX: PtxSet = PtxSet::new("doc", &[]);
///
/// let device = Device::cpu(); // or Device::gpu_or_cpu()
/// let program = device.load(&PTX)?; // PTX = coop_host::include_ptx!(..)
/// let input = device.upload(&[1.0f32, 2.0, 3.0])?;
/// let mut out = device.zeros::<f32>(3)?;
/// program.launch(square, LaunchConfig::new(1, 32), (&input, &mut out))?;
/// assert_eq!(device.download(&out)?, [1.0, 4.0, 9.0]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Debug)]
pub enum Device {
    /// An NVIDIA GPU.
    Gpu(Gpu),
    /// The CPU backend.
    Cpu(Cpu),
}

/// A buffer on a [`Device`]: device memory of a GPU, or host memory for the
/// CPU backend.
#[derive(Debug)]
pub enum Buffer<T> {
    /// On a GPU.
    Gpu(CudaSlice<T>),
    /// In host memory, for the CPU backend.
    Cpu(Vec<T>),
}

impl<T> Buffer<T> {
    /// Elements in the buffer.
    pub fn len(&self) -> usize {
        match self {
            Buffer::Gpu(s) => s.len(),
            Buffer::Cpu(v) => v.len(),
        }
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Kernels ready to launch on a [`Device`]: a loaded PTX module, or the
/// CPU backend (which runs the kernels' Rust code and needs no PTX).
#[derive(Debug)]
pub enum Program {
    /// PTX loaded on a GPU.
    Gpu(Module),
    /// The CPU backend.
    Cpu(Cpu),
}

impl Device {
    /// GPU 0 when one can be opened, the CPU backend otherwise.
    pub fn gpu_or_cpu() -> Device {
        match Gpu::new(0) {
            Ok(gpu) => Device::Gpu(gpu),
            Err(_) => Device::cpu(),
        }
    }

    /// The CPU backend.
    pub fn cpu() -> Device {
        Device::Cpu(Cpu::new())
    }

    /// What the device is, for messages: the GPU's name and SM, or the
    /// CPU backend.
    pub fn describe(&self) -> String {
        match self {
            Device::Gpu(gpu) => format!("{} (sm_{})", gpu.limits().name, gpu.limits().sm),
            Device::Cpu(_) => "the CPU backend (no GPU in use)".into(),
        }
    }

    /// Prepares the kernels of `ptx` for launching: loads the PTX on a GPU;
    /// on the CPU backend the kernels' Rust code runs and the PTX is unused.
    pub fn load(&self, ptx: &PtxSet) -> Result<Program, Error> {
        match self {
            Device::Gpu(gpu) => gpu.load(ptx).map(Program::Gpu),
            Device::Cpu(cpu) => Ok(Program::Cpu(cpu.clone())),
        }
    }

    /// Copies `data` into a new buffer on the device.
    pub fn upload<T: DeviceCopy>(&self, data: &[T]) -> Result<Buffer<T>, Error> {
        match self {
            Device::Gpu(gpu) => gpu.upload(data).map(Buffer::Gpu),
            Device::Cpu(_) => Ok(Buffer::Cpu(data.to_vec())),
        }
    }

    /// A new buffer of `len` zeroed elements.
    pub fn zeros<T: DeviceCopy>(&self, len: usize) -> Result<Buffer<T>, Error> {
        match self {
            Device::Gpu(gpu) => gpu.zeros(len).map(Buffer::Gpu),
            Device::Cpu(_) => Ok(Buffer::Cpu(
                (0..len)
                    // SAFETY: `zeroed` needs all-zero bytes to be a valid
                    // `T`, which `T: DeviceCopy` promises.
                    .map(|_| unsafe { std::mem::zeroed() })
                    .collect(),
            )),
        }
    }

    /// The buffer's contents, after the launches before have finished.
    pub fn download<T: DeviceCopy>(&self, buffer: &Buffer<T>) -> Result<Vec<T>, Error> {
        match (self, buffer) {
            (Device::Gpu(gpu), Buffer::Gpu(s)) => gpu.download(s),
            (_, Buffer::Cpu(v)) => Ok(v.clone()),
            (Device::Cpu(_), Buffer::Gpu(s)) => s
                .stream()
                .clone_dtoh(s)
                .map_err(Error::driver("copying results from the GPU")),
        }
    }
}

impl Program {
    /// The most blocks of `block_threads` threads, each with
    /// `dynamic_shared_bytes` of dynamic shared memory, that a cooperative
    /// launch of `kernel` may have: [`Module::max_cooperative_blocks`] on
    /// a GPU, [`Cpu::max_cooperative_blocks`] on the CPU backend.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Device, LaunchConfig};
    ///
    /// #[kernel(cooperative)]
    /// pub fn count_then_read(grid: CooperativeGrid, counter: Out<u32>, seen: Out<u32>) {
    ///     if grid.thread_rank() == 0 {
    ///         counter.write(0, grid.num_blocks() as u32);
    ///     }
    ///     grid.sync();
    ///     seen.write(grid.thread_rank(), counter.read(0));
    /// }
    ///
    /// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("none", &[]);
    /// let device = Device::cpu();
    /// let program = device.load(&PTX)?;
    /// // As many blocks as fit at once: a grid sized for this device.
    /// let blocks = program.max_cooperative_blocks(count_then_read, 128, 0)?;
    /// let mut counter = device.zeros::<u32>(1)?;
    /// let mut seen = device.zeros::<u32>(blocks as usize * 128)?;
    /// program.launch(count_then_read, LaunchConfig::new(blocks, 128), (&mut counter, &mut seen))?;
    /// assert!(device.download(&seen)?.iter().all(|&n| n == blocks));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn max_cooperative_blocks<K: Kernel>(
        &self,
        kernel: K,
        block_threads: u32,
        dynamic_shared_bytes: u32,
    ) -> Result<u32, Error> {
        match self {
            Program::Gpu(module) => {
                module.max_cooperative_blocks(kernel, block_threads, dynamic_shared_bytes)
            }
            Program::Cpu(cpu) => {
                Ok(cpu.max_cooperative_blocks(kernel, block_threads, dynamic_shared_bytes))
            }
        }
    }

    /// Launches `kernel` with `args` (one per non-handle parameter, in
    /// order, checked against its signature at compile time): on the GPU
    /// asynchronously, on the CPU backend to completion.
    #[track_caller]
    pub fn launch<K, A>(&self, kernel: K, config: LaunchConfig, args: A) -> Result<(), Error>
    where
        K: Kernel,
        A: KernelArgs<K::Params> + CpuArgs<K::Params>,
    {
        self.launch_reporting(kernel, config, args).map(drop)
    }

    /// [`launch`](Self::launch), returning the CPU backend's [`Report`] of
    /// the launch (warp collectives, barriers, shared-memory transactions
    /// per access site); `None` on a GPU.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Device, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn one_barrier(block: ThreadBlock) {
    ///     block.sync();
    /// }
    ///
    /// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("none", &[]);
    /// let device = Device::cpu();
    /// let program = device.load(&PTX)?;
    /// let report = program.launch_reporting(one_barrier, LaunchConfig::new(2, 64), ())?;
    /// assert_eq!(report.map(|r| r.block_barriers), Some(2));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[track_caller]
    pub fn launch_reporting<K, A>(
        &self,
        kernel: K,
        config: LaunchConfig,
        args: A,
    ) -> Result<Option<Report>, Error>
    where
        K: Kernel,
        A: KernelArgs<K::Params> + CpuArgs<K::Params>,
    {
        match self {
            Program::Gpu(module) => module.launch(kernel, config, args).map(|()| None),
            Program::Cpu(cpu) => cpu.launch(kernel, config, args).map(Some),
        }
    }
}

/// Where a call of coop-host's device-wide algorithms finds a kernel of
/// yours: the [`Program`] or [`Module`] you loaded it with. Made with
/// `.into()` from `&Program` or `&Module`, so that a call takes either as
/// it is.
///
/// ```
/// use coop_host::{Device, ProgramRef};
/// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("doc", &[]);
/// let device = Device::cpu();
/// let program = device.load(&PTX)?;
/// let from: ProgramRef<'_> = (&program).into();
/// assert!(matches!(from, ProgramRef::Cpu));
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub enum ProgramRef<'a> {
    /// A module loaded on a GPU.
    Module(&'a Module),
    /// The CPU backend, which runs the kernels' Rust code.
    Cpu,
    /// coop-host's own kernels (its built-in module on a GPU).
    Own,
}

impl<'a> From<&'a Program> for ProgramRef<'a> {
    fn from(program: &'a Program) -> Self {
        match program {
            Program::Gpu(module) => ProgramRef::Module(module),
            Program::Cpu(_) => ProgramRef::Cpu,
        }
    }
}

impl<'a> From<&'a Module> for ProgramRef<'a> {
    fn from(module: &'a Module) -> Self {
        ProgramRef::Module(module)
    }
}

impl<'a> From<Option<&'a Module>> for ProgramRef<'a> {
    /// `None`: coop-host's own module on a GPU, nothing on the CPU backend.
    fn from(module: Option<&'a Module>) -> Self {
        module.map_or(ProgramRef::Own, ProgramRef::Module)
    }
}

impl<'a> ProgramRef<'a> {
    /// The module to launch from on a GPU whose built-in module is `own`;
    /// fails, naming `call`, for a program of the CPU backend.
    pub(crate) fn gpu_module(
        self,
        own: &'a Module,
        call: &'static str,
    ) -> Result<&'a Module, Error> {
        match self {
            ProgramRef::Module(module) => Ok(module),
            ProgramRef::Own => Ok(own),
            ProgramRef::Cpu => Err(Error::Unavailable {
                call,
                reason: "the program was loaded on the CPU backend, and this call runs on a GPU: \
                         load the kernels with the GPU's Device"
                    .into(),
            }),
        }
    }

    /// Checks that a call on the CPU backend was not given a GPU module.
    pub(crate) fn check_cpu(self, call: &'static str) -> Result<(), Error> {
        match self {
            ProgramRef::Module(_) => Err(Error::Unavailable {
                call,
                reason: "the module was loaded on a GPU, and this call runs on the CPU backend: \
                         pass the Program of the CPU backend's Device"
                    .into(),
            }),
            ProgramRef::Cpu | ProgramRef::Own => Ok(()),
        }
    }
}
