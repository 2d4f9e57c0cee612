//! `shfl.sync`, `vote.sync`, `match.sync` and `redux.sync`, each with the
//! calling tile's member mask.

use super::Ptx;
use crate::backend::{Redux, Site, WarpCollectives};

#[allow(improper_ctypes)]
unsafe extern "C" {
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

// SAFETY (every call below): the instructions' one precondition is that the
// calling lane is in `mask` and every lane of `mask` arrives; the tile that
// builds the mask includes the calling lane, and arrival is the caller's
// contract (the model's rule, checked by the CPU backend).
impl WarpCollectives for Ptx {
    #[inline(always)]
    fn shfl_idx(mask: u32, value: u32, src: u32, clamp: u32, _site: Site) -> u32 {
        // SAFETY: see the impl.
        unsafe { shfl_sync_idx(mask, value, src, clamp) }
    }

    #[inline(always)]
    fn shfl_up(mask: u32, value: u32, delta: u32, clamp: u32, _site: Site) -> u32 {
        // SAFETY: see the impl.
        unsafe { shfl_sync_up(mask, value, delta, clamp) }
    }

    #[inline(always)]
    fn shfl_down(mask: u32, value: u32, delta: u32, clamp: u32, _site: Site) -> u32 {
        // SAFETY: see the impl.
        unsafe { shfl_sync_down(mask, value, delta, clamp) }
    }

    #[inline(always)]
    fn shfl_bfly(mask: u32, value: u32, lane_mask: u32, clamp: u32, _site: Site) -> u32 {
        // SAFETY: see the impl.
        unsafe { shfl_sync_bfly(mask, value, lane_mask, clamp) }
    }

    #[inline(always)]
    fn opaque_word(word: u32) -> u32 {
        let out: u32;
        // SAFETY: a register move; it reads and writes no memory.
        unsafe {
            core::arch::asm!("mov.b32 {}, {};", out(reg32) out, in(reg32) word,
                options(pure, nomem, nostack));
        }
        out
    }

    #[inline(always)]
    fn active_mask(_site: Site) -> u32 {
        let mask: u32;
        // SAFETY: `activemask` reads which lanes execute it; it has no
        // preconditions. Not `pure`: two calls may give different masks.
        unsafe {
            core::arch::asm!("activemask.b32 {};", out(reg32) mask, options(nomem, nostack));
        }
        mask
    }

    #[inline(always)]
    fn vote_ballot(mask: u32, predicate: bool, _site: Site) -> u32 {
        // SAFETY: see the impl.
        unsafe { vote_ballot_sync(mask, predicate) }
    }

    #[inline(always)]
    fn vote_any(mask: u32, predicate: bool, _site: Site) -> bool {
        // SAFETY: see the impl.
        unsafe { vote_any_sync(mask, predicate) }
    }

    #[inline(always)]
    fn vote_all(mask: u32, predicate: bool, _site: Site) -> bool {
        // SAFETY: see the impl.
        unsafe { vote_all_sync(mask, predicate) }
    }

    #[inline(always)]
    fn match_any_32(mask: u32, value: u32, _site: Site) -> u32 {
        // SAFETY: see the impl.
        unsafe { match_any_sync_i32(mask, value) }
    }

    #[inline(always)]
    fn match_low_bits<const BITS: u32>(mask: u32, value: u32, _site: Site) -> u32 {
        let mut peers = mask;
        let mut bit = 0;
        while bit < BITS.clamp(1, 32) {
            // SAFETY: the trait's precondition (every lane of `mask` runs
            // this ballot with the same mask); the block writes only the
            // two registers named.
            unsafe {
                core::arch::asm!(
                    "{{ .reg .pred p; .reg .b32 m; and.b32 m, {value}, {bit}; \
                     setp.ne.u32 p, m, 0; vote.sync.ballot.b32 m, p, {mask}; \
                     @!p not.b32 m, m; and.b32 {peers}, {peers}, m; }}",
                    value = in(reg32) value,
                    bit = in(reg32) 1u32 << bit,
                    mask = in(reg32) mask,
                    peers = inout(reg32) peers,
                    options(nostack)
                );
            }
            bit += 1;
        }
        peers
    }

    #[inline(always)]
    fn match_any_64(mask: u32, value: u64, _site: Site) -> u32 {
        // SAFETY: see the impl.
        unsafe { match_any_sync_i64(mask, value) }
    }

    #[inline(always)]
    fn match_all_32(mask: u32, value: u32, _site: Site) -> (u32, bool) {
        // SAFETY: see the impl.
        let r = unsafe { match_all_sync_i32(mask, value) };
        (r.mask, r.all_equal)
    }

    #[inline(always)]
    fn match_all_64(mask: u32, value: u64, _site: Site) -> (u32, bool) {
        // SAFETY: see the impl.
        let r = unsafe { match_all_sync_i64(mask, value) };
        (r.mask, r.all_equal)
    }

    #[inline(always)]
    fn redux(op: Redux, mask: u32, value: u32, _site: Site) -> u32 {
        // SAFETY: see the impl; `redux.sync` needs sm_80, the oldest
        // target coop builds for.
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
}
