//! Runs a cooperative launch: every block of the grid at once, on one host
//! thread, so that a grid sync can complete.
//!
//! Each block runs (see [`scheduler`](super::scheduler)) until all its
//! threads wait at a grid sync, return, or spin on global memory that
//! another block may change; then the next block runs. When every block
//! waits at the same grid sync, what the blocks did to global memory since
//! the last one is checked across blocks (a grid sync orders everything
//! before it before everything after it, so each interval between syncs is
//! checked on its own), and every block goes on. A block that returned, or
//! waits at another grid sync, while others wait is reported; so is a set
//! of blocks that only spin, waiting for each other.

use super::global_state::{unrank, LaunchGlobal};
use super::lane::LaunchShared;
use super::scheduler::{close_block, Block, BlockRun, Counts, Geometry, Pause, Stacks};
use super::shared_state::BlockShared;
use crate::backend::Site;
use crate::cpu::diagnostics::{BlockArrival, Violation};
use crate::Dim3;
use core::cell::{Cell, RefCell};
use core::sync::atomic::Ordering;

/// Where a block of the launch is.
#[derive(Clone, Copy)]
enum Place {
    /// Has threads to run.
    Running,
    /// Every thread returned.
    Done,
    /// Every thread waits at the grid sync at this site.
    AtSync(Site),
    /// Its threads spin on global memory; `stuck`: at the spin limit.
    Blocked { stuck: bool },
}

/// Runs every block of a cooperative launch of shape `grid` (blocks of
/// `geometry.block_dim`) to its end, under schedule `seed` (0: rank
/// order). The error names the block it happened in.
pub(crate) fn run_grid(
    geometry: Geometry,
    body: &dyn Fn(),
    launch: &LaunchShared,
    seed: u64,
    stacks: &RefCell<Stacks>,
    counts: &mut Counts,
) -> Result<(), Box<(Dim3, Violation)>> {
    let grid = geometry.grid_dim;
    let count = grid.volume() as u32;
    let threads = geometry.block_dim.volume() as u32;
    let shared: Vec<RefCell<BlockShared>> = (0..count)
        .map(|_| RefCell::new(BlockShared::new(threads, geometry.dynamic_shared)))
        .collect();
    // Whether every block but the one running is stuck: then a block
    // spinning on global memory spins forever.
    let others_stuck = Cell::new(false);
    let others = || others_stuck.get();
    let mut blocks: Vec<Block<'_>> = (0..count)
        .map(|b| {
            let run = BlockRun {
                geometry: Geometry {
                    block: unrank(b, grid),
                    ..geometry
                },
                body,
                launch,
                seed: block_seed(seed, b),
                earlier_done: &others,
            };
            Block::new(run, stacks, &shared[b as usize], true)
        })
        .collect();
    let mut places = vec![Place::Running; count as usize];
    let result = drive(
        &mut blocks,
        &mut places,
        &shared,
        launch,
        grid,
        counts,
        &others_stuck,
    );
    let failed = match result {
        Ok(()) => None,
        Err((b, mut v)) => {
            blocks[b as usize].find_callers(&mut v);
            Some((b, v))
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
    if let Some((b, v)) = failed {
        // A read of an unwritten element the block made first comes first.
        let cell = shared
            .into_iter()
            .nth(b as usize)
            .expect("the failed block");
        let v = match close_block(cell.into_inner(), Err(v), counts) {
            Err(v) => v,
            Ok(_) => unreachable!("closing a failed block fails"),
        };
        return Err(Box::new((unrank(b, grid), v)));
    }
    // The end of the kernel: each block's own checks, then the last
    // interval's accesses across blocks, in block order.
    let mut interval = LaunchGlobal::default();
    for (b, cell) in shared.into_iter().enumerate() {
        let b = b as u32;
        close_block(cell.into_inner(), Ok(()), counts)
            .and_then(|touched| interval.merge(&launch.buffers, grid, b, touched.summary()))
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
/// grid sync once every block waits at it.
#[allow(clippy::too_many_arguments)]
fn drive(
    blocks: &mut [Block<'_>],
    places: &mut [Place],
    shared: &[RefCell<BlockShared>],
    launch: &LaunchShared,
    grid: Dim3,
    counts: &mut Counts,
    others_stuck: &Cell<bool>,
) -> Result<(), (u32, Violation)> {
    loop {
        let writes = launch.progress.0.load(Ordering::Relaxed);
        let mut moved = false;
        for (b, block) in blocks.iter_mut().enumerate() {
            if matches!(places[b], Place::Done | Place::AtSync(_)) {
                continue;
            }
            let place = match block.run(counts).map_err(|v| (b as u32, v))? {
                Pause::Done => Place::Done,
                Pause::GridSync(site) => Place::AtSync(site),
                Pause::Blocked { stuck } => Place::Blocked { stuck },
            };
            moved |= !matches!(place, Place::Blocked { .. });
            places[b] = place;
        }
        if places.iter().all(|p| matches!(p, Place::Done)) {
            return Ok(());
        }
        let blocked = places
            .iter()
            .position(|p| matches!(p, Place::Blocked { .. }));
        match blocked {
            None => {
                // Every block returned or waits at a grid sync.
                check_sync(places, grid)?;
                let mut interval = LaunchGlobal::default();
                for (b, cell) in shared.iter().enumerate() {
                    let touched = cell.borrow_mut().take_global();
                    interval
                        .merge(&launch.buffers, grid, b as u32, touched.summary())
                        .map_err(|v| (b as u32, v))?;
                }
                for (b, block) in blocks.iter_mut().enumerate() {
                    block.release_grid_sync(counts).map_err(|v| (b as u32, v))?;
                    places[b] = Place::Running;
                }
                counts.grid_syncs += 1;
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
                    outcome.map_err(|v| (first as u32, v))?;
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

/// Every block has returned or waits at a grid sync: unless they all wait
/// at the same one, the sync never completes.
fn check_sync(places: &[Place], grid: Dim3) -> Result<(), (u32, Violation)> {
    let mut waiting: Vec<BlockArrival> = Vec::new();
    let mut returned = Vec::new();
    for (b, place) in places.iter().enumerate() {
        let block = unrank(b as u32, grid);
        match *place {
            Place::AtSync(site) => match waiting
                .iter_mut()
                .find(|a| core::ptr::eq(a.site, site) || *a.site == *site)
            {
                Some(a) => a.blocks.push(block),
                None => waiting.push(BlockArrival {
                    blocks: vec![block],
                    site,
                }),
            },
            _ => returned.push(b as u32),
        }
    }
    if returned.is_empty() && waiting.len() == 1 {
        return Ok(());
    }
    // Named in the block that returned first, or else the first block
    // waiting elsewhere than block 0.
    let at = returned.first().copied().unwrap_or_else(|| {
        let second = waiting[1].blocks[0];
        (0..places.len() as u32)
            .find(|&b| unrank(b, grid) == second)
            .unwrap_or(0)
    });
    Err((
        at,
        Violation::GridSyncNotReached {
            waiting,
            returned: returned.into_iter().map(|b| unrank(b, grid)).collect(),
        },
    ))
}
