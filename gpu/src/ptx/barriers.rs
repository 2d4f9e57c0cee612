//! `barrier.sync` for the block, `bar.warp.sync` for a tile, the driver's
//! grid barrier word for a cooperative launch's grid.

use super::Ptx;
use crate::backend::{Barriers, Registers, Site};
use core::arch::asm;

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

    /// The block barrier, one arrival per block at the grid barrier word,
    /// the block barrier. Block 0 adds `2^31 - (blocks - 1)` and every
    /// other block 1, so that one barrier's arrivals add up to `2^31` and
    /// flip the word's top bit exactly once, whatever it held before; each
    /// block's thread 0 waits until the top bit differs from the value its
    /// own arrival read. The arrival releases and the polling load
    /// acquires at GPU scope, so writes before the barrier by any thread
    /// (ordered before thread 0's arrival by the first block barrier) are
    /// visible to every thread after it (ordered after the poll by the
    /// second).
    #[inline(always)]
    fn sync_grid(site: Site) {
        Self::sync_block("CooperativeGrid::sync", site);
        let t = Ptx::thread_index(site);
        if t.x | t.y | t.z == 0 {
            let (lo, hi): (u32, u32);
            // SAFETY: reading the environment registers has no
            // preconditions.
            unsafe {
                asm!("mov.u32 {}, %envreg2;", out(reg32) lo, options(nomem, nostack, pure));
                asm!("mov.u32 {}, %envreg1;", out(reg32) hi, options(nomem, nostack, pure));
            }
            let workspace = ((hi as u64) << 32 | lo as u64) as *mut u32;
            if workspace.is_null() {
                not_cooperative(site);
            }
            let b = Ptx::block_index(site);
            let blocks = Ptx::grid_dim(site).volume_u32();
            let arrival = if b.x | b.y | b.z == 0 {
                0x8000_0000 - (blocks - 1)
            } else {
                1
            };
            // SAFETY: a cooperative launch's workspace is two words of
            // device memory that live for the launch: its size, then the
            // barrier word, which only this protocol touches.
            unsafe {
                let word = workspace.add(1);
                let before: u32;
                asm!(
                    "atom.add.release.gpu.u32 {o}, [{p}], {v};",
                    o = out(reg32) before,
                    p = in(reg64) word,
                    v = in(reg32) arrival,
                    options(nostack)
                );
                loop {
                    let now: u32;
                    asm!(
                        "ld.acquire.gpu.u32 {o}, [{p}];",
                        o = out(reg32) now,
                        p = in(reg64) word,
                        options(nostack)
                    );
                    if (before ^ now) & 0x8000_0000 != 0 {
                        break;
                    }
                }
            }
        }
        Self::sync_block("CooperativeGrid::sync", site);
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

/// A grid sync in a launch without a grid workspace: the kernel's PTX was
/// launched without the driver's cooperative launch (coop_host always uses
/// it for a `#[kernel(cooperative)]`). Reported at the sync's line.
#[cold]
#[inline(never)]
fn not_cooperative(site: Site) -> ! {
    super::faults::fail(
        c"CooperativeGrid::sync: the kernel was not launched cooperatively (no grid workspace)",
        site,
    )
}
