//! Broken checks: what a target does when a handle finds an index it
//! cannot allow.

use super::Site;
use crate::Dim3;
use core::ffi::CStr;
use core::fmt::Debug;

/// A check inside a handle failed, at `site` (the caller of the handle
/// method). Both targets report the same words: "thread `t` panicked at
/// `file:line:col`: `what`: index `i` is out of bounds for ... of `n`
/// elements". The GPU prints the report with `vprintf` (the driver shows it
/// on the host's standard output when the host next waits) and traps; the
/// CPU backend panics with it, and its launch returns the report with the
/// kernel and block. Every operation is `#[track_caller]` on the CPU, so
/// that the panic's location is the kernel's line.
pub(crate) trait Faults {
    /// `index` lies outside the buffer of `len` elements that starts at
    /// `base` (which the CPU backend names by its parameter); `what` names
    /// the call (`c"Out::write"`).
    fn index_out_of_bounds(
        what: &'static CStr,
        base: *const u8,
        index: usize,
        len: usize,
        site: Site,
    ) -> !;
    /// `index` lies outside a shared array of `len` elements (`cols` per
    /// row for a 2-D array, 0 for 1-D).
    fn shared_index_out_of_bounds<I: Debug>(index: I, len: usize, cols: usize, site: Site) -> !;
    /// A handle's check of its arguments failed: `what` names the call and
    /// says what was wrong and what is allowed. PTX: the report, then
    /// `trap`. CPU: a panic with the same words.
    fn check_failed(what: &'static CStr, site: Site) -> !;
    /// Whether the calling thread is being unwound because its launch
    /// stopped (a report, the end of a block with threads still waiting):
    /// a handle's `Drop` that would wait or pass a barrier does nothing
    /// then. PTX: never. CPU: while the block's end unwinds the thread.
    fn unwinding() -> bool;
    /// The calling thread read (`reads`) or wrote `index`, which `owner`
    /// owns under the phase's ownership map.
    fn shared_element_not_owned<I: Debug>(
        index: I,
        reads: bool,
        thread: Dim3,
        owner: impl FnOnce() -> Dim3,
        site: Site,
    ) -> !;
}
