//! The launch geometry, read from the running thread's context.

use super::super::engine::lane;
use super::super::Cpu;
use crate::backend::{Registers, Site};
use crate::Dim3;

impl Registers for Cpu {
    fn thread_index(site: Site) -> Dim3 {
        lane::step(site, |l| l.thread)
    }

    fn block_dim(site: Site) -> Dim3 {
        lane::step(site, |l| l.block_dim)
    }

    fn block_index(site: Site) -> Dim3 {
        lane::step(site, |l| l.block)
    }

    fn grid_dim(site: Site) -> Dim3 {
        lane::step(site, |l| l.grid_dim)
    }

    fn lane_id(site: Site) -> u32 {
        lane::step(site, |l| l.rank % 32)
    }
}
