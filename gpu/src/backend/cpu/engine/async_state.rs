//! Asynchronous copies and mbarriers of one block on the CPU backend.
//!
//! A copy reads its source when it is issued and lands (its bytes written
//! into the array) at its completion point: when the issuing thread waits
//! for its group, or when a thread tests the barrier it completes on. Until
//! then the destination's elements are *in flight*: any access to them is
//! reported (the race a GPU would run silently), naming the copy.
//!
//! An mbarrier is modelled as the PTX ISA describes it: a phase, the
//! arrivals still expected in it, the arrivals each phase expects, and a
//! count of bytes still to land. Its phase completes when no arrival and no
//! byte is pending; a test for the parity of the phase just completed
//! succeeds.

use super::fast_hash::FastMap;
use crate::backend::Site;
use crate::backend::async_copies::CombineElement;

/// A copy issued and not landed.
struct Pending {
    thread: u32,
    /// The issuing thread's group (its number of commits when it issued).
    group: u32,
    region: u32,
    /// Byte offset in the region.
    offset: u32,
    /// What lands: the source's bytes, then zeros.
    data: Vec<u8>,
    /// The destination array's element size.
    elem_size: u32,
    site: Site,
    /// The barrier it completes on (a bulk copy).
    barrier: Option<(u32, u32)>,
    /// How it combines each element into the destination's (a bulk
    /// reduction into shared memory); `None` replaces them.
    combine: Option<CombineElement>,
    /// The cluster rank of the block whose thread issued it.
    from_block: u32,
}

/// One mbarrier.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mbarrier {
    pub phase: u32,
    pub pending: i64,
    pub expected: i64,
    pub tx: i64,
}

/// Why an operation on the block's asynchronous state cannot go on.
pub(crate) enum AsyncError {
    /// A barrier used before `init`, or `init` of a live one.
    Barrier(String),
}

/// The block's copies in flight and its barriers.
#[derive(Default)]
pub(crate) struct AsyncState {
    pending: Vec<Pending>,
    /// Each thread's commits so far (the number of its open group).
    groups: Vec<u32>,
    /// Elements in flight: (region, element) to (issuing thread, site).
    in_flight: FastMap<(u32, u32), (u32, Site)>,
    barriers: FastMap<(u32, u32), Mbarrier>,
    /// Counters of releases (a multicast pipeline's, one a stage).
    counters: FastMap<(u32, u32), u32>,
}

/// A landed copy's destination: the region, its first byte and its bytes,
/// for the array's memory and its race records.
pub(crate) struct Landed {
    pub region: u32,
    pub offset: u32,
    pub data: Vec<u8>,
    /// Combines each element into the array's instead of replacing it.
    pub combine: Option<CombineElement>,
}

impl AsyncState {
    /// Whether any copy is in flight (the access check's fast path).
    pub fn any_in_flight(&self) -> bool {
        !self.in_flight.is_empty()
    }

    /// The copy in flight into element `element` of `region`, if any.
    pub fn in_flight(&self, region: u32, element: u32) -> Option<(u32, Site)> {
        self.in_flight.get(&(region, element)).copied()
    }

    fn open_group(&mut self, thread: u32) -> u32 {
        let t = thread as usize;
        if self.groups.len() <= t {
            self.groups.resize(t + 1, 0);
        }
        self.groups[t]
    }

    /// A copy into bytes `offset..offset + data.len()` of `region`, whose
    /// elements are `elem_size` bytes.
    #[allow(clippy::too_many_arguments)]
    pub fn issue(
        &mut self,
        thread: u32,
        region: u32,
        offset: u32,
        data: Vec<u8>,
        elem_size: u32,
        site: Site,
        barrier: Option<(u32, u32)>,
    ) {
        let group = self.open_group(thread);
        let size = elem_size.max(1);
        let first = offset / size;
        let last = (offset + data.len() as u32).div_ceil(size);
        for e in first..last {
            self.in_flight.insert((region, e), (thread, site));
        }
        self.pending.push(Pending {
            thread,
            group,
            region,
            offset,
            data,
            elem_size: size,
            site,
            barrier,
            combine: None,
            from_block: 0,
        });
    }

    /// Closes `thread`'s open group; its number.
    pub fn commit(&mut self, thread: u32) -> u32 {
        let group = self.open_group(thread);
        self.groups[thread as usize] += 1;
        group
    }

    /// Lands `thread`'s copies of every committed group but its `keep`
    /// newest, and those of no barrier only.
    pub fn wait_groups(&mut self, thread: u32, keep: u32) -> Vec<Landed> {
        let committed = self.open_group(thread);
        let before = committed.saturating_sub(keep);
        self.land(|p| p.thread == thread && p.barrier.is_none() && p.group < before)
    }

    /// A copy still in flight (the first issued): its thread, region and
    /// site.
    pub fn first_pending(&self) -> Option<(u32, u32, Site)> {
        self.pending.first().map(|p| (p.thread, p.region, p.site))
    }

    /// Where a copy of `thread`'s group `group` that has not landed was
    /// started, if one has not.
    pub fn group_in_flight(&self, thread: u32, group: u32) -> Option<Site> {
        self.pending
            .iter()
            .find(|p| p.thread == thread && p.group == group)
            .map(|p| p.site)
    }

    fn land(&mut self, which: impl Fn(&Pending) -> bool) -> Vec<Landed> {
        let mut landed = Vec::new();
        let mut keep = Vec::with_capacity(self.pending.len());
        for p in self.pending.drain(..) {
            if which(&p) {
                let size = p.elem_size.max(1);
                let first = p.offset / size;
                let last = (p.offset + p.data.len() as u32).div_ceil(size);
                for e in first..last {
                    if self
                        .in_flight
                        .get(&(p.region, e))
                        .is_some_and(|&(t, s)| t == p.thread && core::ptr::eq(s, p.site))
                    {
                        self.in_flight.remove(&(p.region, e));
                    }
                }
                landed.push(Landed {
                    region: p.region,
                    offset: p.offset,
                    data: p.data,
                    combine: p.combine,
                });
            } else {
                keep.push(p);
            }
        }
        self.pending = keep;
        landed
    }

    /// `init` of the barrier at `key` for `count` arrivals a phase.
    pub fn init(&mut self, key: (u32, u32), count: u32) -> Result<(), AsyncError> {
        if !(1..1 << 20).contains(&count) {
            return Err(AsyncError::Barrier(format!(
                "an mbarrier expects 1 to 2^20 - 1 arrivals a phase, not {count}"
            )));
        }
        self.barriers.insert(
            key,
            Mbarrier {
                phase: 0,
                pending: count as i64,
                expected: count as i64,
                tx: 0,
            },
        );
        Ok(())
    }

    fn barrier(&mut self, key: (u32, u32)) -> Result<&mut Mbarrier, AsyncError> {
        self.barriers
            .get_mut(&key)
            .ok_or_else(|| AsyncError::Barrier("an mbarrier used before it was initialised".into()))
    }

    /// An arrival (with `bytes` more expected) on the barrier at `key`.
    pub fn arrive(&mut self, key: (u32, u32), bytes: u32) -> Result<(), AsyncError> {
        let b = self.barrier(key)?;
        b.tx += bytes as i64;
        b.pending -= 1;
        if b.pending < 0 {
            return Err(AsyncError::Barrier(format!(
                "more arrivals on an mbarrier in one phase than the {} it expects",
                b.expected
            )));
        }
        complete(b);
        Ok(())
    }

    /// A bulk copy completing `bytes` on `key`, whose current phase expects
    /// them from now on.
    #[allow(clippy::too_many_arguments)]
    pub fn bulk(
        &mut self,
        thread: u32,
        region: u32,
        offset: u32,
        data: Vec<u8>,
        elem_size: u32,
        site: Site,
        key: (u32, u32),
    ) -> Result<(), AsyncError> {
        self.barrier(key)?.tx += data.len() as i64;
        self.issue(thread, region, offset, data, elem_size, site, Some(key));
        Ok(())
    }

    /// `thread`'s copies in flight that complete on no barrier now
    /// complete on `key`: they land (and their bytes count) as a bulk
    /// copy's do.
    pub fn attach(&mut self, thread: u32, key: (u32, u32)) -> Result<(), AsyncError> {
        let mut bytes = 0i64;
        for p in &mut self.pending {
            if p.thread == thread && p.barrier.is_none() {
                p.barrier = Some(key);
                bytes += p.data.len() as i64;
            }
        }
        self.barrier(key)?.tx += bytes;
        Ok(())
    }

    /// Sets the counter at `key` to zero.
    pub fn counter_init(&mut self, key: (u32, u32)) {
        self.counters.insert(key, 0);
    }

    /// Adds one to the counter at `key`; its value before.
    pub fn count(&mut self, key: (u32, u32)) -> Result<u32, AsyncError> {
        let c = self.counters.get_mut(&key).ok_or_else(|| {
            AsyncError::Barrier("a release counter used before it was initialised".into())
        })?;
        let old = *c;
        *c = c.wrapping_add(1);
        Ok(old)
    }

    /// `expect_tx`: the current phase of the barrier at `key` expects
    /// `bytes` more bytes (no arrival).
    pub fn expect(&mut self, key: (u32, u32), bytes: u32) -> Result<(), AsyncError> {
        self.barrier(key)?.tx += bytes as i64;
        Ok(())
    }

    /// `complete_tx`: `bytes` of the phase's expected bytes came in by the
    /// threads' own stores.
    pub fn complete_bytes(&mut self, key: (u32, u32), bytes: u32) -> Result<(), AsyncError> {
        take_bytes(self.barrier(key)?, bytes as i64, "completed")
    }

    /// A copy of another block's copy engine (a multicast) landing in this
    /// block and completing its bytes on `key`, whose phase a thread of this
    /// block told to expect them.
    #[allow(clippy::too_many_arguments)]
    pub fn incoming(
        &mut self,
        thread: u32,
        region: u32,
        offset: u32,
        data: Vec<u8>,
        elem_size: u32,
        site: Site,
        key: (u32, u32),
    ) -> Result<(), AsyncError> {
        self.barrier(key)?;
        self.issue(thread, region, offset, data, elem_size, site, Some(key));
        Ok(())
    }

    /// As [`incoming`](Self::incoming), for a copy from another block's
    /// shared memory (a send into this block's inbox): with `combine`, its
    /// elements combine into the array's when it lands. Two copies that
    /// replace the same elements in one phase are refused, naming both
    /// (on a GPU the array would end as either).
    #[allow(clippy::too_many_arguments)]
    pub fn incoming_from_block(
        &mut self,
        (thread, from_block): (u32, u32),
        region: u32,
        data: Vec<u8>,
        elem_size: u32,
        site: Site,
        key: (u32, u32),
        combine: Option<CombineElement>,
    ) -> Result<(), AsyncError> {
        self.barrier(key)?;
        if combine.is_none()
            && let Some(other) = self
                .pending
                .iter()
                .find(|p| p.barrier == Some(key) && p.region == region)
        {
            return Err(AsyncError::Barrier(format!(
                "two arrays sent into the same inbox in one round: block {from_block} of \
                     the cluster sends at {site} where block {} sent at {}, and whole arrays \
                     land over each other. A copy inbox takes one array a round; combine \
                     several with `open_reduce`",
                other.from_block, other.site
            )));
        }
        self.issue(thread, region, 0, data, elem_size, site, Some(key));
        if let Some(p) = self.pending.last_mut() {
            p.combine = combine;
            p.from_block = from_block;
        }
        Ok(())
    }

    /// Lands the bulk copies that complete on `key` once the phase's
    /// arrivals are in (their bytes count), then tests the phase of parity
    /// `parity`.
    pub fn test(
        &mut self,
        key: (u32, u32),
        parity: u32,
    ) -> Result<(bool, Vec<Landed>), AsyncError> {
        let b = self.barrier(key)?;
        let landed = if b.pending == 0 {
            let landed = self.land(|p| p.barrier == Some(key));
            let bytes: i64 = landed.iter().map(|l| l.data.len() as i64).sum();
            take_bytes(self.barrier(key)?, bytes, "landed")?;
            landed
        } else {
            Vec::new()
        };
        let b = self.barrier(key)?;
        Ok(((b.phase + 1) & 1 == parity, landed))
    }
}

/// `bytes` of the phase's expected bytes have `how` ("landed",
/// "completed"): more than it expects is refused; the phase completes if
/// nothing else is pending.
fn take_bytes(b: &mut Mbarrier, bytes: i64, how: &str) -> Result<(), AsyncError> {
    b.tx -= bytes;
    if b.tx < 0 {
        return Err(AsyncError::Barrier(format!(
            "{} bytes more {how} on an mbarrier than its phase expected (more arrays sent \
             into an inbox than it was opened for?)",
            -b.tx
        )));
    }
    complete(b);
    Ok(())
}

/// Completes the barrier's phase while nothing is pending.
fn complete(b: &mut Mbarrier) {
    if b.pending == 0 && b.tx == 0 {
        b.phase += 1;
        b.pending = b.expected;
    }
}
