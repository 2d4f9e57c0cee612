//! Fences: the CPU backend runs one thread at a time, so a fence orders
//! nothing more; it still counts as a step.

use super::super::engine::lane;
use super::super::Cpu;
use crate::backend::{FenceScope, Fences, Site};

impl Fences for Cpu {
    fn fence(_scope: FenceScope, site: Site) {
        lane::step(site, |_| ());
    }
}
