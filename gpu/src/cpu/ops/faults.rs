//! Failed checks panic with a message naming the index, the array and the
//! `file:line`; the launch reports the panic with the thread.

use super::super::Cpu;
use crate::backend::{Faults, Site};
use crate::Dim3;
use core::fmt::Debug;

impl Faults for Cpu {
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
            "coop: thread {thread:?} writes element {index:?} of a shared array at {site}, but \
             element {index:?} belongs to thread {owner:?} under this phase's ownership map: a \
             thread writes only its own elements until the array is published"
        )
    }
}
