//! PTX loaded on a GPU: [`Module`] finds its kernels by name, caches their
//! limits and occupancy, and launches them with typed arguments.

use crate::args::{KernelArgs, PushWords};
use crate::limits::{choose_block_size, no_block_size_fits};
use crate::{
    BlockSizeChoice, Dim3, Error, Gpu, KernelLimits, KernelResources, LaunchConfig, LaunchRecord,
};
use coop::Kernel;
use cudarc::driver::sys::{self, CUfunction_attribute as FnAttr};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;
use std::collections::HashMap;
use std::panic::Location;
use std::sync::{Arc, Mutex};

/// Makes `function` (kernel `name`) require clusters of `cluster` blocks
/// (none for 1, 1, 1) unless it already does, allowing sizes past the
/// portable 8 blocks when asked for; `clusters` is the module's record,
/// locked by the caller for as long as the launch needs the shape.
fn require_cluster(
    clusters: &mut HashMap<&'static str, Dim3>,
    name: &'static str,
    function: &CudaFunction,
    cluster: Dim3,
) -> Result<(), Error> {
    let wanted = if cluster == Dim3::new(1, 1, 1) {
        Dim3::new(0, 0, 0)
    } else {
        cluster
    };
    let current = clusters.get(name).copied().unwrap_or(Dim3::new(0, 0, 0));
    if current == wanted {
        return Ok(());
    }
    let set = |attribute: FnAttr, value: u32| {
        function
            .set_attribute(attribute, value as i32)
            .map_err(|source| Error::Launch {
                kernel: name,
                source,
            })
    };
    if wanted.volume() > crate::MAX_CLUSTER_BLOCKS as u64 {
        set(
            FnAttr::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
            1,
        )?;
    }
    set(FnAttr::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, wanted.x)?;
    set(FnAttr::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, wanted.y)?;
    set(FnAttr::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, wanted.z)?;
    clusters.insert(name, wanted);
    Ok(())
}

/// What a [`Module`] was loaded from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// PTX for this SM target, compiled by the driver when loaded.
    Ptx {
        /// The PTX's target, `10 * major + minor`.
        sm: u32,
    },
    /// Machine code for this SM target's architecture, loaded as it is.
    Sass {
        /// The cubin's target, `10 * major + minor`.
        sm: u32,
    },
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Code::Ptx { sm } => write!(f, "PTX for sm_{sm}, compiled by the driver"),
            Code::Sass { sm } => write!(f, "machine code for sm_{sm}"),
        }
    }
}

/// Loaded PTX (or machine code): the kernels of one kernel crate on one
/// device.
#[derive(Debug)]
pub struct Module {
    gpu: Gpu,
    name: String,
    sm: u32,
    code: Code,
    module: Arc<CudaModule>,
    functions: Mutex<HashMap<&'static str, (CudaFunction, KernelLimits)>>,
    /// Resident blocks per multiprocessor, by (kernel, threads, dynamic
    /// shared bytes).
    occupancy: Mutex<HashMap<(&'static str, u32, u32), u32>>,
    /// The cluster shape each kernel's function was last set to require
    /// (absent: never set, which requires none).
    clusters: Mutex<HashMap<&'static str, Dim3>>,
    /// Clusters that can run at once, by (kernel, cluster, block, dynamic
    /// shared bytes).
    cluster_occupancy: Mutex<HashMap<ClusterKey, u32>>,
}

type ClusterKey = (&'static str, Dim3, Dim3, u32);

impl Drop for Module {
    fn drop(&mut self) {
        if self.gpu.is_abandoned() {
            // Unloading waits for the module's kernels, one of which never
            // ends: keep it loaded until the process exits.
            std::mem::forget(Arc::clone(&self.module));
        }
    }
}

impl Module {
    pub(crate) fn load(gpu: Gpu, name: &str, sm: u32, ptx: &str) -> Result<Module, Error> {
        if let Some(offset) = ptx.find('\0') {
            return Err(Error::PtxNotText {
                module: name.to_string(),
                offset,
            });
        }
        let module = gpu
            .context()
            .load_module(Ptx::from_src(ptx))
            .map_err(|source| Error::PtxLoad {
                module: name.to_string(),
                sm,
                source,
                log: jit_error_log(gpu.context(), ptx),
            })?;
        Ok(Module {
            gpu,
            name: name.to_string(),
            sm,
            code: Code::Ptx { sm },
            module,
            functions: Mutex::new(HashMap::new()),
            occupancy: Mutex::new(HashMap::new()),
            clusters: Mutex::new(HashMap::new()),
            cluster_occupancy: Mutex::new(HashMap::new()),
        })
    }

    /// Loads machine code (a cubin for `sm`'s architecture): no
    /// compilation, so it is ready at once.
    pub(crate) fn load_sass(gpu: Gpu, name: &str, sm: u32, cubin: &[u8]) -> Result<Module, Error> {
        let module = gpu
            .context()
            .load_module(Ptx::from_binary(cubin.to_vec()))
            .map_err(|source| Error::PtxLoad {
                module: name.to_string(),
                sm,
                source,
                log: String::new(),
            })?;
        Ok(Module {
            gpu,
            name: name.to_string(),
            sm,
            code: Code::Sass { sm },
            module,
            functions: Mutex::new(HashMap::new()),
            occupancy: Mutex::new(HashMap::new()),
            clusters: Mutex::new(HashMap::new()),
            cluster_occupancy: Mutex::new(HashMap::new()),
        })
    }

    /// What was loaded: PTX the driver compiled, or machine code.
    pub fn code(&self) -> Code {
        self.code
    }

    /// The SM target of the PTX that was loaded.
    pub fn sm(&self) -> u32 {
        self.sm
    }

    /// The device the module lives on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The limits the driver reports for `kernel`: threads per block given
    /// its register use, and its static shared memory.
    pub fn kernel_limits<K: Kernel>(&self, kernel: K) -> Result<KernelLimits, Error> {
        self.function(kernel).map(|(_, limits)| limits)
    }

    /// Raises `function`'s dynamic shared memory allowance to `dynamic`
    /// bytes when its static and dynamic shared memory pass the default
    /// 48 KiB a block (launches, occupancy figures and cluster figures all
    /// need it).
    fn allow_dynamic_shared(
        &self,
        function: &CudaFunction,
        limits: &KernelLimits,
        dynamic: u32,
    ) -> Result<(), cudarc::driver::DriverError> {
        if dynamic + limits.static_shared_bytes > self.gpu.limits().max_shared_per_block {
            function.set_attribute(
                FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dynamic as i32,
            )?;
        }
        Ok(())
    }

    /// What ptxas made of `kernel` for this GPU: its registers a thread,
    /// local memory (spills), static shared memory and thread limit, as
    /// the driver reports them. A kernel declared
    /// `#[kernel(max_registers = 40)]` reports at most 40 registers.
    pub fn kernel_resources<K: Kernel>(&self, kernel: K) -> Result<KernelResources, Error> {
        let (function, limits) = self.function(kernel)?;
        let attr = |a| attribute(&function, a, K::NAME);
        Ok(KernelResources {
            registers: attr(FnAttr::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            local_bytes: attr(FnAttr::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            static_shared_bytes: limits.static_shared_bytes,
            max_threads_per_block: limits.max_threads_per_block,
        })
    }

    /// How many blocks of `block_threads` threads, each with
    /// `dynamic_shared_bytes` of dynamic shared memory, one multiprocessor
    /// runs at once: the driver's figure from the kernel's registers and
    /// shared memory. 0 when one block does not fit. Kept once asked.
    ///
    /// A grid of `resident_blocks × multiprocessors` blocks is one wave:
    /// every block starts at once.
    pub fn resident_blocks<K: Kernel>(
        &self,
        kernel: K,
        block_threads: u32,
        dynamic_shared_bytes: u32,
    ) -> Result<u32, Error> {
        let key = (K::NAME, block_threads, dynamic_shared_bytes);
        if let Some(&blocks) = self
            .occupancy
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Ok(blocks);
        }
        let (function, limits) = self.function(kernel)?;
        // The driver counts no block whose dynamic shared memory is above
        // the function's allowance (48 KiB until raised).
        self.allow_dynamic_shared(&function, &limits, dynamic_shared_bytes)
            .map_err(Error::driver(format!(
                "allowing `{}` its dynamic shared memory",
                K::NAME
            )))?;
        let blocks = function
            .occupancy_max_active_blocks_per_multiprocessor(
                block_threads,
                dynamic_shared_bytes as usize,
                None,
            )
            .map_err(Error::driver(format!(
                "computing the occupancy of `{}` at {block_threads} threads a block",
                K::NAME
            )))?;
        self.occupancy
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, blocks);
        Ok(blocks)
    }

    /// The most blocks of `block_threads` threads, each with
    /// `dynamic_shared_bytes` of dynamic shared memory, that a cooperative
    /// launch of `kernel` may have on this GPU: the driver's occupancy
    /// figure for the kernel ([`resident_blocks`](Self::resident_blocks))
    /// times the multiprocessors. A larger cooperative grid is refused with
    /// [`LaunchProblem::GridNotCoResident`](crate::LaunchProblem::GridNotCoResident)
    /// before the driver sees it.
    pub fn max_cooperative_blocks<K: Kernel>(
        &self,
        kernel: K,
        block_threads: u32,
        dynamic_shared_bytes: u32,
    ) -> Result<u32, Error> {
        let per = self.resident_blocks(kernel, block_threads, dynamic_shared_bytes)?;
        Ok(per.saturating_mul(self.gpu.limits().multiprocessors))
    }

    /// The block size at which `kernel` keeps the most threads running on
    /// each multiprocessor, given its registers, shared memory and launch
    /// bounds, with `dynamic_shared_bytes(block_threads)` bytes of dynamic
    /// shared memory a block (`|_| 0` for none); and the grid that fills
    /// the GPU at that size (CUDA's `cudaOccupancyMaxPotentialBlockSize`).
    /// Block sizes are searched a warp apart, from the kernel's limit down,
    /// with the driver's occupancy figure
    /// ([`resident_blocks`](Self::resident_blocks)) for each; on a tie the
    /// larger block wins.
    #[doc(alias = "cudaOccupancyMaxPotentialBlockSize")]
    pub fn occupancy_block_size<K: Kernel>(
        &self,
        kernel: K,
        dynamic_shared_bytes: impl Fn(u32) -> u32,
    ) -> Result<BlockSizeChoice, Error> {
        let (_, limits) = self.function(kernel)?;
        choose_block_size(
            limits.max_threads_per_block,
            self.gpu.limits().multiprocessors,
            |threads| self.resident_blocks(kernel, threads, dynamic_shared_bytes(threads)),
        )?
        .ok_or_else(|| {
            no_block_size_fits(
                "Module::occupancy_block_size",
                K::NAME,
                dynamic_shared_bytes(32),
            )
        })
    }

    /// How many clusters of `config`'s shape (its blocks, threads and
    /// dynamic shared memory) can run on this GPU at once: the driver's
    /// cluster occupancy figure (CUDA's `cudaOccupancyMaxActiveClusters`).
    /// A cluster's blocks run together on one group of multiprocessors, so
    /// a large cluster of large blocks may not fit at all: `launch` refuses
    /// such a launch with
    /// [`LaunchProblem::ClusterNotSchedulable`](crate::LaunchProblem::ClusterNotSchedulable)
    /// instead of the driver's error code. Clusters of more than 8 blocks
    /// (up to 16, sm_90's non-portable sizes) are allowed on the kernel
    /// when asked for.
    pub fn max_active_clusters<K: Kernel>(
        &self,
        kernel: K,
        config: LaunchConfig,
    ) -> Result<u32, Error> {
        let (function, limits) = self.function(kernel)?;
        config
            .validate(self.gpu.limits(), &limits)
            .map_err(|problem| Error::InvalidLaunch {
                kernel: K::NAME,
                problem,
            })?;
        if config.cluster == Dim3::new(1, 1, 1) {
            return Err(Error::InvalidArgument {
                call: "Module::max_active_clusters",
                problem: "`config` has no cluster dimensions: give it some with \
                          `LaunchConfig::with_cluster`"
                    .into(),
            });
        }
        let mut clusters = self.clusters.lock().unwrap_or_else(|p| p.into_inner());
        self.allow_dynamic_shared(&function, &limits, config.shared_memory_bytes)
            .map_err(Error::driver(format!(
                "allowing `{}` its dynamic shared memory",
                K::NAME
            )))?;
        require_cluster(&mut clusters, K::NAME, &function, config.cluster)?;
        self.active_clusters(K::NAME, &function, &config)
    }

    /// [`max_active_clusters`](Self::max_active_clusters) once the
    /// function requires the cluster shape (cached).
    fn active_clusters(
        &self,
        name: &'static str,
        function: &CudaFunction,
        config: &LaunchConfig,
    ) -> Result<u32, Error> {
        let key = (
            name,
            config.cluster,
            config.block,
            config.shared_memory_bytes,
        );
        let mut cache = self
            .cluster_occupancy
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(&n) = cache.get(&key) {
            return Ok(n);
        }
        let cfg = cudarc::driver::LaunchConfig {
            grid_dim: (config.grid.x, config.grid.y, config.grid.z),
            block_dim: (config.block.x, config.block.y, config.block.z),
            shared_mem_bytes: config.shared_memory_bytes,
        };
        let n = function
            .occupancy_max_active_clusters(cfg, self.gpu.stream())
            .map_err(Error::driver(format!(
                "computing how many clusters of {} blocks of `{name}` fit at once",
                config.cluster.volume()
            )))?;
        cache.insert(key, n);
        Ok(n)
    }

    /// Launches `kernel` on the module's stream with `args`, one per
    /// non-handle parameter in order, checked against the kernel's
    /// signature at compile time. The configuration is checked against the
    /// device and kernel limits first; a bad one is refused with
    /// [`Error::InvalidLaunch`] naming the limit.
    ///
    /// The launch is asynchronous: a fault of the kernel while running
    /// surfaces at the next wait ([`Gpu::synchronize`], [`Gpu::download`])
    /// as [`Error::KernelFault`], which names this kernel and the caller's
    /// line among the launches since the last successful wait (or at once,
    /// with [`Gpu::with_synchronous_launches`]).
    ///
    /// A `#[kernel(cooperative)]` goes through the driver's cooperative
    /// launch, which a grid sync needs, after a check that its grid fits
    /// on the GPU at once ([`max_cooperative_blocks`](Self::max_cooperative_blocks));
    /// launched [`with_cluster`](LaunchConfig::with_cluster), also that its
    /// clusters do ([`max_active_clusters`](Self::max_active_clusters),
    /// else [`LaunchProblem::ClustersNotCoResident`](crate::LaunchProblem::ClustersNotCoResident)),
    /// through the driver's `cuLaunchKernelEx` with the cooperative
    /// attribute.
    #[track_caller]
    pub fn launch<K: Kernel, A: KernelArgs<K::Params>>(
        &self,
        kernel: K,
        config: LaunchConfig,
        mut args: A,
    ) -> Result<(), Error> {
        let mut words = args.gpu_words().map_err(|argument| Error::WrongDevice {
            kernel: K::NAME,
            device: "GPU",
            argument,
        })?;
        let (function, limits) = self.function(kernel)?;
        config
            .validate(self.gpu.limits(), &limits)
            .map_err(|problem| Error::InvalidLaunch {
                kernel: K::NAME,
                problem,
            })?;
        if config.cluster != coop::Dim3::new(1, 1, 1) && self.sm < 90 {
            return Err(Error::InvalidLaunch {
                kernel: K::NAME,
                problem: crate::LaunchProblem::ClusterPtxTooOld {
                    ptx_sm: self.sm,
                    device_sm: self.gpu.limits().sm,
                },
            });
        }
        let dynamic = config.shared_memory_bytes;
        self.allow_dynamic_shared(&function, &limits, dynamic)
            .map_err(|source| Error::Launch {
                kernel: K::NAME,
                source,
            })?;
        // Clusters: the function's required cluster shape, set before the
        // launch (0, 0, 0 requires none), held while the launch is queued.
        let mut clusters = self.clusters.lock().unwrap_or_else(|p| p.into_inner());
        let clustered = config.cluster != Dim3::new(1, 1, 1);
        require_cluster(&mut clusters, K::NAME, &function, config.cluster)?;
        if clustered {
            let active = self.active_clusters(K::NAME, &function, &config)?;
            let shared_bytes = limits.static_shared_bytes.saturating_add(dynamic);
            if active == 0 {
                return Err(Error::InvalidLaunch {
                    kernel: K::NAME,
                    problem: crate::LaunchProblem::ClusterNotSchedulable {
                        cluster: config.cluster,
                        block_threads: config.block.volume() as u32,
                        shared_bytes,
                    },
                });
            }
            if K::COOPERATIVE {
                crate::launch::check_clusters_co_resident(&config, active, shared_bytes).map_err(
                    |problem| Error::InvalidLaunch {
                        kernel: K::NAME,
                        problem,
                    },
                )?;
            }
        }
        if K::COOPERATIVE {
            if !self.gpu.limits().cooperative_launch {
                return Err(Error::InvalidLaunch {
                    kernel: K::NAME,
                    problem: crate::LaunchProblem::CooperativeUnsupported,
                });
            }
            let per = self.resident_blocks(kernel, config.block.volume() as u32, dynamic)?;
            crate::launch::check_co_resident(
                &config,
                per,
                self.gpu.limits().multiprocessors,
                limits.static_shared_bytes,
            )
            .map_err(|problem| Error::InvalidLaunch {
                kernel: K::NAME,
                problem,
            })?;
        }
        let stream = self.gpu.stream();
        // SAFETY (both launches): the words must match the kernel's PTX
        // parameters in number, order and type, of memory that outlives the
        // launch. They were pushed from `args.gpu_words()`, which exists
        // only when every argument is in GPU memory; each `GpuArg<P>`
        // pushes the words `KernelParam` reads for `P`, and `K::Params`
        // lists the kernel's parameters, so they match its PTX entry point.
        // The buffers are borrowed by `words` until this call returns, and
        // cudarc frees device memory on the stream, after the work queued
        // before. The configuration passed `validate` above. A cooperative
        // kernel's grid fits on the device at once (checked above, in
        // clusters too), which its grid syncs need, and the cooperative
        // launch gives them the driver's barrier word.
        let launched = if K::COOPERATIVE && clustered {
            // cudarc's builder has no launch attributes: the driver's
            // `cuLaunchKernelEx` with the cooperative one (the cluster's
            // shape is the function's, set above).
            let mut raw = crate::args::RawWords::new(stream);
            words.push_raw(&mut raw);
            // SAFETY: as above; `raw` holds the words' addresses, which
            // point into `words`, alive until this function returns.
            unsafe { launch_cooperative_in_clusters(stream, &function, &config, &mut raw) }
        } else {
            let mut builder = stream.launch_builder(&function);
            words.push(&mut builder);
            let cfg = cudarc::driver::LaunchConfig {
                grid_dim: (config.grid.x, config.grid.y, config.grid.z),
                block_dim: (config.block.x, config.block.y, config.block.z),
                shared_mem_bytes: dynamic,
            };
            // SAFETY: as above.
            unsafe {
                if K::COOPERATIVE {
                    builder.launch_cooperative(cfg).map(drop)
                } else {
                    builder.launch(cfg).map(drop)
                }
            }
        };
        launched.map_err(|source| {
            // A fault of an earlier kernel makes every call fail, this
            // launch too: report it as that fault.
            match self.gpu.error(format!("launching `{}`", K::NAME))(source) {
                fault @ Error::KernelFault { .. } => fault,
                _ => Error::Launch {
                    kernel: K::NAME,
                    source,
                },
            }
        })?;
        self.gpu.launched(LaunchRecord {
            kernel: K::NAME,
            at: Location::caller(),
        })
    }

    fn function<K: Kernel>(&self, _kernel: K) -> Result<(CudaFunction, KernelLimits), Error> {
        let mut cache = self.functions.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = cache.get(K::NAME) {
            return Ok(found.clone());
        }
        let function =
            self.module
                .load_function(K::NAME)
                .map_err(|source| Error::KernelNotFound {
                    kernel: K::NAME,
                    module: self.name.clone(),
                    source,
                })?;
        let attr = |a| attribute(&function, a, K::NAME);
        let limits = KernelLimits {
            max_threads_per_block: attr(FnAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            static_shared_bytes: attr(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            max_threads_bound: K::LAUNCH_BOUNDS.max_threads,
            required_block: K::LAUNCH_BOUNDS.block,
        };
        cache.insert(K::NAME, (function.clone(), limits));
        Ok((function, limits))
    }
}

/// Queues `function` on `stream` through the driver's `cuLaunchKernelEx`
/// with the cooperative launch attribute, in the clusters the function
/// requires (set by [`require_cluster`]), with the parameters `words`.
///
/// # Safety
///
/// `words` must hold one address a PTX parameter of the function, in
/// order, each of a value of the parameter's type, alive until this call
/// returns; buffers they name must stay allocated until the launch has run
/// (their guards in `words` order later work on the stream after it); the
/// grid must fit on the device at once, as a cooperative launch needs.
unsafe fn launch_cooperative_in_clusters(
    stream: &cudarc::driver::CudaStream,
    function: &CudaFunction,
    config: &LaunchConfig,
    words: &mut crate::args::RawWords<'_>,
) -> Result<(), cudarc::driver::DriverError> {
    stream.context().bind_to_thread()?;
    // SAFETY: an all-zero attribute value is a valid union (its padding).
    let mut value: sys::CUlaunchAttributeValue = unsafe { core::mem::zeroed() };
    value.cooperative = 1;
    let mut attributes = [sys::CUlaunchAttribute {
        id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
        pad: [0; 4],
        value,
    }];
    let launch = sys::CUlaunchConfig {
        gridDimX: config.grid.x,
        gridDimY: config.grid.y,
        gridDimZ: config.grid.z,
        blockDimX: config.block.x,
        blockDimY: config.block.y,
        blockDimZ: config.block.z,
        sharedMemBytes: config.shared_memory_bytes,
        hStream: stream.cu_stream(),
        attrs: attributes.as_mut_ptr(),
        numAttrs: attributes.len() as u32,
    };
    // SAFETY: the configuration and its attribute live across the call;
    // the function is loaded in the stream's context, bound above; the
    // caller vouches for the parameters and the grid.
    unsafe {
        sys::cuLaunchKernelEx(
            &launch,
            function.cu_function(),
            words.addresses(),
            core::ptr::null_mut(),
        )
    }
    .result()
}

/// The driver's attribute `a` of `function`, the kernel `name`.
fn attribute(function: &CudaFunction, a: FnAttr, name: &str) -> Result<u32, Error> {
    function
        .get_attribute(a)
        .map(|v| v.max(0) as u32)
        .map_err(Error::driver(format!(
            "reading attribute {a:?} of `{name}`"
        )))
}

/// Loads `ptx` again in `ctx` with the JIT's error log switched on, and
/// returns the log. Only called after a load failed, to explain it.
fn jit_error_log(ctx: &CudaContext, ptx: &str) -> String {
    let Ok(src) = std::ffi::CString::new(ptx) else {
        return String::new();
    };
    if ctx.bind_to_thread().is_err() {
        return String::new();
    }
    let mut log = vec![0u8; 16 * 1024];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut values = [
        log.as_mut_ptr() as *mut std::ffi::c_void,
        log.len() as *mut std::ffi::c_void,
    ];
    let mut module = std::ptr::null_mut();
    // SAFETY: `cuModuleLoadDataEx` reads a NUL-terminated image and
    // `options.len()` options with one value each, and writes the module
    // handle and at most the stated number of log bytes. `src` is a
    // `CString`; `options` and `values` are arrays of the same length; the
    // log option points at `log`, alive to the end of this function, with
    // its length as the size; `module` is a local handle.
    let result = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            src.as_ptr() as *const std::ffi::c_void,
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if result == sys::CUresult::CUDA_SUCCESS {
        // SAFETY: `cuModuleUnload` needs a loaded module that is not used
        // after: `module` was loaded just above and is dropped here.
        unsafe { sys::cuModuleUnload(module) };
        return String::new();
    }
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    String::from_utf8_lossy(&log[..end]).trim().to_string()
}
