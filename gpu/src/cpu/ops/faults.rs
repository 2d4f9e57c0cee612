//! Failed checks panic with a message naming the index and the length; the
//! panics are `#[track_caller]`, so that the launch reports the kernel's
//! `file:line` with the thread (the same words the GPU prints).

use super::super::Cpu;
use crate::backend::{Faults, Site};
use crate::Dim3;
use core::ffi::CStr;
use core::fmt::Debug;

impl Faults for Cpu {
    #[cold]
    #[inline(never)]
    #[track_caller]
    fn index_out_of_bounds(what: &'static CStr, index: usize, len: usize, _site: Site) -> ! {
        let what = what.to_str().unwrap_or("a coop buffer");
        panic!("{what}: index {index} is out of bounds for a buffer of {len} elements")
    }

    #[cold]
    #[inline(never)]
    fn shared_index_out_of_bounds<I: Debug>(index: I, len: usize, cols: usize, site: Site) -> ! {
        match len.checked_div(cols) {
            None => panic!(
                "coop: index {index:?} is outside a shared array of {len} elements (at {site})"
            ),
            Some(rows) => panic!(
                "coop: index {index:?} is outside a shared array of {rows} rows of {cols} elements (at {site})"
            ),
        }
    }

    #[cold]
    #[inline(never)]
    fn shared_element_not_owned<I: Debug>(
        index: I,
        thread: Dim3,
        owner: impl FnOnce() -> Dim3,
        site: Site,
    ) -> ! {
        let owner = owner();
        panic!(
            "coop: thread {thread} writes element {index:?} of a shared array at {site}, but \
             element {index:?} belongs to thread {owner} under this phase's ownership map: a \
             thread writes only its own elements until the array is published"
        )
    }
}
