//! Global accesses on the CPU: the race check sees them first.

use super::super::engine::lane;
use super::super::Cpu;
use crate::backend::{GlobalMemory, Site};
use crate::cpu::AccessKind;

impl GlobalMemory for Cpu {
    fn global_access(base: *const u8, index: usize, atomic: bool, site: Site) {
        let kind = if atomic {
            AccessKind::Atomic
        } else {
            AccessKind::Write
        };
        lane::global_access(base as usize, index, kind, site);
    }
}
