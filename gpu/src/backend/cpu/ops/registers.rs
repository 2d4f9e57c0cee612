//! The launch geometry, read from the running thread's context.

use super::super::Cpu;
use super::super::engine::lane;
use crate::Dim3;
use crate::backend::{Registers, Site};

impl Registers for Cpu {
    #[inline]
    fn thread_index(_site: Site) -> Dim3 {
        lane::info(|l| l.thread)
    }

    #[inline]
    fn block_dim(_site: Site) -> Dim3 {
        lane::info(|l| l.block_dim)
    }

    #[inline]
    fn block_index(_site: Site) -> Dim3 {
        lane::info(|l| l.block)
    }

    #[inline]
    fn grid_dim(_site: Site) -> Dim3 {
        lane::info(|l| l.grid_dim)
    }

    #[inline]
    fn lane_id(_site: Site) -> u32 {
        lane::info(|l| l.rank % 32)
    }

    #[inline]
    fn cluster_dim(_site: Site) -> Dim3 {
        lane::info(|l| l.cluster_dim)
    }
}
