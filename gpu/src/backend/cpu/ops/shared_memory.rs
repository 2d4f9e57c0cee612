//! Shared arrays on the CPU: each block's copy of every array, bound by
//! name, and loads and stores that the race detector and the bank model see
//! first.

use super::super::Cpu;
use super::super::engine::lane;
use super::super::engine::shared_state::SharedBase;
use super::super::report::AccessKind;
use super::atomics;
use crate::backend::elements::SharedElem;
use crate::backend::{ElemShape, Rmw, SharedMemory, Site, Word};

/// Nothing to declare on the CPU: each block allocates its arrays when its
/// threads first bind them (`#[kernel]` expands to this macro).
#[doc(hidden)]
#[macro_export]
macro_rules! __coop_declare_static_shared_cpu {
    ($symbol:literal, $param:ty) => {};
}

/// The running block's copy of the static array `$key` (named `$name` in
/// diagnostics), an expression `#[kernel]` expands to once per thread.
#[doc(hidden)]
#[macro_export]
macro_rules! __coop_bind_static_shared_cpu {
    ($symbol:literal, $key:literal, $name:literal, $param:ty) => {
        // SAFETY: bound once per thread, inside a CPU launch.
        unsafe { <$param as ::coop::shared::SharedParam>::__bind_static(($key, $name)) }
    };
}

impl SharedMemory for Cpu {
    type Base = SharedBase;
    type StaticBinding = (&'static str, &'static str);

    fn static_shared(
        (key, name): (&'static str, &'static str),
        bytes: usize,
        align: usize,
        shape: ElemShape,
        site: Site,
    ) -> SharedBase {
        lane::step(site, |_| ());
        lane::block_shared(|s| s.bind(key, name, Some(bytes as u32), align as u32, shape))
    }

    fn dynamic_shared(name: &'static str, shape: ElemShape, site: Site) -> (SharedBase, u32) {
        let bytes = lane::step(site, |l| l.dynamic_shared);
        let base = lane::block_shared(|s| s.bind("coop:dynamic", name, None, 16, shape));
        (base, bytes)
    }

    fn shared_load<E: SharedElem>(base: SharedBase, index: u32, site: Site) -> E {
        lane::shared_access(base.region, index, AccessKind::Read, site);
        // SAFETY: the phase handles bounds-check `index`; the region is
        // 16-byte aligned and holds whole elements.
        unsafe { (base.ptr as *const E).add(index as usize).read() }
    }

    fn shared_store<E: SharedElem>(base: SharedBase, index: u32, value: E, site: Site) {
        lane::shared_access(base.region, index, AccessKind::Write, site);
        // SAFETY: as for `shared_load`.
        unsafe { (base.ptr as *mut E).add(index as usize).write(value) }
    }

    fn shared_atomic_rmw(
        base: SharedBase,
        index: u32,
        word: Word,
        op: Rmw,
        value: u64,
        site: Site,
    ) -> u64 {
        lane::shared_access(base.region, index, AccessKind::Atomic, site);
        // SAFETY: as for `shared_load`; the element is of `word`'s width.
        let old = unsafe { atomics::rmw(element(base, index, word), word, op, value) };
        if atomics::apply(word, op, old, value) != old {
            lane::note_modified(false);
        }
        old
    }

    fn shared_atomic_reduce(
        base: SharedBase,
        index: u32,
        word: Word,
        op: Rmw,
        value: u64,
        site: Site,
    ) {
        Self::shared_atomic_rmw(base, index, word, op, value, site);
    }

    fn shared_load_remote<E: SharedElem>(base: SharedBase, index: u32, rank: u32, site: Site) -> E {
        let ptr = lane::remote_shared(base.region, base.ptr, rank, site);
        // SAFETY: the phase handles bounds-check `index`; the peer's region
        // is the same array, of whole elements, alive until the launch ends.
        unsafe { (ptr as *const E).add(index as usize).read() }
    }

    fn shared_store_remote<E: SharedElem>(
        base: SharedBase,
        index: u32,
        rank: u32,
        value: E,
        site: Site,
    ) {
        let ptr = lane::remote_store(base.region, base.ptr, rank, index, site);
        // SAFETY: as for `shared_load_remote`.
        unsafe { (ptr as *mut E).add(index as usize).write(value) }
    }

    fn shared_add_remote(
        base: SharedBase,
        index: u32,
        rank: u32,
        word: Word,
        value: u64,
        site: Site,
    ) {
        let ptr = lane::remote_add(base.region, base.ptr, rank, index, site);
        let size = if word.wide() { 8 } else { 4 };
        // SAFETY: as above; the element is of `word`'s width. One host
        // thread runs a cluster's blocks, so the update is not torn.
        unsafe { atomics::rmw(ptr.add(index as usize * size), word, Rmw::Add, value) };
    }

    fn shared_atomic_cas(
        base: SharedBase,
        index: u32,
        word: Word,
        expected: u64,
        new: u64,
        site: Site,
    ) -> u64 {
        lane::shared_access(base.region, index, AccessKind::Atomic, site);
        // SAFETY: as for `shared_atomic_rmw`.
        let old = unsafe { atomics::cas(element(base, index, word), word, expected, new) };
        let mask = atomics::word_mask(word);
        if old == expected & mask && old != new & mask {
            lane::note_modified(false);
        }
        old
    }
}

/// Element `index`'s address in the array at `base`, of `word`'s width.
fn element(base: SharedBase, index: u32, word: Word) -> *mut u8 {
    let size = if word.wide() { 8 } else { 4 };
    base.ptr.wrapping_add(index as usize * size)
}
