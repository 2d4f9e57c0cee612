//! Happens-before between the threads of one block, and the race check
//! built on it, for shared and global memory alike.
//!
//! Two accesses of one element by different threads are ordered when a
//! block barrier lies between them (the block's *epoch* advanced), or when
//! both threads are lanes of one warp that met at a `TiledPartition::sync`
//! after the earlier access (the warp's clocks). Accesses not ordered
//! conflict when at least one writes and not both are atomic. The check
//! remembers, per element and epoch, the last write and the first few
//! readers, so a conflict is found whichever of the two threads the
//! scheduler ran first.

use crate::backend::cpu::report::AccessKind;
use crate::backend::Site;

/// One access, as the race detector remembers it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rec {
    pub thread: u32,
    pub kind: AccessKind,
    pub site: Site,
    /// The thread's count of tile barriers when it made the access.
    pub clock: u32,
    /// The thread's counts of multi-warp tile barriers (tiles of 64, 128,
    /// ..., 1024 threads), modulo 2^16, when it made the access.
    pub multi_warp: [u16; 5],
}

/// What the current barrier interval did to one element.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ElemState {
    /// The interval these records belong to.
    epoch: u32,
    /// Whether any thread of the block has written the element (in any
    /// interval).
    pub written: bool,
    /// The last plain write in this interval.
    write: Option<Rec>,
    /// The last atomic update in this interval.
    atomic: Option<Rec>,
    /// Readers in this interval (the first few distinct threads).
    reads: [Option<Rec>; READERS],
}

impl ElemState {
    /// An element an asynchronous copy just wrote: it holds a value, and no
    /// thread's access is recorded (the copy's wait orders what came
    /// before it, which the pipelines' types guarantee).
    pub fn landed() -> Self {
        ElemState {
            written: true,
            ..ElemState::default()
        }
    }
}

/// Readers remembered per element and interval.
pub(crate) const READERS: usize = 4;

/// Which lanes of a warp have met at a tile barrier since when: `common[a][b]`
/// is lane `a`'s barrier count at the last `TiledPartition::sync` that
/// lanes `a` and `b` both called.
struct WarpClocks {
    count: [u32; 32],
    common: [[u32; 32]; 32],
}

/// The block's barrier epoch and its warps' tile-barrier clocks (made at
/// the first tile barrier: until then every clock reads 0, which orders
/// nothing).
pub(crate) struct Clocks {
    epoch: u32,
    threads: u32,
    warps: Vec<WarpClocks>,
    /// Each thread's counts of multi-warp tile barriers, by tile size
    /// (made at the first such barrier). The threads of one tile always
    /// hold the same count for its size, since each barrier of the tile
    /// counts all of them.
    multi_warp: Vec<[u16; 5]>,
}

/// What a checked access found.
pub(crate) enum Checked {
    /// Nothing wrong.
    Fine,
    /// A read of an element no thread of the block has written so far.
    /// Not yet an error: a write by another thread later in the same
    /// interval makes it a race instead.
    Unwritten,
    /// It conflicts with this earlier access.
    Race(Rec),
}

impl Clocks {
    pub fn new(threads: u32) -> Self {
        Clocks {
            epoch: 1,
            threads,
            warps: Vec::new(),
            multi_warp: Vec::new(),
        }
    }

    /// A block barrier completed: a new interval begins.
    pub fn barrier(&mut self) {
        self.epoch += 1;
    }

    /// `TiledPartition::sync` completed for the lanes of `mask` in `warp`.
    pub fn tile_sync(&mut self, warp: usize, mask: u32) {
        if self.warps.is_empty() {
            self.warps = (0..self.threads.div_ceil(32))
                .map(|_| WarpClocks {
                    count: [0; 32],
                    common: [[0; 32]; 32],
                })
                .collect();
        }
        let clocks = &mut self.warps[warp];
        let lanes = || (0..32).filter(move |l| mask & (1 << l) != 0);
        for a in lanes() {
            clocks.count[a] += 1;
        }
        for a in lanes() {
            for b in lanes() {
                clocks.common[a][b] = clocks.count[a];
            }
        }
    }

    /// A multi-warp tile's barrier completed for the threads of ranks
    /// `base..base + size`.
    pub fn multi_warp_sync(&mut self, base: u32, size: u32) {
        if self.multi_warp.is_empty() {
            self.multi_warp = vec![[0; 5]; self.threads as usize];
        }
        let s = (size.trailing_zeros() - 6) as usize;
        for t in base..(base + size).min(self.threads) {
            let c = &mut self.multi_warp[t as usize][s];
            *c = c.wrapping_add(1);
        }
    }

    /// The record of an access `thread` makes now.
    pub fn now(&self, thread: u32, kind: AccessKind, site: Site) -> Rec {
        Rec {
            thread,
            kind,
            site,
            clock: self
                .warps
                .get((thread / 32) as usize)
                .map_or(0, |w| w.count[(thread % 32) as usize]),
            multi_warp: self
                .multi_warp
                .get(thread as usize)
                .copied()
                .unwrap_or_default(),
        }
    }

    /// Whether `earlier` comes before anything `thread` does now.
    fn ordered(&self, earlier: &Rec, thread: u32) -> bool {
        earlier.thread == thread
            || self.multi_warp.get(thread as usize).is_some_and(|now| {
                // A barrier of a tile holding both threads came between.
                (0..5).any(|s| {
                    let size = 64u32 << s;
                    earlier.thread / size == thread / size && now[s] != earlier.multi_warp[s]
                })
            })
            || (earlier.thread / 32 == thread / 32
                && self
                    .warps
                    .get((thread / 32) as usize)
                    .is_some_and(|clocks| {
                        clocks.common[(earlier.thread % 32) as usize][(thread % 32) as usize]
                            > earlier.clock
                    }))
    }

    fn conflict(&self, earlier: &Rec, now: &Rec) -> bool {
        let both_read = earlier.kind == AccessKind::Read && now.kind == AccessKind::Read;
        let both_atomic = earlier.kind == AccessKind::Atomic && now.kind == AccessKind::Atomic;
        !both_read && !both_atomic && !self.ordered(earlier, now.thread)
    }

    /// Checks access `now` of an element whose state is `state`, and
    /// records it there.
    pub fn check(&self, state: &mut ElemState, now: Rec) -> Checked {
        if state.epoch != self.epoch {
            *state = ElemState {
                epoch: self.epoch,
                written: state.written,
                ..ElemState::default()
            };
        }
        let mut result = Checked::Fine;
        if now.kind != AccessKind::Write {
            // An atomic update reads the element, then writes it.
            if !state.written {
                result = Checked::Unwritten;
            }
        }
        // Plain reads conflict with writes and atomics; writes with
        // everything; atomics with everything but atomics.
        let earlier: &[Option<Rec>] = match now.kind {
            AccessKind::Read => &[],
            _ => &state.reads,
        };
        let conflict = state
            .write
            .iter()
            .chain(
                state
                    .atomic
                    .iter()
                    .filter(|_| now.kind != AccessKind::Atomic),
            )
            .chain(earlier.iter().flatten())
            .find(|e| self.conflict(e, &now))
            .copied();
        if let Some(e) = conflict {
            return Checked::Race(e);
        }
        match now.kind {
            AccessKind::Read => {
                if !state.reads.iter().flatten().any(|x| x.thread == now.thread) {
                    if let Some(slot) = state.reads.iter_mut().find(|x| x.is_none()) {
                        *slot = Some(now);
                    }
                }
            }
            AccessKind::Atomic => {
                state.atomic = Some(now);
                state.written = true;
            }
            AccessKind::Write => {
                state.write = Some(now);
                state.written = true;
            }
        }
        result
    }
}
