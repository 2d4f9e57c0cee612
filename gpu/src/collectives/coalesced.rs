//! Reductions and scans within a coalesced group: shuffles between ranks,
//! each lane's partner found among the group's lanes.

use crate::Shuffle;
use crate::backend::target::Target;
use crate::backend::{Site, WarpCollectives};
use crate::groups::coalesced::CoalescedGroup;
use crate::op::Operator;

/// Rank `r` combines with rank `r + d` for `d` = 1, 2, 4, ... while in
/// the group, so rank 0 ends with every rank's value in rank order; then
/// rank 0's result goes to every thread. One `redux.sync` where the
/// operator and type have one.
#[inline(always)]
pub(super) fn reduce<T: Shuffle, O: Operator<T>>(
    group: &CoalescedGroup,
    value: T,
    op: O,
    site: Site,
) -> T {
    if let Some(redux) = op.redux() {
        let mask = group.lanes();
        return value.map_words(|w| Target::redux(redux, mask, w, site));
    }
    let size = group.num_threads();
    let rank = group.thread_rank();
    let mut v = value;
    let mut d = 1;
    while d < size {
        let above = group.shfl_down_at(v, d, site);
        if rank + d < size {
            v = op.combine(v, above);
        }
        d *= 2;
    }
    group.shfl_at(v, 0, site)
}

/// Hillis-Steele over the group's ranks.
#[inline(always)]
pub(super) fn inclusive_scan<T: Shuffle, O: Operator<T>>(
    group: &CoalescedGroup,
    value: T,
    op: O,
    site: Site,
) -> T {
    let size = group.num_threads();
    let rank = group.thread_rank();
    let mut v = value;
    let mut d = 1;
    while d < size {
        let below = group.shfl_up_at(v, d, site);
        if rank >= d {
            v = op.combine(below, v);
        }
        d *= 2;
    }
    v
}

/// The inclusive scan, shifted up one rank; rank 0 gets the identity.
#[inline(always)]
pub(super) fn exclusive_scan<T: Shuffle, O: Operator<T>>(
    group: &CoalescedGroup,
    value: T,
    op: O,
    site: Site,
) -> T {
    let inclusive = inclusive_scan(group, value, op, site);
    let before = group.shfl_up_at(inclusive, 1, site);
    if group.thread_rank() == 0 {
        op.identity()
    } else {
        before
    }
}
