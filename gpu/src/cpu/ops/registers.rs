//! The launch geometry, read from the running thread's context.

use super::super::engine::lane;
use super::super::Cpu;
use crate::backend::{Registers, Site};
use crate::Dim3;

impl Registers for Cpu {
    fn thread_index(_site: Site) -> Dim3 {
        lane::info(|l| l.thread)
    }

    fn block_dim(_site: Site) -> Dim3 {
        lane::info(|l| l.block_dim)
    }

    fn block_index(_site: Site) -> Dim3 {
        lane::info(|l| l.block)
    }

    fn grid_dim(_site: Site) -> Dim3 {
        lane::info(|l| l.grid_dim)
    }

    fn lane_id(_site: Site) -> u32 {
        lane::info(|l| l.rank % 32)
    }
}
