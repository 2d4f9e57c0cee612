//! Fences: a real fence on the host, so that a block's writes before it
//! are seen before its writes after it by blocks that other host threads
//! run at the same time; it also counts as a step. A fence at the device's
//! or the system's scope lets the thread's later reads follow a flag
//! another block raised, and publishes the thread's earlier writes to the
//! readers of a flag it raises after it; one at the block's scope does
//! both within the block only.

use super::super::engine::lane;
use super::super::Cpu;
use crate::backend::{FenceScope, Fences, Site};

impl Fences for Cpu {
    fn fence(scope: FenceScope, site: Site) {
        lane::fence(scope != FenceScope::Block, site);
        core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst);
    }
}
