//! Fences: a real fence on the host, so that a block's writes before it
//! are seen before its writes after it by blocks that other host threads
//! run at the same time; it also counts as a step.

use super::super::engine::lane;
use super::super::Cpu;
use crate::backend::{FenceScope, Fences, Site};

impl Fences for Cpu {
    fn fence(_scope: FenceScope, site: Site) {
        lane::fence(site);
        core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst);
    }
}
