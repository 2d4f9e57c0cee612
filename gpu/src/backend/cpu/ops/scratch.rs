//! The block's scratch: a buffer of the running block that its emulated
//! threads share.

use super::super::Cpu;
use super::super::engine::lane;
use crate::backend::{Scratch, Site};

/// This block's scratch, after counting the caller's step.
fn block_scratch(site: Site) -> *mut u8 {
    lane::step(site, |_| ());
    lane::block_scratch()
}

impl Scratch for Cpu {
    fn scratch_store(offset: u32, word: u32, site: Site) {
        let p = block_scratch(site).wrapping_add(offset as usize) as *mut u32;
        // SAFETY: the scratch is 16-byte aligned and `BLOCK_SCRATCH_BYTES`
        // long; callers keep `offset` 4-aligned and in bounds.
        unsafe { p.write(word) }
    }

    fn scratch_store_if(pred: bool, offset: u32, word: u32, site: Site) {
        if pred {
            Self::scratch_store(offset, word, site)
        }
    }

    fn scratch_load(offset: u32, site: Site) -> u32 {
        let p = block_scratch(site).wrapping_add(offset as usize) as *const u32;
        // SAFETY: as for `scratch_store`.
        unsafe { p.read() }
    }

    fn scratch_load4(offset: u32, site: Site) -> [u32; 4] {
        core::array::from_fn(|k| Self::scratch_load(offset + 4 * k as u32, site))
    }
}
