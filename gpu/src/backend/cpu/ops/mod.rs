//! The backend contract on the CPU: one file per concept, as in
//! `crate::backend` and `crate::ptx`. Inside a launch each kernel thread is
//! a coroutine, and the engine's "current lane" names the thread being run:
//! reading an index reads the lane's context, a collective suspends the
//! coroutine with a request that the block's scheduler completes once every
//! thread of the group has arrived. Outside a launch there is no current
//! lane, and every operation says so.

mod async_copies;
mod atomics;
mod barriers;
mod faults;
mod fences;
mod float_units;
mod global_memory;
mod naming;
mod registers;
mod scratch;
pub(crate) mod shared_memory;
mod warp_collectives;
