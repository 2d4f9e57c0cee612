//! The CPU backend's engine: the running thread's context and the requests
//! it suspends with (`lane`), the block's scheduler that completes
//! collectives and names broken rules (`scheduler`), what each warp
//! instruction returns (`semantics`), happens-before and the race check
//! (`races`), a block's shared memory with its race detector and bank
//! model (`shared_state`), the launch's global buffers and the check of
//! accesses to them within and across blocks (`global_state`), which
//! releases of other blocks a thread synchronized with (`happens_before`), the
//! cooperative launch that runs every block at once so that grid syncs
//! complete (`cooperative`), where a thread panicked (`panics`), and the
//! block's asynchronous copies in flight and mbarriers (`async_state`).

pub(crate) mod async_state;
pub(crate) mod callers;
pub(crate) mod cooperative;
pub(crate) mod fast_hash;
pub(crate) mod global_state;
pub(crate) mod happens_before;
pub(crate) mod lane;
pub(crate) mod panics;
pub(crate) mod races;
pub(crate) mod scheduler;
pub(crate) mod semantics;
pub(crate) mod shared_state;
#[cfg(target_os = "linux")]
pub(crate) mod symbolize;
