//! Fences: a real fence on the host, so that a block's writes before it
//! are seen before its writes after it by blocks that other host threads
//! run at the same time; it also counts as a step. A fence at the device's
//! or the system's scope lets the thread's later reads follow a flag
//! another block raised, and publishes the thread's earlier writes to the
//! readers of a flag it raises after it; one at the block's scope does
//! both within the block only. One at the cluster's scope does both for
//! the blocks of its cluster in a launch in clusters (a flag it publishes
//! to a block of another cluster publishes nothing), and is the block's
//! without clusters.

use super::super::Cpu;
use super::super::engine::lane;
use crate::backend::{FenceScope, Fences, Site};

impl Fences for Cpu {
    fn fence(scope: FenceScope, site: Site) {
        // A cluster's fence reaches other blocks only in a launch in
        // clusters; without them each block is its own cluster.
        let across_blocks = match scope {
            FenceScope::Block => false,
            FenceScope::Cluster => lane::in_clusters(),
            FenceScope::Device | FenceScope::System => true,
        };
        lane::fence(across_blocks, scope == FenceScope::Cluster, site);
        core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst);
    }
}
