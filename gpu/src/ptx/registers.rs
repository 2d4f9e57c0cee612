//! Special registers: `%tid`, `%ntid`, `%ctaid`, `%nctaid`, `%laneid`.

use super::Ptx;
use crate::backend::{Registers, Site};
use crate::Dim3;
use core::arch::nvptx as arch;

#[allow(improper_ctypes)]
extern "C" {
    #[link_name = "llvm.nvvm.read.ptx.sreg.laneid"]
    fn sreg_laneid() -> i32;
}

impl Registers for Ptx {
    #[inline(always)]
    fn thread_index(_site: Site) -> Dim3 {
        // SAFETY: reading special registers has no preconditions in a kernel.
        unsafe {
            Dim3::new(
                arch::_thread_idx_x() as u32,
                arch::_thread_idx_y() as u32,
                arch::_thread_idx_z() as u32,
            )
        }
    }

    #[inline(always)]
    fn block_dim(_site: Site) -> Dim3 {
        // SAFETY: as above.
        unsafe {
            Dim3::new(
                arch::_block_dim_x() as u32,
                arch::_block_dim_y() as u32,
                arch::_block_dim_z() as u32,
            )
        }
    }

    #[inline(always)]
    fn block_index(_site: Site) -> Dim3 {
        // SAFETY: as above.
        unsafe {
            Dim3::new(
                arch::_block_idx_x() as u32,
                arch::_block_idx_y() as u32,
                arch::_block_idx_z() as u32,
            )
        }
    }

    #[inline(always)]
    fn grid_dim(_site: Site) -> Dim3 {
        // SAFETY: as above.
        unsafe {
            Dim3::new(
                arch::_grid_dim_x() as u32,
                arch::_grid_dim_y() as u32,
                arch::_grid_dim_z() as u32,
            )
        }
    }

    #[inline(always)]
    fn lane_id(_site: Site) -> u32 {
        // SAFETY: as above.
        unsafe { sreg_laneid() as u32 }
    }
}
