//! Happens-before between the threads of one block, and the race check
//! built on it, for shared and global memory alike.
//!
//! Two accesses of one element by different threads are ordered when a
//! block barrier lies between them (the block's *epoch* advanced), or when
//! both threads are lanes of one warp that met at a `TiledPartition::sync`
//! after the earlier access (the warp's clocks).
//!
//! A split barrier (`barrier_arrive`, then `barrier_wait`) completes when
//! the last thread arrives, but a thread's accesses between its arrive and
//! its wait (its *window*) are ordered neither before the completion (they
//! come after the thread's arrival) nor after it (the thread has not
//! waited yet). Such an access carries the epoch in which the thread
//! arrived and a window mark: a later access by another thread is ordered
//! after it only once a second barrier has completed (`epoch + 2`), which
//! the thread arrived at after its wait. Accesses not ordered
//! conflict when at least one writes and not both are atomic. The check
//! remembers, per element and epoch, the last write and the first few
//! readers, so a conflict is found whichever of the two threads the
//! scheduler ran first.

use crate::backend::Site;
use crate::backend::cpu::report::AccessKind;

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
    /// The block's barrier epoch of the access: the current one, or for an
    /// access in a split barrier's window the one in which the thread
    /// arrived.
    pub epoch: u32,
    /// Whether the access lies between the thread's `barrier_arrive` and
    /// its `barrier_wait`.
    pub window: bool,
}

/// What the current barrier interval did to one element.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ElemState {
    /// The newest interval of the records (a record made in a split
    /// barrier's window may be one older).
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
    /// Each thread's split-barrier window: the epoch in which it called
    /// `barrier_arrive` and where, until its `barrier_wait` (made at the
    /// first arrival).
    windows: Vec<Option<(u32, Site)>>,
    /// Threads that have arrived at the split barrier's current phase.
    arrived: u32,
}

/// What a split barrier's arrival did.
pub(crate) enum Arrived {
    /// The thread arrived; others have not yet.
    Pending,
    /// The thread was the last to arrive: the phase is complete.
    Complete,
    /// The thread had arrived before (at this site) without waiting.
    Again(Site),
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
            windows: Vec::new(),
            arrived: 0,
        }
    }

    /// A block barrier completed: a new interval begins.
    pub fn barrier(&mut self) {
        self.epoch += 1;
    }

    /// `thread` arrives at the block's split barrier at `site`. The last
    /// thread to arrive completes the phase: a new interval begins (for
    /// the threads that have waited).
    pub fn arrive(&mut self, thread: u32, site: Site) -> Arrived {
        if self.windows.is_empty() {
            self.windows = vec![None; self.threads as usize];
        }
        let window = &mut self.windows[thread as usize];
        if let Some((_, earlier)) = *window {
            return Arrived::Again(earlier);
        }
        *window = Some((self.epoch, site));
        self.arrived += 1;
        if self.arrived == self.threads {
            self.arrived = 0;
            self.epoch += 1;
            Arrived::Complete
        } else {
            Arrived::Pending
        }
    }

    /// Whether the phase `thread` arrived at has completed; if so its
    /// window closes (its wait returns).
    pub fn try_wait(&mut self, thread: u32) -> bool {
        match self.windows.get(thread as usize).copied().flatten() {
            Some((arrived_in, _)) if self.epoch > arrived_in => {
                self.windows[thread as usize] = None;
                true
            }
            Some(_) => false,
            None => true,
        }
    }

    /// Where `thread` called `barrier_arrive`, while it has not waited.
    pub fn window(&self, thread: u32) -> Option<Site> {
        self.windows
            .get(thread as usize)
            .copied()
            .flatten()
            .map(|(_, site)| site)
    }

    /// The first thread still between `barrier_arrive` and `barrier_wait`,
    /// with its arrive's site.
    pub fn open_window(&self) -> Option<(u32, Site)> {
        self.windows
            .iter()
            .enumerate()
            .find_map(|(t, w)| w.map(|(_, site)| (t as u32, site)))
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
        let window = self.windows.get(thread as usize).copied().flatten();
        Rec {
            epoch: window.map_or(self.epoch, |(e, _)| e),
            window: window.is_some(),
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

    /// Whether `earlier` comes before access `now`.
    pub fn ordered(&self, earlier: &Rec, now: &Rec) -> bool {
        let thread = now.thread;
        earlier.thread == thread
            || now.epoch >= earlier.epoch + 1 + earlier.window as u32
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
        !both_read && !both_atomic && !self.ordered(earlier, now)
    }

    /// Checks access `now` of an element whose state is `state`, and
    /// records it there.
    pub fn check(&self, state: &mut ElemState, now: Rec) -> Checked {
        if now.epoch > state.epoch {
            // Records of older intervals come before `now` and everything
            // after it, except those made in a window of the interval just
            // before.
            // Cleared in place: this runs on most accesses, the first to
            // an element in each interval.
            let keep = |r: &mut Option<Rec>| {
                if r.is_some_and(|r| !(r.window && r.epoch + 2 > now.epoch)) {
                    *r = None;
                }
            };
            state.epoch = now.epoch;
            keep(&mut state.write);
            keep(&mut state.atomic);
            state.reads.iter_mut().for_each(keep);
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
                if !state.reads.iter().flatten().any(|x| x.thread == now.thread)
                    && let Some(slot) = state.reads.iter_mut().find(|x| x.is_none())
                {
                    *slot = Some(now);
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
