//! [`Sorter`] over a set of devices: a sample sort. Each device sorts its
//! shard with coop's radix sort, the ranks agree on splitters from evenly
//! spaced samples of the sorted shards, every device sends each other
//! device the run of its keys that falls between that device's
//! splitters, and each device sorts what it received.

use super::crew::lock;
use super::devices::Members;
use super::nccl;
use super::reducer::all_ok;
use super::{wire, Devices, Shards};
use crate::gpu::Landing;
use crate::sort::{self, BuiltinSort};
use crate::{Buffer, Device, Error, Output};
use coop::device::radix_sort::{RadixKey, RADIX_BITS};
use cudarc::driver::CudaSlice;
use cudarc::nccl::NcclType;
use std::any::type_name;
use std::sync::Mutex;

/// Samples taken from each sorted shard for every rank of the set: more
/// samples, closer to even output shards (with `s` samples a rank, no
/// output shard holds more than about `1 + 1/s` times its share, for
/// keys that are mostly distinct).
const SAMPLES_PER_RANK: usize = 16;

/// Device-wide sorts of arrays sharded over a [`Devices`] set.
///
/// The result is sharded by value: output shard `r` holds the keys
/// between the set's `r`-th and `r + 1`-th splitters, in order, so the
/// output shards concatenated in rank order ([`Devices::gather`]) are the
/// whole array sorted. The output shards' lengths follow the keys: about
/// even for keys that are mostly distinct, and uneven when many keys are
/// equal (equal keys stay on one device).
///
/// Keys are ordered as [`sort::Sorter`] orders them (floats by their total
/// order: `-NaN < -inf < … < -0.0 < 0.0 < … < inf < NaN`). On GPUs the runs
/// travel between the GPUs by NCCL's send and receive; on the CPU backend
/// (and between its processes, through the rendezvous) they are copied.
///
/// ```
/// use coop_host::multi::{Devices, Sorter};
///
/// let devices = Devices::cpu(3)?; // or Devices::all_gpus()?
/// let keys: Vec<u32> = (0..1000u32).map(|i| i.wrapping_mul(2_654_435_761) % 5000).collect();
/// let shards = devices.scatter(&keys)?;
/// let sorted = Sorter::new(&devices)?.keys(&shards)?;
/// let mut want = keys.clone();
/// want.sort();
/// assert_eq!(devices.gather(&sorted)?, want);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct Sorter<'d> {
    devices: &'d Devices,
    sorters: Vec<sort::Sorter>,
}

impl std::fmt::Debug for Sorter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sorter")
            .field("devices", &self.devices.describe())
            .finish()
    }
}

impl<'d> Sorter<'d> {
    /// Loads the built-in sort kernels on every device of `devices`.
    pub fn new(devices: &'d Devices) -> Result<Sorter<'d>, Error> {
        let sorters = devices
            .iter()
            .map(sort::Sorter::new)
            .collect::<Result<_, _>>()?;
        Ok(Sorter { devices, sorters })
    }

    /// The keys of every shard of `keys`, sorted smallest first, as new
    /// shards sharded by value (see [`Sorter`]); `keys` is not changed.
    /// `K` is a key type of [`sort::Sorter`] that NCCL can move: `u32`,
    /// `i32`, `f32`, `u64`, `i64`, `f64`.
    ///
    /// The call waits for the GPUs while it chooses the splitters; the
    /// final sorts are queued, and [`Devices::gather`] or
    /// [`Devices::synchronize`] wait for them. In a job of one process a
    /// device, every rank calls it with its own shard.
    pub fn keys<K>(&self, keys: &Shards<K>) -> Result<Shards<K>, Error>
    where
        K: BuiltinSort + NcclType + Send + Sync,
    {
        const CALL: &str = "multi::Sorter::keys";
        let devices = self.devices;
        devices.check(keys, CALL)?;
        let sorters = &self.sorters;
        let on: Vec<&Device> = devices.iter().collect();
        let world = devices.world();
        if world == 1 {
            // One shard: sorting a copy of it is the whole sort.
            let mut copy = copy_of(on[0], keys.get(0))?;
            sorters[0].keys(Output::from(&mut copy))?;
            return devices.shards(vec![copy]);
        }
        // 1. Every shard sorted on its own, in a copy.
        let copies = devices.each(|i| copy_of(on[i], keys.get(i)));
        let work: Vec<Mutex<Buffer<K>>> = copies
            .into_iter()
            .map(|c| c.map(Mutex::new))
            .collect::<Result<_, _>>()?;
        all_ok(devices.each(|i| {
            let mut shard = lock(&work[i]);
            sorters[i].keys(Output::from(&mut *shard))
        }))?;
        // 2. Evenly spaced samples of every sorted shard, from every rank,
        // sorted: the splitters are evenly spaced among them.
        let first = devices.first_rank();
        let mine: Vec<Vec<K>> = devices
            .each(|i| {
                let shard = lock(&work[i]);
                let len = shard.len();
                let count = len.min(SAMPLES_PER_RANK * world);
                let at: Vec<usize> = (0..count).map(|k| k * len / count.max(1)).collect();
                elements(on[i], &shard, &at, &mut None)
            })
            .into_iter()
            .collect::<Result<_, _>>()?;
        let agreed = type_name::<K>();
        let mut samples: Vec<K> =
            match devices.across(CALL, agreed, wire::bytes_of(&mine.concat()))? {
                None => mine.concat(),
                Some(parts) => parts
                    .iter()
                    .map(|p| wire::values_of::<K>(p).ok_or_else(|| devices.garbled(CALL)))
                    .collect::<Result<Vec<_>, _>>()?
                    .concat(),
            };
        samples.sort_by_key(|k| ordered(*k));
        let splitters: Vec<u64> = (1..world)
            .map(|r| {
                samples
                    .get(r * samples.len() / world)
                    .map_or(u64::MAX, |k| ordered(*k))
            })
            .collect();
        // 3. Where each splitter falls in each sorted shard: the runs each
        // rank sends to each rank (`bounds[r]`: rank r's run ends).
        let mine: Vec<Vec<usize>> = devices
            .each(|i| {
                let shard = lock(&work[i]);
                let mut ends = lower_bounds(on[i], &shard, &splitters)?;
                ends.push(shard.len());
                Ok::<_, Error>(ends)
            })
            .into_iter()
            .collect::<Result<_, _>>()?;
        let words: Vec<u64> = mine.concat().iter().map(|&e| e as u64).collect();
        let bounds: Vec<Vec<usize>> = match devices.across(CALL, agreed, wire::bytes_of(&words))? {
            None => mine,
            Some(parts) => parts
                .iter()
                .map(|p| {
                    wire::values_of::<u64>(p)
                        .filter(|v| v.len() == world)
                        .map(|v| v.into_iter().map(|e| e as usize).collect())
                        .ok_or_else(|| devices.garbled(CALL))
                })
                .collect::<Result<_, _>>()?,
        };
        // `runs[r][d]`: the range of rank r's sorted shard that goes to d.
        let runs: Vec<Vec<std::ops::Range<usize>>> = bounds
            .iter()
            .map(|ends| {
                (0..world)
                    .map(|d| if d == 0 { 0 } else { ends[d - 1] }..ends[d])
                    .collect()
            })
            .collect();
        // 4. The exchange, then each device sorts what it received.
        let work: Vec<Buffer<K>> = unwrap_all(work);
        let received = self.exchange(CALL, &work, &runs, first)?;
        let out: Vec<Mutex<Buffer<K>>> = received.into_iter().map(Mutex::new).collect();
        all_ok(devices.each(|i| {
            let mut shard = lock(&out[i]);
            sorters[i].keys(Output::from(&mut *shard))
        }))?;
        devices.shards(unwrap_all(out))
    }

    /// Each of this process's ranks' received keys: from every rank `r`
    /// (in rank order), the run `runs[r][rank]` of `r`'s sorted shard.
    fn exchange<K>(
        &self,
        call: &'static str,
        work: &[Buffer<K>],
        runs: &[Vec<std::ops::Range<usize>>],
        first: usize,
    ) -> Result<Vec<Buffer<K>>, Error>
    where
        K: BuiltinSort + NcclType,
    {
        let devices = self.devices;
        let world = devices.world();
        let received = |rank: usize| -> usize { runs.iter().map(|r| r[rank].len()).sum() };
        match devices.members() {
            Members::Cpus(_) => {
                let mine: Vec<&[K]> = work
                    .iter()
                    .map(|b| match b {
                        Buffer::Cpu(v) => v.as_slice(),
                        Buffer::Gpu(_) => unreachable!("`check` placed every shard in host memory"),
                    })
                    .collect();
                // A job's ranks send each other their whole sorted shards
                // through the rendezvous; one process reads its own.
                let theirs: Vec<Vec<K>>;
                let all: Vec<&[K]> = if devices.joined() {
                    let parts = devices
                        .across(call, type_name::<K>(), wire::bytes_of(&mine.concat()))?
                        .ok_or_else(|| devices.garbled(call))?;
                    theirs = parts
                        .iter()
                        .enumerate()
                        .map(|(r, p)| {
                            wire::values_of::<K>(p)
                                .filter(|v| v.len() == runs[r][world - 1].end)
                                .ok_or_else(|| devices.garbled(call))
                        })
                        .collect::<Result<_, _>>()?;
                    theirs.iter().map(Vec::as_slice).collect()
                } else {
                    mine
                };
                Ok((0..devices.count())
                    .map(|i| {
                        let rank = first + i;
                        let mut keys = Vec::with_capacity(received(rank));
                        for (r, shard) in all.iter().enumerate() {
                            keys.extend_from_slice(&shard[runs[r][rank].clone()]);
                        }
                        Buffer::Cpu(keys)
                    })
                    .collect())
            }
            Members::Gpus { gpus, nccl } => {
                let mut out: Vec<CudaSlice<K>> = (0..devices.count())
                    .map(|i| gpus[i].zeros::<K>(received(first + i)))
                    .collect::<Result<_, _>>()?;
                let sources: Vec<&CudaSlice<K>> = work
                    .iter()
                    .map(|b| match b {
                        Buffer::Gpu(s) => s,
                        Buffer::Cpu(_) => unreachable!("`check` placed every shard on its GPU"),
                    })
                    .collect();
                match nccl {
                    Some(nccl) => nccl
                        .group("exchanging the sorted runs", |index, comm| {
                            let rank = first + index;
                            let mut at = 0;
                            for (peer, theirs) in runs.iter().enumerate() {
                                let send = runs[rank][peer].clone();
                                if !send.is_empty() {
                                    comm.send(&sources[index].slice(send), peer).map_err(
                                        nccl::error(format!(
                                            "sending a sorted run from rank {rank} to rank {peer}"
                                        )),
                                    )?;
                                }
                                let count = theirs[rank].len();
                                if count > 0 {
                                    comm.recv(&mut out[index].slice_mut(at..at + count), peer)
                                        .map_err(nccl::error(format!(
                                            "receiving a sorted run from rank {peer} on rank \
                                             {rank}"
                                        )))?;
                                }
                                at += count;
                            }
                            Ok(())
                        })
                        .map_err(|e| devices.failed_here(e))?,
                    // One GPU without NCCL: its whole shard stays.
                    None if !sources[0].is_empty() => gpus[0]
                        .stream()
                        .memcpy_dtod(sources[0], &mut out[0])
                        .map_err(gpus[0].error("copying a sorted shard on the GPU"))?,
                    None => {}
                }
                Ok(out.into_iter().map(Buffer::Gpu).collect())
            }
        }
    }
}

/// The bits of `key` made to sort as the key does (the radix sort's order),
/// widened to 64 bits.
fn ordered<K: RadixKey>(key: K) -> u64 {
    (0..K::BITS)
        .step_by(RADIX_BITS as usize)
        .map(|shift| {
            let width = RADIX_BITS.min(K::BITS - shift);
            (key.digit(shift, width, 0) as u64) << shift
        })
        .sum()
}

/// A copy of `shard` on its device.
fn copy_of<K: BuiltinSort>(device: &Device, shard: Option<&Buffer<K>>) -> Result<Buffer<K>, Error> {
    match (device, shard) {
        (Device::Gpu(gpu), Some(Buffer::Gpu(s))) if !s.is_empty() => gpu
            .stream()
            .clone_dtod(s)
            .map(Buffer::Gpu)
            .map_err(gpu.error("copying a shard to sort on the GPU")),
        (Device::Gpu(gpu), Some(Buffer::Gpu(_))) => gpu.zeros::<K>(0).map(Buffer::Gpu),
        (_, Some(Buffer::Cpu(v))) => Ok(Buffer::Cpu(v.clone())),
        _ => unreachable!("`check` gave every device its shard"),
    }
}

/// The elements of `shard` at positions `at` (each in bounds); on a GPU,
/// copied into page-locked memory (`landing`, made or grown as needed)
/// with one wait for them all.
fn elements<K: BuiltinSort>(
    device: &Device,
    shard: &Buffer<K>,
    at: &[usize],
    landing: &mut Option<Landing>,
) -> Result<Vec<K>, Error> {
    match (device, shard) {
        (_, Buffer::Cpu(v)) => Ok(at.iter().map(|&i| v[i]).collect()),
        (Device::Gpu(gpu), Buffer::Gpu(s)) => {
            if at.is_empty() {
                return Ok(Vec::new());
            }
            let size = std::mem::size_of::<K>();
            if landing.as_ref().is_none_or(|l| l.len() < at.len() * size) {
                *landing = Some(gpu.landing(at.len() * size)?);
            }
            let landing = landing.as_mut().expect("made above");
            gpu.queue_reads(s, at, landing)?;
            gpu.synchronize()?;
            let bytes = landing.bytes()?;
            Ok((0..at.len())
                // SAFETY: `read_unaligned` needs `size` readable bytes that
                // make a valid `K`: a copy of an element of the shard.
                .map(|k| unsafe {
                    std::ptr::read_unaligned(bytes[k * size..].as_ptr() as *const K)
                })
                .collect())
        }
        _ => unreachable!("`check` placed every shard on its device"),
    }
}

/// For each of `splitters` (in [`ordered`] bits), how many keys of the
/// sorted `shard` order before it: binary searches run side by side, one
/// read of a key for each a step.
fn lower_bounds<K: BuiltinSort>(
    device: &Device,
    shard: &Buffer<K>,
    splitters: &[u64],
) -> Result<Vec<usize>, Error> {
    let mut landing = None;
    let mut low = vec![0; splitters.len()];
    let mut high = vec![shard.len(); splitters.len()];
    loop {
        let open: Vec<usize> = (0..splitters.len()).filter(|&j| low[j] < high[j]).collect();
        if open.is_empty() {
            return Ok(low);
        }
        let mids: Vec<usize> = open
            .iter()
            .map(|&j| low[j] + (high[j] - low[j]) / 2)
            .collect();
        let keys = elements(device, shard, &mids, &mut landing)?;
        for ((&j, &mid), key) in open.iter().zip(&mids).zip(keys) {
            if ordered(key) < splitters[j] {
                low[j] = mid + 1;
            } else {
                high[j] = mid;
            }
        }
    }
}

/// The values of `cells`, in order.
fn unwrap_all<T>(cells: Vec<Mutex<T>>) -> Vec<T> {
    cells
        .into_iter()
        .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect()
}
