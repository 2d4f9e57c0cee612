//! Several devices of one machine working on one array: [`Devices`] (a
//! set of GPUs joined by NCCL, or emulated devices of the CPU backend),
//! [`Shards`] (one buffer a device), and the collectives over them:
//! [`Reducer`] for device-wide reductions of sharded arrays, [`Scanner`]
//! for their scans, [`Sorter`] for their sorts, and
//! [`Devices::all_reduce`], [`Devices::all_gather`] and
//! [`Devices::reduce_scatter`] for the element-wise collectives.
//!
//! ```text
//!   Devices ── one Device a rank ── Shards<T>: shard i on device i
//!      │
//!      ├─ Reducer::sum/min/max   each GPU reduces its shard (coop's kernel),
//!      │                         the host adds the totals in rank order
//!      │                         (all_sum/…: NCCL all-reduces them, 1 element)
//!      ├─ Reducer::reduce_with   your kernel per GPU, totals combined by coop
//!      ├─ Scanner::inclusive/exclusive  each GPU reduces its shard, NCCL
//!      │                         all-gathers the totals, each GPU scans its
//!      │                         shard with those before it in front
//!      ├─ Sorter::keys           each GPU sorts its shard, splitters from
//!      │                         samples, NCCL send/receive of the runs,
//!      │                         each GPU sorts what it received
//!      ├─ Devices::all_reduce    NCCL all-reduce, element by element
//!      ├─ Devices::all_gather    every shard on every device
//!      └─ Devices::reduce_scatter  the element-wise combination, a block a device
//! ```
//!
//! A set is made in one of two ways:
//!
//! - **one process for all devices** ([`Devices::all_gpus`],
//!   [`Devices::gpus`], [`Devices::cpu`]): coop drives the GPUs from the
//!   calling thread and a kept thread for each other GPU, so that their
//!   launches go out at once; NCCL's single-process mode (`ncclCommInitAll`);
//! - **one process a device** ([`Devices::join`] with a [`Join`]): each
//!   process of a job started by a launcher (`torchrun`, `mpirun`, `srun`)
//!   owns one GPU and joins the others by rank, world size and a
//!   [`Rendezvous`] through which rank 0 shares NCCL's unique id
//!   (`ncclCommInitRank`). The same [`Shards`] and [`Reducer`] calls then
//!   combine across the processes; a rank that crashes, leaves, is late or
//!   makes another call ends the others' call with
//!   [`Error::Rank`](crate::Error::Rank) naming it instead of a hang.
//!
//! ```text
//!   job of 3 processes      rank 0 ──── rank 1 ──── rank 2      (NCCL: the GPUs' data)
//!   (torchrun / mpirun)       └──── rendezvous (TCP) ────┘       (the id, checks, failures,
//!                                                                  the CPU backend's data)
//! ```
//!
//! NCCL is loaded at run time, like the CUDA driver: a machine without it
//! gets [`Error::NoNccl`](crate::Error::NoNccl) when it asks for several
//! GPUs, and everything runs on the CPU backend with any number of
//! emulated devices (or processes of one emulated device each), with the
//! same results (see [`Reducer`] for float sums).
//!
//! ```
//! use coop_host::multi::{Devices, Reducer};
//!
//! let devices = Devices::all_gpus().or_else(|_| Devices::cpu(2))?;
//! println!("{}", devices.describe());
//! let data: Vec<u32> = (0..100_000).collect();
//! let shards = devices.scatter(&data)?; // one slice a device
//! let reducer = Reducer::new(&devices)?;
//! assert_eq!(reducer.max(&shards)?, 99_999);
//! assert_eq!(reducer.sum(&shards)?, (0..100_000u32).fold(0, u32::wrapping_add));
//! # Ok::<(), coop_host::Error>(())
//! ```

mod all_reduce;
mod crew;
mod devices;
mod exchange;
mod join;
mod link;
mod nccl;
mod reducer;
mod scanner;
mod shards;
mod sorter;
mod wire;

pub use devices::Devices;
pub use join::{Join, Rendezvous};
pub use nccl::NcclOp;
pub use reducer::Reducer;
pub use scanner::Scanner;
pub use shards::Shards;
pub use sorter::Sorter;
