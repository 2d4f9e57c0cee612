//! A block's memory on the CPU backend: its shared arrays, the race
//! detector that checks every access to them (and, through
//! [`global_state`](super::global_state), the block's accesses to global
//! buffers), and the bank model that counts how many shared-memory
//! transactions each warp-wide access needs.

use super::async_state::{AsyncState, Landed};
use super::fast_hash::FastMap;
use super::global_state::{Access, BlockGlobal, Conflict, Touched};
use super::happens_before::SyncView;
use super::races::{Arrived, Checked, Clocks, ElemState, Rec};
use crate::Dim3;
use crate::backend::ElemShape;
use crate::backend::Site;
use crate::backend::cpu::diagnostics::{AfterArrival, Violation};
use crate::backend::cpu::report::{AccessKind, SharedAccess, SharedSite};

/// Where the CPU backend keeps an array: its memory and its index in the
/// block's table.
#[derive(Clone, Copy)]
pub(crate) struct SharedBase {
    pub ptr: *mut u8,
    pub region: u32,
}

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

/// A warp-wide request: the k-th execution of one access site (on one
/// array) by the lanes of one warp: (warp, site, kind, region, k).
type RequestKey = (u32, usize, AccessKind, u32, u32);

/// Executions of one access site by one thread that the bank model counts.
pub(crate) const BANK_MODEL_EXECUTIONS: u32 = 1 << 14;

/// Per-site totals of one launch.
pub(crate) type SiteTotals = FastMap<(usize, AccessKind, u32), SharedSite>;

pub(crate) struct BlockShared {
    regions: Vec<Region>,
    window_end: u32,
    dynamic_bytes: u32,
    clocks: Clocks,
    /// The first read, in this barrier interval, of an element no thread
    /// had written: reported when the interval ends without a write by
    /// another thread turning it into a race.
    unwritten: Option<Violation>,
    /// Writes (and atomic updates) the block made so far: what a spinning
    /// thread waits for.
    progress: u64,
    /// The block's accesses to global buffers.
    global: BlockGlobal,
    /// How often each thread has executed each site on each array.
    executions: FastMap<(u32, usize, AccessKind, u32), u32>,
    /// The 4-byte words each warp-wide request touched.
    requests: FastMap<RequestKey, Vec<u32>>,
    /// Site and array of each request key's site.
    sites: FastMap<(usize, AccessKind, u32), (Site, &'static str)>,
    /// Whether every thread of the block has returned (its shared memory
    /// is gone on a GPU: another block of its cluster must not read it).
    pub ended: bool,
    /// Writes by the cluster's threads into this block's arrays since the
    /// last cluster barrier: (region, element) to (writer's block, thread,
    /// site).
    pub remote_writes: FastMap<(u32, u32), (Dim3, u32, Site)>,
    /// The block's asynchronous copies in flight and its mbarriers.
    pub asynchronous: AsyncState,
    /// In a cluster's first block: the multicast loads some blocks of the
    /// cluster have reached and others not yet, by (barriers' region,
    /// load number).
    pub multicasts: FastMap<(u32, u32), MulticastCall>,
    /// Accesses of global memory its threads made between their arrival at
    /// a cluster's or grid's split barrier and their wait: unordered with
    /// what other threads do after the wait, so checked again after it
    /// (the first [`AFTER_ARRIVAL`] of an interval).
    pub after_arrival: Vec<Access>,
}

/// How many accesses between a split barrier's arrive and wait a block
/// keeps for the check after the wait.
pub(crate) const AFTER_ARRIVAL: usize = 4096;

/// The first call of a multicast load by a block of the cluster, which the
/// other blocks' calls must match.
#[derive(Clone, Copy)]
pub(crate) struct MulticastCall {
    /// The tensor map's address, or the slice's.
    pub source: usize,
    /// The tile's coordinates, innermost first (a slice: its bytes, and
    /// whether the load fills).
    pub coords: [i32; 5],
    /// The blocks it lands in, a bit a cluster rank.
    pub members: u16,
    /// The calling block's rank in the cluster.
    pub block: u32,
    pub site: Site,
    /// Blocks that have called it so far.
    pub calls: u32,
}

impl BlockShared {
    /// A block of `threads` with `dynamic_bytes` of dynamic shared memory,
    /// with room to record `global_elements` touched global elements.
    pub fn new(threads: u32, dynamic_bytes: u32, global_elements: usize) -> Self {
        BlockShared {
            regions: Vec::new(),
            window_end: 0,
            dynamic_bytes,
            clocks: Clocks::new(threads),
            unwritten: None,
            progress: 0,
            global: BlockGlobal::from_epoch(0, global_elements),
            executions: FastMap::default(),
            requests: FastMap::default(),
            sites: FastMap::default(),
            ended: false,
            remote_writes: FastMap::default(),
            asynchronous: AsyncState::default(),
            multicasts: FastMap::default(),
            after_arrival: Vec::new(),
        }
    }

    /// The element size of region `region`'s array.
    pub fn elem_size(&self, region: u32) -> u32 {
        self.regions
            .get(region as usize)
            .map_or(1, |r| r.shape.size.max(1))
    }

    /// Writes what asynchronous copies landed into their arrays: the
    /// elements hold values, and no thread's access is recorded on them.
    pub fn land(&mut self, landed: Vec<Landed>) {
        for l in landed {
            let r = &mut self.regions[l.region as usize];
            let memory = r.memory.as_mut_ptr() as *mut u8;
            let size = r.shape.size.max(1);
            match l.combine {
                // SAFETY: the copy's bytes lie inside the region (the
                // handles that issue copies check their ranges), whose
                // storage holds `bytes` rounded up to 16.
                None => unsafe {
                    core::ptr::copy_nonoverlapping(
                        l.data.as_ptr(),
                        memory.add(l.offset as usize),
                        l.data.len(),
                    )
                },
                Some(combine) => {
                    for at in (0..l.data.len()).step_by(size as usize) {
                        // SAFETY: as above, one element of the array's
                        // type each (a reduction's source is an array of
                        // the same type).
                        unsafe {
                            combine(memory.add(l.offset as usize + at), l.data.as_ptr().add(at))
                        };
                    }
                }
            }
            let first = l.offset / size;
            let last = (l.offset + l.data.len() as u32).div_ceil(size);
            for e in first..last.min(r.elems.len() as u32) {
                r.elems[e as usize] = ElemState::landed();
            }
            self.progress += 1;
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

    /// A block barrier completed: a new interval begins. A read of an
    /// unwritten element in the interval that ends is reported now.
    pub fn barrier(&mut self) -> Result<(), Violation> {
        self.end_interval()?;
        self.clocks.barrier();
        self.remote_writes.clear();
        Ok(())
    }

    /// Whether element `index` of `region` holds a value: a thread of the
    /// cluster wrote it (an element out of range counts as written; its
    /// bounds are checked elsewhere).
    pub fn is_written(&self, region: u32, index: u32) -> bool {
        self.regions
            .get(region as usize)
            .and_then(|r| r.elems.get(index as usize))
            .is_none_or(|e| e.written)
    }

    /// Element `index` of region `region` was written by a thread of
    /// another block (or this one) through the cluster: it holds a value.
    pub fn mark_written(&mut self, region: u32, index: u32) {
        if let Some(e) = self
            .regions
            .get_mut(region as usize)
            .and_then(|r| r.elems.get_mut(index as usize))
        {
            e.written = true;
        }
    }

    /// The name of region `region`'s array and its element `index`, as a
    /// diagnostic writes it.
    pub fn array_element(&self, region: u32, index: u32) -> (&'static str, String) {
        match self.regions.get(region as usize) {
            Some(r) => (r.name, self.element_name(region as usize, index)),
            None => ("a shared array", format!("[{index}]")),
        }
    }

    /// The block's threads have all returned: an unwritten element read in
    /// the last interval, or a copy still in flight into the block's
    /// shared memory, which is gone, is reported.
    pub fn end(&mut self) -> Result<(), Violation> {
        self.end_interval()?;
        if let Some((thread, arrive)) = self.clocks.open_window() {
            return Err(Violation::ArrivalNotWaited {
                thread,
                arrive,
                group: "ThreadBlock",
                then: AfterArrival::Returned,
            });
        }
        match self.asynchronous.first_pending() {
            Some((thread, region, site)) => Err(Violation::AsyncCopyNotWaited {
                array: self
                    .regions
                    .get(region as usize)
                    .map_or("a shared array", |r| r.name),
                thread,
                site,
            }),
            None => Ok(()),
        }
    }

    fn end_interval(&mut self) -> Result<(), Violation> {
        match self.unwritten.take() {
            Some(v) => Err(v),
            None => Ok(()),
        }
    }

    /// `thread` arrives at the block's split barrier
    /// (`ThreadBlock::barrier_arrive` at `site`); the last arrival completes
    /// the phase, which ends the barrier interval.
    pub fn arrive(&mut self, thread: u32, site: Site) -> Result<(), Violation> {
        match self.clocks.arrive(thread, site) {
            Arrived::Pending => {}
            Arrived::Complete => self.end_interval()?,
            Arrived::Again(arrive) => {
                return Err(Violation::ArrivalNotWaited {
                    thread,
                    arrive,
                    group: "ThreadBlock",
                    then: AfterArrival::Arrived(site),
                });
            }
        }
        // What a waiting thread waits for.
        self.progress += 1;
        Ok(())
    }

    /// Whether the split-barrier phase `thread` arrived at has completed
    /// (then its `barrier_wait` returns).
    pub fn try_wait(&mut self, thread: u32) -> bool {
        self.clocks.try_wait(thread)
    }

    /// Refuses a block collective (`call` at `site`) of a thread between
    /// its `barrier_arrive` and its `barrier_wait`.
    pub fn check_no_window(
        &self,
        thread: u32,
        call: &'static str,
        site: Site,
    ) -> Result<(), Violation> {
        match self.clocks.window(thread) {
            Some(arrive) => Err(Violation::ArrivalNotWaited {
                thread,
                arrive,
                group: "ThreadBlock",
                then: AfterArrival::Collective { call, site },
            }),
            None => Ok(()),
        }
    }

    /// `TiledPartition::sync` completed for the lanes of `mask` in `warp`.
    pub fn tile_sync(&mut self, warp: usize, mask: u32) {
        self.clocks.tile_sync(warp, mask);
    }

    /// Region `region`'s key and storage, for a block of the cluster that
    /// reads it.
    pub fn region_storage(&mut self, region: u32) -> Option<(&'static str, *mut u8)> {
        self.regions
            .get_mut(region as usize)
            .map(|r| (r.key, r.memory.as_mut_ptr() as *mut u8))
    }

    /// A multi-warp tile's `sync` completed for the threads of ranks
    /// `base..base + size`.
    pub fn multi_warp_sync(&mut self, base: u32, size: u32) {
        self.clocks.multi_warp_sync(base, size);
    }

    /// Checks and records an access of a global buffer: the conflict when
    /// it races. `sync`: what the accessing thread synchronized with.
    pub fn global_access(
        &mut self,
        access: Access,
        sync: Option<&SyncView>,
    ) -> Result<(), Conflict> {
        self.global.access(&self.clocks, access, sync)
    }

    /// `thread` made a fence at `site` (`wide`: at the device's scope or
    /// wider): its earlier writes are published. Returns the block's
    /// epoch after it.
    pub fn global_fence(&mut self, thread: u32, wide: bool, site: Site) -> u32 {
        self.global.fence(&self.clocks, thread, wide, site);
        self.global.epoch()
    }

    /// How many global elements the block touched since the last grid
    /// sync.
    pub fn global_elements(&self) -> usize {
        self.global.touched()
    }

    /// The block's count of releases at the device's scope or wider.
    pub fn global_epoch(&self) -> u32 {
        self.global.epoch()
    }

    /// Checks again, after the block's threads passed a cluster's or grid's
    /// sync, the accesses they made between arriving at its split barrier
    /// and waiting: as made after the sync, against what every thread does
    /// after it, in the block and (through the block's record) in the
    /// other blocks.
    /// A conflict comes with its element (buffer, index).
    pub fn recheck_after_arrival(&mut self) -> Result<(), (u32, usize, Conflict)> {
        for mut access in core::mem::take(&mut self.after_arrival) {
            // The same access again, not a second release or flag.
            access.release = false;
            access.flag = false;
            access.acquired = false;
            access.trusted = false;
            self.global
                .access(&self.clocks, access, None)
                .map_err(|c| (access.buffer, access.index, c))?;
        }
        Ok(())
    }

    /// What the block did to global memory, for the launch's check across
    /// blocks; the count of releases goes on.
    pub fn take_global(&mut self) -> Vec<Touched> {
        let (epoch, elements) = (self.global.epoch(), self.global.touched());
        let global = core::mem::replace(&mut self.global, BlockGlobal::from_epoch(epoch, elements));
        global.summary(&self.clocks)
    }

    /// A pending read of an unwritten element, which happened before
    /// whatever else stopped the block.
    pub fn take_unwritten(&mut self) -> Option<Violation> {
        self.unwritten.take()
    }

    /// Writes the block made so far.
    pub fn progress(&self) -> u64 {
        self.progress
    }

    /// Counts a write that the checker does not see (a global atomic).
    pub fn note_write(&mut self) {
        self.progress += 1;
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
        let now = self.clocks.now(thread, kind, site);
        let r = region as usize;
        if self.asynchronous.any_in_flight()
            && let Some((copier, copy_site)) = self.asynchronous.in_flight(region, index)
        {
            return Err(Violation::AsyncCopyInFlight {
                array: self.regions[r].name,
                element: self.element_name(r, index),
                access: access_of(&now),
                copy: SharedAccess {
                    thread: copier,
                    kind: AccessKind::Write,
                    site: copy_site,
                },
            });
        }
        if kind == AccessKind::Write {
            self.progress += 1;
        }
        // Checked in place: an element's state is a few hundred bytes.
        let state = &mut self.regions[r].elems[index as usize];
        match self.clocks.check(state, now) {
            Checked::Race(earlier) => return Err(self.race(r, index, &earlier, &now)),
            Checked::Unwritten if self.unwritten.is_none() => {
                self.unwritten = Some(Violation::UninitializedRead {
                    array: self.regions[r].name,
                    element: self.element_name(r, index),
                    access: access_of(&now),
                });
            }
            Checked::Unwritten | Checked::Fine => {}
        }
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
        let n = self
            .executions
            .entry((thread, site_id, kind, r as u32))
            .or_insert(0);
        if *n == 0 {
            // The site's first execution by this thread; by the block's
            // first thread there, the site's first.
            self.sites
                .entry((site_id, kind, r as u32))
                .or_insert((site, region.name));
        }
        if *n >= BANK_MODEL_EXECUTIONS {
            // Memory stays bounded however long a thread loops (or spins).
            return;
        }
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
