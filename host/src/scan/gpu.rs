//! A scan on a GPU: the scanner's loaded kernels and its tile states in
//! device memory, kept between calls.

use super::params::ScanParams;
use super::Pass;
use crate::ptx_families::SCAN_PTX;
use crate::{Error, Gpu, LaunchConfig, Module, ProgramRef};
use coop::Kernel;
use cudarc::driver::{CudaSlice, CudaView, CudaViewMut};
use std::sync::{Mutex, MutexGuard};

/// Epochs run from 1 to this, then the status words are cleared and they
/// start again (the status word keeps the epoch in its upper 30 bits).
const LAST_EPOCH: u32 = (1 << 30) - 1;

/// A [`Scanner`](super::Scanner) on a GPU.
pub(crate) struct GpuScanner {
    gpu: Gpu,
    module: Box<Module>,
    state: Mutex<TileStates>,
}

/// The tiles' status words and values, kept between scans.
#[derive(Default)]
struct TileStates {
    /// Two status words a tile (`coop::device_scan::status_words`): the
    /// epoch of the scan that last wrote it, a flag, and 32 bits of a
    /// value; zeroed when allocated and when the epochs wrap.
    status: Option<CudaSlice<u64>>,
    /// Two values a tile (aggregates, then inclusive prefixes), of the type
    /// of the scan at hand; it only grows.
    partials: Option<CudaSlice<u8>>,
    /// The epoch of the last scan.
    epoch: u32,
}

impl GpuScanner {
    pub(super) fn new(gpu: &Gpu) -> Result<Self, Error> {
        Ok(GpuScanner {
            gpu: gpu.clone(),
            module: Box::new(gpu.load(&SCAN_PTX)?),
            state: Mutex::new(TileStates::default()),
        })
    }

    pub(super) fn device_name(&self) -> &str {
        &self.gpu.limits().name
    }

    fn lock(&self) -> MutexGuard<'_, TileStates> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues the scan of `input` into `output` with `kernel` (from
    /// `program`), in the passes `passes` lists, each with `exclusive`'s
    /// bit; the host does not wait.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn scan<T, K>(
        &self,
        program: ProgramRef<'_>,
        kernel: K,
        input: CudaView<'_, T>,
        mut output: CudaViewMut<'_, T>,
        passes: &[Pass],
        exclusive: bool,
        threads: u32,
    ) -> Result<(), Error>
    where
        T: coop::DeviceCopy,
        K: Kernel,
        K::Params: ScanParams<T>,
    {
        let module = program.gpu_module(&self.module, "Scanner")?;
        let tiles = coop::device_scan::tiles::<T>(input.len(), threads);
        let mut state = self.lock();
        let epoch = state.next_epoch(&self.gpu, 2 * tiles)?;
        let TileStates {
            status, partials, ..
        } = &mut *state;
        let status = status.as_mut().expect("allocated by next_epoch");
        let bytes = 2 * tiles * std::mem::size_of::<T>();
        if partials.as_ref().is_none_or(|p| p.len() < bytes) {
            *partials = Some(self.gpu.zeros::<u8>(bytes.max(4096))?);
        }
        let partials = partials.as_mut().expect("allocated just above");
        // SAFETY: `transmute_mut` needs the bytes read as `T` through the
        // view to be valid `T`s: the kernels read a value only after a tile
        // of the same scan stored it (the status word's epoch says so), and
        // the host never reads them. A driver allocation is 256-byte
        // aligned.
        let mut values = unsafe { partials.transmute_mut::<T>(2 * tiles) }
            .expect("2 * tiles values of `T` fit the partials");
        let mut status = status.slice_mut(..2 * tiles);
        for pass in passes {
            let blocks = if *pass == Pass::ScanTotals {
                1
            } else {
                tiles as u32
            };
            K::Params::launch_gpu(
                module,
                kernel,
                LaunchConfig::new(blocks, threads),
                &input,
                &mut output,
                pass.control(exclusive),
                &mut status,
                &mut values,
                epoch,
            )?;
        }
        Ok(())
    }

    /// Waits for the queued scans.
    pub(super) fn synchronize(&self) -> Result<(), Error> {
        self.gpu.synchronize()
    }
}

impl TileStates {
    /// The epoch for the next scan, with room for `words` status words.
    fn next_epoch(&mut self, gpu: &Gpu, words: usize) -> Result<u32, Error> {
        if self.status.as_ref().is_none_or(|s| s.len() < words) {
            // Zeroed: no word holds a current epoch. The old words are
            // dropped once the scans queued on them are done (cudarc frees
            // in stream order).
            self.status = Some(gpu.zeros::<u64>(words.max(2048))?);
            self.epoch = 0;
        }
        if self.epoch == LAST_EPOCH {
            let status = self.status.as_mut().expect("allocated above");
            gpu.stream()
                .memset_zeros(status)
                .map_err(gpu.error("clearing a scan's tile states"))?;
            self.epoch = 0;
        }
        self.epoch += 1;
        Ok(self.epoch)
    }
}
