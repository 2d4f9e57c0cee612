//! Shared arrays that a block-level call borrows as its scratch
//! ([`TileScratch`]): the array arrives in a phase nobody is still reading,
//! the call writes and reads it behind its own barriers, and hands it back
//! [`Published`].

use super::phase::Published;
use super::raw::RawShared;
use super::{Region, Shared, SharedArray};
use crate::ThreadBlock;

mod sealed {
    pub trait Sealed {}
}

/// A shared array a block-level call of [`coop::block`](crate::block) may
/// use as its scratch: a [`Shared`] array no thread has touched yet, or
/// the [`Published`] view an earlier phase or call left, which the call
/// takes after a block barrier (the barrier every thread's reads of the
/// earlier phase come before). The call hands the array back as a
/// `Published` view: pass it to the next call, or start a phase of your
/// own with [`Published::own`]. What the array holds after a call is
/// unspecified.
///
/// ```
/// use coop::prelude::*;
/// use coop::block;
/// use coop::shared::Shared;
///
/// #[kernel]
/// pub fn twice(block: ThreadBlock, input: &[u32], out: Out<u32>, tile: Shared<[u32; 256]>) {
///     let first = block.group_index().x as usize * 256;
///     let items: [u32; 2] = block::load_striped(&block, input, first, 0);
///     // A fresh array: no barrier before the exchange's writes.
///     let (blocked, tile) = block::striped_to_blocked(&block, items, tile);
///     // The array the first exchange handed back: a barrier first.
///     let (striped, _tile) = block::blocked_to_striped(&block, blocked, tile);
///     block::store_striped(&block, striped, &out, first);
/// }
///
/// let input: Vec<u32> = (0..512).collect();
/// let mut out = vec![0u32; 512];
/// coop_host::Cpu::new().launch(twice, coop_host::LaunchConfig::new(2, 128), (&input[..], &mut out))?;
/// assert_eq!(out, input);
/// # Ok::<(), coop_host::Error>(())
/// ```
///
/// An array in a writing phase is not scratch: other threads may still be
/// writing it.
///
/// ```compile_fail,E0277
/// use coop::prelude::*;
/// use coop::block;
/// use coop::shared::{ByRank, Shared};
///
/// #[kernel]
/// pub fn mid_phase(block: ThreadBlock, input: &[u32], tile: Shared<[u32; 256]>) {
///     let mine = tile.own(ByRank::new());
///     mine.set(1);
///     let items: [u32; 2] = block::load_striped(&block, input, 0, 0);
///     let _ = block::striped_to_blocked(&block, items, mine);
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the scratch of a block-level call",
    label = "not a fresh `Shared` array or a `Published` view",
    note = "a block-level call writes its scratch after every thread is done with it: pass the `Shared` array itself, or a `Published` view (the one a previous call returned, or yours after `.publish(&block)`)",
    note = "an `Owned` phase is still being written by its owners: end it with `.publish(&block)` first"
)]
pub trait TileScratch<A: SharedArray + ?Sized>: sealed::Sealed {
    /// The array's raw handle, after the barrier its phase needs (`call`
    /// names the barrier on the CPU backend).
    #[doc(hidden)]
    fn __claim(
        self,
        block: &ThreadBlock,
        call: &'static str,
        site: &'static core::panic::Location<'static>,
    ) -> RawShared<A>;
}

impl<A: SharedArray + ?Sized> sealed::Sealed for Shared<A> {}
impl<A: SharedArray + ?Sized> sealed::Sealed for Published<A> {}

impl<A: SharedArray + ?Sized> TileScratch<A> for Shared<A> {
    #[inline(always)]
    fn __claim(
        self,
        _block: &ThreadBlock,
        _call: &'static str,
        _site: &'static core::panic::Location<'static>,
    ) -> RawShared<A> {
        // Nothing has touched the array yet.
        self.into_raw()
    }
}

impl<A: SharedArray + ?Sized> TileScratch<A> for Published<A> {
    #[inline(always)]
    fn __claim(
        self,
        block: &ThreadBlock,
        call: &'static str,
        site: &'static core::panic::Location<'static>,
    ) -> RawShared<A> {
        // Every thread's reads of the published phase come before this.
        block.sync_named(call, site);
        self.into_raw()
    }
}

impl<A: SharedArray + ?Sized> RawShared<A> {
    /// The array, for a block-level call's own accesses.
    #[inline(always)]
    pub(crate) fn region(&self) -> Region {
        self.raw_region()
    }

    /// The array handed back after a block-level call's last barrier: every
    /// thread may still be reading it.
    #[inline(always)]
    pub(crate) fn handed_back(self) -> Published<A> {
        Published::from_region(self.raw_region())
    }
}
