//! Global memory on the CPU backend: the launch's buffers by parameter
//! name, the race check of each block's accesses to them, and the check
//! across the blocks of a launch.
//!
//! Within a block, accesses to an element of a writable buffer are checked
//! like shared memory ([`races`](super::races)): between barriers, two
//! threads' accesses conflict when one writes and not both are atomic.
//! Across blocks nothing orders two accesses but a cooperative launch's
//! grid sync, so an element that two blocks touch between grid syncs, one
//! of them with a plain write or with an atomic at the block's scope
//! (atomic only among that block's threads), is a race. A read after the
//! reading thread's acquire (an acquiring atomic at the device's scope, or
//! a fence after an atomic at that scope) is checked only against writes
//! their writer never released: a write is published by a later release of
//! its thread (a releasing atomic or a fence) at a scope holding the
//! reader, or by another thread's release that a barrier ordered after it.
//! Which flag the reader acquired is taken on trust; a relaxed flag
//! orders nothing. Each block keeps what it touched; when it ends (or reaches a
//! grid sync), its summary is merged into the record of the launch (or of
//! the interval between grid syncs) in block order, so that the race
//! reported is the same however the host ran the blocks.

use super::fast_hash::FastMap;
use super::happens_before::{Shared, SyncView, epoch_in};
use super::races::{Checked, Clocks, ElemState, Rec};
use crate::Dim3;
use crate::backend::Site;
use crate::backend::cpu::diagnostics::{GlobalAccess, SyncGap, Violation};
use crate::backend::cpu::report::AccessKind;
use crate::kernel::params::BufferWords;

/// A buffer parameter of the launch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Buffer {
    pub words: BufferWords,
    pub name: &'static str,
}

/// The launch's buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct Buffers {
    list: Vec<Buffer>,
}

impl Buffers {
    pub fn new(list: Vec<Buffer>) -> Self {
        Buffers { list }
    }

    /// The buffer starting at `addr`, and its index.
    pub fn find(&self, addr: usize) -> Option<(u32, &Buffer)> {
        self.list
            .iter()
            .enumerate()
            .find(|(_, b)| b.words.addr == addr && b.words.len > 0)
            .map(|(i, b)| (i as u32, b))
    }

    /// The writable buffers, for saving and restoring between the runs of
    /// schedule exploration.
    pub fn writable(&self) -> impl Iterator<Item = &Buffer> {
        self.list.iter().filter(|b| b.words.writable)
    }

    /// The name of buffer `i`.
    pub fn name(&self, i: u32) -> &'static str {
        self.list.get(i as usize).map_or("a buffer", |b| b.name)
    }

    /// The read-only buffers of `len` elements: the candidates for a
    /// slice index that panicked.
    pub fn slices_of_len(&self, len: usize) -> Vec<&'static str> {
        self.list
            .iter()
            .filter(|b| b.words.len == len && !b.words.writable)
            .map(|b| b.name)
            .collect()
    }
}

/// One access of a global buffer's element, as the race check sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Access {
    /// The buffer (its index among the launch's buffers) and the element.
    pub buffer: u32,
    pub index: usize,
    pub kind: AccessKind,
    /// The thread's rank in its block.
    pub thread: u32,
    pub site: Site,
    /// A read after the thread's acquire at the device's scope (or a fence
    /// after an atomic access at that scope): across blocks it is checked
    /// only against writes their writer never released.
    pub acquired: bool,
    /// An atomic at the block's scope, atomic only among the block's
    /// threads.
    pub block_scope: bool,
    /// An atomic at the cluster's scope (in a launch in clusters), atomic
    /// only among the cluster's blocks.
    pub cluster_scope: bool,
    /// A read after the thread's acquire at any scope since the block's
    /// last barrier: within the block it is checked only against writes
    /// their writer never released.
    pub trusted: bool,
    /// An atomic with release ordering: it publishes the thread's earlier
    /// writes (across blocks only at the device's scope or wider).
    pub release: bool,
    /// A relaxed atomic update at the device's scope: a flag another block
    /// may wait for, which publishes nothing.
    pub flag: bool,
}

/// What a checked access of a global buffer conflicts with.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Conflict {
    /// An earlier access of another thread, unordered with this one.
    Race(Rec, Rec),
    /// A read after an acquire of an element whose last write no release
    /// of its writer published; `flag`: the writer's relaxed atomic update
    /// after the write (the store that should have released it).
    Unreleased {
        write: Rec,
        read: Rec,
        flag: Option<Site>,
    },
}

/// What one block did to one element of a global buffer.
#[derive(Clone, Debug, Default)]
struct Touch {
    state: ElemState,
    /// The block's first plain write of the element.
    write: Option<Rec>,
    /// The block's first atomic access of it.
    atomic: Option<Rec>,
    /// The block's first plain read of it by a thread that had made no
    /// acquire (checked against other blocks' writes).
    read: Option<Rec>,
    /// The block's first atomic access of it at the block's scope, which
    /// is atomic only among the block's threads.
    block_scope: Option<Rec>,
    /// The block's first atomic access of it at the cluster's scope.
    cluster_scope: Option<Rec>,
    /// The block's first read of it after the reading thread's acquire
    /// (checked against other blocks' unreleased writes).
    acquired: Option<Rec>,
    /// The block's last update of it (a plain write or an atomic), with the
    /// writer's count of accesses then and the block's epoch (its count of
    /// releases at the device's scope).
    update: Option<(Rec, u32, u32)>,
    /// The block's epoch at its first update of it.
    first_epoch: u32,
    /// What the thread of the kept read (`read`, else `acquired`) had
    /// synchronized with, when anything; and the thread of the block's
    /// last read after an acquire.
    sync: Option<SyncView>,
    last_sync: Option<SyncView>,
    /// What the thread of the block's first update had synchronized with
    /// then, and the block's epoch at the kept read: a read that a later
    /// write of another block was ordered after (the writer acquired a
    /// release of the reader's block made after the read) is no race.
    write_knows: Shared,
    read_epoch: u32,
}

/// The last update of an element by a block that no release at the
/// device's scope published: a reader in another block that acquired a
/// flag still races with it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unreleased {
    pub write: Rec,
    /// The writer's relaxed atomic update at the device's scope after the
    /// write (the flag it raised without releasing), if it made one.
    pub flag: Option<Site>,
}

/// What a block did to an element of a buffer: its first plain write, its
/// first atomic access, its first read checked across blocks, its first
/// atomic access at the block's scope, its first read after an acquire,
/// and its last update when no release published it.
#[derive(Clone, Debug)]
pub(crate) struct Touched {
    /// `(buffer, index)`.
    pub key: (u32, usize),
    pub write: Option<Rec>,
    pub atomic: Option<Rec>,
    pub read: Option<Rec>,
    pub block_scope: Option<Rec>,
    pub cluster_scope: Option<Rec>,
    pub acquired: Option<Rec>,
    pub unreleased: Option<Unreleased>,
    /// The block's epochs at its first and last updates of the element
    /// (0: before its first release, or no update).
    pub epochs: (u32, u32),
    /// What the reader of the kept read had synchronized with, and the
    /// reader of the block's last read after an acquire: the first read
    /// is checked against the first update, the last against the last.
    pub sync: Option<SyncView>,
    pub last_sync: Option<SyncView>,
    /// What the writer of the block's first update knew then, and the
    /// block's epoch at the kept read.
    pub write_knows: Shared,
    pub read_epoch: u32,
}

/// What one thread did that orders its writes for others: a count of its
/// global accesses and fences, and at which counts it released.
#[derive(Clone, Copy, Debug, Default)]
struct ThreadOrder {
    count: u32,
    /// The count at its last release (a releasing atomic or a fence) at
    /// any scope; 0: none.
    release_any: u32,
    /// The count at its last release at the device's scope or wider.
    release_wide: u32,
    /// That release, as a record: a write of another thread that a block
    /// barrier (or a tile's) ordered before it is published too.
    wide: Option<Rec>,
    /// The count at its last relaxed atomic update at the device's scope,
    /// and where.
    flag: Option<(u32, Rec)>,
}

/// A block's accesses to global buffers.
#[derive(Default)]
pub(crate) struct BlockGlobal {
    touched: FastMap<(u32, usize), Touch>,
    /// Each thread's releases (made at its first access).
    threads: Vec<ThreadOrder>,
    /// The threads that released at the device's scope, and the first few
    /// that raised a relaxed flag.
    releasers: Vec<u32>,
    flaggers: Vec<u32>,
    /// The block's releases at the device's scope or wider, counted over
    /// the whole launch ([`happens_before`](super::happens_before)).
    epoch: u32,
}

/// Threads of a block whose relaxed flags are remembered, for naming the
/// flag of an unreleased write.
const FLAGGERS: usize = 8;

impl BlockGlobal {
    /// A new record whose count of releases starts at `epoch`, with room
    /// for `elements` touched ones (the block before's count: blocks of one
    /// launch mostly touch alike, so the map rarely grows).
    pub fn from_epoch(epoch: u32, elements: usize) -> Self {
        BlockGlobal {
            epoch,
            touched: FastMap::with_capacity_and_hasher(elements, Default::default()),
            ..BlockGlobal::default()
        }
    }

    /// How many elements the block touched.
    pub fn touched(&self) -> usize {
        self.touched.len()
    }

    /// The block's count of releases at the device's scope or wider.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    fn order(&mut self, thread: u32) -> &mut ThreadOrder {
        let t = thread as usize;
        if self.threads.len() <= t {
            self.threads.resize(t + 1, ThreadOrder::default());
        }
        &mut self.threads[t]
    }

    /// `thread` released at `site` (`wide`: at the device's scope or
    /// wider); returns its count at the release.
    fn release(&mut self, clocks: &Clocks, thread: u32, wide: bool, site: Site) -> u32 {
        let t = self.order(thread);
        t.count += 1;
        let count = t.count;
        t.release_any = count;
        if wide {
            self.epoch += 1;
            let t = &mut self.threads[thread as usize];
            let first = t.wide.is_none();
            t.release_wide = count;
            t.wide = Some(clocks.now(thread, AccessKind::Write, site));
            if first {
                self.releasers.push(thread);
            }
        }
        count
    }

    /// A fence by `thread` at `site`: a release (`wide`: at the device's
    /// scope or wider).
    pub fn fence(&mut self, clocks: &Clocks, thread: u32, wide: bool, site: Site) {
        self.release(clocks, thread, wide, site);
    }

    /// Checks and records an access; a read after an acquire is checked
    /// within the block only against an unreleased write (`trusted`), and
    /// kept for the check across blocks.
    /// `sync`: for a read, what its thread synchronized with.
    pub fn access(
        &mut self,
        clocks: &Clocks,
        a: Access,
        sync: Option<&SyncView>,
    ) -> Result<(), Conflict> {
        let count = if a.release {
            self.release(clocks, a.thread, !a.block_scope, a.site)
        } else {
            let t = self.order(a.thread);
            t.count += 1;
            t.count
        };
        let now = clocks.now(a.thread, a.kind, a.site);
        if a.flag {
            let first = self.threads[a.thread as usize].flag.is_none();
            self.threads[a.thread as usize].flag = Some((count, now));
            if first && self.flaggers.len() < FLAGGERS {
                self.flaggers.push(a.thread);
            }
        }
        let touch = self.touched.entry((a.buffer, a.index)).or_default();
        // Global memory holds what the host put there: never unwritten.
        touch.state.written = true;
        if a.trusted {
            // The read follows the thread's acquire: only a write by
            // another thread, unordered with the read, that its writer
            // never released (at any scope) races with it.
            if let Some((write, at, _)) = touch.update {
                let writer = &self.threads[write.thread as usize];
                if write.thread != a.thread
                    && !clocks.ordered(&write, &now)
                    && writer.release_any <= at
                {
                    let flag = writer.flag.filter(|(c, _)| *c > at).map(|(_, r)| r.site);
                    return Err(Conflict::Unreleased {
                        write,
                        read: now,
                        flag,
                    });
                }
            }
        } else if let Checked::Race(earlier) = clocks.check(&mut touch.state, now) {
            return Err(Conflict::Race(earlier, now));
        }
        let knows = || sync.and_then(|s| s.knows.clone());
        let sync = || sync.filter(|s| !s.is_empty()).cloned();
        match a.kind {
            AccessKind::Write | AccessKind::Atomic => {
                if a.kind == AccessKind::Write {
                    touch.write.get_or_insert(now);
                } else {
                    touch.atomic.get_or_insert(now);
                    if a.block_scope {
                        touch.block_scope.get_or_insert(now);
                    }
                    if a.cluster_scope {
                        touch.cluster_scope.get_or_insert(now);
                    }
                }
                if touch.update.is_none() {
                    touch.first_epoch = self.epoch;
                    touch.write_knows = knows();
                }
                touch.update = Some((now, count, self.epoch));
            }
            AccessKind::Read if a.acquired => {
                if touch.acquired.is_none() {
                    touch.acquired = Some(now);
                    if touch.read.is_none() {
                        touch.sync = sync();
                        touch.read_epoch = self.epoch;
                    }
                }
                touch.last_sync = sync();
            }
            AccessKind::Read => {
                if touch.read.is_none() {
                    touch.read = Some(now);
                    touch.sync = sync();
                    touch.read_epoch = self.epoch;
                }
            }
        }
        Ok(())
    }

    /// Whether a release at the device's scope published `write`, made at
    /// its thread's count `at`: a later release of the writer, or one of
    /// another thread that a barrier ordered after the write.
    fn released(&self, clocks: &Clocks, write: &Rec, at: u32) -> bool {
        self.threads[write.thread as usize].release_wide > at
            || self.releasers.iter().any(|&r| {
                r != write.thread
                    && self.threads[r as usize]
                        .wide
                        .is_some_and(|release| clocks.ordered(write, &release))
            })
    }

    /// The relaxed flag raised after `write` (made at its thread's count
    /// `at`): the writer's own, or one a barrier ordered after the write.
    fn flag_after(&self, clocks: &Clocks, write: &Rec, at: u32) -> Option<Site> {
        let own = self.threads[write.thread as usize]
            .flag
            .filter(|(c, _)| *c > at)
            .map(|(_, r)| r.site);
        own.or_else(|| {
            self.flaggers.iter().find_map(|&f| {
                self.threads[f as usize]
                    .flag
                    .filter(|(_, r)| f != write.thread && clocks.ordered(write, r))
                    .map(|(_, r)| r.site)
            })
        })
    }

    /// The block's summary, for [`LaunchGlobal::merge`]; `clocks`: the
    /// block's barrier clocks at its end (or at the grid sync).
    pub fn summary(self, clocks: &Clocks) -> Vec<Touched> {
        let mut out: Vec<_> = self
            .touched
            .iter()
            .map(|(&key, t)| Touched {
                key,
                write: t.write,
                atomic: t.atomic,
                read: t.read,
                block_scope: t.block_scope,
                cluster_scope: t.cluster_scope,
                acquired: t.acquired,
                unreleased: t
                    .update
                    .filter(|(w, at, _)| !self.released(clocks, w, *at))
                    .map(|(write, at, _)| Unreleased {
                        write,
                        flag: self.flag_after(clocks, &write, at),
                    }),
                epochs: (t.first_epoch, t.update.map_or(0, |u| u.2)),
                sync: t.sync.clone(),
                last_sync: t.last_sync.clone(),
                write_knows: t.write_knows.clone(),
                read_epoch: t.read_epoch,
            })
            .collect();
        out.sort_unstable_by_key(|t| t.key);
        out
    }
}

const PAGE: usize = 4096;

/// The first and last epochs of a page of elements' recorded writes.
type EpochPage = [(u32, u32); PAGE];

/// What earlier blocks did to each element: `0` for nothing, else
/// `block + 1` in the high 32 bits, whether an atomic access was at the
/// block's scope in bit 31, the thread in bits 21-30, [`MARK`] in bit 20
/// (a write no release published; a read after an acquire), an index into
/// `sites` in bits 1-19 and whether the access was atomic (1) or a plain
/// write (0) in bit 0. A plain write is kept over an atomic one, and an
/// atomic at the block's scope over one at a wider scope; a plain read
/// over one after an acquire.
#[derive(Default)]
pub(crate) struct LaunchGlobal {
    /// Earlier blocks' first write (or atomic access) of each element.
    writes: FastMap<(u32, usize), Box<[u64; PAGE]>>,
    /// Earlier blocks' first checked read of each element.
    reads: FastMap<(u32, usize), Box<[u64; PAGE]>>,
    /// The launch's cluster shape, for a record of a whole clustered
    /// launch: blocks of one cluster are not checked against each other
    /// here (their syncs order them; each interval is checked apart).
    cluster: Option<Dim3>,
    /// Whether the record's blocks are one cluster's: atomics at the
    /// cluster's scope are atomic among them (elsewhere they are as narrow
    /// as the block's scope).
    cluster_wide: bool,
    sites: Vec<Site>,
    site_ids: FastMap<usize, u32>,
    /// The first relaxed flag a block raised after a write no release
    /// published, by block.
    flags: FastMap<u32, Site>,
    /// The writing block's epochs at its first and last updates of the
    /// element that `writes` records (pages only where some epoch is not
    /// 0).
    epochs: FastMap<(u32, usize), Box<EpochPage>>,
    /// What the readers of the first read that `reads` records and of that
    /// block's last read after an acquire had synchronized with, where
    /// anything, by `(buffer, index)`.
    read_sync: FastMap<(u32, usize), ReadSync>,
    /// What the writer of the update that `writes` records knew then, where
    /// anything.
    write_knows: FastMap<(u32, usize), Shared>,
}

/// What the readers of an element's kept read (and of that block's last
/// read after an acquire) had synchronized with, and the reading block's
/// epoch at the kept read.
type ReadSync = (Option<SyncView>, Option<SyncView>, u32);

impl LaunchGlobal {
    /// The record of a whole launch of clusters of shape `cluster`.
    pub fn with_clusters(cluster: Dim3) -> Self {
        LaunchGlobal {
            cluster: Some(cluster),
            ..LaunchGlobal::default()
        }
    }

    /// The record of an interval of one cluster's blocks.
    pub fn of_one_cluster() -> Self {
        LaunchGlobal {
            cluster_wide: true,
            ..LaunchGlobal::default()
        }
    }

    /// Whether blocks `a` and `b` of `grid` are in one cluster of this
    /// record's launch (never, for a launch without clusters).
    fn same_cluster(&self, grid: Dim3, a: u32, b: u32) -> bool {
        self.cluster.is_some_and(|c| {
            let (a, b) = (unrank(a, grid), unrank(b, grid));
            (a.x / c.x, a.y / c.y, a.z / c.z) == (b.x / c.x, b.y / c.y, b.z / c.z)
        })
    }

    /// `slot`, or nothing (0) when it records an access by a block of
    /// `block`'s cluster, which this record does not check.
    fn unless_same_cluster(&self, grid: Dim3, slot: u64, block: u32) -> u64 {
        if slot != 0 && self.same_cluster(grid, decode(slot).0, block) {
            0
        } else {
            slot
        }
    }

    fn site_id(&mut self, site: Site) -> u32 {
        let key = site as *const _ as usize;
        if let Some(&id) = self.site_ids.get(&key) {
            return id;
        }
        let id = (self.sites.len() as u32).min((1 << 19) - 1);
        if (id as usize) == self.sites.len() {
            self.sites.push(site);
        }
        self.site_ids.insert(key, id);
        id
    }

    /// Adds block `block` (its linear rank; `grid` is the launch's shape)
    /// to the record, or names the first element it races on with an
    /// earlier block: a plain write against any access, an atomic against
    /// a plain write or a checked read (and, at the block's scope, against
    /// any access), a checked read against any write or atomic update.
    pub fn merge(
        &mut self,
        buffers: &Buffers,
        grid: Dim3,
        block: u32,
        summary: Vec<Touched>,
    ) -> Result<(), Violation> {
        if block >= u32::MAX - 1 {
            return Ok(());
        }
        for touched in summary {
            let Touched {
                key: (buffer, index),
                write,
                atomic,
                read,
                block_scope,
                cluster_scope,
                acquired,
                unreleased,
                epochs,
                sync,
                last_sync,
                write_knows,
                read_epoch,
            } = touched;
            let key = (buffer, index / PAGE);
            let key_of = (buffer, index);
            let at = index % PAGE;
            // An atomic at the block's scope stands for the block's atomics:
            // it races with any other block's access of the element; so
            // does one at the cluster's scope, except among the blocks of
            // one cluster.
            let narrow_scope = block_scope.or(cluster_scope.filter(|_| !self.cluster_wide));
            let mine = match (write, narrow_scope, atomic) {
                (Some(w), ..) => Some((w, false, false)),
                (None, Some(b), _) => Some((b, true, true)),
                (None, None, Some(a)) => Some((a, true, false)),
                (None, None, None) => None,
            };
            let earlier_write = self.writes.get(&key).map_or(0, |p| p[at]);
            let earlier_read = self.reads.get(&key).map_or(0, |p| p[at]);
            let earlier_write = self.unless_same_cluster(grid, earlier_write, block);
            let earlier_read = self.unless_same_cluster(grid, earlier_read, block);
            // The first conflict, in this order: this block's write or
            // atomic against an earlier block's write or atomic (atomics at
            // the device's scope are ordered among themselves, one at a
            // block's scope only within it); against an earlier block's
            // read (a write changes what it saw, an atomic update leaves it
            // a value that is not final), or, when no release published the
            // update, its read after an acquire; this block's read against
            // an earlier block's write or atomic update (final only after a
            // grid sync, or in a later launch), or, after an acquire,
            // against one no release published.
            let writes_clash = |atomic: bool, narrow: bool| {
                earlier_write != 0
                    && (!(decode(earlier_write).3 && atomic) || narrow || narrow_of(earlier_write))
            };
            if let Some((rec, atomic, narrow)) = mine {
                if writes_clash(atomic, narrow) {
                    return Err(self.race(
                        buffers,
                        grid,
                        buffer,
                        index,
                        earlier_write,
                        false,
                        block,
                        rec,
                    ));
                }
                let reader_sync = self.read_sync.get(&(buffer, index));
                let (first_sync, last_sync_of_reader, reader_epoch) =
                    reader_sync.map_or((None, None, 0), |(f, l, e)| (f.as_ref(), l.as_ref(), *e));
                if earlier_read != 0 && !marked(earlier_read) {
                    let read = self.access_of(grid, earlier_read, AccessKind::Read);
                    let write = Self::access_now(grid, block, rec);
                    if let Some(gap) = gap_of(first_sync, block, epochs.0, false) {
                        return Err(unsynchronized_read(buffers, key_of, write, read, gap));
                    }
                    return Err(self.race(
                        buffers,
                        grid,
                        buffer,
                        index,
                        earlier_read,
                        true,
                        block,
                        rec,
                    ));
                }
                if let (Some(u), true) = (&unreleased, marked(earlier_read)) {
                    let read = self.access_of(grid, earlier_read, AccessKind::Read);
                    let write = Self::access_now(grid, block, u.write);
                    return Err(unreleased_write(
                        buffers, buffer, index, write, read, u.flag,
                    ));
                }
                // An earlier block's read after an acquire, and this block's
                // write: unless the write was ordered after the read (this
                // block acquired a release the reader's block made after
                // the read), the read must follow the write's release.
                let after_the_read = |r: u64| epoch_in(&write_knows, decode(r).0) > reader_epoch;
                if marked(earlier_read) && !after_the_read(earlier_read) {
                    let read = self.access_of(grid, earlier_read, AccessKind::Read);
                    let write = Self::access_now(grid, block, rec);
                    let last_sync = last_sync_of_reader.or(first_sync);
                    if let Some(gap) = gap_of(first_sync, block, epochs.0, true)
                        .or_else(|| gap_of(last_sync, block, epochs.1, true))
                    {
                        return Err(unsynchronized_read(buffers, key_of, write, read, gap));
                    }
                }
            }
            let writer_epochs = |slot: u64| {
                if slot == 0 {
                    (0, 0)
                } else {
                    self.epochs.get(&key).map_or((0, 0), |p| p[at])
                }
            };
            if let Some(rec) = read {
                if earlier_write != 0 {
                    let w = decode(earlier_write).0;
                    let write = self.access_of(grid, earlier_write, kind_of(earlier_write));
                    let read = Self::access_now(grid, block, rec);
                    let epoch = writer_epochs(earlier_write).0;
                    if let Some(gap) = gap_of(sync.as_ref(), w, epoch, false) {
                        return Err(unsynchronized_read(buffers, key_of, write, read, gap));
                    }
                    return Err(self.race(
                        buffers,
                        grid,
                        buffer,
                        index,
                        earlier_write,
                        false,
                        block,
                        rec,
                    ));
                }
            } else if let (Some(rec), true) = (acquired, marked(earlier_write)) {
                let flag = self.flags.get(&decode(earlier_write).0).copied();
                let write = self.access_of(grid, earlier_write, kind_of(earlier_write));
                let read = Self::access_now(grid, block, rec);
                return Err(unreleased_write(buffers, buffer, index, write, read, flag));
            } else if let (Some(rec), true) = (
                acquired,
                // Unless the earlier block's write was ordered after this
                // read (its writer acquired a release of this block made
                // after the read).
                earlier_write != 0
                    && epoch_in(self.write_knows.get(&key_of).unwrap_or(&None), block)
                        <= read_epoch,
            ) {
                let w = decode(earlier_write).0;
                let write = self.access_of(grid, earlier_write, kind_of(earlier_write));
                let read = Self::access_now(grid, block, rec);
                let (first, last) = writer_epochs(earlier_write);
                if let Some(gap) = gap_of(sync.as_ref(), w, first, true)
                    .or_else(|| gap_of(last_sync.as_ref().or(sync.as_ref()), w, last, true))
                {
                    return Err(unsynchronized_read(buffers, key_of, write, read, gap));
                }
            }
            if let (Some((rec, atomic, narrow)), 0) = (mine, earlier_write) {
                let mut code = encode(block, rec.thread, self.site_id(rec.site), atomic);
                if narrow {
                    code |= NARROW;
                }
                if let Some(u) = unreleased {
                    code |= MARK;
                    if let Some(flag) = u.flag {
                        self.flags.entry(block).or_insert(flag);
                    }
                }
                self.writes
                    .entry(key)
                    .or_insert_with(|| Box::new([0; PAGE]))[at] = code;
                if write_knows.is_some() {
                    self.write_knows.insert(key_of, write_knows);
                }
                if epochs != (0, 0) {
                    self.epochs
                        .entry(key)
                        .or_insert_with(|| Box::new([(0, 0); PAGE]))[at] = epochs;
                }
            }
            let kept = match (read, acquired) {
                (Some(rec), _) if earlier_read == 0 || marked(earlier_read) => Some((rec, 0)),
                (None, Some(rec)) if earlier_read == 0 => Some((rec, MARK)),
                _ => None,
            };
            if let Some((rec, mark)) = kept {
                let code = encode(block, rec.thread, self.site_id(rec.site), false) | mark;
                self.reads.entry(key).or_insert_with(|| Box::new([0; PAGE]))[at] = code;
                if sync.is_some() || last_sync.is_some() {
                    self.read_sync
                        .insert((buffer, index), (sync, last_sync, read_epoch));
                } else {
                    self.read_sync.remove(&(buffer, index));
                }
            }
        }
        Ok(())
    }

    /// The access an earlier block's `slot` records, as `kind`.
    fn access_of(&self, grid: Dim3, slot: u64, kind: AccessKind) -> GlobalAccess {
        let (block, thread, site, _) = decode(slot);
        GlobalAccess {
            block: unrank(block, grid),
            thread,
            kind,
            site: self.sites[site as usize],
        }
    }

    /// Block `block`'s access `rec`.
    fn access_now(grid: Dim3, block: u32, rec: Rec) -> GlobalAccess {
        GlobalAccess {
            block: unrank(block, grid),
            thread: rec.thread,
            kind: rec.kind,
            site: rec.site,
        }
    }

    /// The race between an earlier block's access recorded in `slot` (a
    /// read when `read`) and block `block`'s access `rec`.
    #[allow(clippy::too_many_arguments)]
    fn race(
        &self,
        buffers: &Buffers,
        grid: Dim3,
        buffer: u32,
        index: usize,
        slot: u64,
        read: bool,
        block: u32,
        rec: Rec,
    ) -> Violation {
        let kind = if read {
            AccessKind::Read
        } else {
            kind_of(slot)
        };
        Violation::GlobalRace {
            buffer: buffers.name(buffer),
            element: index,
            first: self.access_of(grid, slot, kind),
            second: Self::access_now(grid, block, rec),
        }
    }
}

fn encode(block: u32, thread: u32, site: u32, atomic: bool) -> u64 {
    ((block as u64 + 1) << 32)
        | ((thread as u64 & 0x3ff) << 21)
        | ((site as u64) << 1)
        | atomic as u64
}

/// The bit of a slot that marks an atomic at the block's scope.
const NARROW: u64 = 1 << 31;

/// The bit of a slot that marks a write no release published (in
/// `writes`) or a read after an acquire (in `reads`).
const MARK: u64 = 1 << 20;

/// Whether a slot carries [`MARK`].
fn marked(slot: u64) -> bool {
    slot & MARK != 0
}

/// Whether a slot records an atomic at the block's scope.
fn narrow_of(slot: u64) -> bool {
    slot & NARROW != 0
}

fn decode(slot: u64) -> (u32, u32, u32, bool) {
    (
        ((slot >> 32) - 1) as u32,
        ((slot >> 21) & 0x3ff) as u32,
        ((slot >> 1) & 0x7ffff) as u32,
        slot & 1 == 1,
    )
}

/// Block `rank`'s index in a grid of shape `grid` (`x` fastest).
pub(crate) fn unrank(rank: u32, grid: Dim3) -> Dim3 {
    Dim3::new(
        rank % grid.x,
        (rank / grid.x) % grid.y,
        rank / (grid.x * grid.y),
    )
}

/// The race a block found within itself on an element of `buffer`.
pub(crate) fn block_race(
    buffers: &Buffers,
    block: Dim3,
    buffer: u32,
    index: usize,
    conflict: Conflict,
) -> Violation {
    let access = |r: Rec| GlobalAccess {
        block,
        thread: r.thread,
        kind: r.kind,
        site: r.site,
    };
    match conflict {
        Conflict::Race(earlier, now) => Violation::GlobalRace {
            buffer: buffers.name(buffer),
            element: index,
            first: access(earlier),
            second: access(now),
        },
        Conflict::Unreleased { write, read, flag } => {
            unreleased_write(buffers, buffer, index, access(write), access(read), flag)
        }
    }
}

/// A read after an acquire of an element whose write no release
/// published.
fn unreleased_write(
    buffers: &Buffers,
    buffer: u32,
    index: usize,
    write: GlobalAccess,
    read: GlobalAccess,
    flag: Option<Site>,
) -> Violation {
    Violation::UnreleasedWrite {
        buffer: buffers.name(buffer),
        element: index,
        write,
        read,
        flag,
    }
}

/// Whether `slot` records an atomic update (else a plain write).
fn kind_of(slot: u64) -> AccessKind {
    if decode(slot).3 {
        AccessKind::Atomic
    } else {
        AccessKind::Write
    }
}

/// What is missing between the release of `writer`'s block that
/// published a write (made at the block's epoch `epoch`) and a read whose
/// thread had synchronized as `sync` says, if anything:
/// - for a read after an acquire (`acquired`), a gap unless what the
///   reader took carries a release of the block after the write;
/// - for a plain read (which the race check reports anyway), the gap only
///   when the reader's side observed such a release with a relaxed atomic
///   and never acquired it: the fix is that atomic's ordering.
fn gap_of(sync: Option<&SyncView>, writer: u32, epoch: u32, acquired: bool) -> Option<SyncGap> {
    let empty = SyncView::default();
    let sync = sync.unwrap_or(&empty);
    if acquired && epoch_in(&sync.knows, writer) > epoch {
        return None;
    }
    // The reader's side took the release, but at the cluster's scope from
    // another cluster: a release or fence at the device's scope is needed.
    if let Some((block, release)) = sync.far_release
        && acquired
        && block == writer
    {
        return Some(SyncGap::ClusterRelease { release });
    }
    if let Some(fence) = sync.cluster_fence
        && epoch_in(&sync.pending_far, writer) > epoch
    {
        return Some(SyncGap::ClusterFence { fence });
    }
    match (sync.observed_at, sync.link) {
        (Some(atomic), _) if epoch_in(&sync.pending, writer) > epoch => {
            Some(SyncGap::RelaxedObserve { atomic })
        }
        _ if !acquired => None,
        (_, Some(store)) => Some(SyncGap::RelaxedLink { store }),
        _ => Some(SyncGap::NoReleaseAfterWrite),
    }
}

/// A read of `buffer[index]` that never synchronized with the release
/// that published its write.
fn unsynchronized_read(
    buffers: &Buffers,
    (buffer, index): (u32, usize),
    write: GlobalAccess,
    read: GlobalAccess,
    gap: SyncGap,
) -> Violation {
    Violation::UnsynchronizedRead {
        buffer: buffers.name(buffer),
        element: index,
        write,
        read,
        gap,
    }
}
