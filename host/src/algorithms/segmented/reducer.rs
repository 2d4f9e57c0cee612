//! [`SegmentedReducer`]: segmented reductions on one device, keeping the
//! loaded kernels and the work lists between calls.

use super::{BuiltinSegmented, SegmentedParams, THREADS};
use crate::algorithms::engine::{Engine, Scratch};
use crate::ptx_families::SEGMENTED_PTX;
use crate::{Buffer, Device, Error, Input, LaunchConfig, Launcher, Output, ProgramRef};
use coop::device::segmented::{self as seg, Offset};
use coop::{DeviceCopy, Kernel};
use std::sync::Mutex;

/// Segmented reductions on one device: the built-in ones
/// ([`reduce`](Self::reduce), [`sum`](Self::sum), [`min`](Self::min),
/// [`max`](Self::max)) and your own kernels
/// ([`reduce_with`](Self::reduce_with)); see the [module docs](super).
///
/// ```
/// use coop_host::{segmented::SegmentedReducer, Device};
///
/// let device = Device::cpu(); // or Device::gpu_or_cpu()
/// let reducer = SegmentedReducer::new(&device)?;
/// let values = device.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let offsets = device.upload(&[0u32, 2, 2, 6])?; // [1, 2], [], [3, 4, 5, 6]
/// let mut sums = device.zeros::<f32>(3)?;
/// reducer.sum(&values, &offsets, &mut sums)?;
/// assert_eq!(device.download(&sums)?, [3.0, 0.0, 18.0]);
/// let mut largest = device.zeros::<f32>(3)?;
/// reducer.max(&values, &offsets, &mut largest)?;
/// assert!(device.download(&largest)?[1].is_nan()); // an empty segment: Max's identity
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct SegmentedReducer {
    engine: Engine,
    scratch: Mutex<WorkLists>,
}

/// What the kernels share between phases, kept between calls: the work
/// lists with their counters and the bad-segment word, and the long
/// segments' partial results.
#[derive(Default)]
struct WorkLists {
    work: Option<Buffer<u64>>,
    partials: Scratch,
}

impl std::fmt::Debug for SegmentedReducer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegmentedReducer")
            .field("device", &self.engine.describe())
            .finish()
    }
}

impl SegmentedReducer {
    /// Loads the built-in segmented kernels on `device`.
    pub fn new(device: &Device) -> Result<Self, Error> {
        Ok(SegmentedReducer {
            engine: Engine::new(device, &SEGMENTED_PTX)?,
            scratch: Mutex::default(),
        })
    }

    /// `output[s]` = the sum of segment `s` (integers wrap; 0 for an empty
    /// segment).
    pub fn sum<'a, 'o, 'b, T: BuiltinSegmented<coop::op::Sum>, Off: Offset + DeviceCopy>(
        &self,
        input: impl Into<Input<'a, T>>,
        offsets: impl Into<Input<'o, Off>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<(), Error> {
        self.reduce(coop::op::Sum, input, offsets, output)
    }

    /// `output[s]` = the minimum of segment `s` (floats NaN-ignoring; the
    /// type's maximum, or NaN, for an empty segment).
    pub fn min<'a, 'o, 'b, T: BuiltinSegmented<coop::op::Min>, Off: Offset + DeviceCopy>(
        &self,
        input: impl Into<Input<'a, T>>,
        offsets: impl Into<Input<'o, Off>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<(), Error> {
        self.reduce(coop::op::Min, input, offsets, output)
    }

    /// `output[s]` = the maximum of segment `s` (floats NaN-ignoring; the
    /// type's minimum, or NaN, for an empty segment).
    pub fn max<'a, 'o, 'b, T: BuiltinSegmented<coop::op::Max>, Off: Offset + DeviceCopy>(
        &self,
        input: impl Into<Input<'a, T>>,
        offsets: impl Into<Input<'o, Off>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<(), Error> {
        self.reduce(coop::op::Max, input, offsets, output)
    }

    /// `output[s]` = segment `s` of `input` reduced with `op`, with a
    /// built-in kernel. Segment `s` is `input[offsets[s]..offsets[s + 1]]`:
    /// `offsets` has one more element than `output`, never decreases, and
    /// ends at most at `input.len()`; otherwise the call fails with
    /// [`Error::InvalidArgument`] naming the first segment at fault (on a
    /// GPU, after the kernels ran: the call waits for them).
    pub fn reduce<'a, 'o, 'b, O, T: BuiltinSegmented<O>, Off: Offset + DeviceCopy>(
        &self,
        _op: O,
        input: impl Into<Input<'a, T>>,
        offsets: impl Into<Input<'o, Off>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<(), Error> {
        let (input, offsets, mut output) = (input.into(), offsets.into(), output.into());
        let call = "SegmentedReducer::reduce";
        check_lengths(call, &offsets, &output)?;
        let kernel = T::KERNEL;
        self.engine.check_arguments::<T::Kernel>(&[
            input.on_gpu(),
            offsets.on_gpu(),
            output.on_gpu(),
        ])?;
        let launcher = self.engine.own();
        let wide = (std::mem::size_of::<Off>() == 8) as u32;
        let words = offset_words(&offsets);
        self.run::<T, _>(
            call,
            launcher,
            kernel,
            input.len(),
            offsets.len() - 1,
            |config, phase, work, partials| {
                launcher.launch(
                    kernel,
                    config,
                    (&input, &words, wide, &mut output, phase, work, partials),
                )
            },
        )
    }

    /// A segmented reduction with your own `kernel`, found in `program`: a
    /// `#[kernel]` with the parameters of [`SegmentedParams`] that calls
    /// `coop::device::segmented::segmented_reduce`. As [`reduce`](Self::reduce)
    /// otherwise.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::device::segmented::segmented_reduce;
    /// use coop_host::{segmented::SegmentedReducer, Device};
    ///
    /// /// Each segment's (min, max) as one value.
    /// #[derive(Clone, Copy, Debug, PartialEq, Shuffle, DeviceCopy)]
    /// #[repr(C)]
    /// pub struct Span { pub lo: i32, pub hi: i32 }
    ///
    /// #[kernel]
    /// pub fn spans(block: ThreadBlock, input: &[Span], offsets: &[u64], output: Out<Span>,
    ///              phase: u32, work: Out<u64>, partials: Out<Span>) {
    ///     let widen = op::from_fn(Span { lo: i32::MAX, hi: i32::MIN }, |a: Span, b: Span| {
    ///         Span { lo: a.lo.min(b.lo), hi: a.hi.max(b.hi) }
    ///     })
    ///     .commutative();
    ///     segmented_reduce(block, input, offsets, output, widen, phase, work, partials)
    /// }
    /// # static PTX: coop_host::PtxSet = coop_host::PtxSet::new("doc", &[]);
    ///
    /// let device = Device::cpu();
    /// let program = device.load(&PTX)?;
    /// let values: Vec<Span> = [4, -2, 9, 7, 1].iter().map(|&v| Span { lo: v, hi: v }).collect();
    /// let offsets = [0u64, 3, 5];
    /// let mut out = vec![Span { lo: 0, hi: 0 }; 2];
    /// SegmentedReducer::new(&device)?.reduce_with(&program, spans, &values, &offsets[..], &mut out)?;
    /// assert_eq!(out, [Span { lo: -2, hi: 9 }, Span { lo: 1, hi: 7 }]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn reduce_with<'p, 'a, 'o, 'b, T, Off, K>(
        &self,
        program: impl Into<ProgramRef<'p>>,
        kernel: K,
        input: impl Into<Input<'a, T>>,
        offsets: impl Into<Input<'o, Off>>,
        output: impl Into<Output<'b, T>>,
    ) -> Result<(), Error>
    where
        T: DeviceCopy,
        Off: Offset + DeviceCopy,
        K: Kernel,
        K::Params: SegmentedParams<T, Off>,
    {
        let (program, input, offsets, mut output) =
            (program.into(), input.into(), offsets.into(), output.into());
        let call = "SegmentedReducer::reduce_with";
        check_lengths(call, &offsets, &output)?;
        self.engine
            .check_arguments::<K>(&[input.on_gpu(), offsets.on_gpu(), output.on_gpu()])?;
        let launcher = self.engine.resolve(program, call)?;
        self.run::<T, _>(
            call,
            launcher,
            kernel,
            input.len(),
            offsets.len() - 1,
            |config, phase, work, partials| {
                K::Params::launch(
                    launcher,
                    kernel,
                    config,
                    (&input, &offsets, &mut output, phase, work, partials),
                )
            },
        )
    }

    /// Runs the phases with `launch(config, phase, work, partials)` and
    /// checks the offsets the first phase saw.
    #[allow(clippy::type_complexity)]
    fn run<T: DeviceCopy, K: Kernel>(
        &self,
        call: &'static str,
        launcher: Launcher<'_>,
        kernel: K,
        len: usize,
        segments: usize,
        mut launch: impl FnMut(
            LaunchConfig,
            u32,
            &mut Output<'_, u64>,
            &mut Output<'_, T>,
        ) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if segments == 0 {
            return Ok(());
        }
        let engine = &self.engine;
        let wave = engine.wave(launcher, kernel, THREADS)?;
        let mut scratch = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
        let WorkLists { work, partials } = &mut *scratch;
        let work_len = seg::work_len(len, segments);
        if work.as_ref().is_none_or(|w| w.len() < work_len) {
            *work = Some(engine.zeros::<u64>(work_len.max(64))?);
        }
        let mut work = Output::from(work.as_mut().expect("allocated above"));
        partials.reserve(
            engine,
            seg::partials_len(len, segments) * std::mem::size_of::<T>(),
            4096,
        )?;
        // SAFETY: `typed` needs the values read through the view to be
        // valid `T`s: the kernels read a piece's partial only after its
        // block stored it (the tickets say so); the host never reads them.
        let mut partials = unsafe { partials.typed::<T>() };
        engine.clear(
            &mut work.slice_mut(0..seg::cleared_len(len, segments)),
            "a segmented reduction's counters",
        )?;
        for &phase in phases(len) {
            let blocks = if phase == seg::SMALL {
                (segments.div_ceil(THREADS as usize) as u32).clamp(1, 4 * wave)
            } else {
                wave
            };
            launch(
                LaunchConfig::new(blocks, THREADS),
                phase,
                &mut work,
                &mut partials,
            )?;
        }
        let bad = engine.read(
            &work
                .as_input()
                .slice(seg::BAD_SEGMENT_WORD..seg::BAD_SEGMENT_WORD + 1),
        )?;
        match seg::first_bad_segment(bad[0]) {
            None => Ok(()),
            Some(s) => Err(bad_segment(call, s)),
        }
    }
}

/// The phases a reduction of `len` elements needs: medium segments exist
/// only past a warp's longest, long ones only past a block's.
fn phases(len: usize) -> &'static [u32] {
    if len > seg::BLOCK_MAX {
        &[seg::SMALL, seg::MEDIUM, seg::LARGE]
    } else if len > seg::WARP_MAX {
        &[seg::SMALL, seg::MEDIUM]
    } else {
        &[seg::SMALL]
    }
}

fn check_lengths<Off>(
    call: &'static str,
    offsets: &Input<'_, Off>,
    output: &Output<'_, impl Sized>,
) -> Result<(), Error> {
    if offsets.len() != output.len() + 1 {
        return Err(Error::InvalidArgument {
            call,
            problem: format!(
                "{} offsets for {} outputs: the offsets of n segments are n + 1 (segment s is \
                 input[offsets[s]..offsets[s + 1]])",
                offsets.len(),
                output.len()
            ),
        });
    }
    Ok(())
}

fn bad_segment(call: &'static str, s: usize) -> Error {
    Error::InvalidArgument {
        call,
        problem: format!(
            "segment {s}: its offsets decrease or pass the end of the input; offsets never \
             decrease and end at most at the input's length"
        ),
    }
}

/// The offsets as 32-bit words, as the built-in kernels take them (a `u64`
/// offset is two words).
pub(crate) fn offset_words<'a, Off: Offset>(offsets: &Input<'a, Off>) -> Input<'a, u32> {
    let words = offsets.len() * std::mem::size_of::<Off>() / 4;
    match offsets {
        Input::Gpu(view) => {
            // SAFETY: `transmute` needs the memory read as `u32`s to be valid
            // `u32`s: `Off` is `u32` or `u64` (sealed), plain words.
            let words = unsafe { view.transmute::<u32>(words) };
            Input::Gpu(words.expect("whole words"))
        }
        Input::Cpu(slice) => {
            // SAFETY: `from_raw_parts` needs `words` initialised `u32`s at a
            // 4-aligned address, borrowed as long as the slice: the
            // offsets' own memory, `u32`s or `u64`s (sealed), which hold
            // that many words.
            let words = unsafe { std::slice::from_raw_parts(slice.as_ptr() as *const u32, words) };
            Input::Cpu(words)
        }
    }
}
