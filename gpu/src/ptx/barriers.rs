//! `barrier.sync` for the block, `bar.warp.sync` for a tile.

use super::Ptx;
use crate::backend::{Barriers, Site};

#[allow(improper_ctypes)]
extern "C" {
    #[link_name = "llvm.nvvm.barrier.cta.sync.all"]
    fn barrier_cta_sync_all(id: u32);
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn bar_warp_sync(mask: u32);
}

impl Barriers for Ptx {
    /// `barrier.sync 0`: the block barrier, without `.aligned`, which lets
    /// the threads of one warp arrive at different copies of the
    /// instruction. The compiler copies barriers into both arms of branches
    /// that split warps (the guarded-load, block-scan, guarded-store kernel
    /// of `docs/architecture.md` hung an H100 with the aligned `bar.sync`).
    #[inline(always)]
    fn sync_block(_call: &'static str, _site: Site) {
        // SAFETY: the barrier's only precondition, that every non-exited
        // thread of the block arrives, is the caller's contract (documented
        // on `ThreadBlock::sync`, checked by the CPU backend).
        unsafe { barrier_cta_sync_all(0) }
    }

    #[inline(always)]
    fn sync_warp(mask: u32, _site: Site) {
        // SAFETY: the mask always holds the calling lane (built by the tile).
        unsafe { bar_warp_sync(mask) }
    }

    /// Creating a tile needs no instruction on the GPU.
    #[inline(always)]
    fn tile_created(_size: u32, _parent_size: u32, _site: Site) {}
}
