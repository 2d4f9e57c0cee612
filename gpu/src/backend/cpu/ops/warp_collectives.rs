//! Warp collectives as requests the scheduler completes with the values the
//! hardware gives (`engine::semantics`).

use super::super::Cpu;
use super::super::engine::lane::{self, Op, ShflMode, VoteKind};
use crate::backend::{Redux, Site, WarpCollectives};

#[inline]
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

#[inline]
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

#[inline]
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

impl WarpCollectives for Cpu {
    #[inline]
    fn shfl_idx(mask: u32, value: u32, src: u32, clamp: u32, site: Site) -> u32 {
        shfl(ShflMode::Idx, mask, value, src, clamp, site)
    }

    #[inline]
    fn shfl_up(mask: u32, value: u32, delta: u32, clamp: u32, site: Site) -> u32 {
        shfl(ShflMode::Up, mask, value, delta, clamp, site)
    }

    #[inline]
    fn shfl_down(mask: u32, value: u32, delta: u32, clamp: u32, site: Site) -> u32 {
        shfl(ShflMode::Down, mask, value, delta, clamp, site)
    }

    #[inline]
    fn shfl_bfly(mask: u32, value: u32, lane_mask: u32, clamp: u32, site: Site) -> u32 {
        shfl(ShflMode::Bfly, mask, value, lane_mask, clamp, site)
    }

    #[inline]
    fn active_mask(site: Site) -> u32 {
        lane::collective(Op::ActiveMask, site) as u32
    }

    #[inline]
    fn vote_ballot(mask: u32, predicate: bool, site: Site) -> u32 {
        vote(VoteKind::Ballot, mask, predicate, site) as u32
    }

    #[inline]
    fn vote_any(mask: u32, predicate: bool, site: Site) -> bool {
        vote(VoteKind::Any, mask, predicate, site) != 0
    }

    #[inline]
    fn vote_all(mask: u32, predicate: bool, site: Site) -> bool {
        vote(VoteKind::All, mask, predicate, site) != 0
    }

    #[inline]
    fn match_any_32(mask: u32, value: u32, site: Site) -> u32 {
        match_op(false, mask, value as u64, false, site) as u32
    }

    #[inline]
    fn match_low_bits<const BITS: u32>(mask: u32, value: u32, site: Site) -> u32 {
        let low = u32::MAX >> (32 - BITS.clamp(1, 32));
        Self::match_any_32(mask, value & low, site)
    }

    #[inline]
    fn match_any_64(mask: u32, value: u64, site: Site) -> u32 {
        match_op(false, mask, value, true, site) as u32
    }

    #[inline]
    fn match_all_32(mask: u32, value: u32, site: Site) -> (u32, bool) {
        let r = match_op(true, mask, value as u64, false, site);
        (r as u32, r >> 32 != 0)
    }

    #[inline]
    fn match_all_64(mask: u32, value: u64, site: Site) -> (u32, bool) {
        let r = match_op(true, mask, value, true, site);
        (r as u32, r >> 32 != 0)
    }

    #[inline]
    fn redux(op: Redux, mask: u32, value: u32, site: Site) -> u32 {
        lane::collective(Op::Redux { op, mask, value }, site) as u32
    }
}
