//! Asynchronous copies on the CPU: the source is read when a copy is
//! issued, and the bytes land at the copy's completion point (the issuing
//! thread's wait for its group, or a test of the barrier it completes on);
//! until then the destination is in flight, and touching it is reported.

use super::super::engine::async_state::AsyncError;
use super::super::engine::lane;
use super::super::engine::shared_state::SharedBase;
use super::super::Cpu;
use crate::backend::{AsyncCopies, Site};

/// The source's `bytes` bytes.
fn snapshot(src: *const u8, bytes: u32) -> Vec<u8> {
    let mut data = vec![0u8; bytes as usize];
    // SAFETY: the handles that issue copies pass a source range inside a
    // kernel buffer (checked against its length before the issue).
    unsafe { core::ptr::copy_nonoverlapping(src, data.as_mut_ptr(), bytes as usize) };
    data
}

fn fail(e: AsyncError, site: Site) -> ! {
    match e {
        AsyncError::Barrier(what) => lane::fail_at(format!("coop: {what} (at {site})"), site),
    }
}

impl AsyncCopies for Cpu {
    // The CPU backend emulates an sm_90 device.
    const BULK: bool = true;

    fn copy_chunk(dst: SharedBase, offset: u32, src: *const u8, bytes: u32, site: Site) {
        let data = snapshot(src, bytes);
        let thread = lane::step(site, |l| l.rank);
        lane::block_shared(|s| {
            let size = s.elem_size(dst.region);
            s.asynchronous
                .issue(thread, dst.region, offset, data, size, site, None)
        });
    }

    fn commit_copies(site: Site) -> u32 {
        let thread = lane::step(site, |l| l.rank);
        lane::block_shared(|s| s.asynchronous.commit(thread))
    }

    fn wait_copies<const N: u32>(group: Option<u32>, call: &'static str, site: Site) {
        let thread = lane::step(site, |l| l.rank);
        let still = lane::block_shared(|s| {
            let landed = s.asynchronous.wait_groups(thread, N);
            s.land(landed);
            group.and_then(|g| s.asynchronous.group_in_flight(thread, g))
        });
        if let Some(copy_site) = still {
            lane::fail_at(
                format!(
                    "coop: `{call}` at {site} leaves the copy started at {copy_site} in flight: \
                     it is among the {N} newest groups of copies this thread started, which the \
                     wait does not wait for. Wait with a smaller count, or for the copies in \
                     the order they were started"
                ),
                site,
            );
        }
    }

    fn barrier_init(bars: SharedBase, offset: u32, count: u32, site: Site) {
        lane::step(site, |_| ());
        if let Err(e) = lane::block_shared(|s| s.asynchronous.init((bars.region, offset), count)) {
            fail(e, site)
        }
    }

    fn barriers_initialized(_site: Site) {}

    fn barrier_arrive(bars: SharedBase, offset: u32, site: Site) {
        lane::step(site, |_| ());
        if let Err(e) = lane::block_shared(|s| s.asynchronous.arrive((bars.region, offset), 0)) {
            fail(e, site)
        }
        lane::note_modified(false);
    }

    fn bulk_copy(
        dst: SharedBase,
        offset: u32,
        src: *const u8,
        bytes: u32,
        bars: SharedBase,
        bar: u32,
        site: Site,
    ) {
        let data = snapshot(src, bytes);
        let thread = lane::step(site, |l| l.rank);
        if let Err(e) = lane::block_shared(|s| {
            let size = s.elem_size(dst.region);
            s.asynchronous.bulk(
                thread,
                dst.region,
                offset,
                data,
                size,
                site,
                (bars.region, bar),
            )
        }) {
            fail(e, site)
        }
        lane::note_modified(false);
    }

    fn barrier_test(bars: SharedBase, offset: u32, parity: u32, site: Site) -> bool {
        lane::step(site, |_| ());
        let tested = lane::block_shared(|s| {
            let (done, landed) = s.asynchronous.test((bars.region, offset), parity)?;
            let any = !landed.is_empty();
            s.land(landed);
            Ok((done, any))
        });
        match tested {
            Ok((done, landed)) => {
                if landed {
                    lane::note_modified(false);
                }
                if !done {
                    lane::poll(bars.region, offset, site);
                }
                done
            }
            Err(e) => fail(e, site),
        }
    }
}
