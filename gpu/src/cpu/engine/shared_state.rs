//! A block's shared memory on the CPU backend: the arrays themselves, the
//! race detector that checks every access, and the bank model that counts
//! how many shared-memory transactions each warp-wide access needs.

use crate::backend::ElemShape;
use crate::backend::Site;
use crate::cpu::diagnostics::Violation;
use crate::cpu::report::{AccessKind, SharedAccess, SharedSite};
use std::collections::HashMap;

/// Where the CPU backend keeps an array: its memory and its index in the
/// block's table.
#[derive(Clone, Copy)]
pub(crate) struct SharedBase {
    pub ptr: *mut u8,
    pub region: u32,
}

/// One access, as the race detector remembers it.
#[derive(Clone, Copy, Debug)]
struct Rec {
    thread: u32,
    kind: AccessKind,
    site: Site,
    /// The thread's count of tile barriers when it made the access.
    clock: u32,
}

/// What the current barrier interval did to one element.
#[derive(Clone, Copy, Debug, Default)]
struct ElemState {
    /// The interval these records belong to.
    epoch: u32,
    written: bool,
    write: Option<Rec>,
    /// Readers in this interval (the first few distinct threads).
    reads: [Option<Rec>; READERS],
}

const READERS: usize = 4;

struct Region {
    key: &'static str,
    name: &'static str,
    /// 16-byte aligned storage.
    memory: Box<[u128]>,
    /// Offset in the block's emulated shared window (for bank numbers).
    window: u32,
    shape: ElemShape,
    elems: Vec<ElemState>,
}

/// Which lanes of a warp have met at a tile barrier since when: `common[a][b]`
/// is lane `a`'s barrier count at the last `TiledPartition::sync` that
/// lanes `a` and `b` both called.
struct WarpClocks {
    count: [u32; 32],
    common: [[u32; 32]; 32],
}

/// A warp-wide request: the k-th execution of one access site (on one
/// array) by the lanes of one warp: (warp, site, kind, region, k).
type RequestKey = (u32, usize, AccessKind, u32, u32);

/// Per-site totals of one launch.
pub(crate) type SiteTotals = HashMap<(usize, AccessKind, u32), SharedSite>;

pub(crate) struct BlockShared {
    regions: Vec<Region>,
    window_end: u32,
    dynamic_bytes: u32,
    epoch: u32,
    warps: Vec<WarpClocks>,
    /// How often each thread has executed each site on each array.
    executions: HashMap<(u32, usize, AccessKind, u32), u32>,
    /// The 4-byte words each warp-wide request touched.
    requests: HashMap<RequestKey, Vec<u32>>,
    /// Site and array of each request key's site.
    sites: HashMap<(usize, AccessKind, u32), (Site, &'static str)>,
}

impl BlockShared {
    pub fn new(threads: u32, dynamic_bytes: u32) -> Self {
        BlockShared {
            regions: Vec::new(),
            window_end: 0,
            dynamic_bytes,
            epoch: 1,
            warps: (0..threads.div_ceil(32))
                .map(|_| WarpClocks {
                    count: [0; 32],
                    common: [[0; 32]; 32],
                })
                .collect(),
            executions: HashMap::new(),
            requests: HashMap::new(),
            sites: HashMap::new(),
        }
    }

    /// The block's copy of array `key`, made on first use.
    pub fn bind(
        &mut self,
        key: &'static str,
        name: &'static str,
        bytes: Option<u32>,
        align: u32,
        shape: ElemShape,
    ) -> SharedBase {
        if let Some(i) = self.regions.iter().position(|r| r.key == key) {
            let region = &mut self.regions[i];
            return SharedBase {
                ptr: region.memory.as_mut_ptr() as *mut u8,
                region: i as u32,
            };
        }
        let bytes = bytes.unwrap_or(self.dynamic_bytes);
        let window = self.window_end.next_multiple_of(align.max(16));
        self.window_end = window + bytes;
        let elems = (bytes / shape.size.max(1)) as usize;
        self.regions.push(Region {
            key,
            name,
            memory: vec![0u128; (bytes as usize).div_ceil(16)].into_boxed_slice(),
            window,
            shape,
            elems: vec![ElemState::default(); elems],
        });
        let region = self.regions.last_mut().expect("pushed above");
        SharedBase {
            ptr: region.memory.as_mut_ptr() as *mut u8,
            region: (self.regions.len() - 1) as u32,
        }
    }

    /// A block barrier completed: a new interval begins.
    pub fn barrier(&mut self) {
        self.epoch += 1;
    }

    /// `TiledPartition::sync` completed for the lanes of `mask` in `warp`.
    pub fn tile_sync(&mut self, warp: usize, mask: u32) {
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

    /// Whether `earlier` comes before anything `thread` does now.
    fn ordered(&self, earlier: &Rec, thread: u32) -> bool {
        earlier.thread == thread
            || (earlier.thread / 32 == thread / 32 && {
                let clocks = &self.warps[(thread / 32) as usize];
                clocks.common[(earlier.thread % 32) as usize][(thread % 32) as usize]
                    > earlier.clock
            })
    }

    fn conflict(&self, earlier: &Rec, now: &Rec) -> bool {
        let both_read = earlier.kind == AccessKind::Read && now.kind == AccessKind::Read;
        let both_atomic = earlier.kind == AccessKind::Atomic && now.kind == AccessKind::Atomic;
        !both_read && !both_atomic && !self.ordered(earlier, now.thread)
    }

    /// Checks and records an access of element `index` of `region` by
    /// `thread`.
    pub fn access(
        &mut self,
        region: u32,
        index: u32,
        kind: AccessKind,
        thread: u32,
        site: Site,
    ) -> Result<(), Violation> {
        let clock = self.warps[(thread / 32) as usize].count[(thread % 32) as usize];
        let now = Rec {
            thread,
            kind,
            site,
            clock,
        };
        let r = region as usize;
        let mut state = self.regions[r].elems[index as usize];
        if state.epoch != self.epoch {
            state = ElemState {
                epoch: self.epoch,
                written: state.written,
                ..ElemState::default()
            };
        }
        let race = |earlier: &Rec| self.race(r, index, earlier, &now);
        match kind {
            AccessKind::Read => {
                if !state.written {
                    return Err(Violation::UninitializedRead {
                        array: self.regions[r].name,
                        element: self.element_name(r, index),
                        access: access_of(&now),
                    });
                }
                if let Some(w) = &state.write {
                    if self.conflict(w, &now) {
                        return Err(race(w));
                    }
                }
                if !state.reads.iter().flatten().any(|x| x.thread == thread) {
                    if let Some(slot) = state.reads.iter_mut().find(|x| x.is_none()) {
                        *slot = Some(now);
                    }
                }
            }
            AccessKind::Atomic => {
                // An atomic update reads the element, then writes it.
                if !state.written {
                    return Err(Violation::UninitializedRead {
                        array: self.regions[r].name,
                        element: self.element_name(r, index),
                        access: access_of(&now),
                    });
                }
                for earlier in state.reads.iter().flatten().chain(&state.write) {
                    if self.conflict(earlier, &now) {
                        return Err(race(earlier));
                    }
                }
                state.write = Some(now);
            }
            AccessKind::Write => {
                for earlier in state.reads.iter().flatten().chain(&state.write) {
                    if self.conflict(earlier, &now) {
                        return Err(race(earlier));
                    }
                }
                state.write = Some(now);
                state.written = true;
            }
        }
        self.regions[r].elems[index as usize] = state;
        self.count_request(r, index, kind, thread, site);
        Ok(())
    }

    fn race(&self, region: usize, index: u32, earlier: &Rec, now: &Rec) -> Violation {
        Violation::SharedRace {
            array: self.regions[region].name,
            element: self.element_name(region, index),
            first: access_of(earlier),
            second: access_of(now),
        }
    }

    fn element_name(&self, region: usize, index: u32) -> String {
        match self.regions[region].shape.cols {
            0 => format!("[{index}]"),
            cols => format!("[{}][{}]", index / cols, index % cols),
        }
    }

    /// Adds the access's words to its warp-wide request.
    fn count_request(&mut self, r: usize, index: u32, kind: AccessKind, thread: u32, site: Site) {
        let site_id = site as *const _ as usize;
        let region = &self.regions[r];
        let start = region.window + index * region.shape.size;
        let end = start + region.shape.size.max(1);
        self.sites
            .entry((site_id, kind, r as u32))
            .or_insert((site, region.name));
        let n = self
            .executions
            .entry((thread, site_id, kind, r as u32))
            .or_insert(0);
        let key = (thread / 32, site_id, kind, r as u32, *n);
        *n += 1;
        let words = self.requests.entry(key).or_default();
        for w in start / 4..end.div_ceil(4) {
            if !words.contains(&w) {
                words.push(w);
            }
        }
    }

    /// Adds this block's requests to the launch's per-site totals.
    pub fn finish(self, totals: &mut SiteTotals) {
        for ((_, site_id, kind, region, _), words) in self.requests {
            let (site, array) = self.sites[&(site_id, kind, region)];
            let mut per_bank = [0u32; 32];
            for w in &words {
                per_bank[(w % 32) as usize] += 1;
            }
            let wavefronts = per_bank.iter().copied().max().unwrap_or(0).max(1);
            let entry = totals
                .entry((site_id, kind, region))
                .or_insert_with(|| SharedSite {
                    site,
                    array,
                    kind,
                    requests: 0,
                    transactions: 0,
                });
            entry.requests += 1;
            entry.transactions += wavefronts as u64;
        }
    }
}

fn access_of(rec: &Rec) -> SharedAccess {
    SharedAccess {
        thread: rec.thread,
        kind: rec.kind,
        site: rec.site,
    }
}
