//! The host backend: the CPU emulator's side of every handle method.
//!
//! Inside a launch of the emulator each kernel thread is a coroutine, and
//! the thread-local "current lane" names the thread being run. Reading an
//! index reads the lane's context; a collective suspends the coroutine with
//! a [`Request`](lane::Request) that the block's scheduler resolves once
//! every thread of the group has arrived. Outside a launch there is no
//! current lane, and every function says so.

pub(crate) mod lane;
pub(crate) mod scheduler;
pub(crate) mod semantics;
pub(crate) mod shared;

pub(crate) use shared::SharedBase;

use super::{ElemShape, FenceScope, Redux, Site};
use crate::emulator::AccessKind;
use crate::shared::SharedElem;
use crate::Dim3;
use lane::{Op, Request, ShflMode, VoteKind};

pub(crate) fn redux(op: Redux, mask: u32, value: u32, site: Site) -> u32 {
    lane::collective(Op::Redux { op, mask, value }, site) as u32
}

/// Stores `word` at byte `offset` of this block's scratch.
pub(crate) fn scratch_store(offset: u32, word: u32, site: Site) {
    let p = block_scratch(site).wrapping_add(offset as usize) as *mut u32;
    // SAFETY: the scratch is 16-byte aligned and `BLOCK_SCRATCH_BYTES`
    // long; callers keep `offset` 4-aligned and in bounds.
    unsafe { p.write(word) }
}

/// Stores `word` at byte `offset` of this block's scratch if `pred` holds.
pub(crate) fn scratch_store_if(pred: bool, offset: u32, word: u32, site: Site) {
    if pred {
        scratch_store(offset, word, site)
    }
}

/// Loads the word at byte `offset` of this block's scratch.
pub(crate) fn scratch_load(offset: u32, site: Site) -> u32 {
    let p = block_scratch(site).wrapping_add(offset as usize) as *const u32;
    // SAFETY: as for `scratch_store`.
    unsafe { p.read() }
}

/// Four consecutive words of this block's scratch from byte `offset`.
pub(crate) fn scratch_load4(offset: u32, site: Site) -> [u32; 4] {
    core::array::from_fn(|k| scratch_load(offset + 4 * k as u32, site))
}

/// This block's scratch, shared by its emulated threads.
fn block_scratch(site: Site) -> *mut u8 {
    lane::step(site, |_| ());
    lane::block_scratch()
}

/// The block's copy of the static shared array `key`.
pub(crate) fn static_shared(
    key: &'static str,
    name: &'static str,
    bytes: usize,
    align: usize,
    shape: ElemShape,
    site: Site,
) -> SharedBase {
    lane::step(site, |_| ());
    lane::block_shared(|s| s.bind(key, name, Some(bytes as u32), align as u32, shape))
}

/// The block's dynamic shared memory and its size in bytes.
pub(crate) fn dynamic_shared(
    name: &'static str,
    shape: ElemShape,
    site: Site,
) -> (SharedBase, u32) {
    let bytes = lane::step(site, |l| l.dynamic_shared);
    let base = lane::block_shared(|s| s.bind("coop:dynamic", name, None, 16, shape));
    (base, bytes)
}

/// Loads element `index` of a shared array, after the race check.
pub(crate) fn shared_load<E: SharedElem>(base: SharedBase, index: u32, site: Site) -> E {
    lane::shared_access(base.region, index, AccessKind::Read, site);
    // SAFETY: the phase handles bounds-check `index`; the region is
    // 16-byte aligned and holds whole elements.
    unsafe { (base.ptr as *const E).add(index as usize).read() }
}

/// Stores `value` to element `index` of a shared array, after the race
/// check.
pub(crate) fn shared_store<E: SharedElem>(base: SharedBase, index: u32, value: E, site: Site) {
    lane::shared_access(base.region, index, AccessKind::Write, site);
    // SAFETY: as for `shared_load`.
    unsafe { (base.ptr as *mut E).add(index as usize).write(value) }
}

/// The CPU backend runs one thread at a time: a fence orders nothing more.
pub(crate) fn fence(_scope: FenceScope, site: Site) {
    lane::step(site, |_| ());
}

#[track_caller]
pub(crate) fn thread_index(site: Site) -> Dim3 {
    lane::step(site, |l| l.thread)
}

#[track_caller]
pub(crate) fn block_dim(site: Site) -> Dim3 {
    lane::step(site, |l| l.block_dim)
}

#[track_caller]
pub(crate) fn block_index(site: Site) -> Dim3 {
    lane::step(site, |l| l.block)
}

#[track_caller]
pub(crate) fn grid_dim(site: Site) -> Dim3 {
    lane::step(site, |l| l.grid_dim)
}

#[track_caller]
pub(crate) fn lane_id(site: Site) -> u32 {
    lane::step(site, |l| l.rank % 32)
}

pub(crate) fn tile_created(size: u32, parent_size: u32, site: Site) {
    if !parent_size.is_multiple_of(size) {
        lane::abort(Request::PartialTile {
            size,
            parent_size,
            site,
        });
    }
}

pub(crate) fn sync_block(site: Site) {
    lane::collective(Op::BlockSync, site);
}

pub(crate) fn sync_warp(mask: u32, site: Site) {
    lane::collective(Op::WarpSync { mask }, site);
}

fn shfl(mode: ShflMode, mask: u32, value: u32, b: u32, c: u32, site: Site) -> u32 {
    lane::collective(
        Op::Shfl {
            mode,
            mask,
            value,
            b,
            c,
        },
        site,
    ) as u32
}

pub(crate) fn shfl_idx(mask: u32, value: u32, src: u32, clamp: u32, site: Site) -> u32 {
    shfl(ShflMode::Idx, mask, value, src, clamp, site)
}

pub(crate) fn shfl_up(mask: u32, value: u32, delta: u32, clamp: u32, site: Site) -> u32 {
    shfl(ShflMode::Up, mask, value, delta, clamp, site)
}

pub(crate) fn shfl_down(mask: u32, value: u32, delta: u32, clamp: u32, site: Site) -> u32 {
    shfl(ShflMode::Down, mask, value, delta, clamp, site)
}

pub(crate) fn shfl_bfly(mask: u32, value: u32, lane_mask: u32, clamp: u32, site: Site) -> u32 {
    shfl(ShflMode::Bfly, mask, value, lane_mask, clamp, site)
}

fn vote(kind: VoteKind, mask: u32, predicate: bool, site: Site) -> u64 {
    lane::collective(
        Op::Vote {
            kind,
            mask,
            predicate,
        },
        site,
    )
}

pub(crate) fn vote_ballot(mask: u32, predicate: bool, site: Site) -> u32 {
    vote(VoteKind::Ballot, mask, predicate, site) as u32
}

pub(crate) fn vote_any(mask: u32, predicate: bool, site: Site) -> bool {
    vote(VoteKind::Any, mask, predicate, site) != 0
}

pub(crate) fn vote_all(mask: u32, predicate: bool, site: Site) -> bool {
    vote(VoteKind::All, mask, predicate, site) != 0
}

fn match_op(all: bool, mask: u32, value: u64, wide: bool, site: Site) -> u64 {
    lane::collective(
        Op::Match {
            all,
            mask,
            value,
            wide,
        },
        site,
    )
}

pub(crate) fn match_any_32(mask: u32, value: u32, site: Site) -> u32 {
    match_op(false, mask, value as u64, false, site) as u32
}

pub(crate) fn match_any_64(mask: u32, value: u64, site: Site) -> u32 {
    match_op(false, mask, value, true, site) as u32
}

pub(crate) fn match_all_32(mask: u32, value: u32, site: Site) -> (u32, bool) {
    let r = match_op(true, mask, value as u64, false, site);
    (r as u32, r >> 32 != 0)
}

pub(crate) fn match_all_64(mask: u32, value: u64, site: Site) -> (u32, bool) {
    let r = match_op(true, mask, value, true, site);
    (r as u32, r >> 32 != 0)
}
