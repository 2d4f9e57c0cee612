//! A reduction on the CPU backend: the plan's launches over host memory.

use super::plan::{Sizing, Strategy};
use super::ReductionParams;
use crate::{Cpu, Error};
use coop::Kernel;

/// The CPU backend's stand-in for the blocks a multiprocessor runs at once
/// (a GPU's figure comes from the driver).
const CPU_RESIDENT_BLOCKS: u32 = 4;

/// Reduces `input` with `kernel` on `cpu`, following `sizing`'s plan.
///
/// # Safety
///
/// All-zero bytes must be a valid `T`: the slots for the blocks' results
/// and the total start zeroed, and the total is read whether or not the
/// kernel stored one.
pub(super) unsafe fn reduce<T, K>(
    cpu: &Cpu,
    kernel: K,
    input: &[T],
    sizing: &Sizing,
) -> Result<T, Error>
where
    T: Copy + 'static,
    K: Kernel,
    K::Params: ReductionParams<T>,
{
    let multiprocessors = cpu.limits().multiprocessors;
    let plan = sizing.plan::<T>(
        input.len(),
        multiprocessors,
        CPU_RESIDENT_BLOCKS,
        K::Params::TICKETS,
    );
    let blocks = plan.blocks as usize;
    // The blocks' results, then the total: `blocks + 1` values of `T`,
    // zeroed, starting at a multiple of 16 bytes as a GPU allocation does
    // (the kernel splits its input at 16-byte boundaries) or of `T`'s
    // alignment where that is larger.
    let align = std::mem::align_of::<T>().max(16);
    let mut storage = vec![0u8; (blocks + 1) * std::mem::size_of::<T>() + align];
    let address = storage.as_ptr() as usize;
    let offset = address.next_multiple_of(align) - address;
    // SAFETY: `from_raw_parts_mut` needs `blocks + 1` initialised values of
    // `T` at an address aligned for `T`, which nothing else uses while the
    // slice lives. `offset` is less than `align`, so `add(offset)` stays in
    // `storage`, which from there holds `(blocks + 1) * size_of::<T>()`
    // zero bytes at a multiple of `align`,
    // itself a multiple of `align_of::<T>()`; all-zero bytes are a valid `T`
    // (this function's precondition); `storage` is only reached through
    // `all` from here on.
    let all = unsafe {
        std::slice::from_raw_parts_mut(storage.as_mut_ptr().add(offset) as *mut T, blocks + 1)
    };
    let mut ticket = [0u32];
    match plan.strategy {
        Strategy::OneLaunch => {
            K::Params::launch_cpu(cpu, kernel, plan.blocks, input, all, &mut ticket)?;
        }
        // The CPU backend has no launch start-up to save: a grid of one
        // block takes two launches as every other grid does, so that the
        // total always comes from a second launch over the blocks' results.
        Strategy::OneBlock | Strategy::TwoLaunches => {
            // No tickets: `reduce_grid` does the first of two launches.
            let (partials, total) = all.split_at_mut(blocks);
            K::Params::launch_cpu(cpu, kernel, plan.blocks, input, partials, &mut [])?;
            K::Params::launch_cpu(cpu, kernel, 1, partials, total, &mut [])?;
        }
    }
    Ok(all[blocks])
}

/// Runs a reduction that finishes in one launch (a transform-reduction)
/// over `len` elements of `T` on `cpu`: `launch` runs it over the blocks it
/// is given, with `blocks + 1` zeroed slots and a zeroed ticket; returns
/// the last slot.
///
/// # Safety
///
/// All-zero bytes must be a valid `U` (the slots start zeroed).
pub(super) unsafe fn one_launch<T, U: Copy>(
    cpu: &Cpu,
    len: usize,
    sizing: &Sizing,
    launch: impl FnOnce(u32, &mut [U], &mut [u32]) -> Result<(), Error>,
) -> Result<U, Error> {
    let blocks = sizing.one_wave::<T>(len, cpu.limits().multiprocessors, CPU_RESIDENT_BLOCKS);
    // SAFETY: all-zero bytes are a valid `U` (this function's precondition).
    let mut slots: Vec<U> = (0..blocks as usize + 1)
        .map(|_| unsafe { std::mem::zeroed() })
        .collect();
    let mut ticket = [0u32];
    launch(blocks, &mut slots, &mut ticket)?;
    Ok(slots[blocks as usize])
}
