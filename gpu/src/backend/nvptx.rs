//! PTX lowering. Each function is `#[inline(always)]` so that a handle method
//! costs exactly the instruction it names.

use super::{Redux, Site};
use crate::Dim3;
use core::arch::nvptx as arch;

// Block-shared scratch of the block-level collectives. PTX allocates it only
// in kernels that use it.
core::arch::global_asm!(
    ".shared .align 16 .b8 coop_block_scratch[{bytes}];",
    bytes = const super::BLOCK_SCRATCH_BYTES
);

#[allow(improper_ctypes)]
extern "C" {
    #[link_name = "llvm.nvvm.read.ptx.sreg.laneid"]
    fn sreg_laneid() -> i32;
    #[link_name = "llvm.nvvm.barrier.cta.sync.all"]
    fn barrier_cta_sync_all(id: u32);
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

/// `barrier.sync 0`: the block barrier, without `.aligned`.
///
/// The non-aligned form lets the threads of one warp arrive at different
/// instructions for the same barrier, so it stays correct when the
/// compiler copies the barrier into both arms of a branch that splits a
/// warp (LLVM's tail duplication and rustc's MIR passes both do this; the
/// guarded-load, block-scan, guarded-store kernel in `docs/architecture.md`
/// hung an H100 with `bar.sync`, which is `barrier.sync.aligned`). What
/// the model asks of the caller, that every thread of the block reaches a
/// barrier, is documented on `ThreadBlock::sync` and checked by the CPU
/// backend; the PTX builder refuses PTX holding an aligned barrier.
#[inline(always)]
pub(crate) fn sync_block(_site: Site) {
    // SAFETY: the barrier's only precondition, that every non-exited
    // thread of the block arrives, is the caller's contract (see above).
    unsafe { barrier_cta_sync_all(0) }
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

/// The shared-window address of byte `offset` of the block's scratch. The
/// symbol's address is a `pure` asm result, so LLVM computes it once per
/// kernel and hoists it out of loops (inside each access's asm, ptxas
/// recomputed it, from `%cluster_ctarank`, at every access), and the
/// constant offsets fold into the accesses' immediates.
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

/// Stores `word` at byte `offset` of the block's scratch with
/// `st.shared.u32` (a shared-window address, not a generic one).
#[inline(always)]
pub(crate) fn scratch_store(offset: u32, word: u32, _site: Site) {
    // SAFETY: callers keep `offset + 4 <= BLOCK_SCRATCH_BYTES` and 4-aligned.
    unsafe {
        core::arch::asm!(
            "st.shared.u32 [{0}], {1};",
            in(reg32) scratch_address(offset),
            in(reg32) word,
            options(nostack)
        );
    }
}

/// `scratch_store` by the threads whose `pred` holds, as one predicated
/// `st.shared.u32`: no branch for LLVM to rearrange around the barrier that
/// follows, and none for ptxas to reconverge.
#[inline(always)]
pub(crate) fn scratch_store_if(pred: bool, offset: u32, word: u32, _site: Site) {
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

/// Loads the word at byte `offset` of the block's scratch with
/// `ld.shared.u32`.
#[inline(always)]
pub(crate) fn scratch_load(offset: u32, _site: Site) -> u32 {
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

/// Four consecutive words of the scratch from byte `offset` (16-aligned),
/// with one `ld.shared.v4.u32`.
#[inline(always)]
pub(crate) fn scratch_load4(offset: u32, _site: Site) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: callers keep `offset + 16 <= BLOCK_SCRATCH_BYTES` and
    // 16-aligned; the scratch is 16-aligned.
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

/// Creating a tile needs no instruction on the GPU.
#[inline(always)]
pub(crate) fn tile_created(_size: u32, _parent_size: u32, _site: Site) {}

/// Stops the kernel with PTX `trap` (a failed check whose message the GPU
/// could not show anyway).
#[inline(always)]
pub(crate) fn trap() -> ! {
    // SAFETY: `trap` has no preconditions.
    unsafe { arch::trap() }
}

/// A panic in device code stops the kernel with PTX `trap`; the launch then
/// fails on the host with `CUDA_ERROR_LAUNCH_FAILED`.
#[panic_handler]
fn on_panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: `trap` has no preconditions.
    unsafe { arch::trap() }
}

// The launch's dynamic shared memory (`extern __shared__` in CUDA): every
// kernel that binds a `Shared<[E]>` sees it, after its static arrays.
core::arch::global_asm!(".extern .shared .align 16 .b8 coop_dynamic_shared[];");

/// A shared array's shared-window byte address.
#[derive(Clone, Copy)]
pub(crate) struct SharedBase(u32);

impl SharedBase {
    #[inline(always)]
    pub(crate) fn from_window(address: u32) -> Self {
        SharedBase(address)
    }
}

/// The launch's dynamic shared memory: its address and size in bytes
/// (`%dynamic_smem_size`).
#[inline(always)]
pub(crate) fn dynamic_shared(
    _name: &'static str,
    _shape: super::ElemShape,
    _site: Site,
) -> (SharedBase, u32) {
    let (address, bytes): (u32, u32);
    // SAFETY: reads a symbol's address and a special register.
    unsafe {
        core::arch::asm!(
            "mov.u32 {0}, coop_dynamic_shared;",
            "mov.u32 {1}, %dynamic_smem_size;",
            out(reg32) address,
            out(reg32) bytes,
            options(pure, nomem, nostack)
        );
    }
    (SharedBase(address), bytes)
}

macro_rules! shared_word {
    ($load:ident, $store:ident, $t:ty, $reg:ident, $ld:literal, $st:literal) => {
        #[inline(always)]
        unsafe fn $load(address: u32) -> $t {
            let v: $t;
            // SAFETY: the caller passes an in-bounds, aligned shared address.
            unsafe {
                core::arch::asm!($ld, out($reg) v, in(reg32) address, options(readonly, nostack));
            }
            v
        }

        #[inline(always)]
        unsafe fn $store(address: u32, v: $t) {
            // SAFETY: as above.
            unsafe {
                core::arch::asm!($st, in(reg32) address, in($reg) v, options(nostack));
            }
        }
    };
}

shared_word!(
    ld_u8,
    st_u8,
    u16,
    reg16,
    "ld.shared.u8 {0}, [{1}];",
    "st.shared.u8 [{0}], {1};"
);
shared_word!(
    ld_u16,
    st_u16,
    u16,
    reg16,
    "ld.shared.u16 {0}, [{1}];",
    "st.shared.u16 [{0}], {1};"
);
shared_word!(
    ld_u32,
    st_u32,
    u32,
    reg32,
    "ld.shared.u32 {0}, [{1}];",
    "st.shared.u32 [{0}], {1};"
);
shared_word!(
    ld_u64,
    st_u64,
    u64,
    reg64,
    "ld.shared.u64 {0}, [{1}];",
    "st.shared.u64 [{0}], {1};"
);

/// Loads element `index` of the array at `base` with `ld.shared`: one
/// instruction of the element's width (8 to 128 bits) when its alignment
/// allows, else 32-bit words or bytes.
#[inline(always)]
pub(crate) fn shared_load<E: crate::shared::SharedElem>(
    base: SharedBase,
    index: u32,
    _site: Site,
) -> E {
    let size = core::mem::size_of::<E>();
    let align = core::mem::align_of::<E>();
    let address = base.0 + index * size as u32;
    let mut out = core::mem::MaybeUninit::<E>::uninit();
    let p = out.as_mut_ptr() as *mut u8;
    // SAFETY: callers bounds-check `index`; every store below fills `E`'s
    // bytes exactly once, and `SharedElem` makes any bytes a valid `E`.
    unsafe {
        match (size, align) {
            (1, _) => p.write(ld_u8(address) as u8),
            (2, 2..) => (p as *mut u16).write(ld_u16(address)),
            (4, 4..) => (p as *mut u32).write(ld_u32(address)),
            (8, 8..) => (p as *mut u64).write(ld_u64(address)),
            (16, 16..) => {
                let (a, b, c, d): (u32, u32, u32, u32);
                core::arch::asm!(
                    "ld.shared.v4.u32 {{{0}, {1}, {2}, {3}}}, [{4}];",
                    out(reg32) a, out(reg32) b, out(reg32) c, out(reg32) d,
                    in(reg32) address,
                    options(readonly, nostack)
                );
                (p as *mut [u32; 4]).write([a, b, c, d]);
            }
            (_, 4..) => {
                for k in 0..size / 4 {
                    (p.add(4 * k) as *mut u32).write(ld_u32(address + 4 * k as u32));
                }
            }
            _ => {
                for k in 0..size {
                    p.add(k).write(ld_u8(address + k as u32) as u8);
                }
            }
        }
        out.assume_init()
    }
}

/// Stores `value` to element `index` of the array at `base` with
/// `st.shared`, in the widths [`shared_load`] uses.
#[inline(always)]
pub(crate) fn shared_store<E: crate::shared::SharedElem>(
    base: SharedBase,
    index: u32,
    value: E,
    _site: Site,
) {
    let size = core::mem::size_of::<E>();
    let align = core::mem::align_of::<E>();
    let address = base.0 + index * size as u32;
    let p = &value as *const E as *const u8;
    // SAFETY: callers bounds-check `index`; `SharedElem` types have no
    // padding, so every byte read here is initialised.
    unsafe {
        match (size, align) {
            (1, _) => st_u8(address, p.read() as u16),
            (2, 2..) => st_u16(address, (p as *const u16).read()),
            (4, 4..) => st_u32(address, (p as *const u32).read()),
            (8, 8..) => st_u64(address, (p as *const u64).read()),
            (16, 16..) => {
                let [a, b, c, d] = (p as *const [u32; 4]).read();
                core::arch::asm!(
                    "st.shared.v4.u32 [{0}], {{{1}, {2}, {3}, {4}}};",
                    in(reg32) address,
                    in(reg32) a, in(reg32) b, in(reg32) c, in(reg32) d,
                    options(nostack)
                );
            }
            (_, 4..) => {
                for k in 0..size / 4 {
                    st_u32(address + 4 * k as u32, (p.add(4 * k) as *const u32).read());
                }
            }
            _ => {
                for k in 0..size {
                    st_u8(address + k as u32, p.add(k).read() as u16);
                }
            }
        }
    }
}

#[allow(improper_ctypes)]
extern "C" {
    #[link_name = "llvm.nvvm.membar.cta"]
    fn membar_cta();
    #[link_name = "llvm.nvvm.membar.gl"]
    fn membar_gl();
    #[link_name = "llvm.nvvm.membar.sys"]
    fn membar_sys();
}

/// `membar.cta`, `membar.gl` or `membar.sys`.
#[inline(always)]
pub(crate) fn fence(scope: super::FenceScope, _site: Site) {
    // SAFETY: fences have no preconditions.
    unsafe {
        match scope {
            super::FenceScope::Block => membar_cta(),
            super::FenceScope::Device => membar_gl(),
            super::FenceScope::System => membar_sys(),
        }
    }
}
