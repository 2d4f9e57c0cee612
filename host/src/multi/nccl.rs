//! NCCL, loaded at run time like the CUDA driver: one communicator a GPU of
//! a [`Devices`](super::Devices) set, the operators NCCL reduces with, and
//! its errors as coop's.

use crate::{Error, Gpu};
use coop::op::{Max, Min, Product, Sum};
use cudarc::nccl::result::{group_end, group_start, NcclError};
use cudarc::nccl::sys::ncclResult_t;
use cudarc::nccl::{Comm, ReduceOp};

/// Whether the NCCL library can be loaded on this machine.
pub(super) fn present() -> bool {
    // SAFETY: `is_culib_present` is unsafe because loading a shared library
    // runs its initialisers. The libraries it tries are NCCL's, meant to be
    // loaded in any process that uses CUDA, and it calls nothing in them.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

/// NCCL's version, as `major.minor.patch`, once the library is known to be
/// present.
pub(super) fn version() -> Result<String, Error> {
    let code = cudarc::nccl::result::get_nccl_version().map_err(error("reading NCCL's version"))?;
    Ok(format!(
        "{}.{}.{}",
        code / 10000,
        code / 100 % 100,
        code % 100
    ))
}

/// One communicator a GPU, ranked in the set's order, all in this process.
pub(super) struct Nccl {
    comms: Vec<Comm>,
}

// SAFETY: `Send` lets the set move to another thread. An NCCL communicator
// is not tied to the thread that created it; what NCCL forbids is using one
// from two threads at once, which `Nccl` not being `Sync` rules out (every
// call takes it through `&self` of a `Devices`, itself not `Sync`).
unsafe impl Send for Nccl {}

impl std::fmt::Debug for Nccl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nccl")
            .field("ranks", &self.comms.len())
            .finish()
    }
}

impl Nccl {
    /// Joins `gpus` (distinct devices; the library present) in one clique,
    /// each communicator on its GPU's stream so that NCCL's work is ordered
    /// with coop's launches.
    pub fn new(gpus: &[Gpu]) -> Result<Nccl, Error> {
        let streams = gpus.iter().map(|gpu| gpu.stream().clone()).collect();
        let comms = Comm::from_devices(streams).map_err(error(format!(
            "joining {} GPUs in one NCCL communicator",
            gpus.len()
        )))?;
        Ok(Nccl { comms })
    }

    /// Runs `each(rank, communicator)` for every rank between
    /// `ncclGroupStart` and `ncclGroupEnd`, as one thread driving several
    /// GPUs must (a collective called for one rank alone waits for the
    /// others forever). The group is always closed; the first error wins.
    ///
    /// `each` must queue the same collective on every rank, and should fail
    /// only where NCCL refuses the call: a rank left out would make the
    /// others wait forever, so whatever can be checked is checked before.
    pub fn group(
        &self,
        action: &str,
        mut each: impl FnMut(usize, &Comm) -> Result<(), Error>,
    ) -> Result<(), Error> {
        group_start().map_err(error(action))?;
        let mut first = Ok(());
        for (rank, comm) in self.comms.iter().enumerate() {
            if let Err(e) = each(rank, comm) {
                first = first.and(Err(e));
            }
        }
        let end = group_end().map(drop).map_err(error(action));
        first.and(end)
    }
}

/// An operator NCCL reduces with: [`Sum`], [`Product`], [`Min`] and
/// [`Max`], each matching coop's operator of the same name (integers wrap;
/// float minimum and maximum ignore NaN, as `fminf`/`fmaxf`).
pub trait NcclOp: Copy + sealed::Sealed {
    /// NCCL's name for it.
    #[doc(hidden)]
    fn nccl() -> ReduceOp;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! nccl_ops {
    ($($op:ident => $nccl:ident),*) => {$(
        impl sealed::Sealed for $op {}
        impl NcclOp for $op {
            fn nccl() -> ReduceOp {
                ReduceOp::$nccl
            }
        }
    )*};
}

nccl_ops!(Sum => Sum, Product => Prod, Min => Min, Max => Max);

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
