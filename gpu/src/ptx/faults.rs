//! A failed check or a panic stops the thread with PTX `trap`; the launch
//! then fails on the host with `CUDA_ERROR_LAUNCH_FAILED`.

use super::Ptx;
use crate::backend::{Faults, Site};
use crate::Dim3;
use core::arch::nvptx as arch;
use core::fmt::Debug;

#[inline(always)]
fn trap() -> ! {
    // SAFETY: `trap` has no preconditions.
    unsafe { arch::trap() }
}

impl Faults for Ptx {
    #[inline(always)]
    fn shared_index_out_of_bounds<I: Debug>(
        _index: I,
        _len: usize,
        _cols: usize,
        _site: Site,
    ) -> ! {
        trap()
    }

    #[inline(always)]
    fn shared_element_not_owned<I: Debug>(
        _index: I,
        _thread: Dim3,
        _owner: impl FnOnce() -> Dim3,
        _site: Site,
    ) -> ! {
        trap()
    }
}

/// A panic in device code stops the kernel with PTX `trap`.
#[panic_handler]
fn on_panic(_: &core::panic::PanicInfo<'_>) -> ! {
    trap()
}
