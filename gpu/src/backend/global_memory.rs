//! Accesses to kernel parameters' global buffers, announced to the target
//! before they are made.

use super::Site;

/// How a handle is about to touch an element of an `Out<T>` buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GlobalAccess {
    /// `Out::read`.
    Read,
    /// `Out::write`.
    Write,
    /// An `AtomicOut` operation.
    Atomic {
        /// At the block's scope (`with_scope(Scope::Block)`, PTX `.cta`):
        /// atomic among the threads of one block only.
        block_scope: bool,
        /// At the cluster's scope (`Scope::Cluster`, PTX `.cluster`):
        /// atomic among the blocks of one cluster only.
        cluster_scope: bool,
        /// With acquire ordering (`Acquire`, `AcqRel`): the thread's later
        /// reads stay after it.
        acquire: bool,
        /// With release ordering (`Release`, `AcqRel`): the thread's
        /// earlier accesses stay before it.
        release: bool,
        /// What the operation does to the element.
        op: AtomicOp,
    },
}

/// What an atomic operation does to its element, for the memory model:
/// a load observes the value, a store replaces it (and what it carried),
/// a read-modify-write observes and extends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomicOp {
    /// `AtomicOut::load`: changes nothing, raises no flag.
    Load,
    /// `AtomicOut::store`.
    Store,
    /// Every read-modify-write (`fetch_add`, `add`, `swap`,
    /// `compare_exchange`, ...).
    Update,
}

/// What a target does before a handle touches an element of an `Out<T>`
/// parameter's buffer.
pub(crate) trait GlobalMemory {
    /// Element `index` of the buffer starting at `base` is about to be
    /// accessed as `kind` says. PTX: nothing. CPU: the race check of global
    /// memory, within the block and (at the block's end, or the grid sync
    /// that ends an interval of a cooperative launch) across blocks, naming
    /// the buffer by its parameter name.
    fn global_access(base: *const u8, index: usize, kind: GlobalAccess, site: Site);

    /// Stores `words` at `ptr`, which is aligned to their size (8 or 16
    /// bytes), with one instruction. PTX: `st.global.v2.b32` or
    /// `st.global.v4.b32`, written out so that the compiler cannot split
    /// it. CPU: a plain store.
    ///
    /// # Safety
    ///
    /// `ptr` is valid for writes of `N` words and aligned to `4 * N` bytes;
    /// `N` is 2 or 4.
    unsafe fn store_vector<const N: usize>(ptr: *mut u32, words: [u32; N]);
}
