//! One CUDA device opened through the driver: its context, the stream coop
//! launches and copies on, and its limits; loading PTX on it and moving
//! data to and from it.

use crate::{DeviceLimits, Error, Module, PtxSet};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DeviceRepr, ValidAsZeroBits};
use std::sync::Arc;

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
        let ctx = CudaContext::new(ordinal)
            .map_err(Error::driver(format!("opening CUDA device {ordinal}")))?;
        let limits = Arc::new(DeviceLimits::from_driver(&ctx)?);
        let stream = ctx.default_stream();
        Ok(Gpu {
            ctx,
            stream,
            limits,
        })
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
        self.stream.clone_htod(data).map_err(Error::driver(format!(
            "copying {} elements to the GPU",
            data.len()
        )))
    }

    /// A new device buffer of `len` zeroed elements.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<CudaSlice<T>, Error> {
        self.stream.alloc_zeros(len).map_err(Error::driver(format!(
            "allocating {len} elements on the GPU"
        )))
    }

    /// Waits for the stream and copies `buffer` back. Errors of kernels
    /// launched before surface here.
    pub fn download<T: DeviceRepr, B: DevicePtr<T>>(&self, buffer: &B) -> Result<Vec<T>, Error> {
        self.stream.clone_dtoh(buffer).map_err(Error::driver(
            "copying results from the GPU (a kernel launched earlier may have failed)",
        ))
    }

    /// Waits until all work on the stream has finished, reporting the first
    /// failure of a kernel launched before.
    pub fn synchronize(&self) -> Result<(), Error> {
        self.stream.synchronize().map_err(Error::driver(
            "waiting for the GPU (a kernel launched earlier may have failed)",
        ))
    }
}
