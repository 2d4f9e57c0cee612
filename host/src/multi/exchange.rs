//! The collectives that move shards between the ranks: all-gather (every
//! rank gets every shard) and reduce-scatter (the element-wise combination
//! of the shards, one block a rank): NCCL's on GPUs, the same in rank
//! order on the CPU backend.

use super::devices::Members;
use super::nccl::{self, Comm, NcclOp};
use super::{wire, Devices, Shards};
use crate::{Buffer, Error};
use coop::op::Operator;
use coop::DeviceCopy;
use cudarc::driver::CudaSlice;
use cudarc::nccl::NcclType;

impl Devices {
    /// Every rank's shard, concatenated in rank order, as a new shard on
    /// every device: element `j` of rank `r`'s shard lands at `r * len +
    /// j` of each result. The shards must have one length (`len`) on every
    /// rank.
    ///
    /// On GPUs this is NCCL's all-gather, queued on each GPU's stream (the
    /// call does not wait for it); on the CPU backend the shards are
    /// copied. In a job of one process a GPU, each rank calls it with its
    /// own shard.
    ///
    /// ```
    /// use coop_host::multi::Devices;
    ///
    /// let devices = Devices::cpu(3)?; // or Devices::all_gpus()?
    /// let shards = devices.scatter(&[1u32, 2, 3, 4, 5, 6])?; // two a device
    /// let everywhere = devices.all_gather(&shards)?;
    /// assert_eq!(everywhere.lens(), [6, 6, 6]);
    /// assert_eq!(devices.gather(&everywhere)?, [1, 2, 3, 4, 5, 6].repeat(3));
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn all_gather<T>(&self, shards: &Shards<T>) -> Result<Shards<T>, Error>
    where
        T: NcclType + DeviceCopy,
    {
        const CALL: &str = "Devices::all_gather";
        const WHAT: &str = "an all-gather";
        let len = self.one_length(CALL, WHAT, shards)?;
        let world = self.world();
        let mut out = self.zeros::<T>(len * world)?;
        match self.members() {
            Members::Gpus { .. } => self.on_gpus(shards, &mut out, |comm, from, to, rank| {
                comm.all_gather(from, to).map_err(nccl::error(format!(
                    "gathering {len} elements a rank on rank {rank}"
                )))
            })?,
            Members::Cpus(_) => {
                let all = self.cpu_shards(CALL, WHAT, shards)?;
                let joined: Vec<T> = all.concat();
                for shard in out.iter_mut() {
                    *shard = Buffer::Cpu(joined.clone());
                }
            }
        }
        Ok(out)
    }

    /// The shards combined element by element with `op`, scattered: rank
    /// `r` gets block `r` (elements `r * len / world` to `(r + 1) * len /
    /// world`) of the combination, as a new shard. The shards must have
    /// one length on every rank, a multiple of the number of ranks.
    ///
    /// On GPUs this is NCCL's reduce-scatter, queued on each GPU's stream
    /// (the call does not wait for it); on the CPU backend the shards are
    /// combined in rank order. `op` and `T` are as for
    /// [`all_reduce`](Self::all_reduce), and so are the last bits of float
    /// sums over more than two devices.
    ///
    /// ```
    /// use coop::op::Sum;
    /// use coop_host::multi::Devices;
    ///
    /// let devices = Devices::cpu(2)?; // or Devices::all_gpus()?
    /// let grads = devices.shards(vec![
    ///     devices.device(0).unwrap().upload(&[1.0f32, 2.0, 3.0, 4.0])?,
    ///     devices.device(1).unwrap().upload(&[10.0f32, 20.0, 30.0, 40.0])?,
    /// ])?;
    /// let mine = devices.reduce_scatter(&grads, Sum)?; // half of the sum a device
    /// assert_eq!(devices.gather(&mine)?, [11.0, 22.0, 33.0, 44.0]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn reduce_scatter<T, O>(&self, shards: &Shards<T>, op: O) -> Result<Shards<T>, Error>
    where
        T: NcclType + DeviceCopy,
        O: NcclOp + Operator<T>,
    {
        const CALL: &str = "Devices::reduce_scatter";
        const WHAT: &str = "a reduce-scatter";
        let len = self.one_length(CALL, WHAT, shards)?;
        let world = self.world();
        if len % world != 0 {
            return Err(Error::Shards {
                call: CALL,
                problem: format!(
                    "shards of {len} elements cannot be split into {world} equal blocks, one \
                     a rank; give shards of a multiple of {world} elements (pad them with \
                     the operator's identity)"
                ),
            });
        }
        let block = len / world;
        let mut out = self.zeros::<T>(block)?;
        match self.members() {
            Members::Gpus { .. } => self.on_gpus(shards, &mut out, |comm, from, to, rank| {
                comm.reduce_scatter(from, to, O::nccl())
                    .map_err(nccl::error(format!(
                        "reduce-scattering {len} elements on rank {rank}"
                    )))
            })?,
            Members::Cpus(_) => {
                let all = self.cpu_shards(CALL, WHAT, shards)?;
                let first = self.first_rank();
                for (index, shard) in out.iter_mut().enumerate() {
                    let start = (first + index) * block;
                    let combined: Vec<T> = (start..start + block)
                        .map(|j| {
                            all[1..]
                                .iter()
                                .fold(all[0][j], |acc, v| op.combine(acc, v[j]))
                        })
                        .collect();
                    *shard = Buffer::Cpu(combined);
                }
            }
        }
        Ok(out)
    }

    /// Queues `each(communicator, shard, result, rank)` for every GPU of
    /// this process in one NCCL group; a lone GPU without NCCL copies its
    /// shard into its result instead (what both collectives give over one
    /// rank).
    fn on_gpus<T: DeviceCopy>(
        &self,
        shards: &Shards<T>,
        out: &mut Shards<T>,
        each: impl Fn(&Comm, &CudaSlice<T>, &mut CudaSlice<T>, usize) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let Members::Gpus { gpus, nccl } = self.members() else {
            unreachable!("called for GPUs");
        };
        let mut pairs: Vec<(&CudaSlice<T>, &mut CudaSlice<T>)> = shards
            .iter()
            .zip(out.iter_mut())
            .map(|pair| match pair {
                (Buffer::Gpu(from), Buffer::Gpu(to)) => (from, to),
                _ => unreachable!("`check` placed every shard on its GPU"),
            })
            .collect();
        match nccl {
            Some(nccl) => {
                let first = self.first_rank();
                nccl.group("exchanging the shards", |index, comm| {
                    let (from, to) = &mut pairs[index];
                    each(comm, from, to, first + index)
                })
                .map_err(|e| self.failed_here(e))
            }
            None => {
                let (from, to) = &mut pairs[0];
                gpus[0]
                    .stream()
                    .memcpy_dtod(*from, *to)
                    .map_err(gpus[0].error("copying a shard on the GPU"))
            }
        }
    }

    /// Every rank's shard on the CPU backend, in rank order: this
    /// process's own, and in a job the others' through the rendezvous
    /// (checked to be of one length).
    pub(super) fn cpu_shards<T: DeviceCopy>(
        &self,
        call: &'static str,
        what: &str,
        shards: &Shards<T>,
    ) -> Result<Vec<Vec<T>>, Error> {
        let mine: Vec<Vec<T>> = shards
            .iter()
            .map(|b| match b {
                Buffer::Cpu(v) => v.clone(),
                Buffer::Gpu(_) => unreachable!("`check` placed every shard in host memory"),
            })
            .collect();
        let ty = std::any::type_name::<T>();
        let Some(parts) = self.across(call, ty, wire::bytes_of(&mine.concat()))? else {
            return Ok(mine);
        };
        let all = parts
            .iter()
            .map(|p| wire::values_of::<T>(p).ok_or_else(|| self.garbled(call)))
            .collect::<Result<Vec<_>, _>>()?;
        self.same_lengths(call, what, &all.iter().map(Vec::len).collect::<Vec<_>>())?;
        Ok(all)
    }
}
