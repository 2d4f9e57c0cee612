//! Asynchronous copies on the CPU: the source is read when a copy is
//! issued, and the bytes land at the copy's completion point (the issuing
//! thread's wait for its group, or a test of the barrier it completes on);
//! until then the destination is in flight, and touching it is reported.

use super::super::Cpu;
use super::super::engine::async_state::AsyncError;
use super::super::engine::lane;
use super::super::engine::shared_state::{MulticastCall, SharedBase};
use super::super::report::AccessKind;
use crate::backend::Rmw;
use crate::backend::async_copies::{BulkCombine, CombineElement};
use crate::backend::{AsyncCopies, Site};
use crate::kernel::{CpuTensorLayout, TensorMapData, swizzle_offset};

/// The source's `bytes` bytes.
fn snapshot(src: *const u8, bytes: u32) -> Vec<u8> {
    let mut data = vec![0u8; bytes as usize];
    // SAFETY: the handles that issue copies pass a source range inside a
    // kernel buffer (checked against its length before the issue).
    unsafe { core::ptr::copy_nonoverlapping(src, data.as_mut_ptr(), bytes as usize) };
    data
}

/// Calls `each` for every element of the tile at `coords` (innermost
/// first) of the array `layout` describes, innermost fastest, with the
/// element's address, or `None` where it lies outside the array.
fn each_tile_element(
    layout: &CpuTensorLayout,
    coords: [i32; 5],
    mut each: impl FnMut(Option<u64>),
) {
    let [b0, b1, b2, b3, b4] = layout.boxes.map(|b| b as usize);
    for i4 in 0..b4 {
        for i3 in 0..b3 {
            for i2 in 0..b2 {
                for i1 in 0..b1 {
                    for i0 in 0..b0 {
                        let at = [i0, i1, i2, i3, i4];
                        let mut address = Some(layout.data);
                        for k in 0..layout.rank as usize {
                            let g = coords[k] as i64 + at[k] as i64;
                            address = match address {
                                Some(a) if g >= 0 && (g as u64) < layout.dims[k] => {
                                    Some(a + g as u64 * layout.strides[k])
                                }
                                _ => None,
                            };
                        }
                        each(address);
                    }
                }
            }
        }
    }
}

/// The work of a tensor store or reduction from the tile at byte `offset`
/// of `src` into the array of the map at `map`, at `coords`: checks the
/// map's rank, then calls `each(tile element, global element, bytes)` for
/// every element of the tile inside the array, after reading it from
/// shared memory as the issuing thread (so that an element no thread
/// wrote, or one still written, is reported at the call). `each` gets
/// pointers to one element each, valid for `bytes` bytes: the global one
/// in the buffer the map borrows exclusively for the launch.
fn tile_out(
    src: SharedBase,
    offset: u32,
    map: *const TensorMapData,
    coords: [i32; 5],
    rank: u32,
    site: Site,
    mut each: impl FnMut(*const u8, *mut u8, usize),
) {
    lane::step(site, |_| ());
    // SAFETY: the launch passed the address of a map the host built for the
    // CPU backend from an exclusive borrow of the array.
    let layout = unsafe { (*map).cpu_layout() };
    if layout.rank != rank {
        lane::fail_at(
            format!(
                "coop: the tensor map passed at this launch has {} dimensions, where the \
                 kernel's store at {site} has {rank}",
                layout.rank
            ),
            site,
        );
    }
    let elem = layout.elem as usize;
    let first = offset / layout.elem;
    // SAFETY: the source is a whole tile of the map's inside the shared
    // array (the caller's layout), not being written.
    let tile = unsafe { src.ptr.add(offset as usize) } as *const u8;
    let mut e = 0usize;
    each_tile_element(&layout, coords, |address| {
        if let Some(a) = address {
            // Where the element lies in a swizzled stage.
            let at = swizzle_offset(offset + (e * elem) as u32, layout.swizzle) - offset;
            let at = at as usize / elem;
            lane::shared_access(src.region, first + at as u32, AccessKind::Read, site);
            // SAFETY: `at` numbers one of the tile's elements; the host
            // checked that every element the sizes and strides reach lies
            // in the buffer.
            each(unsafe { tile.add(at * elem) }, a as usize as *mut u8, elem);
        }
        e += 1;
    });
}

/// The tile at `coords` (innermost first) of the array `layout`
/// describes, element by element, innermost fastest; elements outside the
/// array are zeros or NaN, as the map says.
fn gather_tile(layout: &CpuTensorLayout, coords: [i32; 5]) -> Vec<u8> {
    let elem = layout.elem as usize;
    let fill: [u8; 8] = match (layout.nan_fill != 0, elem) {
        (true, 4) => {
            let mut f = [0u8; 8];
            f[..4].copy_from_slice(&f32::NAN.to_ne_bytes());
            f
        }
        (true, 8) => f64::NAN.to_ne_bytes(),
        _ => [0; 8],
    };
    let mut data = Vec::new();
    each_tile_element(layout, coords, |address| match address {
        // SAFETY: the host checked that every element inside the array's
        // sizes and strides lies in the buffer the map borrows.
        Some(a) => data.extend_from_slice(unsafe {
            core::slice::from_raw_parts(a as usize as *const u8, elem)
        }),
        None => data.extend_from_slice(&fill[..elem]),
    });
    data
}

/// The work of a bulk store or reduction of `bytes` bytes from byte
/// `offset` of `src` into element `first` onward of the buffer at `buffer`
/// (elements of `elem` bytes): for each element, reads it from shared
/// memory as the calling thread (an element no thread wrote is reported),
/// records the buffer's element as the thread's write (or, with `atomic`,
/// its atomic update), then calls `each(shared element, buffer element,
/// elem)`, both valid for `elem` bytes.
#[allow(clippy::too_many_arguments)]
fn bulk_out(
    src: SharedBase,
    offset: u32,
    buffer: *mut u8,
    first: usize,
    bytes: u32,
    elem: u32,
    atomic: bool,
    site: Site,
    mut each: impl FnMut(*const u8, *mut u8, usize),
) {
    let size = elem.max(1);
    let first_shared = offset / size;
    for e in 0..bytes / size {
        lane::shared_access(src.region, first_shared + e, AccessKind::Read, site);
        let index = first + e as usize;
        let access = atomic.then_some(lane::AtomicAccess {
            block_scope: false,
            cluster_scope: false,
            acquire: false,
            release: false,
            op: crate::backend::AtomicOp::Update,
        });
        let kind = if atomic {
            AccessKind::Atomic
        } else {
            AccessKind::Write
        };
        lane::global_access(buffer as usize, index, kind, access, site);
        // SAFETY: the handle checked that the elements lie inside the shared
        // array and the buffer (which the launch lends for writing).
        unsafe {
            each(
                src.ptr.add((offset + e * size) as usize),
                buffer.add(index * size as usize),
                size as usize,
            )
        };
    }
}

/// The tile's bytes `data` (row-major) as the copy engine's swizzle of
/// `span` bytes (0: none) lays them out at byte `offset` of a region
/// aligned to the swizzle's period: 16-byte chunks trade places within
/// their row.
fn swizzle_tile(data: Vec<u8>, offset: u32, span: u32) -> Vec<u8> {
    if span == 0 {
        return data;
    }
    let mut out = vec![0u8; data.len()];
    for (c, chunk) in data.chunks(16).enumerate() {
        let at = (swizzle_offset(offset + 16 * c as u32, span) - offset) as usize;
        out[at..at + chunk.len()].copy_from_slice(chunk);
    }
    out
}

/// The tile at `coords` of the map at `map`, as it lands at byte `offset`
/// of a ring (swizzled where the map says), after checking that the map
/// has `rank` dimensions and tiles of `bytes` bytes, as the kernel's copy
/// at `site` expects.
fn checked_tile(
    map: *const TensorMapData,
    coords: [i32; 5],
    rank: u32,
    bytes: u32,
    offset: u32,
    site: Site,
) -> Vec<u8> {
    // SAFETY: the launch passed the address of a map the host built for the
    // CPU backend, borrowed for the launch.
    let layout = unsafe { (*map).cpu_layout() };
    let tile = layout.boxes.iter().map(|&b| b as u64).product::<u64>() * layout.elem as u64;
    if layout.rank != rank || tile != bytes as u64 {
        lane::fail_at(
            format!(
                "coop: the tensor map passed at this launch describes tiles of {tile} bytes in \
                 {} dimensions, where the kernel's copy at {site} expects {bytes} bytes in {rank}",
                layout.rank
            ),
            site,
        );
    }
    swizzle_tile(gather_tile(&layout, coords), offset, layout.swizzle)
}

/// The blocks of a multicast's members, as `[0, 2]`.
fn blocks_list(members: u16) -> String {
    let ranks: Vec<u32> = (0..16).filter(|r| members & (1 << r) != 0).collect();
    format!("{ranks:?}")
}

/// Lands `data` at byte `offset` of `dst` in every block of the cluster
/// whose bit is set in `blocks`, completing on the barrier at `bar` of
/// `bars` there: a multicast by the calling thread's copy engine.
fn multicast(
    dst: SharedBase,
    offset: u32,
    data: Vec<u8>,
    (bars, bar): (SharedBase, u32),
    blocks: u16,
    site: Site,
) {
    let thread = lane::step(site, |l| l.rank);
    for r in 0..16u32 {
        if blocks & (1 << r) == 0 {
            continue;
        }
        let issued = lane::cluster_block_shared(r, site, |s| {
            let size = s.elem_size(dst.region);
            s.note_write();
            s.asynchronous.incoming(
                thread,
                dst.region,
                offset,
                data.clone(),
                size,
                site,
                (bars.region, bar),
            )
        });
        if let Err(e) = issued {
            fail(e, site)
        }
    }
    lane::note_modified(true);
}

/// Issues the calling thread's bulk copy of `data` to byte `offset` of
/// `dst`, completing on the barrier at byte `bar` of `bars`.
fn issue_bulk(
    dst: SharedBase,
    offset: u32,
    data: Vec<u8>,
    (bars, bar): (SharedBase, u32),
    site: Site,
) {
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

/// `combine(global, tile)` as one atomic step, as the copy engine's
/// reductions combine each element: blocks that run on other host threads
/// may combine into the same element at the same time, so a 4- or 8-byte
/// element is combined into a copy and swapped in if nothing changed it
/// meanwhile (the engine has no reductions of narrower elements).
///
/// # Safety
///
/// `global` points to one element of `bytes` bytes that other threads
/// change only through this function or atomics, aligned to its size;
/// `tile` to one element of the same type; `combine` combines that type.
unsafe fn combine_atomically(
    global: *mut u8,
    tile: *const u8,
    bytes: usize,
    combine: CombineElement,
) {
    use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};
    macro_rules! swap_in {
        ($atomic:ty) => {{
            // SAFETY: the caller's: an aligned element of this width.
            let element = unsafe { &*(global as *const $atomic) };
            let mut old = element.load(Ordering::Relaxed);
            loop {
                let mut new = old;
                // SAFETY: `new` is a copy of the element; `tile` the
                // caller's.
                unsafe { combine(&mut new as *mut _ as *mut u8, tile) };
                match element.compare_exchange_weak(old, new, Ordering::AcqRel, Ordering::Relaxed) {
                    Ok(_) => break,
                    Err(now) => old = now,
                }
            }
        }};
    }
    match bytes {
        4 => swap_in!(AtomicU32),
        8 => swap_in!(AtomicU64),
        // SAFETY: the caller's.
        _ => unsafe { combine(global, tile) },
    }
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

    fn copies_arrive(bars: SharedBase, offset: u32, site: Site) {
        let thread = lane::step(site, |l| l.rank);
        let key = (bars.region, offset);
        if let Err(e) = lane::block_shared(|s| {
            s.asynchronous.attach(thread, key)?;
            s.asynchronous.arrive(key, 0)
        }) {
            fail(e, site)
        }
        lane::note_modified(false);
    }

    fn shared_store_on_barrier<E: crate::backend::elements::SharedElem>(
        base: SharedBase,
        index: u32,
        value: E,
        bars: SharedBase,
        bar: u32,
        site: Site,
    ) {
        let size = core::mem::size_of::<E>();
        let data = snapshot(&value as *const E as *const u8, size as u32);
        issue_bulk(base, index * size as u32, data, (bars, bar), site);
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
        issue_bulk(dst, offset, data, (bars, bar), site);
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

    fn tensor_map_acquire(_map: *const TensorMapData, site: Site) {
        lane::step(site, |_| ());
    }

    fn tensor_copy(
        dst: SharedBase,
        offset: u32,
        map: *const TensorMapData,
        coords: [i32; 5],
        rank: u32,
        bytes: u32,
        bars: SharedBase,
        bar: u32,
        site: Site,
    ) {
        let data = checked_tile(map, coords, rank, bytes, offset, site);
        issue_bulk(dst, offset, data, (bars, bar), site);
    }

    fn bulk_store(
        src: SharedBase,
        offset: u32,
        buffer: *mut u8,
        first: usize,
        bytes: u32,
        elem: u32,
        site: Site,
    ) {
        bulk_out(
            src,
            offset,
            buffer,
            first,
            bytes,
            elem,
            false,
            site,
            |s, d, n| {
                // SAFETY: `bulk_out`'s contract.
                unsafe { core::ptr::copy_nonoverlapping(s, d, n) }
            },
        );
    }

    fn bulk_reduce(
        src: SharedBase,
        offset: u32,
        buffer: *mut u8,
        first: usize,
        bytes: u32,
        elem: u32,
        _op: Rmw,
        _kind: u32,
        combine: CombineElement,
        site: Site,
    ) {
        bulk_out(
            src,
            offset,
            buffer,
            first,
            bytes,
            elem,
            true,
            site,
            |s, d, size| {
                // SAFETY: `bulk_out`'s contract: one element each.
                unsafe { combine_atomically(d, s, size, combine) }
            },
        );
        lane::note_modified(true);
    }

    fn multicast_call(
        bars: SharedBase,
        load: u32,
        source: usize,
        coords: [i32; 5],
        rank: u32,
        members: u16,
        site: Site,
    ) {
        let me = lane::info(|l| {
            let c = l.cluster_dim;
            let b = l.block;
            c.linearize_u32(crate::Dim3::new(b.x % c.x, b.y % c.y, b.z % c.z))
        });
        let call = MulticastCall {
            source,
            coords,
            members,
            block: me,
            site,
            calls: 1,
        };
        // Kept in the members' first block, where their releases are
        // counted: groups of one ring with other members keep theirs apart.
        let leader = members.trailing_zeros();
        let first = lane::cluster_block_shared(leader, site, |s| {
            match s.multicasts.get_mut(&(bars.region, load)) {
                None => {
                    s.multicasts.insert((bars.region, load), call);
                    None
                }
                Some(first) => {
                    let before = *first;
                    first.calls += 1;
                    if first.calls == first.members.count_ones() {
                        s.multicasts.remove(&(bars.region, load));
                    }
                    Some(before)
                }
            }
        });
        let Some(first) = first else { return };
        if first.members != call.members {
            lane::fail_at(
                format!(
                    "coop: block {me} of the cluster multicasts to blocks {} at {site}, in the \
                     multicast load (number {load} of the pipeline) that block {} made to blocks \
                     {} at {}: the blocks of a group name the same members \
                     (`Pipeline::start_multicast_among`), each tile landing in all of them",
                    blocks_list(call.members),
                    first.block,
                    blocks_list(first.members),
                    first.site
                ),
                site,
            );
        }
        if first.source == call.source && first.coords == call.coords {
            return;
        }
        let outer_first = |c: [i32; 5]| {
            let mut v = c[..rank as usize].to_vec();
            v.reverse();
            v
        };
        let what = if rank == 0 {
            format!(
                "{} bytes from {:#x} where block {} loads {} bytes from {:#x}",
                call.coords[0], call.source, first.block, first.coords[0], first.source
            )
        } else if first.source != call.source {
            format!(
                "a tile of a different tensor map than block {} loads",
                first.block
            )
        } else {
            format!(
                "the tile at {:?} where block {} loads the one at {:?}",
                outer_first(call.coords),
                first.block,
                outer_first(first.coords)
            )
        };
        lane::fail_at(
            format!(
                "coop: block {me} of the cluster loads {what} at {site}, in the multicast load \
                 (number {load} of the pipeline) that block {} made at {}: a multicast load is \
                 one copy into every block it lands in, so every one of them names the same \
                 source in the same load",
                first.block, first.site
            ),
            site,
        );
    }

    fn barrier_expect(bars: SharedBase, bar: u32, bytes: u32, site: Site) {
        lane::step(site, |_| ());
        if let Err(e) = lane::block_shared(|s| s.asynchronous.expect((bars.region, bar), bytes)) {
            fail(e, site)
        }
    }

    fn release_counter_init(bars: SharedBase, offset: u32, site: Site) {
        lane::step(site, |_| ());
        lane::block_shared(|s| s.asynchronous.counter_init((bars.region, offset)));
    }

    fn count_release(bars: SharedBase, offset: u32, rank: u32, site: Site) -> u32 {
        let old = lane::cluster_block_shared(rank, site, |s| {
            s.note_write();
            s.asynchronous.count((bars.region, offset))
        });
        lane::note_modified(true);
        match old {
            Ok(old) => old,
            Err(e) => fail(e, site),
        }
    }

    fn tensor_copy_multicast(
        dst: SharedBase,
        offset: u32,
        map: *const TensorMapData,
        coords: [i32; 5],
        rank: u32,
        bytes: u32,
        bars: SharedBase,
        bar: u32,
        blocks: u16,
        site: Site,
    ) {
        let data = checked_tile(map, coords, rank, bytes, offset, site);
        multicast(dst, offset, data, (bars, bar), blocks, site);
    }

    fn bulk_copy_multicast(
        dst: SharedBase,
        offset: u32,
        src: *const u8,
        bytes: u32,
        bars: SharedBase,
        bar: u32,
        blocks: u16,
        site: Site,
    ) {
        multicast(dst, offset, snapshot(src, bytes), (bars, bar), blocks, site);
    }

    fn barrier_complete(bars: SharedBase, bar: u32, bytes: u32, site: Site) {
        lane::step(site, |_| ());
        if let Err(e) =
            lane::block_shared(|s| s.asynchronous.complete_bytes((bars.region, bar), bytes))
        {
            fail(e, site)
        }
        lane::note_modified(false);
    }

    fn bulk_to_block(
        dst: SharedBase,
        rank: u32,
        src: SharedBase,
        bytes: u32,
        bars: SharedBase,
        bar: u32,
        reduce: Option<BulkCombine>,
        site: Site,
    ) {
        let thread = lane::step(site, |l| l.rank);
        let size = lane::block_shared(|s| s.elem_size(src.region)).max(1);
        for e in 0..bytes / size {
            lane::shared_access(src.region, e, AccessKind::Read, site);
        }
        let data = snapshot(src.ptr, bytes);
        let combine = reduce.map(|r| r.combine);
        let me = lane::info(|l| {
            let c = l.cluster_dim;
            let b = l.block;
            c.linearize_u32(crate::Dim3::new(b.x % c.x, b.y % c.y, b.z % c.z))
        });
        let issued = lane::cluster_block_shared(rank, site, |s| {
            let size = s.elem_size(dst.region);
            s.note_write();
            s.asynchronous.incoming_from_block(
                (thread, me),
                dst.region,
                data,
                size,
                site,
                (bars.region, bar),
                combine,
            )
        });
        if let Err(e) = issued {
            fail(e, site)
        }
        lane::note_modified(true);
    }

    fn tensor_store(
        src: SharedBase,
        offset: u32,
        map: *const TensorMapData,
        coords: [i32; 5],
        rank: u32,
        site: Site,
    ) {
        tile_out(
            src,
            offset,
            map,
            coords,
            rank,
            site,
            |tile, global, elem| {
                // SAFETY: `tile_out`'s contract.
                unsafe { core::ptr::copy_nonoverlapping(tile, global, elem) }
            },
        );
    }

    fn tensor_reduce(
        src: SharedBase,
        offset: u32,
        map: *const TensorMapData,
        coords: [i32; 5],
        rank: u32,
        _op: Rmw,
        combine: CombineElement,
        site: Site,
    ) {
        tile_out(
            src,
            offset,
            map,
            coords,
            rank,
            site,
            |tile, global, size| {
                // SAFETY: `tile_out`'s contract: one element of the map's type
                // each, which `combine` was made for.
                unsafe { combine_atomically(global, tile, size, combine) }
            },
        );
        lane::note_modified(false);
    }

    fn shared_writes_to_copy_engine(site: Site) {
        lane::step(site, |_| ());
    }

    fn tensor_stores_read(site: Site) {
        lane::step(site, |_| ());
    }
}
