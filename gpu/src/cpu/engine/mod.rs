//! The CPU backend's engine: the running thread's context and the requests
//! it suspends with (`lane`), the block's scheduler that completes
//! collectives and names broken rules (`scheduler`), what each warp
//! instruction returns (`semantics`), a block's shared memory with its
//! race detector and bank model (`shared_state`), and where a thread
//! panicked (`panics`).

pub(crate) mod lane;
pub(crate) mod panics;
pub(crate) mod scheduler;
pub(crate) mod semantics;
pub(crate) mod shared_state;
