//! Element-wise all-reduce of whole shards, the data-parallel collective:
//! NCCL's `ncclAllReduce` on GPUs, the same combination in rank order on
//! the CPU backend.

use super::devices::Members;
use super::nccl::{self, NcclOp};
use super::{Devices, Shards};
use crate::{Buffer, Error};
use coop::op::Operator;
use coop::DeviceCopy;
use cudarc::nccl::NcclType;

impl Devices {
    /// Combines the shards element by element with `op` and leaves the
    /// result in every shard: afterwards element `j` of each shard is
    /// `op` over element `j` of all shards. The shards must have the same
    /// length.
    ///
    /// On GPUs this is NCCL's all-reduce, queued on each GPU's stream after
    /// the work before it (the call does not wait for it); on the CPU
    /// backend the shards are combined in rank order. `op` is [`Sum`],
    /// [`Product`], [`Min`] or [`Max`] (integers wrap, float minimum and
    /// maximum ignore NaN); `T` is one of NCCL's types (`f32`, `f64`,
    /// `i8`, `u8`, `i32`, `u32`, `i64`, `u64`).
    ///
    /// Float sums and products over more than two devices may differ in
    /// the last bits between GPUs (NCCL picks the order, by its algorithm)
    /// and the CPU backend (rank order); over two, they match.
    ///
    /// In a set joined by rank, every rank calls it with its own shard of
    /// the same length (checked through the rendezvous before NCCL sees
    /// the call: a rank whose shard differs gets [`Error::Shards`] on
    /// every rank).
    ///
    /// [`Sum`]: coop::op::Sum
    /// [`Product`]: coop::op::Product
    /// [`Min`]: coop::op::Min
    /// [`Max`]: coop::op::Max
    ///
    /// ```
    /// use coop::op::Sum;
    /// use coop_host::multi::Devices;
    ///
    /// let devices = Devices::cpu(2)?; // or Devices::all_gpus()?
    /// let mut grads = devices.zeros::<f32>(3)?;
    /// // Each device computes its own gradients ...
    /// *grads.get_mut(0).unwrap() = devices.device(0).unwrap().upload(&[1.0f32, 2.0, 3.0])?;
    /// *grads.get_mut(1).unwrap() = devices.device(1).unwrap().upload(&[10.0f32, 20.0, 30.0])?;
    /// // ... and all of them get the sum.
    /// devices.all_reduce(&mut grads, Sum)?;
    /// assert_eq!(devices.gather(&grads)?, [11.0, 22.0, 33.0, 11.0, 22.0, 33.0]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn all_reduce<T, O>(&self, shards: &mut Shards<T>, op: O) -> Result<(), Error>
    where
        T: NcclType + DeviceCopy,
        O: NcclOp + Operator<T>,
    {
        const CALL: &str = "Devices::all_reduce";
        const WHAT: &str = "an element-wise all-reduce";
        let len = self.one_length(CALL, WHAT, shards)?;
        match self.members() {
            Members::Gpus { nccl: None, .. } | Members::Cpus(_) if self.world() == 1 => Ok(()),
            Members::Gpus {
                nccl: Some(nccl), ..
            } => {
                let first = self.first_rank();
                let mut buffers: Vec<_> = shards.iter_mut().collect();
                nccl.group("all-reducing the shards", |index, comm| {
                    let Buffer::Gpu(slice) = &mut *buffers[index] else {
                        unreachable!("`check` placed every shard on its GPU");
                    };
                    comm.all_reduce_in_place(slice, O::nccl())
                        .map_err(nccl::error(format!(
                            "all-reducing {len} elements on rank {}",
                            first + index
                        )))
                })
                .map_err(|e| self.failed_here(e))
            }
            Members::Gpus { nccl: None, .. } => unreachable!("a set of several GPUs has NCCL"),
            Members::Cpus(_) => {
                // Every rank's shard (the others' through the rendezvous in
                // a job), combined in rank order into this process's.
                let all = self.cpu_shards(CALL, WHAT, shards)?;
                let combined: Vec<T> = (0..len)
                    .map(|j| {
                        all[1..]
                            .iter()
                            .fold(all[0][j], |acc, v| op.combine(acc, v[j]))
                    })
                    .collect();
                for shard in shards.iter_mut() {
                    *shard = Buffer::Cpu(combined.clone());
                }
                Ok(())
            }
        }
    }
}
