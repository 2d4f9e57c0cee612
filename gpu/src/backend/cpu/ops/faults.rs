//! Failed checks stop the launch with a message naming the index and the
//! length, located at the kernel's call (the same words the GPU prints);
//! an `Out` or atomic past its end names the parameter too.

use super::super::Cpu;
use super::super::engine::lane;
use crate::Dim3;
use crate::backend::{Faults, Site};
use core::ffi::CStr;
use core::fmt::Debug;

impl Faults for Cpu {
    #[cold]
    #[inline(never)]
    #[track_caller]
    fn index_out_of_bounds(
        what: &'static CStr,
        base: *const u8,
        index: usize,
        len: usize,
        site: Site,
    ) -> ! {
        let call = what.to_str().unwrap_or("a coop buffer");
        match lane::buffer_name(base as usize) {
            Some(buffer) => lane::out_of_bounds(buffer.to_string(), call, index, len, site),
            None => panic!("{call}: index {index} is out of bounds for a buffer of {len} elements"),
        }
    }

    #[cold]
    #[inline(never)]
    fn shared_index_out_of_bounds<I: Debug>(index: I, len: usize, cols: usize, site: Site) -> ! {
        let message = match len.checked_div(cols) {
            None => {
                format!(
                    "coop: index {index:?} is outside a shared array of {len} elements (at {site})"
                )
            }
            Some(rows) => format!(
                "coop: index {index:?} is outside a shared array of {rows} rows of {cols} elements (at {site})"
            ),
        };
        lane::fail_at(message, site)
    }

    #[cold]
    #[inline(never)]
    fn unwinding() -> bool {
        lane::unwinding()
    }

    fn check_failed(what: &'static CStr, site: Site) -> ! {
        let what = what.to_str().unwrap_or("a coop check failed");
        lane::fail_at(format!("coop: {what} (at {site})"), site)
    }

    #[cold]
    #[inline(never)]
    fn shared_element_not_owned<I: Debug>(
        index: I,
        reads: bool,
        thread: Dim3,
        owner: impl FnOnce() -> Dim3,
        site: Site,
    ) -> ! {
        let owner = owner();
        let name = |t: Dim3| lane::thread_name(t);
        let (verb, advice) = if reads {
            (
                "reads",
                "a thread reads only its own elements until the array is published: read \
                 another thread's after `.publish(&block)`",
            )
        } else {
            (
                "writes",
                "a thread writes only its own elements until the array is published",
            )
        };
        lane::fail_at(
            format!(
                "coop: {} {verb} element {index:?} of a shared array at {site}, but element \
                 {index:?} belongs to {} under this phase's ownership map: {advice}",
                name(thread),
                name(owner)
            ),
            site,
        )
    }
}
