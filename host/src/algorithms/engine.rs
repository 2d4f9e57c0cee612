//! The one way a host call of a device-wide algorithm becomes launches, on
//! either backend.
//!
//! An algorithm is its kernels (in `coop-host-kernels`, calling
//! `coop::device`) and a plan: how many blocks of which kernel, over which
//! views of its input, output and scratch, in what order. It writes the
//! plan once against [`Engine`], which holds the device and the
//! algorithm's own kernels, says where a call's kernel lives (the
//! algorithm's own module, or a program of the caller's), gives the
//! figures a plan is sized by (multiprocessors, blocks a multiprocessor
//! runs at once), and moves data: new zeroed buffers, clearing, reading a
//! result back. Launches go through [`Launcher`], whose one call takes the
//! same arguments ([`Input`], [`Output`], numbers) on a GPU and on the CPU
//! backend. [`Scratch`] is memory an algorithm keeps between calls, of
//! whatever element type the call at hand needs; [`TileStatus`] the
//! status words of single-pass algorithms (decoupled look-back).

use crate::ptx_families::FAMILIES;
use crate::{Buffer, Device, Error, Input, Launcher, Output, Program, ProgramRef, PtxSet};
use coop::{DeviceCopy, Kernel};
use cudarc::driver::CudaSlice;
use std::sync::Mutex;
use std::sync::OnceLock;

/// A device and an algorithm's own kernels on it: the module of its PTX
/// family on a GPU (others loaded at their first use), the CPU backend
/// otherwise.
pub(crate) struct Engine {
    device: Device,
    own: Program,
    /// The families of built-in kernels (`crate::ptx_families::FAMILIES`,
    /// in that order) other than its own, each loaded at its first call.
    families: [OnceLock<Program>; FAMILIES.len()],
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Engine {
    /// Loads `family`, the algorithm's own kernels, on `device`.
    pub(crate) fn new(device: &Device, family: &PtxSet) -> Result<Engine, Error> {
        Ok(Engine {
            device: device.clone(),
            own: device.load(family)?,
            families: Default::default(),
        })
    }

    /// The device.
    pub(crate) fn device(&self) -> &Device {
        &self.device
    }

    /// The device's name, for `Debug`: the GPU's, or the CPU backend.
    pub(crate) fn describe(&self) -> String {
        match &self.device {
            Device::Gpu(gpu) => gpu.limits().name.clone(),
            Device::Cpu(_) => "the CPU backend".into(),
        }
    }

    /// Where the algorithm's own kernels launch.
    pub(crate) fn own(&self) -> Launcher<'_> {
        self.own.launcher()
    }

    /// Runs the built-in kernels of `module` from now on; fails, naming
    /// `call`, on the CPU backend (which loads no module) and when the
    /// module was loaded on another GPU.
    pub(crate) fn set_own(
        &mut self,
        module: crate::Module,
        call: &'static str,
    ) -> Result<(), Error> {
        match &self.device {
            Device::Gpu(gpu) if gpu.context().cu_ctx() == module.gpu().context().cu_ctx() => {
                self.own = Program::Gpu(module);
                Ok(())
            }
            Device::Gpu(gpu) => Err(Error::Unavailable {
                call,
                reason: format!(
                    "the module was loaded on another GPU than this one ({}): load it with \
                     this device's Gpu",
                    gpu.limits().name
                ),
            }),
            Device::Cpu(_) => Err(Error::Unavailable {
                call,
                reason: "the CPU backend runs the kernels' Rust code and loads no module".into(),
            }),
        }
    }

    /// Where the kernels of another built-in family launch, `set` loaded
    /// at its first use on a GPU.
    ///
    /// # Panics
    ///
    /// When `set` is not one of `crate::ptx_families::FAMILIES`.
    pub(crate) fn family(&self, set: &'static PtxSet) -> Result<Launcher<'_>, Error> {
        let Device::Gpu(_) = &self.device else {
            return Ok(self.own());
        };
        let index = FAMILIES
            .iter()
            .position(|(_, family)| std::ptr::eq(*family, set))
            .expect("a family of coop-host's kernels");
        let slot = &self.families[index];
        if let Some(program) = slot.get() {
            return Ok(program.launcher());
        }
        let program = self.device.load(set)?;
        // Another thread may have loaded it meanwhile: either copy serves.
        let _ = slot.set(program);
        Ok(slot.get().expect("set just above").launcher())
    }

    /// Where a call's kernel launches: `program`'s module, or the
    /// algorithm's own for [`ProgramRef::Own`]; fails, naming `call`, for a
    /// program of the other backend.
    pub(crate) fn resolve<'a>(
        &'a self,
        program: ProgramRef<'a>,
        call: &'static str,
    ) -> Result<Launcher<'a>, Error> {
        program.resolve(self.own(), call)
    }

    /// Blocks of `kernel` of `threads` threads that the whole device runs
    /// at once (one wave), at least one a multiprocessor.
    pub(crate) fn wave<K: Kernel>(
        &self,
        launcher: Launcher<'_>,
        kernel: K,
        threads: u32,
    ) -> Result<u32, Error> {
        Ok(launcher.resident_blocks(kernel, threads, 0)?.max(1) * launcher.multiprocessors())
    }

    /// A new buffer of `len` zeroed elements.
    pub(crate) fn zeros<T: DeviceCopy>(&self, len: usize) -> Result<Buffer<T>, Error> {
        self.device.zeros(len)
    }

    /// Sets every element of `output` to zero bytes, in order with the
    /// launches before and after it.
    pub(crate) fn clear<T: DeviceCopy>(
        &self,
        output: &mut Output<'_, T>,
        what: &str,
    ) -> Result<(), Error> {
        match (&self.device, output) {
            (Device::Gpu(gpu), Output::Gpu(view)) => gpu
                .stream()
                .memset_zeros(view)
                .map_err(gpu.error(format!("clearing {what}"))),
            (_, Output::Cpu(slice)) => {
                // SAFETY: all-zero bytes are a valid `T` (`DeviceCopy`).
                slice.fill_with(|| unsafe { std::mem::zeroed() });
                Ok(())
            }
            (Device::Cpu(_), Output::Gpu(_)) => Err(Error::Unavailable {
                call: "clearing scratch",
                reason: format!("{what} is on a GPU and the call on the CPU backend"),
            }),
        }
    }

    /// Copies `from` into the start of `to` (at least as long), in order
    /// with the launches before and after it.
    pub(crate) fn copy<T: DeviceCopy>(
        &self,
        from: &Input<'_, T>,
        to: &mut Output<'_, T>,
        what: &str,
    ) -> Result<(), Error> {
        let len = from.len();
        match (&self.device, from, to) {
            (Device::Gpu(gpu), Input::Gpu(src), Output::Gpu(dst)) => gpu
                .stream()
                .memcpy_dtod(src, &mut dst.slice_mut(0..len))
                .map_err(gpu.error(format!("copying {what}"))),
            (_, Input::Cpu(src), Output::Cpu(dst)) => {
                dst[..len].copy_from_slice(src);
                Ok(())
            }
            _ => Err(Error::Unavailable {
                call: "copying scratch",
                reason: format!("{what} is on one device and its destination on another"),
            }),
        }
    }

    /// The elements of `input`, once the launches before have finished.
    pub(crate) fn read<T: DeviceCopy>(&self, input: &Input<'_, T>) -> Result<Vec<T>, Error> {
        match (&self.device, input) {
            (Device::Gpu(gpu), Input::Gpu(view)) => gpu.download(view),
            (_, Input::Cpu(slice)) => Ok(slice.to_vec()),
            (Device::Cpu(_), Input::Gpu(_)) => Err(Error::Unavailable {
                call: "reading a result",
                reason: "it is on a GPU and the call on the CPU backend".into(),
            }),
        }
    }

    /// Waits until the launches queued on a GPU are done (nothing to wait
    /// for on the CPU backend, whose launches run when they are made).
    pub(crate) fn synchronize(&self) -> Result<(), Error> {
        match &self.device {
            Device::Gpu(gpu) => gpu.synchronize(),
            Device::Cpu(_) => Ok(()),
        }
    }

    /// Fails with [`Error::WrongDevice`] naming `K` and the first of a
    /// call's arguments (each `true` when it is in GPU memory) that is not
    /// on this engine's device.
    pub(crate) fn check_arguments<K: Kernel>(&self, on_gpu: &[bool]) -> Result<(), Error> {
        let gpu = matches!(self.device, Device::Gpu(_));
        match on_gpu.iter().position(|&g| g != gpu) {
            None => Ok(()),
            Some(argument) => Err(Error::WrongDevice {
                kernel: K::NAME,
                device: if gpu { "GPU" } else { "CPU" },
                argument,
            }),
        }
    }
}

/// Sixteen bytes, aligned to 16: the unit of the CPU backend's scratch, so
/// that any element type's values start aligned (as a GPU allocation's
/// 256-byte alignment gives there).
#[derive(Clone, Copy, Default)]
#[repr(C, align(16))]
pub(crate) struct Chunk([u8; 16]);

/// Memory an algorithm keeps between calls on its device, of whatever
/// element type a call needs: bytes on a GPU, 16-byte chunks on the CPU
/// backend. It only grows, zeroed.
#[derive(Default)]
pub(crate) enum Scratch {
    /// Nothing allocated yet.
    #[default]
    Empty,
    /// On a GPU.
    Gpu(CudaSlice<u8>),
    /// In host memory, for the CPU backend.
    Cpu(Vec<Chunk>),
}

impl Scratch {
    /// Bytes it holds.
    fn bytes(&self) -> usize {
        match self {
            Scratch::Empty => 0,
            Scratch::Gpu(s) => s.len(),
            Scratch::Cpu(v) => v.len() * 16,
        }
    }

    /// Makes room for at least `bytes` (a new zeroed allocation of at
    /// least `least` bytes when it holds fewer, or nothing yet: a view of
    /// none of it is still on the engine's device).
    pub(crate) fn reserve(
        &mut self,
        engine: &Engine,
        bytes: usize,
        least: usize,
    ) -> Result<(), Error> {
        if self.bytes() >= bytes && !matches!(self, Scratch::Empty) {
            return Ok(());
        }
        let bytes = bytes.max(least);
        *self = match engine.device() {
            Device::Gpu(gpu) => Scratch::Gpu(gpu.zeros::<u8>(bytes)?),
            Device::Cpu(_) => Scratch::Cpu(vec![Chunk::default(); bytes.div_ceil(16)]),
        };
        Ok(())
    }

    /// All of it as elements of `T` (as many as fit), to be written and
    /// read by kernels.
    ///
    /// # Safety
    ///
    /// The bytes read as `T` through the view must be valid `T`s: kernels
    /// read only values that a launch of the same call stored first, and
    /// the host reads only such values. `T`'s alignment is at most 16.
    pub(crate) unsafe fn typed<T>(&mut self) -> Output<'_, T> {
        let size = std::mem::size_of::<T>().max(1);
        assert!(
            std::mem::align_of::<T>() <= 16,
            "scratch values align to 16 bytes at most"
        );
        match self {
            Scratch::Empty => Output::Cpu(&mut []),
            Scratch::Gpu(bytes) => {
                let count = bytes.len() / size;
                // SAFETY: `transmute_mut` needs the values read through the
                // view to be valid `T`s: this function's precondition. A
                // driver allocation is 256-byte aligned.
                Output::Gpu(unsafe { bytes.transmute_mut::<T>(count) }.expect("`count` values fit"))
            }
            Scratch::Cpu(chunks) => {
                let count = chunks.len() * 16 / size;
                // SAFETY: `from_raw_parts_mut` needs `count` values of `T`
                // at an address aligned for `T`, unaliased while the slice
                // lives: the chunks hold `count * size_of::<T>()` bytes or
                // more, 16-byte aligned (`T` aligns to 16 at most), and are
                // borrowed mutably for the slice's lifetime. The values
                // read are valid `T`s: this function's precondition.
                Output::Cpu(unsafe {
                    std::slice::from_raw_parts_mut(chunks.as_mut_ptr() as *mut T, count)
                })
            }
        }
    }
}

/// Epochs run from 1 to this, then the status words are cleared and they
/// start again (a status word keeps the epoch in 30 bits,
/// `coop::device::look_back`).
const LAST_EPOCH: u32 = (1 << 30) - 1;

/// The status words a single-pass algorithm's tiles publish through
/// (`coop::device::look_back`), kept between its calls: each word holds
/// the epoch of the call that last wrote it, so that the words need
/// clearing only when they are allocated and when the epochs wrap.
#[derive(Default)]
pub(crate) struct TileStatus {
    /// Zeroed when allocated and when the epochs wrap.
    words: Option<Buffer<u64>>,
    /// The epoch of the last call.
    epoch: u32,
}

impl TileStatus {
    /// The epoch of the next call, with room for `words` status words
    /// (`what` names them in an error).
    pub(crate) fn next_epoch(
        &mut self,
        engine: &Engine,
        words: usize,
        what: &str,
    ) -> Result<u32, Error> {
        if self.words.as_ref().is_none_or(|s| s.len() < words) {
            // Zeroed: no word holds a current epoch. The old words are
            // dropped once the launches queued on them are done (cudarc
            // frees in stream order).
            self.words = Some(engine.zeros::<u64>(words.max(2048))?);
            self.epoch = 0;
        }
        if self.epoch == LAST_EPOCH {
            let status = self.words.as_mut().expect("allocated above");
            engine.clear(&mut Output::from(status), what)?;
            self.epoch = 0;
        }
        self.epoch += 1;
        Ok(self.epoch)
    }

    /// All the status words (slice off those of a call's tiles), after
    /// [`next_epoch`](Self::next_epoch) made room for them.
    ///
    /// # Panics
    ///
    /// Before the first [`next_epoch`](Self::next_epoch).
    pub(crate) fn all(&mut self) -> Output<'_, u64> {
        Output::from(self.words.as_mut().expect("allocated by next_epoch"))
    }
}

/// `threads` for a call's blocks, or [`Error::InvalidArgument`] naming
/// `call` unless it is a multiple of 32 from 64 to 512 (`block` names the
/// block: "a scan's block").
pub(crate) fn block_threads(call: &'static str, threads: u32, block: &str) -> Result<u32, Error> {
    if !(64..=512).contains(&threads) || !threads.is_multiple_of(32) {
        return Err(Error::InvalidArgument {
            call,
            problem: format!(
                "{threads} threads a block: {block} is a multiple of 32 threads from 64 to 512"
            ),
        });
    }
    Ok(threads)
}

/// The one-element buffer a call that returns a count (of elements kept,
/// of runs) has its kernel store the count in, kept between calls.
#[derive(Default)]
pub(crate) struct CountBuffer(Mutex<Option<Buffer<u64>>>);

impl CountBuffer {
    /// Runs `launch` with the buffer as the count's output, then reads the
    /// count back (which waits for the launch on a GPU).
    pub(crate) fn counted(
        &self,
        engine: &Engine,
        launch: impl FnOnce(Output<'_, u64>) -> Result<(), Error>,
    ) -> Result<u64, Error> {
        let taken = self.0.lock().unwrap_or_else(|p| p.into_inner()).take();
        let mut count = match taken {
            Some(count) => count,
            None => engine.zeros::<u64>(1)?,
        };
        let result =
            launch(Output::from(&mut count)).and_then(|()| engine.read(&Input::from(&count)));
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(count);
        Ok(result?[0])
    }
}
