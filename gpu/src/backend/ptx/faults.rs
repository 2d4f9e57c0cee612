//! Faults on the GPU: a failed check or a panic prints where it happened
//! (block, thread, `file:line:col`, and what failed) with CUDA's
//! device-side `vprintf`, then stops the kernel with PTX `trap`; the host's
//! next wait for the GPU returns the fault as an error naming the kernel.
//!
//! A Rust panic's message is printed only when coop raised it (an index out
//! of bounds of a coop buffer or shared array, with the index and length);
//! core's own panics (slice indexing, `unwrap`, `panic!`) print their
//! location with a generic message, because formatting their message would
//! pull `core::fmt` into every kernel that can panic and raise its register
//! count for good (measured in chapter 7 of the guide). The CPU backend
//! prints the full message for the same panic.

use super::Ptx;
use crate::Dim3;
#[cfg(not(coop_silent_panics))]
use crate::backend::Registers;
use crate::backend::{Faults, Site};
use core::arch::nvptx as arch;
use core::ffi::CStr;
use core::fmt::Debug;

#[inline(always)]
fn trap() -> ! {
    // SAFETY: `trap` has no preconditions.
    unsafe { arch::trap() }
}

#[cfg(not(coop_silent_panics))]
#[allow(improper_ctypes)]
unsafe extern "C" {
    /// CUDA's device-side `printf`: the driver copies what it prints to the
    /// host's standard output when the host next waits for the GPU.
    fn vprintf(format: *const u8, args: *const u8) -> i32;
}

/// A report's format: where, then `$what`, whose conversions take the
/// report's two numbers (`%llu`); NUL-terminated for `vprintf`.
macro_rules! report_format {
    ($what:literal) => {
        concat!(
            "coop: block (%u, %u, %u), thread %u panicked at %s:%u:%u: ",
            $what,
            "\n\0"
        )
    };
}

/// The arguments of a [`report_format!`] string, laid out as `vprintf`
/// reads them (each at its own alignment, as in a C struct).
#[cfg(not(coop_silent_panics))]
#[repr(C)]
struct ReportArgs {
    block: [u32; 3],
    thread: u32,
    file: *const u8,
    line: u32,
    column: u32,
    what: *const u8,
    a: u64,
    b: u64,
}

/// Prints a report with `format` (from [`report_format!`]), the calling
/// thread's coordinates, the source location `at`, and the `%s` text `what` and numbers `a`
/// and `b` its conversions name, then traps. Cold: only a failing check
/// reaches it.
#[cfg(not(coop_silent_panics))]
#[cold]
#[inline(never)]
fn report(
    format: &'static str,
    at: &core::panic::Location<'_>,
    what: &'static CStr,
    a: u64,
    b: u64,
) -> ! {
    let here = crate::backend::site!();
    let block = Ptx::block_index(here);
    let t = Ptx::thread_index(here);
    let dims = Ptx::block_dim(here);
    let args = ReportArgs {
        block: [block.x, block.y, block.z],
        thread: dims.linearize_u32(t),
        // `vprintf` takes NUL-terminated strings: the file name as a C
        // string (Rust 1.92 and later keep one for every location).
        file: at.file_as_c_str().as_ptr() as *const u8,
        line: at.line(),
        column: at.column(),
        what: what.as_ptr() as *const u8,
        a,
        b,
    };
    // SAFETY: `format` is NUL-terminated and its conversions match
    // `ReportArgs` field by field (`%u` a u32, `%s` a pointer to a
    // NUL-terminated string, `%llu` a u64).
    unsafe {
        vprintf(format.as_ptr(), &args as *const ReportArgs as *const u8);
    }
    trap()
}

/// With `--cfg coop_silent_panics` (`PtxBuilder::silent_panics`): trap
/// without a report, so that no kernel keeps a call on its panic path.
#[cfg(coop_silent_panics)]
#[inline(always)]
fn report(
    _format: &'static str,
    _at: &core::panic::Location<'_>,
    _what: &'static CStr,
    _a: u64,
    _b: u64,
) -> ! {
    trap()
}

/// A check of coop's that names no index failed at `site`: `what` is the
/// whole message.
#[inline(always)]
pub(super) fn fail(what: &'static CStr, site: Site) -> ! {
    report(report_format!("%s"), site, what, 0, 0)
}

impl Faults for Ptx {
    #[inline(always)]
    fn unwinding() -> bool {
        false
    }

    #[inline(always)]
    fn check_failed(what: &'static CStr, site: Site) -> ! {
        fail(what, site)
    }

    #[inline(always)]
    fn index_out_of_bounds(
        what: &'static CStr,
        _base: *const u8,
        index: usize,
        len: usize,
        site: Site,
    ) -> ! {
        report(
            report_format!("%s: index %llu is out of bounds for a buffer of %llu elements"),
            site,
            what,
            index as u64,
            len as u64,
        )
    }

    #[inline(always)]
    fn shared_index_out_of_bounds<I: Debug>(_index: I, len: usize, _cols: usize, site: Site) -> ! {
        report(
            report_format!("%san index is outside a shared array of %llu elements"),
            site,
            c"",
            len as u64,
            0,
        )
    }

    #[inline(always)]
    fn shared_element_not_owned<I: Debug>(
        _index: I,
        reads: bool,
        _thread: Dim3,
        _owner: impl FnOnce() -> Dim3,
        site: Site,
    ) -> ! {
        let format = if reads {
            report_format!(
                "%sa thread read a shared element that another thread owns in this phase"
            )
        } else {
            report_format!(
                "%sa thread wrote a shared element that another thread owns in this phase"
            )
        };
        report(format, site, c"", 0, 0)
    }
}

/// A Rust panic in device code (an index out of bounds of a slice, an
/// `unwrap` of `None`, an explicit `panic!`) prints its location, then stops
/// the kernel with `trap`.
#[cfg(not(coop_silent_panics))]
#[panic_handler]
fn on_panic(info: &core::panic::PanicInfo<'_>) -> ! {
    let unknown = core::panic::Location::caller();
    report(
        report_format!(
            "%sa panic (its message is formatted on the CPU backend only: run the launch there to read it)"
        ),
        info.location().unwrap_or(unknown),
        c"",
        0,
        0,
    )
}

/// With `--cfg coop_silent_panics`: a panic traps at once (LLVM then drops
/// the calls to core's panic functions altogether).
#[cfg(coop_silent_panics)]
#[panic_handler]
fn on_panic(_: &core::panic::PanicInfo<'_>) -> ! {
    trap()
}
