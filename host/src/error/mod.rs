//! [`Error`]: everything that can go wrong on the host, from opening a GPU
//! to a kernel's end, each with a message that says what to do.

mod launch_problem;

pub use launch_problem::{LaunchProblem, ThreadLimit};

use crate::fault::LaunchRecord;
use cudarc::driver::sys::CUresult;
use cudarc::driver::DriverError;
use std::time::Duration;

/// Everything that can go wrong between finding a GPU and a kernel's end.
///
/// Each message names what was wrong and, where there is a rule, what is
/// allowed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The CUDA driver library (`libcuda.so`) could not be loaded.
    #[error(
        "no CUDA driver: libcuda.so could not be loaded. Install the NVIDIA driver, or run \
         on a machine with an NVIDIA GPU"
    )]
    NoDriver,

    /// The driver is there, but the requested device is not.
    #[error("no CUDA device {ordinal}: the driver reports {count} device(s)")]
    NoDevice {
        /// The device asked for.
        ordinal: usize,
        /// Devices the driver sees.
        count: usize,
    },

    /// A driver call failed.
    #[error("CUDA driver error while {action}: {source}")]
    Driver {
        /// What coop was doing.
        action: String,
        /// The driver's error.
        source: DriverError,
    },

    /// The PTX text contains a NUL byte and cannot be handed to the driver.
    #[error("the PTX of `{module}` contains a NUL byte at offset {offset}; PTX is plain text")]
    PtxNotText {
        /// The module's name.
        module: String,
        /// Where the NUL is.
        offset: usize,
    },

    /// The driver rejected the PTX; `log` is its JIT compiler's error log.
    #[error("the driver could not load the PTX of `{module}` (sm_{sm}): {source}\n{log}")]
    PtxLoad {
        /// The module's name.
        module: String,
        /// The SM target the PTX was built for.
        sm: u32,
        /// The driver's error.
        source: DriverError,
        /// The JIT compiler's error log (may be empty).
        log: String,
    },

    /// No PTX in the set targets an SM the device can run.
    #[error(
        "`{module}` has no PTX for this GPU: the device is sm_{device_sm}, the module was built \
         for {available:?}; PTX for sm_X runs on devices of sm_X and later. Add sm_{device_sm} \
         (or an older one) to the PtxBuilder's targets"
    )]
    NoPtxForDevice {
        /// The module's name.
        module: String,
        /// The device's compute capability, as `10 * major + minor`.
        device_sm: u32,
        /// The SM targets the set holds.
        available: Vec<u32>,
    },

    /// The module has no entry point of the kernel's name.
    #[error(
        "kernel `{kernel}` is not in module `{module}`: was it built from another crate, or \
         is the PTX stale? ({source})"
    )]
    KernelNotFound {
        /// The kernel's name.
        kernel: &'static str,
        /// The module's name.
        module: String,
        /// The driver's error.
        source: DriverError,
    },

    /// The launch configuration breaks a limit of the device or the kernel;
    /// nothing was launched.
    #[error("cannot launch `{kernel}`: {problem}")]
    InvalidLaunch {
        /// The kernel's name.
        kernel: &'static str,
        /// What is wrong, and what is allowed.
        problem: LaunchProblem,
    },

    /// The CPU backend stopped the kernel at a broken rule (see
    /// [`Violation`](coop::cpu::Violation)).
    #[error("{0}")]
    Emulation(#[from] coop::cpu::EmulationError),

    /// An argument lives on the other device than the launch.
    #[error(
        "launching `{kernel}` on the {device}: argument {argument} is a buffer of the other \
         device; upload it with the same `Device` that loaded the kernels"
    )]
    WrongDevice {
        /// The kernel's name.
        kernel: &'static str,
        /// `"GPU"` or `"CPU"`.
        device: &'static str,
        /// The argument's position (0-based, handles not counted).
        argument: usize,
    },

    /// A call that this reducer, backend or state cannot serve; `reason`
    /// says why and what to call instead.
    #[error("`{call}`: {reason}")]
    Unavailable {
        /// The call.
        call: &'static str,
        /// Why, and what to do instead.
        reason: String,
    },

    /// An argument of a call that the call cannot take: lengths that do not
    /// match, offsets that are not in order, a value out of range.
    #[error("`{call}`: {problem}")]
    InvalidArgument {
        /// The call.
        call: &'static str,
        /// What was wrong, and what is allowed.
        problem: String,
    },

    /// The driver refused or failed the launch.
    #[error("launching `{kernel}` failed: {source}")]
    Launch {
        /// The kernel's name.
        kernel: &'static str,
        /// The driver's error.
        source: DriverError,
    },

    /// A kernel failed while running on the GPU: it trapped (a panic or a
    /// failed coop check, which the GPU reported on standard output with
    /// its block, thread and `file:line`) or accessed memory it must not.
    ///
    /// The error is sticky for the whole process: the CUDA driver refuses
    /// every later call, a new `Gpu` or context included (measured on an
    /// H100 with driver 580: creating a context fails with the same code).
    /// The device itself is unharmed, and another process can use it at
    /// once; a program that must survive a faulting kernel runs that work in
    /// a child process.
    #[error(
        "a kernel failed on the GPU ({code:?}: {meaning}), seen while {during}; {}. The CUDA \
         driver refuses every further call in this process after a kernel fault, a new `Gpu` \
         included; the device itself is fine for a new process. To tie a fault to one launch, \
         set COOP_SYNC_LAUNCHES=1 or use `Gpu::with_synchronous_launches`; the CPU backend \
         reproduces a panic with its full message",
        launched(launches)
    )]
    KernelFault {
        /// The launches since the last successful wait, oldest first: the
        /// failed kernel is among them.
        launches: Vec<LaunchRecord>,
        /// The driver's code.
        code: CUresult,
        /// What the code usually means.
        meaning: &'static str,
        /// The call that saw the fault.
        during: String,
    },

    /// The NCCL library (`libnccl.so`), which joins the GPUs of a
    /// [`multi::Devices`](crate::multi::Devices) set, could not be loaded.
    #[error(
        "no NCCL: libnccl.so could not be loaded, and {gpus} GPUs need it to combine their \
         results. Install NCCL (the libnccl2 and libnccl-dev packages, or the nvidia-nccl-cu12 \
         wheel) and put the folder holding libnccl.so on LD_LIBRARY_PATH (with only \
         libnccl.so.2 there, link libnccl.so to it); one GPU works without NCCL"
    )]
    NoNccl {
        /// GPUs in the set asked for.
        gpus: usize,
    },

    /// An NCCL call failed.
    #[error("NCCL error while {action}: {code} ({meaning})")]
    Nccl {
        /// What coop was doing.
        action: String,
        /// NCCL's result code, as NCCL names it.
        code: String,
        /// What the code usually means.
        meaning: &'static str,
    },

    /// Shards that do not fit the call: one buffer a device, each on its
    /// own device, and the same length where the call combines them
    /// element by element.
    #[error("`{call}`: {problem}")]
    Shards {
        /// The call.
        call: &'static str,
        /// What was wrong, and what is allowed.
        problem: String,
    },

    /// Joining the processes of a job failed: a rank or world size that
    /// does not fit, a rendezvous address that does not work, ranks that
    /// did not arrive in time, or ranks that disagree on the job.
    #[error("joining a job{}: {problem}", place(*rank, *world))]
    Join {
        /// This process's rank, where known.
        rank: Option<usize>,
        /// The number of ranks it was told to join, where known.
        world: Option<usize>,
        /// What went wrong, and what is allowed.
        problem: String,
    },

    /// Another process of the job failed during a collective call: it
    /// exited or crashed, left (dropped its set), did not reach the call
    /// in time, or made a different call. The set cannot be used any more
    /// (its NCCL communicator, if any, is aborted); every rank that was
    /// waiting gets this error instead of hanging.
    #[error("`{call}`: rank {rank} {problem}")]
    Rank {
        /// The call this process was in.
        call: &'static str,
        /// The rank that failed.
        rank: usize,
        /// What happened to it.
        problem: String,
    },

    /// Waiting for the GPU took longer than allowed. The kernel cannot be
    /// stopped: the GPU is left to it, nothing of this device waits for it
    /// any more (dropping its buffers, modules and the device returns at
    /// once), and the process can report and exit.
    #[error(
        "the GPU was still busy after {waited:?}; {}. A kernel that never finishes usually \
         waits at a barrier some threads skip: run it on the CPU backend, which names them. \
         The kernel cannot be stopped: this process can report and exit (nothing of the \
         device waits for the kernel any more)",
        launched(launches)
    )]
    Timeout {
        /// The launches not yet finished, oldest first.
        launches: Vec<LaunchRecord>,
        /// How long coop waited.
        waited: Duration,
    },
}

/// " as rank 1 of 4", where both are known.
fn place(rank: Option<usize>, world: Option<usize>) -> String {
    match (rank, world) {
        (Some(rank), Some(world)) => format!(" as rank {rank} of {world}"),
        _ => String::new(),
    }
}

/// "launched since the last successful wait: `a` (launched at ..), .."
fn launched(launches: &[LaunchRecord]) -> String {
    if launches.is_empty() {
        return "no launch of coop's since the last successful wait".to_string();
    }
    let list: Vec<String> = launches.iter().map(ToString::to_string).collect();
    format!(
        "launched since the last successful wait: {}",
        list.join(", ")
    )
}

impl Error {
    pub(crate) fn driver(action: impl Into<String>) -> impl FnOnce(DriverError) -> Error {
        let action = action.into();
        move |source| Error::Driver { action, source }
    }
}
