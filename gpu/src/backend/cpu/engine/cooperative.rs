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
//! whole launch.

use super::global_state::{LaunchGlobal, Touched, unrank};
use super::lane::LaunchShared;
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
    /// Every thread waits at the sync at this site.
    AtSync(Site, &'static str),
    /// Its threads spin on global memory; `stuck`: at the spin limit.
    Blocked { stuck: bool },
}

/// Which blocks wait for each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Group {
    /// Every block of a cooperative launch (`CooperativeGrid::sync`).
    Grid,
    /// The blocks of one cluster (`Cluster::sync`).
    Cluster,
}

/// Runs every block of a cooperative launch to its end, under schedule
/// `seed` (0: rank order). The error names the block it happened in.
pub(crate) fn run_grid(
    geometry: Geometry,
    body: &dyn Fn(),
    launch: &LaunchShared,
    seed: u64,
    stacks: &RefCell<Stacks>,
    counts: &mut Counts,
) -> Result<(), Box<(Dim3, Violation)>> {
    let ranks: Vec<u32> = (0..geometry.grid_dim.volume() as u32).collect();
    let run = GroupRun {
        geometry,
        body,
        launch,
        seed,
        kind: Group::Grid,
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
    let (grid, cluster) = (geometry.grid_dim, geometry.cluster_dim);
    let clusters = Dim3::new(grid.x / cluster.x, grid.y / cluster.y, grid.z / cluster.z);
    let mut whole = LaunchGlobal::with_clusters(cluster);
    let run = GroupRun {
        geometry,
        body,
        launch,
        seed,
        kind: Group::Cluster,
    };
    for c in 0..clusters.volume() as u32 {
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
        run_group(&run, &ranks, stacks, counts, Some(&mut whole))?;
    }
    Ok(())
}

/// What every block of a group shares.
struct GroupRun<'a> {
    geometry: Geometry,
    body: &'a dyn Fn(),
    launch: &'a LaunchShared,
    seed: u64,
    kind: Group,
}

/// Runs the blocks of ranks `ranks` (one group) to their end; each
/// interval's accesses are also merged into `whole`, when given.
fn run_group(
    run: &GroupRun<'_>,
    ranks: &[u32],
    stacks: &RefCell<Stacks>,
    counts: &mut Counts,
    mut whole: Option<&mut LaunchGlobal>,
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
    let mut blocks: Vec<Block<'_>> = ranks
        .iter()
        .zip(&shared)
        .map(|(&b, cell)| {
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
            let peers: &[RefCell<BlockShared>] = match run.kind {
                Group::Cluster => &shared,
                Group::Grid => &[],
            };
            Block::new(block_run, stacks, cell, peers, true)
        })
        .collect();
    let mut places = vec![Place::Running; ranks.len()];
    let result = drive(
        &mut blocks,
        &mut places,
        &shared,
        run,
        ranks,
        counts,
        &others_stuck,
        &mut whole,
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
    let mut interval = interval_record(run);
    for (i, cell) in shared.into_iter().enumerate() {
        let b = ranks[i];
        close_block(cell.into_inner(), Ok(()), counts)
            .and_then(|touched| merge(&mut interval, &mut whole, run, b, touched))
            .map_err(|v| Box::new((unrank(b, grid), v)))?;
    }
    Ok(())
}

/// Merges block `b`'s accesses of an interval into the interval's record
/// and, for a cluster, the launch's.
fn merge(
    interval: &mut LaunchGlobal,
    whole: &mut Option<&mut LaunchGlobal>,
    run: &GroupRun<'_>,
    b: u32,
    summary: Vec<Touched>,
) -> Result<(), Violation> {
    let (buffers, grid) = (&run.launch.buffers, run.geometry.grid_dim);
    if let Some(whole) = whole {
        whole.merge(buffers, grid, b, summary.clone())?;
    }
    interval.merge(buffers, grid, b, summary)
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
/// sync once every block waits at it. An error names the block by its
/// place in `ranks`.
#[allow(clippy::too_many_arguments)]
fn drive(
    blocks: &mut [Block<'_>],
    places: &mut [Place],
    shared: &[RefCell<BlockShared>],
    run: &GroupRun<'_>,
    ranks: &[u32],
    counts: &mut Counts,
    others_stuck: &Cell<bool>,
    whole: &mut Option<&mut LaunchGlobal>,
) -> Result<(), (usize, Violation)> {
    let launch = run.launch;
    loop {
        let writes = launch.progress.0.load(Ordering::Relaxed);
        let mut moved = false;
        for (i, block) in blocks.iter_mut().enumerate() {
            if matches!(places[i], Place::Done | Place::AtSync(..)) {
                continue;
            }
            let place = match block.run(counts).map_err(|v| (i, v))? {
                Pause::Done => Place::Done,
                Pause::GroupSync(site, call) => Place::AtSync(site, call),
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
        let blocked = places
            .iter()
            .position(|p| matches!(p, Place::Blocked { .. }));
        match blocked {
            None => {
                // Every block returned or waits at a sync.
                check_sync(places, ranks, run)?;
                let mut interval = interval_record(run);
                for (i, cell) in shared.iter().enumerate() {
                    let touched = cell.borrow_mut().take_global();
                    merge(&mut interval, whole, run, ranks[i], touched).map_err(|v| (i, v))?;
                }
                for (i, block) in blocks.iter_mut().enumerate() {
                    block.release_group_sync(counts).map_err(|v| (i, v))?;
                    places[i] = Place::Running;
                }
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
/// the same one, the sync never completes.
fn check_sync(
    places: &[Place],
    ranks: &[u32],
    run: &GroupRun<'_>,
) -> Result<(), (usize, Violation)> {
    let grid = run.geometry.grid_dim;
    let mut waiting: Vec<BlockArrival> = Vec::new();
    let mut returned = Vec::new();
    for (i, place) in places.iter().enumerate() {
        let block = unrank(ranks[i], grid);
        match *place {
            Place::AtSync(site, call) => match waiting
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
        match run.kind {
            Group::Grid => Violation::GridSyncNotReached { waiting, returned },
            Group::Cluster => Violation::ClusterSyncNotReached { waiting, returned },
        },
    ))
}

/// The record of one interval of a group's blocks: in a cluster, atomics
/// at the cluster's scope are atomic among them.
fn interval_record(run: &GroupRun<'_>) -> LaunchGlobal {
    match run.kind {
        Group::Cluster => LaunchGlobal::of_one_cluster(),
        Group::Grid => LaunchGlobal::default(),
    }
}
