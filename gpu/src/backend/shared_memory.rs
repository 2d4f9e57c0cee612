//! Shared arrays: binding a kernel's arrays, and moving elements in and out
//! of them.

use super::{Rmw, Site, Word};
use crate::backend::elements::SharedElem;

/// A shared array's element size and row length (0 for 1-D), which the CPU
/// backend names elements by.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
pub(crate) struct ElemShape {
    pub size: u32,
    pub cols: u32,
}

/// Shared memory of the block.
///
/// Static arrays are declared by a macro each target defines
/// (`coop_declare_static_shared!`), because PTX declares them as
/// module-level symbols that only code at the kernel's definition can name;
/// its `coop_bind_static_shared!` makes the [`StaticBinding`](Self::StaticBinding)
/// that [`static_shared`](Self::static_shared) takes. `#[kernel]` expands
/// to both.
pub(crate) trait SharedMemory {
    /// Where an array lives: a shared-window address on the GPU, a block's
    /// region on the CPU backend.
    type Base: Copy;
    /// What names a static array (`crate::backend::target::StaticBinding`): its
    /// shared-window address on the GPU, its key and name on the CPU.
    type StaticBinding;
    /// The block's static array named by `binding`, of `bytes` bytes
    /// aligned to `align`. PTX: the address `coop_bind_static_shared!` read
    /// with `mov.u32 %r, <symbol>`, as is. CPU: the running block's copy of
    /// the array, allocated when its first thread binds it.
    fn static_shared(
        binding: Self::StaticBinding,
        bytes: usize,
        align: usize,
        shape: ElemShape,
        site: Site,
    ) -> Self::Base;
    /// The launch's dynamic shared memory and its size in bytes.
    /// PTX: `mov.u32 %r, coop_dynamic_shared` and `%dynamic_smem_size`.
    /// CPU: the block's dynamic region, sized by the launch.
    fn dynamic_shared(name: &'static str, shape: ElemShape, site: Site) -> (Self::Base, u32);
    /// Element `index` of the array at `base`.
    /// PTX: one `ld.shared` of the element's width (8 to 128 bits) when its
    /// alignment allows, else 32-bit words or bytes.
    /// Precondition: `index` is inside the array (the handles check it).
    /// CPU: the load, after the race detector and the bank model have seen
    /// the access.
    fn shared_load<E: SharedElem>(base: Self::Base, index: u32, site: Site) -> E;
    /// Elements `index .. index + K` of the array at `base`.
    /// PTX: one `ld.shared.v4.u32` (16 bytes) or `ld.shared.v2.u32` (8
    /// bytes) when the `K` elements are that many bytes starting at an
    /// offset in the array aligned to their size, else one
    /// [`shared_load`](Self::shared_load) an element. The test is on the
    /// offset, not the address, so that an index the compiler knows to be a
    /// multiple keeps one path. Preconditions: all `K` are inside the
    /// array, and the array starts at an address aligned to 16. CPU: `K`
    /// loads, each seen by the race detector.
    #[inline(always)]
    fn shared_load_array<E: SharedElem, const K: usize>(
        base: Self::Base,
        index: u32,
        site: Site,
    ) -> [E; K] {
        core::array::from_fn(|k| Self::shared_load(base, index + k as u32, site))
    }
    /// Stores `value` to element `index` of the array at `base`, in the
    /// widths of [`shared_load`](Self::shared_load). Precondition and CPU
    /// checks as for the load.
    fn shared_store<E: SharedElem>(base: Self::Base, index: u32, value: E, site: Site);
    /// Atomically `element = op(element, value)` for element `index` of
    /// the array at `base`, whose elements are of `word`'s type; returns
    /// the old value (bits as for [`Atomics`](super::Atomics)). PTX:
    /// `atom.relaxed.cta.shared.{op}.{type}` on the element's address (a
    /// shared array is its block's: block scope, and the phases' barriers
    /// order the rest). Precondition: `index` is inside the array; the
    /// operation is one the word has. CPU: the race detector sees an atomic
    /// access (ordered with other atomic ones, racing with plain accesses
    /// no barrier separates it from), then the operation.
    fn shared_atomic_rmw(
        base: Self::Base,
        index: u32,
        word: Word,
        op: Rmw,
        value: u64,
        site: Site,
    ) -> u64;
    /// The same with no result: PTX `red.relaxed.cta.shared.{op}.{type}`.
    fn shared_atomic_reduce(
        base: Self::Base,
        index: u32,
        word: Word,
        op: Rmw,
        value: u64,
        site: Site,
    );
    /// Compare-and-swap of element `index` (bits compared); returns the
    /// old value. PTX: `atom.relaxed.cta.shared.cas.b32/.b64`. CPU: as for
    /// the read-modify-write.
    fn shared_atomic_cas(
        base: Self::Base,
        index: u32,
        word: Word,
        expected: u64,
        new: u64,
        site: Site,
    ) -> u64;
    /// Element `index` (4 or 8 bytes wide) of the same array in block
    /// `rank` of the calling block's cluster: distributed shared memory.
    /// PTX (sm_90): `mapa.shared::cluster.u32` maps the element's address
    /// into block `rank`'s window, then `ld.shared::cluster.b32`/`.b64`;
    /// before sm_90 (clusters of one block) the block's own element.
    /// Precondition: `rank` is a block of the cluster, `index` is inside
    /// the array, the cluster barrier after the owner's last write has
    /// passed, and the owner has not returned. CPU: the owner block's
    /// element; a rank outside the cluster, or an owner that returned, is
    /// reported.
    fn shared_load_remote<E: SharedElem>(base: Self::Base, index: u32, rank: u32, site: Site) -> E;
    /// Stores `value` (4 or 8 bytes wide) in element `index` of the same
    /// array in block `rank` of the cluster. PTX (sm_90):
    /// `mapa.shared::cluster.u32`, then `st.shared::cluster.b32`/`.b64`;
    /// before sm_90 the block's own store. Precondition: as for
    /// [`shared_load_remote`](Self::shared_load_remote), and no other
    /// thread of the cluster writes the element between the same two
    /// cluster barriers. CPU: the store, and a report naming both writers
    /// when two threads write one element between cluster barriers.
    fn shared_store_remote<E: SharedElem>(
        base: Self::Base,
        index: u32,
        rank: u32,
        value: E,
        site: Site,
    );
    /// `value` added atomically to element `index` of the same array in
    /// block `rank` of the cluster. PTX (sm_90): `mapa.shared::cluster`,
    /// then `red.relaxed.cluster.shared::cluster.add.{u32,s32,u64,f32}`;
    /// before sm_90 the block's own `red.shared`. Precondition: as for
    /// [`shared_load_remote`](Self::shared_load_remote), and `word` is one
    /// of those four. CPU: the addition, with the same checks.
    fn shared_add_remote(
        base: Self::Base,
        index: u32,
        rank: u32,
        word: Word,
        value: u64,
        site: Site,
    );
}
