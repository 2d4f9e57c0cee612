//! Litmus shapes of the memory model, run for many rounds so that a GPU can
//! show the outcomes the model allows (`tests/gpu.rs`,
//! `litmus_shapes_on_the_gpu`); the same kernels run on the CPU backend
//! (`tests/litmus.rs`), which reports the reliance on an outcome the model
//! does not promise.
//!
//! Blocks work in pairs (blocks `2p` and `2p + 1`, thread 0 of each); each
//! pair's words lie [`STRIDE`] words apart, so that two pairs never share a
//! 128-byte line. Launch them cooperatively: the blocks of a pair wait for
//! each other.

use coop::atomic::{Ordering, Scope};
use coop::memory::{fence_cluster, fence_device};
use coop::prelude::*;

/// Words between two pairs' slots.
pub const STRIDE: usize = 32;

/// A writer's flag store, or a reader's flag load, without ordering.
pub const RELAXED: u32 = 0;
/// A release store, or an acquire load.
pub const ORDERED: u32 = 1;

/// Message passing, `rounds` rounds in lock-step: in round `r` the writer
/// (block `2p`) waits for the reader's acknowledgement of round `r - 1`,
/// writes `r` into `data` and stores `r` into `flag` (`write`: [`RELAXED`]
/// or a release store, [`ORDERED`]); the reader (block `2p + 1`) reads
/// `data` first when `preload` is 1 (so that its line sits in the
/// reader's L1 cache on a GPU), waits until the flag holds at least `r`
/// (`read`: a relaxed or an acquire load), reads `data`, and counts the
/// rounds in which the data was older than the flag it saw into
/// `stale[p]`. The acknowledgement is a release store and an acquire load.
///
/// The model promises fresh data only with both a release and an acquire
/// (and no preload racing with the write).
#[allow(clippy::too_many_arguments)]
#[kernel(cooperative)]
pub fn message_passing_rounds(
    grid: CooperativeGrid,
    data: Out<u32>,
    flag: Out<u32>,
    ack: Out<u32>,
    stale: Out<u32>,
    rounds: u32,
    write: u32,
    read: u32,
    preload: u32,
) {
    let block = this_thread_block();
    let b = grid.block_rank();
    if block.thread_rank() != 0 || b / 2 >= grid.num_blocks() / 2 {
        return;
    }
    let pair = b / 2;
    let at = pair * STRIDE;
    let order = |ordered: u32, yes: Ordering| {
        if ordered == ORDERED {
            yes
        } else {
            Ordering::Relaxed
        }
    };
    let flags = flag.atomic().with_scope(Scope::Device);
    let acks = ack.atomic().with_scope(Scope::Device);
    if b.is_multiple_of(2) {
        let store = flags.with_ordering(order(write, Ordering::Release));
        let acked = acks.with_ordering(Ordering::Acquire);
        for r in 1..=rounds {
            while acked.load(at) + 1 < r {}
            data.write(at, r); // litmus-data-write
            store.store(at, r); // litmus-flag-store
        }
    } else {
        let load = flags.with_ordering(order(read, Ordering::Acquire));
        let done = acks.with_ordering(Ordering::Release);
        let (mut old, mut early) = (0u32, 0u32);
        for r in 1..=rounds {
            if preload == 1 {
                early = early.wrapping_add(data.read(at));
            }
            let mut seen = load.load(at);
            while seen < r {
                seen = load.load(at);
            }
            let now = data.read(at); // litmus-data-read
            if now < seen {
                old += 1;
            }
            done.store(at, r);
        }
        stale.write(pair, old);
        // Keeps the preloads (a plain load nobody uses may be dropped).
        if early == u32::MAX {
            stale.write(pair, u32::MAX);
        }
    }
}

/// Store buffering, `rounds` rounds: in round `r` both blocks of a pair
/// meet (a counter each adds to with acq_rel and waits on), then block
/// `2p + s` stores `r` into `flags[s]` and loads the other's (relaxed
/// atomics; with a device fence between when `fenced` is 1) into
/// `seen[2 (rounds p + r - 1) + s]`. Both loads older than `r` in one round
/// is the outcome the model allows without the fence.
#[kernel(cooperative)]
pub fn store_buffering_rounds(
    grid: CooperativeGrid,
    flags: Out<u32>,
    meet: Out<u32>,
    seen: Out<u32>,
    rounds: u32,
    fenced: u32,
) {
    let block = this_thread_block();
    let b = grid.block_rank();
    if block.thread_rank() != 0 || b / 2 >= grid.num_blocks() / 2 {
        return;
    }
    let (pair, side) = (b / 2, b % 2);
    let at = pair * STRIDE;
    let x = flags.atomic();
    let counter = meet.atomic().with_ordering(Ordering::AcqRel);
    let met = meet.atomic().with_ordering(Ordering::Acquire);
    for r in 1..=rounds {
        counter.fetch_add(at, 1);
        while met.load(at) < 2 * r {}
        x.store(at + side, r);
        if fenced == 1 {
            fence_device();
        }
        let other = x.load(at + 1 - side);
        seen.atomic()
            .store(2 * (rounds as usize * pair + r as usize - 1) + side, other);
    }
}

/// Message passing at the cluster's scope, `rounds` rounds in lock-step
/// between the two blocks of each cluster of a launch in clusters of two
/// (blocks `2p` and `2p + 1`, thread 0 of each), as
/// [`message_passing_rounds`] does between blocks: `how` is 0 for a
/// relaxed flag on both sides, 1 for a release store and an acquire load
/// at the cluster's scope, 2 for relaxed ones with [`fence_cluster`]
/// before the store and after the load. The acknowledgement is a release
/// store and an acquire load at the cluster's scope. Counts into
/// `stale[p]` the rounds in which the data was older than the flag.
#[kernel]
pub fn message_passing_in_clusters(
    cluster: Cluster,
    grid: Grid,
    data: Out<u32>,
    flag: Out<u32>,
    ack: Out<u32>,
    stale: Out<u32>,
    rounds: u32,
    how: u32,
) {
    if this_thread_block().thread_rank() != 0 {
        return;
    }
    let pair = grid.block_rank() / 2;
    let at = pair * STRIDE;
    let flags = flag.atomic().with_scope(Scope::Cluster);
    let acks = ack.atomic().with_scope(Scope::Cluster);
    let ordered = |yes: Ordering| if how == 1 { yes } else { Ordering::Relaxed };
    if cluster.block_rank() == 0 {
        let store = flags.with_ordering(ordered(Ordering::Release));
        let acked = acks.with_ordering(Ordering::Acquire);
        for r in 1..=rounds {
            while acked.load(at) + 1 < r {}
            data.write(at, r); // cluster-rounds-write
            if how == 2 {
                fence_cluster();
            }
            store.store(at, r);
        }
    } else {
        let load = flags.with_ordering(ordered(Ordering::Acquire));
        let done = acks.with_ordering(Ordering::Release);
        let mut old = 0u32;
        for r in 1..=rounds {
            let mut seen = load.load(at);
            while seen < r {
                seen = load.load(at);
            }
            if how == 2 {
                fence_cluster();
            }
            let now = data.read(at); // cluster-rounds-read
            if now < seen {
                old += 1;
            }
            done.store(at, r);
        }
        stale.write(pair, old);
    }
}

/// Load buffering, `rounds` rounds in pairs of blocks: in round `r` both
/// blocks meet (as in [`store_buffering_rounds`]), then block `2p + s`
/// loads `words[s]` and stores `r` into the other's word, the loads
/// acquires and the stores releases when `ordered` is [`ORDERED`], relaxed
/// otherwise; the value loaded goes to `seen[2 (rounds p + r - 1) + s]`.
/// Both loads seeing `r` (each the other's later store) is the outcome the
/// model allows for relaxed atomics and forbids for release and acquire.
#[kernel(cooperative)]
pub fn load_buffering_rounds(
    grid: CooperativeGrid,
    words: Out<u32>,
    meet: Out<u32>,
    seen: Out<u32>,
    rounds: u32,
    ordered: u32,
) {
    let block = this_thread_block();
    let b = grid.block_rank();
    if block.thread_rank() != 0 || b / 2 >= grid.num_blocks() / 2 {
        return;
    }
    let (pair, side) = (b / 2, b % 2);
    let at = pair * STRIDE;
    let (load, store) = if ordered == ORDERED {
        (Ordering::Acquire, Ordering::Release)
    } else {
        (Ordering::Relaxed, Ordering::Relaxed)
    };
    let x = words.atomic();
    let counter = meet.atomic().with_ordering(Ordering::AcqRel);
    let met = meet.atomic().with_ordering(Ordering::Acquire);
    for r in 1..=rounds {
        counter.fetch_add(at, 1);
        while met.load(at) < 2 * r {}
        let mine = x.with_ordering(load).load(at + side);
        x.with_ordering(store).store(at + 1 - side, r);
        seen.atomic()
            .store(2 * (rounds as usize * pair + r as usize - 1) + side, mine);
    }
}

/// Coherence of two reads, `rounds` rounds in pairs of blocks: in round `r`
/// the blocks meet, block `2p` stores `r` into its pair's word and block
/// `2p + 1` loads it twice (relaxed atomics at the device's scope), the two
/// values going to `seen[2 (rounds p + r - 1)]` and the next. The second
/// older than the first is forbidden: one location's writes are seen in
/// one order by every thread.
#[kernel(cooperative)]
pub fn coherence_rounds(
    grid: CooperativeGrid,
    words: Out<u32>,
    meet: Out<u32>,
    seen: Out<u32>,
    rounds: u32,
) {
    let block = this_thread_block();
    let b = grid.block_rank();
    if block.thread_rank() != 0 || b / 2 >= grid.num_blocks() / 2 {
        return;
    }
    let pair = b / 2;
    let at = pair * STRIDE;
    let x = words.atomic().with_ordering(Ordering::Relaxed);
    let counter = meet.atomic().with_ordering(Ordering::AcqRel);
    let met = meet.atomic().with_ordering(Ordering::Acquire);
    for r in 1..=rounds {
        counter.fetch_add(at, 1);
        while met.load(at) < 2 * r {}
        if b.is_multiple_of(2) {
            x.store(at, r);
        } else {
            let first = x.load(at);
            let second = x.load(at);
            let slot = 2 * (rounds as usize * pair + r as usize - 1);
            seen.atomic().store(slot, first);
            seen.atomic().store(slot + 1, second);
        }
    }
}

/// Independent reads of independent writes, `rounds` rounds in groups of
/// four blocks (`4g` to `4g + 3`): in round `r` the four meet, block `4g`
/// stores `r` into `x`, block `4g + 1` into `y`, block `4g + 2` loads `x`
/// then `y` and block `4g + 3` loads `y` then `x` (relaxed atomics; a
/// device fence between the two loads when `fenced` is 1), the loads going
/// to `seen[4 (rounds g + r - 1) + k]`: `x`, `y` of the first reader, `y`,
/// `x` of the second. Each reader seeing its first write new and its
/// second old (the readers disagree on the order of the writes) is allowed
/// without the fences and forbidden with them.
#[kernel(cooperative)]
pub fn independent_reads_rounds(
    grid: CooperativeGrid,
    words: Out<u32>,
    meet: Out<u32>,
    seen: Out<u32>,
    rounds: u32,
    fenced: u32,
) {
    let block = this_thread_block();
    let b = grid.block_rank();
    if block.thread_rank() != 0 || b / 4 >= grid.num_blocks() / 4 {
        return;
    }
    let (group, role) = (b / 4, b % 4);
    let at = group * STRIDE;
    let x = words.atomic().with_ordering(Ordering::Relaxed);
    let counter = meet.atomic().with_ordering(Ordering::AcqRel);
    let met = meet.atomic().with_ordering(Ordering::Acquire);
    for r in 1..=rounds {
        counter.fetch_add(at, 1);
        while met.load(at) < 4 * r {}
        match role {
            0 | 1 => x.store(at + role, r),
            _ => {
                // The first reader reads x then y, the second y then x.
                let first = at + role - 2;
                let a = x.load(first);
                if fenced == 1 {
                    fence_device();
                }
                let c = x.load(2 * at + 1 - first);
                let slot = 4 * (rounds as usize * group + r as usize - 1) + 2 * (role - 2);
                seen.atomic().store(slot, a);
                seen.atomic().store(slot + 1, c);
            }
        }
    }
}

/// Write-to-read causality over atomics, `rounds` rounds in groups of
/// three blocks (`3g` to `3g + 2`): in round `r` the three meet, block `3g`
/// stores `r` into `x` (relaxed); block `3g + 1` waits until it sees `x`
/// at `r` (relaxed loads) and stores `r` into `y`, a release when
/// `release` is 1, relaxed otherwise; block `3g + 2` waits until it sees
/// `y` at `r` (acquire loads) and loads `x` (relaxed) into
/// `seen[rounds g + r - 1]`. `x` older than `r` there is allowed with the
/// relaxed middle store and forbidden with the release (the middle block
/// observed the write before releasing).
#[kernel(cooperative)]
pub fn causality_rounds(
    grid: CooperativeGrid,
    words: Out<u32>,
    meet: Out<u32>,
    seen: Out<u32>,
    rounds: u32,
    release: u32,
) {
    let block = this_thread_block();
    let b = grid.block_rank();
    if block.thread_rank() != 0 || b / 3 >= grid.num_blocks() / 3 {
        return;
    }
    let (group, role) = (b / 3, b % 3);
    let at = group * STRIDE;
    let relaxed = words.atomic().with_ordering(Ordering::Relaxed);
    let counter = meet.atomic().with_ordering(Ordering::AcqRel);
    let met = meet.atomic().with_ordering(Ordering::Acquire);
    for r in 1..=rounds {
        counter.fetch_add(at, 1);
        while met.load(at) < 3 * r {}
        match role {
            0 => relaxed.store(at, r),
            1 => {
                while relaxed.load(at) < r {}
                let ordering = if release == 1 {
                    Ordering::Release
                } else {
                    Ordering::Relaxed
                };
                words.atomic().with_ordering(ordering).store(at + 1, r);
            }
            _ => {
                let acquire = words.atomic().with_ordering(Ordering::Acquire);
                while acquire.load(at + 1) < r {}
                seen.atomic()
                    .store(rounds as usize * group + r as usize - 1, relaxed.load(at));
            }
        }
    }
}
