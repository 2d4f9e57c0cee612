//! The block's scratch: the shared memory that block-level reductions and
//! scans pass their partial results through.

use super::Site;

/// Bytes of block-shared scratch: slots for up to 1024 bytes of partial
/// results, a total of up to 32 bytes, and 256 bytes of the warps'
/// prefixes of a block scan (`collectives::block` lays them out).
/// A kernel that uses a block collective has this much static shared memory
/// more than its own arrays.
pub(crate) const BLOCK_SCRATCH_BYTES: usize = 1024 + 32 + 256;

/// Words in the block's scratch. Every offset is in bytes, 4-aligned (16
/// for `scratch_load4`), and within [`BLOCK_SCRATCH_BYTES`]; that is the
/// caller's precondition. Ordering between threads comes from the block
/// barriers around the accesses, not from these operations.
pub(crate) trait Scratch {
    /// Stores `word` at byte `offset`. (The block collectives store with
    /// [`scratch_store_if`](Self::scratch_store_if); the CPU backend's
    /// predicated store is this one.)
    #[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
    /// PTX: `st.shared.u32 [coop_block_scratch + offset], word`.
    /// CPU: a store into the block's scratch.
    fn scratch_store(offset: u32, word: u32, site: Site);
    /// Stores `word` at byte `offset` in the threads where `pred` holds, as
    /// one predicated instruction (no branch for the compiler to move a
    /// barrier around). PTX: `@p st.shared.u32`.
    fn scratch_store_if(pred: bool, offset: u32, word: u32, site: Site);
    /// The word at byte `offset`. PTX: `ld.shared.u32`.
    fn scratch_load(offset: u32, site: Site) -> u32;
    /// The four words from byte `offset` (16-aligned).
    /// PTX: `ld.shared.v4.u32`.
    fn scratch_load4(offset: u32, site: Site) -> [u32; 4];
}
