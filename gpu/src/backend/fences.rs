//! Memory fences.

use super::Site;

/// The scope a memory fence orders writes for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FenceScope {
    Block,
    Cluster,
    Device,
    System,
}

/// Ordering one thread's memory accesses as others see them.
pub(crate) trait Fences {
    /// Orders the caller's earlier writes before its later ones for the
    /// threads of `scope`. PTX: `membar.cta`, `fence.sc.cluster` (sm_90;
    /// `membar.cta` before), `membar.gl`, `membar.sys`. No
    /// precondition. CPU: nothing to order (one thread runs at a time).
    fn fence(scope: FenceScope, site: Site);
}
