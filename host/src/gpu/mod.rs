//! One CUDA device opened through the driver: its context, the stream coop
//! launches and copies on, and its limits; loading PTX on it and moving
//! data to and from it.

mod module;
mod timer;

pub use module::Module;
pub use timer::Timer;

use crate::fault::{self, InFlight, LaunchRecord};
use crate::{DeviceLimits, Error, PtxSet};
use cudarc::driver::{
    sys, CudaContext, CudaSlice, CudaStream, DevicePtr, DeviceRepr, DriverError, ValidAsZeroBits,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One CUDA device, with the stream coop launches on.
///
/// ```
/// match coop_host::Gpu::new(0) {
///     Ok(gpu) => println!("{} (sm_{})", gpu.limits().name, gpu.limits().sm),
///     Err(e) => println!("no GPU here: {e}"),
/// }
/// ```
#[derive(Clone, Debug)]
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    limits: Arc<DeviceLimits>,
    state: Arc<State>,
}

/// What the clones of one `Gpu` share besides the context.
#[derive(Debug)]
struct State {
    /// Launches not yet seen finish, for the error a fault becomes.
    in_flight: InFlight,
    /// Wait for every launch before returning from it.
    synchronous: AtomicBool,
}

impl Gpu {
    /// Opens device `ordinal`. Fails with [`Error::NoDriver`] when the CUDA
    /// driver is not installed and [`Error::NoDevice`] when the device does
    /// not exist; never panics for either.
    pub fn new(ordinal: usize) -> Result<Gpu, Error> {
        if !Self::driver_present() {
            return Err(Error::NoDriver);
        }
        let count = CudaContext::device_count()
            .map_err(Error::driver("counting CUDA devices"))?
            .max(0) as usize;
        if ordinal >= count {
            return Err(Error::NoDevice { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| match fault::meaning(e.0) {
            // The driver refuses every new context in a process where a
            // kernel has faulted.
            Some(meaning) => Error::KernelFault {
                launches: Vec::new(),
                code: e.0,
                meaning,
                during: format!("opening CUDA device {ordinal}"),
            },
            None => Error::driver(format!("opening CUDA device {ordinal}"))(e),
        })?;
        let limits = Arc::new(DeviceLimits::from_driver(&ctx)?);
        let stream = ctx.default_stream();
        let synchronous = std::env::var_os("COOP_SYNC_LAUNCHES").is_some_and(|v| v != "0");
        Ok(Gpu {
            ctx,
            stream,
            limits,
            state: Arc::new(State {
                in_flight: InFlight::default(),
                synchronous: AtomicBool::new(synchronous),
            }),
        })
    }

    /// With `on`, every launch on this GPU (and its clones) waits for the
    /// kernel to finish before it returns, so that a fault is reported by
    /// the launch that caused it, naming that one kernel. Slower; for
    /// finding a faulting kernel. The environment variable
    /// `COOP_SYNC_LAUNCHES=1` turns it on for every `Gpu` a program opens.
    ///
    /// ```no_run
    /// let gpu = coop_host::Gpu::new(0)?.with_synchronous_launches(true);
    /// assert!(gpu.synchronous_launches());
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_synchronous_launches(self, on: bool) -> Gpu {
        self.state.synchronous.store(on, Ordering::Relaxed);
        self
    }

    /// Whether launches wait for their kernel (see
    /// [`with_synchronous_launches`](Self::with_synchronous_launches)).
    pub fn synchronous_launches(&self) -> bool {
        self.state.synchronous.load(Ordering::Relaxed)
    }

    /// Maps a driver error: a kernel's fault becomes [`Error::KernelFault`]
    /// naming the launches in flight, anything else [`Error::Driver`].
    pub(crate) fn error(
        &self,
        during: impl Into<String>,
    ) -> impl FnOnce(DriverError) -> Error + '_ {
        let during = during.into();
        move |e| match fault::meaning(e.0) {
            Some(meaning) => Error::KernelFault {
                launches: self.state.in_flight.snapshot(),
                code: e.0,
                meaning,
                during,
            },
            None => Error::Driver {
                action: during,
                source: e,
            },
        }
    }

    /// Records a launch; waits for it in synchronous mode.
    pub(crate) fn launched(&self, record: LaunchRecord) -> Result<(), Error> {
        self.state.in_flight.push(record);
        if self.synchronous_launches() {
            self.synchronize()?;
        }
        Ok(())
    }

    /// Whether the CUDA driver library can be loaded on this machine.
    pub fn driver_present() -> bool {
        // SAFETY: `is_culib_present` is unsafe because loading a shared
        // library runs its initialisers. The libraries it tries are the CUDA
        // driver's, whose initialisers are meant to run in any process that
        // may use CUDA, and it calls nothing in them.
        unsafe { cudarc::driver::sys::is_culib_present() }
    }

    /// The device's limits, read once when it was opened.
    pub fn limits(&self) -> &DeviceLimits {
        &self.limits
    }

    /// The cudarc context, for what coop does not wrap.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream launches and copies go to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Loads the PTX in `set` that best fits this device: the newest SM
    /// target the device can run.
    pub fn load(&self, set: &PtxSet) -> Result<Module, Error> {
        let (sm, ptx) = set
            .best_for(self.limits.sm)
            .ok_or_else(|| Error::NoPtxForDevice {
                module: set.name().to_string(),
                device_sm: self.limits.sm,
                available: set.targets().collect(),
            })?;
        Module::load(self.clone(), set.name(), sm, ptx)
    }

    /// Loads PTX text from elsewhere (nvcc, a file) as a module named `name`.
    /// The SM target is read from its `.target` directive.
    pub fn load_ptx(&self, name: &str, ptx: &str) -> Result<Module, Error> {
        let sm = ptx
            .lines()
            .find_map(|l| l.trim().strip_prefix(".target sm_"))
            .and_then(|t| {
                t.trim_end_matches(|c: char| !c.is_ascii_digit())
                    .parse()
                    .ok()
            })
            .unwrap_or(0);
        Module::load(self.clone(), name, sm, ptx)
    }

    /// Copies `data` to a new device buffer.
    pub fn upload<T: DeviceRepr>(&self, data: &[T]) -> Result<CudaSlice<T>, Error> {
        self.stream
            .clone_htod(data)
            .map_err(self.error(format!("copying {} elements to the GPU", data.len())))
    }

    /// A new device buffer of `len` zeroed elements.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<CudaSlice<T>, Error> {
        self.stream
            .alloc_zeros(len)
            .map_err(self.error(format!("allocating {len} elements on the GPU")))
    }

    /// Waits for the stream and copies `buffer` back. A fault of a kernel
    /// launched before surfaces here as [`Error::KernelFault`].
    pub fn download<T: DeviceRepr, B: DevicePtr<T>>(&self, buffer: &B) -> Result<Vec<T>, Error> {
        let out = self
            .stream
            .clone_dtoh(buffer)
            .map_err(self.error("copying results from the GPU"))?;
        self.state.in_flight.clear();
        Ok(out)
    }

    /// Waits until all work on the stream has finished. A fault of a kernel
    /// launched before surfaces here as [`Error::KernelFault`], naming the
    /// launches since the last successful wait.
    pub fn synchronize(&self) -> Result<(), Error> {
        self.stream
            .synchronize()
            .map_err(self.error("waiting for the GPU"))?;
        self.state.in_flight.clear();
        Ok(())
    }

    /// [`synchronize`](Self::synchronize), giving up after `limit` with
    /// [`Error::Timeout`] naming the launches still in flight (a kernel
    /// that never finishes cannot be stopped; the caller can report and
    /// exit instead of hanging).
    ///
    /// ```no_run
    /// let gpu = coop_host::Gpu::new(0)?;
    /// gpu.synchronize_timeout(std::time::Duration::from_secs(5))?;
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn synchronize_timeout(&self, limit: Duration) -> Result<(), Error> {
        let start = Instant::now();
        let mut pause = Duration::from_micros(20);
        self.ctx
            .bind_to_thread()
            .map_err(self.error("waiting for the GPU"))?;
        loop {
            // SAFETY: the stream belongs to this context, which is bound to
            // the calling thread and alive while `self` is.
            match unsafe { sys::cuStreamQuery(self.stream.cu_stream()) } {
                sys::CUresult::CUDA_SUCCESS => {
                    self.state.in_flight.clear();
                    return Ok(());
                }
                sys::CUresult::CUDA_ERROR_NOT_READY => {}
                code => return Err(self.error("waiting for the GPU")(DriverError(code))),
            }
            let waited = start.elapsed();
            if waited >= limit {
                return Err(Error::Timeout {
                    launches: self.state.in_flight.snapshot(),
                    waited,
                });
            }
            std::thread::sleep(pause.min(limit - waited));
            pause = (pause * 2).min(Duration::from_millis(10));
        }
    }
}
