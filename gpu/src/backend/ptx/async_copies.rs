//! `cp.async` (sm_80), `cp.async.bulk` (sm_90) and mbarriers, on 32-bit
//! shared-window addresses. No instruction here has an `.aligned` form;
//! none of the `asm!` blocks is `pure` or `nomem`, so that the compiler
//! keeps shared loads after the waits and stores before the copies.

use super::Ptx;
use super::shared_memory::SharedBase;
use crate::backend::Rmw;
use crate::backend::async_copies::{BulkCombine, CombineElement};
use crate::backend::{AsyncCopies, Site};
use crate::kernel::TensorMapData;
use core::arch::asm;

/// One `cp.reduce.async.bulk.tensor` of the operation `$op` (a literal such
/// as `"add"`), for a tile of `$rank` dimensions.
#[cfg(coop_sm90)]
macro_rules! reduce_tile {
    ($op:literal, $rank:expr, $m:expr, [$c0:expr, $c1:expr, $c2:expr, $c3:expr, $c4:expr], $s:expr) => {
        match $rank {
            1 => asm!(
                concat!("cp.reduce.async.bulk.tensor.1d.global.shared::cta.", $op, ".tile.bulk_group [{m}, {{{c0}}}], [{s}];"),
                m = in(reg64) $m, c0 = in(reg32) $c0, s = in(reg32) $s, options(nostack)
            ),
            2 => asm!(
                concat!("cp.reduce.async.bulk.tensor.2d.global.shared::cta.", $op, ".tile.bulk_group [{m}, {{{c0}, {c1}}}], [{s}];"),
                m = in(reg64) $m, c0 = in(reg32) $c0, c1 = in(reg32) $c1, s = in(reg32) $s,
                options(nostack)
            ),
            3 => asm!(
                concat!("cp.reduce.async.bulk.tensor.3d.global.shared::cta.", $op, ".tile.bulk_group [{m}, {{{c0}, {c1}, {c2}}}], [{s}];"),
                m = in(reg64) $m, c0 = in(reg32) $c0, c1 = in(reg32) $c1, c2 = in(reg32) $c2,
                s = in(reg32) $s, options(nostack)
            ),
            4 => asm!(
                concat!("cp.reduce.async.bulk.tensor.4d.global.shared::cta.", $op, ".tile.bulk_group [{m}, {{{c0}, {c1}, {c2}, {c3}}}], [{s}];"),
                m = in(reg64) $m, c0 = in(reg32) $c0, c1 = in(reg32) $c1, c2 = in(reg32) $c2,
                c3 = in(reg32) $c3, s = in(reg32) $s, options(nostack)
            ),
            _ => asm!(
                concat!("cp.reduce.async.bulk.tensor.5d.global.shared::cta.", $op, ".tile.bulk_group [{m}, {{{c0}, {c1}, {c2}, {c3}, {c4}}}], [{s}];"),
                m = in(reg64) $m, c0 = in(reg32) $c0, c1 = in(reg32) $c1, c2 = in(reg32) $c2,
                c3 = in(reg32) $c3, c4 = in(reg32) $c4, s = in(reg32) $s, options(nostack)
            ),
        }
    };
}

/// One `cp.reduce.async.bulk` into global memory for the copy engine's
/// operation `$op` on elements of type `$t` (literals such as `"add"`,
/// `"u32"`).
#[cfg(coop_sm90)]
macro_rules! reduce_bulk {
    ($op:literal, $t:literal, $d:expr, $s:expr, $n:expr) => {
        asm!(
            "{{ .reg .b64 g; cvta.to.global.u64 g, {d};",
            concat!("cp.reduce.async.bulk.global.shared::cta.bulk_group.", $op, ".", $t, " [g], [{s}], {n}; }}"),
            d = in(reg64) $d, s = in(reg32) $s, n = in(reg32) $n, options(nostack)
        )
    };
}

/// One `cp.reduce.async.bulk` of `$op` on `$t` elements from this block's
/// shared memory into another's (`$d`, `$b`: addresses in the cluster's
/// window, made by `mapa`).
#[cfg(coop_sm90)]
macro_rules! reduce_to_block {
    ($op:literal, $t:literal, $d:expr, $s:expr, $n:expr, $b:expr) => {
        asm!(
            concat!("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.", $op, ".", $t, " [{d}], [{s}], {n}, [{b}];"),
            d = in(reg32) $d, s = in(reg32) $s, n = in(reg32) $n, b = in(reg32) $b, options(nostack)
        )
    };
}

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
    fn copies_arrive(bars: SharedBase, offset: u32, _site: Site) {
        // SAFETY: an initialised barrier whose phase expects this arrival
        // (the caller's precondition), made when the thread's copies land.
        unsafe {
            asm!("cp.async.mbarrier.arrive.noinc.shared.b64 [{b}];", b = in(reg32) bars.0 + offset, options(nostack))
        };
    }

    #[inline(always)]
    fn shared_store_on_barrier<E: crate::backend::elements::SharedElem>(
        base: SharedBase,
        index: u32,
        value: E,
        _bars: SharedBase,
        _bar: u32,
        site: Site,
    ) {
        <Ptx as crate::backend::SharedMemory>::shared_store(base, index, value, site)
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

    #[inline(always)]
    fn tensor_map_acquire(map: *const TensorMapData, site: Site) {
        #[cfg(coop_sm90)]
        {
            let _ = site;
            // SAFETY: a fence on the 128 bytes of a tensor map the host
            // placed in global memory.
            unsafe {
                asm!(
                    "fence.proxy.tensormap::generic.acquire.sys [{m}], 128;",
                    m = in(reg64) map, options(nostack)
                )
            };
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = map;
            super::faults::fail(c"tensor copies need sm_90 or newer", site)
        }
    }

    #[inline(always)]
    fn tensor_copy(
        dst: SharedBase,
        offset: u32,
        map: *const TensorMapData,
        coords: [i32; 5],
        rank: u32,
        bytes: u32,
        bars: SharedBase,
        bar: u32,
        site: Site,
    ) {
        #[cfg(coop_sm90)]
        {
            let _ = site;
            let (d, b) = (dst.0 + offset, bars.0 + bar);
            let [c0, c1, c2, c3, c4] = coords;
            // SAFETY: the destination 128-byte aligned and `bytes` long in
            // the array, the map describes live global memory with tiles of
            // `bytes` bytes, the barrier initialised and its phase held open
            // (the caller's precondition); coordinates outside the array are
            // the copy engine's to fill.
            unsafe {
                asm!(
                    "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [{b}], {n};",
                    b = in(reg32) b, n = in(reg32) bytes, options(nostack)
                );
                match rank {
                    1 => asm!(
                        "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{d}], [{m}, {{{c0}}}], [{b}];",
                        d = in(reg32) d, m = in(reg64) map, c0 = in(reg32) c0, b = in(reg32) b,
                        options(nostack)
                    ),
                    2 => asm!(
                        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{d}], [{m}, {{{c0}, {c1}}}], [{b}];",
                        d = in(reg32) d, m = in(reg64) map, c0 = in(reg32) c0, c1 = in(reg32) c1,
                        b = in(reg32) b, options(nostack)
                    ),
                    3 => asm!(
                        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{d}], [{m}, {{{c0}, {c1}, {c2}}}], [{b}];",
                        d = in(reg32) d, m = in(reg64) map, c0 = in(reg32) c0, c1 = in(reg32) c1,
                        c2 = in(reg32) c2, b = in(reg32) b, options(nostack)
                    ),
                    4 => asm!(
                        "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{d}], [{m}, {{{c0}, {c1}, {c2}, {c3}}}], [{b}];",
                        d = in(reg32) d, m = in(reg64) map, c0 = in(reg32) c0, c1 = in(reg32) c1,
                        c2 = in(reg32) c2, c3 = in(reg32) c3, b = in(reg32) b, options(nostack)
                    ),
                    _ => asm!(
                        "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{d}], [{m}, {{{c0}, {c1}, {c2}, {c3}, {c4}}}], [{b}];",
                        d = in(reg32) d, m = in(reg64) map, c0 = in(reg32) c0, c1 = in(reg32) c1,
                        c2 = in(reg32) c2, c3 = in(reg32) c3, c4 = in(reg32) c4, b = in(reg32) b,
                        options(nostack)
                    ),
                }
            }
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = (dst, offset, map, coords, rank, bytes, bars, bar);
            super::faults::fail(c"tensor copies need sm_90 or newer", site)
        }
    }

    #[inline(always)]
    fn bulk_copy_multicast(
        dst: SharedBase,
        offset: u32,
        src: *const u8,
        bytes: u32,
        bars: SharedBase,
        bar: u32,
        blocks: u16,
        site: Site,
    ) {
        #[cfg(coop_sm90)]
        {
            let _ = site;
            // SAFETY: as for `bulk_copy`, in every block of `blocks`: the
            // destination and barrier at the same offsets there, which the
            // caller keeps unread and its phase open until the bytes land.
            unsafe {
                asm!(
                    "{{ .reg .b64 g; cvta.to.global.u64 g, {s};",
                    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [{d}], [g], {n}, [{b}], {k}; }}",
                    d = in(reg32) dst.0 + offset,
                    s = in(reg64) src,
                    n = in(reg32) bytes,
                    b = in(reg32) bars.0 + bar,
                    k = in(reg16) blocks,
                    options(nostack)
                )
            };
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = (dst, offset, src, bytes, bars, bar, blocks);
            super::faults::fail(c"multicast copies need sm_90 or newer", site)
        }
    }

    #[inline(always)]
    fn bulk_store(
        src: SharedBase,
        offset: u32,
        buffer: *mut u8,
        first: usize,
        bytes: u32,
        elem: u32,
        site: Site,
    ) {
        #[cfg(coop_sm90)]
        {
            let _ = site;
            let d = buffer.wrapping_add(first * elem as usize);
            // SAFETY: source and destination 16-byte aligned and in bounds,
            // the source ordered for the copy engine (the caller's
            // precondition); `cvta.to.global` gives the global address.
            unsafe {
                asm!(
                    "{{ .reg .b64 g; cvta.to.global.u64 g, {d};",
                    "cp.async.bulk.global.shared::cta.bulk_group [g], [{s}], {n}; }}",
                    "cp.async.bulk.commit_group;",
                    d = in(reg64) d, s = in(reg32) src.0 + offset, n = in(reg32) bytes,
                    options(nostack)
                )
            };
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = (src, offset, buffer, first, bytes, elem);
            super::faults::fail(c"bulk stores need sm_90 or newer", site)
        }
    }

    #[inline(always)]
    fn bulk_reduce(
        src: SharedBase,
        offset: u32,
        buffer: *mut u8,
        first: usize,
        bytes: u32,
        elem: u32,
        op: Rmw,
        kind: u32,
        _combine: CombineElement,
        site: Site,
    ) {
        #[cfg(coop_sm90)]
        {
            let d = buffer.wrapping_add(first * elem as usize);
            let s = src.0 + offset;
            // SAFETY: as for `bulk_store`; the pair of operation and type is
            // one the engine has (`BulkReduce`'s impls, the caller's
            // precondition).
            unsafe {
                // Element codes: u32 2, i32 3, u64 4, i64 5, f32 7, f64 8.
                match (op, kind) {
                    (Rmw::Add, 2) => reduce_bulk!("add", "u32", d, s, bytes),
                    (Rmw::Add, 3) => reduce_bulk!("add", "s32", d, s, bytes),
                    (Rmw::Add, 4 | 5) => reduce_bulk!("add", "u64", d, s, bytes),
                    (Rmw::Add, 7) => reduce_bulk!("add", "f32", d, s, bytes),
                    (Rmw::Add, 8) => reduce_bulk!("add", "f64", d, s, bytes),
                    (Rmw::Min, 2) => reduce_bulk!("min", "u32", d, s, bytes),
                    (Rmw::Min, 3) => reduce_bulk!("min", "s32", d, s, bytes),
                    (Rmw::Min, 4) => reduce_bulk!("min", "u64", d, s, bytes),
                    (Rmw::Min, 5) => reduce_bulk!("min", "s64", d, s, bytes),
                    (Rmw::Max, 2) => reduce_bulk!("max", "u32", d, s, bytes),
                    (Rmw::Max, 3) => reduce_bulk!("max", "s32", d, s, bytes),
                    (Rmw::Max, 4) => reduce_bulk!("max", "u64", d, s, bytes),
                    (Rmw::Max, 5) => reduce_bulk!("max", "s64", d, s, bytes),
                    (Rmw::And, 2 | 3) => reduce_bulk!("and", "b32", d, s, bytes),
                    (Rmw::And, _) => reduce_bulk!("and", "b64", d, s, bytes),
                    (Rmw::Or, 2 | 3) => reduce_bulk!("or", "b32", d, s, bytes),
                    (Rmw::Or, _) => reduce_bulk!("or", "b64", d, s, bytes),
                    (Rmw::Xor, 2 | 3) => reduce_bulk!("xor", "b32", d, s, bytes),
                    (Rmw::Xor, _) => reduce_bulk!("xor", "b64", d, s, bytes),
                    _ => super::faults::fail(
                        c"bulk_reduce: an operation the copy engine does not have",
                        site,
                    ),
                }
                asm!("cp.async.bulk.commit_group;", options(nostack));
            }
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = (src, offset, buffer, first, bytes, elem, op, kind);
            super::faults::fail(c"bulk reductions need sm_90 or newer", site)
        }
    }

    #[inline(always)]
    fn barrier_complete(bars: SharedBase, bar: u32, bytes: u32, site: Site) {
        #[cfg(coop_sm90)]
        {
            let _ = site;
            // SAFETY: an initialised barrier whose phase expects the bytes
            // (the caller's precondition).
            unsafe {
                asm!(
                    "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [{b}], {n};",
                    b = in(reg32) bars.0 + bar, n = in(reg32) bytes, options(nostack)
                )
            };
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = (bars, bar, bytes);
            super::faults::fail(c"mbarrier transaction counts need sm_90 or newer", site)
        }
    }

    #[inline(always)]
    fn bulk_to_block(
        dst: SharedBase,
        rank: u32,
        src: SharedBase,
        bytes: u32,
        bars: SharedBase,
        bar: u32,
        reduce: Option<BulkCombine>,
        site: Site,
    ) {
        #[cfg(coop_sm90)]
        {
            let (d, b): (u32, u32);
            // SAFETY: `mapa` only computes addresses: those of the same
            // array and barrier in block `rank` of the cluster, a running
            // block (the caller's precondition).
            unsafe {
                asm!(
                    "mapa.shared::cluster.u32 {d}, {l}, {k};",
                    "mapa.shared::cluster.u32 {b}, {m}, {k};",
                    l = in(reg32) dst.0, m = in(reg32) bars.0 + bar, k = in(reg32) rank,
                    d = out(reg32) d, b = out(reg32) b,
                    options(nostack, pure, nomem)
                )
            };
            let s = src.0;
            // SAFETY: both arrays 16-byte aligned and `bytes` long, the
            // source ordered for the engine and left unwritten, the
            // destination's barrier expecting the bytes, and the pair of
            // operation and type one the engine has (the caller's
            // precondition: `ClusterReduce`'s impls).
            unsafe {
                match reduce.map(|r| (r.op, r.kind)) {
                    None => asm!(
                        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [{d}], [{s}], {n}, [{b}];",
                        d = in(reg32) d, s = in(reg32) s, n = in(reg32) bytes, b = in(reg32) b,
                        options(nostack)
                    ),
                    // Element codes: u32 2, i32 3, u64 4, i64 5.
                    Some((Rmw::Add, 2)) => reduce_to_block!("add", "u32", d, s, bytes, b),
                    Some((Rmw::Add, 3)) => reduce_to_block!("add", "s32", d, s, bytes, b),
                    Some((Rmw::Add, 4 | 5)) => reduce_to_block!("add", "u64", d, s, bytes, b),
                    Some((Rmw::Min, 2)) => reduce_to_block!("min", "u32", d, s, bytes, b),
                    Some((Rmw::Min, 3)) => reduce_to_block!("min", "s32", d, s, bytes, b),
                    Some((Rmw::Max, 2)) => reduce_to_block!("max", "u32", d, s, bytes, b),
                    Some((Rmw::Max, 3)) => reduce_to_block!("max", "s32", d, s, bytes, b),
                    Some((Rmw::And, 2 | 3)) => reduce_to_block!("and", "b32", d, s, bytes, b),
                    Some((Rmw::Or, 2 | 3)) => reduce_to_block!("or", "b32", d, s, bytes, b),
                    Some((Rmw::Xor, 2 | 3)) => reduce_to_block!("xor", "b32", d, s, bytes, b),
                    _ => super::faults::fail(
                        c"bulk_to_block: an operation the copy engine does not have for shared memory",
                        site,
                    ),
                }
            }
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = (dst, rank, src, bytes, bars, bar, reduce);
            super::faults::fail(
                c"copies into another block's shared memory need sm_90 or newer",
                site,
            )
        }
    }

    #[inline(always)]
    fn multicast_call(
        _bars: SharedBase,
        _load: u32,
        _source: usize,
        _coords: [i32; 5],
        _rank: u32,
        _members: u16,
        _site: Site,
    ) {
    }

    #[inline(always)]
    fn barrier_expect(bars: SharedBase, bar: u32, bytes: u32, site: Site) {
        #[cfg(coop_sm90)]
        {
            let _ = site;
            // SAFETY: an initialised barrier whose phase is held open (the
            // caller's precondition).
            unsafe {
                asm!(
                    "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [{b}], {n};",
                    b = in(reg32) bars.0 + bar, n = in(reg32) bytes, options(nostack)
                )
            };
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = (bars, bar, bytes);
            super::faults::fail(c"multicast copies need sm_90 or newer", site)
        }
    }

    #[inline(always)]
    fn release_counter_init(bars: SharedBase, offset: u32, _site: Site) {
        // SAFETY: a 4-byte aligned word of the pipeline's declaration.
        unsafe {
            asm!(
                "st.shared.u32 [{a}], 0;",
                a = in(reg32) bars.0 + offset, options(nostack)
            )
        };
    }

    #[inline(always)]
    fn count_release(bars: SharedBase, offset: u32, rank: u32, site: Site) -> u32 {
        #[cfg(coop_sm90)]
        {
            let _ = site;
            let old: u32;
            // SAFETY: the counter of the same pipeline in a running block of
            // the cluster (the caller's precondition); `mapa` maps the
            // address.
            unsafe {
                asm!(
                    "{{ .reg .b32 r; mapa.shared::cluster.u32 r, {a}, {k};",
                    "atom.acq_rel.cluster.shared::cluster.add.u32 {o}, [r], 1; }}",
                    a = in(reg32) bars.0 + offset, k = in(reg32) rank, o = out(reg32) old,
                    options(nostack)
                )
            };
            old
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = (bars, offset, rank);
            super::faults::fail(c"multicast copies need sm_90 or newer", site)
        }
    }

    #[inline(always)]
    fn tensor_copy_multicast(
        dst: SharedBase,
        offset: u32,
        map: *const TensorMapData,
        coords: [i32; 5],
        rank: u32,
        bytes: u32,
        bars: SharedBase,
        bar: u32,
        blocks: u16,
        site: Site,
    ) {
        #[cfg(coop_sm90)]
        {
            let _ = (site, bytes);
            let (d, b) = (dst.0 + offset, bars.0 + bar);
            let [c0, c1, c2, c3, c4] = coords;
            // SAFETY: as for `tensor_copy`, in every block of `blocks`: the
            // destination and barrier at the same offsets there, which the
            // caller keeps unread and its phase open until the tile lands.
            unsafe {
                match rank {
                    1 => asm!(
                        "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{d}], [{m}, {{{c0}}}], [{b}], {k};",
                        d = in(reg32) d, m = in(reg64) map, c0 = in(reg32) c0, b = in(reg32) b,
                        k = in(reg16) blocks, options(nostack)
                    ),
                    2 => asm!(
                        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{d}], [{m}, {{{c0}, {c1}}}], [{b}], {k};",
                        d = in(reg32) d, m = in(reg64) map, c0 = in(reg32) c0, c1 = in(reg32) c1,
                        b = in(reg32) b, k = in(reg16) blocks, options(nostack)
                    ),
                    3 => asm!(
                        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{d}], [{m}, {{{c0}, {c1}, {c2}}}], [{b}], {k};",
                        d = in(reg32) d, m = in(reg64) map, c0 = in(reg32) c0, c1 = in(reg32) c1,
                        c2 = in(reg32) c2, b = in(reg32) b, k = in(reg16) blocks, options(nostack)
                    ),
                    4 => asm!(
                        "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{d}], [{m}, {{{c0}, {c1}, {c2}, {c3}}}], [{b}], {k};",
                        d = in(reg32) d, m = in(reg64) map, c0 = in(reg32) c0, c1 = in(reg32) c1,
                        c2 = in(reg32) c2, c3 = in(reg32) c3, b = in(reg32) b, k = in(reg16) blocks,
                        options(nostack)
                    ),
                    _ => asm!(
                        "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{d}], [{m}, {{{c0}, {c1}, {c2}, {c3}, {c4}}}], [{b}], {k};",
                        d = in(reg32) d, m = in(reg64) map, c0 = in(reg32) c0, c1 = in(reg32) c1,
                        c2 = in(reg32) c2, c3 = in(reg32) c3, c4 = in(reg32) c4, b = in(reg32) b,
                        k = in(reg16) blocks, options(nostack)
                    ),
                }
            }
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = (dst, offset, map, coords, rank, bytes, bars, bar, blocks);
            super::faults::fail(c"multicast copies need sm_90 or newer", site)
        }
    }

    #[inline(always)]
    fn tensor_store(
        src: SharedBase,
        offset: u32,
        map: *const TensorMapData,
        coords: [i32; 5],
        rank: u32,
        site: Site,
    ) {
        #[cfg(coop_sm90)]
        {
            let _ = site;
            let s = src.0 + offset;
            let [c0, c1, c2, c3, c4] = coords;
            // SAFETY: the source 128-byte aligned and a whole tile of the
            // map inside the array, ordered for the copy engine, the map of
            // live global memory the launch may write (the caller's
            // precondition).
            unsafe {
                match rank {
                    1 => asm!(
                        "cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [{m}, {{{c0}}}], [{s}];",
                        m = in(reg64) map, c0 = in(reg32) c0, s = in(reg32) s, options(nostack)
                    ),
                    2 => asm!(
                        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [{m}, {{{c0}, {c1}}}], [{s}];",
                        m = in(reg64) map, c0 = in(reg32) c0, c1 = in(reg32) c1, s = in(reg32) s,
                        options(nostack)
                    ),
                    3 => asm!(
                        "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [{m}, {{{c0}, {c1}, {c2}}}], [{s}];",
                        m = in(reg64) map, c0 = in(reg32) c0, c1 = in(reg32) c1, c2 = in(reg32) c2,
                        s = in(reg32) s, options(nostack)
                    ),
                    4 => asm!(
                        "cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [{m}, {{{c0}, {c1}, {c2}, {c3}}}], [{s}];",
                        m = in(reg64) map, c0 = in(reg32) c0, c1 = in(reg32) c1, c2 = in(reg32) c2,
                        c3 = in(reg32) c3, s = in(reg32) s, options(nostack)
                    ),
                    _ => asm!(
                        "cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [{m}, {{{c0}, {c1}, {c2}, {c3}, {c4}}}], [{s}];",
                        m = in(reg64) map, c0 = in(reg32) c0, c1 = in(reg32) c1, c2 = in(reg32) c2,
                        c3 = in(reg32) c3, c4 = in(reg32) c4, s = in(reg32) s, options(nostack)
                    ),
                }
                asm!("cp.async.bulk.commit_group;", options(nostack));
            }
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = (src, offset, map, coords, rank);
            super::faults::fail(c"tensor copies need sm_90 or newer", site)
        }
    }

    #[inline(always)]
    fn tensor_reduce(
        src: SharedBase,
        offset: u32,
        map: *const TensorMapData,
        coords: [i32; 5],
        rank: u32,
        op: Rmw,
        _combine: CombineElement,
        site: Site,
    ) {
        #[cfg(coop_sm90)]
        {
            let _ = site;
            let s = src.0 + offset;
            let c = coords;
            // SAFETY: as for `tensor_store`; the operation is one the copy
            // engine applies to the map's element type (`TensorReduce`).
            unsafe {
                match op {
                    Rmw::Add => {
                        reduce_tile!("add", rank, map, [c[0], c[1], c[2], c[3], c[4]], s)
                    }
                    Rmw::Min => {
                        reduce_tile!("min", rank, map, [c[0], c[1], c[2], c[3], c[4]], s)
                    }
                    Rmw::Max => {
                        reduce_tile!("max", rank, map, [c[0], c[1], c[2], c[3], c[4]], s)
                    }
                    Rmw::And => {
                        reduce_tile!("and", rank, map, [c[0], c[1], c[2], c[3], c[4]], s)
                    }
                    Rmw::Or => {
                        reduce_tile!("or", rank, map, [c[0], c[1], c[2], c[3], c[4]], s)
                    }
                    Rmw::Xor => {
                        reduce_tile!("xor", rank, map, [c[0], c[1], c[2], c[3], c[4]], s)
                    }
                    // `TensorReduce` has none of these.
                    Rmw::Exchange | Rmw::Inc | Rmw::Dec => super::faults::fail(
                        c"tensor reductions take add, min, max, and, or and xor",
                        site,
                    ),
                }
                asm!("cp.async.bulk.commit_group;", options(nostack));
            }
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = (src, offset, map, coords, rank, op);
            super::faults::fail(c"tensor reductions need sm_90 or newer", site)
        }
    }

    #[inline(always)]
    fn shared_writes_to_copy_engine(_site: Site) {
        #[cfg(coop_sm90)]
        // SAFETY: a fence only.
        unsafe {
            asm!("fence.proxy.async.shared::cta;", options(nostack))
        };
    }

    #[inline(always)]
    fn tensor_stores_read(_site: Site) {
        #[cfg(coop_sm90)]
        // SAFETY: waits for the calling thread's own bulk groups; no operands.
        unsafe {
            asm!("cp.async.bulk.wait_group.read 0;", options(nostack))
        };
    }
}
