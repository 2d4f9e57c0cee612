//! [`Timer`]: the GPU time of the work queued between two points on a
//! [`Gpu`]'s stream, from CUDA events (not the host's clock, which also
//! counts launch overhead and waits).

use crate::{Error, Gpu};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::CudaEvent;
use std::time::Duration;

/// Times GPU work with a pair of CUDA events recorded on a [`Gpu`]'s
/// stream: [`start`](Self::start) before the work,
/// [`stop`](Self::stop) after it, which waits for the work and returns the
/// time the GPU spent between the two (resolution about half a
/// microsecond). A timer can be started again for the next measurement.
///
/// ```no_run
/// use coop_host::{Gpu, Timer};
///
/// let gpu = Gpu::new(0)?;
/// let mut timer = Timer::new(&gpu)?;
/// let data = gpu.zeros::<f32>(1 << 20)?;
/// timer.start()?;
/// let copy = gpu.stream().clone_dtod(&data).unwrap(); // any work on the stream
/// let elapsed = timer.stop()?;
/// println!("copied 4 MiB in {elapsed:?}");
/// # drop(copy);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Debug)]
pub struct Timer {
    gpu: Gpu,
    start: CudaEvent,
    end: CudaEvent,
    started: bool,
}

impl Timer {
    /// A timer on `gpu`'s stream.
    pub fn new(gpu: &Gpu) -> Result<Timer, Error> {
        // Timing events: cudarc's default events have timing disabled.
        let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let event = || {
            gpu.context()
                .new_event(flags)
                .map_err(gpu.error("creating a CUDA event"))
        };
        Ok(Timer {
            start: event()?,
            end: event()?,
            gpu: gpu.clone(),
            started: false,
        })
    }

    /// Marks the start: work queued on the stream from now on is timed.
    pub fn start(&mut self) -> Result<(), Error> {
        self.start
            .record(self.gpu.stream())
            .map_err(self.gpu.error("recording a timer's start"))?;
        self.started = true;
        Ok(())
    }

    /// Marks the end, waits for the work in between, and returns the GPU
    /// time it took. Fails with [`Error::Unavailable`] when the timer was
    /// not started, and with [`Error::KernelFault`] when a kernel in
    /// between faulted.
    pub fn stop(&mut self) -> Result<Duration, Error> {
        if !self.started {
            return Err(Error::Unavailable {
                call: "Timer::stop",
                reason: "the timer was not started: call `start` before the work".into(),
            });
        }
        self.started = false;
        let fail = || self.gpu.error("waiting for a timer's end");
        self.end.record(self.gpu.stream()).map_err(fail())?;
        self.end.synchronize().map_err(fail())?;
        let ms = self.start.elapsed_ms(&self.end).map_err(fail())?;
        Ok(Duration::from_secs_f64(f64::from(ms) * 1e-3))
    }
}

impl Gpu {
    /// Runs `work` (which queues work on this GPU's stream) and returns its
    /// result with the GPU time of what it queued, measured by a
    /// [`Timer`]; waits for the work.
    ///
    /// ```no_run
    /// let gpu = coop_host::Gpu::new(0)?;
    /// let data = gpu.zeros::<u8>(1 << 30)?;
    /// let (copy, elapsed) = gpu.time(|| Ok(gpu.stream().clone_dtod(&data).unwrap()))?;
    /// println!("{:.0} GB/s", 2.0 * (1u64 << 30) as f64 / elapsed.as_secs_f64() / 1e9);
    /// # drop(copy);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn time<R>(&self, work: impl FnOnce() -> Result<R, Error>) -> Result<(R, Duration), Error> {
        let mut timer = Timer::new(self)?;
        timer.start()?;
        let result = work()?;
        Ok((result, timer.stop()?))
    }
}
