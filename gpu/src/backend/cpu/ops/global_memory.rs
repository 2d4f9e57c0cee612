//! Global accesses on the CPU: the race check sees them first.

use super::super::engine::lane;
use super::super::Cpu;
use crate::backend::cpu::AccessKind;
use crate::backend::{GlobalAccess, GlobalMemory, Site};

impl GlobalMemory for Cpu {
    fn global_access(base: *const u8, index: usize, access: GlobalAccess, site: Site) {
        let (kind, block_scope, acquire) = match access {
            GlobalAccess::Read => (AccessKind::Read, false, false),
            GlobalAccess::Write => (AccessKind::Write, false, false),
            GlobalAccess::Atomic {
                block_scope,
                acquire,
            } => (AccessKind::Atomic, block_scope, acquire),
        };
        lane::global_access(base as usize, index, kind, block_scope, acquire, site);
    }

    unsafe fn store_vector<const N: usize>(ptr: *mut u32, words: [u32; N]) {
        // SAFETY: the caller's promise: valid for N words.
        unsafe { ptr.cast::<[u32; N]>().write(words) }
    }
}
