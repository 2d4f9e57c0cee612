//! The host build of the kernel-side API.
//!
//! On the host a kernel crate is compiled for its typed descriptors and for
//! `cargo check`; kernel bodies run on the host only inside a launch of the
//! CPU backend. Called from anywhere else, a handle method has no thread
//! block to act on, and says so.

use crate::Dim3;

#[cold]
#[track_caller]
fn outside_kernel(what: &str) -> ! {
    panic!(
        "coop: `{what}` was called outside a kernel launch. Handle methods act on the \
         threads of a launched kernel: launch the kernel through coop_host, which runs it \
         on the GPU (and, once the CPU backend is in place, on the host)"
    )
}

#[track_caller]
pub(crate) fn thread_index() -> Dim3 {
    outside_kernel("thread_index")
}

#[track_caller]
pub(crate) fn block_dim() -> Dim3 {
    outside_kernel("dim_threads")
}

#[track_caller]
pub(crate) fn block_index() -> Dim3 {
    outside_kernel("group_index")
}

#[track_caller]
pub(crate) fn grid_dim() -> Dim3 {
    outside_kernel("dim_blocks")
}

#[track_caller]
pub(crate) fn lane_id() -> u32 {
    outside_kernel("lane id")
}

#[track_caller]
pub(crate) fn sync_block() {
    outside_kernel("ThreadBlock::sync")
}

#[track_caller]
pub(crate) fn sync_warp(_mask: u32) {
    outside_kernel("TiledPartition::sync")
}

#[track_caller]
pub(crate) fn shfl_idx(_mask: u32, _value: u32, _src: u32, _clamp: u32) -> u32 {
    outside_kernel("shfl")
}

#[track_caller]
pub(crate) fn shfl_up(_mask: u32, _value: u32, _delta: u32, _clamp: u32) -> u32 {
    outside_kernel("shfl_up")
}

#[track_caller]
pub(crate) fn shfl_down(_mask: u32, _value: u32, _delta: u32, _clamp: u32) -> u32 {
    outside_kernel("shfl_down")
}

#[track_caller]
pub(crate) fn shfl_bfly(_mask: u32, _value: u32, _lane_mask: u32, _clamp: u32) -> u32 {
    outside_kernel("shfl_xor")
}

#[track_caller]
pub(crate) fn vote_ballot(_mask: u32, _predicate: bool) -> u32 {
    outside_kernel("ballot")
}

#[track_caller]
pub(crate) fn vote_any(_mask: u32, _predicate: bool) -> bool {
    outside_kernel("any")
}

#[track_caller]
pub(crate) fn vote_all(_mask: u32, _predicate: bool) -> bool {
    outside_kernel("all")
}

#[track_caller]
pub(crate) fn match_any_32(_mask: u32, _value: u32) -> u32 {
    outside_kernel("match_any")
}

#[track_caller]
pub(crate) fn match_any_64(_mask: u32, _value: u64) -> u32 {
    outside_kernel("match_any")
}

#[track_caller]
pub(crate) fn match_all_32(_mask: u32, _value: u32) -> (u32, bool) {
    outside_kernel("match_all")
}

#[track_caller]
pub(crate) fn match_all_64(_mask: u32, _value: u64) -> (u32, bool) {
    outside_kernel("match_all")
}
