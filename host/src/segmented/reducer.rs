//! [`SegmentedReducer`]: segmented reductions on one device, keeping the
//! loaded kernels and the work lists between calls.

use super::params::SegmentedParams;
use super::{BuiltinSegmented, THREADS};
use crate::ptx_families::SEGMENTED_PTX;
use crate::{Cpu, Device, Error, Gpu, Input, LaunchConfig, Module, Output, ProgramRef};
use coop::segmented::{self as seg, Offset};
use coop::{DeviceCopy, Kernel};
use cudarc::driver::{CudaSlice, CudaViewMut};
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
    backend: Backend,
}

enum Backend {
    Gpu(GpuState),
    /// The CPU backend, with its work list kept between calls as on a GPU.
    Cpu(Cpu, Mutex<Vec<u64>>),
}

struct GpuState {
    gpu: Gpu,
    module: Box<Module>,
    scratch: Mutex<Scratch>,
}

#[derive(Default)]
struct Scratch {
    work: Option<CudaSlice<u64>>,
    partials: Option<CudaSlice<u8>>,
}

impl std::fmt::Debug for SegmentedReducer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let on = match &self.backend {
            Backend::Gpu(g) => g.gpu.limits().name.as_str(),
            Backend::Cpu(..) => "the CPU backend",
        };
        f.debug_struct("SegmentedReducer")
            .field("device", &on)
            .finish()
    }
}

impl SegmentedReducer {
    /// Loads the built-in segmented kernels on `device`.
    pub fn new(device: &Device) -> Result<Self, Error> {
        let backend = match device {
            Device::Gpu(gpu) => Backend::Gpu(GpuState {
                gpu: gpu.clone(),
                module: Box::new(gpu.load(&SEGMENTED_PTX)?),
                scratch: Mutex::new(Scratch::default()),
            }),
            Device::Cpu(cpu) => Backend::Cpu(cpu.clone(), Mutex::new(Vec::new())),
        };
        Ok(SegmentedReducer { backend })
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
        let wide = (std::mem::size_of::<Off>() == 8) as u32;
        let kernel = T::KERNEL;
        match (&self.backend, input, offsets, &mut output) {
            (Backend::Gpu(g), Input::Gpu(i), Input::Gpu(o), Output::Gpu(out)) => {
                // SAFETY: `Off` is `u32` or `u64` (sealed), plain words.
                let words = unsafe { o.transmute::<u32>(o.len() * std::mem::size_of::<Off>() / 4) }
                    .expect("offsets are whole words");
                g.run::<T, _>(
                    call,
                    i.len(),
                    o.len() - 1,
                    &g.module,
                    kernel,
                    |module, config, phase, work, partials| {
                        module.launch(
                            kernel,
                            config,
                            (&i, &words, wide, &mut *out, phase, work, partials),
                        )
                    },
                )
            }
            (Backend::Cpu(cpu, work), Input::Cpu(i), Input::Cpu(o), Output::Cpu(out)) => {
                check_offsets(call, i.len(), o)?;
                // SAFETY: as above.
                let words = unsafe {
                    std::slice::from_raw_parts(
                        o.as_ptr() as *const u32,
                        std::mem::size_of_val(o) / 4,
                    )
                };
                run_cpu::<T>(
                    work,
                    i.len(),
                    o.len() - 1,
                    |config, phase, work, partials| {
                        cpu.launch(
                            kernel,
                            config,
                            (i, words, wide, &mut **out, phase, work, partials),
                        )
                        .map(drop)
                    },
                )
            }
            (b, i, o, _) => Err(wrong_device::<T::Kernel>(
                matches!(b, Backend::Gpu(_)),
                &i,
                &o,
            )),
        }
    }

    /// A segmented reduction with your own `kernel`, found in `program`: a
    /// `#[kernel]` with the parameters of [`SegmentedParams`] that calls
    /// `coop::segmented::segmented_reduce`. As [`reduce`](Self::reduce)
    /// otherwise.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::segmented::segmented_reduce;
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
        match (&self.backend, input, offsets, &mut output) {
            (Backend::Gpu(g), Input::Gpu(i), Input::Gpu(o), Output::Gpu(out)) => {
                let module = program.gpu_module(&g.module, call)?;
                g.run::<T, _>(
                    call,
                    i.len(),
                    o.len() - 1,
                    module,
                    kernel,
                    |module, config, phase, work, partials| {
                        K::Params::launch_gpu(
                            module, kernel, config, &i, &o, out, phase, work, partials,
                        )
                    },
                )
            }
            (Backend::Cpu(cpu, work), Input::Cpu(i), Input::Cpu(o), Output::Cpu(out)) => {
                program.check_cpu(call)?;
                check_offsets(call, i.len(), o)?;
                run_cpu::<T>(
                    work,
                    i.len(),
                    o.len() - 1,
                    |config, phase, work, partials| {
                        K::Params::launch_cpu(cpu, kernel, config, i, o, out, phase, work, partials)
                    },
                )
            }
            (b, i, o, _) => Err(wrong_device::<K>(matches!(b, Backend::Gpu(_)), &i, &o)),
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

impl GpuState {
    /// Runs the phases with `launch(module, config, phase, work, partials)`
    /// and checks the offsets the first phase saw.
    #[allow(clippy::type_complexity)]
    fn run<T: DeviceCopy, K: Kernel>(
        &self,
        call: &'static str,
        len: usize,
        segments: usize,
        module: &Module,
        kernel: K,
        mut launch: impl FnMut(
            &Module,
            LaunchConfig,
            u32,
            &mut CudaViewMut<'_, u64>,
            &mut CudaViewMut<'_, T>,
        ) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if segments == 0 {
            return Ok(());
        }
        let gpu = &self.gpu;
        let wave =
            module.resident_blocks(kernel, THREADS, 0)?.max(1) * gpu.limits().multiprocessors;
        let mut scratch = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
        let Scratch { work, partials } = &mut *scratch;
        let work_len = seg::work_len(len, segments);
        if work.as_ref().is_none_or(|w| w.len() < work_len) {
            *work = Some(gpu.zeros::<u64>(work_len.max(64))?);
        }
        let bytes = seg::partials_len(len, segments) * std::mem::size_of::<T>();
        if partials.as_ref().is_none_or(|p| p.len() < bytes) {
            *partials = Some(gpu.zeros::<u8>(bytes.max(4096))?);
        }
        let work = work.as_mut().expect("allocated above");
        let partials = partials.as_mut().expect("allocated above");
        let count = partials.len() / std::mem::size_of::<T>();
        // SAFETY: the kernels read a chunk's partial only after its block
        // stored it (the tickets say so); the host never reads them. A
        // driver allocation is 256-byte aligned.
        let mut partials = unsafe { partials.transmute_mut::<T>(count) }.expect("fits");
        gpu.stream()
            .memset_zeros(&mut work.slice_mut(..seg::cleared_len(len, segments)))
            .map_err(gpu.error("clearing a segmented reduction's counters"))?;
        let mut work_view = work.slice_mut(..);
        for &phase in phases(len) {
            let blocks = if phase == seg::SMALL {
                (segments.div_ceil(THREADS as usize) as u32).clamp(1, 4 * wave)
            } else {
                wave
            };
            launch(
                module,
                LaunchConfig::new(blocks, THREADS),
                phase,
                &mut work_view,
                &mut partials,
            )?;
        }
        let bad = gpu.download(&work.slice(seg::BAD_SEGMENT_WORD..seg::BAD_SEGMENT_WORD + 1))?;
        match seg::first_bad_segment(bad[0]) {
            None => Ok(()),
            Some(s) => Err(bad_segment(call, s)),
        }
    }
}

/// Runs the phases on the CPU backend, with the work list kept between
/// calls and cleared as on a GPU (only its counters and tickets).
fn run_cpu<T: DeviceCopy>(
    work: &Mutex<Vec<u64>>,
    len: usize,
    segments: usize,
    mut launch: impl FnMut(LaunchConfig, u32, &mut [u64], &mut [T]) -> Result<(), Error>,
) -> Result<(), Error> {
    if segments == 0 {
        return Ok(());
    }
    let mut work = work.lock().unwrap_or_else(|p| p.into_inner());
    let needed = seg::work_len(len, segments);
    if work.len() < needed {
        work.resize(needed, 0);
    }
    work[..seg::cleared_len(len, segments)].fill(0);
    // SAFETY: all-zero bytes are a valid `T` (`DeviceCopy`).
    let mut partials: Vec<T> = (0..seg::partials_len(len, segments))
        .map(|_| unsafe { std::mem::zeroed() })
        .collect();
    for &phase in phases(len) {
        let blocks = if phase == seg::SMALL {
            (segments.div_ceil(THREADS as usize) as u32).clamp(1, 64)
        } else {
            16
        };
        launch(
            LaunchConfig::new(blocks, THREADS),
            phase,
            &mut work,
            &mut partials,
        )?;
    }
    Ok(())
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

/// Checks host offsets: never decreasing, ending within the input.
fn check_offsets<Off: Offset>(
    call: &'static str,
    len: usize,
    offsets: &[Off],
) -> Result<(), Error> {
    let view = Off::view(offsets);
    let mut previous = 0usize;
    for s in 0..offsets.len() {
        let at = view.get(s);
        if (s > 0 && at < previous) || at > len {
            return Err(bad_segment(call, s.saturating_sub(1)));
        }
        previous = at;
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

fn wrong_device<K: Kernel>(
    gpu: bool,
    input: &Input<'_, impl Sized>,
    offsets: &Input<'_, impl Sized>,
) -> Error {
    let device = if gpu { "GPU" } else { "CPU" };
    let argument = if matches!(input, Input::Gpu(_)) != gpu {
        0
    } else if matches!(offsets, Input::Gpu(_)) != gpu {
        1
    } else {
        2
    };
    Error::WrongDevice {
        kernel: K::NAME,
        device,
        argument,
    }
}
