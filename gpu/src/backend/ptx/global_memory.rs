//! Global accesses need no announcement on the GPU.

use super::Ptx;
use crate::backend::{GlobalAccess, GlobalMemory, Site};

impl GlobalMemory for Ptx {
    #[inline(always)]
    fn global_access(_base: *const u8, _index: usize, _kind: GlobalAccess, _site: Site) {}
}
