//! `membar.cta`, `fence.sc.cluster` (sm_90), `membar.gl`, `membar.sys`.

use super::Ptx;
use crate::backend::{FenceScope, Fences, Site};

#[allow(improper_ctypes)]
unsafe extern "C" {
    #[link_name = "llvm.nvvm.membar.cta"]
    fn membar_cta();
    #[link_name = "llvm.nvvm.membar.gl"]
    fn membar_gl();
    #[link_name = "llvm.nvvm.membar.sys"]
    fn membar_sys();
}

impl Fences for Ptx {
    #[inline(always)]
    fn fence(scope: FenceScope, _site: Site) {
        // SAFETY: fences have no preconditions.
        unsafe {
            match scope {
                FenceScope::Block => membar_cta(),
                #[cfg(coop_sm90)]
                FenceScope::Cluster => {
                    core::arch::asm!("fence.sc.cluster;", options(nostack));
                }
                #[cfg(not(coop_sm90))]
                FenceScope::Cluster => membar_cta(),
                FenceScope::Device => membar_gl(),
                FenceScope::System => membar_sys(),
            }
        }
    }
}
