//! Accesses to kernel parameters' global buffers, announced to the target
//! before they are made.

use super::Site;

/// What a target does before a handle touches an element of an `Out<T>`
/// parameter's buffer.
pub(crate) trait GlobalMemory {
    /// Element `index` of the buffer starting at `base` is about to be
    /// written (`atomic: false`, `Out::write`) or accessed atomically
    /// (`atomic: true`, any `AtomicOut` operation). PTX: nothing. CPU: the
    /// race check of global memory, within the block and (when the block
    /// ends) across blocks, naming the buffer by its parameter name.
    fn global_access(base: *const u8, index: usize, atomic: bool, site: Site);
}
