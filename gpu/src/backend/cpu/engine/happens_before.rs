//! Which releases of other blocks a thread has synchronized with, for the
//! check of reads across blocks ([`global_state`](super::global_state)).
//!
//! Each block counts its releases at the device's scope or wider (a
//! `Release` or `AcqRel` atomic, a device or system fence): its *epoch*. A
//! write made at epoch `e` is published by the block's release `e + 1` or
//! later, so a reader in another block is ordered after it only when it
//! synchronized with such a release: its [`Knowledge`] holds the block at
//! an epoch above `e`.
//!
//! Knowledge travels as the PTX memory model lets it:
//! - a releasing atomic leaves in its location the releaser's knowledge
//!   and its own release; a relaxed store after a release fence leaves the
//!   knowledge of that fence; any other relaxed store leaves nothing; a
//!   read-modify-write keeps what the location held (a release sequence);
//! - an acquiring atomic at the device's scope takes what the location
//!   holds; a relaxed one keeps it pending, and the thread's next fence
//!   takes it;
//! - a block barrier gives every thread of the block what any of them
//!   knew (causality is transitive through the barrier).
//!
//! A chain of flags (write-to-read causality) publishes only when every
//! link is a release and an acquire: the relaxed store of a middle link
//! leaves nothing for the next reader to take.
//!
//! Under schedule exploration knowledge also holds the versions of atomic
//! locations observed, which bound the previous values a load may return:
//! what a thread read travels with its releases like its epochs do.

use super::fast_hash::FastMap;
use crate::backend::Site;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// For each block, the highest of its epochs a thread synchronized with
/// (sorted by block; a block it never synchronized with is absent); under
/// schedule exploration also, for each atomic location, the latest of its
/// writes that the thread, or a thread whose release it synchronized
/// with, had read or made before (sorted by address): a load never
/// returns a write older than that, since the later one precedes it in
/// causality order (write-to-read causality with a release in the middle).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Knowledge {
    seen: Vec<(u32, u32)>,
    observed: Vec<(usize, u32)>,
}

impl Knowledge {
    /// The epoch of `block` known, 0 for none.
    pub fn epoch_of(&self, block: u32) -> u32 {
        self.seen
            .binary_search_by_key(&block, |&(b, _)| b)
            .map_or(0, |i| self.seen[i].1)
    }

    /// Knows `block` at `epoch` (or later, if it already did).
    pub fn insert(&mut self, block: u32, epoch: u32) {
        match self.seen.binary_search_by_key(&block, |&(b, _)| b) {
            Ok(i) => self.seen[i].1 = self.seen[i].1.max(epoch),
            Err(i) => self.seen.insert(i, (block, epoch)),
        }
    }

    /// The latest version of the location at `addr` observed, 0 for none.
    pub fn version_of(&self, addr: usize) -> u32 {
        self.observed
            .binary_search_by_key(&addr, |&(a, _)| a)
            .map_or(0, |i| self.observed[i].1)
    }

    /// Observed the location at `addr` at `version` (or later).
    pub fn observe(&mut self, addr: usize, version: u32) {
        match self.observed.binary_search_by_key(&addr, |&(a, _)| a) {
            Ok(i) => self.observed[i].1 = self.observed[i].1.max(version),
            Err(i) => self.observed.insert(i, (addr, version)),
        }
    }

    /// Whether `other` adds nothing to this.
    fn covers(&self, other: &Knowledge) -> bool {
        other.seen.iter().all(|&(b, e)| self.epoch_of(b) >= e)
            && other.observed.iter().all(|&(a, v)| self.version_of(a) >= v)
    }

    /// Knows what `other` knows too.
    fn join(&mut self, other: &Knowledge) {
        for &(b, e) in &other.seen {
            self.insert(b, e);
        }
        for &(a, v) in &other.observed {
            self.observe(a, v);
        }
    }
}

/// Knowledge shared by reference until it grows: a snapshot is an `Arc`
/// clone.
pub(crate) type Shared = Option<Arc<Knowledge>>;

/// `into` knows what `from` knows too.
pub(crate) fn join(into: &mut Shared, from: &Shared) {
    let Some(from) = from else { return };
    match into {
        None => *into = Some(from.clone()),
        Some(k) if k.covers(from) => {}
        Some(k) => Arc::make_mut(k).join(from),
    }
}

/// `into` knows `block` at `epoch`.
pub(crate) fn insert(into: &mut Shared, block: u32, epoch: u32) {
    Arc::make_mut(into.get_or_insert_with(Default::default)).insert(block, epoch);
}

/// The epoch of `block` that `k` knows, 0 for none.
pub(crate) fn epoch_in(k: &Shared, block: u32) -> u32 {
    k.as_ref().map_or(0, |k| k.epoch_of(block))
}

/// `into` observed the location at `addr` at `version`.
pub(crate) fn observe(into: &mut Shared, addr: usize, version: u32) {
    if version_in(into, addr) < version {
        Arc::make_mut(into.get_or_insert_with(Default::default)).observe(addr, version);
    }
}

/// The version of the location at `addr` that `k` observed, 0 for none.
pub(crate) fn version_in(k: &Shared, addr: usize) -> u32 {
    k.as_ref().map_or(0, |k| k.version_of(addr))
}

/// What a thread knew when it read an element, kept with the read for the
/// check across blocks.
#[derive(Clone, Debug, Default)]
pub(crate) struct SyncView {
    /// The releases it synchronized with.
    pub knows: Shared,
    /// Releases its relaxed atomics observed without an acquire after
    /// them, and the last such atomic.
    pub pending: Shared,
    pub observed_at: Option<Site>,
    /// The relaxed store its last acquire read from, when that store
    /// carried no release: a broken link of a chain of flags.
    pub link: Option<Site>,
    /// Releases its relaxed atomics observed from blocks of other
    /// clusters, which a fence at the cluster's scope does not take.
    pub pending_far: Shared,
    /// Its last fence at the cluster's scope after such an observation.
    pub cluster_fence: Option<Site>,
    /// The last release at the cluster's scope, by a block of another
    /// cluster, that one of its acquires read: the block and the release
    /// (which orders nothing for this thread).
    pub far_release: Option<(u32, Site)>,
}

impl SyncView {
    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.knows.is_none()
            && self.pending.is_none()
            && self.link.is_none()
            && self.pending_far.is_none()
            && self.far_release.is_none()
    }
}

/// What an atomic location's current value carries.
#[derive(Clone, Debug, Default)]
pub(crate) struct Flag {
    /// The releases an acquire of the value synchronizes with.
    pub carried: Shared,
    /// The relaxed store that set the value, when it carried no release.
    pub relaxed: Option<Site>,
    /// Writes the table saw to the location (its coherence order).
    pub version: u32,
    /// The value before the last write and what it carried: what a load
    /// may still return while the last write has not reached the reader
    /// (schedule exploration's weak outcomes).
    pub prev: Option<(u64, Shared)>,
    /// The last write.
    pub last: Option<LastWrite>,
    /// When what the value carries was released at the cluster's scope:
    /// the releasing block's cluster and the release (a releasing atomic,
    /// or the fence before a relaxed store); it orders nothing for
    /// readers in other clusters.
    pub cluster_only: Option<(u32, Site)>,
}

/// Who made a location's last write, and what orders a reader after it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LastWrite {
    /// The writer's block.
    pub block: u32,
    /// The least epoch of that block a reader must have synchronized with
    /// to be ordered after the write (the write's own release, or the
    /// block's next one).
    pub min_epoch: u32,
    /// When, on the launch's clock of atomic writes and fences.
    pub time: u64,
}

/// The writer of an atomic write, for [`Flags::access`]: its block and the
/// least epoch that orders a reader after the write.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Writer {
    pub block: u32,
    pub min_epoch: u32,
    /// Its release at the cluster's scope, if its write carries one: the
    /// block's cluster and the release.
    pub cluster_only: Option<(u32, Site)>,
}

/// The launch's atomic locations that carry releases, by address.
#[derive(Default)]
pub(crate) struct Flags {
    /// Whether any location ever carried a release: until then, a relaxed
    /// atomic has nothing to observe and skips the table.
    used: AtomicBool,
    /// Schedule exploration lets loads return a location's previous value
    /// (weak outcomes): every atomic at the device's scope is tracked.
    weak: bool,
    /// The launch's clock of atomic writes and fences.
    clock: AtomicU64,
    table: Mutex<FastMap<usize, Flag>>,
}

/// How one atomic access touches its location's flag.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlagAccess {
    /// It reads the value (a load or a read-modify-write).
    pub reads: bool,
    /// It replaces the value (a store).
    pub stores: bool,
    /// It changes the value (a store or a read-modify-write).
    pub writes: bool,
}

impl Flags {
    /// The table of a launch; `weak`: under schedule exploration.
    pub fn new(weak: bool) -> Self {
        Flags {
            weak,
            ..Flags::default()
        }
    }

    /// Whether every atomic must go through the table: a location carries
    /// a release, or loads may return previous values.
    pub fn in_use(&self) -> bool {
        self.weak || self.used.load(Ordering::Relaxed)
    }

    /// Whether loads may return a location's previous value.
    pub fn weak(&self) -> bool {
        self.weak
    }

    /// The launch's clock now, advanced: a fence's time.
    pub fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Runs `op`, an atomic access of the word at `addr` at `site` by
    /// `writer`'s block, and applies it to the word's flag, both under the
    /// table's lock (so that what the access reads and what the flag held
    /// agree, whatever other host threads do): `carries` is what its write
    /// leaves (the releaser's knowledge; `None` for a relaxed write after
    /// no release fence). `op` returns its result and, when it wrote, the
    /// value it replaced (a failed compare-and-swap writes nothing).
    /// Returns `op`'s result, what the flag held before, and the flag's
    /// version after.
    pub fn access(
        &self,
        addr: usize,
        access: FlagAccess,
        carries: Shared,
        site: Site,
        writer: Writer,
        op: impl FnOnce() -> (u64, Option<u64>),
    ) -> (u64, Flag, u32) {
        if carries.is_some() {
            self.used.store(true, Ordering::Relaxed);
        }
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let (result, replaced) = op();
        let flag = table.entry(addr).or_default();
        let before = if access.reads {
            flag.clone()
        } else {
            Flag::default()
        };
        if let (true, Some(old)) = (access.writes, replaced) {
            flag.version += 1;
            flag.prev = Some((old, flag.carried.clone()));
            flag.last = Some(LastWrite {
                block: writer.block,
                min_epoch: writer.min_epoch,
                time: self.tick(),
            });
            if access.stores {
                flag.carried = None;
                flag.relaxed = None;
                flag.cluster_only = None;
            }
            match carries {
                Some(_) => {
                    // A release sequence keeps what the location held; it
                    // stays limited to a cluster only while each release in
                    // it is.
                    flag.cluster_only = match flag.carried {
                        None => writer.cluster_only,
                        Some(_) => flag.cluster_only.and(writer.cluster_only),
                    };
                    join(&mut flag.carried, &carries);
                    flag.relaxed = None;
                }
                None if access.stores => flag.relaxed = Some(site),
                None => {}
            }
        }
        (result, before, flag.version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knowledge_keeps_the_highest_epoch_of_each_block() {
        let mut k: Shared = None;
        insert(&mut k, 3, 2);
        insert(&mut k, 1, 5);
        insert(&mut k, 3, 1);
        assert_eq!(epoch_in(&k, 3), 2);
        assert_eq!(epoch_in(&k, 1), 5);
        assert_eq!(epoch_in(&k, 2), 0);
        let mut other: Shared = None;
        insert(&mut other, 2, 7);
        let before = k.clone();
        join(&mut k, &other);
        assert_eq!(epoch_in(&k, 2), 7);
        assert_eq!(epoch_in(&before, 2), 0, "a snapshot does not grow");
    }

    #[test]
    fn a_relaxed_store_breaks_what_a_release_left() {
        let flags = Flags::default();
        let site = core::panic::Location::caller();
        let mut release: Shared = None;
        insert(&mut release, 0, 1);
        let store = FlagAccess {
            reads: false,
            stores: true,
            writes: true,
        };
        let load = FlagAccess {
            reads: true,
            stores: false,
            writes: false,
        };
        let writer = Writer {
            block: 0,
            min_epoch: 1,
            cluster_only: None,
        };
        flags.access(8, store, release.clone(), site, writer, || (0, Some(0)));
        let (_, read, version) = flags.access(8, load, None, site, writer, || (1, None));
        assert_eq!((epoch_in(&read.carried, 0), version), (1, 1));
        flags.access(8, store, None, site, writer, || (1, Some(1)));
        let (_, read, version) = flags.access(8, load, None, site, writer, || (2, None));
        assert_eq!(version, 2);
        assert_eq!(
            read.prev.map(|p| p.0),
            Some(1),
            "the value before the last write"
        );
        assert!(read.carried.is_none());
        assert_eq!(read.relaxed, Some(site));
    }
}
