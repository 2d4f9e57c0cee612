//! Warp collectives: shuffles, votes, matches and `redux`, each on the
//! lanes of a member mask.
//!
//! All take 32-bit words; wider values are split by
//! [`Shuffle`](crate::Shuffle) and [`MatchKey`](crate::MatchKey). Every
//! operation's precondition is the same: the calling lane is in `mask`, and
//! every lane of `mask` executes an operation of the same kind with the same
//! mask (on sm_70 and later, not necessarily the same instruction). The
//! CPU backend completes an operation once every lane of the mask has
//! arrived, computes it from the PTX ISA's definition (`cpu::engine::
//! semantics`), and reports a lane that never arrives.

use super::Site;

/// The reductions `redux.sync` performs on 32-bit integers (sm_80 and
/// later).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum Redux {
    Add,
    MinSigned,
    MaxSigned,
    MinUnsigned,
    MaxUnsigned,
    And,
    Or,
    Xor,
}

impl Redux {
    /// What the instruction computes, for the CPU backend.
    #[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
    pub(crate) fn apply(self, a: u32, b: u32) -> u32 {
        match self {
            Redux::Add => a.wrapping_add(b),
            Redux::MinSigned => (a as i32).min(b as i32) as u32,
            Redux::MaxSigned => (a as i32).max(b as i32) as u32,
            Redux::MinUnsigned => a.min(b),
            Redux::MaxUnsigned => a.max(b),
            Redux::And => a & b,
            Redux::Or => a | b,
            Redux::Xor => a ^ b,
        }
    }
}

/// Lane-to-lane exchange and agreement within a warp.
pub(crate) trait WarpCollectives {
    /// `value` of lane `src` (within the segment `clamp` describes).
    /// PTX: `shfl.sync.idx.b32 d, value, src, clamp, mask`.
    fn shfl_idx(mask: u32, value: u32, src: u32, clamp: u32, site: Site) -> u32;
    /// `value` of the lane `delta` below, or the caller's own at the
    /// segment's start. PTX: `shfl.sync.up.b32 d, value, delta, clamp, mask`.
    fn shfl_up(mask: u32, value: u32, delta: u32, clamp: u32, site: Site) -> u32;
    /// `value` of the lane `delta` above, or the caller's own past the
    /// segment's end. PTX: `shfl.sync.down.b32 d, value, delta, clamp, mask`.
    fn shfl_down(mask: u32, value: u32, delta: u32, clamp: u32, site: Site) -> u32;
    /// `value` of the lane `lane ^ lane_mask`.
    /// PTX: `shfl.sync.bfly.b32 d, value, lane_mask, clamp, mask`.
    fn shfl_bfly(mask: u32, value: u32, lane_mask: u32, clamp: u32, site: Site) -> u32;
    /// `word`, unchanged, out of a step the compiler cannot see into, so
    /// that it does not rewrite the expression that made `word` together
    /// with those that use it. A scan step puts its combined value through
    /// it before choosing between that and the old one: otherwise LLVM
    /// turns `if p { lower + v } else { v }` on integers into
    /// `v + (if p { lower } else { 0 })` and re-associates the adds of
    /// successive steps, four SASS instructions a step where the first form
    /// gives ptxas's two (`SHFL`, `@p IADD`). PTX: one `mov.b32` in an
    /// `asm!` block (ptxas removes it). CPU: `word`.
    #[inline(always)]
    fn opaque_word(word: u32) -> u32 {
        word
    }
    /// Bit `l` set when lane `l` of `mask` has `predicate`.
    /// PTX: `vote.sync.ballot.b32 d, predicate, mask`.
    fn vote_ballot(mask: u32, predicate: bool, site: Site) -> u32;
    /// Whether any lane of `mask` has `predicate`.
    /// PTX: `vote.sync.any.pred d, predicate, mask`.
    fn vote_any(mask: u32, predicate: bool, site: Site) -> bool;
    /// Whether every lane of `mask` has `predicate`; ptxas knows the result
    /// is the same in the whole warp. PTX: `vote.sync.all.pred d, predicate, mask`.
    fn vote_all(mask: u32, predicate: bool, site: Site) -> bool;
    /// The lanes of `mask` whose `value` equals the caller's.
    /// PTX: `match.any.sync.b32 d, value, mask`.
    fn match_any_32(mask: u32, value: u32, site: Site) -> u32;
    /// As [`match_any_32`](Self::match_any_32) for 64-bit values.
    /// PTX: `match.any.sync.b64`.
    fn match_any_64(mask: u32, value: u64, site: Site) -> u32;
    /// The lanes of `mask` whose `value` has the same low `BITS` bits as
    /// the caller's (`BITS` from 1 to 32): [`match_any_32`](Self::match_any_32)
    /// of those bits, found with one ballot a bit, which for a few bits
    /// takes fewer instructions than `match.any` on sm_90. PTX, a bit `b`:
    /// `and.b32 m, value, 1 << b; setp.ne.u32 p, m, 0; vote.sync.ballot.b32
    /// m, p, mask; @!p not.b32 m, m; and.b32 d, d, m`.
    fn match_low_bits<const BITS: u32>(mask: u32, value: u32, site: Site) -> u32;
    /// `(mask, true)` when every lane of `mask` has the same `value`, else
    /// `(0, false)`. PTX: `match.all.sync.b32 d|p, value, mask`.
    fn match_all_32(mask: u32, value: u32, site: Site) -> (u32, bool);
    /// As [`match_all_32`](Self::match_all_32) for 64-bit values.
    /// PTX: `match.all.sync.b64`.
    fn match_all_64(mask: u32, value: u64, site: Site) -> (u32, bool);
    /// `op` over the `value`s of the lanes of `mask`, in every lane.
    /// PTX: `redux.sync.{add,min,max,and,or,xor}.{s32,u32,b32} d, value, mask`
    /// (sm_80 and later).
    fn redux(op: Redux, mask: u32, value: u32, site: Site) -> u32;
    /// The lanes of the warp executing this call together with the caller
    /// (the caller's included). PTX: `activemask.b32 d` (which lanes that
    /// are depends on how the warp is converged there: any split the
    /// hardware or the compiler makes is allowed). CPU: the lanes of the
    /// warp that reached the same call before any of them went on, split
    /// at random under schedule exploration.
    fn active_mask(site: Site) -> u32;
}
