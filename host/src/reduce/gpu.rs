//! A reduction on a GPU: the reducer's loaded kernels, its scratch in
//! device memory, and the plan's launches into that scratch.

use super::plan::{Sizing, Strategy, THREADS};
use super::{ReductionParams, KERNELS_PTX};
use crate::{Error, Gpu, Module};
use coop::Kernel;
#[cfg(feature = "multi")]
use cudarc::driver::DeviceRepr;
use cudarc::driver::{CudaSlice, CudaView, CudaViewMut};
use std::any::TypeId;
use std::sync::{Mutex, MutexGuard, OnceLock};

/// A [`Reducer`](super::Reducer) on a GPU: the device, the module of the
/// built-in kernels, and the scratch kept between calls.
pub(crate) struct GpuReducer {
    gpu: Gpu,
    module: Box<Module>,
    /// The other families of built-in kernels, loaded at their first call.
    transform: OnceLock<Module>,
    arg: OnceLock<Module>,
    scratch: Mutex<Scratch>,
}

/// Device memory kept between reductions: slots for the blocks' results
/// and, in the last slot, the total; the one-launch kernels' ticket
/// counter; and the type of the total the last reduction left.
#[derive(Default)]
struct Scratch {
    /// Slots of the reduced type, at least 16 bytes a block plus the final
    /// slot; it only grows.
    slots: Option<CudaSlice<u8>>,
    /// The counter of [`Strategy::OneLaunch`]: zero between launches.
    tickets: Option<CudaSlice<u32>>,
    /// The type of the value in the final slot, once a reduction's
    /// launches are queued; `None` while they are not.
    total: Option<(TypeId, &'static str)>,
}

impl GpuReducer {
    /// Loads the built-in kernels on `gpu`.
    pub(super) fn new(gpu: &Gpu) -> Result<Self, Error> {
        Ok(GpuReducer {
            gpu: gpu.clone(),
            module: Box::new(gpu.load(&KERNELS_PTX)?),
            transform: OnceLock::new(),
            arg: OnceLock::new(),
            scratch: Mutex::new(Scratch::default()),
        })
    }

    /// The device's name, for `Debug`.
    pub(super) fn device_name(&self) -> &str {
        &self.gpu.limits().name
    }

    /// Runs the built-in kernels of `module` from now on; fails when it was
    /// loaded on another GPU.
    pub(super) fn set_module(&mut self, module: Module) -> Result<(), Error> {
        if self.gpu.context().cu_ctx() != module.gpu().context().cu_ctx() {
            return Err(Error::Unavailable {
                call: "Reducer::with_module",
                reason: format!(
                    "the module was loaded on another GPU than this reducer's ({}): \
                     load it with the reducer's Gpu",
                    self.gpu.limits().name
                ),
            });
        }
        *self.module = module;
        Ok(())
    }

    /// Reduces `input` with `kernel` (from `module`, or the reducer's own)
    /// and returns the total, once the launches have finished.
    ///
    /// # Safety
    ///
    /// `kernel` must store the reduction of its input, a valid `T`, in its
    /// `partials` as `coop::grid_reduce::reduce_grid` and `reduce_blocks`
    /// do: the total is read back as a `T`.
    pub(super) unsafe fn reduce<T, K>(
        &self,
        module: Option<&Module>,
        kernel: K,
        input: CudaView<'_, T>,
        sizing: &Sizing,
    ) -> Result<T, Error>
    where
        T: Copy + 'static,
        K: Kernel,
        K::Params: ReductionParams<T>,
    {
        let mut scratch = self.lock_scratch();
        self.launch(&mut scratch, module, kernel, input, sizing)?;
        // SAFETY: `total` needs a `T` stored in the final slot if the last
        // reduction was of `T`: the launches just queued are of `T`, and
        // their kernel stores its total there (this function's
        // precondition). The scratch stays locked in between.
        unsafe { scratch.total::<T>(&self.gpu) }
    }

    /// Queues the reduction of `input` with the reducer's own `kernel`
    /// without waiting for it; [`result`](Self::result) reads the total.
    ///
    /// # Safety
    ///
    /// As for [`reduce`](Self::reduce): `kernel` stores the reduction of
    /// its input, a valid `T`, in its `partials`.
    pub(super) unsafe fn enqueue<T, K>(
        &self,
        module: Option<&Module>,
        kernel: K,
        input: CudaView<'_, T>,
        sizing: &Sizing,
    ) -> Result<(), Error>
    where
        T: Copy + 'static,
        K: Kernel,
        K::Params: ReductionParams<T>,
    {
        let mut scratch = self.lock_scratch();
        self.launch(&mut scratch, module, kernel, input, sizing)
    }

    /// Calls `f` with the slot where the last queued reduction, of `T`,
    /// leaves its total, for work queued after it on the GPU's stream (an
    /// NCCL collective combining the totals of several GPUs in place).
    /// Fails as [`result`](Self::result) does when no reduction of `T` was
    /// queued last.
    ///
    /// # Safety
    ///
    /// As for [`result`](Self::result): the last queued reduction's kernel
    /// stores a valid `T` in its final slot. What `f` queues must leave a
    /// valid `T` there.
    #[cfg(feature = "multi")]
    pub(crate) unsafe fn with_total_mut<T: Copy + 'static, R>(
        &self,
        f: impl FnOnce(&mut CudaViewMut<'_, T>) -> R,
    ) -> Result<R, Error> {
        let mut scratch = self.lock_scratch();
        scratch.check_total::<T>()?;
        let slots = scratch
            .slots
            .as_mut()
            .expect("a queued reduction has its slots");
        let count = slots.len() / std::mem::size_of::<T>();
        // SAFETY: `transmute_mut` needs the bytes read as `T` through the
        // view to be valid `T`s; only the final slot is lent out, where the
        // last reduction, of `T` (checked above), stores its total (this
        // function's precondition). The slots start 256-byte aligned.
        let mut all = unsafe { slots.transmute_mut::<T>(count) }
            .expect("`count` values of `T` fit the slots");
        Ok(f(&mut all.slice_mut(count - 1..)))
    }

    /// A new one-element buffer holding the total of the last queued
    /// reduction, of `T`, copied on the GPU once the reduction (and what
    /// was queued after it) has finished; the host does not wait.
    ///
    /// # Safety
    ///
    /// As for [`result`](Self::result).
    #[cfg(feature = "multi")]
    pub(crate) unsafe fn copy_total<T: DeviceRepr + Copy + 'static>(
        &self,
    ) -> Result<CudaSlice<T>, Error> {
        // SAFETY: this function's precondition is `with_total_mut`'s, and
        // the closure only reads the slot.
        unsafe {
            self.with_total_mut::<T, _>(|total| {
                self.gpu
                    .stream()
                    .clone_dtod(&*total)
                    .map_err(self.gpu.error("copying a reduction's total on the GPU"))
            })
        }?
    }

    /// The total of the last queued reduction, once it has finished; `T`
    /// must be its type.
    ///
    /// # Safety
    ///
    /// Every reduction queued on this reducer had a kernel that stores the
    /// reduction of its input, a valid value of its type, in its
    /// `partials`.
    pub(crate) unsafe fn result<T: Copy + 'static>(&self) -> Result<T, Error> {
        // SAFETY: `total` needs a `T` in the final slot if the last
        // reduction was of `T`, which its kernel stored there (this
        // function's precondition).
        unsafe { self.lock_scratch().total::<T>(&self.gpu) }
    }

    /// Runs a reduction that finishes in one launch (a transform-reduction)
    /// over `len` elements of `T` with `kernel` from `module`: `launch`
    /// queues it over the blocks it is given, into the partial results'
    /// slots and the ticket counter; returns the total, a `U`, once the
    /// launch has finished.
    ///
    /// # Safety
    ///
    /// What `launch` queues must store a valid `U` in the last of the slots
    /// it is given, as `coop::grid_reduce::reduce_grid_map` does.
    pub(super) unsafe fn one_launch<T, U: Copy + 'static, K: Kernel>(
        &self,
        module: &Module,
        kernel: K,
        len: usize,
        sizing: &Sizing,
        launch: impl FnOnce(
            u32,
            &mut CudaViewMut<'_, U>,
            &mut CudaViewMut<'_, u32>,
        ) -> Result<(), Error>,
    ) -> Result<U, Error> {
        let resident = module.resident_blocks(kernel, THREADS, 0)?;
        let blocks = sizing.one_wave::<T>(len, self.gpu.limits().multiprocessors, resident);
        let size = std::mem::size_of::<U>();
        let mut scratch = self.lock_scratch();
        let (slots, tickets) = scratch.reserve(&self.gpu, (blocks as usize + 1) * size.max(16))?;
        let count = slots.len() / size;
        // SAFETY: as in `launch`: the kernels read only slots a block of
        // the same launch stored first, the host reads the final slot under
        // this function's precondition, and the slots start 256-byte
        // aligned, `U`s from there.
        let mut all = unsafe { slots.transmute_mut::<U>(count) }
            .expect("`count` values of `U` fit the slots");
        let mut span = all.slice_mut(count - 1 - blocks as usize..);
        let mut tickets = tickets.slice_mut(..1);
        launch(blocks, &mut span, &mut tickets)?;
        scratch.total = Some((TypeId::of::<U>(), std::any::type_name::<U>()));
        // SAFETY: the launch just queued stores a valid `U` in the final
        // slot (this function's precondition).
        unsafe { scratch.total::<U>(&self.gpu) }
    }

    /// The reducer's own module, or `program`'s.
    pub(super) fn module<'a>(
        &'a self,
        program: crate::ProgramRef<'a>,
        call: &'static str,
    ) -> Result<&'a Module, Error> {
        program.gpu_module(&self.module, call)
    }

    /// The module of the built-in family `set` (transform-reductions or
    /// arg-min and arg-max), loaded at its first use.
    pub(super) fn family(&self, set: &'static crate::PtxSet) -> Result<&Module, Error> {
        let slot = if std::ptr::eq(set, &crate::ptx_families::ARG_PTX) {
            &self.arg
        } else {
            &self.transform
        };
        if let Some(module) = slot.get() {
            return Ok(module);
        }
        let module = self.gpu.load(set)?;
        // Another thread may have loaded it meanwhile: either copy serves.
        let _ = slot.set(module);
        Ok(slot.get().expect("set just above"))
    }

    /// The GPU, for launches of the reducer's own.
    pub(super) fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    fn lock_scratch(&self) -> MutexGuard<'_, Scratch> {
        self.scratch.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues the launches of the reduction of `input` with `kernel` from
    /// `module` (or the reducer's own), following `sizing`'s plan, into
    /// `scratch`.
    fn launch<T, K>(
        &self,
        scratch: &mut Scratch,
        module: Option<&Module>,
        kernel: K,
        input: CudaView<'_, T>,
        sizing: &Sizing,
    ) -> Result<(), Error>
    where
        T: Copy + 'static,
        K: Kernel,
        K::Params: ReductionParams<T>,
    {
        let module = module.unwrap_or(&self.module);
        let resident = module.resident_blocks(kernel, THREADS, 0)?;
        let plan = sizing.plan::<T>(
            input.len(),
            self.gpu.limits().multiprocessors,
            resident,
            K::Params::TICKETS,
        );
        let size = std::mem::size_of::<T>();
        let blocks = plan.blocks as usize;
        let (slots, tickets) = scratch.reserve(&self.gpu, (blocks + 1) * size.max(16))?;
        let count = slots.len() / size;
        // SAFETY: `transmute_mut` needs the bytes read as `T` through the
        // view to be valid `T`s. Through it only the kernels read the slots,
        // and only those a block of the same reduction stored first; the
        // host reads the final slot in `Scratch::total`, under that
        // function's precondition. The slots start 256-byte aligned (a
        // driver allocation) and are `size` bytes each, a multiple of `T`'s
        // alignment.
        let mut all = unsafe { slots.transmute_mut::<T>(count) }
            .expect("`count` values of `T` fit the slots");
        match plan.strategy {
            Strategy::OneLaunch => {
                // The blocks' results, then the final slot, where the last
                // block stores the total.
                let mut span = all.slice_mut(count - 1 - blocks..);
                let mut tickets = tickets.slice_mut(..1);
                K::Params::launch_gpu(
                    module,
                    kernel,
                    plan.blocks,
                    &input,
                    &mut span,
                    &mut tickets,
                )?;
            }
            Strategy::OneBlock => {
                let (_, mut total) = all.split_at_mut(count - 1);
                let mut no_tickets = tickets.slice_mut(..0);
                K::Params::launch_gpu(module, kernel, 1, &input, &mut total, &mut no_tickets)?;
            }
            Strategy::TwoLaunches => {
                let (mut partials, mut total) = all.split_at_mut(count - 1);
                let mut partials = partials.slice_mut(..blocks);
                // No tickets: `reduce_grid` does the first of two launches.
                let mut no_tickets = tickets.slice_mut(..0);
                K::Params::launch_gpu(
                    module,
                    kernel,
                    plan.blocks,
                    &input,
                    &mut partials,
                    &mut no_tickets,
                )?;
                let partials = partials.as_view();
                K::Params::launch_gpu(module, kernel, 1, &partials, &mut total, &mut no_tickets)?;
            }
        }
        scratch.total = Some((TypeId::of::<T>(), std::any::type_name::<T>()));
        Ok(())
    }
}

impl Scratch {
    /// Makes room for `bytes` of slots and the ticket counter, and forgets
    /// the total: until the next launches are queued, the final slot holds
    /// nothing [`total`](Self::total) may read.
    fn reserve(
        &mut self,
        gpu: &Gpu,
        bytes: usize,
    ) -> Result<(&mut CudaSlice<u8>, &mut CudaSlice<u32>), Error> {
        if self.slots.as_ref().is_none_or(|s| s.len() < bytes) {
            self.slots = Some(gpu.zeros::<u8>(bytes.max(4096))?);
        }
        if self.tickets.is_none() {
            self.tickets = Some(gpu.zeros::<u32>(1)?);
        }
        self.total = None;
        let (Some(slots), Some(tickets)) = (&mut self.slots, &mut self.tickets) else {
            unreachable!("both are allocated above");
        };
        Ok((slots, tickets))
    }

    /// Fails with [`Error::Unavailable`] when no reduction has been queued,
    /// or the last was of another type than `T`.
    fn check_total<T: 'static>(&self) -> Result<(), Error> {
        let (Some(_), Some((type_id, name))) = (self.slots.as_ref(), self.total) else {
            return Err(Error::Unavailable {
                call: "Reducer::result",
                reason: "nothing has been reduced with this Reducer yet: call enqueue first".into(),
            });
        };
        if type_id != TypeId::of::<T>() {
            let wanted = std::any::type_name::<T>();
            return Err(Error::Unavailable {
                call: "Reducer::result",
                reason: format!(
                    "the last reduction was of `{name}`, not `{wanted}`: ask for \
                     `result::<{name}>()`"
                ),
            });
        }
        Ok(())
    }

    /// The value in the final slot as a `T`, once the launches before have
    /// finished. Fails with [`Error::Unavailable`] when no reduction has
    /// been queued, or the last was of another type.
    ///
    /// # Safety
    ///
    /// The kernel of the last reduction queued must have stored a valid
    /// value of its type in the final slot.
    unsafe fn total<T: Copy + 'static>(&self, gpu: &Gpu) -> Result<T, Error> {
        self.check_total::<T>()?;
        let slots = self
            .slots
            .as_ref()
            .expect("a queued reduction has its slots");
        let size = std::mem::size_of::<T>();
        let count = slots.len() / size;
        let bytes = gpu.download(&slots.slice((count - 1) * size..count * size))?;
        // SAFETY: `read_unaligned` needs `size_of::<T>()` readable bytes that
        // make a valid `T`. `bytes` holds that many, copied from the final
        // slot, where the last reduction, of `T` (checked above), stored its
        // total (this function's precondition).
        Ok(unsafe { std::ptr::read_unaligned(bytes.as_ptr() as *const T) })
    }
}
