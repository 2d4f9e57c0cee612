//! Asynchronous copies from global into shared memory, and the shared
//! memory barriers (mbarriers) that say when they have landed.
//!
//! Two ways a copy completes:
//!
//! - per thread, in groups: each thread's copies since its last commit
//!   form a group; a wait leaves at most its `N` newest groups in flight.
//!   The copies land for the thread that issued them only: the block's
//!   other threads see them after a barrier. (`cp.async`, sm_80 and later.)
//! - on a barrier in shared memory: an mbarrier counts arrivals (and, for
//!   bulk copies, bytes); its phase completes when every expected arrival
//!   has come and every expected byte has landed, and a wait for that
//!   phase sees everything the arrivals released and the bulk copies
//!   wrote. (`mbarrier.*`, sm_80; `cp.async.bulk`, sm_90.)
//!
//! Every shared operand is an array's base and a byte offset into it; the
//! callers keep offsets in bounds and aligned as each operation says.

use super::{Rmw, SharedMemory, Site};
use crate::kernel::TensorMapData;

/// How the CPU backend combines one element of a tile (`tile`) into the
/// array's (`global`), as a bulk reduction's operation does: both point to
/// one element of the map's type.
pub(crate) type CombineElement = unsafe fn(global: *mut u8, tile: *const u8);

/// A bulk reduction's operation: the engine's (`op` on the element type
/// `kind`, a [`TensorElem::DATA_TYPE`](crate::memory::tensor::TensorElem::DATA_TYPE)
/// code) and the CPU backend's (`combine`).
#[derive(Clone, Copy)]
// Each build reads its own fields: the CPU backend `combine`, the GPU's
// sm_90 build `op` and `kind`, its sm_80 build none.
#[allow(dead_code)]
pub(crate) struct BulkCombine {
    pub op: Rmw,
    pub kind: u32,
    pub combine: CombineElement,
}

/// Asynchronous copies and mbarriers.
pub(crate) trait AsyncCopies: SharedMemory {
    /// Whether whole tiles move with the bulk-copy engine, one thread
    /// issuing a tile (sm_90: `cp.async.bulk`); otherwise every thread
    /// copies 16-byte chunks. The CPU backend says what an sm_90 GPU says.
    const BULK: bool;

    /// Starts copying `bytes` (4, 8 or 16) from the global address `src` to
    /// byte `offset` of the array at `dst`, as part of the calling thread's
    /// open group. PTX: `cp.async.ca.shared.global [dst], [src], bytes`
    /// (`.cg` for 16 bytes). Precondition: `src` and `dst + offset` aligned
    /// to `bytes`, both ranges inside their buffers. CPU: the bytes are
    /// read now and land when the thread waits for the group (or the
    /// barrier the group arrives on completes); until then the
    /// destination's elements are in flight, and any access to them is
    /// reported.
    fn copy_chunk(dst: Self::Base, offset: u32, src: *const u8, bytes: u32, site: Site);

    /// Closes the calling thread's open group of copies; returns its number
    /// on the CPU backend (0 on the GPU), which a later wait can check.
    /// PTX: `cp.async.commit_group`.
    fn commit_copies(site: Site) -> u32;

    /// Waits until the calling thread's copies of every group but its `N`
    /// newest have landed, for this thread. PTX: `cp.async.wait_group N`.
    /// CPU: lands them; with `group` (a number from `commit_copies`),
    /// reports the wait when that group is among the `N` newest, which it
    /// leaves in flight (`call` names the caller's method).
    fn wait_copies<const N: u32>(group: Option<u32>, call: &'static str, site: Site);

    /// Initialises the mbarrier at byte `offset` of `bars` for `count`
    /// arrivals a phase (1 to 2^20 - 1). PTX: `mbarrier.init.shared.b64`.
    /// Precondition: 8-byte aligned, not a live barrier; one thread calls
    /// it, and a block barrier follows before any other use. CPU: a new
    /// barrier in phase 0.
    fn barrier_init(bars: Self::Base, offset: u32, count: u32, site: Site);

    /// After the barriers' initialisation, before the block barrier that
    /// publishes it: makes the barriers visible to the asynchronous proxy
    /// (the bulk-copy engine). PTX (sm_90): `fence.mbarrier_init.release.cluster`
    /// and `fence.proxy.async.shared::cta`; before sm_90 nothing.
    fn barriers_initialized(site: Site);

    /// An arrival of the calling thread on the barrier (release at block
    /// scope: its earlier writes are seen by whoever waits for the phase).
    /// PTX: `mbarrier.arrive.shared.b64 _, [bar]`. CPU: the arrival; more
    /// arrivals than the barrier expects in a phase are reported.
    fn barrier_arrive(bars: Self::Base, offset: u32, site: Site);

    /// An arrival of the calling thread on the barrier at `offset` of
    /// `bars`, made once its copies issued so far have landed (one of the
    /// arrivals the phase expects: the phase cannot complete before them).
    /// PTX: `cp.async.mbarrier.arrive.noinc.shared.b64 [bar]`. (The form
    /// without `.noinc`, which adds an expected arrival of its own, followed
    /// by the thread's ordinary arrival, is what compute-sanitizer's
    /// synccheck reports as a missing wait, `cuda::pipeline`'s producers
    /// included; measured on an H200, chapter 11.) CPU: the arrival now; the
    /// copies land when a test of the barrier finds the phase's arrivals
    /// in, as a bulk copy's do.
    fn copies_arrive(bars: Self::Base, offset: u32, site: Site);

    /// Stores `value` in element `index` of the array at `base` for the
    /// threads that wait for the barrier at `bar` of `bars`: an ordinary
    /// store, which the calling thread's next arrival on the barrier
    /// releases (the caller's precondition: it arrives before anyone waits
    /// for the phase). PTX: `st.shared`. CPU: the value lands as a copy
    /// completing on the barrier does, so the threads that waited for the
    /// phase read it without a block barrier between.
    fn shared_store_on_barrier<E: crate::backend::elements::SharedElem>(
        base: Self::Base,
        index: u32,
        value: E,
        bars: Self::Base,
        bar: u32,
        site: Site,
    );

    /// Starts copying `bytes` (a multiple of 16) from global `src` to byte
    /// `offset` of `dst` with the bulk-copy engine, completing `bytes`
    /// bytes on the barrier at `bar` of `bars`, whose current phase is told
    /// to expect them first (no arrival). PTX (sm_90):
    /// `mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], bytes` then
    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`.
    /// Precondition: [`BULK`](Self::BULK); `src` and `dst + offset`
    /// 16-byte aligned; the phase cannot complete before the call (an
    /// arrival it expects is still to come). CPU: the bytes are read now
    /// and land when a test of the barrier finds the phase's arrivals in.
    fn bulk_copy(
        dst: Self::Base,
        offset: u32,
        src: *const u8,
        bytes: u32,
        bars: Self::Base,
        bar: u32,
        site: Site,
    );

    /// Whether the phase of parity `parity` (0 or 1) of the barrier has
    /// completed: true for the phase just completed, false for the current
    /// one; a successful test acquires what the phase's arrivals released
    /// and its copies wrote. PTX: `mbarrier.try_wait.parity.shared.b64`
    /// (sm_90), `mbarrier.test_wait.parity.shared.b64` (sm_80). CPU: lands
    /// the copies that complete on the barrier, then tests; a failed test
    /// is a poll the spin detection counts, so a wait nothing can end is
    /// reported.
    fn barrier_test(bars: Self::Base, offset: u32, parity: u32, site: Site) -> bool;

    /// Before a thread's first tensor copy with the map at `map` (in
    /// global memory, written by the host before the launch): makes the
    /// map's bytes visible to the copy engine's reads of it. PTX (sm_90):
    /// `fence.proxy.tensormap::generic.acquire.sys [map], 128`. CPU: nothing.
    fn tensor_map_acquire(map: *const TensorMapData, site: Site);

    /// Starts copying the tile at element coordinates `coords` (innermost
    /// first, `rank` of them) of the array the tensor map at `map`
    /// describes, `bytes` bytes, to byte `offset` of `dst`, completing on
    /// the barrier at `bar` of `bars`, whose current phase is told to
    /// expect the bytes first (no arrival). Elements of the tile outside
    /// the array land as the map's fill. PTX (sm_90):
    /// `mbarrier.expect_tx` then `cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes`.
    /// Precondition: [`BULK`](Self::BULK); `dst + offset` 128-byte aligned;
    /// `bytes` the map's tile; the phase held open as for
    /// [`bulk_copy`](Self::bulk_copy). CPU: the tile is gathered now and
    /// lands as a bulk copy does.
    #[allow(clippy::too_many_arguments)]
    fn tensor_copy(
        dst: Self::Base,
        offset: u32,
        map: *const TensorMapData,
        coords: [i32; 5],
        rank: u32,
        bytes: u32,
        bars: Self::Base,
        bar: u32,
        site: Site,
    );

    /// Tells the current phase of the barrier at `bar` of `bars` to expect
    /// `bytes` more bytes, which a copy issued elsewhere (a multicast by
    /// another block of the cluster) completes; no arrival. PTX (sm_90):
    /// `mbarrier.expect_tx.relaxed.cta.shared::cta.b64`. Precondition: the
    /// phase held open as for [`bulk_copy`](Self::bulk_copy). CPU: the
    /// phase's byte count grows.
    fn barrier_expect(bars: Self::Base, bar: u32, bytes: u32, site: Site);

    /// Completes `bytes` of the bytes the current phase of the barrier at
    /// `bar` of `bars` expects, as a copy landing would (no arrival): for
    /// bytes the block's threads wrote themselves, after a block barrier
    /// that follows their writes. PTX (sm_90):
    /// `mbarrier.complete_tx.relaxed.cta.shared::cta.b64`. Precondition: the
    /// phase expects at least `bytes` more. CPU: the phase's byte count
    /// falls by `bytes` (below zero is reported).
    fn barrier_complete(bars: Self::Base, bar: u32, bytes: u32, site: Site);

    /// Sets the 4-byte counter at byte `offset` of `bars` to zero. PTX:
    /// `st.shared.u32`. Precondition: one thread, before a cluster barrier
    /// that precedes every [`count_release`](Self::count_release) of it.
    /// CPU: a counter at zero.
    fn release_counter_init(bars: Self::Base, offset: u32, site: Site);

    /// Adds one to the counter at byte `offset` of `bars` in block `rank`
    /// of the cluster and returns its value before, acquiring and releasing
    /// at cluster scope: the thread that brings the count to a multiple of
    /// the cluster's blocks sees everything every other block's threads
    /// did before their own block's thread counted. PTX (sm_90): `mapa`,
    /// then `atom.acq_rel.cluster.shared::cluster.add.u32`. CPU: the count,
    /// in that block's state.
    fn count_release(bars: Self::Base, offset: u32, rank: u32, site: Site) -> u32;

    /// As [`tensor_copy`](Self::tensor_copy), landing the tile at byte
    /// `offset` of the same array in every block of the cluster whose bit
    /// is set in `blocks` (bit `r` for cluster rank `r`) and completing its
    /// bytes on the barrier at `bar` of `bars` in each of them; no barrier
    /// is told to expect them (each block's own thread does that, with
    /// [`barrier_expect`](Self::barrier_expect)). PTX (sm_90):
    /// `cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster`.
    /// Precondition: as for `tensor_copy`, in every block of `blocks`,
    /// whose destinations no thread reads or writes until the phase
    /// completes. CPU: the tile is gathered now and lands in each block as
    /// a bulk copy does.
    #[allow(clippy::too_many_arguments)]
    fn tensor_copy_multicast(
        dst: Self::Base,
        offset: u32,
        map: *const TensorMapData,
        coords: [i32; 5],
        rank: u32,
        bytes: u32,
        bars: Self::Base,
        bar: u32,
        blocks: u16,
        site: Site,
    );

    /// As [`bulk_copy`](Self::bulk_copy), landing the bytes at byte
    /// `offset` of the same array in every block of the cluster whose bit
    /// is set in `blocks`, completing them on the barrier at `bar` of
    /// `bars` in each, none of which is told to expect them here (see
    /// [`tensor_copy_multicast`](Self::tensor_copy_multicast)). PTX (sm_90):
    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster`.
    #[allow(clippy::too_many_arguments)]
    fn bulk_copy_multicast(
        dst: Self::Base,
        offset: u32,
        src: *const u8,
        bytes: u32,
        bars: Self::Base,
        bar: u32,
        blocks: u16,
        site: Site,
    );

    /// The calling block's part in load number `load` of a multicast
    /// pipeline whose barriers are in `bars`, among the blocks of the
    /// cluster whose bits are set in `members` (the caller's among them):
    /// what it loads, the tile at `coords` (innermost first, `rank` of
    /// them) of the tensor map at `source`, or with `rank` 0 the slice at
    /// `source` of `coords[0]` bytes (`coords[1]`: whether it fills).
    /// PTX: nothing. CPU: checks that every member names the same members
    /// and the same source in the same load, reporting both calls
    /// otherwise.
    fn multicast_call(
        bars: Self::Base,
        load: u32,
        source: usize,
        coords: [i32; 5],
        rank: u32,
        members: u16,
        site: Site,
    );

    /// Starts storing the tile at byte `offset` of `src` (the map's tile
    /// size) into the array the tensor map at `map` describes, at element
    /// coordinates `coords` (innermost first); elements of the tile outside
    /// the array are not written. The store joins the calling thread's
    /// bulk group. PTX (sm_90): `cp.async.bulk.tensor.{rank}d.global.shared::cta.tile.bulk_group`
    /// then `cp.async.bulk.commit_group`. Precondition: [`BULK`](Self::BULK);
    /// `src + offset` 128-byte aligned, its bytes written before through
    /// the copy engine or ordered for it by `fence.proxy.async`. CPU: the
    /// tile is written to the array now.
    fn tensor_store(
        src: Self::Base,
        offset: u32,
        map: *const TensorMapData,
        coords: [i32; 5],
        rank: u32,
        site: Site,
    );

    /// Combines the tile at byte `offset` of `src` into the array the
    /// tensor map at `map` describes, at element coordinates `coords`
    /// (innermost first), element by element with `op`, each element
    /// atomically; elements of the tile outside the array are left out. The
    /// reduction joins the calling thread's bulk group, as a store does.
    /// PTX (sm_90): `cp.reduce.async.bulk.tensor.{rank}d.global.shared::cta.{op}.tile.bulk_group`
    /// then `cp.async.bulk.commit_group`. Precondition: as for
    /// [`tensor_store`](Self::tensor_store); `op` is one the copy engine
    /// has (not `Exchange`), and `combine` does it to the map's element
    /// type. CPU: the tile is combined now, by `combine`.
    #[allow(clippy::too_many_arguments)]
    fn tensor_reduce(
        src: Self::Base,
        offset: u32,
        map: *const TensorMapData,
        coords: [i32; 5],
        rank: u32,
        op: Rmw,
        combine: CombineElement,
        site: Site,
    );

    /// Starts storing `bytes` bytes (a multiple of 16) from byte `offset`
    /// of `src` to element `first` onward of the kernel buffer at `buffer`,
    /// whose elements are `elem` bytes, with the bulk-copy engine; the store
    /// joins the calling thread's bulk group. PTX (sm_90):
    /// `cp.async.bulk.global.shared::cta.bulk_group` then
    /// `cp.async.bulk.commit_group`. Precondition: [`BULK`](Self::BULK);
    /// source and destination 16-byte aligned, the destination inside the
    /// buffer, the source's bytes ordered for the copy engine. CPU: the
    /// bytes are written now, each element read from shared memory as the
    /// calling thread and recorded as its write of the buffer.
    #[allow(clippy::too_many_arguments)]
    fn bulk_store(
        src: Self::Base,
        offset: u32,
        buffer: *mut u8,
        first: usize,
        bytes: u32,
        elem: u32,
        site: Site,
    );

    /// As [`bulk_store`](Self::bulk_store), combining each element into the
    /// buffer's with `op` atomically: the engine's `kind` is the element's
    /// type (a [`TensorElem::DATA_TYPE`](crate::memory::tensor::TensorElem::DATA_TYPE)
    /// code). PTX (sm_90): `cp.reduce.async.bulk.global.shared::cta.bulk_group.{op}.{type}`
    /// then `cp.async.bulk.commit_group`. Precondition: as for
    /// `bulk_store`; `op` and `kind` a pair the engine has (`BulkReduce`'s),
    /// `combine` doing `op` to that type. CPU: each element combined now,
    /// recorded as an atomic update of the buffer.
    #[allow(clippy::too_many_arguments)]
    fn bulk_reduce(
        src: Self::Base,
        offset: u32,
        buffer: *mut u8,
        first: usize,
        bytes: u32,
        elem: u32,
        op: Rmw,
        kind: u32,
        combine: CombineElement,
        site: Site,
    );

    /// Starts copying `bytes` (a multiple of 16) from the array at `src` to
    /// the array at `dst` in block `rank` of the cluster (`dst`, `bars`:
    /// this block's addresses of arrays every block has at the same
    /// offsets), completing the bytes on the barrier at `bar` of `bars`
    /// there, whose phase a thread of that block told to expect them. With
    /// `reduce`, each element is combined into the destination's with the
    /// engine's operation instead of replacing it. PTX (sm_90): `mapa` of
    /// both addresses, then
    /// `cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes`
    /// (`cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.{op}.{type}`).
    /// Precondition: [`BULK`](Self::BULK); both arrays 16-byte aligned and
    /// at least `bytes` long; `src`'s bytes ordered for the copy engine
    /// (`fence.proxy.async`) and left unwritten until the destination's
    /// phase completes; `rank` a block of the cluster; with `reduce`, a
    /// pair of operation and element type the engine has for shared
    /// destinations (`ClusterReduce`'s), the destination's elements
    /// written before through the copy engine or ordered for it. CPU: the
    /// source's elements are read now, as the calling thread's reads, and
    /// land (or combine, by `reduce`'s function) in that block when a test
    /// of its barrier finds the phase's arrivals in.
    #[allow(clippy::too_many_arguments)]
    fn bulk_to_block(
        dst: Self::Base,
        rank: u32,
        src: Self::Base,
        bytes: u32,
        bars: Self::Base,
        bar: u32,
        reduce: Option<BulkCombine>,
        site: Site,
    );

    /// After the calling thread's last write to shared memory that a tensor
    /// store or reduction will read, before the block barrier that lets the
    /// issuing thread start it: orders the thread's writes before the copy
    /// engine's reads. PTX (sm_90): `fence.proxy.async.shared::cta`. CPU:
    /// nothing (the barrier orders them).
    fn shared_writes_to_copy_engine(site: Site);

    /// Waits until the calling thread's tensor stores have read their
    /// shared source (the source may then be overwritten; the global writes
    /// may still be landing). PTX: `cp.async.bulk.wait_group.read 0`. CPU:
    /// nothing (stores complete when issued).
    fn tensor_stores_read(site: Site);
}
