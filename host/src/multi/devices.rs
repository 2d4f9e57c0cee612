//! [`Devices`]: the GPUs of one machine joined by NCCL, or emulated devices
//! on the CPU backend; sharding arrays over them and gathering them back.

use super::nccl::{self, Nccl};
use super::Shards;
use crate::{Buffer, Cpu, Device, Error, Gpu, Program, PtxSet};
use coop::DeviceCopy;

/// A set of devices that work on one sharded array: GPUs of this machine,
/// joined by NCCL when there are several, or emulated devices of the CPU
/// backend for tests and machines without GPUs.
///
/// A set is all GPUs or all CPU backend, each device once; device `i`
/// holds shard `i` of every [`Shards`] the set makes.
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
            members: Members::Gpus { gpus, nccl },
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
        })
    }

    /// How many devices the set has (at least 1).
    pub fn count(&self) -> usize {
        self.devices.len()
    }

    /// Device `rank`, to load kernels on, upload to and launch on.
    pub fn device(&self, rank: usize) -> Option<&Device> {
        self.devices.get(rank)
    }

    /// The devices, in rank order.
    pub fn iter(&self) -> std::slice::Iter<'_, Device> {
        self.devices.iter()
    }

    /// Whether the set is of GPUs joined by NCCL (`false` for the CPU
    /// backend, and for one GPU without the NCCL library).
    pub fn uses_nccl(&self) -> bool {
        matches!(&self.members, Members::Gpus { nccl: Some(_), .. })
    }

    /// What the set is, for messages: the GPUs and NCCL's version, or the
    /// CPU backend.
    pub fn describe(&self) -> String {
        match &self.members {
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
        }
    }

    /// Loads the kernels of `ptx` on every device, in rank order (see
    /// [`Device::load`]).
    pub fn load(&self, ptx: &PtxSet) -> Result<Vec<Program>, Error> {
        self.devices.iter().map(|d| d.load(ptx)).collect()
    }

    /// Splits `data` into one contiguous shard a device, in rank order, and
    /// uploads each to its device. The shards differ in length by at most
    /// one element: the first `data.len() % count` take one more.
    pub fn scatter<T: DeviceCopy>(&self, data: &[T]) -> Result<Shards<T>, Error> {
        let count = self.count();
        let (base, extra) = (data.len() / count, data.len() % count);
        let mut start = 0;
        let mut buffers = Vec::with_capacity(count);
        for (rank, device) in self.devices.iter().enumerate() {
            let len = base + usize::from(rank < extra);
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

    /// Buffers you made, one a device in rank order (data already on the
    /// GPUs), as shards. Fails with [`Error::Shards`] when their number is
    /// not the set's or buffer `i` is not on device `i`.
    pub fn shards<T>(&self, buffers: Vec<Buffer<T>>) -> Result<Shards<T>, Error> {
        let shards = Shards::new(buffers);
        self.check(&shards, "Devices::shards")?;
        Ok(shards)
    }

    /// The shards' contents, concatenated in rank order, once the work
    /// before on every device has finished.
    pub fn gather<T: DeviceCopy>(&self, shards: &Shards<T>) -> Result<Vec<T>, Error> {
        self.check(shards, "Devices::gather")?;
        let mut out = Vec::with_capacity(shards.len());
        for (device, shard) in self.devices.iter().zip(shards) {
            out.extend(device.download(shard)?);
        }
        Ok(out)
    }

    /// Waits until the work queued on every device has finished; a kernel
    /// fault surfaces as [`Error::KernelFault`].
    pub fn synchronize(&self) -> Result<(), Error> {
        match &self.members {
            Members::Gpus { gpus, .. } => gpus.iter().try_for_each(Gpu::synchronize),
            Members::Cpus(_) => Ok(()),
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

/// The error for a set of no devices.
fn no_devices(call: &'static str) -> Error {
    Error::Shards {
        call,
        problem: "a set needs at least one device".into(),
    }
}
