//! [`Selector`]: device-wide selections on one device, keeping the loaded
//! kernels and the tiles' status words between calls.

use super::{BuiltinSelect, FlaggedParams, Launch, Params, SelectParams, DEFAULT_BLOCK_THREADS};
use crate::algorithms::engine::{block_threads, CountBuffer, Engine, TileStatus};
use crate::ptx_families::SELECT_PTX;
use crate::{Device, Error, Input, LaunchConfig, Output, ProgramRef};
use coop::device::select::{self as device, PARTITION};
use coop::Kernel;
use std::sync::{Mutex, MutexGuard};

/// Device-wide selections on one device: by flags
/// ([`flagged`](Self::flagged), [`partition_flagged`](Self::partition_flagged)),
/// the first of each run ([`unique`](Self::unique)), your own
/// predicates in kernels of yours ([`if_with`](Self::if_with),
/// [`partition_with`](Self::partition_with)), and flags over types of
/// yours ([`flagged_with`](Self::flagged_with),
/// [`partition_flagged_with`](Self::partition_flagged_with)); see the [module
/// docs](super). Each returns the number of elements kept, read back from
/// the device; the `*_into` forms store it in a buffer of yours and
/// return without waiting.
///
/// ```
/// use coop_host::{select::Selector, Device};
///
/// let device = Device::cpu(); // or Device::gpu_or_cpu()
/// let selector = Selector::new(&device)?;
/// let input: Vec<i32> = (0..1000).map(|i| (i * 37) % 101 - 50).collect();
/// let flags: Vec<bool> = input.iter().map(|&x| x > 0).collect();
/// let mut out = vec![0i32; input.len()];
/// let kept = selector.flagged(&input, &flags, &mut out)?;
/// let expected: Vec<i32> = input.iter().copied().filter(|&x| x > 0).collect();
/// assert_eq!(&out[..kept], &expected[..]);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct Selector {
    engine: Engine,
    state: Mutex<State>,
    count: CountBuffer,
    threads: u32,
}

/// What a selector keeps between calls.
#[derive(Default)]
struct State {
    /// Two status words a tile: its 64-bit count of kept elements.
    status: TileStatus,
}

impl std::fmt::Debug for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Selector")
            .field("device", &self.engine.describe())
            .field("threads", &self.threads)
            .finish()
    }
}

/// A call: its name (for errors), and whether it partitions.
#[derive(Clone, Copy)]
pub(super) struct Call {
    name: &'static str,
    partition: bool,
}

impl Call {
    /// A call `name` that compacts what it keeps.
    pub(super) fn select(name: &'static str) -> Call {
        Call {
            name,
            partition: false,
        }
    }

    /// A call `name` that partitions.
    pub(super) fn partition(name: &'static str) -> Call {
        Call {
            name,
            partition: true,
        }
    }
}

impl Selector {
    /// Loads the built-in selection kernels on `device`.
    pub fn new(device: &Device) -> Result<Selector, Error> {
        Ok(Selector {
            engine: Engine::new(device, &SELECT_PTX)?,
            state: Mutex::default(),
            count: CountBuffer::default(),
            threads: DEFAULT_BLOCK_THREADS,
        })
    }

    /// The same selector, launching blocks of `threads` threads (a tile of
    /// `threads × coop::device::select::items_per_thread` elements).
    /// Fails with [`Error::InvalidArgument`] unless `threads` is a
    /// multiple of 32 from 64 to 512, on either backend.
    ///
    /// ```
    /// use coop_host::{select::Selector, Device, Error};
    /// let selector = Selector::new(&Device::cpu())?.with_block_threads(128)?;
    /// let mut out = vec![0u64; 4];
    /// assert_eq!(selector.unique(&vec![7u64, 7, 8, 8], &mut out)?, 2);
    /// let err = Selector::new(&Device::cpu())?.with_block_threads(100).unwrap_err();
    /// assert!(matches!(err, Error::InvalidArgument { .. }));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_block_threads(mut self, threads: u32) -> Result<Self, Error> {
        self.threads = block_threads(
            "Selector::with_block_threads",
            threads,
            "a selection's block",
        )?;
        Ok(self)
    }

    /// The same selector running the built-in kernels of `module` instead
    /// of the ones coop-host ships: a build of `coop-host-kernels` of your
    /// own (other flags, another target, a variant of its PTX), loaded on
    /// this selector's GPU. The module must have every built-in kernel a
    /// call asks for, or that call fails with
    /// [`Error::KernelNotFound`], and its kernels the same items a thread
    /// (`coop::device::select::items_per_thread`), which size the grid.
    ///
    /// Fails with [`Error::Unavailable`] on the CPU backend, which runs the
    /// kernels' Rust code and loads no module, and when `module` was
    /// loaded on another GPU.
    ///
    /// ```no_run
    /// use coop_host::{select::Selector, Device, Gpu};
    ///
    /// let gpu = Gpu::new(0)?;
    /// let ptx = std::fs::read_to_string("select-variant.sm_90.ptx").unwrap();
    /// let module = gpu.load_ptx("select-variant", &ptx)?;
    /// let selector = Selector::new(&Device::Gpu(gpu))?.with_module(module)?;
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn with_module(mut self, module: crate::Module) -> Result<Self, Error> {
        self.engine.set_own(module, "Selector::with_module")?;
        Ok(self)
    }

    /// Copies the elements of `input` whose flag is set to the front of
    /// `output` in their order; returns how many. `flags` is as long as
    /// `input`, `output` at least as long.
    pub fn flagged<'a, 'f, 'b, T: BuiltinSelect>(
        &self,
        input: impl Into<Input<'a, T>>,
        flags: impl Into<Input<'f, bool>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<usize, Error> {
        let call = Call::select("Selector::flagged");
        let flags = flags.into();
        self.counted(
            call,
            ProgramRef::Own,
            T::FLAGGED,
            input.into(),
            Some(flags),
            output.into(),
        )
    }

    /// [`flagged`](Self::flagged), storing the count in `count[0]` on the
    /// device and returning without waiting for it.
    pub fn flagged_into<'a, 'f, 'b, 'c, T: BuiltinSelect>(
        &self,
        input: impl Into<Input<'a, T>>,
        flags: impl Into<Input<'f, bool>>,
        output: impl Into<Output<'b, T>>,
        count: impl Into<Output<'c, u64>>,
    ) -> Result<(), Error> {
        let call = Call::select("Selector::flagged_into");
        let flags = flags.into();
        self.run(
            call,
            ProgramRef::Own,
            T::FLAGGED,
            input.into(),
            Some(flags),
            output.into(),
            Some(count.into()),
        )
    }

    /// Partitions `input` into `output`: the elements whose flag is set
    /// first in their order, the others after them in reverse order;
    /// returns how many flags were set. `flags` is as long as `input`,
    /// `output` at least as long.
    pub fn partition_flagged<'a, 'f, 'b, T: BuiltinSelect>(
        &self,
        input: impl Into<Input<'a, T>>,
        flags: impl Into<Input<'f, bool>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<usize, Error> {
        let call = Call::partition("Selector::partition_flagged");
        let flags = flags.into();
        self.counted(
            call,
            ProgramRef::Own,
            T::FLAGGED,
            input.into(),
            Some(flags),
            output.into(),
        )
    }

    /// [`partition_flagged`](Self::partition_flagged), storing the count
    /// in `count[0]` on the device and returning without waiting for it.
    pub fn partition_flagged_into<'a, 'f, 'b, 'c, T: BuiltinSelect>(
        &self,
        input: impl Into<Input<'a, T>>,
        flags: impl Into<Input<'f, bool>>,
        output: impl Into<Output<'b, T>>,
        count: impl Into<Output<'c, u64>>,
    ) -> Result<(), Error> {
        let call = Call::partition("Selector::partition_flagged_into");
        let flags = flags.into();
        self.run(
            call,
            ProgramRef::Own,
            T::FLAGGED,
            input.into(),
            Some(flags),
            output.into(),
            Some(count.into()),
        )
    }

    /// Copies the first element of each run of equal elements of `input`
    /// to the front of `output`, in order; returns how many. Floats
    /// compare with `==` (`-0.0` equals `0.0`; a NaN is never equal).
    pub fn unique<'a, 'b, T: BuiltinSelect>(
        &self,
        input: impl Into<Input<'a, T>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<usize, Error> {
        let call = Call::select("Selector::unique");
        self.counted(
            call,
            ProgramRef::Own,
            T::UNIQUE,
            input.into(),
            None,
            output.into(),
        )
    }

    /// [`unique`](Self::unique), storing the count in `count[0]` on the
    /// device and returning without waiting for it.
    pub fn unique_into<'a, 'b, 'c, T: BuiltinSelect>(
        &self,
        input: impl Into<Input<'a, T>>,
        output: impl Into<Output<'b, T>>,
        count: impl Into<Output<'c, u64>>,
    ) -> Result<(), Error> {
        let call = Call::select("Selector::unique_into");
        self.run(
            call,
            ProgramRef::Own,
            T::UNIQUE,
            input.into(),
            None,
            output.into(),
            Some(count.into()),
        )
    }

    /// Copies the elements your `kernel` keeps to the front of `output`,
    /// in their order; returns how many. `kernel`, found in `program`
    /// (the [`Program`](crate::Program) or [`Module`](crate::Module) you
    /// loaded it with), has the parameters of
    /// [`Params`](super::Params) and calls
    /// `coop::device::select::select_if` with your predicate (or `unique`
    /// for a type of yours).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::device::select::select_if;
    /// use coop_host::{select::Selector, Device};
    ///
    /// /// Keeps the readings inside the sensor's range.
    /// #[kernel]
    /// pub fn in_range(block: ThreadBlock, input: &[f32], output: Out<f32>, control: u32,
    ///                 selected: Out<u64>, status: Out<u64>, epoch: u32) {
    ///     select_if(block, input, output, |x: f32| (-40.0..=125.0).contains(&x),
    ///               control, selected, status, epoch)
    /// }
    /// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("doc", &[]);
    ///
    /// let device = Device::cpu();
    /// let program = device.load(&PTX)?;
    /// let readings = [21.5f32, -80.0, 130.0, 99.0, f32::NAN, -40.0];
    /// let mut kept = vec![0f32; readings.len()];
    /// let n = Selector::new(&device)?.if_with(&program, in_range, &readings[..], &mut kept)?;
    /// assert_eq!(&kept[..n], [21.5, 99.0, -40.0]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn if_with<'p, 'a, 'b, T, K>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: K,
        input: impl Into<Input<'a, T>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<usize, Error>
    where
        T: coop::DeviceCopy,
        K: Kernel<Params = Params<T>>,
    {
        let call = Call::select("Selector::if_with");
        self.counted(
            call,
            program.into(),
            kernel,
            input.into(),
            None,
            output.into(),
        )
    }

    /// [`if_with`](Self::if_with), storing the count in `count[0]` on the
    /// device and returning without waiting for it.
    pub fn if_with_into<'p, 'a, 'b, 'c, T, K>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: K,
        input: impl Into<Input<'a, T>>,
        output: impl Into<Output<'b, T>>,
        count: impl Into<Output<'c, u64>>,
    ) -> Result<(), Error>
    where
        T: coop::DeviceCopy,
        K: Kernel<Params = Params<T>>,
    {
        let call = Call::select("Selector::if_with_into");
        self.run(
            call,
            program.into(),
            kernel,
            input.into(),
            None,
            output.into(),
            Some(count.into()),
        )
    }

    /// Partitions `input` into `output` with your `kernel`'s predicate
    /// (as for [`if_with`](Self::if_with)): the elements it keeps first in
    /// their order, the others after them in reverse order; returns how
    /// many it kept.
    pub fn partition_with<'p, 'a, 'b, T, K>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: K,
        input: impl Into<Input<'a, T>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<usize, Error>
    where
        T: coop::DeviceCopy,
        K: Kernel<Params = Params<T>>,
    {
        let call = Call::partition("Selector::partition_with");
        self.counted(
            call,
            program.into(),
            kernel,
            input.into(),
            None,
            output.into(),
        )
    }

    /// [`partition_with`](Self::partition_with), storing the count in
    /// `count[0]` on the device and returning without waiting for it.
    pub fn partition_with_into<'p, 'a, 'b, 'c, T, K>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: K,
        input: impl Into<Input<'a, T>>,
        output: impl Into<Output<'b, T>>,
        count: impl Into<Output<'c, u64>>,
    ) -> Result<(), Error>
    where
        T: coop::DeviceCopy,
        K: Kernel<Params = Params<T>>,
    {
        let call = Call::partition("Selector::partition_with_into");
        self.run(
            call,
            program.into(),
            kernel,
            input.into(),
            None,
            output.into(),
            Some(count.into()),
        )
    }

    /// Copies the elements of `input` whose flag is set to the front of
    /// `output` with your `kernel` (for a type without a built-in
    /// selection), in their order; returns how many. `kernel`, found in
    /// `program`, has the parameters of [`FlaggedParams`] and calls
    /// `coop::device::select::select_flagged`; `flags` is as long as
    /// `input`, `output` at least as long.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::device::select::select_flagged;
    /// use coop_host::{select::Selector, Device};
    ///
    /// #[derive(Clone, Copy, Debug, PartialEq, Shuffle, DeviceCopy)]
    /// #[repr(C)]
    /// pub struct Particle { pub x: f32, pub v: f32 }
    ///
    /// #[kernel]
    /// pub fn particles_flagged(block: ThreadBlock, input: &[Particle], flags: &[bool],
    ///                          output: Out<Particle>, control: u32, selected: Out<u64>,
    ///                          status: Out<u64>, epoch: u32) {
    ///     select_flagged(block, input, flags, output, control, selected, status, epoch)
    /// }
    /// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("doc", &[]);
    ///
    /// let device = Device::cpu();
    /// let program = device.load(&PTX)?;
    /// let all = [Particle { x: 0.5, v: 1.0 }, Particle { x: 3.0, v: -1.0 }, Particle { x: 0.1, v: 0.0 }];
    /// let inside: Vec<bool> = all.iter().map(|p| p.x < 1.0).collect();
    /// let mut kept = vec![Particle { x: 0.0, v: 0.0 }; all.len()];
    /// let n = Selector::new(&device)?.flagged_with(&program, particles_flagged, &all[..], &inside, &mut kept)?;
    /// assert_eq!(&kept[..n], [all[0], all[2]]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn flagged_with<'p, 'a, 'f, 'b, T, K>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: K,
        input: impl Into<Input<'a, T>>,
        flags: impl Into<Input<'f, bool>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<usize, Error>
    where
        T: coop::DeviceCopy,
        K: Kernel<Params = FlaggedParams<T>>,
    {
        let call = Call::select("Selector::flagged_with");
        let flags = flags.into();
        self.counted(
            call,
            program.into(),
            kernel,
            input.into(),
            Some(flags),
            output.into(),
        )
    }

    /// [`flagged_with`](Self::flagged_with), storing the count in
    /// `count[0]` on the device and returning without waiting for it.
    pub fn flagged_with_into<'p, 'a, 'f, 'b, 'c, T, K>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: K,
        input: impl Into<Input<'a, T>>,
        flags: impl Into<Input<'f, bool>>,
        output: impl Into<Output<'b, T>>,
        count: impl Into<Output<'c, u64>>,
    ) -> Result<(), Error>
    where
        T: coop::DeviceCopy,
        K: Kernel<Params = FlaggedParams<T>>,
    {
        let call = Call::select("Selector::flagged_with_into");
        let flags = flags.into();
        self.run(
            call,
            program.into(),
            kernel,
            input.into(),
            Some(flags),
            output.into(),
            Some(count.into()),
        )
    }

    /// Partitions `input` into `output` by its flags with your `kernel`
    /// (as for [`flagged_with`](Self::flagged_with)): the flagged elements
    /// first in their order, the others after them in reverse order;
    /// returns how many flags were set.
    pub fn partition_flagged_with<'p, 'a, 'f, 'b, T, K>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: K,
        input: impl Into<Input<'a, T>>,
        flags: impl Into<Input<'f, bool>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<usize, Error>
    where
        T: coop::DeviceCopy,
        K: Kernel<Params = FlaggedParams<T>>,
    {
        let call = Call::partition("Selector::partition_flagged_with");
        let flags = flags.into();
        self.counted(
            call,
            program.into(),
            kernel,
            input.into(),
            Some(flags),
            output.into(),
        )
    }

    /// [`partition_flagged_with`](Self::partition_flagged_with), storing
    /// the count in `count[0]` on the device and returning without
    /// waiting for it.
    pub fn partition_flagged_with_into<'p, 'a, 'f, 'b, 'c, T, K>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: K,
        input: impl Into<Input<'a, T>>,
        flags: impl Into<Input<'f, bool>>,
        output: impl Into<Output<'b, T>>,
        count: impl Into<Output<'c, u64>>,
    ) -> Result<(), Error>
    where
        T: coop::DeviceCopy,
        K: Kernel<Params = FlaggedParams<T>>,
    {
        let call = Call::partition("Selector::partition_flagged_with_into");
        let flags = flags.into();
        self.run(
            call,
            program.into(),
            kernel,
            input.into(),
            Some(flags),
            output.into(),
            Some(count.into()),
        )
    }

    /// Waits until the selections queued on a GPU are done (nothing to
    /// wait for on the CPU backend).
    pub fn synchronize(&self) -> Result<(), Error> {
        self.engine.synchronize()
    }

    /// [`run`](Self::run) with the count in the selector's own buffer,
    /// read back.
    pub(super) fn counted<T, K>(
        &self,
        call: Call,
        program: ProgramRef<'_>,
        kernel: K,
        input: Input<'_, T>,
        flags: Option<Input<'_, bool>>,
        output: Output<'_, T>,
    ) -> Result<usize, Error>
    where
        T: coop::DeviceCopy,
        K: Kernel,
        K::Params: SelectParams<T>,
    {
        if input.is_empty() {
            self.run(call, program, kernel, input, flags, output, None)?;
            return Ok(0);
        }
        let count = self.count.counted(&self.engine, |count| {
            self.run(call, program, kernel, input, flags, output, Some(count))
        })?;
        Ok(count as usize)
    }

    /// Checks a call's arguments and launches its kernel over the tiles;
    /// `count` receives the number kept (`None`: an empty input, which
    /// launches nothing).
    #[allow(clippy::too_many_arguments)]
    fn run<T, K>(
        &self,
        call: Call,
        program: ProgramRef<'_>,
        kernel: K,
        input: Input<'_, T>,
        flags: Option<Input<'_, bool>>,
        mut output: Output<'_, T>,
        count: Option<Output<'_, u64>>,
    ) -> Result<(), Error>
    where
        T: coop::DeviceCopy,
        K: Kernel,
        K::Params: SelectParams<T>,
    {
        let len = input.len();
        if let Some(flags) = &flags {
            if flags.len() != len {
                return Err(Error::InvalidArgument {
                    call: call.name,
                    problem: format!(
                        "{} flags for {len} elements: the flags hold one for each element of \
                         the input",
                        flags.len()
                    ),
                });
            }
        }
        if output.len() < len {
            return Err(Error::InvalidArgument {
                call: call.name,
                problem: format!(
                    "the output holds {} elements and the input {len}: it must hold at least \
                     as many as the input ({})",
                    output.len(),
                    if call.partition {
                        "a partition writes every element"
                    } else {
                        "all of them may be kept"
                    }
                ),
            });
        }
        if let Some(count) = &count {
            if count.is_empty() {
                return Err(Error::InvalidArgument {
                    call: call.name,
                    problem: "the count's buffer is empty: it needs one element".into(),
                });
            }
        }
        let mut on = vec![input.on_gpu()];
        on.extend(flags.as_ref().map(Input::on_gpu));
        on.push(output.on_gpu());
        on.extend(count.as_ref().map(Output::on_gpu));
        self.engine.check_arguments::<K>(&on)?;
        let Some(mut count) = count else {
            return Ok(());
        };
        if len == 0 {
            return self.engine.clear(&mut count.slice_mut(0..1), "the count");
        }
        let launcher = self.engine.resolve(program, call.name)?;
        let threads = self.threads;
        let tiles = device::tiles::<T>(len, threads);
        let words = device::status_len::<T>(len, threads);
        let mut state = self.lock();
        let epoch = state
            .status
            .next_epoch(&self.engine, words, "a selection's tile states")?;
        let mut all = state.status.all();
        let mut status = all.slice_mut(0..words);
        let mut selected = count.slice_mut(0..1);
        K::Params::launch(
            kernel,
            &input,
            flags.as_ref(),
            &mut output,
            Launch {
                launcher,
                config: LaunchConfig::new(tiles as u32, threads)
                    .with_shared_memory(device::shared_memory_bytes::<T>(threads)),
                control: if call.partition { PARTITION } else { 0 },
                selected: &mut selected,
                status: &mut status,
                epoch,
            },
        )
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}
