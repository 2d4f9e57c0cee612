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
