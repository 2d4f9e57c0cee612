//! The block's scratch: a module-level `.shared` array that PTX allocates
//! only in the kernels that use it, accessed with `ld.shared`/`st.shared`
//! on its shared-window address.

use super::Ptx;
use crate::backend::{BLOCK_SCRATCH_BYTES, Scratch, Site};

core::arch::global_asm!(
    ".shared .align 16 .b8 coop_block_scratch[{bytes}];",
    bytes = const BLOCK_SCRATCH_BYTES
);

/// The shared-window address of byte `offset` of the scratch. The symbol's
/// address is a `pure` asm result, so LLVM computes it once per kernel and
/// hoists it out of loops (inside each access's asm, ptxas would recompute
/// it from `%cluster_ctarank` at every access), and constant offsets fold
/// into the accesses' immediates.
#[inline(always)]
fn scratch_address(offset: u32) -> u32 {
    let base: u32;
    // SAFETY: reads a symbol's address; no memory access.
    unsafe {
        core::arch::asm!(
            "mov.u32 {0}, coop_block_scratch;",
            out(reg32) base,
            options(pure, nomem, nostack)
        );
    }
    base + offset
}

impl Scratch for Ptx {
    #[inline(always)]
    fn scratch_store(offset: u32, word: u32, _site: Site) {
        // SAFETY: callers keep `offset + 4 <= BLOCK_SCRATCH_BYTES` and
        // `offset` 4-aligned (the contract's precondition).
        unsafe {
            core::arch::asm!(
                "st.shared.u32 [{0}], {1};",
                in(reg32) scratch_address(offset),
                in(reg32) word,
                options(nostack)
            );
        }
    }

    #[inline(always)]
    fn scratch_store_if(pred: bool, offset: u32, word: u32, _site: Site) {
        // SAFETY: as for `scratch_store`.
        unsafe {
            core::arch::asm!(
                "{{ .reg .pred p; setp.ne.u32 p, {2}, 0; @p st.shared.u32 [{0}], {1}; }}",
                in(reg32) scratch_address(offset),
                in(reg32) word,
                in(reg32) pred as u32,
                options(nostack)
            );
        }
    }

    #[inline(always)]
    fn scratch_load(offset: u32, _site: Site) -> u32 {
        let word: u32;
        // SAFETY: as for `scratch_store`.
        unsafe {
            core::arch::asm!(
                "ld.shared.u32 {0}, [{1}];",
                out(reg32) word,
                in(reg32) scratch_address(offset),
                options(nostack, readonly)
            );
        }
        word
    }

    #[inline(always)]
    fn scratch_load4(offset: u32, _site: Site) -> [u32; 4] {
        let (a, b, c, d): (u32, u32, u32, u32);
        // SAFETY: callers keep `offset + 16 <= BLOCK_SCRATCH_BYTES` and
        // `offset` 16-aligned; the scratch is 16-aligned.
        unsafe {
            core::arch::asm!(
                "ld.shared.v4.u32 {{{0}, {1}, {2}, {3}}}, [{4}];",
                out(reg32) a,
                out(reg32) b,
                out(reg32) c,
                out(reg32) d,
                in(reg32) scratch_address(offset),
                options(nostack, readonly)
            );
        }
        [a, b, c, d]
    }
}
