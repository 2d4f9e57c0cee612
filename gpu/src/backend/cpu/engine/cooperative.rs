//! Runs blocks that may wait for each other: every block of a cooperative
//! launch (grid syncs), or the blocks of each cluster of a clustered launch
//! (cluster syncs), at once on one host thread, so that their syncs can
//! complete.
//!
//! Each block runs (see [`scheduler`](super::scheduler)) until all its
//! threads wait at a grid or cluster sync, return, or spin on global memory
//! that another block may change; then the next block of the group runs.
//! When every block of the group waits at the same sync, what the blocks
//! did to global memory since the last one is checked across them (a sync
//! orders everything before it before everything after it, so each
//! interval between syncs is checked on its own), and every block goes on.
//! A block that returned, or waits at another sync, while others wait is
//! reported; so is a set of blocks that only spin, waiting for each other.
//! The clusters of a launch run one after another; accesses of blocks of
//! different clusters, which no sync orders, are checked in a record of the
//! whole launch. A cooperative launch in clusters runs every block at once:
//! a cluster whose blocks all wait at one cluster sync goes on alone (its
//! interval checked across its blocks), and the grid's sync completes once
//! every block waits at it (the interval since the last one checked across
//! clusters).

use super::global_state::{LaunchGlobal, Touched, unrank};
use super::happens_before;
use super::lane::LaunchShared;
pub(crate) use super::scheduler::Group;
use super::scheduler::{Block, BlockRun, Counts, Geometry, Pause, Stacks, close_block};
use super::shared_state::BlockShared;
use crate::Dim3;
use crate::backend::Site;
use crate::backend::cpu::diagnostics::{BlockArrival, Violation};
use core::cell::{Cell, RefCell};
use core::sync::atomic::Ordering;

/// Where a block of the group is.
#[derive(Clone, Copy)]
enum Place {
    /// Has threads to run.
    Running,
    /// Every thread returned.
    Done,
    /// Every thread waits at the grid or cluster sync at this site.
    AtSync(Group, Site, &'static str),
    /// Its threads spin on global memory; `stuck`: at the spin limit.
    Blocked { stuck: bool },
}

/// Runs every block of a cooperative launch to its end, under schedule
/// `seed` (0: rank order), every block at once; in a launch in clusters,
/// each cluster's syncs complete among its own blocks. The error names the
/// block it happened in.
pub(crate) fn run_grid(
    geometry: Geometry,
    body: &dyn Fn(),
    launch: &LaunchShared,
    seed: u64,
    stacks: &RefCell<Stacks>,
    counts: &mut Counts,
) -> Result<(), Box<(Dim3, Violation)>> {
    let clusters = cluster_ranks(geometry);
    let ranks: Vec<u32> = clusters.into_iter().flatten().collect();
    let run = GroupRun {
        geometry,
        body,
        launch,
        seed,
        kind: Group::Grid,
        cluster_blocks: geometry.cluster_dim.volume() as usize,
    };
    run_group(&run, &ranks, stacks, counts, None)
}

/// Runs every cluster of a clustered launch, one after another, each with
/// its blocks at once; accesses of different clusters' blocks to one
/// element race.
pub(crate) fn run_clusters(
    geometry: Geometry,
    body: &dyn Fn(),
    launch: &LaunchShared,
    seed: u64,
    stacks: &RefCell<Stacks>,
    counts: &mut Counts,
) -> Result<(), Box<(Dim3, Violation)>> {
    let mut whole = LaunchGlobal::with_clusters(geometry.cluster_dim);
    let run = GroupRun {
        geometry,
        body,
        launch,
        seed,
        kind: Group::Cluster,
        cluster_blocks: geometry.cluster_dim.volume() as usize,
    };
    for ranks in cluster_ranks(geometry) {
        run_group(&run, &ranks, stacks, counts, Some(&mut whole))?;
    }
    Ok(())
}

/// The linear ranks of the blocks of each cluster of the launch, cluster
/// after cluster, each in the order of its blocks' ranks in the cluster
/// (x fastest): the order of the peers of its distributed shared memory.
fn cluster_ranks(geometry: Geometry) -> Vec<Vec<u32>> {
    let (grid, cluster) = (geometry.grid_dim, geometry.cluster_dim);
    let clusters = Dim3::new(grid.x / cluster.x, grid.y / cluster.y, grid.z / cluster.z);
    (0..clusters.volume() as u32)
        .map(|c| {
            let at = unrank(c, clusters);
            let mut ranks = Vec::with_capacity(cluster.volume() as usize);
            for z in 0..cluster.z {
                for y in 0..cluster.y {
                    for x in 0..cluster.x {
                        let b = Dim3::new(
                            at.x * cluster.x + x,
                            at.y * cluster.y + y,
                            at.z * cluster.z + z,
                        );
                        ranks.push(grid.linearize(b) as u32);
                    }
                }
            }
            ranks
        })
        .collect()
}

/// What every block of a group shares.
struct GroupRun<'a> {
    geometry: Geometry,
    body: &'a dyn Fn(),
    launch: &'a LaunchShared,
    seed: u64,
    /// Whose sync ends the group's intervals: every block's (a cooperative
    /// launch) or one cluster's.
    kind: Group,
    /// Blocks a cluster: the group's ranks are its clusters' blocks, one
    /// cluster after another.
    cluster_blocks: usize,
}

/// What a group's blocks did to global memory since the syncs that order
/// them, checked as each block's accesses come in.
struct Records<'w> {
    /// Since the group's last sync: a cooperative launch's (of every
    /// cluster, in a launch in clusters), or one cluster's.
    interval: LaunchGlobal,
    /// In a cooperative launch in clusters: since each cluster's last
    /// cluster sync (or grid sync).
    clusters: Vec<LaunchGlobal>,
    /// Of the whole launch, when its clusters run one after another.
    whole: Option<&'w mut LaunchGlobal>,
}

impl Records<'_> {
    /// Merges block `b`'s accesses (its place in the ranks: `i`) since its
    /// last sync into every record it belongs to.
    fn merge(
        &mut self,
        run: &GroupRun<'_>,
        i: usize,
        b: u32,
        summary: Vec<Touched>,
    ) -> Result<(), Violation> {
        let (buffers, grid) = (&run.launch.buffers, run.geometry.grid_dim);
        if let Some(whole) = &mut self.whole {
            whole.merge(buffers, grid, b, summary.clone())?;
        }
        if let Some(cluster) = self.clusters.get_mut(i / run.cluster_blocks) {
            cluster.merge(buffers, grid, b, summary.clone())?;
        }
        self.interval.merge(buffers, grid, b, summary)
    }

    /// A sync of cluster `c` (`Some`) or of every block (`None`) orders
    /// what came before it before what comes after.
    fn synced(&mut self, run: &GroupRun<'_>, c: Option<usize>) {
        match c {
            Some(c) if run.kind == Group::Grid => self.clusters[c] = LaunchGlobal::of_one_cluster(),
            _ => {
                self.interval = interval_record(run);
                for cluster in &mut self.clusters {
                    *cluster = LaunchGlobal::of_one_cluster();
                }
            }
        }
    }
}

/// Runs the blocks of ranks `ranks` (one group) to their end; each
/// interval's accesses are also merged into `whole`, when given.
fn run_group(
    run: &GroupRun<'_>,
    ranks: &[u32],
    stacks: &RefCell<Stacks>,
    counts: &mut Counts,
    whole: Option<&mut LaunchGlobal>,
) -> Result<(), Box<(Dim3, Violation)>> {
    let geometry = run.geometry;
    let grid = geometry.grid_dim;
    let threads = geometry.block_dim.volume() as u32;
    let shared: Vec<RefCell<BlockShared>> = ranks
        .iter()
        .map(|_| RefCell::new(BlockShared::new(threads, geometry.dynamic_shared, 0)))
        .collect();
    // Whether every block but the one running is stuck: then a block
    // spinning on global memory spins forever.
    let others_stuck = Cell::new(false);
    let others = || others_stuck.get();
    let clustered = run.kind == Group::Cluster || run.cluster_blocks > 1;
    let mut blocks: Vec<Block<'_>> = ranks
        .iter()
        .zip(&shared)
        .enumerate()
        .map(|(i, (&b, cell))| {
            let block_run = BlockRun {
                geometry: Geometry {
                    block: unrank(b, grid),
                    ..geometry
                },
                body: run.body,
                launch: run.launch,
                seed: block_seed(run.seed, b),
                earlier_done: &others,
            };
            // The blocks of its cluster, whose shared memory it reaches.
            let peers: &[RefCell<BlockShared>] = if clustered {
                let first = i / run.cluster_blocks * run.cluster_blocks;
                &shared[first..first + run.cluster_blocks]
            } else {
                &[]
            };
            Block::new(block_run, stacks, cell, peers, true)
        })
        .collect();
    let mut records = Records {
        interval: interval_record(run),
        clusters: if run.kind == Group::Grid && run.cluster_blocks > 1 {
            (0..ranks.len() / run.cluster_blocks)
                .map(|_| LaunchGlobal::of_one_cluster())
                .collect()
        } else {
            Vec::new()
        },
        whole,
    };
    let mut places = vec![Place::Running; ranks.len()];
    let result = drive(
        &mut blocks,
        &mut places,
        &shared,
        run,
        ranks,
        counts,
        &others_stuck,
        &mut records,
    );
    let failed = match result {
        Ok(()) => None,
        Err((i, mut v)) => {
            blocks[i].find_callers(&mut v);
            Some((i, v))
        }
    };
    for block in &blocks {
        counts.steps += block.steps();
    }
    // Last made, first dropped: each block's panic capture restores the
    // state the one before it found.
    while let Some(block) = blocks.pop() {
        drop(block);
    }
    drop(blocks);
    if let Some((i, v)) = failed {
        // A read of an unwritten element the block made first comes first.
        let cell = shared.into_iter().nth(i).expect("the failed block");
        let v = match close_block(cell.into_inner(), Err(v), counts) {
            Err(v) => v,
            Ok(_) => unreachable!("closing a failed block fails"),
        };
        return Err(Box::new((unrank(ranks[i], grid), v)));
    }
    // The end of the kernel: each block's own checks, then the last
    // interval's accesses across blocks, in block order.
    for (i, cell) in shared.into_iter().enumerate() {
        let b = ranks[i];
        close_block(cell.into_inner(), Ok(()), counts)
            .and_then(|touched| records.merge(run, i, b, touched))
            .map_err(|v| Box::new((unrank(b, grid), v)))?;
    }
    Ok(())
}

/// Schedule exploration's seed for block `b` (0: rank order).
pub(crate) fn block_seed(seed: u64, b: u32) -> u64 {
    if seed == 0 {
        0
    } else {
        seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (b as u64 + 1)
    }
}

/// Runs the blocks in turn until they have all returned; completes each
/// sync once every block of its group waits at it (a cluster's sync
/// first, where a cluster's blocks all wait at one). An error names the
/// block by its place in `ranks`.
#[allow(clippy::too_many_arguments)]
fn drive(
    blocks: &mut [Block<'_>],
    places: &mut [Place],
    shared: &[RefCell<BlockShared>],
    run: &GroupRun<'_>,
    ranks: &[u32],
    counts: &mut Counts,
    others_stuck: &Cell<bool>,
    records: &mut Records<'_>,
) -> Result<(), (usize, Violation)> {
    let launch = run.launch;
    // The blocks of each cluster, by their places in `ranks` (the whole
    // group when it is one cluster; none in a launch without clusters).
    let clusters: Vec<core::ops::Range<usize>> =
        if run.kind == Group::Cluster || run.cluster_blocks > 1 {
            (0..ranks.len())
                .step_by(run.cluster_blocks)
                .map(|first| first..first + run.cluster_blocks)
                .collect()
        } else {
            Vec::new()
        };
    // Completes the sync that the blocks at `range` wait at: their
    // accesses since the last one are checked, and they go on.
    let mut release = |blocks: &mut [Block<'_>],
                       places: &mut [Place],
                       range: core::ops::Range<usize>,
                       cluster: Option<usize>,
                       counts: &mut Counts|
     -> Result<(), (usize, Violation)> {
        // A cluster's sync releases each block's writes before it, and
        // each block acquires the others' (cumulativity: a release after
        // it publishes them to other clusters).
        let mut cluster_sync = None;
        if let Some(Place::AtSync(Group::Cluster, site, _)) = places.get(range.start).copied() {
            let (mut knows, mut ordered) = (None, false);
            for i in range.clone() {
                let (epoch, known, acquired) = blocks[i].release_at_cluster_sync(site);
                happens_before::join(&mut knows, &known);
                happens_before::insert(&mut knows, ranks[i], epoch);
                ordered |= acquired;
            }
            cluster_sync = Some((knows, ordered));
        }
        for i in range.clone() {
            let touched = shared[i].borrow_mut().take_global();
            records
                .merge(run, i, ranks[i], touched)
                .map_err(|v| (i, v))?;
        }
        records.synced(run, cluster);
        for i in range {
            blocks[i].release_group_sync(counts).map_err(|v| (i, v))?;
            if let Some((knows, ordered)) = &cluster_sync {
                blocks[i].learn(knows, *ordered);
            }
            places[i] = Place::Running;
        }
        Ok(())
    };
    loop {
        let writes = launch.progress.0.load(Ordering::Relaxed);
        let mut moved = false;
        for (i, block) in blocks.iter_mut().enumerate() {
            if matches!(places[i], Place::Done | Place::AtSync(..)) {
                continue;
            }
            let place = match block.run(counts).map_err(|v| (i, v))? {
                Pause::Done => Place::Done,
                Pause::GroupSync(group, site, call) => Place::AtSync(group, site, call),
                Pause::Blocked { stuck } => Place::Blocked { stuck },
            };
            moved |= !matches!(place, Place::Blocked { .. });
            if let Place::Done = place {
                shared[i].borrow_mut().ended = true;
            }
            places[i] = place;
        }
        if places.iter().all(|p| matches!(p, Place::Done)) {
            return Ok(());
        }
        // A block of a launch without clusters is a cluster of its own:
        // its cluster syncs wait for itself only.
        if clusters.is_empty() {
            for i in 0..places.len() {
                if let Place::AtSync(Group::Cluster, ..) = places[i] {
                    release(blocks, places, i..i + 1, None, counts)?;
                    counts.cluster_syncs += 1;
                    moved = true;
                }
            }
        }
        // A cluster whose blocks all wait at one cluster sync goes on,
        // whatever the other clusters do.
        for (c, range) in clusters.iter().enumerate() {
            let there = places[range.clone()]
                .iter()
                .all(|p| matches!(p, Place::AtSync(Group::Cluster, ..)));
            if there
                && check_sync(
                    &places[range.clone()],
                    &ranks[range.clone()],
                    run,
                    Group::Cluster,
                )
                .is_ok()
            {
                release(blocks, places, range.clone(), Some(c), counts)?;
                counts.cluster_syncs += 1;
                moved = true;
            }
        }
        if moved && places.iter().any(|p| matches!(p, Place::Running)) {
            continue;
        }
        let blocked = places
            .iter()
            .position(|p| matches!(p, Place::Blocked { .. }));
        match blocked {
            None => {
                // Every block returned or waits at a sync, and no cluster
                // can go on: the grid's sync completes, or never will.
                if run.kind == Group::Grid {
                    // A cluster whose blocks wait at a cluster sync that
                    // not all of them reached is named first.
                    for range in &clusters {
                        let waits = places[range.clone()]
                            .iter()
                            .any(|p| matches!(p, Place::AtSync(Group::Cluster, ..)));
                        if waits {
                            check_sync(
                                &places[range.clone()],
                                &ranks[range.clone()],
                                run,
                                Group::Cluster,
                            )
                            .map_err(|(i, v)| (range.start + i, v))?;
                        }
                    }
                }
                check_sync(places, ranks, run, run.kind)?;
                release(blocks, places, 0..ranks.len(), None, counts)?;
                match run.kind {
                    Group::Grid => counts.grid_syncs += 1,
                    Group::Cluster => counts.cluster_syncs += 1,
                }
            }
            Some(first) => {
                let all_stuck = places
                    .iter()
                    .all(|p| !matches!(p, Place::Blocked { stuck: false }));
                let wrote = launch.progress.0.load(Ordering::Relaxed) != writes;
                if all_stuck && !moved && !wrote {
                    // Nothing any block does can change what the spinning
                    // ones read: run the first again to name its loop.
                    others_stuck.set(true);
                    let outcome = blocks[first].run(counts);
                    others_stuck.set(false);
                    outcome.map_err(|v| (first, v))?;
                }
                for p in places.iter_mut() {
                    if let Place::Blocked { .. } = p {
                        *p = Place::Running;
                    }
                }
            }
        }
    }
}

/// Every block has returned or waits at a sync: unless they all wait at
/// the same one of the group `kind`, the sync never completes.
fn check_sync(
    places: &[Place],
    ranks: &[u32],
    run: &GroupRun<'_>,
    kind: Group,
) -> Result<(), (usize, Violation)> {
    let grid = run.geometry.grid_dim;
    let mut waiting: Vec<BlockArrival> = Vec::new();
    let mut returned = Vec::new();
    for (i, place) in places.iter().enumerate() {
        let block = unrank(ranks[i], grid);
        match *place {
            Place::AtSync(_, site, call) => match waiting
                .iter_mut()
                .find(|a| core::ptr::eq(a.site, site) || *a.site == *site)
            {
                Some(a) => a.blocks.push(block),
                None => waiting.push(BlockArrival {
                    blocks: vec![block],
                    site,
                    call,
                }),
            },
            _ => returned.push(i),
        }
    }
    if returned.is_empty() && waiting.len() == 1 {
        return Ok(());
    }
    // Named in the block that returned first, or else the first block
    // waiting elsewhere than the first group.
    let at = returned.first().copied().unwrap_or_else(|| {
        let second = waiting[1].blocks[0];
        (0..places.len())
            .find(|&i| unrank(ranks[i], grid) == second)
            .unwrap_or(0)
    });
    let returned = returned
        .into_iter()
        .map(|i| unrank(ranks[i], grid))
        .collect();
    Err((
        at,
        match kind {
            Group::Grid => Violation::GridSyncNotReached { waiting, returned },
            Group::Cluster => Violation::ClusterSyncNotReached { waiting, returned },
        },
    ))
}

/// The record of one interval of a group's blocks: in a cluster, atomics
/// at the cluster's scope are atomic among them; in a cooperative launch in
/// clusters, the blocks of one cluster are checked in their cluster's
/// records.
fn interval_record(run: &GroupRun<'_>) -> LaunchGlobal {
    match run.kind {
        Group::Cluster => LaunchGlobal::of_one_cluster(),
        Group::Grid if run.cluster_blocks > 1 => {
            LaunchGlobal::with_clusters(run.geometry.cluster_dim)
        }
        Group::Grid => LaunchGlobal::default(),
    }
}
