//! One API over both backends: [`Device`] is a GPU or the CPU backend,
//! [`Buffer`] memory on either, [`Program`] kernels ready to launch on
//! either, [`Launcher`] where one launch goes, and [`Input`]/[`Output`]
//! what a device-wide call reads and writes; a program written against
//! them runs unchanged on both.

mod buffer;
mod views;

pub use buffer::Buffer;
pub use views::{Input, Output};

use crate::args::{CpuArgs, KernelArgs};
use crate::{BlockSizeChoice, Cpu, Error, Gpu, LaunchConfig, Module, PtxSet, Report};
use coop::DeviceCopy;
use coop::Kernel;
use std::time::{Duration, Instant};

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

    /// Copies `data` into `buffer`, an existing buffer of this device with
    /// exactly `data.len()` elements: to reset a vector between launches
    /// without allocating a new one. A buffer of the other backend, or of
    /// another length, is refused with [`Error::InvalidArgument`].
    ///
    /// ```
    /// use coop_host::Device;
    ///
    /// let device = Device::cpu();
    /// let mut v = device.upload(&[1u32, 2, 3])?;
    /// device.upload_into(&[7, 8, 9], &mut v)?;
    /// assert_eq!(device.download(&v)?, [7, 8, 9]);
    /// let err = device.upload_into(&[1, 2], &mut v).unwrap_err();
    /// assert!(err.to_string().contains("`data` has 2 elements and the buffer 3"), "{err}");
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn upload_into<T: DeviceCopy>(
        &self,
        data: &[T],
        buffer: &mut Buffer<T>,
    ) -> Result<(), Error> {
        match (self, buffer) {
            (Device::Gpu(gpu), Buffer::Gpu(slice)) => gpu.upload_into(data, slice),
            (Device::Cpu(_), Buffer::Cpu(v)) => {
                crate::gpu::check_same_length("Device::upload_into", data.len(), v.len())?;
                v.copy_from_slice(data);
                Ok(())
            }
            (device, buffer) => Err(Error::InvalidArgument {
                call: "Device::upload_into",
                problem: format!(
                    "the buffer is in {} and the device is {}: copy into a buffer this device made",
                    match buffer {
                        Buffer::Gpu(_) => "a GPU's memory",
                        Buffer::Cpu(_) => "host memory (the CPU backend's)",
                    },
                    device.describe()
                ),
            }),
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

    /// Waits until the launches queued on a GPU have finished (on the CPU
    /// backend a launch runs to completion when it is made, so there is
    /// nothing to wait for). A kernel's fault surfaces here as
    /// [`Error::KernelFault`]; with a [wait limit](Self::with_wait_limit), a
    /// kernel that does not finish in time as [`Error::Timeout`].
    pub fn synchronize(&self) -> Result<(), Error> {
        match self {
            Device::Gpu(gpu) => gpu.synchronize(),
            Device::Cpu(_) => Ok(()),
        }
    }

    /// [`synchronize`](Self::synchronize), giving up after `limit` with
    /// [`Error::Timeout`] naming the launches still running
    /// ([`Gpu::synchronize_timeout`]): a program can report a kernel that
    /// never finishes and exit. On the CPU backend a kernel that spins
    /// forever is reported by the launch itself, naming the thread.
    ///
    /// ```
    /// use std::time::Duration;
    /// let device = coop_host::Device::gpu_or_cpu();
    /// device.synchronize_timeout(Duration::from_secs(10))?;
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn synchronize_timeout(&self, limit: Duration) -> Result<(), Error> {
        match self {
            Device::Gpu(gpu) => gpu.synchronize_timeout(limit),
            Device::Cpu(_) => Ok(()),
        }
    }

    /// The same device, with every wait that has no limit of its own —
    /// [`synchronize`](Self::synchronize), [`download`](Self::download),
    /// and the device-wide algorithms' reads of their results — bounded by
    /// `limit` ([`Gpu::with_wait_limit`]; it holds for every clone of the
    /// device). `None` waits without a limit, the default. The CPU backend
    /// has nothing to wait for.
    ///
    /// ```
    /// use std::time::Duration;
    /// let device = coop_host::Device::gpu_or_cpu().with_wait_limit(Some(Duration::from_secs(60)));
    /// let buffer = device.upload(&[1u32, 2, 3])?;
    /// assert_eq!(device.download(&buffer)?, [1, 2, 3]); // waits at most a minute on a GPU
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_wait_limit(self, limit: Option<Duration>) -> Device {
        match self {
            Device::Gpu(gpu) => Device::Gpu(gpu.with_wait_limit(limit)),
            cpu => cpu,
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

    /// How many clusters of `config`'s shape of `kernel` fit on the device
    /// at once, the most a cooperative launch in clusters may have:
    /// [`Module::max_active_clusters`] on a GPU (the driver's figure),
    /// [`Cpu::max_active_clusters`] on the CPU backend.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Device, LaunchConfig};
    ///
    /// #[kernel(cooperative)]
    /// pub fn ranks(grid: CooperativeGrid, cluster: Cluster, out: Out<u32>) {
    ///     cluster.sync();
    ///     grid.sync();
    ///     if this_thread_block().thread_rank() == 0 {
    ///         out.write(grid.block_rank(), cluster.block_rank());
    ///     }
    /// }
    ///
    /// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("none", &[]);
    /// let device = Device::cpu();
    /// let program = device.load(&PTX)?;
    /// let shape = LaunchConfig::new(2, 128).with_cluster(2);
    /// // As many clusters as fit at once: a grid sized for this device.
    /// let clusters = program.max_active_clusters(ranks, shape)?;
    /// let mut out = device.zeros::<u32>(2 * clusters as usize)?;
    /// program.launch(ranks, LaunchConfig::new(2 * clusters, 128).with_cluster(2), (&mut out,))?;
    /// assert_eq!(device.download(&out)?[..2], [0, 1]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn max_active_clusters<K: Kernel>(
        &self,
        kernel: K,
        config: LaunchConfig,
    ) -> Result<u32, Error> {
        match self {
            Program::Gpu(module) => module.max_active_clusters(kernel, config),
            Program::Cpu(cpu) => cpu.max_active_clusters(kernel, config),
        }
    }

    /// The block size at which `kernel` keeps the most threads running on
    /// each multiprocessor, with `dynamic_shared_bytes(block_threads)`
    /// bytes of dynamic shared memory a block, and the grid that fills the
    /// device at that size: [`Module::occupancy_block_size`] on a GPU (the
    /// driver's figures, registers included), [`Cpu::occupancy_block_size`]
    /// on the CPU backend.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Device, LaunchConfig};
    ///
    /// #[kernel(cooperative)]
    /// pub fn count_blocks(grid: CooperativeGrid, counter: Out<u32>) {
    ///     grid.sync();
    ///     if grid.thread_rank() == 0 {
    ///         counter.write(0, grid.num_blocks() as u32);
    ///     }
    /// }
    ///
    /// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("none", &[]);
    /// let device = Device::cpu();
    /// let program = device.load(&PTX)?;
    /// let best = program.occupancy_block_size(count_blocks, |_| 0)?;
    /// // The grid that follows is one a cooperative launch may have.
    /// let mut counter = device.zeros::<u32>(1)?;
    /// program.launch(
    ///     count_blocks,
    ///     LaunchConfig::new(best.grid_blocks, best.block_threads),
    ///     (&mut counter,),
    /// )?;
    /// assert_eq!(device.download(&counter)?, [best.grid_blocks]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[doc(alias = "cudaOccupancyMaxPotentialBlockSize")]
    pub fn occupancy_block_size<K: Kernel>(
        &self,
        kernel: K,
        dynamic_shared_bytes: impl Fn(u32) -> u32,
    ) -> Result<BlockSizeChoice, Error> {
        match self {
            Program::Gpu(module) => module.occupancy_block_size(kernel, dynamic_shared_bytes),
            Program::Cpu(cpu) => cpu.occupancy_block_size(kernel, dynamic_shared_bytes),
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

    /// Waits until this program's launches on a GPU have finished, as
    /// [`Device::synchronize`] does (nothing to wait for on the CPU
    /// backend).
    pub fn synchronize(&self) -> Result<(), Error> {
        match self {
            Program::Gpu(module) => module.gpu().synchronize(),
            Program::Cpu(_) => Ok(()),
        }
    }

    /// [`synchronize`](Self::synchronize), giving up after `limit` with
    /// [`Error::Timeout`], as [`Device::synchronize_timeout`] does.
    pub fn synchronize_timeout(&self, limit: Duration) -> Result<(), Error> {
        match self {
            Program::Gpu(module) => module.gpu().synchronize_timeout(limit),
            Program::Cpu(_) => Ok(()),
        }
    }

    /// Where this program's launches go, borrowed.
    pub fn launcher(&self) -> Launcher<'_> {
        match self {
            Program::Gpu(module) => Launcher::Gpu(module),
            Program::Cpu(cpu) => Launcher::Cpu(cpu),
        }
    }
}

/// Where a launch goes: a module loaded on a GPU, or the CPU backend. What
/// a [`Program`] (or a [`ProgramRef`]) is for one call, borrowed; coop-host's
/// device-wide algorithms launch through it, the same code for both
/// backends.
///
/// ```
/// use coop::prelude::*;
/// use coop_host::{Device, LaunchConfig};
///
/// #[kernel]
/// pub fn fill(grid: Grid, value: u32, out: Out<u32>) {
///     if grid.thread_rank() < out.len() {
///         out.write(grid.thread_rank(), value);
///     }
/// }
/// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("doc", &[]);
///
/// let device = Device::cpu();
/// let program = device.load(&PTX)?;
/// let launcher = program.launcher();
/// let mut out = device.zeros::<u32>(100)?;
/// let per_sm = launcher.resident_blocks(fill, 128, 0)?;
/// launcher.launch(fill, LaunchConfig::new(1, 128), (7u32, &mut out))?;
/// assert!(per_sm >= 1 && device.download(&out)?.iter().all(|&v| v == 7));
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub enum Launcher<'a> {
    /// A module loaded on a GPU.
    Gpu(&'a Module),
    /// The CPU backend.
    Cpu(&'a Cpu),
}

impl Launcher<'_> {
    /// Launches `kernel` with `args`, as [`Program::launch`] does.
    #[track_caller]
    pub fn launch<K, A>(self, kernel: K, config: LaunchConfig, args: A) -> Result<(), Error>
    where
        K: Kernel,
        A: KernelArgs<K::Params> + CpuArgs<K::Params>,
    {
        match self {
            Launcher::Gpu(module) => module.launch(kernel, config, args),
            Launcher::Cpu(cpu) => cpu.launch(kernel, config, args).map(drop),
        }
    }

    /// How many blocks of `kernel` of `block_threads` threads, each with
    /// `dynamic_shared_bytes` of dynamic shared memory, one multiprocessor
    /// runs at once: the driver's figure on a GPU
    /// ([`Module::resident_blocks`]), the emulated device's on the CPU
    /// backend ([`Cpu::resident_blocks`]).
    pub fn resident_blocks<K: Kernel>(
        self,
        kernel: K,
        block_threads: u32,
        dynamic_shared_bytes: u32,
    ) -> Result<u32, Error> {
        match self {
            Launcher::Gpu(module) => {
                module.resident_blocks(kernel, block_threads, dynamic_shared_bytes)
            }
            Launcher::Cpu(cpu) => {
                Ok(cpu.resident_blocks(kernel, block_threads, dynamic_shared_bytes))
            }
        }
    }

    /// The multiprocessors of the device.
    pub fn multiprocessors(self) -> u32 {
        match self {
            Launcher::Gpu(module) => module.gpu().limits().multiprocessors,
            Launcher::Cpu(cpu) => cpu.limits().multiprocessors,
        }
    }

    /// The most shared memory one block may use after opting in (bytes):
    /// [`DeviceLimits::max_shared_per_block_optin`](crate::DeviceLimits::max_shared_per_block_optin)
    /// of the device.
    pub fn max_shared_per_block_optin(self) -> u32 {
        match self {
            Launcher::Gpu(module) => module.gpu().limits().max_shared_per_block_optin,
            Launcher::Cpu(cpu) => cpu.limits().max_shared_per_block_optin,
        }
    }

    /// Whether the launches go to a GPU.
    pub fn on_gpu(self) -> bool {
        matches!(self, Launcher::Gpu(_))
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
    /// Where a call launches: the module this names, or `own` (the
    /// calling algorithm's own kernels, on the device it was made for)
    /// for [`ProgramRef::Own`]. Fails, naming `call`, when the program is
    /// on the other backend than `own`.
    pub(crate) fn resolve(
        self,
        own: Launcher<'a>,
        call: &'static str,
    ) -> Result<Launcher<'a>, Error> {
        match (self, own) {
            (ProgramRef::Own, own) => Ok(own),
            (ProgramRef::Module(module), Launcher::Gpu(_)) => Ok(Launcher::Gpu(module)),
            (ProgramRef::Cpu, own @ Launcher::Cpu(_)) => Ok(own),
            (ProgramRef::Cpu, Launcher::Gpu(_)) => Err(Error::Unavailable {
                call,
                reason: "the program was loaded on the CPU backend, and this call runs on a GPU: \
                         load the kernels with the GPU's Device"
                    .into(),
            }),
            (ProgramRef::Module(_), Launcher::Cpu(_)) => Err(Error::Unavailable {
                call,
                reason: "the module was loaded on a GPU, and this call runs on the CPU backend: \
                         pass the Program of the CPU backend's Device"
                    .into(),
            }),
        }
    }
}
impl Device {
    /// Runs `work` and returns its result with the time it took: the GPU
    /// time of what it queued on a GPU ([`Gpu::time`]), the host's
    /// wall-clock time on the CPU backend (where launches run when they
    /// are called).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Device, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn twice(grid: Grid, x: &[f32], out: Out<f32>) {
    ///     let i = grid.thread_rank();
    ///     if i < x.len() {
    ///         out.write(i, 2.0 * x[i]);
    ///     }
    /// }
    /// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("doc", &[]);
    ///
    /// let device = Device::cpu(); // or Device::gpu_or_cpu()
    /// let program = device.load(&PTX)?;
    /// let x = device.upload(&[1.0f32; 1000])?;
    /// let mut out = device.zeros::<f32>(1000)?;
    /// let ((), elapsed) =
    ///     device.time(|| program.launch(twice, LaunchConfig::new(4, 256), (&x, &mut out)))?;
    /// println!("{elapsed:?} on {}", device.describe());
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn time<R>(&self, work: impl FnOnce() -> Result<R, Error>) -> Result<(R, Duration), Error> {
        match self {
            Device::Gpu(gpu) => gpu.time(work),
            Device::Cpu(_) => {
                let start = Instant::now();
                let result = work()?;
                Ok((result, start.elapsed()))
            }
        }
    }
}
