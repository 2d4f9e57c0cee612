//! Kernel faults on the GPU: which launches a fault may belong to, what the
//! driver's code means, and how long a wait may take.
//!
//! A kernel that traps (a panic, a failed coop check) or accesses memory it
//! must not stops with a *sticky* error: the launch itself returned `Ok`, the
//! next call that waits for the GPU fails, and so does every later call on
//! that context. [`Gpu`](crate::Gpu) keeps a record of every launch since
//! its last successful wait, so that the error names the kernels that may
//! have failed and where they were launched from; with
//! [`Gpu::with_synchronous_launches`](crate::Gpu::with_synchronous_launches)
//! each launch is waited for, and a fault names exactly one.

use cudarc::driver::sys::CUresult;
use std::fmt;
use std::panic::Location;
use std::sync::Mutex;

/// One launch on a GPU: the kernel and the source line that launched it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchRecord {
    /// The kernel's name.
    pub kernel: &'static str,
    /// Where the host launched it (`Module::launch` is `#[track_caller]`).
    pub at: &'static Location<'static>,
}

impl fmt::Display for LaunchRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` (launched at {})", self.kernel, self.at)
    }
}

/// The launches a `Gpu` has not yet seen finish.
#[derive(Debug, Default)]
pub(crate) struct InFlight(Mutex<Vec<LaunchRecord>>);

impl InFlight {
    /// At most this many launches are remembered: the first ones of a long
    /// run of launches are the least likely to be the one that failed.
    const KEPT: usize = 64;

    pub(crate) fn push(&self, record: LaunchRecord) {
        let mut launches = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if launches.len() == Self::KEPT {
            launches.remove(0);
        }
        launches.push(record);
    }

    /// Everything launched so far has finished.
    pub(crate) fn clear(&self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// The launches not yet seen finish, oldest first.
    pub(crate) fn snapshot(&self) -> Vec<LaunchRecord> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// What a kernel-fault code usually means, for the error message; `None`
/// for a code that is not a kernel's fault. A fault is sticky: the first
/// wait after the kernel ran reports it, and so does every call on the
/// context after that.
pub(crate) fn meaning(code: CUresult) -> Option<&'static str> {
    use CUresult::*;
    Some(match code {
        CUDA_ERROR_LAUNCH_FAILED => {
            "a thread trapped: a panic or a failed coop check (the GPU printed \
             `coop: block .., thread .. panicked at file:line:col` on standard output), \
             or another trap"
        }
        CUDA_ERROR_ILLEGAL_ADDRESS => "a thread accessed memory outside every allocation",
        CUDA_ERROR_MISALIGNED_ADDRESS => "a thread accessed memory at a misaligned address",
        CUDA_ERROR_INVALID_ADDRESS_SPACE => {
            "a thread accessed memory with an instruction of the wrong state space"
        }
        CUDA_ERROR_ILLEGAL_INSTRUCTION => "a thread executed an illegal instruction",
        CUDA_ERROR_INVALID_PC => "a thread jumped to an invalid program counter",
        CUDA_ERROR_HARDWARE_STACK_ERROR => {
            "a thread overflowed its call stack (deep recursion or large locals)"
        }
        CUDA_ERROR_ASSERT => "a device-side assertion failed",
        CUDA_ERROR_LAUNCH_TIMEOUT => "a kernel ran past the display watchdog's limit",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_failures_are_faults_and_others_are_not() {
        assert!(meaning(CUresult::CUDA_ERROR_LAUNCH_FAILED).is_some());
        assert!(meaning(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS).is_some());
        assert!(meaning(CUresult::CUDA_ERROR_OUT_OF_MEMORY).is_none());
        assert!(meaning(CUresult::CUDA_ERROR_NOT_FOUND).is_none());
    }

    #[test]
    fn in_flight_keeps_the_newest_launches() {
        let at = Location::caller();
        let in_flight = InFlight::default();
        for _ in 0..InFlight::KEPT + 3 {
            in_flight.push(LaunchRecord { kernel: "a", at });
        }
        in_flight.push(LaunchRecord { kernel: "b", at });
        let kept = in_flight.snapshot();
        assert_eq!(kept.len(), InFlight::KEPT);
        assert_eq!(kept.last().unwrap().kernel, "b");
        assert!(kept
            .last()
            .unwrap()
            .to_string()
            .starts_with("`b` (launched at host/src/fault.rs:"));
        in_flight.clear();
        assert!(in_flight.snapshot().is_empty());
    }
}
