//! Global accesses need no announcement on the GPU.

use super::Ptx;
use crate::backend::{GlobalAccess, GlobalMemory, Site};

impl GlobalMemory for Ptx {
    #[inline(always)]
    fn global_access(_base: *const u8, _index: usize, _kind: GlobalAccess, _site: Site) {}

    #[inline(always)]
    unsafe fn store_vector<const N: usize>(ptr: *mut u32, words: [u32; N]) {
        // SAFETY: the caller's promise: valid, aligned, N is 2 or 4.
        unsafe {
            if N == 4 {
                core::arch::asm!(
                    "st.global.v4.b32 [{0}], {{{1}, {2}, {3}, {4}}};",
                    in(reg64) ptr,
                    in(reg32) words[0],
                    in(reg32) words[1],
                    in(reg32) words[2 % N],
                    in(reg32) words[3 % N],
                    options(nostack, preserves_flags),
                );
            } else {
                core::arch::asm!(
                    "st.global.v2.b32 [{0}], {{{1}, {2}}};",
                    in(reg64) ptr,
                    in(reg32) words[0],
                    in(reg32) words[1],
                    options(nostack, preserves_flags),
                );
            }
        }
    }
}
