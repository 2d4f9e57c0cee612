//! Special registers: `%tid`, `%ntid`, `%ctaid`, `%nctaid`, `%laneid`.

use super::Ptx;
use crate::Dim3;
use crate::backend::{Registers, Site};
use core::arch::nvptx as arch;

#[allow(improper_ctypes)]
unsafe extern "C" {
    #[link_name = "llvm.nvvm.read.ptx.sreg.laneid"]
    fn sreg_laneid() -> i32;
}

impl Registers for Ptx {
    #[inline(always)]
    fn assume_block_shape(shape: Dim3) {
        let (t, d) = (
            Self::thread_index(crate::backend::site!()),
            Self::block_dim(crate::backend::site!()),
        );
        // SAFETY: the kernel runs only with blocks of `shape`: its PTX
        // carries `.reqntid` with the shape, which the driver enforces, and
        // coop's launches check it first.
        unsafe {
            core::hint::assert_unchecked(d == shape);
            core::hint::assert_unchecked(t.x < shape.x && t.y < shape.y && t.z < shape.z);
        }
    }

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
    fn cluster_dim(_site: Site) -> Dim3 {
        #[cfg(coop_sm90)]
        {
            let (x, y, z): (u32, u32, u32);
            // SAFETY: reading special registers has no preconditions.
            unsafe {
                core::arch::asm!("mov.u32 {}, %cluster_nctaid.x;", out(reg32) x, options(pure, nomem, nostack));
                core::arch::asm!("mov.u32 {}, %cluster_nctaid.y;", out(reg32) y, options(pure, nomem, nostack));
                core::arch::asm!("mov.u32 {}, %cluster_nctaid.z;", out(reg32) z, options(pure, nomem, nostack));
            }
            Dim3::new(x, y, z)
        }
        #[cfg(not(coop_sm90))]
        Dim3::new(1, 1, 1)
    }

    #[inline(always)]
    fn lane_id(_site: Site) -> u32 {
        // SAFETY: as above.
        unsafe { sreg_laneid() as u32 }
    }
}
