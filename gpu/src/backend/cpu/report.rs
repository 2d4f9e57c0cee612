//! What a CPU launch reports: counts of steps and collectives, and the
//! shared-memory traffic of every access site.

use core::fmt;

/// Where in a kernel's source a call was made (`file:line:column`).
///
/// ```
/// let site: coop::cpu::Site = core::panic::Location::caller();
/// assert!(site.file().ends_with(".rs"));
/// ```
pub type Site = &'static core::panic::Location<'static>;

/// What a launch did.
///
/// ```
/// use coop::prelude::*;
///
/// #[kernel]
/// pub fn two_steps(block: ThreadBlock) {
///     let warp = block.tiled_partition::<32>();
///     warp.sync();
///     block.sync();
/// }
///
/// let report = coop_host::Cpu::new().launch(two_steps, coop_host::LaunchConfig::new(3, 64), ())?;
/// assert_eq!((report.blocks, report.threads), (3, 192));
/// assert_eq!(report.warp_collectives, 3 * 2); // one per warp
/// assert_eq!(report.block_barriers, 3); // one per block
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Blocks run.
    pub blocks: u64,
    /// Threads run.
    pub threads: u64,
    /// Warp collectives completed (one per tile per call).
    pub warp_collectives: u64,
    /// Block barriers completed (one per block per call).
    pub block_barriers: u64,
    /// Grid syncs completed (one per launch per call; a cooperative
    /// launch's only).
    pub grid_syncs: u64,
    /// Cluster syncs completed (one per cluster per call; a launch in
    /// clusters only).
    pub cluster_syncs: u64,
    /// Steps taken by all threads (calls of handle methods).
    pub steps: u64,
    /// Shared-memory traffic per access site, in source order: how many
    /// warp-wide requests each site made and how many bank transactions
    /// they needed (see [`SharedSite`]).
    pub shared: Vec<SharedSite>,
}

impl Report {
    /// The shared-memory sites on source line `line` (of any file), in
    /// column order.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop::shared::{ByRank, Shared};
    ///
    /// #[kernel]
    /// pub fn copy(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
    ///     let r = block.thread_rank() as usize;
    ///     let mine = buf.own(ByRank::new());
    ///     mine.set(r as u32); let all = mine.publish(&block); out.write(r, all.get(r)); // line 8
    /// }
    ///
    /// let mut out = vec![0u32; 64];
    /// let report = coop_host::Cpu::new().launch(copy, coop_host::LaunchConfig::new(1, 64), (&mut out,))?;
    /// let sites = report.shared_at_line(line!() - 5);
    /// assert_eq!(sites.len(), 2); // the store, then the load
    /// assert_eq!((sites[0].requests, sites[0].transactions), (2, 2)); // one per warp
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn shared_at_line(&self, line: u32) -> Vec<&SharedSite> {
        let mut sites: Vec<&SharedSite> = self
            .shared
            .iter()
            .filter(|s| s.site.line() == line)
            .collect();
        sites.sort_by_key(|s| s.site.column());
        sites
    }
}

/// A shared-memory access's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AccessKind {
    /// A load.
    Read,
    /// A store.
    Write,
    /// An atomic read-modify-write (a shared array's atomic phase):
    /// ordered with the other atomic accesses to the element, racing with
    /// any plain access not separated from it by a barrier.
    Atomic,
}

impl fmt::Display for AccessKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AccessKind::Read => "reads",
            AccessKind::Write => "writes",
            AccessKind::Atomic => "atomically updates",
        })
    }
}

/// One thread's access of a shared element, as a diagnostic names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedAccess {
    /// The thread's rank in its block.
    pub thread: u32,
    /// Load or store.
    pub kind: AccessKind,
    /// Where in the kernel.
    pub site: Site,
}

/// The shared-memory traffic of one access site of a launch.
///
/// The threads of a warp that execute a site together make one request;
/// shared memory serves it in as many transactions as the largest number
/// of distinct 4-byte words any one of its 32 banks must deliver (bank =
/// word address mod 32; threads reading the same word share it). A
/// conflict-free request takes 1 transaction; 32 threads reading down one
/// column of a 32 x 32 `f32` tile take 32. `transactions / requests` is
/// the profiler's `shared_load_transactions_per_request` (and store).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedSite {
    /// The access's place in the kernel.
    pub site: Site,
    /// The array's parameter name.
    pub array: &'static str,
    /// Loads or stores.
    pub kind: AccessKind,
    /// Warp-wide requests.
    pub requests: u64,
    /// Bank transactions they took.
    pub transactions: u64,
}

impl SharedSite {
    /// Average transactions per request: 1.0 without bank conflicts.
    ///
    /// ```
    /// let site = coop::cpu::SharedSite {
    ///     site: core::panic::Location::caller(),
    ///     array: "tile",
    ///     kind: coop::cpu::AccessKind::Read,
    ///     requests: 4,
    ///     transactions: 128,
    /// };
    /// assert_eq!(site.transactions_per_request(), 32.0);
    /// ```
    pub fn transactions_per_request(&self) -> f64 {
        self.transactions as f64 / self.requests.max(1) as f64
    }
}
