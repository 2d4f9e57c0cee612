//! `cp.async` (sm_80), `cp.async.bulk` (sm_90) and mbarriers, on 32-bit
//! shared-window addresses. No instruction here has an `.aligned` form;
//! none of the `asm!` blocks is `pure` or `nomem`, so that the compiler
//! keeps shared loads after the waits and stores before the copies.

use super::shared_memory::SharedBase;
use super::Ptx;
use crate::backend::{AsyncCopies, Site};
use core::arch::asm;

impl AsyncCopies for Ptx {
    const BULK: bool = cfg!(coop_sm90);

    #[inline(always)]
    fn copy_chunk(dst: SharedBase, offset: u32, src: *const u8, bytes: u32, _site: Site) {
        let d = dst.0 + offset;
        // SAFETY: the caller keeps both ranges inside their buffers and
        // aligned to `bytes`; `cvta.to.global` turns the generic pointer of
        // a kernel buffer into the global address `cp.async` reads.
        unsafe {
            match bytes {
                16 => asm!(
                    "{{ .reg .b64 g; cvta.to.global.u64 g, {s}; cp.async.cg.shared.global [{d}], [g], 16; }}",
                    d = in(reg32) d, s = in(reg64) src, options(nostack)
                ),
                8 => asm!(
                    "{{ .reg .b64 g; cvta.to.global.u64 g, {s}; cp.async.ca.shared.global [{d}], [g], 8; }}",
                    d = in(reg32) d, s = in(reg64) src, options(nostack)
                ),
                _ => asm!(
                    "{{ .reg .b64 g; cvta.to.global.u64 g, {s}; cp.async.ca.shared.global [{d}], [g], 4; }}",
                    d = in(reg32) d, s = in(reg64) src, options(nostack)
                ),
            }
        }
    }

    #[inline(always)]
    fn commit_copies(_site: Site) -> u32 {
        // SAFETY: closes the calling thread's group; no operands.
        unsafe { asm!("cp.async.commit_group;", options(nostack)) };
        0
    }

    #[inline(always)]
    fn wait_copies<const N: u32>(_group: Option<u32>, _call: &'static str, _site: Site) {
        // SAFETY: waits for the calling thread's own copies; no operands.
        unsafe { asm!("cp.async.wait_group {n};", n = const N, options(nostack)) };
    }

    #[inline(always)]
    fn barrier_init(bars: SharedBase, offset: u32, count: u32, _site: Site) {
        // SAFETY: an 8-byte aligned word of a shared array, not a live
        // barrier (the caller's precondition).
        unsafe {
            asm!(
                "mbarrier.init.shared.b64 [{b}], {c};",
                b = in(reg32) bars.0 + offset, c = in(reg32) count, options(nostack)
            )
        };
    }

    #[inline(always)]
    fn barriers_initialized(_site: Site) {
        #[cfg(coop_sm90)]
        // SAFETY: fences only.
        unsafe {
            asm!(
                "fence.mbarrier_init.release.cluster; fence.proxy.async.shared::cta;",
                options(nostack)
            )
        };
    }

    #[inline(always)]
    fn barrier_arrive(bars: SharedBase, offset: u32, _site: Site) {
        // SAFETY: an initialised barrier (the caller's precondition).
        unsafe {
            asm!("mbarrier.arrive.shared.b64 _, [{b}];", b = in(reg32) bars.0 + offset, options(nostack))
        };
    }

    #[inline(always)]
    fn bulk_copy(
        dst: SharedBase,
        offset: u32,
        src: *const u8,
        bytes: u32,
        bars: SharedBase,
        bar: u32,
        site: Site,
    ) {
        #[cfg(coop_sm90)]
        {
            let _ = site;
            // SAFETY: `src` and `dst + offset` 16-byte aligned, `bytes` a
            // multiple of 16, both ranges in bounds, the barrier initialised
            // and its phase held open by an arrival still to come (the
            // caller's precondition), so the bytes it now expects are
            // counted in the phase the copy completes.
            unsafe {
                asm!(
                    "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [{b}], {n};",
                    "{{ .reg .b64 g; cvta.to.global.u64 g, {s};",
                    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [g], {n}, [{b}]; }}",
                    d = in(reg32) dst.0 + offset,
                    s = in(reg64) src,
                    n = in(reg32) bytes,
                    b = in(reg32) bars.0 + bar,
                    options(nostack)
                )
            };
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = (dst, offset, src, bytes, bars, bar);
            super::faults::fail(c"bulk_copy: no bulk-copy engine before sm_90", site)
        }
    }

    #[inline(always)]
    fn barrier_test(bars: SharedBase, offset: u32, parity: u32, _site: Site) -> bool {
        let done: u32;
        // SAFETY: an initialised barrier; `parity` names the current or the
        // preceding phase (the pipelines keep it so).
        unsafe {
            #[cfg(coop_sm90)]
            asm!(
                "{{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [{b}], {q}; selp.u32 {r}, 1, 0, p; }}",
                b = in(reg32) bars.0 + offset, q = in(reg32) parity, r = out(reg32) done, options(nostack)
            );
            #[cfg(not(coop_sm90))]
            asm!(
                "{{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [{b}], {q}; selp.u32 {r}, 1, 0, p; }}",
                b = in(reg32) bars.0 + offset, q = in(reg32) parity, r = out(reg32) done, options(nostack)
            );
        }
        done != 0
    }
}
