//! PTX lowering. Each function is `#[inline(always)]` so that a handle method
//! costs exactly the instruction it names.

use super::{Redux, Site};
use crate::Dim3;
use core::arch::nvptx as arch;

// Block-shared scratch of the block-level collectives. PTX allocates it only
// in kernels that use it.
core::arch::global_asm!(".shared .align 16 .b8 coop_block_scratch[1056];");

#[allow(improper_ctypes)]
extern "C" {
    #[link_name = "llvm.nvvm.read.ptx.sreg.laneid"]
    fn sreg_laneid() -> i32;
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn bar_warp_sync(mask: u32);
    #[link_name = "llvm.nvvm.shfl.sync.idx.i32"]
    fn shfl_sync_idx(mask: u32, value: u32, src: u32, clamp: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.up.i32"]
    fn shfl_sync_up(mask: u32, value: u32, delta: u32, clamp: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.down.i32"]
    fn shfl_sync_down(mask: u32, value: u32, delta: u32, clamp: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.bfly.i32"]
    fn shfl_sync_bfly(mask: u32, value: u32, lane_mask: u32, clamp: u32) -> u32;
    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    fn vote_ballot_sync(mask: u32, predicate: bool) -> u32;
    #[link_name = "llvm.nvvm.vote.any.sync"]
    fn vote_any_sync(mask: u32, predicate: bool) -> bool;
    #[link_name = "llvm.nvvm.vote.all.sync"]
    fn vote_all_sync(mask: u32, predicate: bool) -> bool;
    #[link_name = "llvm.nvvm.match.any.sync.i32"]
    fn match_any_sync_i32(mask: u32, value: u32) -> u32;
    #[link_name = "llvm.nvvm.match.any.sync.i64"]
    fn match_any_sync_i64(mask: u32, value: u64) -> u32;
    #[link_name = "llvm.nvvm.match.all.sync.i32p"]
    fn match_all_sync_i32(mask: u32, value: u32) -> MatchAll;
    #[link_name = "llvm.nvvm.match.all.sync.i64p"]
    fn match_all_sync_i64(mask: u32, value: u64) -> MatchAll;
    #[link_name = "llvm.nvvm.redux.sync.add"]
    fn redux_sync_add(value: u32, mask: u32) -> u32;
    #[link_name = "llvm.nvvm.redux.sync.min"]
    fn redux_sync_min(value: u32, mask: u32) -> u32;
    #[link_name = "llvm.nvvm.redux.sync.max"]
    fn redux_sync_max(value: u32, mask: u32) -> u32;
    #[link_name = "llvm.nvvm.redux.sync.umin"]
    fn redux_sync_umin(value: u32, mask: u32) -> u32;
    #[link_name = "llvm.nvvm.redux.sync.umax"]
    fn redux_sync_umax(value: u32, mask: u32) -> u32;
    #[link_name = "llvm.nvvm.redux.sync.and"]
    fn redux_sync_and(value: u32, mask: u32) -> u32;
    #[link_name = "llvm.nvvm.redux.sync.or"]
    fn redux_sync_or(value: u32, mask: u32) -> u32;
    #[link_name = "llvm.nvvm.redux.sync.xor"]
    fn redux_sync_xor(value: u32, mask: u32) -> u32;
}

/// LLVM's `{i32, i1}` result of `match.all.sync`.
#[repr(C)]
#[derive(Clone, Copy)]
struct MatchAll {
    mask: u32,
    all_equal: bool,
}

#[inline(always)]
pub(crate) fn thread_index(_site: Site) -> Dim3 {
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
pub(crate) fn block_dim(_site: Site) -> Dim3 {
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
pub(crate) fn block_index(_site: Site) -> Dim3 {
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
pub(crate) fn grid_dim(_site: Site) -> Dim3 {
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
pub(crate) fn lane_id(_site: Site) -> u32 {
    // SAFETY: as above.
    unsafe { sreg_laneid() as u32 }
}

#[inline(always)]
pub(crate) fn sync_block(_site: Site) {
    // SAFETY: `bar.sync 0`; the divergence rule is the caller's contract,
    // documented on `ThreadBlock::sync`.
    unsafe { arch::_syncthreads() }
}

#[inline(always)]
pub(crate) fn sync_warp(mask: u32, _site: Site) {
    // SAFETY: the mask always holds the calling lane (built by the tile).
    unsafe { bar_warp_sync(mask) }
}

#[inline(always)]
pub(crate) fn shfl_idx(mask: u32, value: u32, src: u32, clamp: u32, _site: Site) -> u32 {
    // SAFETY: as for `sync_warp`.
    unsafe { shfl_sync_idx(mask, value, src, clamp) }
}

#[inline(always)]
pub(crate) fn shfl_up(mask: u32, value: u32, delta: u32, clamp: u32, _site: Site) -> u32 {
    // SAFETY: as for `sync_warp`.
    unsafe { shfl_sync_up(mask, value, delta, clamp) }
}

#[inline(always)]
pub(crate) fn shfl_down(mask: u32, value: u32, delta: u32, clamp: u32, _site: Site) -> u32 {
    // SAFETY: as for `sync_warp`.
    unsafe { shfl_sync_down(mask, value, delta, clamp) }
}

#[inline(always)]
pub(crate) fn shfl_bfly(mask: u32, value: u32, lane_mask: u32, clamp: u32, _site: Site) -> u32 {
    // SAFETY: as for `sync_warp`.
    unsafe { shfl_sync_bfly(mask, value, lane_mask, clamp) }
}

#[inline(always)]
pub(crate) fn vote_ballot(mask: u32, predicate: bool, _site: Site) -> u32 {
    // SAFETY: as for `sync_warp`.
    unsafe { vote_ballot_sync(mask, predicate) }
}

#[inline(always)]
pub(crate) fn vote_any(mask: u32, predicate: bool, _site: Site) -> bool {
    // SAFETY: as for `sync_warp`.
    unsafe { vote_any_sync(mask, predicate) }
}

#[inline(always)]
pub(crate) fn vote_all(mask: u32, predicate: bool, _site: Site) -> bool {
    // SAFETY: as for `sync_warp`.
    unsafe { vote_all_sync(mask, predicate) }
}

#[inline(always)]
pub(crate) fn match_any_32(mask: u32, value: u32, _site: Site) -> u32 {
    // SAFETY: as for `sync_warp`.
    unsafe { match_any_sync_i32(mask, value) }
}

#[inline(always)]
pub(crate) fn match_any_64(mask: u32, value: u64, _site: Site) -> u32 {
    // SAFETY: as for `sync_warp`.
    unsafe { match_any_sync_i64(mask, value) }
}

#[inline(always)]
pub(crate) fn match_all_32(mask: u32, value: u32, _site: Site) -> (u32, bool) {
    // SAFETY: as for `sync_warp`.
    let r = unsafe { match_all_sync_i32(mask, value) };
    (r.mask, r.all_equal)
}

#[inline(always)]
pub(crate) fn match_all_64(mask: u32, value: u64, _site: Site) -> (u32, bool) {
    // SAFETY: as for `sync_warp`.
    let r = unsafe { match_all_sync_i64(mask, value) };
    (r.mask, r.all_equal)
}

/// `redux.sync` over the lanes of `mask` (sm_80 and later).
#[inline(always)]
pub(crate) fn redux(op: Redux, mask: u32, value: u32, _site: Site) -> u32 {
    // SAFETY: the mask always holds the calling lane (built by the tile).
    unsafe {
        match op {
            Redux::Add => redux_sync_add(value, mask),
            Redux::MinSigned => redux_sync_min(value, mask),
            Redux::MaxSigned => redux_sync_max(value, mask),
            Redux::MinUnsigned => redux_sync_umin(value, mask),
            Redux::MaxUnsigned => redux_sync_umax(value, mask),
            Redux::And => redux_sync_and(value, mask),
            Redux::Or => redux_sync_or(value, mask),
            Redux::Xor => redux_sync_xor(value, mask),
        }
    }
}

/// Stores `word` at byte `offset` of the block's scratch with
/// `st.shared.u32` (a shared-window address, not a generic one).
#[inline(always)]
pub(crate) fn scratch_store(offset: u32, word: u32, _site: Site) {
    // SAFETY: callers keep `offset + 4 <= BLOCK_SCRATCH_BYTES` and 4-aligned.
    unsafe {
        core::arch::asm!(
            "{{ .reg .u32 a; mov.u32 a, coop_block_scratch; add.u32 a, a, {0}; st.shared.u32 [a], {1}; }}",
            in(reg32) offset,
            in(reg32) word,
            options(nostack)
        );
    }
}

/// Loads the word at byte `offset` of the block's scratch with
/// `ld.shared.u32`.
#[inline(always)]
pub(crate) fn scratch_load(offset: u32, _site: Site) -> u32 {
    let word: u32;
    // SAFETY: as for `scratch_store`.
    unsafe {
        core::arch::asm!(
            "{{ .reg .u32 a; mov.u32 a, coop_block_scratch; add.u32 a, a, {1}; ld.shared.u32 {0}, [a]; }}",
            out(reg32) word,
            in(reg32) offset,
            options(nostack, readonly)
        );
    }
    word
}

/// Creating a tile needs no instruction on the GPU.
#[inline(always)]
pub(crate) fn tile_created(_size: u32, _parent_size: u32, _site: Site) {}

/// A panic in device code stops the kernel with PTX `trap`; the launch then
/// fails on the host with `CUDA_ERROR_LAUNCH_FAILED`.
#[panic_handler]
fn on_panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: `trap` has no preconditions.
    unsafe { arch::trap() }
}
