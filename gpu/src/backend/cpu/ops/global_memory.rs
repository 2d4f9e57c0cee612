//! Global accesses on the CPU: the race check sees them first.

use super::super::Cpu;
use super::super::engine::lane;
use crate::backend::cpu::AccessKind;
use crate::backend::{GlobalAccess, GlobalMemory, Site};

impl GlobalMemory for Cpu {
    fn global_access(base: *const u8, index: usize, access: GlobalAccess, site: Site) {
        let atomic = match access {
            GlobalAccess::Read => {
                return lane::global_access(base as usize, index, AccessKind::Read, None, site);
            }
            GlobalAccess::Write => {
                return lane::global_access(base as usize, index, AccessKind::Write, None, site);
            }
            GlobalAccess::Atomic {
                block_scope,
                cluster_scope,
                acquire,
                release,
                op,
            } => {
                // Without clusters a block is its own cluster.
                let clusters = lane::in_clusters();
                lane::AtomicAccess {
                    block_scope: block_scope || (cluster_scope && !clusters),
                    cluster_scope: cluster_scope && clusters,
                    acquire,
                    release,
                    op,
                }
            }
        };
        lane::global_access(base as usize, index, AccessKind::Atomic, Some(atomic), site);
    }

    unsafe fn store_vector<const N: usize>(ptr: *mut u32, words: [u32; N]) {
        // SAFETY: the caller's promise: valid for N words.
        unsafe { ptr.cast::<[u32; N]>().write(words) }
    }
}
