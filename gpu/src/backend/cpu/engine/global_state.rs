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
//! (atomic only among that block's threads), is a race (a read counts
//! unless the reading thread made an acquiring atomic access at the
//! device's scope, or a fence, first: flag protocols are taken on trust;
//! a relaxed flag orders nothing). Each block keeps what it touched; when it ends (or reaches a
//! grid sync), its summary is merged into the record of the launch (or of
//! the interval between grid syncs) in block order, so that the race
//! reported is the same however the host ran the blocks.

use super::fast_hash::FastMap;
use super::races::{Checked, Clocks, ElemState, Rec};
use crate::backend::cpu::diagnostics::{GlobalAccess, Violation};
use crate::backend::cpu::report::AccessKind;
use crate::backend::Site;
use crate::kernel::params::BufferWords;
use crate::Dim3;

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

/// What one block did to one element of a global buffer.
#[derive(Clone, Copy, Debug, Default)]
struct Touch {
    state: ElemState,
    /// The block's first plain write of the element.
    write: Option<Rec>,
    /// The block's first atomic access of it.
    atomic: Option<Rec>,
    /// The block's first plain read of it by a thread that had made no
    /// atomic access or fence (checked against other blocks' writes).
    read: Option<Rec>,
    /// The block's first atomic access of it at the block's scope, which
    /// is atomic only among the block's threads.
    block_scope: Option<Rec>,
}

/// What a block did to an element of a buffer: its first plain write, its
/// first atomic access, its first read checked across blocks, and its
/// first atomic access at the block's scope.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Touched {
    /// `(buffer, index)`.
    pub key: (u32, usize),
    pub write: Option<Rec>,
    pub atomic: Option<Rec>,
    pub read: Option<Rec>,
    pub block_scope: Option<Rec>,
}

/// A block's accesses to global buffers.
#[derive(Default)]
pub(crate) struct BlockGlobal {
    touched: FastMap<(u32, usize), Touch>,
}

impl BlockGlobal {
    /// Checks and records an access by `thread` of element `index` of
    /// buffer `buffer`; a read is kept for the check across blocks when
    /// `across_blocks`, and is not checked against the block's other
    /// threads when `trusted` (it follows the thread's acquire).
    #[allow(clippy::too_many_arguments)]
    pub fn access(
        &mut self,
        clocks: &Clocks,
        buffer: u32,
        index: usize,
        kind: AccessKind,
        thread: u32,
        site: Site,
        across_blocks: bool,
        block_scope: bool,
        trusted: bool,
    ) -> Result<(), (Rec, Rec)> {
        let now = clocks.now(thread, kind, site);
        let touch = self.touched.entry((buffer, index)).or_default();
        // Global memory holds what the host put there: never unwritten.
        touch.state.written = true;
        if !trusted {
            if let Checked::Race(earlier) = clocks.check(&mut touch.state, now) {
                return Err((earlier, now));
            }
        }
        match kind {
            AccessKind::Write => {
                touch.write.get_or_insert(now);
            }
            AccessKind::Atomic => {
                touch.atomic.get_or_insert(now);
                if block_scope {
                    touch.block_scope.get_or_insert(now);
                }
            }
            AccessKind::Read if across_blocks => {
                touch.read.get_or_insert(now);
            }
            AccessKind::Read => {}
        }
        Ok(())
    }

    /// The block's summary, for [`LaunchGlobal::merge`].
    pub fn summary(self) -> Vec<Touched> {
        let mut out: Vec<_> = self
            .touched
            .into_iter()
            .map(|(key, t)| Touched {
                key,
                write: t.write,
                atomic: t.atomic,
                read: t.read,
                block_scope: t.block_scope,
            })
            .collect();
        out.sort_unstable_by_key(|t| t.key);
        out
    }
}

const PAGE: usize = 4096;

/// What earlier blocks did to each element: `0` for nothing, else
/// `block + 1` in the high 32 bits, whether an atomic access was at the
/// block's scope in bit 31, the thread in bits 21-30, an index into
/// `sites` in bits 1-20 and whether the access was atomic (1) or a plain
/// write (0) in bit 0. A plain write is kept over an atomic one, and an
/// atomic at the block's scope over one at a wider scope.
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
    sites: Vec<Site>,
    site_ids: FastMap<usize, u32>,
}

impl LaunchGlobal {
    /// The record of a whole launch of clusters of shape `cluster`.
    pub fn with_clusters(cluster: Dim3) -> Self {
        LaunchGlobal {
            cluster: Some(cluster),
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
        let id = (self.sites.len() as u32).min((1 << 20) - 1);
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
            } = touched;
            let key = (buffer, index / PAGE);
            let at = index % PAGE;
            // An atomic at the block's scope stands for the block's atomics:
            // it races with any other block's access of the element.
            let mine = match (write, block_scope, atomic) {
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
            // a value that is not final); this block's read against an
            // earlier block's write or atomic update (final only after a
            // grid sync, or in a later launch). `(slot, slot is a read, rec)`.
            let writes_clash = |atomic: bool, narrow: bool| {
                earlier_write != 0
                    && (!(decode(earlier_write).3 && atomic) || narrow || narrow_of(earlier_write))
            };
            let conflict = match (mine, read) {
                (Some((rec, atomic, narrow)), _) if writes_clash(atomic, narrow) => {
                    Some((earlier_write, false, rec))
                }
                (Some((rec, ..)), _) if earlier_read != 0 => Some((earlier_read, true, rec)),
                (_, Some(rec)) if earlier_write != 0 => Some((earlier_write, false, rec)),
                _ => None,
            };
            if let Some((slot, slot_read, rec)) = conflict {
                return Err(self.race(buffers, grid, buffer, index, slot, slot_read, block, rec));
            }
            if let (Some((rec, atomic, narrow)), 0) = (mine, earlier_write) {
                let code = encode(block, rec.thread, self.site_id(rec.site), atomic)
                    | if narrow { NARROW } else { 0 };
                self.writes
                    .entry(key)
                    .or_insert_with(|| Box::new([0; PAGE]))[at] = code;
            }
            if let (Some(rec), 0) = (read, earlier_read) {
                let code = encode(block, rec.thread, self.site_id(rec.site), false);
                self.reads.entry(key).or_insert_with(|| Box::new([0; PAGE]))[at] = code;
            }
        }
        Ok(())
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
        let (other_block, thread, site, other_atomic) = decode(slot);
        let first = GlobalAccess {
            block: unrank(other_block, grid),
            thread,
            kind: match (read, other_atomic) {
                (true, _) => AccessKind::Read,
                (false, true) => AccessKind::Atomic,
                (false, false) => AccessKind::Write,
            },
            site: self.sites[site as usize],
        };
        let second = GlobalAccess {
            block: unrank(block, grid),
            thread: rec.thread,
            kind: rec.kind,
            site: rec.site,
        };
        Violation::GlobalRace {
            buffer: buffers.name(buffer),
            element: index,
            first,
            second,
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

/// Whether a slot records an atomic at the block's scope.
fn narrow_of(slot: u64) -> bool {
    slot & NARROW != 0
}

fn decode(slot: u64) -> (u32, u32, u32, bool) {
    (
        ((slot >> 32) - 1) as u32,
        ((slot >> 21) & 0x3ff) as u32,
        ((slot >> 1) & 0xfffff) as u32,
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
    (earlier, now): (Rec, Rec),
) -> Violation {
    let access = |r: Rec| GlobalAccess {
        block,
        thread: r.thread,
        kind: r.kind,
        site: r.site,
    };
    Violation::GlobalRace {
        buffer: buffers.name(buffer),
        element: index,
        first: access(earlier),
        second: access(now),
    }
}
