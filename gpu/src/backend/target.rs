//! The target being compiled: [`Target`] is the PTX backend on `nvptx64`
//! and the CPU backend elsewhere. This module and the crate root's module
//! list are the only places outside the two backends (and `#[kernel]`'s
//! entry point) that look at `target_arch`.

use crate::backend::{Backend, SharedMemory};

/// The target being compiled.
#[cfg(target_arch = "nvptx64")]
pub(crate) type Target = crate::backend::ptx::Ptx;
/// The target being compiled.
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) type Target = crate::backend::cpu::Cpu;

const _: fn() = || {
    fn implements_everything<B: Backend>() {}
    implements_everything::<Target>();
};

/// Where the target keeps a shared array.
pub(crate) type SharedBase = <Target as SharedMemory>::Base;

/// What a target's `coop_bind_static_shared!` hands to
/// `Shared::__bind_static`: the array's shared-window address on the GPU.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
pub type StaticBinding = u32;
/// What a target's `coop_bind_static_shared!` hands to
/// `Shared::__bind_static`: the array's key (`kernel.param`) and
/// parameter name on the CPU backend.
#[cfg(not(target_arch = "nvptx64"))]
#[doc(hidden)]
pub type StaticBinding = (&'static str, &'static str);

/// What `#[kernel]` expands to for a static shared array, as the target
/// does it: `coop_declare_static_shared!(symbol, A)` declares the array (an
/// item), `coop_bind_static_shared!(symbol, key, name, A)` binds it (an
/// expression, once per thread).
#[cfg(not(target_arch = "nvptx64"))]
pub use crate::{
    __coop_bind_static_shared_cpu as coop_bind_static_shared,
    __coop_declare_static_shared_cpu as coop_declare_static_shared,
};
/// What `#[kernel]` expands to for a static shared array, as the target
/// does it: `coop_declare_static_shared!(symbol, A)` declares the array (an
/// item), `coop_bind_static_shared!(symbol, key, name, A)` binds it (an
/// expression, once per thread).
#[cfg(target_arch = "nvptx64")]
pub use crate::{
    __coop_bind_static_shared_ptx as coop_bind_static_shared,
    __coop_declare_static_shared_ptx as coop_declare_static_shared,
};
