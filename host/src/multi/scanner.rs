//! [`Scanner`] over a set of devices: the scan of a sharded array, each
//! device scanning its shard with the combination of the shards before it
//! in front.

use super::devices::Members;
use super::nccl;
use super::reducer::all_ok;
use super::{wire, Devices, Shards};
use crate::reduce::{self, Builtin};
use crate::scan::{self, BuiltinScan, Front};
use crate::{Buffer, Device, Error, Input, Output, ProgramRef};
use coop::op::Operator;
use cudarc::driver::CudaSlice;
use cudarc::nccl::NcclType;
use std::any::type_name;
use std::sync::Mutex;

/// Device-wide inclusive and exclusive scans of arrays sharded over a
/// [`Devices`] set: the result is sharded as the input is, and element `j`
/// of the whole result is what one device's scan of the whole array would
/// give there.
///
/// Each call runs in three steps, all queued without waiting:
///
/// 1. every device reduces its shard (coop's one-launch reduction, one
///    read of the shard);
/// 2. the totals are exchanged: an NCCL all-gather of one element a GPU,
///    or, on the CPU backend, through the host (across the processes of a
///    job through the rendezvous);
/// 3. every device scans its shard (one read, one write) with the
///    combination of the totals of the shards before it in front, which
///    the scan's first tile reads from the device's memory and combines
///    (no round trip to the host).
///
/// Each device thus reads its shard twice and writes it once; the
/// reduction adds about a third of the scan's time on an H200, so `d`
/// GPUs run at most about `3d/4` as fast as one (chapter 7 of the guide
/// has the figures: 1.48× on two H200s at 2^32). A set of one device (a job
/// of one rank) skips the first two steps: its scan is one device's.
///
/// Integer scans are exact and the same on every backend. A float sum's
/// last bits depend on where the shards begin, as well as on the order
/// of each device's additions (see [`scan`](crate::scan)); with
/// [`deterministic`](Self::deterministic) they depend on the shards'
/// lengths alone (every step runs in a fixed order, on GPUs as on the CPU
/// backend; the bits of the two have been compared for one device's
/// reductions and scans, not yet for sharded ones).
///
/// ```
/// use coop::op;
/// use coop_host::multi::{Devices, Scanner};
///
/// let devices = Devices::cpu(3)?; // or Devices::all_gpus()?
/// let data: Vec<u64> = (1..=10).collect();
/// let input = devices.scatter(&data)?; // shards of 4, 3 and 3
/// let mut output = devices.zeros_like(&input)?;
/// let scanner = Scanner::new(&devices)?;
/// scanner.inclusive(op::Sum, &input, &mut output)?;
/// assert_eq!(devices.gather(&output)?, [1, 3, 6, 10, 15, 21, 28, 36, 45, 55]);
/// scanner.exclusive(op::Max, &input, &mut output)?;
/// assert_eq!(devices.gather(&output)?, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct Scanner<'d> {
    devices: &'d Devices,
    reducers: Vec<reduce::Reducer>,
    scanners: Vec<scan::Scanner>,
    /// On GPUs: the bytes each GPU gathers the ranks' totals into, kept
    /// between calls so that a call allocates nothing.
    gathered: Mutex<Vec<CudaSlice<u8>>>,
}

impl std::fmt::Debug for Scanner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scanner")
            .field("devices", &self.devices.describe())
            .field("deterministic", &self.is_deterministic())
            .finish()
    }
}

impl<'d> Scanner<'d> {
    /// Loads the built-in reduction and scan kernels on every device of
    /// `devices`.
    pub fn new(devices: &'d Devices) -> Result<Scanner<'d>, Error> {
        let reducers = devices
            .iter()
            .map(reduce::Reducer::new)
            .collect::<Result<_, _>>()?;
        let scanners = devices
            .iter()
            .map(scan::Scanner::new)
            .collect::<Result<_, _>>()?;
        Ok(Scanner {
            devices,
            reducers,
            scanners,
            gathered: Mutex::default(),
        })
    }

    /// The same scanner, reducing and scanning in fixed orders
    /// ([`reduce::Reducer::deterministic`],
    /// [`scan::Scanner::deterministic`]): a float scan has the same bits
    /// run after run for the same shard lengths.
    ///
    /// ```
    /// use coop::op;
    /// use coop_host::multi::{Devices, Scanner};
    ///
    /// let devices = Devices::cpu(2)?;
    /// let data: Vec<f32> = (0..50_000).map(|i| 1.0 / (1.0 + i as f32)).collect();
    /// let input = devices.scatter(&data)?;
    /// let mut once = devices.zeros_like(&input)?;
    /// let mut again = devices.zeros_like(&input)?;
    /// let scanner = Scanner::new(&devices)?.deterministic();
    /// scanner.inclusive(op::Sum, &input, &mut once)?;
    /// scanner.inclusive(op::Sum, &input, &mut again)?;
    /// assert_eq!(devices.gather(&once)?, devices.gather(&again)?);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn deterministic(mut self) -> Self {
        self.reducers = self
            .reducers
            .into_iter()
            .map(reduce::Reducer::deterministic)
            .collect();
        self.scanners = self
            .scanners
            .into_iter()
            .map(scan::Scanner::deterministic)
            .collect();
        self
    }

    /// Whether this scanner reduces and scans in fixed orders.
    pub fn is_deterministic(&self) -> bool {
        self.scanners.iter().all(scan::Scanner::is_deterministic)
    }

    /// The inclusive scan of the sharded `input` with `op` into `output`
    /// (shards as long as `input`'s, on the same devices): element `j` of
    /// the whole result is `input[0] op ... op input[j]`, counted over all
    /// shards in rank order. The call returns once the work is queued:
    /// [`gather`](Devices::gather) the output (or
    /// [`synchronize`](Devices::synchronize)) to wait for it. In a job of
    /// one process a GPU, every rank calls it with its own shards.
    pub fn inclusive<O, T>(
        &self,
        op: O,
        input: &Shards<T>,
        output: &mut Shards<T>,
    ) -> Result<(), Error>
    where
        T: BuiltinScan<O> + Builtin<O> + NcclType,
        O: Operator<T>,
    {
        self.run(op, input, output, false, "multi::Scanner::inclusive")
    }

    /// The exclusive scan: element `j` of the whole result is `input[0]
    /// op ... op input[j - 1]`, and the operator's identity at 0; as
    /// [`inclusive`](Self::inclusive) otherwise.
    pub fn exclusive<O, T>(
        &self,
        op: O,
        input: &Shards<T>,
        output: &mut Shards<T>,
    ) -> Result<(), Error>
    where
        T: BuiltinScan<O> + Builtin<O> + NcclType,
        O: Operator<T>,
    {
        self.run(op, input, output, true, "multi::Scanner::exclusive")
    }

    fn run<O, T>(
        &self,
        _op: O,
        input: &Shards<T>,
        output: &mut Shards<T>,
        exclusive: bool,
        call: &'static str,
    ) -> Result<(), Error>
    where
        T: BuiltinScan<O> + Builtin<O> + NcclType,
        O: Operator<T>,
    {
        self.devices.check(input, call)?;
        self.devices.check(output, call)?;
        for (index, (i, o)) in input.iter().zip(output.iter()).enumerate() {
            if i.len() != o.len() {
                return Err(Error::Shards {
                    call,
                    problem: format!(
                        "output shard {index} holds {} elements and input shard {index} {}; \
                         a scan writes one element for each it reads (make the output with \
                         `devices.zeros_like(&input)`)",
                        o.len(),
                        i.len()
                    ),
                });
            }
        }
        let scan = |index: usize, front: Front<'_, T>, output: &mut Shards<T>| {
            let out = output.get_mut(index).expect("checked: a shard a device");
            self.scanners[index].builtin_after::<O, T>(
                exclusive,
                front,
                Input::from(input.get(index).expect("checked: a shard a device")),
                Output::from(out),
                call,
            )
        };
        if self.devices.world() == 1 {
            // Nothing comes before the one shard.
            return scan(0, Front::None, output);
        }
        // The operator is part of what the ranks must agree on.
        let agreed = type_name::<(O, T)>();
        let shards: Vec<&Buffer<T>> = input.iter().collect();
        let reducers = &self.reducers;
        all_ok(self.devices.each(|index| {
            // SAFETY: `queue` needs a kernel that stores its reduction and a
            // `T` valid as all-zero bytes: the built-in kernel for `O`
            // (it calls `reduce_grid`), and `Builtin` requires
            // `DeviceCopy` (valid as zeros).
            unsafe {
                reducers[index].queue(
                    ProgramRef::Own,
                    <T as Builtin<O>>::KERNEL,
                    &Input::from(shards[index]),
                    call,
                )
            }
        }))?;
        let first = self.devices.first_rank();
        match self.devices.members() {
            Members::Cpus(_) => {
                let mine = self
                    .reducers
                    .iter()
                    // SAFETY: as for `queue` above.
                    .map(|r| unsafe { r.queued_total::<T>() })
                    .collect::<Result<Vec<T>, _>>()?;
                let totals = match self.devices.across(call, agreed, wire::bytes_of(&mine))? {
                    None => mine,
                    Some(parts) => parts
                        .iter()
                        .map(|p| wire::values_of::<T>(p).ok_or_else(|| self.devices.garbled(call)))
                        .collect::<Result<Vec<_>, _>>()?
                        .concat(),
                };
                // As on GPUs: the first r totals in front of rank r's scan.
                for index in 0..self.devices.count() {
                    let rank = first + index;
                    scan(index, Front::Device(Input::Cpu(&totals[..rank])), output)?;
                }
            }
            Members::Gpus { nccl: None, .. } => unreachable!("a set of several GPUs has NCCL"),
            Members::Gpus {
                nccl: Some(nccl), ..
            } => {
                self.devices.across(call, agreed, Vec::new())?;
                let world = self.devices.world();
                let mut cache = self.gathered.lock().unwrap_or_else(|e| e.into_inner());
                let bytes = world * std::mem::size_of::<T>();
                if cache.first().is_none_or(|b| b.len() < bytes) {
                    *cache = self
                        .devices
                        .iter()
                        .map(|device| match device {
                            Device::Gpu(gpu) => gpu.zeros::<u8>(bytes.max(256)),
                            Device::Cpu(_) => unreachable!("a set of GPUs"),
                        })
                        .collect::<Result<_, _>>()?;
                }
                nccl.group("gathering the shards' totals", |index, comm| {
                    // SAFETY: `transmute_mut` needs the values read through
                    // the view to be valid `T`s: NCCL writes all `world`
                    // of them before anything reads them. The allocation
                    // holds `world` values and is aligned for any `T`.
                    let mut to = unsafe { cache[index].transmute_mut::<T>(world) }
                        .expect("the cache holds `world` values");
                    // SAFETY: `with_total_mut` needs the last queued
                    // reduction's kernel to store a valid `T`: the built-in
                    // kernel just queued; the all-gather only reads it.
                    unsafe {
                        self.reducers[index].with_total_mut::<T, _>(|total| {
                            let Output::Gpu(total) = total else {
                                unreachable!("a set of GPUs reduces on GPUs")
                            };
                            comm.all_gather(&*total, &mut to)
                                .map_err(nccl::error(format!(
                                    "gathering the shards' totals on rank {}",
                                    first + index
                                )))
                        })
                    }?
                })
                .map_err(|e| self.devices.failed_here(e))?;
                // What comes before rank r: the first r totals, which the
                // scan combines in front of its first element.
                let outs: Vec<Mutex<&mut Buffer<T>>> = output.iter_mut().map(Mutex::new).collect();
                let (scanners, cache) = (&self.scanners, &*cache);
                all_ok(self.devices.each(|index| {
                    let rank = first + index;
                    // SAFETY: as above; the all-gather queued before on this
                    // GPU's stream wrote them.
                    let totals = unsafe { cache[index].transmute::<T>(world) }
                        .expect("the cache holds `world` values");
                    let front = Front::Device(Input::Gpu(totals.slice(0..rank)));
                    let mut out = outs[index].lock().unwrap_or_else(|e| e.into_inner());
                    scanners[index].builtin_after::<O, T>(
                        exclusive,
                        front,
                        Input::from(shards[index]),
                        Output::from(&mut **out),
                        call,
                    )
                }))?;
            }
        }
        Ok(())
    }
}
