//! Block-wide votes (CUDA's `__syncthreads_count`, `_and`, `_or`): a block
//! barrier that also reduces a predicate, built on the block reduction.

use super::Group;
use crate::ThreadBlock;
use crate::backend::Naming;
use crate::backend::target::Target;

impl ThreadBlock {
    /// A block barrier ([`sync`](Self::sync)) that also counts the threads
    /// of the block whose `predicate` holds; every thread gets the count.
    /// The same rule as `sync`: every thread of the block reaches the call.
    ///
    /// It is a block reduction of the predicate (`redux.sync` per warp and
    /// two `barrier.sync`), not PTX's `barrier.red.popc` (CUDA's
    /// `__syncthreads_count`): on an H100, `barrier.red` gave a thread a
    /// count of 0 when the compiler had split its warp between two copies of
    /// the instruction (a guarded load before it), and coop emits nothing
    /// that such a copy breaks. Writes made before the call are visible to
    /// the whole block after it, as with `sync`. Like every block
    /// reduction, it needs a block of whole warps (a multiple of 32
    /// threads); the CPU backend reports any other block.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// How many of the block's elements are positive, in every thread.
    /// #[kernel]
    /// pub fn positives(block: ThreadBlock, input: &[i32], out: Out<u32>) {
    ///     let i = this_grid().thread_rank();
    ///     let positive = i < input.len() && input[i] > 0;
    ///     let count = block.sync_count(positive);
    ///     if i < out.len() {
    ///         out.write(i, count);
    ///     }
    /// }
    ///
    /// let input = [3, -1, 4, 0, 5, -9, 2];
    /// let mut out = vec![0u32; 7];
    /// Cpu::new().launch(positives, LaunchConfig::new(1, 32), (&input[..], &mut out))?;
    /// assert_eq!(out, [4; 7]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[doc(alias = "__syncthreads_count")]
    #[inline(always)]
    #[track_caller]
    pub fn sync_count(&self, predicate: bool) -> u32 {
        let site = core::panic::Location::caller();
        Target::entering("sync_count", site);
        self.reduce_in(predicate as u32, crate::op::Sum, site)
    }

    /// A block barrier ([`sync`](Self::sync)) that tells every thread
    /// whether `predicate` holds in every thread of the block.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn sorted(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    ///     let t = block.thread_rank() as usize;
    ///     let in_order = t == 0 || t >= input.len() || input[t - 1] <= input[t];
    ///     let all = block.sync_all(in_order);
    ///     if t == 0 {
    ///         out.write(0, all as u32);
    ///     }
    /// }
    ///
    /// let mut out = vec![0u32; 1];
    /// Cpu::new().launch(sorted, LaunchConfig::new(1, 64), (&[1, 2, 2, 7][..], &mut out))?;
    /// assert_eq!(out, [1]);
    /// Cpu::new().launch(sorted, LaunchConfig::new(1, 64), (&[1, 3, 2][..], &mut out))?;
    /// assert_eq!(out, [0]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[doc(alias = "__syncthreads_and")]
    #[inline(always)]
    #[track_caller]
    pub fn sync_all(&self, predicate: bool) -> bool {
        let site = core::panic::Location::caller();
        Target::entering("sync_all", site);
        self.reduce_in(predicate as u32, crate::op::Min, site) == 1
    }

    /// A block barrier ([`sync`](Self::sync)) that tells every thread
    /// whether `predicate` holds in any thread of the block.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// /// Iterate until no thread of the block has work left.
    /// #[kernel]
    /// pub fn countdown(block: ThreadBlock, start: &[u32], rounds: Out<u32>) {
    ///     let t = block.thread_rank() as usize;
    ///     let mut left = start[t];
    ///     let mut n = 0;
    ///     while block.sync_any(left > 0) {
    ///         left = left.saturating_sub(1);
    ///         n += 1;
    ///     }
    ///     rounds.write(t, n);
    /// }
    ///
    /// let mut start = vec![0u32; 32];
    /// start[1..4].copy_from_slice(&[3, 1, 2]);
    /// let mut rounds = vec![0u32; 32];
    /// Cpu::new().launch(countdown, LaunchConfig::new(1, 32), (&start[..], &mut rounds))?;
    /// assert_eq!(rounds, [3; 32]); // every thread loops until the last is done
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[doc(alias = "__syncthreads_or")]
    #[inline(always)]
    #[track_caller]
    pub fn sync_any(&self, predicate: bool) -> bool {
        let site = core::panic::Location::caller();
        Target::entering("sync_any", site);
        self.reduce_in(predicate as u32, crate::op::Max, site) == 1
    }
}
