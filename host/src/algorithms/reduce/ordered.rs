//! Deterministic float sums: `coop::device::reduce::reduce_ordered` over a
//! grid that depends on the input's length alone, then one block over the
//! blocks' results, so that the result has the same bits on every GPU and
//! on the CPU backend.

use super::plan::THREADS;
use crate::algorithms::engine::Engine;
use crate::{Error, Input, LaunchConfig, Output};
use coop::kernel::params::{OutSlice, Slice};
use coop::Kernel;
use std::any::TypeId;

/// Elements a block of the first launch reduces (the last block fewer), as
/// long as that gives at most [`MAX_BLOCKS`] blocks.
pub const SPAN: usize = 1 << 16;
/// Most blocks of the first launch; past `SPAN * MAX_BLOCKS` elements each
/// block's span grows instead.
pub const MAX_BLOCKS: usize = 4096;

/// Blocks of the first launch for `n` elements: a function of `n` alone.
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
    engine: &Engine,
    input: &Input<'_, T>,
    map: OrderedMap,
) -> Option<Result<T, Error>> {
    use coop_host_kernels as k;
    if TypeId::of::<T>() == TypeId::of::<f32>() {
        // SAFETY: `T` is `f32` (checked just above).
        let input = unsafe { cast::<T, f32>(input) };
        let total = match map {
            OrderedMap::Identity => two_passes(engine, k::sum_ordered_f32, &input),
            OrderedMap::Abs => two_passes(engine, k::sum_abs_ordered_f32, &input),
            OrderedMap::Square => two_passes(engine, k::sum_squares_ordered_f32, &input),
        };
        // SAFETY: as above.
        return Some(total.map(|t| unsafe { std::mem::transmute_copy::<f32, T>(&t) }));
    }
    if TypeId::of::<T>() == TypeId::of::<f64>() {
        // SAFETY: `T` is `f64` (checked just above).
        let input = unsafe { cast::<T, f64>(input) };
        let total = match map {
            OrderedMap::Identity => two_passes(engine, k::sum_ordered_f64, &input),
            OrderedMap::Abs => two_passes(engine, k::sum_abs_ordered_f64, &input),
            OrderedMap::Square => two_passes(engine, k::sum_squares_ordered_f64, &input),
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

/// The two launches: `first` over the input, then the plain ordered sum
/// over the blocks' results.
fn two_passes<T, K>(engine: &Engine, first: K, input: &Input<'_, T>) -> Result<T, Error>
where
    T: coop::DeviceCopy + OrderedSecond,
    K: Kernel<Params = (Slice<T>, OutSlice<T>)>,
{
    engine.check_arguments::<K>(&[input.on_gpu()])?;
    let launcher = engine.own();
    let blocks = blocks(input.len());
    let mut partials = engine.zeros::<T>(blocks as usize)?;
    let mut total = engine.zeros::<T>(1)?;
    let mut partials = Output::from(&mut partials);
    launcher.launch(
        first,
        LaunchConfig::new(blocks, THREADS),
        (input, &mut partials),
    )?;
    let mut total = Output::from(&mut total);
    launcher.launch(
        T::SECOND,
        LaunchConfig::new(1, THREADS),
        (&partials.as_input(), &mut total),
    )?;
    Ok(engine.read(&total.as_input())?[0])
}

/// The kernel of the second launch: the plain ordered sum of `Self`.
pub(super) trait OrderedSecond: Sized + 'static {
    type Kernel: Kernel<Params = (Slice<Self>, OutSlice<Self>)>;
    const SECOND: Self::Kernel;
}

impl OrderedSecond for f32 {
    type Kernel = coop_host_kernels::sum_ordered_f32;
    const SECOND: Self::Kernel = coop_host_kernels::sum_ordered_f32;
}

impl OrderedSecond for f64 {
    type Kernel = coop_host_kernels::sum_ordered_f64;
    const SECOND: Self::Kernel = coop_host_kernels::sum_ordered_f64;
}
