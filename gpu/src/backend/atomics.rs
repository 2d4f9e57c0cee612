//! Atomic operations on device (global) memory: read-modify-write,
//! compare-and-swap, loads and stores, each with a scope and a memory
//! ordering from the PTX memory model. (Shared-memory atomics are part of
//! [`SharedMemory`](super::SharedMemory).)

use super::Site;

/// The threads an atomic operation (or the ordering it gives) is atomic
/// for, PTX's `.scope`: the cheaper the scope, the fewer threads may take
/// part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The threads of the calling thread's block (`.cta`).
    Block,
    /// The threads of the calling thread's cluster (`.cluster`, sm_90): the
    /// blocks of a launch in clusters (`LaunchConfig::with_cluster`); in a
    /// launch without clusters each block is a cluster of its own, and
    /// this is the block's scope. PTX before sm_90 has no clusters and
    /// gets `.cta`.
    Cluster,
    /// Every thread of the device (`.gpu`), the scope of CUDA's
    /// `atomicAdd`: the default.
    #[default]
    Device,
    /// The device, the host and peer devices (`.sys`), for memory they
    /// share (mapped or managed memory).
    System,
}

/// The ordering an atomic operation gives the calling thread's other
/// memory accesses, PTX's `.sem`, with Rust's names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ordering {
    /// Atomic, and nothing more (`.relaxed`): the default, and what
    /// counters and histograms need.
    #[default]
    Relaxed,
    /// Later accesses of the thread stay after it (`.acquire`): for taking
    /// a lock or reading a flag that publishes data.
    Acquire,
    /// Earlier accesses of the thread stay before it (`.release`): for
    /// releasing a lock or setting a flag after writing the data.
    Release,
    /// Both (`.acq_rel`).
    AcqRel,
}

/// How an element type's bits are read by the atomic instructions: PTX's
/// instruction type. (Public only for `coop::atomic`'s sealed traits; not
/// reachable from outside the crate.)
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    U32,
    S32,
    U64,
    S64,
    F32,
    F64,
}

impl Word {
    /// Whether the word is 64 bits wide.
    #[inline(always)]
    pub fn wide(self) -> bool {
        matches!(self, Word::U64 | Word::S64 | Word::F64)
    }
}

/// A read-modify-write operation, PTX's `atom`/`red` operation.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rmw {
    /// `old + v` (integers wrap).
    Add,
    /// The smaller (signed or unsigned by the word).
    Min,
    /// The larger.
    Max,
    And,
    Or,
    Xor,
    /// `v`.
    Exchange,
    /// `old >= v ? 0 : old + 1` (`u32` only).
    Inc,
    /// `old == 0 || old > v ? v : old - 1` (`u32` only).
    Dec,
}

/// Atomic operations on device memory. Values travel as their bits in a
/// `u64` (the low 32 bits for 32-bit words).
///
/// Precondition for every operation: `ptr` is a valid, aligned pointer to a
/// value of the word's type in device memory that the kernel may write, and
/// the operation is one the hardware has for the word (the public
/// `coop::atomic` traits allow only those: add for every word; min, max,
/// and, or, xor for integers; inc and dec for `u32`; exchange and
/// compare-and-swap for all).
pub(crate) trait Atomics {
    /// `*ptr = op(*ptr, value)`, atomically; returns the old value.
    /// PTX: `atom.{sem}.{scope}.{op}.{type} d, [ptr], value;` (a generic
    /// address). CPU: the operation on host memory through `core`'s
    /// atomics (one emulated thread runs at a time), one step.
    unsafe fn atomic_rmw(
        ptr: *mut u8,
        word: Word,
        op: Rmw,
        value: u64,
        scope: Scope,
        ordering: Ordering,
        site: Site,
    ) -> u64;
    /// The same operation with no result: PTX `red.{sem}.{scope}.{op}.{type}`
    /// (`red` takes `.relaxed` and `.release` only; the other orderings
    /// use `atom` and drop the result). CPU: as `atomic_rmw`.
    unsafe fn atomic_reduce(
        ptr: *mut u8,
        word: Word,
        op: Rmw,
        value: u64,
        scope: Scope,
        ordering: Ordering,
        site: Site,
    );
    /// `if *ptr == expected { *ptr = new }`, comparing bits, atomically;
    /// returns the old value. PTX: `atom.{sem}.{scope}.cas.b32/.b64`. CPU:
    /// `compare_exchange` on host memory.
    unsafe fn atomic_cas(
        ptr: *mut u8,
        word: Word,
        expected: u64,
        new: u64,
        scope: Scope,
        ordering: Ordering,
        site: Site,
    ) -> u64;
    /// An atomic load. PTX: `ld.{relaxed|acquire}.{scope}.b32/.b64`
    /// (release orderings load relaxed, acquire-release acquire). CPU: a
    /// load.
    unsafe fn atomic_load(
        ptr: *mut u8,
        word: Word,
        scope: Scope,
        ordering: Ordering,
        site: Site,
    ) -> u64;
    /// An atomic store. PTX: `st.{relaxed|release}.{scope}.b32/.b64`
    /// (acquire orderings store relaxed, acquire-release release). CPU: a
    /// store.
    unsafe fn atomic_store(
        ptr: *mut u8,
        word: Word,
        value: u64,
        scope: Scope,
        ordering: Ordering,
        site: Site,
    );
}
