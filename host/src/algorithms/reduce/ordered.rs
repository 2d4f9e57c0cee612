//! Deterministic float sums: `coop::device::reduce::reduce_ordered_grid`
//! over a grid that depends on the input's length alone, in one launch
//! whose last block reduces the blocks' results in a fixed order, so that
//! the result has the same bits on every GPU and on the CPU backend.

use super::plan::THREADS;
use super::Reducer;
use crate::{Error, Input, LaunchConfig};
use coop::kernel::params::{OutSlice, Slice};
use coop::Kernel;
use std::any::TypeId;

/// Elements a block reduces (the last block fewer), as long as that gives
/// at most [`MAX_BLOCKS`] blocks.
pub const SPAN: usize = 1 << 12;
/// Most blocks; past `SPAN * MAX_BLOCKS` elements each block's span grows
/// instead.
pub const MAX_BLOCKS: usize = 4096;

/// Blocks for `n` elements: a function of `n` alone.
pub(super) fn blocks(n: usize) -> u32 {
    n.div_ceil(SPAN).clamp(1, MAX_BLOCKS) as u32
}

/// What a deterministic sum maps its elements through.
#[derive(Clone, Copy)]
pub(super) enum OrderedMap {
    Identity,
    Abs,
    Square,
}

/// The deterministic sum of `input` through `map` when `T` is `f32` or
/// `f64`; `None` for another type (whose sums are exact, so that the
/// reducer's usual kernels give the same bits anyway).
pub(super) fn sum<T: Copy + 'static>(
    reducer: &Reducer,
    input: &Input<'_, T>,
    map: OrderedMap,
) -> Option<Result<T, Error>> {
    use coop_host_kernels as k;
    if TypeId::of::<T>() == TypeId::of::<f32>() {
        // SAFETY: `T` is `f32` (checked just above).
        let input = unsafe { cast::<T, f32>(input) };
        let total = match map {
            OrderedMap::Identity => one_launch(reducer, k::sum_ordered_f32, &input),
            OrderedMap::Abs => one_launch(reducer, k::sum_abs_ordered_f32, &input),
            OrderedMap::Square => one_launch(reducer, k::sum_squares_ordered_f32, &input),
        };
        // SAFETY: as above.
        return Some(total.map(|t| unsafe { std::mem::transmute_copy::<f32, T>(&t) }));
    }
    if TypeId::of::<T>() == TypeId::of::<f64>() {
        // SAFETY: `T` is `f64` (checked just above).
        let input = unsafe { cast::<T, f64>(input) };
        let total = match map {
            OrderedMap::Identity => one_launch(reducer, k::sum_ordered_f64, &input),
            OrderedMap::Abs => one_launch(reducer, k::sum_abs_ordered_f64, &input),
            OrderedMap::Square => one_launch(reducer, k::sum_squares_ordered_f64, &input),
        };
        // SAFETY: as above.
        return Some(total.map(|t| unsafe { std::mem::transmute_copy::<f64, T>(&t) }));
    }
    None
}

/// `input` as an input of `U`.
///
/// # Safety
///
/// `T` and `U` are the same type.
unsafe fn cast<'a, T, U>(input: &Input<'a, T>) -> Input<'a, U> {
    match input {
        // SAFETY: the same type (the caller's promise): the view's memory
        // holds `U`s.
        Input::Gpu(v) => Input::Gpu(unsafe { v.transmute::<U>(v.len()) }.expect("same size")),
        Input::Cpu(s) => {
            // SAFETY: as above: the slice's memory holds `U`s.
            let same = unsafe { std::slice::from_raw_parts(s.as_ptr() as *const U, s.len()) };
            Input::Cpu(same)
        }
    }
}

/// The one launch of `kernel` over `input`, into the reducer's slots and
/// ticket counter.
fn one_launch<T, K>(reducer: &Reducer, kernel: K, input: &Input<'_, T>) -> Result<T, Error>
where
    T: coop::DeviceCopy,
    K: Kernel<Params = (Slice<T>, OutSlice<T>, OutSlice<u32>)>,
{
    reducer.engine().check_arguments::<K>(&[input.on_gpu()])?;
    let launcher = reducer.engine().own();
    // SAFETY: the kernels call `reduce_ordered_grid`, which stores the
    // total, a float, in the last slot it is given; all-zero bytes are a
    // valid float.
    unsafe {
        reducer.finish_in_one_launch(blocks(input.len()), |blocks, partials, tickets| {
            launcher.launch(
                kernel,
                LaunchConfig::new(blocks, THREADS),
                (input, partials, tickets),
            )
        })
    }
}
