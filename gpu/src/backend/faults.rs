//! Broken checks: what a target does when a handle finds an index it
//! cannot allow.

use super::Site;
use crate::Dim3;
use core::fmt::Debug;

/// A check inside a handle failed. On the GPU the thread traps at once
/// (PTX `trap`): a formatted message would cost every kernel registers and
/// a stack frame even when never shown. The CPU backend panics with the
/// message, which its launch reports with the thread and `file:line`.
pub(crate) trait Faults {
    /// `index` lies outside a shared array of `len` elements (`cols` per
    /// row for a 2-D array, 0 for 1-D).
    fn shared_index_out_of_bounds<I: Debug>(index: I, len: usize, cols: usize, site: Site) -> !;
    /// The calling thread wrote `index`, which `owner` owns under the
    /// phase's ownership map.
    fn shared_element_not_owned<I: Debug>(
        index: I,
        thread: Dim3,
        owner: impl FnOnce() -> Dim3,
        site: Site,
    ) -> !;
}
