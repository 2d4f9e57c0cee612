//! [`Reducer`] over a set of devices: each device reduces its shard with
//! coop's device-wide reduction, then the host (or NCCL, for totals left
//! on the GPUs and for jobs of processes) combines the totals.

use super::devices::Members;
use super::nccl::{self, NcclOp};
use super::{wire, Devices, Shards};
use crate::reduce::{self, Builtin, Input, ReductionParams};
use crate::{Buffer, Device, Error, Output, Program, ProgramRef};
use coop::op::{Max, Min, Operator, Sum};
use coop::Kernel;
use cudarc::nccl::NcclType;
use std::any::type_name;

/// Device-wide reductions of arrays sharded over a [`Devices`] set.
///
/// Each device reduces its own shard with coop's one-launch reduction (see
/// [`reduce`](crate::reduce)); all devices work at once, since a GPU's
/// launches return before the kernel ends. The devices' totals are then
/// combined:
///
/// - results returned to the host ([`sum`](Self::sum), [`min`](Self::min),
///   [`max`](Self::max), [`reduce_with`](Self::reduce_with) with your own
///   kernel and operator): each GPU's total is copied to page-locked host
///   memory right after its kernel, and the host combines them in rank
///   order once the GPUs are done; in a job of one process a GPU, built-in
///   operators are combined by an NCCL all-reduce of one element instead
///   (user operators through the job's rendezvous, in rank order);
/// - results left on the GPUs (the `all_` variants): an NCCL all-reduce of
///   one element, so that the total is on every GPU for the next kernel.
///
/// On the CPU backend each emulated device reduces its shard with the same
/// kernels, and the totals are combined in rank order. Integer results
/// are exact and the same everywhere; so are float minima and maxima
/// (NaN-ignoring), and float sums returned to the host by a set made in
/// one process. A float sum combined by NCCL (the `all_` variants, jobs of
/// more than two processes) is added in NCCL's order, which may change its
/// last bits against the CPU backend's.
///
/// ```
/// use coop_host::multi::{Devices, Reducer};
///
/// let devices = Devices::cpu(2)?; // or Devices::all_gpus()?
/// let data: Vec<i64> = (-500..500).collect();
/// let shards = devices.scatter(&data)?;
/// let reducer = Reducer::new(&devices)?;
/// assert_eq!(reducer.sum(&shards)?, -500);
/// assert_eq!(reducer.min(&shards)?, -500);
/// assert_eq!(reducer.max(&shards)?, 499);
/// // The total left on every device, for the next kernel there.
/// let everywhere = reducer.all_sum(&shards)?;
/// assert_eq!(devices.gather(&everywhere)?, [-500, -500]);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct Reducer<'d> {
    devices: &'d Devices,
    reducers: Vec<reduce::Reducer>,
}

impl std::fmt::Debug for Reducer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reducer")
            .field("devices", &self.devices.describe())
            .finish()
    }
}

impl<'d> Reducer<'d> {
    /// Loads the built-in reduction kernels on every device of `devices`.
    pub fn new(devices: &'d Devices) -> Result<Reducer<'d>, Error> {
        let reducers = devices
            .iter()
            .map(reduce::Reducer::new)
            .collect::<Result<_, _>>()?;
        Ok(Reducer { devices, reducers })
    }

    /// The same reducer with each device's reducer set by `tune` (for
    /// [`reduce::Reducer::with_blocks_per_sm`] and
    /// [`with_tiles_per_block`](reduce::Reducer::with_tiles_per_block)).
    pub fn tuned(mut self, tune: impl Fn(reduce::Reducer) -> reduce::Reducer) -> Self {
        self.reducers = self.reducers.into_iter().map(tune).collect();
        self
    }

    /// The sum of all shards (integers wrap).
    pub fn sum<T>(&self, input: &Shards<T>) -> Result<T, Error>
    where
        T: Builtin<Sum> + NcclType,
        Sum: Operator<T>,
    {
        self.on_host(Sum, input, "multi::Reducer::sum")
    }

    /// The minimum of all shards (floats: NaN-ignoring); for no input, the
    /// type's maximum (integers) or NaN (floats).
    pub fn min<T>(&self, input: &Shards<T>) -> Result<T, Error>
    where
        T: Builtin<Min> + NcclType,
        Min: Operator<T>,
    {
        self.on_host(Min, input, "multi::Reducer::min")
    }

    /// The maximum of all shards (floats: NaN-ignoring); for no input, the
    /// type's minimum (integers) or NaN (floats).
    pub fn max<T>(&self, input: &Shards<T>) -> Result<T, Error>
    where
        T: Builtin<Max> + NcclType,
        Max: Operator<T>,
    {
        self.on_host(Max, input, "multi::Reducer::max")
    }

    /// The sum of all shards, left on every device: one element a device,
    /// ready for the kernels that use it (nothing crosses to the host; the
    /// call does not wait for the GPUs).
    pub fn all_sum<T>(&self, input: &Shards<T>) -> Result<Shards<T>, Error>
    where
        T: Builtin<Sum> + NcclType,
        Sum: Operator<T>,
    {
        self.everywhere(Sum, input, "multi::Reducer::all_sum")
    }

    /// The minimum of all shards, left on every device (see
    /// [`all_sum`](Self::all_sum)).
    pub fn all_min<T>(&self, input: &Shards<T>) -> Result<Shards<T>, Error>
    where
        T: Builtin<Min> + NcclType,
        Min: Operator<T>,
    {
        self.everywhere(Min, input, "multi::Reducer::all_min")
    }

    /// The maximum of all shards, left on every device (see
    /// [`all_sum`](Self::all_sum)).
    pub fn all_max<T>(&self, input: &Shards<T>) -> Result<Shards<T>, Error>
    where
        T: Builtin<Max> + NcclType,
        Max: Operator<T>,
    {
        self.everywhere(Max, input, "multi::Reducer::all_max")
    }

    /// Reduces every shard with your own `kernel`, one of `programs` (the
    /// set's [`load`](Devices::load), one a device), as
    /// [`reduce::Reducer::reduce_with`] does on one device, and combines
    /// the devices' totals with `op` on the host, in rank order: `op` must
    /// be the operator the kernel reduces with.
    ///
    /// `T` is plain data: a `Shuffle` type, for which all-zero bytes are a
    /// valid value. `T` and the kernel's marker type are `Send + Sync`
    /// (plain data and `#[kernel]` markers are): each GPU of a set made in
    /// one process queues and waits for its part on a thread of its own.
    pub fn reduce_with<T, K, O>(
        &self,
        programs: &[Program],
        kernel: K,
        op: O,
        input: &Shards<T>,
    ) -> Result<T, Error>
    where
        T: coop::Shuffle + Send + Sync + 'static,
        K: Kernel + Sync,
        K::Params: ReductionParams<T>,
        O: Operator<T>,
    {
        const CALL: &str = "multi::Reducer::reduce_with";
        self.devices.check(input, CALL)?;
        if programs.len() != self.devices.count() {
            return Err(Error::Shards {
                call: CALL,
                problem: format!(
                    "{} program(s) for a set of {} device(s); pass `devices.load(&PTX)?`, \
                     one program a device",
                    programs.len(),
                    self.devices.count()
                ),
            });
        }
        let shards: Vec<&Buffer<T>> = input.iter().collect();
        // SAFETY: `totals` needs what `queue` queues to store a valid `T`
        // and all-zero bytes to be a valid `T`: `reduce_with`'s documented
        // requirements, as for `reduce::Reducer::reduce_with` (a `Shuffle`
        // type is plain data).
        let total = unsafe {
            self.totals(op, CALL, |reducer, i| {
                reducer.queue(
                    ProgramRef::from(&programs[i]),
                    kernel,
                    &Input::from(shards[i]),
                    CALL,
                )
            })?
        };
        self.across_processes(op, total, CALL, wire::words_of, |part| {
            wire::value_of(total, part)
        })
    }

    /// For a set joined by rank, `op` over every rank's `total` in rank
    /// order (every rank gets it), the totals travelling as `encode` makes
    /// them and `decode` reads them; else `total`.
    fn across_processes<T, O>(
        &self,
        op: O,
        total: T,
        call: &'static str,
        encode: impl Fn(T) -> Vec<u8>,
        decode: impl Fn(&[u8]) -> Option<T>,
    ) -> Result<T, Error>
    where
        T: Copy + 'static,
        O: Operator<T>,
    {
        let Some(parts) = self.devices.across(call, type_name::<T>(), encode(total))? else {
            return Ok(total);
        };
        parts.iter().try_fold(op.identity(), |all, part| {
            let theirs = decode(part).ok_or_else(|| self.devices.garbled(call))?;
            Ok(op.combine(all, theirs))
        })
    }

    /// Queues a reduction of `T` on each device with `queue` (given the
    /// device's reducer and index), waits for them and combines their
    /// totals with `op` in rank order. Several GPUs of one process each
    /// queue, then wait, on a thread of their own; a job's process waits
    /// watching the other ranks.
    ///
    /// # Safety
    ///
    /// The reduction `queue` queues stores a valid `T` in its final slot,
    /// as `reduce_grid` does, and all-zero bytes are a valid `T` (the
    /// requirements of [`reduce::Reducer::queue`]).
    unsafe fn totals<T, O>(
        &self,
        op: O,
        call: &'static str,
        queue: impl Fn(&reduce::Reducer, usize) -> Result<(), Error> + Sync,
    ) -> Result<T, Error>
    where
        T: Copy + Send + 'static,
        O: Operator<T>,
    {
        let reducers = &self.reducers;
        // Two rounds: every device's launches first, then the waits, so
        // that a rank run by the caller in turn (its thread asleep) does not
        // hold back the next rank's launch by the length of its kernel.
        all_ok(self.devices.each(|i| {
            queue(&reducers[i], i)?;
            // SAFETY: the reduction just queued stores a valid `T` (the
            // caller's promise).
            unsafe { reducers[i].land_total::<T>() }
        }))?;
        let totals: Vec<T> = if self.devices.joined() {
            self.devices.settle(call)?;
            reducers
                .iter()
                // SAFETY: as above; `settle` waited for the copies.
                .map(|r| unsafe { r.landed_total::<T>() })
                .collect::<Result<_, _>>()?
        } else {
            self.devices
                .each(|i| {
                    reducers[i].device().synchronize()?;
                    // SAFETY: as above; the device's work is done.
                    unsafe { reducers[i].landed_total::<T>() }
                })
                .into_iter()
                .collect::<Result<_, _>>()?
        };
        Ok(totals
            .into_iter()
            .fold(op.identity(), |all, t| op.combine(all, t)))
    }

    /// The combined total of the built-in reduction for `O`, on the host.
    /// The GPUs of one process copy their totals to the host (each copy
    /// queued after its kernel, so the host waits once a GPU) and the host
    /// combines them in rank order: cheaper than an NCCL collective for
    /// one element, and the same order as the CPU backend's. A job of
    /// processes combines them with NCCL, which the ranks share.
    fn on_host<T, O>(&self, op: O, input: &Shards<T>, call: &'static str) -> Result<T, Error>
    where
        T: Builtin<O> + NcclType,
        O: NcclOp + Operator<T>,
    {
        if !self.devices.joined() && matches!(self.devices.members(), Members::Gpus { .. }) {
            self.devices.check(input, call)?;
            let shards: Vec<&Buffer<T>> = input.iter().collect();
            // SAFETY: `T::KERNEL` is a built-in kernel, which stores its
            // reduction, and `Builtin` types are valid as zeros.
            return unsafe {
                self.totals(op, call, |reducer, i| {
                    reducer.queue(ProgramRef::Own, T::KERNEL, &Input::from(shards[i]), call)
                })
            };
        }
        match self.builtin(op, input, call)? {
            Some(total) => Ok(total),
            None => {
                self.devices.settle(call)?;
                // SAFETY: `result` needs the queued reductions' kernels to
                // store valid `T`s: built-in kernels, and NCCL's combination
                // of their totals. Rank 0 holds the combined total once
                // NCCL is done.
                unsafe { self.reducers[0].queued_total::<T>() }
            }
        }
    }

    /// The combined total of the built-in reduction for `O`, one element on
    /// every device.
    fn everywhere<T, O>(
        &self,
        op: O,
        input: &Shards<T>,
        call: &'static str,
    ) -> Result<Shards<T>, Error>
    where
        T: Builtin<O> + NcclType,
        O: NcclOp + Operator<T>,
    {
        let buffers = match self.builtin(op, input, call)? {
            Some(total) => (0..self.devices.count())
                .map(|_| Buffer::Cpu(vec![total]))
                .collect(),
            None => (0..self.devices.count())
                // SAFETY: `copy_total` needs a valid `T` in the final slot:
                // the combination of the built-in kernels' totals.
                .map(|rank| unsafe { self.copy_total::<T>(rank) })
                .collect::<Result<_, _>>()?,
        };
        Ok(Shards::new(buffers))
    }

    /// Reduces every shard with the built-in kernel for `O` and combines
    /// the totals: in rank order on the CPU backend (across the processes
    /// of a set joined by rank too), returning the total; on GPUs by an
    /// NCCL all-reduce queued after the kernels, which leaves the total in
    /// every GPU's final slot (`None`). In a set joined by rank, the ranks
    /// first confirm through the rendezvous that they all make this call
    /// on this type (while the kernels run), so that NCCL never sees
    /// mismatched calls.
    fn builtin<T, O>(
        &self,
        op: O,
        input: &Shards<T>,
        call: &'static str,
    ) -> Result<Option<T>, Error>
    where
        T: Builtin<O> + NcclType,
        O: NcclOp + Operator<T>,
    {
        self.devices.check(input, call)?;
        let shards: Vec<&Buffer<T>> = input.iter().collect();
        let reducers = &self.reducers;
        all_ok(self.devices.each(|i| {
            // SAFETY: `queue` needs a kernel that stores its reduction and a
            // `T` valid as all-zero bytes: `T::KERNEL` is a built-in kernel
            // (it calls `reduce_grid`), and `Builtin` requires
            // `DeviceCopy` (valid as zeros).
            unsafe { reducers[i].queue(ProgramRef::Own, T::KERNEL, &Input::from(shards[i]), call) }
        }))?;
        match self.devices.members() {
            Members::Cpus(_) => {
                let mut total = op.identity();
                for reducer in &self.reducers {
                    // SAFETY: as for `queue` above.
                    total = op.combine(total, unsafe { reducer.queued_total::<T>()? });
                }
                let total = self.across_processes(
                    op,
                    total,
                    call,
                    |t| wire::bytes_of(&[t]),
                    |part| wire::values_of::<T>(part).and_then(|v| v.first().copied()),
                )?;
                Ok(Some(total))
            }
            Members::Gpus { nccl: None, .. } => Ok(None),
            Members::Gpus {
                nccl: Some(nccl), ..
            } => {
                self.devices.across(call, type_name::<T>(), Vec::new())?;
                nccl.group("combining the GPUs' totals", |rank, comm| {
                    // SAFETY: `with_total_mut` needs the last queued
                    // reduction's kernel to store a valid `T`: the built-in
                    // kernel just queued. NCCL's all-reduce leaves the
                    // combination of valid `T`s, a valid `T`.
                    unsafe {
                        self.reducers[rank].with_total_mut::<T, _>(|total| {
                            let Output::Gpu(total) = total else {
                                unreachable!("a set of GPUs reduces on GPUs")
                            };
                            comm.all_reduce_in_place(total, O::nccl())
                                .map_err(nccl::error(format!(
                                    "combining the totals on rank {rank}"
                                )))
                        })
                    }?
                })
                .map_err(|e| self.devices.failed_here(e))?;
                Ok(None)
            }
        }
    }

    /// A new one-element buffer holding the total of the last queued
    /// reduction on `rank`, a GPU, copied there once the reduction (and what
    /// was queued after it) has finished; the host does not wait.
    ///
    /// # Safety
    ///
    /// The last reduction queued on `rank` left a valid `T` in its final
    /// slot.
    unsafe fn copy_total<T: cudarc::driver::DeviceRepr + Copy + 'static>(
        &self,
        rank: usize,
    ) -> Result<Buffer<T>, Error> {
        let reducer = &self.reducers[rank];
        let Device::Gpu(gpu) = reducer.device() else {
            unreachable!("a set of GPUs reduces on GPUs")
        };
        // SAFETY: the caller's promise; the closure only reads the slot.
        unsafe {
            reducer.with_total_mut::<T, _>(|total| {
                let Output::Gpu(total) = total else {
                    unreachable!("a set of GPUs reduces on GPUs")
                };
                gpu.stream()
                    .clone_dtod(&*total)
                    .map(Buffer::Gpu)
                    .map_err(gpu.error("copying a reduction's total on the GPU"))
            })
        }?
    }
}

/// The first error of the devices' parts of a call, in rank order. The
/// work the others queued stays queued: it ends on its own, and the next
/// call's launches follow it.
pub(super) fn all_ok(parts: Vec<Result<(), Error>>) -> Result<(), Error> {
    parts.into_iter().collect()
}
