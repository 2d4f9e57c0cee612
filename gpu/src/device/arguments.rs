//! The check every device-wide algorithm makes of its buffers before it
//! starts: each one holds as many elements as the call needs, or the
//! kernel stops with a fault that names the buffer, the element it needed
//! and its length.

use crate::backend::target::Target;
use crate::backend::{Faults, Site};

/// Faults at `site`, naming the buffer (`what`), unless the buffer at
/// `ptr`, of `have` elements, holds `need` (the fault reports element
/// `need - 1` as the one out of bounds).
#[inline(always)]
pub(crate) fn holds(
    what: &'static core::ffi::CStr,
    ptr: *const u8,
    have: usize,
    need: usize,
    site: Site,
) {
    if have < need {
        Target::index_out_of_bounds(what, ptr, need - 1, have, site);
    }
}
