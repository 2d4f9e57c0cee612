//! Device-wide reductions from the host: the sum, minimum or maximum of a
//! buffer in one call, on a GPU or on the CPU backend.
//!
//! ```
//! use coop_host::{reduce, Device};
//!
//! let device = Device::cpu(); // or Device::gpu_or_cpu()
//! let data = device.upload(&[3.0f32, -1.5, 8.25, 0.5])?;
//! assert_eq!(reduce::sum(&device, &data)?, 10.25);
//! assert_eq!(reduce::min(&device, &data)?, -1.5);
//! assert_eq!(reduce::max(&device, &data)?, 8.25);
//! # Ok::<(), coop_host::Error>(())
//! ```
//!
//! Each runs one kernel (`coop::grid_reduce::reduce_grid`): a grid of
//! blocks, each reducing its tiles of the input (16-byte vector loads, the
//! tiles dealt to the blocks in turn) to one value; when the grid is one
//! wave (every block resident at once), the block that finishes last
//! reduces those values in the same launch, and past that a second launch
//! of one block does. Any length works, 0 included (the operator's
//! identity), and any alignment (a view starting at any element).
//!
//! Integer sums wrap on overflow and are exact; a float sum `s` of
//! `x_1..x_n` lies within `(n / (4 t) + b / 256 + 48) * eps * sum |x_i|`
//! of the exact sum, `b` and `t` the blocks and threads of the first launch
//! and `eps` the type's machine epsilon: no value passes through more
//! additions (a thread folds its elements into four accumulators, the
//! blocks' results are folded 256 ways, and two block reductions add 8
//! levels each). Float `min`/`max` ignore NaN: the result is NaN
//! only when every value is NaN, or there are none.
//!
//! [`Reducer`] keeps its scratch and loaded kernels between calls;
//! [`Reducer::reduce_with`] runs a reduction kernel of your own (a user
//! operator or type) the same way (see [`ReductionParams`]).

use crate::gpu::Gpu;
use crate::{Buffer, Cpu, Device, Error, LaunchConfig, Module, PtxSet};
use coop::kernel::params::{OutSlice, Slice};
use coop::op::{Max, Min, Sum};
use coop::Kernel;
use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, DeviceRepr, ValidAsZeroBits};
use std::sync::Mutex;

/// The PTX of the built-in reduction kernels (`coop-host-kernels`), which
/// [`Reducer::new`] loads; load it yourself to pass the module to
/// [`Reducer::with_module`] or [`Reducer::reduce_with`].
pub static KERNELS_PTX: PtxSet = crate::include_ptx!("coop-host-kernels");

/// Threads per block of both launches.
pub const THREADS: u32 = 256;

/// An input to reduce: a GPU buffer or view, or host memory for the CPU
/// backend.
#[derive(Debug)]
pub enum Input<'a, T> {
    /// On a GPU.
    Gpu(CudaView<'a, T>),
    /// In host memory.
    Cpu(&'a [T]),
}

impl<T> Input<'_, T> {
    /// Elements to reduce.
    pub fn len(&self) -> usize {
        match self {
            Input::Gpu(v) => v.len(),
            Input::Cpu(s) => s.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<'a, T> From<&'a Buffer<T>> for Input<'a, T> {
    fn from(b: &'a Buffer<T>) -> Self {
        match b {
            Buffer::Gpu(s) => Input::Gpu(s.as_view()),
            Buffer::Cpu(v) => Input::Cpu(v),
        }
    }
}

impl<'a, T> From<&'a CudaSlice<T>> for Input<'a, T> {
    fn from(s: &'a CudaSlice<T>) -> Self {
        Input::Gpu(s.as_view())
    }
}

impl<'a, T> From<CudaView<'a, T>> for Input<'a, T> {
    fn from(v: CudaView<'a, T>) -> Self {
        Input::Gpu(v)
    }
}

impl<'a, T> From<&'a [T]> for Input<'a, T> {
    fn from(s: &'a [T]) -> Self {
        Input::Cpu(s)
    }
}

impl<'a, T> From<&'a Vec<T>> for Input<'a, T> {
    fn from(v: &'a Vec<T>) -> Self {
        Input::Cpu(v)
    }
}

/// A type with a built-in reduction kernel for the operator `O`: `f32`,
/// `f64`, `i32`, `u32`, `i64` and `u64` for [`Sum`], [`Min`] and [`Max`].
pub trait Builtin<O>: Copy + DeviceRepr + ValidAsZeroBits + 'static {
    /// The kernel: one launch (`coop::grid_reduce::reduce_grid`).
    type Kernel: Kernel<Params = (Slice<Self>, OutSlice<Self>, OutSlice<u32>)>;
    /// Its descriptor.
    const KERNEL: Self::Kernel;
}

macro_rules! builtins {
    ($($t:ty, $op:ty => $k:ident;)*) => {$(
        impl Builtin<$op> for $t {
            type Kernel = coop_host_kernels::$k;
            const KERNEL: Self::Kernel = coop_host_kernels::$k;
        }
    )*};
}

builtins! {
    f32, Sum => reduce_sum_f32; f32, Min => reduce_min_f32; f32, Max => reduce_max_f32;
    f64, Sum => reduce_sum_f64; f64, Min => reduce_min_f64; f64, Max => reduce_max_f64;
    i32, Sum => reduce_sum_i32; i32, Min => reduce_min_i32; i32, Max => reduce_max_i32;
    u32, Sum => reduce_sum_u32; u32, Min => reduce_min_u32; u32, Max => reduce_max_u32;
    i64, Sum => reduce_sum_i64; i64, Min => reduce_min_i64; i64, Max => reduce_max_i64;
    u64, Sum => reduce_sum_u64; u64, Min => reduce_min_u64; u64, Max => reduce_max_u64;
}

/// The parameter lists of the reduction kernels a [`Reducer`] runs, and
/// how it launches each:
///
/// - `(input: &[T], partials: Out<T>)`, a kernel that calls
///   `coop::grid_reduce::reduce_blocks`: two launches, every block and
///   then one block over the blocks' results;
/// - `(input: &[T], partials: Out<T>, tickets: Out<u32>)`, a kernel that
///   calls `coop::grid_reduce::reduce_grid` (the built-in kernels): one
///   launch, whose last block reduces the blocks' results, when the grid is
///   one wave (every block resident at once); two otherwise (with no
///   tickets, which makes `reduce_grid` a first pass).
pub trait ReductionParams<T>: coop::kernel::params::ParamList + sealed::Sealed {
    /// Whether the kernel takes tickets, and so can finish in one launch.
    const TICKETS: bool;
    /// Launches `kernel` on a GPU over `blocks` blocks.
    #[doc(hidden)]
    fn launch_gpu<K: Kernel<Params = Self>>(
        module: &Module,
        kernel: K,
        blocks: u32,
        input: &CudaView<'_, T>,
        partials: &mut CudaViewMut<'_, T>,
        tickets: &mut CudaViewMut<'_, u32>,
    ) -> Result<(), Error>;
    /// Launches `kernel` on the CPU backend over `blocks` blocks.
    #[doc(hidden)]
    fn launch_cpu<K: Kernel<Params = Self>>(
        cpu: &Cpu,
        kernel: K,
        blocks: u32,
        input: &[T],
        partials: &mut [T],
        tickets: &mut [u32],
    ) -> Result<(), Error>;
}

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for (super::Slice<T>, super::OutSlice<T>) {}
    impl<T> Sealed for (super::Slice<T>, super::OutSlice<T>, super::OutSlice<u32>) {}
}

/// Implements [`ReductionParams`] for one parameter list: `$args` are the
/// launch's arguments, from `input`, `partials` and `tickets`.
macro_rules! reduction_params {
    ($params:ty, $with_tickets:literal, |$input:ident, $partials:ident, $tickets:ident| $args:expr) => {
        impl<T> ReductionParams<T> for $params {
            const TICKETS: bool = $with_tickets;
            fn launch_gpu<K: Kernel<Params = Self>>(
                module: &Module,
                kernel: K,
                blocks: u32,
                $input: &CudaView<'_, T>,
                $partials: &mut CudaViewMut<'_, T>,
                $tickets: &mut CudaViewMut<'_, u32>,
            ) -> Result<(), Error> {
                module.launch(kernel, LaunchConfig::new(blocks, THREADS), $args)
            }
            fn launch_cpu<K: Kernel<Params = Self>>(
                cpu: &Cpu,
                kernel: K,
                blocks: u32,
                $input: &[T],
                $partials: &mut [T],
                $tickets: &mut [u32],
            ) -> Result<(), Error> {
                cpu.launch(kernel, LaunchConfig::new(blocks, THREADS), $args)
                    .map(drop)
            }
        }
    };
}

reduction_params!(
    (Slice<T>, OutSlice<T>),
    false,
    |input, partials, _tickets| (input, partials)
);
reduction_params!(
    (Slice<T>, OutSlice<T>, OutSlice<u32>),
    true,
    |input, partials, tickets| (input, partials, tickets)
);

enum Backend {
    Gpu {
        gpu: Gpu,
        module: Box<Module>,
        /// Partial results, reused: 16 bytes per block plus the final slot.
        scratch: Mutex<Scratch>,
    },
    Cpu(Cpu),
}

/// The GPU scratch of a [`Reducer`]: the partial results, and the type of
/// the value the last reduction left in its final slot.
#[derive(Default)]
struct Scratch {
    buffer: Option<CudaSlice<u8>>,
    /// The one-launch kernels' block counter: zero between launches.
    tickets: Option<CudaSlice<u32>>,
    last: Option<&'static str>,
}

/// Device-wide reductions on one device, keeping the loaded kernels and the
/// scratch for partial results between calls.
pub struct Reducer {
    backend: Backend,
    blocks_per_sm: u32,
    tiles_per_block: usize,
}

impl std::fmt::Debug for Reducer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let on = match &self.backend {
            Backend::Gpu { gpu, .. } => gpu.limits().name.clone(),
            Backend::Cpu(_) => "the CPU backend".into(),
        };
        f.debug_struct("Reducer")
            .field("device", &on)
            .field("blocks_per_sm", &self.blocks_per_sm)
            .field("tiles_per_block", &self.tiles_per_block)
            .finish()
    }
}

/// Most blocks per multiprocessor of the first launch, by default.
///
/// The first launch splits the input into tiles (each thread of a block
/// loads four 16-byte chunks of a tile) and deals them to its blocks in
/// turn. A small input gets one block per tile; a large one gets up to 64
/// blocks per multiprocessor, about eight waves of the built-in kernels
/// (on sm_90, 8 blocks of [`THREADS`] of the 32-bit kernels fit on a
/// multiprocessor at once, 6 of the 64-bit ones; the wave is the driver's
/// occupancy figure for the kernel): blocks that finish early (on a multiprocessor with
/// a larger share of the memory's bandwidth, or whose tiles were in L2)
/// make room for the others, and the launch ends with less of a tail than
/// one wave of equal shares.
pub const DEFAULT_BLOCKS_PER_SM: u32 = 64;

/// Tiles that a block of the first launch gets at least, by default, once
/// every multiprocessor has a wave of blocks.
pub const MIN_TILES_PER_BLOCK: usize = 1;

/// The CPU backend's stand-in for the blocks a multiprocessor runs at once
/// (the GPU backend asks the driver).
const CPU_RESIDENT_BLOCKS: u32 = 4;

impl Reducer {
    /// Loads the built-in reduction kernels on `device`.
    pub fn new(device: &Device) -> Result<Reducer, Error> {
        let backend = match device {
            Device::Gpu(gpu) => Backend::Gpu {
                gpu: gpu.clone(),
                module: Box::new(gpu.load(&KERNELS_PTX)?),
                scratch: Mutex::new(Scratch::default()),
            },
            Device::Cpu(cpu) => Backend::Cpu(cpu.clone()),
        };
        Ok(Reducer {
            backend,
            blocks_per_sm: DEFAULT_BLOCKS_PER_SM,
            tiles_per_block: MIN_TILES_PER_BLOCK,
        })
    }

    /// The same reducer launching at most `blocks` blocks per
    /// multiprocessor (at least 1) in its first pass; the default is
    /// [`DEFAULT_BLOCKS_PER_SM`].
    pub fn with_blocks_per_sm(mut self, blocks: u32) -> Self {
        self.blocks_per_sm = blocks.max(1);
        self
    }

    /// The same reducer giving each block of its first pass at least
    /// `tiles` tiles (at least 1) once every multiprocessor has a wave of
    /// blocks (as many as it runs at once); the default is
    /// [`MIN_TILES_PER_BLOCK`]. More tiles a block make fewer, longer
    /// blocks.
    pub fn with_tiles_per_block(mut self, tiles: usize) -> Self {
        self.tiles_per_block = tiles.max(1);
        self
    }

    /// The sum (integers wrap).
    pub fn sum<'a, T: Builtin<Sum>>(&self, input: impl Into<Input<'a, T>>) -> Result<T, Error> {
        self.run(None, T::KERNEL, input.into())
    }

    /// The minimum (floats: NaN-ignoring); for no input, the type's maximum
    /// (integers) or NaN (floats).
    pub fn min<'a, T: Builtin<Min>>(&self, input: impl Into<Input<'a, T>>) -> Result<T, Error> {
        self.run(None, T::KERNEL, input.into())
    }

    /// The maximum (floats: NaN-ignoring); for no input, the type's minimum
    /// (integers) or NaN (floats).
    pub fn max<'a, T: Builtin<Max>>(&self, input: impl Into<Input<'a, T>>) -> Result<T, Error> {
        self.run(None, T::KERNEL, input.into())
    }

    /// Reduces `input` with your own `kernel` from `module`: a `#[kernel]`
    /// taking `(input, partials)` that calls
    /// `coop::grid_reduce::reduce_blocks` (two launches), or one taking
    /// `(input, partials, tickets)` that calls `reduce_grid` (one launch
    /// when the grid is one wave, as the built-in kernels); see
    /// [`ReductionParams`]. On the CPU backend `module` is unused.
    ///
    /// `T` is plain data: a `Shuffle` type, for which all-zero bytes are a
    /// valid value.
    pub fn reduce_with<'a, T, K>(
        &self,
        module: Option<&Module>,
        kernel: K,
        input: impl Into<Input<'a, T>>,
    ) -> Result<T, Error>
    where
        T: coop::Shuffle + 'static,
        K: Kernel,
        K::Params: ReductionParams<T>,
    {
        self.run(module, kernel, input.into())
    }

    /// How many blocks the first launch uses for `n` elements of `T`, with
    /// `resident` blocks a multiprocessor at once: one per tile while that
    /// fills one wave, then as many as give each block the fewest tiles
    /// (`tiles_per_block`), up to the most per multiprocessor. Also whether
    /// they are one wave, which a kernel with tickets finishes in one
    /// launch.
    fn blocks_for<T>(&self, n: usize, multiprocessors: u32, resident: u32) -> (usize, bool) {
        let per_tile = THREADS as usize * (16 / std::mem::size_of::<T>().clamp(1, 16)).max(1) * 4;
        let tiles = n.div_ceil(per_tile).max(1);
        let sms = multiprocessors as usize;
        let most = sms * self.blocks_per_sm as usize;
        let one_wave = sms * resident.clamp(1, self.blocks_per_sm) as usize;
        let blocks = tiles
            .div_ceil(self.tiles_per_block)
            .clamp(one_wave, most)
            .min(tiles);
        (blocks, blocks <= one_wave)
    }

    /// Starts the reduction of `input` with the built-in kernel for `O` on
    /// the GPU without waiting for it; [`result`](Self::result) reads the
    /// value. For pipelines and timing: a GPU's launches are asynchronous.
    /// Only on a GPU (the CPU backend has nothing to overlap).
    pub fn enqueue<'a, O, T: Builtin<O>>(
        &self,
        input: impl Into<Input<'a, T>>,
    ) -> Result<(), Error> {
        match &self.backend {
            Backend::Gpu { .. } => self
                .run_inner(None, T::KERNEL, input.into(), false)
                .map(drop),
            Backend::Cpu(_) => Err(Error::Unavailable {
                call: "Reducer::enqueue",
                reason: "the CPU backend reduces when it is called, with nothing to \
                         overlap: call sum, min, max or reduce_with, which return the value"
                    .into(),
            }),
        }
    }

    /// The result of the last [`enqueue`](Self::enqueue)d reduction, once
    /// it has finished (this waits for it). `T` must be the type that
    /// reduction was of.
    ///
    /// Fails with [`Error::Unavailable`] on the CPU backend, when nothing
    /// has been enqueued, or when the last reduction was of another type.
    pub fn result<T: Builtin<Sum>>(&self) -> Result<T, Error> {
        let Backend::Gpu { gpu, scratch, .. } = &self.backend else {
            return Err(Error::Unavailable {
                call: "Reducer::result",
                reason: "the CPU backend enqueues nothing: its sum, min, max and \
                         reduce_with return the value"
                    .into(),
            });
        };
        let guard = scratch.lock().unwrap_or_else(|p| p.into_inner());
        let (Some(buffer), Some(last)) = (guard.buffer.as_ref(), guard.last) else {
            return Err(Error::Unavailable {
                call: "Reducer::result",
                reason: "nothing has been reduced with this Reducer yet: call enqueue first".into(),
            });
        };
        let wanted = std::any::type_name::<T>();
        if last != wanted {
            return Err(Error::Unavailable {
                call: "Reducer::result",
                reason: format!(
                    "the last reduction was of `{last}`, not `{wanted}`: ask for \
                     `result::<{last}>()`"
                ),
            });
        }
        let size = std::mem::size_of::<T>();
        let slots = buffer.len() / size;
        let bytes = gpu.download(&buffer.slice((slots - 1) * size..slots * size))?;
        // SAFETY: the bytes of the `T` the last reduction wrote (its type
        // was checked above).
        Ok(unsafe { std::ptr::read_unaligned(bytes.as_ptr() as *const T) })
    }

    /// The same reducer running the built-in kernels of `module` instead of
    /// the ones coop-host ships: a build of `coop-host-kernels` of your own
    /// (other flags, another target, a variant of its PTX), loaded on this
    /// reducer's GPU. The module must have every built-in kernel a call
    /// asks for, or that call fails with [`Error::KernelNotFound`].
    ///
    /// Fails with [`Error::Unavailable`] on the CPU backend, which runs the
    /// kernels' Rust code and loads no module, and when `module` was
    /// loaded on another GPU.
    pub fn with_module(mut self, module: Module) -> Result<Self, Error> {
        match &mut self.backend {
            Backend::Gpu {
                gpu, module: own, ..
            } => {
                if gpu.context().cu_ctx() != module.gpu().context().cu_ctx() {
                    return Err(Error::Unavailable {
                        call: "Reducer::with_module",
                        reason: format!(
                            "the module was loaded on another GPU than this reducer's ({}): \
                             load it with the reducer's Gpu",
                            gpu.limits().name
                        ),
                    });
                }
                **own = module;
                Ok(self)
            }
            Backend::Cpu(_) => Err(Error::Unavailable {
                call: "Reducer::with_module",
                reason: "the CPU backend runs the kernels' Rust code and loads no module".into(),
            }),
        }
    }

    fn run<T, K>(&self, module: Option<&Module>, kernel: K, input: Input<'_, T>) -> Result<T, Error>
    where
        T: Copy + 'static,
        K: Kernel,
        K::Params: ReductionParams<T>,
    {
        self.run_inner(module, kernel, input, true)
    }

    fn run_inner<T, K>(
        &self,
        module: Option<&Module>,
        kernel: K,
        input: Input<'_, T>,
        fetch: bool,
    ) -> Result<T, Error>
    where
        T: Copy + 'static,
        K: Kernel,
        K::Params: ReductionParams<T>,
    {
        match (&self.backend, input) {
            (
                Backend::Gpu {
                    gpu,
                    module: own,
                    scratch,
                },
                Input::Gpu(view),
            ) => {
                let module = module.unwrap_or(own);
                let resident = module.resident_blocks(kernel, THREADS, 0)?;
                let (blocks, one_wave) =
                    self.blocks_for::<T>(view.len(), gpu.limits().multiprocessors, resident);
                let one_launch = K::Params::TICKETS && one_wave;
                let blocks = blocks as u32;
                let mut guard = scratch.lock().unwrap_or_else(|p| p.into_inner());
                let size = std::mem::size_of::<T>();
                let bytes = (blocks as usize + 1) * size.max(16);
                if guard.buffer.as_ref().is_none_or(|s| s.len() < bytes) {
                    guard.buffer = Some(gpu.zeros::<u8>(bytes.max(4096))?);
                }
                if guard.tickets.is_none() {
                    guard.tickets = Some(gpu.zeros::<u32>(1)?);
                }
                let Scratch {
                    buffer,
                    tickets,
                    last: kind,
                } = &mut *guard;
                // Until the launches are in, the final slot holds nothing
                // `result` may read.
                *kind = None;
                let scratch = buffer.as_mut().expect("allocated above");
                // No tickets: `reduce_grid` does the first of two launches.
                let mut tickets = tickets
                    .as_mut()
                    .expect("allocated above")
                    .slice_mut(..one_launch as usize);
                let slots = scratch.len() / size;
                {
                    // SAFETY: `T` is plain data (the callers' bounds) and the
                    // scratch is 256-byte aligned; every slot read was written
                    // by the kernel first.
                    let mut all = unsafe { scratch.transmute_mut::<T>(slots) }.expect("fits");
                    let b = blocks as usize;
                    if one_launch {
                        // The blocks' results, then the total in the final slot.
                        let mut span = all.slice_mut(slots - 1 - b..);
                        K::Params::launch_gpu(
                            module,
                            kernel,
                            blocks,
                            &view,
                            &mut span,
                            &mut tickets,
                        )?;
                    } else {
                        let (mut partials, mut last) = all.split_at_mut(slots - 1);
                        if blocks == 1 {
                            // One block is enough: one launch, straight to the result.
                            K::Params::launch_gpu(
                                module,
                                kernel,
                                1,
                                &view,
                                &mut last,
                                &mut tickets,
                            )?;
                        } else {
                            let mut partials = partials.slice_mut(..b);
                            K::Params::launch_gpu(
                                module,
                                kernel,
                                blocks,
                                &view,
                                &mut partials,
                                &mut tickets,
                            )?;
                            let partials = partials.as_view();
                            K::Params::launch_gpu(
                                module,
                                kernel,
                                1,
                                &partials,
                                &mut last,
                                &mut tickets,
                            )?;
                        }
                    }
                }
                *kind = Some(std::any::type_name::<T>());
                if !fetch {
                    // SAFETY: no value is read; callers of `enqueue` read the
                    // result with `result`, after the launches.
                    return Ok(unsafe { std::mem::zeroed() });
                }
                let last = scratch.slice((slots - 1) * size..slots * size);
                let bytes = gpu.download(&last)?;
                // SAFETY: the bytes of the `T` the second launch wrote.
                Ok(unsafe { std::ptr::read_unaligned(bytes.as_ptr() as *const T) })
            }
            (Backend::Cpu(cpu), Input::Cpu(slice)) => {
                let (blocks, one_wave) = self.blocks_for::<T>(slice.len(), 1, CPU_RESIDENT_BLOCKS);
                let one_launch = K::Params::TICKETS && one_wave;
                let mut storage = vec![0u128; (blocks + 1) * std::mem::size_of::<T>().div_ceil(16)];
                // SAFETY: 16-byte aligned zeroed storage for `blocks + 1`
                // values of `T`, which the callers' bounds make valid as zeros.
                let all = unsafe {
                    std::slice::from_raw_parts_mut(storage.as_mut_ptr() as *mut T, blocks + 1)
                };
                let mut ticket = [0u32];
                // No tickets: `reduce_grid` does the first of two launches.
                let tickets = &mut ticket[..one_launch as usize];
                let b = blocks as u32;
                if one_launch {
                    K::Params::launch_cpu(cpu, kernel, b, slice, all, tickets)?;
                } else {
                    let (partials, last) = all.split_at_mut(blocks);
                    K::Params::launch_cpu(cpu, kernel, b, slice, partials, tickets)?;
                    K::Params::launch_cpu(cpu, kernel, 1, partials, last, tickets)?;
                }
                let last = &all[blocks..];
                Ok(last[0])
            }
            (Backend::Gpu { .. }, Input::Cpu(_)) => Err(Error::WrongDevice {
                kernel: K::NAME,
                device: "GPU",
                argument: 0,
            }),
            (Backend::Cpu(_), Input::Gpu(_)) => Err(Error::WrongDevice {
                kernel: K::NAME,
                device: "CPU",
                argument: 0,
            }),
        }
    }
}

/// The sum of `input` on `device` (integers wrap); see the module docs.
pub fn sum<'a, T: Builtin<Sum>>(
    device: &Device,
    input: impl Into<Input<'a, T>>,
) -> Result<T, Error> {
    Reducer::new(device)?.sum(input)
}

/// The minimum of `input` on `device`; see the module docs.
pub fn min<'a, T: Builtin<Min>>(
    device: &Device,
    input: impl Into<Input<'a, T>>,
) -> Result<T, Error> {
    Reducer::new(device)?.min(input)
}

/// The maximum of `input` on `device`; see the module docs.
pub fn max<'a, T: Builtin<Max>>(
    device: &Device,
    input: impl Into<Input<'a, T>>,
) -> Result<T, Error> {
    Reducer::new(device)?.max(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_launch_gives_each_tile_a_block_up_to_sixty_four_per_sm() {
        let reducer = Reducer::new(&Device::cpu()).unwrap();
        // 132 multiprocessors running 6 blocks each at once: 792 a wave.
        let f32_grid = |n: usize| reducer.blocks_for::<f32>(n, 132, 6);
        // One tile: 256 threads x four 16-byte chunks = 4096 f32.
        assert_eq!(f32_grid(0), (1, true));
        assert_eq!(f32_grid(1000), (1, true));
        assert_eq!(f32_grid(3 * 4096), (3, true));
        assert_eq!(f32_grid(792 * 4096), (792, true)); // the most in one launch
        assert_eq!(f32_grid(792 * 4096 + 1), (793, false));
        assert_eq!(f32_grid(1 << 26), (8448, false)); // 16384 tiles: 64 a multiprocessor
        assert_eq!(f32_grid(1 << 28), (8448, false));
        assert_eq!(reducer.blocks_for::<f64>(1 << 20, 132, 6), (512, true)); // 2048 f64 a tile
                                                                             // Fewest tiles a block: one wave first, then that many tiles each.
        let eight = Reducer::new(&Device::cpu())
            .unwrap()
            .with_tiles_per_block(8);
        assert_eq!(eight.blocks_for::<f32>(1 << 22, 132, 6), (792, true));
        assert_eq!(eight.blocks_for::<f32>(1 << 26, 132, 6), (2048, false));
        // A lower limit caps both the wave and the total.
        let four = Reducer::new(&Device::cpu()).unwrap().with_blocks_per_sm(4);
        assert_eq!(four.blocks_for::<f32>(1 << 28, 132, 6), (528, true));
        let one = Reducer::new(&Device::cpu()).unwrap().with_blocks_per_sm(1);
        assert_eq!(one.blocks_for::<f32>(1 << 28, 132, 6), (132, true));
    }

    #[test]
    fn the_cpu_backend_says_why_it_enqueues_nothing() {
        let reducer = Reducer::new(&Device::cpu()).unwrap();
        let data = vec![1.0f32; 10];
        let err = reducer.enqueue::<Sum, f32>(&data).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Unavailable {
                    call: "Reducer::enqueue",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("call sum, min, max"), "{err}");
        let err = reducer.result::<f32>().unwrap_err();
        assert!(
            matches!(
                err,
                Error::Unavailable {
                    call: "Reducer::result",
                    ..
                }
            ),
            "{err:?}"
        );
        // The synchronous calls work.
        assert_eq!(reducer.sum(&data).unwrap(), 10.0);
    }
}
