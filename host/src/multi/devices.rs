//! [`Devices`]: the GPUs of one machine joined by NCCL, this process's
//! device in a job of one process a device, or emulated devices on the
//! CPU backend; sharding arrays over them and gathering them back.

use super::crew::Crew;
use super::link::{Link, Posted};
use super::nccl::{self, Nccl};
use super::{wire, Join, Shards};
use crate::{Buffer, Cpu, Device, Error, Gpu, Program, PtxSet};
use coop::DeviceCopy;
use std::time::Duration;

/// A set of devices that work on one sharded array: GPUs of this machine,
/// joined by NCCL when there are several, or emulated devices of the CPU
/// backend for tests and machines without GPUs.
///
/// A set is all GPUs or all CPU backend, each device once; device `i`
/// holds shard `i` of every [`Shards`] the set makes.
///
/// A set is made either in one process for all its devices
/// ([`gpus`](Self::gpus), [`all_gpus`](Self::all_gpus), [`cpu`](Self::cpu)),
/// or by each process of a job of one process a device, started by a
/// launcher such as `torchrun`, `mpirun` or `srun`
/// ([`join`](Self::join), [`join_gpu`](Self::join_gpu),
/// [`join_cpu`](Self::join_cpu)): then the set is the whole job's
/// [`world`](Self::world) of ranks, this process holds the shard of its own
/// rank, and the collectives ([`Reducer`](super::Reducer),
/// [`all_reduce`](Self::all_reduce), [`gather`](Self::gather)) combine
/// across the processes. Every rank must make the same collective calls in
/// the same order; one that fails, leaves, is late or calls something
/// else ends the others' call with [`Error::Rank`] naming it.
///
/// A set of several GPUs made in one process keeps a thread for each GPU
/// but the first, so that a call's launches on the GPUs go out at once
/// (one thread queueing four GPUs in turn starts the last tens of
/// microseconds late). After a call the threads spin for 2 ms, so that
/// back-to-back calls hand over their work without waking a thread, then
/// sleep; `COOP_CREW_SPIN_US` in the environment sets that time (0: sleep
/// at once). The threads end when the set is dropped.
///
/// ```
/// use coop_host::multi::{Devices, Reducer};
///
/// // Every GPU of the machine, or four emulated devices without one.
/// let devices = Devices::all_gpus().or_else(|_| Devices::cpu(4))?;
/// let data: Vec<f32> = (1..=1000).map(|i| i as f32).collect();
/// let shards = devices.scatter(&data)?;
/// assert_eq!(Reducer::new(&devices)?.sum(&shards)?, 500500.0);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Debug)]
pub struct Devices {
    devices: Vec<Device>,
    members: Members,
    /// The other processes of the job, for a set joined by rank.
    link: Option<Link>,
    /// For several GPUs in one process: a thread a GPU to queue their
    /// parts of a call at once.
    crew: Option<Crew>,
}

#[derive(Debug)]
pub(super) enum Members {
    /// GPUs; NCCL joins them (absent only for a set of one GPU on a machine
    /// without NCCL).
    Gpus { gpus: Vec<Gpu>, nccl: Option<Nccl> },
    /// Emulated devices of the CPU backend.
    Cpus(Vec<Cpu>),
}

impl Devices {
    /// The GPUs of `ordinals`, in that order (rank `i` is GPU
    /// `ordinals[i]`), joined by NCCL.
    ///
    /// Fails with [`Error::NoDriver`] or [`Error::NoDevice`] as
    /// [`Gpu::new`] does, with [`Error::Shards`] for an empty list or a GPU
    /// listed twice (NCCL takes each device once), and with
    /// [`Error::NoNccl`] when several GPUs are asked for and the NCCL
    /// library cannot be loaded.
    pub fn gpus(ordinals: &[usize]) -> Result<Devices, Error> {
        if let Some((i, ordinal)) = ordinals
            .iter()
            .enumerate()
            .find(|(i, o)| ordinals[..*i].contains(o))
        {
            return Err(Error::Shards {
                call: "Devices::gpus",
                problem: format!(
                    "GPU {ordinal} is listed twice (ranks {} and {i}); a set holds each \
                     device once",
                    ordinals.iter().position(|o| o == ordinal).unwrap_or(0)
                ),
            });
        }
        let gpus = ordinals
            .iter()
            .map(|&ordinal| Gpu::new(ordinal))
            .collect::<Result<Vec<_>, _>>()?;
        Devices::from_gpus(gpus)
    }

    /// Every GPU the driver sees, in the driver's order. Fails as
    /// [`gpus`](Self::gpus) does, and with [`Error::NoDevice`] when there
    /// is none.
    pub fn all_gpus() -> Result<Devices, Error> {
        if !Gpu::driver_present() {
            return Err(Error::NoDriver);
        }
        let count = cudarc::driver::CudaContext::device_count()
            .map_err(Error::driver("counting CUDA devices"))?
            .max(0) as usize;
        if count == 0 {
            return Err(Error::NoDevice { ordinal: 0, count });
        }
        Devices::gpus(&(0..count).collect::<Vec<_>>())
    }

    /// GPUs already opened, in that order, joined by NCCL on their streams.
    /// Fails as [`gpus`](Self::gpus) does.
    pub fn from_gpus(gpus: Vec<Gpu>) -> Result<Devices, Error> {
        let ordinals: Vec<usize> = gpus.iter().map(|g| g.context().ordinal()).collect();
        if gpus.is_empty() {
            return Err(no_devices("Devices::from_gpus"));
        }
        if let Some(i) = (1..ordinals.len()).find(|&i| ordinals[..i].contains(&ordinals[i])) {
            return Err(Error::Shards {
                call: "Devices::from_gpus",
                problem: format!(
                    "GPU {} is in the list twice (the second time at rank {i}); a set holds \
                     each device once",
                    ordinals[i]
                ),
            });
        }
        let nccl = if nccl::present() {
            Some(Nccl::new(&gpus)?)
        } else if gpus.len() == 1 {
            None
        } else {
            return Err(Error::NoNccl { gpus: gpus.len() });
        };
        Ok(Devices {
            devices: gpus.iter().cloned().map(Device::Gpu).collect(),
            crew: (gpus.len() > 1).then(|| Crew::new(gpus.len())),
            members: Members::Gpus { gpus, nccl },
            link: None,
        })
    }

    /// `count` emulated devices of the CPU backend (at least 1): the same
    /// API, the same results as GPUs (see [`Reducer`](super::Reducer) for
    /// the order in which floats are combined), no GPU needed.
    pub fn cpu(count: usize) -> Result<Devices, Error> {
        if count == 0 {
            return Err(no_devices("Devices::cpu"));
        }
        let cpus = vec![Cpu::new(); count];
        Ok(Devices {
            devices: cpus.iter().cloned().map(Device::Cpu).collect(),
            members: Members::Cpus(cpus),
            link: None,
            crew: None,
        })
    }

    /// Joins a job of one process a device as `join` describes: on GPU
    /// `join.local_rank()` where the machine has a CUDA driver and GPUs
    /// ([`join_gpu`](Self::join_gpu)), else on the CPU backend
    /// ([`join_cpu`](Self::join_cpu)). Every rank must end on the same
    /// backend.
    ///
    /// ```
    /// use coop_host::multi::{Devices, Join, Reducer, Rendezvous};
    ///
    /// // Two ranks, here threads of one program on the CPU backend; a job's
    /// // processes do the same with `Join::from_env()?` under a launcher.
    /// # let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    /// let address = format!("127.0.0.1:{port}");
    /// let ranks: Vec<_> = (0..2)
    ///     .map(|rank| {
    ///         let join = Join::new(rank, 2, Rendezvous::tcp(address.clone()));
    ///         std::thread::spawn(move || -> Result<u64, coop_host::Error> {
    ///             let devices = Devices::join_cpu(&join?)?;
    ///             let data: Vec<u64> = (1..=1000).collect();
    ///             let mine = devices.scatter(&data)?; // this rank's half
    ///             Reducer::new(&devices)?.sum(&mine)
    ///         })
    ///     })
    ///     .collect();
    /// for rank in ranks {
    ///     assert_eq!(rank.join().unwrap()?, 500_500); // every rank gets the total
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn join(join: &Join) -> Result<Devices, Error> {
        let gpus = Gpu::driver_present()
            && cudarc::driver::CudaContext::device_count().is_ok_and(|count| count > 0);
        if gpus {
            Devices::join_gpu(join, join.local_rank())
        } else {
            Devices::join_cpu(join)
        }
    }

    /// Joins a job of one process a device as `join`'s rank, owning GPU
    /// `ordinal` of this machine, through NCCL's rendezvous by unique id
    /// (`ncclCommInitRank`; rank 0 makes the id and shares it through
    /// `join`'s rendezvous). Returns when every rank has joined.
    ///
    /// Fails as [`Gpu::new`] does, with [`Error::NoNccl`] for a job of
    /// several ranks on a machine without NCCL, with [`Error::Join`] when
    /// the ranks do not all arrive within `join.timeout()` or disagree on
    /// the job (naming the ranks), and with [`Error::Nccl`] when NCCL
    /// refuses (two ranks on one GPU, for one).
    pub fn join_gpu(join: &Join, ordinal: usize) -> Result<Devices, Error> {
        let gpu = Gpu::new(ordinal)?;
        let with_nccl = nccl::present();
        if !with_nccl && join.world() > 1 {
            return Err(Error::NoNccl { gpus: join.world() });
        }
        let (link, secret) = Link::join(join, "GPUs", || {
            if with_nccl {
                nccl::unique_id()
            } else {
                Ok(Vec::new())
            }
        })?;
        let nccl = if with_nccl {
            Some(Nccl::rank(&gpu, join.rank(), join.world(), &secret)?)
        } else {
            None
        };
        Ok(Devices {
            devices: vec![Device::Gpu(gpu.clone())],
            members: Members::Gpus {
                gpus: vec![gpu],
                nccl,
            },
            link: Some(link),
            crew: None,
        })
    }

    /// Joins a job of one process a device as `join`'s rank, on one
    /// emulated device of the CPU backend: the same calls and results as
    /// GPUs, for tests of a job's program without GPUs. The ranks' data
    /// travel through the rendezvous's connections. Fails with
    /// [`Error::Join`] as [`join_gpu`](Self::join_gpu) does.
    pub fn join_cpu(join: &Join) -> Result<Devices, Error> {
        let (link, _) = Link::join(join, "the CPU backend", || Ok(Vec::new()))?;
        let cpu = Cpu::new();
        Ok(Devices {
            devices: vec![Device::Cpu(cpu.clone())],
            members: Members::Cpus(vec![cpu]),
            link: Some(link),
            crew: None,
        })
    }

    /// How many devices of the set this process holds (at least 1): all of
    /// them for a set made in one process, one for a set joined by rank.
    pub fn count(&self) -> usize {
        self.devices.len()
    }

    /// How many ranks the whole set has, over all its processes: the
    /// job's world size for a set joined by rank, else
    /// [`count`](Self::count).
    pub fn world(&self) -> usize {
        self.link.as_ref().map_or(self.devices.len(), Link::world)
    }

    /// The rank of this process's first device: its rank in a job, 0 for a
    /// set made in one process.
    pub fn first_rank(&self) -> usize {
        self.link.as_ref().map_or(0, Link::rank)
    }

    /// This process's device `index` (0 to [`count`](Self::count)` - 1`;
    /// in a set made in one process, the index is the rank), to load
    /// kernels on, upload to and launch on.
    pub fn device(&self, index: usize) -> Option<&Device> {
        self.devices.get(index)
    }

    /// This process's devices, in rank order.
    pub fn iter(&self) -> std::slice::Iter<'_, Device> {
        self.devices.iter()
    }

    /// `f(index)` for each of this process's devices, in order, returning
    /// the results in that order. Several GPUs of one process run their
    /// parts at once, each on a thread of its own (the caller's for the
    /// first), so that one GPU's launches do not wait for another's.
    pub(super) fn each<R: Send>(&self, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
        match &self.crew {
            Some(crew) => crew.each(f),
            None => (0..self.devices.len()).map(f).collect(),
        }
    }

    /// Whether the set was joined by rank (a job of processes), rather
    /// than made in one process.
    pub(super) fn joined(&self) -> bool {
        self.link.is_some()
    }

    /// Whether the set is of GPUs joined by NCCL (`false` for the CPU
    /// backend, and for one GPU without the NCCL library).
    pub fn uses_nccl(&self) -> bool {
        matches!(&self.members, Members::Gpus { nccl: Some(_), .. })
    }

    /// What the set is, for messages: the GPUs and NCCL's version, or the
    /// CPU backend.
    pub fn describe(&self) -> String {
        let here = match &self.members {
            Members::Gpus { gpus, nccl } => {
                let names: Vec<String> = gpus
                    .iter()
                    .map(|g| format!("{} (sm_{})", g.limits().name, g.limits().sm))
                    .collect();
                let joined = match nccl {
                    Some(_) => format!(
                        "NCCL {}",
                        nccl::version().unwrap_or_else(|_| "of unknown version".into())
                    ),
                    None => "no NCCL".into(),
                };
                format!("{} GPU(s): {}; {joined}", gpus.len(), names.join(", "))
            }
            Members::Cpus(cpus) => format!("{} emulated device(s) of the CPU backend", cpus.len()),
        };
        match &self.link {
            Some(link) => format!("rank {} of {}: {here}", link.rank(), link.world()),
            None => here,
        }
    }

    /// Loads the kernels of `ptx` on every device, in rank order (see
    /// [`Device::load`]).
    pub fn load(&self, ptx: &PtxSet) -> Result<Vec<Program>, Error> {
        self.devices.iter().map(|d| d.load(ptx)).collect()
    }

    /// Splits `data` into one contiguous shard a rank, in rank order, and
    /// uploads this process's shards to its devices. The shards differ in
    /// length by at most one element: the first `data.len() % world` take
    /// one more. In a job of several processes every rank passes the same
    /// `data` (or data of the same length) and keeps its own part; a rank
    /// that holds only its own part uploads it with
    /// [`shards`](Self::shards).
    pub fn scatter<T: DeviceCopy>(&self, data: &[T]) -> Result<Shards<T>, Error> {
        let world = self.world();
        let (base, extra) = (data.len() / world, data.len() % world);
        let first = self.first_rank();
        let mut start = base * first + first.min(extra);
        let mut buffers = Vec::with_capacity(self.count());
        for (index, device) in self.devices.iter().enumerate() {
            let len = base + usize::from(first + index < extra);
            buffers.push(device.upload(&data[start..start + len])?);
            start += len;
        }
        Ok(Shards::new(buffers))
    }

    /// Shards of `len` zeroed elements on every device.
    pub fn zeros<T: DeviceCopy>(&self, len: usize) -> Result<Shards<T>, Error> {
        let buffers = self
            .devices
            .iter()
            .map(|d| d.zeros(len))
            .collect::<Result<_, _>>()?;
        Ok(Shards::new(buffers))
    }

    /// Zeroed shards of `like`'s type and lengths, on the same devices:
    /// the output of a call that writes one element for each it reads,
    /// such as a [`Scanner`](super::Scanner)'s. Fails with [`Error::Shards`] when
    /// `like` is not this set's.
    ///
    /// ```
    /// use coop_host::multi::Devices;
    ///
    /// let devices = Devices::cpu(2)?;
    /// let input = devices.scatter(&[1i32, 2, 3])?;
    /// assert_eq!(devices.zeros_like(&input)?.lens(), [2, 1]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn zeros_like<T: DeviceCopy>(&self, like: &Shards<T>) -> Result<Shards<T>, Error> {
        self.check(like, "Devices::zeros_like")?;
        let buffers = self
            .devices
            .iter()
            .zip(like)
            .map(|(d, shard)| d.zeros(shard.len()))
            .collect::<Result<_, _>>()?;
        Ok(Shards::new(buffers))
    }

    /// Buffers you made, one a device in rank order (data already on the
    /// GPUs), as shards. Fails with [`Error::Shards`] when their number is
    /// not the set's or buffer `i` is not on device `i`.
    pub fn shards<T>(&self, buffers: Vec<Buffer<T>>) -> Result<Shards<T>, Error> {
        let shards = Shards::new(buffers);
        self.check(&shards, "Devices::shards")?;
        Ok(shards)
    }

    /// The shards' contents, concatenated in rank order, once the work
    /// before on every device has finished. In a job of several processes
    /// this is a collective: every rank gets every rank's shard.
    pub fn gather<T: DeviceCopy>(&self, shards: &Shards<T>) -> Result<Vec<T>, Error> {
        const CALL: &str = "Devices::gather";
        self.check(shards, CALL)?;
        self.settle(CALL)?;
        let mut out = Vec::with_capacity(shards.len());
        for (device, shard) in self.devices.iter().zip(shards) {
            out.extend(device.download(shard)?);
        }
        match self.across(CALL, std::any::type_name::<T>(), wire::bytes_of(&out))? {
            None => Ok(out),
            Some(parts) => parts
                .iter()
                .try_fold(Vec::new(), |mut all, part| {
                    all.extend(wire::values_of::<T>(part)?);
                    Some(all)
                })
                .ok_or_else(|| self.garbled(CALL)),
        }
    }

    /// Waits until the work queued on this process's devices has finished;
    /// a kernel fault surfaces as [`Error::KernelFault`]. In a job of
    /// several processes, a rank that fails meanwhile ends the wait with
    /// [`Error::Rank`] (the others' work is not waited for: this is not a
    /// collective).
    pub fn synchronize(&self) -> Result<(), Error> {
        self.settle("Devices::synchronize")
    }

    /// Waits for this process's GPUs; in a job of several processes,
    /// watching the other ranks and NCCL's asynchronous errors, and
    /// aborting the communicator when one fails.
    pub(super) fn settle(&self, call: &'static str) -> Result<(), Error> {
        let Members::Gpus { gpus, nccl } = &self.members else {
            return Ok(());
        };
        let Some(link) = &self.link else {
            // Each GPU's wait on its own thread: the waits return at once
            // when the GPUs are done, not one context switch after another.
            return self.each(|i| gpus[i].synchronize()).into_iter().collect();
        };
        for gpu in gpus {
            let mut heard = false;
            // Polls at most 50 µs apart: a job's calls are as fast as one
            // process's, whose driver wait returns at the kernel's end.
            let waited = gpu.synchronize_watching(gpu.wait_limit(), POLL, || {
                if let Some(failure) = link.failure() {
                    heard = true;
                    return Err(failure.error(call));
                }
                nccl.as_ref().map_or(Ok(()), |n| n.check(call))
            });
            if let Err(e) = waited {
                // Whatever failed here (a kernel fault, NCCL's error, a
                // timeout), the other ranks may be waiting for this one in
                // NCCL: tell them, and end this rank's side.
                if !heard {
                    link.abandon(format!("failed while waiting for its GPU: {e}"));
                }
                self.abort();
                return Err(e);
            }
        }
        Ok(())
    }

    /// For a set joined by rank: posts this rank's part of collective
    /// `call` (`None` for a set made in one process). See
    /// [`Link::post`].
    pub(super) fn post(
        &self,
        call: &'static str,
        ty: &'static str,
        bytes: Vec<u8>,
    ) -> Result<Option<Posted>, Error> {
        match &self.link {
            Some(link) => link.post(call, ty, bytes).map(Some),
            None => Ok(None),
        }
    }

    /// Every rank's part of `posted`'s collective, in rank order (`None`
    /// for a set made in one process); on a failure the set's NCCL
    /// communicator is aborted, since NCCL's side of the call may never
    /// end.
    pub(super) fn collect(&self, posted: Option<Posted>) -> Result<Option<Vec<Vec<u8>>>, Error> {
        let (Some(link), Some(posted)) = (&self.link, posted) else {
            return Ok(None);
        };
        link.collect(posted).map(Some).inspect_err(|_| self.abort())
    }

    /// [`post`](Self::post) then [`collect`](Self::collect).
    pub(super) fn across(
        &self,
        call: &'static str,
        ty: &'static str,
        bytes: Vec<u8>,
    ) -> Result<Option<Vec<Vec<u8>>>, Error> {
        let posted = self.post(call, ty, bytes)?;
        self.collect(posted)
    }

    /// The one length of `shards` for an element-wise collective `call`:
    /// this process's shards must agree, and in a job of GPUs (where NCCL
    /// would read past a shorter shard) every rank's, checked through the
    /// rendezvous before NCCL sees the call; the CPU backend's ranks check
    /// the parts they receive with [`same_lengths`](Self::same_lengths).
    pub(super) fn one_length<T>(
        &self,
        call: &'static str,
        what: &str,
        shards: &Shards<T>,
    ) -> Result<usize, Error> {
        self.check(shards, call)?;
        let lens = shards.lens();
        if lens.iter().any(|&len| len != lens[0]) {
            return Err(Error::Shards {
                call,
                problem: format!(
                    "the shards' lengths differ ({lens:?}); {what} needs shards of one length"
                ),
            });
        }
        if let Members::Gpus { nccl: Some(_), .. } = &self.members {
            let ty = std::any::type_name::<T>();
            let len = (lens[0] as u64).to_le_bytes().to_vec();
            if let Some(parts) = self.across(call, ty, len)? {
                let lens: Vec<usize> = parts
                    .iter()
                    .map(|p| wire::values_of::<u64>(p).map_or(usize::MAX, |v| v[0] as usize))
                    .collect();
                self.same_lengths(call, what, &lens)?;
            }
        }
        Ok(lens[0])
    }

    /// The error for ranks whose shards differ in length (`lens`, in rank
    /// order), the same on every rank.
    pub(super) fn same_lengths(
        &self,
        call: &'static str,
        what: &str,
        lens: &[usize],
    ) -> Result<(), Error> {
        match lens.iter().position(|&len| len != lens[0]) {
            None => Ok(()),
            Some(rank) => Err(Error::Shards {
                call,
                problem: format!(
                    "rank {rank}'s shard has {} elements and rank 0's {}; {what} needs shards \
                     of one length on every rank",
                    lens[rank], lens[0]
                ),
            }),
        }
    }

    /// The error for parts another rank sent that do not decode as the
    /// call's type (ranks built from different sources).
    pub(super) fn garbled(&self, call: &'static str) -> Error {
        Error::Rank {
            call,
            rank: 0,
            problem: "sent values of another size for the same type name: the ranks run \
                      programs built differently"
                .into(),
        }
    }

    /// `error`, found by this rank in the middle of a collective (NCCL
    /// refused its part): in a set joined by rank the other ranks, which
    /// may wait for this one in NCCL, are told, and the communicator is
    /// aborted.
    pub(super) fn failed_here(&self, error: Error) -> Error {
        if let Some(link) = &self.link {
            link.abandon(format!("failed in a collective call: {error}"));
            self.abort();
        }
        error
    }

    /// Aborts the set's NCCL communicators, if any.
    fn abort(&self) {
        if let Members::Gpus {
            nccl: Some(nccl), ..
        } = &self.members
        {
            nccl.abort();
        }
    }

    /// The members, for the collectives.
    pub(super) fn members(&self) -> &Members {
        &self.members
    }

    /// Checks that `shards` has one buffer a device and buffer `i` is on
    /// device `i`.
    pub(super) fn check<T>(&self, shards: &Shards<T>, call: &'static str) -> Result<(), Error> {
        if shards.count() != self.count() {
            return Err(Error::Shards {
                call,
                problem: format!(
                    "{} shard(s) for a set of {} device(s); give one buffer a device, in \
                     rank order",
                    shards.count(),
                    self.count()
                ),
            });
        }
        for (rank, (device, shard)) in self.devices.iter().zip(shards).enumerate() {
            let placed = match (device, shard) {
                (Device::Gpu(gpu), Buffer::Gpu(slice)) => {
                    slice.context().ordinal() == gpu.context().ordinal()
                }
                (Device::Cpu(_), Buffer::Cpu(_)) => true,
                _ => false,
            };
            if !placed {
                let held = match shard {
                    Buffer::Gpu(slice) => format!("GPU {}", slice.context().ordinal()),
                    Buffer::Cpu(_) => "the CPU backend (host memory)".into(),
                };
                let wanted = match device {
                    Device::Gpu(gpu) => format!("GPU {}", gpu.context().ordinal()),
                    Device::Cpu(_) => "the CPU backend (host memory)".into(),
                };
                return Err(Error::Shards {
                    call,
                    problem: format!(
                        "shard {rank} is on {held}, but rank {rank} of the set is {wanted}; \
                         make shard i on device i (Devices::scatter, Devices::zeros, or \
                         devices.device(i) for uploads)"
                    ),
                });
            }
        }
        Ok(())
    }
}

impl Drop for Devices {
    /// In a job, a rank waits for its GPUs before it leaves (unless a rank
    /// failed): its NCCL communicator is aborted on drop, and a
    /// collective still running would leave the other ranks waiting.
    fn drop(&mut self) {
        let abandoned = match &self.members {
            Members::Gpus { gpus, .. } => gpus.iter().any(Gpu::is_abandoned),
            Members::Cpus(_) => false,
        };
        // A GPU given up on after a timeout runs a kernel that never ends:
        // waiting for it would hang the exit.
        if !abandoned && self.link.as_ref().is_some_and(|l| l.failure().is_none()) {
            let _ = self.settle("dropping a set of devices");
        }
    }
}

/// The longest pause between two polls of a GPU in a job's wait.
const POLL: Duration = Duration::from_micros(50);

/// The error for a set of no devices.
fn no_devices(call: &'static str) -> Error {
    Error::Shards {
        call,
        problem: "a set needs at least one device".into(),
    }
}
