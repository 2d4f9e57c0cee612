//! NCCL, loaded at run time like the CUDA driver: one communicator a GPU,
//! made either for all GPUs of this process at once (`ncclCommInitAll`) or
//! for this process's rank of a job (`ncclCommInitRank`, from the unique
//! id rank 0 shares), the operators NCCL reduces with, and its errors as
//! coop's.
//!
//! coop drives NCCL through its C functions rather than cudarc's `Comm`,
//! which hides the handle that `ncclCommGetAsyncError` and `ncclCommAbort`
//! need: a rank whose peer failed must see the error and abort instead of
//! waiting forever.

use crate::{Error, Gpu};
use coop::op::{Max, Min, Product, Sum};
use cudarc::driver::{CudaStream, DevicePtr, DevicePtrMut, DeviceSlice};
use cudarc::nccl::result::{self, group_end, group_start, NcclError};
use cudarc::nccl::sys::{self, ncclRedOp_t, ncclResult_t};
use cudarc::nccl::NcclType;
use std::cell::Cell;
use std::sync::Arc;

/// Whether the NCCL library can be loaded on this machine.
pub(super) fn present() -> bool {
    // SAFETY: `is_culib_present` is unsafe because loading a shared library
    // runs its initialisers. The libraries it tries are NCCL's, meant to be
    // loaded in any process that uses CUDA, and it calls nothing in them.
    unsafe { sys::is_culib_present() }
}

/// NCCL's version, as `major.minor.patch`, once the library is known to be
/// present.
pub(super) fn version() -> Result<String, Error> {
    let code = result::get_nccl_version().map_err(error("reading NCCL's version"))?;
    Ok(format!(
        "{}.{}.{}",
        code / 10000,
        code / 100 % 100,
        code % 100
    ))
}

/// A new unique id for a job's communicator (rank 0 makes it and shares
/// its 128 bytes with the other ranks).
pub(super) fn unique_id() -> Result<Vec<u8>, Error> {
    let id = result::get_uniqueid().map_err(error("making the job's NCCL unique id"))?;
    Ok(id.internal.iter().map(|&c| c as u8).collect())
}

/// One GPU's communicator.
pub(crate) struct Comm {
    raw: sys::ncclComm_t,
    stream: Arc<CudaStream>,
}

impl Comm {
    /// Queues an in-place all-reduce of `buffer` on the communicator's
    /// stream.
    pub fn all_reduce_in_place<T: NcclType, B: DevicePtrMut<T> + DeviceSlice<T>>(
        &self,
        buffer: &mut B,
        op: ncclRedOp_t,
    ) -> Result<(), NcclError> {
        let count = buffer.len();
        let (ptr, _record) = buffer.device_ptr_mut(&self.stream);
        // SAFETY: `ptr` is `count` elements of `T` on the communicator's
        // GPU, kept alive by the borrow of `buffer` until the stream has
        // used it (`_record` orders later uses after this stream's work);
        // the stream is the communicator's GPU's.
        unsafe {
            result::all_reduce(
                ptr as *const _,
                ptr as *mut _,
                count,
                T::as_nccl_type(),
                op,
                self.raw,
                self.stream.cu_stream() as _,
            )
        }
        .map(drop)
    }
}

impl Comm {
    /// Queues an all-gather: every rank's `send` (of one length on every
    /// rank), in rank order, into `receive` (that length times the
    /// ranks).
    pub fn all_gather<T, S, R>(&self, send: &S, receive: &mut R) -> Result<(), NcclError>
    where
        T: NcclType,
        S: DevicePtr<T> + DeviceSlice<T>,
        R: DevicePtrMut<T> + DeviceSlice<T>,
    {
        let count = send.len();
        let (from, _read) = send.device_ptr(&self.stream);
        let (to, _write) = receive.device_ptr_mut(&self.stream);
        // SAFETY: `from` holds `count` elements and `to` (the caller
        // checked) `count` times the ranks, both on this communicator's
        // GPU and kept alive by their borrows until the stream has used
        // them (the records order later uses after this stream's work).
        unsafe {
            result::all_gather(
                from as *const _,
                to as *mut _,
                count,
                T::as_nccl_type(),
                self.raw,
                self.stream.cu_stream() as _,
            )
        }
        .map(drop)
    }

    /// Queues a reduce-scatter: `send` (the ranks times `receive`'s length
    /// on every rank) combined element by element with `op` over the
    /// ranks, block `r` of the result into rank `r`'s `receive`.
    pub fn reduce_scatter<T, S, R>(
        &self,
        send: &S,
        receive: &mut R,
        op: ncclRedOp_t,
    ) -> Result<(), NcclError>
    where
        T: NcclType,
        S: DevicePtr<T> + DeviceSlice<T>,
        R: DevicePtrMut<T> + DeviceSlice<T>,
    {
        let count = receive.len();
        let (from, _read) = send.device_ptr(&self.stream);
        let (to, _write) = receive.device_ptr_mut(&self.stream);
        // SAFETY: as for `all_gather`, with `send` the ranks times `count`
        // elements (the caller checked) and `receive` `count`.
        unsafe {
            result::reduce_scatter(
                from as *const _,
                to as *mut _,
                count,
                T::as_nccl_type(),
                op,
                self.raw,
                self.stream.cu_stream() as _,
            )
        }
        .map(drop)
    }
}

impl Comm {
    /// Queues the send of `send` to rank `peer`, which must queue a
    /// [`recv`](Self::recv) of as many elements from this rank in the same
    /// group.
    pub fn send<T, S>(&self, send: &S, peer: usize) -> Result<(), NcclError>
    where
        T: NcclType,
        S: DevicePtr<T> + DeviceSlice<T>,
    {
        let count = send.len();
        let (from, _read) = send.device_ptr(&self.stream);
        // SAFETY: `from` holds `count` elements on this communicator's GPU,
        // kept alive by the borrow until the stream has used them.
        unsafe {
            result::send(
                from as *const _,
                count,
                T::as_nccl_type(),
                peer as i32,
                self.raw,
                self.stream.cu_stream() as _,
            )
        }
        .map(drop)
    }

    /// Queues the receive of `receive.len()` elements from rank `peer`,
    /// which must queue a [`send`](Self::send) of as many to this rank in
    /// the same group.
    pub fn recv<T, R>(&self, receive: &mut R, peer: usize) -> Result<(), NcclError>
    where
        T: NcclType,
        R: DevicePtrMut<T> + DeviceSlice<T>,
    {
        let count = receive.len();
        let (to, _write) = receive.device_ptr_mut(&self.stream);
        // SAFETY: `to` holds `count` elements on this communicator's GPU,
        // kept alive by the borrow until the stream has used them.
        unsafe {
            result::recv(
                to as *mut _,
                count,
                T::as_nccl_type(),
                peer as i32,
                self.raw,
                self.stream.cu_stream() as _,
            )
        }
        .map(drop)
    }
}

/// The communicators of this process's GPUs, ranked in the set's order:
/// all the GPUs of a job in one process, or this process's one GPU of a
/// job of several processes.
pub(super) struct Nccl {
    comms: Vec<Comm>,
    /// Set once the communicators are aborted: nothing may use them again.
    aborted: Cell<bool>,
}

// SAFETY: `Send` lets the set move to another thread. An NCCL communicator
// is not tied to the thread that created it; what NCCL forbids is using one
// from two threads at once, which `Nccl` not being `Sync` rules out (every
// call takes it through `&self` of a `Devices`, itself not `Sync`).
unsafe impl Send for Nccl {}

impl std::fmt::Debug for Nccl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nccl")
            .field("communicators", &self.comms.len())
            .field("aborted", &self.aborted.get())
            .finish()
    }
}

impl Nccl {
    /// Joins `gpus` (distinct devices; the library present) in one clique,
    /// each communicator on its GPU's stream so that NCCL's work is ordered
    /// with coop's launches.
    pub fn new(gpus: &[Gpu]) -> Result<Nccl, Error> {
        let action = format!("joining {} GPUs in one NCCL communicator", gpus.len());
        let ordinals: Vec<i32> = gpus.iter().map(|g| g.context().ordinal() as i32).collect();
        let mut raws = vec![std::ptr::null_mut(); gpus.len()];
        // SAFETY: `raws` has room for one communicator a GPU of `ordinals`.
        unsafe { result::comm_init_all(raws.as_mut_ptr(), gpus.len() as i32, ordinals.as_ptr()) }
            .map_err(error(action))?;
        let comms = raws
            .into_iter()
            .zip(gpus)
            .map(|(raw, gpu)| Comm {
                raw,
                stream: gpu.stream().clone(),
            })
            .collect();
        Ok(Nccl {
            comms,
            aborted: Cell::new(false),
        })
    }

    /// Joins `gpu` as rank `rank` of a job of `world` ranks, one a process,
    /// from the unique id rank 0 made (`id`, its 128 bytes). Returns when
    /// every rank has joined.
    pub fn rank(gpu: &Gpu, rank: usize, world: usize, id: &[u8]) -> Result<Nccl, Error> {
        let action = format!("joining rank {rank} of {world} to the job's NCCL communicator");
        let mut internal = [0 as std::ffi::c_char; 128];
        if id.len() != internal.len() {
            return Err(Error::Join {
                rank: Some(rank),
                world: Some(world),
                problem: format!(
                    "rank 0 sent an NCCL unique id of {} bytes, not 128: the ranks run \
                     different versions of coop",
                    id.len()
                ),
            });
        }
        for (to, &from) in internal.iter_mut().zip(id) {
            *to = from as std::ffi::c_char;
        }
        gpu.context()
            .bind_to_thread()
            .map_err(gpu.error("making the GPU current for NCCL"))?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: `raw` receives the communicator; the id is rank 0's, and
        // the GPU NCCL takes (the current one) is `gpu`, bound above.
        unsafe {
            result::comm_init_rank(
                &mut raw,
                world as i32,
                sys::ncclUniqueId { internal },
                rank as i32,
            )
        }
        .map_err(error(action))?;
        Ok(Nccl {
            comms: vec![Comm {
                raw,
                stream: gpu.stream().clone(),
            }],
            aborted: Cell::new(false),
        })
    }

    /// Runs `each(index, communicator)` for every communicator of this
    /// process between `ncclGroupStart` and `ncclGroupEnd`, as one thread
    /// driving several GPUs must (a collective called for one rank alone
    /// waits for the others forever). The group is always closed; the
    /// first error wins.
    ///
    /// `each` must queue the same collective on every communicator, and
    /// should fail only where NCCL refuses the call: a rank left out would
    /// make the others wait forever, so whatever can be checked is checked
    /// before.
    pub fn group(
        &self,
        action: &str,
        mut each: impl FnMut(usize, &Comm) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if self.aborted.get() {
            return Err(Error::Nccl {
                action: action.to_string(),
                code: "aborted".into(),
                meaning: "the set's communicators were aborted after an earlier failure; \
                          make a new set",
            });
        }
        group_start().map_err(error(action))?;
        let mut first = Ok(());
        for (index, comm) in self.comms.iter().enumerate() {
            if let Err(e) = each(index, comm) {
                first = first.and(Err(e));
            }
        }
        let end = group_end().map(drop).map_err(error(action));
        first.and(end)
    }

    /// NCCL's asynchronous error of any communicator (a network failure, a
    /// peer's abort), as [`Error::Nccl`] saying what coop was doing.
    pub fn check(&self, action: &str) -> Result<(), Error> {
        if self.aborted.get() {
            return Ok(());
        }
        for comm in &self.comms {
            let mut state = ncclResult_t::ncclSuccess;
            // SAFETY: a live communicator (not aborted) and a place for
            // the result.
            unsafe { sys::ncclCommGetAsyncError(comm.raw, &mut state) }
                .result()
                .map_err(error(action))?;
            if state != ncclResult_t::ncclSuccess && state != ncclResult_t::ncclInProgress {
                return Err(error(action)(NcclError(state)));
            }
        }
        Ok(())
    }

    /// Aborts every communicator: NCCL's kernels waiting for a peer that
    /// failed end, and nothing may use the communicators again.
    pub fn abort(&self) {
        if self.aborted.replace(true) {
            return;
        }
        for comm in &self.comms {
            // SAFETY: a live communicator, aborted once (`aborted` was
            // false); nothing uses it afterwards.
            let _ = unsafe { result::comm_abort(comm.raw) };
        }
    }
}

impl Drop for Nccl {
    fn drop(&mut self) {
        // As cudarc does: abort rather than destroy, which would wait for
        // a peer that may be gone.
        self.abort();
    }
}

/// An operator NCCL reduces with: [`Sum`], [`Product`], [`Min`] and
/// [`Max`], each matching coop's operator of the same name (integers wrap;
/// float minimum and maximum ignore NaN, as `fminf`/`fmaxf`).
pub trait NcclOp: Copy + sealed::Sealed {
    /// NCCL's name for it.
    #[doc(hidden)]
    fn nccl() -> ncclRedOp_t;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! nccl_ops {
    ($($op:ident => $nccl:ident),*) => {$(
        impl sealed::Sealed for $op {}
        impl NcclOp for $op {
            fn nccl() -> ncclRedOp_t {
                ncclRedOp_t::$nccl
            }
        }
    )*};
}

nccl_ops!(Sum => ncclSum, Product => ncclProd, Min => ncclMin, Max => ncclMax);

/// Maps an NCCL error to [`Error::Nccl`], saying what coop was doing.
pub(super) fn error(action: impl Into<String>) -> impl FnOnce(NcclError) -> Error {
    let action = action.into();
    move |NcclError(code)| Error::Nccl {
        action,
        code: format!("{code:?}"),
        meaning: meaning(code),
    }
}

/// What an NCCL result code usually means, from NCCL's documentation.
fn meaning(code: ncclResult_t) -> &'static str {
    match code {
        ncclResult_t::ncclUnhandledCudaError => {
            "a CUDA call inside NCCL failed: a kernel fault before, or a GPU NCCL cannot use"
        }
        ncclResult_t::ncclSystemError => {
            "a system call failed: shared memory, sockets or memory registration; check \
             /dev/shm's size and the process's limits"
        }
        ncclResult_t::ncclInternalError => "an internal NCCL error, or a network failure",
        ncclResult_t::ncclInvalidArgument => "NCCL refused an argument: a null buffer or a count",
        ncclResult_t::ncclInvalidUsage => {
            "NCCL refused the call's use: the same GPU twice in one communicator, or a \
             collective outside its group"
        }
        ncclResult_t::ncclRemoteError => "another rank failed",
        _ => "see NCCL's documentation of ncclResult_t",
    }
}
