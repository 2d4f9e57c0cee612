//! `barrier.sync` for the block, `bar.warp.sync` for a tile, the driver's
//! grid barrier word for a cooperative launch's grid.

use super::Ptx;
use crate::backend::{Barriers, Registers, Site};
use core::arch::asm;

#[allow(improper_ctypes)]
unsafe extern "C" {
    #[link_name = "llvm.nvvm.barrier.cta.sync.all"]
    fn barrier_cta_sync_all(id: u32);
    #[link_name = "llvm.nvvm.barrier.cta.sync.count"]
    fn barrier_cta_sync_count(id: u32, count: u32);
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
        let arrival = grid_arrive("CooperativeGrid::sync", site);
        grid_wait(arrival, "CooperativeGrid::sync", site);
    }

    #[inline(always)]
    fn arrive_grid(site: Site) -> u32 {
        grid_arrive("CooperativeGrid::barrier_arrive", site)
    }

    #[inline(always)]
    fn wait_grid(arrival: u32, site: Site) {
        grid_wait(arrival, "CooperativeGrid::barrier_wait", site)
    }

    /// A hardware barrier of the tile's own where one is free, the
    /// software barrier otherwise.
    ///
    /// A block has 16 hardware barriers; coop's block barrier is number 0.
    /// The tiles of a block are numbered as the nodes of a binary tree: the
    /// `B / N` tiles of `N` threads in a block of `B` get `B / N` to
    /// `2 B / N - 1`, so that tiles of different sizes never share one, and
    /// every tile of a block of up to 512 threads has one of 1 to 15
    /// (`barrier.sync id, N`, non-aligned, counting the tile's threads).
    /// Tools that check synchronisation (compute-sanitizer's racecheck) see
    /// a hardware barrier; they cannot see the software one's atomics. The
    /// tiles past number 15 (tiles of 64 threads in blocks of more than 512)
    /// take the software barrier: the warp's lanes meet (`bar.warp.sync`),
    /// lane 0 arrives at the tile's counter, the last warp to arrive resets
    /// it and advances the generation word, the others wait for the
    /// generation to change; the lanes meet again. A warp can only arrive
    /// at the next barrier after this one's generation changed, so the
    /// counter holds one barrier's arrivals at a time, and the generation
    /// only ever moves forward.
    #[inline(always)]
    fn sync_tile(size_index: u32, tile: u32, warps: u32, site: Site) {
        let threads = warps * 32;
        let id = Ptx::block_dim(site).volume_u32() / threads + tile;
        if id < 16 {
            // SAFETY: the barrier's precondition, that the tile's `threads`
            // threads (whole warps) and no others arrive at barrier `id`,
            // holds: `id` is this tile's alone (above), and every thread of
            // the tile arriving is the caller's contract (checked by the
            // CPU backend).
            unsafe { barrier_cta_sync_count(id, threads) };
            return;
        }
        Self::sync_warp(u32::MAX, site);
        if Ptx::lane_id(site) == 0 {
            let count = tile_barrier_word(size_index, tile, 0);
            let generation = tile_barrier_word(size_index, tile, 1);
            // SAFETY: both words lie in `coop_tile_barriers` (the slot of
            // the tile), which only this protocol touches; the barrier was
            // reset when the tile was made.
            unsafe {
                let seen: u32;
                asm!("ld.relaxed.cta.shared.u32 {o}, [{p}];", o = out(reg32) seen, p = in(reg32) generation, options(nostack));
                let before: u32;
                asm!(
                    "atom.acq_rel.cta.shared.add.u32 {o}, [{p}], 1;",
                    o = out(reg32) before,
                    p = in(reg32) count,
                    options(nostack)
                );
                if before == warps - 1 {
                    asm!("st.relaxed.cta.shared.u32 [{p}], 0;", p = in(reg32) count, options(nostack));
                    asm!(
                        "st.release.cta.shared.u32 [{p}], {v};",
                        p = in(reg32) generation,
                        v = in(reg32) seen.wrapping_add(1),
                        options(nostack)
                    );
                } else {
                    loop {
                        let now: u32;
                        asm!("ld.acquire.cta.shared.u32 {o}, [{p}];", o = out(reg32) now, p = in(reg32) generation, options(nostack));
                        if now != seen {
                            break;
                        }
                    }
                }
            }
        }
        Self::sync_warp(u32::MAX, site);
    }

    #[inline(always)]
    fn sync_tile_uniform(
        size_index: u32,
        tile: u32,
        warps: u32,
        _call: &'static str,
        _value: u32,
        site: Site,
    ) {
        Self::sync_tile(size_index, tile, warps, site)
    }

    #[inline(always)]
    fn reset_tile_barrier(size_index: u32, tile: u32, _site: Site) {
        // SAFETY: the tile's two words in `coop_tile_barriers`.
        unsafe {
            asm!(
                "st.shared.u32 [{c}], 0; st.shared.u32 [{g}], 0;",
                c = in(reg32) tile_barrier_word(size_index, tile, 0),
                g = in(reg32) tile_barrier_word(size_index, tile, 1),
                options(nostack)
            );
        }
    }

    #[inline(always)]
    fn sync_cluster(site: Site) {
        #[cfg(coop_sm90)]
        {
            let _ = site;
            // SAFETY: the barrier's precondition, that every thread of the
            // cluster arrives, is the caller's contract (documented on
            // `Cluster::sync`, checked by the CPU backend).
            unsafe {
                asm!("barrier.cluster.arrive;", options(nostack));
                asm!("barrier.cluster.wait;", options(nostack));
            }
        }
        #[cfg(not(coop_sm90))]
        Self::sync_block("Cluster::sync", site);
    }

    /// Nothing arrives early: the wait is the block barrier, which every
    /// thread reaches after its arrival, as CUDA's `thread_block` does. (On
    /// sm_90 the cluster's hardware split barrier, usable when the block is
    /// its cluster's only block, measured about 4 % slower per round than
    /// `barrier.sync` on an H200: chapter 7.)
    #[inline(always)]
    fn arrive_block(_site: Site) {}

    #[inline(always)]
    fn wait_block(site: Site) {
        Self::sync_block("ThreadBlock::barrier_wait", site);
    }

    #[inline(always)]
    fn arrive_cluster(site: Site) {
        #[cfg(coop_sm90)]
        {
            let _ = site;
            // SAFETY: every thread of the cluster arrives once before it
            // waits (the token's contract).
            unsafe { asm!("barrier.cluster.arrive.release;", options(nostack)) };
        }
        #[cfg(not(coop_sm90))]
        Self::arrive_block(site);
    }

    #[inline(always)]
    fn wait_cluster(site: Site) {
        #[cfg(coop_sm90)]
        {
            let _ = site;
            // SAFETY: the calling thread arrived (it holds the token).
            unsafe { asm!("barrier.cluster.wait.acquire;", options(nostack)) };
        }
        #[cfg(not(coop_sm90))]
        Self::wait_block(site);
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

/// The grid barrier's arrival: the block barrier, then thread 0 of the
/// block adds the block's share to the driver's grid barrier word and
/// returns the word as it found it (0 in every other thread).
#[inline(always)]
fn grid_arrive(call: &'static str, site: Site) -> u32 {
    Ptx::sync_block(call, site);
    let t = Ptx::thread_index(site);
    if t.x | t.y | t.z != 0 {
        return 0;
    }
    let word = grid_barrier_word(site);
    let b = Ptx::block_index(site);
    let blocks = Ptx::grid_dim(site).volume_u32();
    let arrival = if b.x | b.y | b.z == 0 {
        0x8000_0000 - (blocks - 1)
    } else {
        1
    };
    let before: u32;
    // SAFETY: a cooperative launch's workspace is two words of device
    // memory that live for the launch: its size, then the barrier word,
    // which only this protocol touches.
    unsafe {
        asm!(
            "{{ .reg .b64 %ga; cvta.to.global.u64 %ga, {p}; atom.release.gpu.global.add.u32 {o}, [%ga], {v}; }}",
            o = out(reg32) before,
            p = in(reg64) word,
            v = in(reg32) arrival,
            options(nostack)
        );
    }
    before
}

/// The grid barrier's wait: thread 0 of the block polls the barrier word
/// with relaxed loads until its top bit differs from `before` (what its
/// arrival found), loads it once with acquire, then the block barrier.
#[inline(always)]
fn grid_wait(before: u32, call: &'static str, site: Site) {
    let t = Ptx::thread_index(site);
    if t.x | t.y | t.z == 0 {
        let word = grid_barrier_word(site);
        loop {
            let now: u32;
            // SAFETY: as in `grid_arrive`.
            unsafe {
                asm!(
                    "{{ .reg .b64 %ga; cvta.to.global.u64 %ga, {p}; ld.relaxed.gpu.global.u32 {o}, [%ga]; }}",
                    o = out(reg32) now,
                    p = in(reg64) word,
                    options(nostack)
                );
            }
            if (before ^ now) & 0x8000_0000 != 0 {
                break;
            }
        }
        // The polls are relaxed; one acquire load of the word, which reads
        // the flipped value or a later one (every later value comes from
        // the arrivals' read-modify-writes, which continue the release
        // sequences of every arrival), orders what the other blocks wrote
        // before arriving before what this block does after the barrier.
        // SAFETY: as in `grid_arrive`.
        unsafe {
            asm!(
                "{{ .reg .b64 %ga; cvta.to.global.u64 %ga, {p}; ld.acquire.gpu.global.u32 {o}, [%ga]; }}",
                o = out(reg32) _,
                p = in(reg64) word,
                options(nostack)
            );
        }
    }
    Ptx::sync_block(call, site);
}

/// The driver's grid barrier word of a cooperative launch: the second word
/// of the workspace whose address the driver leaves in
/// `%envreg1`:`%envreg2`. A launch without one is reported at `site`.
#[inline(always)]
fn grid_barrier_word(site: Site) -> *mut u32 {
    let (lo, hi): (u32, u32);
    // SAFETY: reading the environment registers has no preconditions.
    unsafe {
        asm!("mov.u32 {}, %envreg2;", out(reg32) lo, options(nomem, nostack, pure));
        asm!("mov.u32 {}, %envreg1;", out(reg32) hi, options(nomem, nostack, pure));
    }
    let workspace = ((hi as u64) << 32 | lo as u64) as *mut u32;
    if workspace.is_null() {
        not_cooperative(site);
    }
    // SAFETY: the workspace holds two words.
    unsafe { workspace.add(1) }
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

core::arch::global_asm!(".shared .align 4 .b32 coop_tile_barriers[62];");

/// The shared-window address of word `word` (0: arrivals, 1: generation)
/// of the barrier of tile `tile` of size `64 << size_index`: the block's 16
/// tiles of 64 first, then its 8 of 128, 4 of 256, 2 of 512 and 1 of 1024.
#[inline(always)]
fn tile_barrier_word(size_index: u32, tile: u32, word: u32) -> u32 {
    const FIRST: [u32; 5] = [0, 16, 24, 28, 30];
    let base: u32;
    // SAFETY: reads a symbol's address; no memory access.
    unsafe {
        asm!("mov.u32 {0}, coop_tile_barriers;", out(reg32) base, options(pure, nomem, nostack));
    }
    base + 8 * (FIRST[size_index as usize] + tile) + 4 * word
}
