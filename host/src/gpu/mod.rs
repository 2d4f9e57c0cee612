//! One CUDA device opened through the driver: its context, the stream coop
//! launches and copies on, and its limits; loading PTX on it and moving
//! data to and from it.

mod module;
mod timer;

pub use module::{Code, Module};
pub use timer::Timer;

use crate::fault::{self, InFlight, LaunchRecord};
use crate::{DeviceLimits, Error, PtxSet};
use cudarc::driver::{
    sys, CudaContext, CudaSlice, CudaStream, DevicePtr, DeviceRepr, DriverError, ValidAsZeroBits,
};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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

/// Page-locked host bytes a small result is copied into without the host
/// waiting ([`Gpu::landing`]).
pub(crate) struct Landing {
    /// `None` only once dropped.
    bytes: Option<cudarc::driver::PinnedHostSlice<u8>>,
    /// The state of the GPU it belongs to: freeing the memory of a GPU
    /// abandoned to a kernel that never ends would wait for that kernel.
    state: Arc<State>,
}

impl Drop for Landing {
    fn drop(&mut self) {
        if let Some(bytes) = self.bytes.take() {
            if self.state.abandoned.load(Ordering::Relaxed) {
                // Freeing page-locked memory waits for the copy queued into
                // it, behind the kernel that never ends: leave it to the
                // process's exit, as the context is.
                std::mem::forget(bytes);
            }
        }
    }
}

impl std::fmt::Debug for Landing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Landing({} bytes)", self.len())
    }
}

impl Landing {
    /// How many bytes it holds.
    pub(crate) fn len(&self) -> usize {
        self.pinned().len()
    }

    /// The memory (there until the landing is dropped).
    fn pinned(&self) -> &cudarc::driver::PinnedHostSlice<u8> {
        self.bytes
            .as_ref()
            .expect("a landing holds its memory until dropped")
    }

    /// The bytes, once the copy queued into them has finished (this waits
    /// for it, if the stream has not been waited for already).
    pub(crate) fn bytes(&self) -> Result<&[u8], Error> {
        self.pinned()
            .as_slice()
            .map_err(Error::driver("reading a result copied from the GPU"))
    }
}

/// What the clones of one `Gpu` share besides the context.
#[derive(Debug)]
struct State {
    /// Launches not yet seen finish, for the error a fault becomes.
    in_flight: InFlight,
    /// Wait for every launch before returning from it.
    synchronous: AtomicBool,
    /// The longest a wait may take, in microseconds (0: no limit).
    wait_limit_us: AtomicU64,
    /// A wait gave up on a kernel that never finished: nothing may wait
    /// for the GPU from now on (unloading a module or releasing the
    /// context would wait for the kernel, forever).
    abandoned: AtomicBool,
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
                wait_limit_us: AtomicU64::new(0),
                abandoned: AtomicBool::new(false),
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

    /// With `Some(limit)`, every wait for this GPU (and its clones) that
    /// has no limit of its own — [`synchronize`](Self::synchronize),
    /// [`download`](Self::download), a launch in synchronous mode, and the
    /// device-wide algorithms' reads of their results — gives up after
    /// `limit` with [`Error::Timeout`] instead of waiting forever for a
    /// kernel that never finishes; `None` waits without a limit (the
    /// default).
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// let gpu = coop_host::Gpu::new(0)?.with_wait_limit(Some(Duration::from_secs(30)));
    /// assert_eq!(gpu.wait_limit(), Some(Duration::from_secs(30)));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_wait_limit(self, limit: Option<Duration>) -> Gpu {
        let us = limit.map_or(0, |l| (l.as_micros() as u64).max(1));
        self.state.wait_limit_us.store(us, Ordering::Relaxed);
        self
    }

    /// The limit of [`with_wait_limit`](Self::with_wait_limit), if any.
    pub fn wait_limit(&self) -> Option<Duration> {
        match self.state.wait_limit_us.load(Ordering::Relaxed) {
            0 => None,
            us => Some(Duration::from_micros(us)),
        }
    }

    /// Whether a wait gave up on a kernel that never finished: the GPU is
    /// left to it, and nothing of this device waits for it any more.
    pub fn is_abandoned(&self) -> bool {
        self.state.abandoned.load(Ordering::Relaxed)
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
    ///
    /// Where the set holds machine code for this GPU's architecture
    /// ([`PtxSet::sass_for`]), that is loaded instead, with no compilation
    /// (coop-host's own kernels ship it for sm_80 and sm_90); if the driver
    /// refuses it (a driver older than the ptxas that built it), the PTX.
    /// [`Module::code`] says which was loaded.
    ///
    /// `COOP_PTX_JIT=1` in the environment loads the PTX even where machine
    /// code ships (to compare the two, or to rule the machine code out).
    pub fn load(&self, set: &PtxSet) -> Result<Module, Error> {
        let jit_only = std::env::var_os("COOP_PTX_JIT").is_some_and(|v| v != "0");
        if let Some((sm, cubin)) = set.sass_for(self.limits.sm).filter(|_| !jit_only) {
            if let Ok(module) = Module::load_sass(self.clone(), set.name(), sm, cubin) {
                return Ok(module);
            }
        }
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

    /// Copies `data` into the existing device buffer `buffer`, which must
    /// have exactly `data.len()` elements (CUDA's `cudaMemcpy` host to
    /// device). The copy is ordered on the GPU's stream after the launches
    /// queued before it.
    pub fn upload_into<T: DeviceRepr>(
        &self,
        data: &[T],
        buffer: &mut CudaSlice<T>,
    ) -> Result<(), Error> {
        check_same_length("Gpu::upload_into", data.len(), buffer.len())?;
        self.stream
            .memcpy_htod(data, buffer)
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
    /// launched before surfaces here as [`Error::KernelFault`]; with a
    /// [wait limit](Self::with_wait_limit), a kernel that does not finish
    /// in time as [`Error::Timeout`].
    pub fn download<T: DeviceRepr, B: DevicePtr<T>>(&self, buffer: &B) -> Result<Vec<T>, Error> {
        if let Some(limit) = self.wait_limit() {
            self.synchronize_timeout(limit)?;
        }
        let out = self
            .stream
            .clone_dtoh(buffer)
            .map_err(self.error("copying results from the GPU"))?;
        self.state.in_flight.clear();
        Ok(out)
    }

    /// Page-locked host memory of `bytes` bytes for small results read back
    /// call after call (a reduction's total): a copy into it is queued
    /// without the host waiting, so that several GPUs' copies overlap and
    /// one wait for the stream covers the kernel and the copy.
    pub(crate) fn landing(&self, bytes: usize) -> Result<Landing, Error> {
        // SAFETY: `alloc_pinned_with_flags` leaves the memory uninitialized:
        // it is only read as bytes after a copy into it (`Landing::bytes`
        // is only called by code that queued one), and any bytes are valid
        // `u8`s. Flags 0: cached memory, which the host reads quickly
        // (write-combined memory, cudarc's default, is slow to read).
        let bytes =
            unsafe { self.ctx.alloc_pinned_with_flags::<u8>(bytes, 0) }.map_err(self.error(
                format!("allocating {bytes} bytes of page-locked host memory"),
            ))?;
        Ok(Landing {
            bytes: Some(bytes),
            state: Arc::clone(&self.state),
        })
    }

    /// (For the sharded sort's splitter search.) Queues copies of the
    /// elements of `buffer` at positions `at` (each in
    /// bounds) into the start of `to`, element `k` at bytes `k * size_of::<T>()`,
    /// without waiting; read them with [`Landing::bytes`] after a
    /// [`synchronize`](Self::synchronize).
    #[cfg(feature = "multi")]
    pub(crate) fn queue_reads<T: DeviceRepr>(
        &self,
        buffer: &CudaSlice<T>,
        at: &[usize],
        to: &mut Landing,
    ) -> Result<(), Error> {
        let size = std::mem::size_of::<T>();
        assert!(at.len() * size <= to.len(), "the landing holds the reads");
        assert!(
            at.iter().all(|&i| i < buffer.len()),
            "the reads are in bounds"
        );
        let bytes = to
            .bytes
            .as_mut()
            .expect("a landing holds its memory until dropped")
            .as_mut_slice()
            .map_err(self.error("waiting for a landing's last copy"))?;
        let (base, _read) = buffer.device_ptr(&self.stream);
        self.ctx
            .bind_to_thread()
            .map_err(self.error("copying results from the GPU"))?;
        for (k, &i) in at.iter().enumerate() {
            // SAFETY: the source is element `i` of `buffer` (checked in
            // bounds), alive while borrowed here, and the stream orders the
            // copy after the work queued on it; the destination is `size`
            // bytes of page-locked memory the landing owns, which nothing
            // reads before the caller waits for the stream.
            unsafe {
                cudarc::driver::result::memcpy_dtoh_async(
                    &mut bytes[k * size..(k + 1) * size],
                    base + (i * size) as u64,
                    self.stream.cu_stream(),
                )
            }
            .map_err(self.error("copying results from the GPU"))?;
        }
        Ok(())
    }

    /// Queues the copy of `from` into `to`, of the same length, on the
    /// stream; the host does not wait. Read it with [`Landing::bytes`]
    /// after a [`synchronize`](Self::synchronize).
    pub(crate) fn queue_landing(
        &self,
        from: &cudarc::driver::CudaView<'_, u8>,
        to: &mut Landing,
    ) -> Result<(), Error> {
        // The driver copies as many bytes as the landing holds.
        assert_eq!(from.len(), to.len(), "the landing fits the copy");
        let bytes = to
            .bytes
            .as_mut()
            .expect("a landing holds its memory until dropped");
        self.stream
            .memcpy_dtoh(from, bytes)
            .map_err(self.error("copying a result from the GPU"))
    }

    /// Waits until all work on the stream has finished. A fault of a kernel
    /// launched before surfaces here as [`Error::KernelFault`], naming the
    /// launches since the last successful wait; with a [wait
    /// limit](Self::with_wait_limit), a kernel that does not finish in time
    /// as [`Error::Timeout`].
    pub fn synchronize(&self) -> Result<(), Error> {
        if let Some(limit) = self.wait_limit() {
            return self.synchronize_timeout(limit);
        }
        self.stream
            .synchronize()
            .map_err(self.error("waiting for the GPU"))?;
        self.state.in_flight.clear();
        Ok(())
    }

    /// [`synchronize`](Self::synchronize), giving up after `limit` with
    /// [`Error::Timeout`] naming the launches still in flight. A kernel
    /// that never finishes cannot be stopped: after a timeout the GPU is
    /// left to it ([`is_abandoned`](Self::is_abandoned)), and nothing of
    /// this device waits for it any more — dropping its buffers, modules
    /// and the `Gpu` returns at once — so the caller can report and exit
    /// instead of hanging.
    ///
    /// ```no_run
    /// let gpu = coop_host::Gpu::new(0)?;
    /// gpu.synchronize_timeout(std::time::Duration::from_secs(5))?;
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn synchronize_timeout(&self, limit: Duration) -> Result<(), Error> {
        self.synchronize_watching(Some(limit), Duration::from_millis(10), || Ok(()))
    }

    /// Waits until all work on the stream has finished, polling, and
    /// calling `watch` between polls: an error from `watch` (another rank
    /// of a job failed, say) ends the wait with that error. With a
    /// `limit`, gives up as [`synchronize_timeout`](Self::synchronize_timeout)
    /// does. The pause between polls doubles from 5 µs up to `longest`:
    /// how late the wait may notice the end.
    pub(crate) fn synchronize_watching(
        &self,
        limit: Option<Duration>,
        longest: Duration,
        mut watch: impl FnMut() -> Result<(), Error>,
    ) -> Result<(), Error> {
        let start = Instant::now();
        let mut pause = Duration::from_micros(5).min(longest);
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
            watch()?;
            let waited = start.elapsed();
            let left = match limit {
                Some(limit) if waited >= limit => {
                    self.state.abandoned.store(true, Ordering::Relaxed);
                    return Err(Error::Timeout {
                        launches: self.state.in_flight.snapshot(),
                        waited,
                    });
                }
                Some(limit) => limit - waited,
                None => Duration::MAX,
            };
            if longest < Duration::from_millis(1) && start.elapsed() < SPIN {
                // A short wait: a sleep would overshoot by the system's
                // timer slack (about 50 µs), longer than the wait itself.
                std::thread::yield_now();
                continue;
            }
            std::thread::sleep(pause.min(left));
            pause = (pause * 2).min(longest);
        }
    }
}

/// How long a wait that polls often spins (yielding) before it sleeps.
const SPIN: Duration = Duration::from_millis(2);

impl Drop for Gpu {
    fn drop(&mut self) {
        if self.is_abandoned() {
            // Releasing the last reference to the context destroys it, which
            // waits for the kernel that never ends: keep it, and let the
            // process's exit end the kernel.
            std::mem::forget(Arc::clone(&self.ctx));
        }
    }
}

/// The error of a copy between buffers of different lengths.
pub(crate) fn check_same_length(
    call: &'static str,
    data: usize,
    buffer: usize,
) -> Result<(), Error> {
    if data == buffer {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        call,
        problem: format!(
            "`data` has {data} elements and the buffer {buffer}: a copy into an existing buffer \
             fills all of it; copy into a buffer of {data} elements, or upload `data` as a new one"
        ),
    })
}
