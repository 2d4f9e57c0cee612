//! The CPU backend's catalogue of broken rules: each kernel here breaks
//! one rule of the model the way users write it, and its fixed twin runs
//! clean. Every case asserts the kind of violation, the threads it names
//! and the exact `file:line` of every call it names, through one line
//! ([`diagnosis`]) that spells all three out:
//!
//! ```text
//! SharedRace buf[1] | thread 0 reads @L | thread 1 writes @L
//! ```
//!
//! where `@{marker}` in an expected line stands for the line of this file
//! that ends in `// marker`. The launches run on the default emulator
//! (blocks on every host core); the diagnoses must not depend on it, and
//! `every_diagnosis_is_the_same_on_one_host_thread_and_under_seeded_schedules`
//! checks that they do not.

// The kernels are written the way users write them (`x % 2 == 0`, two
// textually different calls that look alike), not the way clippy prefers.
#![allow(
    clippy::manual_is_multiple_of,
    clippy::if_same_then_else,
    clippy::useless_vec
)]

use coop::atomic::{Ordering, Scope};
use coop::cpu::{AfterArrival, Arrival, EmulationError, Emulator, SyncGap, Violation};
use coop::memory::fence_device;
use coop::prelude::*;
use coop::shared::{ByFunction, RawShared};
use coop_host::{Cpu, Error, LaunchConfig, Report};

/// The line of this file ending in `// marker`.
fn line_of(marker: &str) -> u32 {
    coop_tests::marked_line(include_str!("rules.rs"), marker)
}

/// `expected` with every `@{marker}` replaced by `@` and its line.
fn expand(expected: &str) -> String {
    let mut out = String::new();
    let mut rest = expected;
    while let Some(at) = rest.find("@{") {
        out.push_str(&rest[..at + 1]);
        let end = rest[at..].find('}').expect("closing brace") + at;
        out.push_str(&line_of(&rest[at + 2..end]).to_string());
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

fn site(site: Option<coop::cpu::Site>) -> String {
    match site {
        Some(s) if s.file().ends_with("rules.rs") => format!("@{}", s.line()),
        Some(s) => format!("@{}:{}", s.file(), s.line()),
        None => "returned".into(),
    }
}

fn arrivals(list: &[Arrival]) -> String {
    list.iter()
        .map(|a| match a.site {
            Some(_) => {
                let mut text = format!("{} {}", a.threads, site(a.site));
                for caller in &a.callers {
                    text.push_str(&format!(" <- {}", location(&Some(caller.clone()))));
                }
                text
            }
            None => format!("{} returned", a.threads),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn location(l: &Option<coop::cpu::PanicLocation>) -> String {
    match l {
        Some(l) if l.file.ends_with("rules.rs") => format!("@{}", l.line),
        Some(l) => format!("@{}:{}", l.file, l.line),
        None => "@?".into(),
    }
}

/// Kind, threads and lines of a violation, on one line.
fn diagnosis(v: &Violation) -> String {
    match v {
        Violation::BarrierNotReached { waiting, exited } => {
            format!(
                "BarrierNotReached {} | {exited} returned",
                arrivals(waiting)
            )
        }
        Violation::DivergentBarriers { waiting } => {
            format!("DivergentBarriers {}", arrivals(waiting))
        }
        Violation::DivergentCollective {
            call,
            site: s,
            group,
            arrivals: a,
            ..
        } => format!(
            "DivergentCollective {call} {} | group {group} | {}",
            site(Some(*s)),
            arrivals(a)
        ),
        Violation::PartialTile {
            tile_size,
            parent_size,
            thread,
            site: s,
        } => format!(
            "PartialTile {tile_size} of {parent_size} | thread {thread} {}",
            site(Some(*s))
        ),
        Violation::OutOfSteps {
            thread, site: s, ..
        } => format!("OutOfSteps thread {thread} {}", site(Some(*s))),
        Violation::Panic {
            thread,
            message,
            location: l,
        } => format!("Panic thread {thread} {} | {message}", location(l)),
        Violation::SharedRace {
            array,
            element,
            first,
            second,
        } => format!(
            "SharedRace {array}{element} | thread {} {} {} | thread {} {} {}",
            first.thread,
            first.kind,
            site(Some(first.site)),
            second.thread,
            second.kind,
            site(Some(second.site))
        ),
        Violation::AsyncCopyInFlight {
            array,
            element,
            access,
            copy,
        } => format!(
            "AsyncCopyInFlight {array}{element} | thread {} {} {} | copy by thread {} {}",
            access.thread,
            access.kind,
            site(Some(access.site)),
            copy.thread,
            site(Some(copy.site))
        ),
        Violation::AsyncCopyNotWaited {
            array,
            thread,
            site: s,
        } => format!("AsyncCopyNotWaited {array} | thread {thread} {}", site(Some(*s))),
        Violation::UninitializedRead {
            array,
            element,
            access,
        } => format!(
            "UninitializedRead {array}{element} | thread {} {} {}",
            access.thread,
            access.kind,
            site(Some(access.site))
        ),
        Violation::GlobalRace {
            buffer,
            element,
            first,
            second,
        } => format!(
            "GlobalRace {buffer}[{element}] | block {} thread {} {} {} | block {} thread {} {} {}",
            first.block.x,
            first.thread,
            first.kind,
            site(Some(first.site)),
            second.block.x,
            second.thread,
            second.kind,
            site(Some(second.site))
        ),
        Violation::UnreleasedWrite {
            buffer,
            element,
            write,
            read,
            flag,
        } => format!(
            "UnreleasedWrite {buffer}[{element}] | block {} thread {} {} {} | block {} thread {} {} {} | flag {}",
            write.block.x,
            write.thread,
            write.kind,
            site(Some(write.site)),
            read.block.x,
            read.thread,
            read.kind,
            site(Some(read.site)),
            site(*flag)
        ),
        Violation::UnsynchronizedRead {
            buffer,
            element,
            write,
            read,
            gap,
        } => format!(
            "UnsynchronizedRead {buffer}[{element}] | block {} thread {} {} {} | block {} thread {} {} {} | {}",
            write.block.x,
            write.thread,
            write.kind,
            site(Some(write.site)),
            read.block.x,
            read.thread,
            read.kind,
            site(Some(read.site)),
            match gap {
                SyncGap::RelaxedObserve { atomic } => format!("observed {}", site(Some(*atomic))),
                SyncGap::RelaxedLink { store } => format!("link {}", site(Some(*store))),
                other => format!("{other:?}"),
            }
        ),
        Violation::OutOfBounds {
            buffer,
            call,
            index,
            len,
            thread,
            location: l,
        } => format!(
            "OutOfBounds {buffer} {call} {index} of {len} | thread {thread} {}",
            location(l)
        ),
        Violation::SpinForever {
            spinning, others, ..
        } => format!(
            "SpinForever {} | others {}",
            arrivals(spinning),
            arrivals(others)
        ),
        Violation::GridSyncNotReached { waiting, returned } => format!(
            "GridSyncNotReached {} | blocks {} returned",
            waiting
                .iter()
                .map(|a| format!(
                    "{} {}",
                    a.to_string().split(" at ").next().unwrap_or_default(),
                    site(Some(a.site))
                ))
                .collect::<Vec<_>>()
                .join("; "),
            returned
                .iter()
                .map(|b| b.x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Violation::ClusterSyncNotReached { waiting, returned } => format!(
            "ClusterSyncNotReached {} | blocks {} returned",
            waiting
                .iter()
                .map(|a| format!(
                    "{} {}",
                    a.to_string().split(" at ").next().unwrap_or_default(),
                    site(Some(a.site))
                ))
                .collect::<Vec<_>>()
                .join("; "),
            returned
                .iter()
                .map(|b| b.x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Violation::ClusterRace {
            array,
            element,
            owner,
            first,
            second,
        } => format!(
            "ClusterRace {array}{element} of block {owner} | block {} thread {} {} | block {} thread {} {}",
            first.0.x,
            first.1,
            site(Some(first.2)),
            second.0.x,
            second.1,
            site(Some(second.2))
        ),
        Violation::NotUniform {
            call,
            site: s,
            values,
        } => format!(
            "NotUniform {call} {} | {}",
            site(Some(*s)),
            values
                .iter()
                .take(2)
                .map(|(t, v)| format!("{t} asks {v}"))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        Violation::ArrivalNotWaited {
            thread,
            arrive,
            group,
            then,
        } => format!(
            "ArrivalNotWaited {group} | thread {thread} {} | {}",
            site(Some(*arrive)),
            match then {
                AfterArrival::Arrived(s) => format!("arrived again {}", site(Some(*s))),
                AfterArrival::Collective { call, site: s } => format!("{call} {}", site(Some(*s))),
                AfterArrival::Returned => "returned".into(),
                other => format!("{other:?}"),
            }
        ),
        other => format!("{other:?}"),
    }
}

fn error_of(result: Result<Report, Error>) -> EmulationError {
    match result {
        Err(Error::Emulation(e)) => e,
        other => panic!("expected an emulation error, got {other:?}"),
    }
}

/// Asserts that `result` stopped with the violation `expected` describes
/// (see the module).
#[track_caller]
fn broken(result: Result<Report, Error>, expected: &str) -> EmulationError {
    let e = error_of(result);
    assert_eq!(diagnosis(&e.violation), expand(expected), "\n{e}");
    // The message is what the user reads: Display, never Debug.
    let text = e.to_string();
    assert!(
        !text.contains("Dim3 {") && !text.contains("Some("),
        "{text}"
    );
    e
}

#[track_caller]
fn clean(result: Result<Report, Error>) -> Report {
    match result {
        Ok(report) => report,
        Err(e) => panic!("the fixed kernel should run clean: {e}"),
    }
}

fn cpu() -> Cpu {
    Cpu::new()
}

fn cfg(blocks: u32, threads: u32) -> LaunchConfig {
    LaunchConfig::new(blocks, threads)
}

// =====================================================================
// Block barriers and the block collectives built on them.

#[kernel]
pub fn sync_in_a_branch(block: ThreadBlock, out: Out<u32>) {
    let r = block.thread_rank();
    if r < 32 {
        block.sync(); // sync-in-branch
    }
    out.write(r as usize, r);
}

#[kernel]
pub fn sync_in_a_branch_fixed(block: ThreadBlock, out: Out<u32>) {
    let r = block.thread_rank();
    block.sync();
    out.write(r as usize, r);
}

#[test]
fn a_barrier_in_a_branch_is_not_reached_by_every_thread() {
    let mut out = vec![0u32; 64];
    broken(
        cpu().launch(sync_in_a_branch, cfg(2, 64), (&mut out,)),
        "BarrierNotReached threads 0-31 @{sync-in-branch} | threads 32-63 returned",
    );
    let mut out = vec![0u32; 64];
    clean(cpu().launch(sync_in_a_branch_fixed, cfg(1, 64), (&mut out,)));
}

#[kernel]
pub fn return_before_sync(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let i = block.thread_rank() as usize;
    if i >= input.len() {
        return;
    }
    let x = input[i];
    block.sync(); // return-before-sync
    out.write(i, x);
}

#[kernel]
pub fn return_before_sync_fixed(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let i = block.thread_rank() as usize;
    let x = if i < input.len() { input[i] } else { 0 };
    block.sync();
    if i < input.len() {
        out.write(i, x);
    }
}

#[test]
fn an_early_return_before_a_barrier() {
    let input = vec![1u32; 40];
    let mut out = vec![0u32; 40];
    broken(
        cpu().launch(return_before_sync, cfg(1, 64), (&input[..], &mut out)),
        "BarrierNotReached threads 0-39 @{return-before-sync} | threads 40-63 returned",
    );
    clean(cpu().launch(return_before_sync_fixed, cfg(1, 64), (&input[..], &mut out)));
}

#[kernel]
pub fn two_barriers(block: ThreadBlock, out: Out<u32>) {
    let r = block.thread_rank();
    if r % 2 == 0 {
        block.sync(); // even-sync
    } else {
        block.sync(); // odd-sync
    }
    out.write(r as usize, r);
}

#[test]
fn threads_wait_at_different_barriers() {
    let mut out = vec![0u32; 64];
    broken(
        cpu().launch(two_barriers, cfg(1, 64), (&mut out,)),
        "DivergentBarriers threads 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62 @{even-sync}; threads 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33, 35, 37, 39, 41, 43, 45, 47, 49, 51, 53, 55, 57, 59, 61, 63 @{odd-sync}",
    );
    clean(cpu().launch(sync_in_a_branch_fixed, cfg(1, 64), (&mut out,)));
}

#[kernel]
pub fn block_reduce_in_a_branch(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let i = block.thread_rank() as usize;
    if i < input.len() {
        let total = reduce(&block, input[i], op::Sum); // reduce-in-branch
        out.write(i, total);
    }
}

#[kernel]
pub fn block_reduce_in_a_branch_fixed(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let i = block.thread_rank() as usize;
    let x = if i < input.len() { input[i] } else { 0 };
    let total = reduce(&block, x, op::Sum);
    if i < input.len() {
        out.write(i, total);
    }
}

#[test]
fn a_block_reduce_in_a_branch_is_named_as_written() {
    let input = vec![1u32; 100];
    let mut out = vec![0u32; 100];
    let e = broken(
        cpu().launch(
            block_reduce_in_a_branch,
            cfg(1, 128),
            (&input[..], &mut out),
        ),
        "BarrierNotReached threads 0-99 @{reduce-in-branch} | threads 100-127 returned",
    );
    let Violation::BarrierNotReached { waiting, .. } = &*e.violation else {
        unreachable!()
    };
    assert_eq!(waiting[0].call, "reduce");
    clean(cpu().launch(
        block_reduce_in_a_branch_fixed,
        cfg(1, 128),
        (&input[..], &mut out),
    ));
    assert!(out.iter().all(|&t| t == 100));
}

#[kernel]
pub fn block_scan_in_a_branch(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let i = block.thread_rank() as usize;
    if i < input.len() {
        out.write(i, inclusive_scan(&block, input[i], op::Sum)); // scan-in-branch
    }
}

#[kernel]
pub fn block_scan_in_a_branch_fixed(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let i = block.thread_rank() as usize;
    let x = if i < input.len() { input[i] } else { 0 };
    let running = inclusive_scan(&block, x, op::Sum);
    if i < input.len() {
        out.write(i, running);
    }
}

#[test]
fn a_block_scan_in_a_branch() {
    let input = vec![1u32; 70];
    let mut out = vec![0u32; 70];
    let e = broken(
        cpu().launch(block_scan_in_a_branch, cfg(1, 96), (&input[..], &mut out)),
        "BarrierNotReached threads 0-69 @{scan-in-branch} | threads 70-95 returned",
    );
    assert!(e.to_string().contains("`inclusive_scan`"), "{e}");
    clean(cpu().launch(
        block_scan_in_a_branch_fixed,
        cfg(1, 96),
        (&input[..], &mut out),
    ));
    assert_eq!(out[69], 70);
}

#[kernel]
pub fn sync_in_a_grid_stride_loop(block: ThreadBlock, grid: Grid, input: &[u32], out: Out<u32>) {
    let mut i = grid.thread_rank();
    while i < input.len() {
        out.write(i, input[i]);
        block.sync(); // sync-in-loop
        i += grid.num_threads();
    }
}

#[kernel]
pub fn sync_in_a_grid_stride_loop_fixed(
    block: ThreadBlock,
    grid: Grid,
    input: &[u32],
    out: Out<u32>,
) {
    let mut i = grid.thread_rank();
    while i < input.len() {
        out.write(i, input[i]);
        i += grid.num_threads();
    }
    block.sync();
}

#[test]
fn a_barrier_in_a_loop_whose_trip_count_depends_on_the_thread() {
    let input = vec![3u32; 100];
    let mut out = vec![0u32; 100];
    broken(
        cpu().launch(
            sync_in_a_grid_stride_loop,
            cfg(1, 64),
            (&input[..], &mut out),
        ),
        "BarrierNotReached threads 0-35 @{sync-in-loop} | threads 36-63 returned",
    );
    clean(cpu().launch(
        sync_in_a_grid_stride_loop_fixed,
        cfg(1, 64),
        (&input[..], &mut out),
    ));
}

/// A helper that synchronises: without `#[track_caller]` the diagnostic
/// names the helper's line.
fn stage(block: &ThreadBlock) {
    block.sync(); // helper-sync
}

/// The same helper, `#[track_caller]`: the diagnostic names its caller.
#[track_caller]
fn stage_tracked(block: &ThreadBlock) {
    block.sync();
}

#[kernel]
pub fn helper_sync_in_a_branch(block: ThreadBlock, out: Out<u32>) {
    let r = block.thread_rank();
    if r < 16 {
        stage(&block); // helper-call
    }
    if r >= 16 {
        stage_tracked(&block); // tracked-helper-call
    }
    out.write(r as usize, r);
}

#[test]
fn a_barrier_inside_a_helper_names_the_helper_or_its_caller() {
    let mut out = vec![0u32; 32];
    let e = broken(
        cpu().launch(helper_sync_in_a_branch, cfg(1, 32), (&mut out,)),
        "DivergentBarriers threads 0-15 @{helper-sync} <- @{helper-call}; threads 16-31 @{tracked-helper-call}",
    );
    // The message names the helper's line and the line that called it.
    let text = e.to_string();
    assert!(
        text.contains(&format!(
            "rules.rs:{}:11, called from tests/rules.rs:{}:",
            line_of("helper-sync"),
            line_of("helper-call")
        )),
        "{text}"
    );
    assert!(text.contains("#[track_caller]"), "{e}");
    clean(cpu().launch(sync_in_a_branch_fixed, cfg(1, 32), (&mut out,)));
}

#[kernel]
pub fn barrier_in_a_2d_branch(block: ThreadBlock, out: Out<u32>) {
    let t = block.thread_index();
    if t.y < 4 {
        block.sync(); // sync-2d
    }
    out.write(block.thread_rank() as usize, t.x);
}

#[test]
fn threads_of_a_2d_block_are_named_by_index() {
    let mut out = vec![0u32; 128];
    let e = broken(
        cpu().launch(
            barrier_in_a_2d_branch,
            LaunchConfig::new(1, (16, 8)),
            (&mut out,),
        ),
        "BarrierNotReached threads (0-15, 0-3) @{sync-2d} | threads (0-15, 4-7) returned",
    );
    assert!(
        e.to_string()
            .contains("threads (0-15, 0-3) at `ThreadBlock::sync`"),
        "{e}"
    );
    clean(cpu().launch(
        sync_in_a_branch_fixed,
        LaunchConfig::new(1, (16, 8)),
        (&mut out,),
    ));
}

#[kernel]
pub fn neighbour_in_a_2d_block(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 128]>) {
    let raw = buf.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, r as u32) }; // write-2d
    let right = unsafe { raw.read((r + 1) % 128) }; // read-2d
    out.write(r, right);
}

#[test]
fn single_threads_of_a_2d_block_are_named_by_index_too() {
    let mut out = vec![0u32; 128];
    let e = broken(
        cpu().launch(
            neighbour_in_a_2d_block,
            LaunchConfig::new(1, (16, 8)),
            (&mut out,),
        ),
        "SharedRace buf[1] | thread 0 reads @{read-2d} | thread 1 writes @{write-2d}",
    );
    assert_eq!(e.block_dim, coop::Dim3::new(16, 8, 1));
    let text = e.to_string();
    assert!(text.contains("thread (0, 0) reads it at"), "{text}");
    assert!(text.contains("then thread (1, 0) writes it at"), "{text}");
}

// =====================================================================
// Warp collectives and tiles.

#[kernel]
pub fn shuffle_in_a_branch(block: ThreadBlock, out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let r = block.thread_rank();
    if r % 32 < 16 {
        out.write(r as usize, warp.shfl_down(r, 1)); // shfl-in-branch
    }
}

#[kernel]
pub fn shuffle_in_a_branch_fixed(block: ThreadBlock, out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let r = block.thread_rank();
    let below = warp.shfl_down(r, 1);
    if r % 32 < 16 {
        out.write(r as usize, below);
    }
}

#[test]
fn a_shuffle_in_a_branch() {
    let mut out = vec![0u32; 64];
    broken(
        cpu().launch(shuffle_in_a_branch, cfg(1, 64), (&mut out,)),
        "DivergentCollective shfl_down @{shfl-in-branch} | group threads 0-31 | threads 0-15 @{shfl-in-branch}; threads 16-31 returned",
    );
    clean(cpu().launch(shuffle_in_a_branch_fixed, cfg(1, 64), (&mut out,)));
}

#[kernel]
pub fn ballot_of_half_a_warp(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let i = block.thread_rank() as usize;
    if i < input.len() {
        let votes = warp.ballot(input[i] > 0); // ballot-guarded
        out.write(i, votes);
    }
}

#[kernel]
pub fn ballot_of_half_a_warp_fixed(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let i = block.thread_rank() as usize;
    let votes = warp.ballot(i < input.len() && input[i] > 0);
    if i < input.len() {
        out.write(i, votes);
    }
}

#[test]
fn a_vote_guarded_by_the_input_length() {
    let input = vec![1u32; 20];
    let mut out = vec![0u32; 20];
    broken(
        cpu().launch(ballot_of_half_a_warp, cfg(1, 32), (&input[..], &mut out)),
        "DivergentCollective ballot @{ballot-guarded} | group threads 0-31 | threads 0-19 @{ballot-guarded}; threads 20-31 returned",
    );
    clean(cpu().launch(
        ballot_of_half_a_warp_fixed,
        cfg(1, 32),
        (&input[..], &mut out),
    ));
    assert_eq!(out[0], (1 << 20) - 1);
}

#[kernel]
pub fn tile_reduce_in_a_branch(block: ThreadBlock, out: Out<u32>) {
    let tile = block.tiled_partition::<16>();
    let r = block.thread_rank();
    if tile.thread_rank() != 3 {
        out.write(r as usize, reduce(&tile, r, op::Max)); // tile-reduce
    }
}

#[kernel]
pub fn tile_reduce_in_a_branch_fixed(block: ThreadBlock, out: Out<u32>) {
    let tile = block.tiled_partition::<16>();
    let r = block.thread_rank();
    let top = reduce(&tile, r, op::Max);
    if tile.thread_rank() != 3 {
        out.write(r as usize, top);
    }
}

#[test]
fn a_tile_reduce_that_one_lane_skips() {
    let mut out = vec![0u32; 32];
    broken(
        cpu().launch(tile_reduce_in_a_branch, cfg(1, 32), (&mut out,)),
        "DivergentCollective reduce @{tile-reduce} | group threads 0-15 | threads 0-2, 4-15 @{tile-reduce}; thread 3 returned",
    );
    clean(cpu().launch(tile_reduce_in_a_branch_fixed, cfg(1, 32), (&mut out,)));
    assert_eq!((out[0], out[31]), (15, 31));
}

#[kernel]
pub fn tile_sync_in_a_branch(block: ThreadBlock, out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let r = block.thread_rank();
    if r == 0 {
        warp.sync(); // tile-sync-one
    }
    out.write(r as usize, r);
}

#[test]
fn a_tile_barrier_called_by_one_lane() {
    let mut out = vec![0u32; 32];
    broken(
        cpu().launch(tile_sync_in_a_branch, cfg(1, 32), (&mut out,)),
        "DivergentCollective TiledPartition::sync @{tile-sync-one} | group threads 0-31 | thread 0 @{tile-sync-one}; threads 1-31 returned",
    );
    clean(cpu().launch(sync_in_a_branch_fixed, cfg(1, 32), (&mut out,)));
}

#[kernel]
pub fn halves_at_different_shuffles(block: ThreadBlock, out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let r = block.thread_rank();
    let v = if r < 16 {
        warp.shfl_xor(r, 1) // xor-low
    } else {
        warp.shfl_xor(r, 1) // xor-high
    };
    out.write(r as usize, v);
}

#[kernel]
pub fn halves_at_different_shuffles_fixed(block: ThreadBlock, out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let r = block.thread_rank();
    out.write(r as usize, warp.shfl_xor(r, 1));
}

#[test]
fn two_halves_of_a_warp_at_two_textual_shuffles() {
    let mut out = vec![0u32; 32];
    broken(
        cpu().launch(halves_at_different_shuffles, cfg(1, 32), (&mut out,)),
        "DivergentCollective shfl_xor @{xor-low} | group threads 0-31 | threads 0-15 @{xor-low}; threads 16-31 @{xor-high}",
    );
    clean(cpu().launch(halves_at_different_shuffles_fixed, cfg(1, 32), (&mut out,)));
    assert_eq!(out[0..2], [1, 0]);
}

#[kernel]
pub fn warps_of_a_48_thread_block(block: ThreadBlock, out: Out<u32>) {
    let warp = block.tiled_partition::<32>(); // partial-warp
    let r = block.thread_rank();
    out.write(r as usize, warp.thread_rank());
}

#[kernel]
pub fn tiles_of_16_of_a_48_thread_block(block: ThreadBlock, out: Out<u32>) {
    let tile = block.tiled_partition::<16>();
    let r = block.thread_rank();
    out.write(r as usize, tile.thread_rank());
}

#[test]
fn a_tile_size_that_does_not_divide_the_block() {
    let mut out = vec![0u32; 48];
    broken(
        cpu().launch(warps_of_a_48_thread_block, cfg(1, 48), (&mut out,)),
        "PartialTile 32 of 48 | thread 0 @{partial-warp}",
    );
    clean(cpu().launch(tiles_of_16_of_a_48_thread_block, cfg(1, 48), (&mut out,)));
}

#[kernel]
pub fn match_in_a_branch(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let i = block.thread_rank() as usize;
    if input[i] != 0 {
        out.write(i, warp.match_any(input[i])); // match-branch
    }
}

#[kernel]
pub fn match_in_a_branch_fixed(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let i = block.thread_rank() as usize;
    let peers = warp.match_any(input[i]);
    if input[i] != 0 {
        out.write(i, peers);
    }
}

#[test]
fn a_match_that_depends_on_the_data() {
    let input: Vec<u32> = (0..32).map(|i| i % 3).collect();
    let mut out = vec![0u32; 32];
    broken(
        cpu().launch(match_in_a_branch, cfg(1, 32), (&input[..], &mut out)),
        "DivergentCollective match_any @{match-branch} | group threads 0-31 | threads 0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30 returned; threads 1-2, 4-5, 7-8, 10-11, 13-14, 16-17, 19-20, 22-23, 25-26, 28-29, 31 @{match-branch}",
    );
    clean(cpu().launch(match_in_a_branch_fixed, cfg(1, 32), (&input[..], &mut out)));
}

#[kernel]
pub fn vote_in_a_data_dependent_loop(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let i = block.thread_rank() as usize;
    let mut n = input[i];
    let mut rounds = 0;
    while n > 0 {
        let odd = warp.any(n % 2 == 1); // any-loop
        if odd {
            rounds += 1;
        }
        n /= 2;
    }
    out.write(i, rounds);
}

#[kernel]
pub fn vote_in_a_data_dependent_loop_fixed(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let i = block.thread_rank() as usize;
    let mut n = input[i];
    let mut rounds = 0;
    // Every lane runs as many rounds as the warp's largest value needs.
    while warp.any(n > 0) {
        if warp.any(n % 2 == 1) {
            rounds += 1;
        }
        n /= 2;
    }
    out.write(i, rounds);
}

#[test]
fn a_vote_in_a_loop_with_a_per_lane_trip_count() {
    let input: Vec<u32> = (0..32).collect();
    let mut out = vec![0u32; 32];
    broken(
        cpu().launch(vote_in_a_data_dependent_loop, cfg(1, 32), (&input[..], &mut out)),
        "DivergentCollective any @{any-loop} | group threads 0-31 | thread 0 returned; threads 1-31 @{any-loop}",
    );
    clean(cpu().launch(
        vote_in_a_data_dependent_loop_fixed,
        cfg(1, 32),
        (&input[..], &mut out),
    ));
    assert_eq!(out[0], 5);
}

#[kernel]
pub fn vote_forever(block: ThreadBlock) {
    let warp = block.tiled_partition::<32>();
    while !warp.all(false) {} // vote-forever
}

#[kernel]
pub fn vote_until_all_agree(block: ThreadBlock, out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let mut rounds = 0u32;
    while !warp.all(rounds >= warp.thread_rank()) {
        rounds += 1;
    }
    out.write(block.thread_rank() as usize, rounds);
}

#[test]
fn a_loop_of_collectives_that_never_ends_runs_out_of_steps() {
    let cpu = Cpu::with_emulator(Emulator::new().with_step_budget(5000));
    broken(
        cpu.launch(vote_forever, cfg(1, 32), ()),
        "OutOfSteps thread 0 @{vote-forever}",
    );
    // A loop of votes whose condition does change ends.
    let mut out = vec![0u32; 32];
    clean(cpu.launch(vote_until_all_agree, cfg(1, 32), (&mut out,)));
    assert_eq!(out, [31; 32]);
}

// =====================================================================
// Shared memory.

#[kernel]
pub fn read_left_neighbour(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
    let r = block.thread_rank() as usize;
    let mine = buf.own(ByRank::new());
    mine.set(0);
    let raw = mine.publish(&block).into_raw();
    unsafe { raw.write(r, r as u32) }; // left-write
    let left = if r > 0 { unsafe { raw.read(r - 1) } } else { 0 }; // left-read
    out.write(r, left);
}

#[kernel]
pub fn read_left_neighbour_fixed(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
    let r = block.thread_rank() as usize;
    let mine = buf.own(ByRank::new());
    mine.set(r as u32);
    let all = mine.publish(&block);
    out.write(r, if r > 0 { all.get(r - 1) } else { 0 });
}

#[test]
fn reading_the_left_neighbour_without_a_barrier() {
    let mut out = vec![0u32; 64];
    broken(
        cpu().launch(read_left_neighbour, cfg(1, 64), (&mut out,)),
        "SharedRace buf[0] | thread 0 writes @{left-write} | thread 1 reads @{left-read}",
    );
    clean(cpu().launch(read_left_neighbour_fixed, cfg(1, 64), (&mut out,)));
    assert_eq!(out[5], 4);
}

#[kernel]
pub fn read_right_neighbour(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
    let raw = buf.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, r as u32) }; // right-write
    let next = if r < 63 { r + 1 } else { r };
    let right = unsafe { raw.read(next) }; // right-read
    out.write(r, right);
}

#[kernel]
pub fn read_right_neighbour_fixed(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
    let raw = buf.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, r as u32) };
    block.sync();
    let right = if r < 63 {
        unsafe { raw.read(r + 1) }
    } else {
        0
    };
    out.write(r, right);
}

#[test]
fn reading_the_right_neighbour_without_a_barrier_is_the_same_race() {
    // Thread 0 reads buf[1] before thread 1 (run later) writes it: the
    // read is remembered, and the write makes it a race, not an
    // uninitialised read.
    let mut out = vec![0u32; 64];
    broken(
        cpu().launch(read_right_neighbour, cfg(1, 64), (&mut out,)),
        "SharedRace buf[1] | thread 0 reads @{right-read} | thread 1 writes @{right-write}",
    );
    clean(cpu().launch(read_right_neighbour_fixed, cfg(1, 64), (&mut out,)));
    assert_eq!(out[5], 6);
}

#[kernel]
pub fn everyone_writes_slot_zero(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 1]>) {
    let raw = buf.into_raw();
    let r = block.thread_rank();
    unsafe { raw.write(0, r) }; // slot-zero
    block.sync();
    out.write(r as usize, unsafe { raw.read(0) });
}

#[kernel]
pub fn everyone_writes_slot_zero_fixed(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 1]>) {
    let raw = buf.into_raw();
    let r = block.thread_rank();
    if r == 0 {
        unsafe { raw.write(0, 7) };
    }
    block.sync();
    out.write(r as usize, unsafe { raw.read(0) });
}

#[test]
fn two_threads_write_one_shared_element() {
    let mut out = vec![0u32; 32];
    broken(
        cpu().launch(everyone_writes_slot_zero, cfg(1, 32), (&mut out,)),
        "SharedRace buf[0] | thread 0 writes @{slot-zero} | thread 1 writes @{slot-zero}",
    );
    clean(cpu().launch(everyone_writes_slot_zero_fixed, cfg(1, 32), (&mut out,)));
}

#[kernel]
pub fn read_what_nobody_wrote(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
    let raw = buf.into_raw();
    let r = block.thread_rank() as usize;
    if r < 32 {
        unsafe { raw.write(r, 1) };
    }
    block.sync();
    out.write(r, unsafe { raw.read(63 - r) }); // unwritten-read
}

#[kernel]
pub fn read_what_nobody_wrote_fixed(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
    let raw = buf.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, 1) };
    block.sync();
    out.write(r, unsafe { raw.read(63 - r) });
}

#[test]
fn reading_an_element_no_thread_wrote() {
    let mut out = vec![0u32; 64];
    broken(
        cpu().launch(read_what_nobody_wrote, cfg(1, 64), (&mut out,)),
        "UninitializedRead buf[63] | thread 0 reads @{unwritten-read}",
    );
    clean(cpu().launch(read_what_nobody_wrote_fixed, cfg(1, 64), (&mut out,)));
}

#[kernel]
pub fn accumulate_into_unset(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    acc: Shared<[u32; 32]>,
) {
    let raw = acc.into_raw();
    let r = block.thread_rank() as usize;
    let sum = unsafe { raw.read(r) } + input[r]; // acc-read
    unsafe { raw.write(r, sum) };
    out.write(r, sum);
}

#[kernel]
pub fn accumulate_into_unset_fixed(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    acc: Shared<[u32; 32]>,
) {
    let raw = acc.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, 0) };
    let sum = unsafe { raw.read(r) } + input[r];
    unsafe { raw.write(r, sum) };
    out.write(r, sum);
}

#[test]
fn accumulating_into_shared_memory_never_zeroed() {
    // The thread writes the element after reading it: ordered, so the
    // read saw garbage (reported when the block ends).
    let input = vec![2u32; 32];
    let mut out = vec![0u32; 32];
    broken(
        cpu().launch(accumulate_into_unset, cfg(1, 32), (&input[..], &mut out)),
        "UninitializedRead acc[0] | thread 0 reads @{acc-read}",
    );
    clean(cpu().launch(
        accumulate_into_unset_fixed,
        cfg(1, 32),
        (&input[..], &mut out),
    ));
}

#[kernel]
pub fn lanes_exchange_without_warp_sync(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 32]>) {
    let raw = buf.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, r as u32 * 2) }; // lane-write
    out.write(r, unsafe { raw.read(r ^ 1) }); // lane-read
}

#[kernel]
pub fn lanes_exchange_without_warp_sync_fixed(
    block: ThreadBlock,
    out: Out<u32>,
    buf: Shared<[u32; 32]>,
) {
    let warp = block.tiled_partition::<32>();
    let raw = buf.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, r as u32 * 2) };
    warp.sync();
    out.write(r, unsafe { raw.read(r ^ 1) });
}

#[test]
fn lanes_of_a_warp_exchange_through_shared_memory_without_a_warp_barrier() {
    let mut out = vec![0u32; 32];
    broken(
        cpu().launch(lanes_exchange_without_warp_sync, cfg(1, 32), (&mut out,)),
        "SharedRace buf[1] | thread 0 reads @{lane-read} | thread 1 writes @{lane-write}",
    );
    clean(cpu().launch(
        lanes_exchange_without_warp_sync_fixed,
        cfg(1, 32),
        (&mut out,),
    ));
    assert_eq!(out[0], 2);
}

#[kernel]
pub fn tile_sync_across_tiles(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 32]>) {
    let tile = block.tiled_partition::<16>();
    let raw = buf.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, r as u32) }; // cross-tile-write
    tile.sync();
    out.write(r, unsafe { raw.read((r + 16) % 32) }); // cross-tile-read
}

#[kernel]
pub fn tile_sync_across_tiles_fixed(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 32]>) {
    let raw = buf.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, r as u32) };
    block.sync();
    out.write(r, unsafe { raw.read((r + 16) % 32) });
}

#[test]
fn a_tile_barrier_does_not_order_threads_of_another_tile() {
    let mut out = vec![0u32; 32];
    broken(
        cpu().launch(tile_sync_across_tiles, cfg(1, 32), (&mut out,)),
        "SharedRace buf[16] | thread 16 writes @{cross-tile-write} | thread 0 reads @{cross-tile-read}",
    );
    clean(cpu().launch(tile_sync_across_tiles_fixed, cfg(1, 32), (&mut out,)));
}

#[kernel]
pub fn tree_sum_without_round_barriers(
    block: ThreadBlock,
    input: &[f32],
    out: Out<f32>,
    cache: Shared<[f32; 64]>,
) {
    let cache = cache.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { cache.write(r, input[r]) };
    block.sync();
    let mut half = 32;
    while half > 0 {
        if r < half {
            unsafe { cache.write(r, cache.read(r) + cache.read(r + half)) }; // tree-round
        }
        half /= 2;
    }
    if r == 0 {
        out.write(0, unsafe { cache.read(0) });
    }
}

#[kernel]
pub fn tree_sum_without_round_barriers_fixed(
    block: ThreadBlock,
    input: &[f32],
    out: Out<f32>,
    cache: Shared<[f32; 64]>,
) {
    let cache = cache.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { cache.write(r, input[r]) };
    block.sync();
    let mut half = 32;
    while half > 0 {
        if r < half {
            unsafe { cache.write(r, cache.read(r) + cache.read(r + half)) };
        }
        block.sync();
        half /= 2;
    }
    if r == 0 {
        out.write(0, unsafe { cache.read(0) });
    }
}

#[test]
fn a_tree_reduction_missing_the_barrier_between_rounds() {
    // Thread 0 runs every round before thread 1 runs at all (nothing
    // stops it); its last round reads cache[1], which thread 1 then writes
    // in its first round.
    let input = vec![1.0f32; 64];
    let mut out = vec![0f32; 1];
    broken(
        cpu().launch(
            tree_sum_without_round_barriers,
            cfg(1, 64),
            (&input[..], &mut out),
        ),
        "SharedRace cache[1] | thread 0 reads @{tree-round} | thread 1 writes @{tree-round}",
    );
    clean(cpu().launch(
        tree_sum_without_round_barriers_fixed,
        cfg(1, 64),
        (&input[..], &mut out),
    ));
    assert_eq!(out, [64.0]);
}

#[kernel]
pub fn plain_read_during_atomic_updates(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    bins: Shared<[u32; 4]>,
) {
    let t = block.thread_rank() as usize;
    let zero = bins.own(ByRank::new());
    if t < 4 {
        zero.write(t, 0);
    }
    let bins = zero.atomics(&block).into_raw();
    unsafe { bins.write(input[t] as usize % 4, 1) }; // plain-bin-write
    block.sync();
    out.write(t, unsafe { bins.read(t % 4) });
}

#[kernel]
pub fn plain_read_during_atomic_updates_fixed(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    bins: Shared<[u32; 4]>,
) {
    let t = block.thread_rank() as usize;
    let zero = bins.own(ByRank::new());
    if t < 4 {
        zero.write(t, 0);
    }
    let bins = zero.atomics(&block);
    bins.add(input[t] as usize % 4, 1);
    let bins = bins.publish(&block);
    out.write(t, bins.get(t % 4));
}

#[test]
fn a_histogram_bin_written_plainly_by_many_threads() {
    let input: Vec<u32> = (0..32).collect();
    let mut out = vec![0u32; 32];
    broken(
        cpu().launch(plain_read_during_atomic_updates, cfg(1, 32), (&input[..], &mut out)),
        "SharedRace bins[0] | thread 0 writes @{plain-bin-write} | thread 4 writes @{plain-bin-write}",
    );
    clean(cpu().launch(
        plain_read_during_atomic_updates_fixed,
        cfg(1, 32),
        (&input[..], &mut out),
    ));
    assert_eq!(out[0], 8);
}

#[kernel]
pub fn shared_index_past_the_end(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 32]>) {
    let raw = buf.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, 1) }; // shared-oob
    block.sync();
    out.write(r, 0);
}

#[test]
fn a_shared_index_past_the_end() {
    let mut out = vec![0u32; 64];
    let e = broken(
        cpu().launch(shared_index_past_the_end, cfg(1, 64), (&mut out,)),
        "Panic thread 32 @{shared-oob} | coop: index 32 is outside a shared array of 32 elements (at tests/rules.rs:LINE:18)"
            .replace("LINE", &line_of("shared-oob").to_string())
            .as_str(),
    );
    assert!(e.to_string().contains("thread 32 panicked at"), "{e}");
    let mut out = vec![0u32; 32];
    clean(cpu().launch(shared_index_past_the_end, cfg(1, 32), (&mut out,)));
}

#[kernel]
pub fn write_a_neighbours_element(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 32]>) {
    let r = block.thread_rank() as usize;
    let mine = buf.own(ByRank::new());
    mine.write((r + 1) % 32, r as u32); // not-owned
    let all = mine.publish(&block);
    out.write(r, all.get(r));
}

#[kernel]
pub fn write_a_neighbours_element_fixed(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 32]>) {
    let r = block.thread_rank() as usize;
    let mine = buf.own(ByRank::new());
    mine.set(r as u32);
    let all = mine.publish(&block);
    out.write(r, all.get((r + 1) % 32));
}

#[test]
fn writing_an_element_another_thread_owns() {
    let mut out = vec![0u32; 32];
    let e = error_of(cpu().launch(write_a_neighbours_element, cfg(1, 32), (&mut out,)));
    let Violation::Panic {
        thread, location, ..
    } = &*e.violation
    else {
        panic!("{e}")
    };
    assert_eq!(*thread, 0);
    assert_eq!(
        location.as_ref().map(|l| l.line),
        Some(line_of("not-owned"))
    );
    assert!(e.to_string().contains("belongs to thread 1"), "{e}");
    clean(cpu().launch(write_a_neighbours_element_fixed, cfg(1, 32), (&mut out,)));
}

#[kernel]
pub fn every_lane_writes_the_warp_slot(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 4]>) {
    let warp = block.tiled_partition::<32>();
    let slots = buf.own(TileLeaders::<32>);
    slots.set(warp.thread_rank()); // not-leader
    let slots = slots.publish(&block);
    out.write(
        block.thread_rank() as usize,
        slots.get(warp.meta_group_rank() as usize),
    );
}

#[kernel]
pub fn every_lane_writes_the_warp_slot_fixed(
    block: ThreadBlock,
    out: Out<u32>,
    buf: Shared<[u32; 4]>,
) {
    let warp = block.tiled_partition::<32>();
    let slots = buf.own(TileLeaders::<32>);
    if warp.thread_rank() == 0 {
        slots.set(100 + warp.meta_group_rank());
    }
    let slots = slots.publish(&block);
    out.write(
        block.thread_rank() as usize,
        slots.get(warp.meta_group_rank() as usize),
    );
}

#[kernel]
pub fn a_lane_writes_its_nth_warp_slot(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 8]>) {
    let slots = buf.own(TileLeaders::<32>);
    if block.thread_rank() == 33 {
        slots.write_nth(1, 7); // nth-not-leader
    }
    let slots = slots.publish(&block);
    out.write(block.thread_rank() as usize, slots.get(0));
}

#[test]
fn a_tile_slot_belongs_to_the_tile_leader() {
    let mut out = vec![0u32; 128];
    let e = error_of(cpu().launch(every_lane_writes_the_warp_slot, cfg(1, 128), (&mut out,)));
    let Violation::Panic {
        thread, location, ..
    } = &*e.violation
    else {
        panic!("{e}")
    };
    assert_eq!(*thread, 1, "{e}");
    assert_eq!(
        location.as_ref().map(|l| l.line),
        Some(line_of("not-leader"))
    );
    assert!(e.to_string().contains("belongs to thread 0"), "{e}");
    // write_nth of a thread that leads no tile names the leader too.
    let e = error_of(cpu().launch(a_lane_writes_its_nth_warp_slot, cfg(1, 128), (&mut out,)));
    assert!(e.to_string().contains("belongs to thread 32"), "{e}");
    assert!(
        e.to_string()
            .contains(&format!(":{}:", line_of("nth-not-leader"))),
        "{e}"
    );
    clean(cpu().launch(
        every_lane_writes_the_warp_slot_fixed,
        cfg(1, 128),
        (&mut out,),
    ));
    assert_eq!(
        out[..],
        (0..128).map(|t| 100 + t / 32).collect::<Vec<u32>>()[..]
    );
}

/// Every warp stores its sum in slot 0: only warp 0's leader owns it.
#[kernel]
pub fn warps_store_their_sums_in_one_slot(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    buf: Shared<[u32; 4]>,
) {
    let warp = block.tiled_partition::<32>();
    let slots = buf.own(TileLeaders::<32>);
    let x = input[block.thread_rank() as usize];
    reduce_store_async(&warp, &slots, 0, x, op::Sum); // store-to-slot-0
    let slots = slots.publish(&block);
    if block.thread_rank() == 0 {
        out.write(0, slots.get(0));
    }
}

#[kernel]
pub fn warps_store_their_sums_in_one_slot_fixed(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    buf: Shared<[u32; 4]>,
) {
    let warp = block.tiled_partition::<32>();
    let slots = buf.own(TileLeaders::<32>);
    let x = input[block.thread_rank() as usize];
    reduce_store_async(&warp, &slots, warp.meta_group_rank() as usize, x, op::Sum);
    let slots = slots.publish(&block);
    if block.thread_rank() == 0 {
        out.write(0, (0..4).map(|w| slots.get(w)).sum());
    }
}

#[test]
fn a_groups_stored_result_goes_to_a_slot_its_leader_owns() {
    let input: Vec<u32> = (0..128).collect();
    let mut out = vec![0u32; 1];
    let e = error_of(cpu().launch(
        warps_store_their_sums_in_one_slot,
        cfg(1, 128),
        (&input[..], &mut out),
    ));
    let Violation::Panic {
        thread, location, ..
    } = &*e.violation
    else {
        panic!("{e}")
    };
    // Warp 1's leader is the first to store where it owns nothing.
    assert_eq!(*thread % 32, 0, "{e}");
    assert_ne!(*thread, 0, "{e}");
    assert_eq!(
        location.as_ref().map(|l| l.line),
        Some(line_of("store-to-slot-0"))
    );
    assert!(e.to_string().contains("belongs to thread 0"), "{e}");
    clean(cpu().launch(
        warps_store_their_sums_in_one_slot_fixed,
        cfg(1, 128),
        (&input[..], &mut out),
    ));
    assert_eq!(out, [127 * 128 / 2]);
}

/// A scan update into counter 1 of a one-counter buffer.
#[kernel]
pub fn scan_update_past_the_counters(block: ThreadBlock, counters: Out<u32>, out: Out<u32>) {
    let warp = block.tiled_partition::<32>();
    let at = exclusive_scan_update(&warp, &counters.atomic(), 1, 1, op::Sum);
    out.write(block.thread_rank() as usize, at);
}

#[test]
fn a_scan_update_past_its_counters_is_reported_under_its_own_name() {
    let (mut counters, mut out) = (vec![0u32; 1], vec![0u32; 32]);
    let e = error_of(cpu().launch(
        scan_update_past_the_counters,
        cfg(1, 32),
        (&mut counters, &mut out),
    ));
    assert!(
        e.to_string()
            .contains("exclusive_scan_update: index 1 is out of bounds"),
        "{e}"
    );
}

#[kernel]
pub fn a_map_whose_nth_disagrees(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
    // Owner: pairs (thread r owns 2r and 2r + 1); nth: strided, which
    // hands thread 1 element 1, thread 0's.
    let map = ByFunction::new(
        |i, _| i as u32 / 2,
        |r, n, threads| r as usize + n * threads as usize,
    );
    let mine = buf.own(map);
    let r = block.thread_rank();
    mine.write_nth(0, r); // nth-disagrees
    let all = mine.publish(&block);
    out.write(r as usize, all.get(r as usize));
}

#[kernel]
pub fn a_map_whose_nth_agrees(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
    let map = ByFunction::new(|i, _| i as u32 / 2, |r, n, _| 2 * r as usize + n);
    let mine = buf.own(map);
    let r = block.thread_rank();
    mine.write_nth(0, r);
    mine.write_nth(1, r);
    let all = mine.publish(&block);
    out.write(r as usize, all.get(r as usize));
}

#[test]
fn a_users_map_is_checked_against_its_owner_function() {
    let mut out = vec![0u32; 32];
    let e = error_of(cpu().launch(a_map_whose_nth_disagrees, cfg(1, 32), (&mut out,)));
    assert!(e.to_string().contains("belongs to thread 0"), "{e}");
    assert!(
        e.to_string()
            .contains(&format!(":{}:", line_of("nth-disagrees"))),
        "{e}"
    );
    clean(cpu().launch(a_map_whose_nth_agrees, cfg(1, 32), (&mut out,)));
    assert_eq!(out, (0..32).map(|r| r / 2).collect::<Vec<u32>>());
}

#[kernel]
pub fn dynamic_shared_shift(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32]>) {
    let raw = buf.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, 5) }; // dyn-write
    let next = unsafe { raw.read((r + 1) % raw.len()) }; // dyn-read
    out.write(r, next);
}

#[kernel]
pub fn dynamic_shared_shift_fixed(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32]>) {
    let raw = buf.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, 5) };
    block.sync();
    out.write(r, unsafe { raw.read((r + 1) % raw.len()) });
}

#[test]
fn a_race_in_dynamic_shared_memory() {
    let mut out = vec![0u32; 32];
    let config = cfg(1, 32).with_shared_memory(32 * 4);
    broken(
        cpu().launch(dynamic_shared_shift, config, (&mut out,)),
        "SharedRace buf[1] | thread 0 reads @{dyn-read} | thread 1 writes @{dyn-write}",
    );
    clean(cpu().launch(dynamic_shared_shift_fixed, config, (&mut out,)));
}

// =====================================================================
// Global memory: races within a block and across blocks, bounds.

#[kernel]
pub fn block_total_written_by_every_thread(block: ThreadBlock, input: &[u32], totals: Out<u32>) {
    let r = block.thread_rank() as usize;
    let b = block.group_index().x as usize;
    let total = reduce(&block, input[b * 64 + r], op::Sum);
    totals.write(b, total); // every-thread-total
}

#[kernel]
pub fn block_total_written_by_every_thread_fixed(
    block: ThreadBlock,
    input: &[u32],
    totals: Out<u32>,
) {
    let r = block.thread_rank() as usize;
    let b = block.group_index().x as usize;
    let total = reduce(&block, input[b * 64 + r], op::Sum);
    if r == 0 {
        totals.write(b, total);
    }
}

#[test]
fn every_thread_of_a_block_writes_the_blocks_result() {
    let input = vec![1u32; 128];
    let mut totals = vec![0u32; 2];
    broken(
        cpu().launch(block_total_written_by_every_thread, cfg(2, 64), (&input[..], &mut totals)),
        "GlobalRace totals[0] | block 0 thread 0 writes @{every-thread-total} | block 0 thread 1 writes @{every-thread-total}",
    );
    clean(cpu().launch(
        block_total_written_by_every_thread_fixed,
        cfg(2, 64),
        (&input[..], &mut totals),
    ));
    assert_eq!(totals, [64, 64]);
}

#[kernel]
pub fn indexed_by_the_thread_only(block: ThreadBlock, input: &[f32], out: Out<f32>) {
    let i = block.thread_rank() as usize;
    out.write(i, 2.0 * input[i]); // thread-only-index
}

#[kernel]
pub fn indexed_by_the_thread_only_fixed(grid: Grid, input: &[f32], out: Out<f32>) {
    let i = grid.thread_rank();
    if i < input.len() {
        out.write(i, 2.0 * input[i]);
    }
}

#[test]
fn two_blocks_write_the_same_elements() {
    let input = vec![1.0f32; 256];
    let mut out = vec![0f32; 256];
    broken(
        cpu().launch(indexed_by_the_thread_only, cfg(4, 64), (&input[..], &mut out)),
        "GlobalRace out[0] | block 0 thread 0 writes @{thread-only-index} | block 1 thread 0 writes @{thread-only-index}",
    );
    clean(cpu().launch(
        indexed_by_the_thread_only_fixed,
        cfg(4, 64),
        (&input[..], &mut out),
    ));
}

#[kernel]
pub fn reset_then_count(block: ThreadBlock, input: &[u32], count: Out<u32>) {
    let i = this_grid().thread_rank();
    if block.thread_rank() == 0 {
        count.write(0, 0); // reset-count
    }
    if i < input.len() && input[i] % 2 == 0 {
        count.atomic().add(0, 1); // count-add
    }
}

#[kernel]
pub fn reset_then_count_fixed(grid: Grid, input: &[u32], count: Out<u32>) {
    let i = grid.thread_rank();
    if i < input.len() && input[i] % 2 == 0 {
        count.atomic().add(0, 1);
    }
}

#[test]
fn a_plain_write_to_a_counter_that_other_blocks_update_atomically() {
    let input: Vec<u32> = (0..128).collect();
    let mut count = vec![0u32];
    broken(
        cpu().launch(reset_then_count, cfg(2, 64), (&input[..], &mut count)),
        "GlobalRace count[0] | block 0 thread 0 writes @{reset-count} | block 0 thread 2 atomically updates @{count-add}",
    );
    let mut count = vec![0u32];
    clean(cpu().launch(reset_then_count_fixed, cfg(2, 64), (&input[..], &mut count)));
    assert_eq!(count, [64]);
}

#[kernel]
pub fn reset_once_in_every_block(block: ThreadBlock, count: Out<u32>) {
    if block.thread_rank() == 0 {
        count.write(0, 0); // reset-per-block
    }
    block.sync();
    count.atomic().add(0, 1); // add-per-block
}

#[test]
fn a_barrier_orders_a_blocks_own_accesses_but_not_another_blocks() {
    // Within block 0 the barrier orders the reset before the additions;
    // block 1's reset is ordered with nothing of block 0.
    let mut count = vec![0u32];
    broken(
        cpu().launch(reset_once_in_every_block, cfg(2, 32), (&mut count,)),
        "GlobalRace count[0] | block 0 thread 0 writes @{reset-per-block} | block 1 thread 0 writes @{reset-per-block}",
    );
    clean(cpu().launch(reset_once_in_every_block, cfg(1, 32), (&mut count,)));
    assert_eq!(count, [32]);
}

/// Every block counts into one element with atomics at the block's scope:
/// each block's additions are indivisible among its own threads only.
#[kernel]
pub fn count_with_block_scope(grid: Grid, input: &[u32], count: Out<u32>) {
    let i = grid.thread_rank();
    if i < input.len() && input[i] % 2 == 0 {
        count.atomic().with_scope(Scope::Block).add(0, 1); // block-scope-add
    }
}

#[kernel]
pub fn count_with_block_scope_fixed(grid: Grid, input: &[u32], count: Out<u32>) {
    let i = grid.thread_rank();
    if i < input.len() && input[i] % 2 == 0 {
        count.atomic().add(0, 1);
    }
}

/// Block scope where it suffices: each block counts into its own element.
#[kernel]
pub fn count_per_block_with_block_scope(grid: Grid, input: &[u32], counts: Out<u32>) {
    let i = grid.thread_rank();
    if i < input.len() && input[i] % 2 == 0 {
        counts
            .atomic()
            .with_scope(Scope::Block)
            .add(grid.block_rank(), 1);
    }
}

#[test]
fn atomics_at_the_blocks_scope_from_several_blocks_race() {
    let input: Vec<u32> = (0..256).collect();
    let mut count = vec![0u32];
    let e = broken(
        cpu().launch(count_with_block_scope, cfg(4, 64), (&input, &mut count)),
        "GlobalRace count[0] | block 0 thread 0 atomically updates @{block-scope-add} | block 1 thread 0 atomically updates @{block-scope-add}",
    );
    let message = e.to_string();
    assert!(message.contains("`with_scope(Scope::Block)`"), "{e}");
    assert!(message.contains("`Scope::Device`, the default"), "{e}");
    // One block alone, the device scope, or an element a block: clean.
    clean(cpu().launch(
        count_with_block_scope,
        cfg(1, 64),
        (&input[..64], &mut count),
    ));
    count[0] = 0;
    clean(cpu().launch(
        count_with_block_scope_fixed,
        cfg(4, 64),
        (&input, &mut count),
    ));
    assert_eq!(count, [128]);
    let mut counts = vec![0u32; 4];
    clean(cpu().launch(
        count_per_block_with_block_scope,
        cfg(4, 64),
        (&input, &mut counts),
    ));
    assert_eq!(counts, [32; 4]);
}

#[kernel]
pub fn unguarded_map(grid: Grid, input: &[f32], out: Out<f32>) {
    let i = grid.thread_rank();
    out.write(i, input[i] + 1.0); // unguarded-map
}

#[kernel]
pub fn unguarded_map_fixed(grid: Grid, input: &[f32], out: Out<f32>) {
    let i = grid.thread_rank();
    if i < input.len() {
        out.write(i, input[i] + 1.0);
    }
}

#[test]
fn reading_an_input_past_its_end_names_the_parameter() {
    let input = vec![1.0f32; 100];
    let mut out = vec![0f32; 128];
    broken(
        cpu().launch(unguarded_map, cfg(2, 64), (&input[..], &mut out)),
        "OutOfBounds input index 100 of 100 | thread 36 @{unguarded-map}",
    );
    let mut out = vec![0f32; 100];
    clean(cpu().launch(unguarded_map_fixed, cfg(2, 64), (&input[..], &mut out)));
}

#[test]
fn writing_an_output_past_its_end_names_the_parameter() {
    let input = vec![1.0f32; 128];
    let mut out = vec![0f32; 100];
    let e = broken(
        cpu().launch(unguarded_map, cfg(2, 64), (&input[..], &mut out)),
        "OutOfBounds out Out::write 100 of 100 | thread 36 @{unguarded-map}",
    );
    assert_eq!(e.block, coop::Dim3::new(1, 0, 0));
}

#[kernel]
pub fn histogram_without_clamping(grid: Grid, input: &[u32], bins: Out<u32>) {
    let i = grid.thread_rank();
    if i < input.len() {
        bins.atomic().add(input[i] as usize / 10, 1); // hist-oob
    }
}

#[kernel]
pub fn histogram_without_clamping_fixed(grid: Grid, input: &[u32], bins: Out<u32>) {
    let i = grid.thread_rank();
    if i < input.len() {
        bins.atomic()
            .add((input[i] as usize / 10).min(bins.len() - 1), 1);
    }
}

#[test]
fn an_atomic_past_the_end_of_its_buffer() {
    let input: Vec<u32> = (0..64).collect();
    let mut bins = vec![0u32; 5];
    broken(
        cpu().launch(
            histogram_without_clamping,
            cfg(1, 64),
            (&input[..], &mut bins),
        ),
        "OutOfBounds bins AtomicOut::add 5 of 5 | thread 50 @{hist-oob}",
    );
    let mut bins = vec![0u32; 5];
    clean(cpu().launch(
        histogram_without_clamping_fixed,
        cfg(1, 64),
        (&input[..], &mut bins),
    ));
    assert_eq!(bins, [10, 10, 10, 10, 24]);
}

#[kernel]
pub fn result_then_flag(block: ThreadBlock, results: Out<u32>, flags: Out<u32>) {
    // The fence + flag protocol: one thread per block writes its result,
    // fences, then raises its own flag. No two threads touch one element.
    if block.thread_rank() == 0 {
        let b = block.group_index().x as usize;
        results.write(b, 7 * b as u32);
        fence_device();
        flags.atomic().store(b, 1);
    }
}

#[test]
fn the_fence_and_flag_protocol_is_not_a_race() {
    let (mut results, mut flags) = (vec![0u32; 4], vec![0u32; 4]);
    clean(cpu().launch(result_then_flag, cfg(4, 64), (&mut results, &mut flags)));
    assert_eq!((results, flags), (vec![0, 7, 14, 21], vec![1; 4]));
}

/// Message passing between blocks with a relaxed flag: block 0 writes
/// the data and raises the flag, block 1 waits for the flag and reads the
/// data. Nothing orders the data's write before its read: the flag needs
/// release on the store and acquire on the load.
#[kernel(cooperative)]
pub fn pass_through_a_relaxed_flag(
    grid: CooperativeGrid,
    data: Out<u32>,
    flag: Out<u32>,
    seen: Out<u32>,
) {
    let block = this_thread_block();
    if block.thread_rank() != 0 {
        return;
    }
    let flags = flag.atomic();
    if grid.block_rank() == 0 {
        data.write(0, 42); // relaxed-data
        flags.store(0, 1);
    } else {
        while flags.load(0) == 0 {}
        seen.write(grid.block_rank(), data.read(0)); // relaxed-read
    }
}

#[kernel(cooperative)]
pub fn pass_through_a_relaxed_flag_fixed(
    grid: CooperativeGrid,
    data: Out<u32>,
    flag: Out<u32>,
    seen: Out<u32>,
) {
    let block = this_thread_block();
    if block.thread_rank() != 0 {
        return;
    }
    let flags = flag.atomic();
    if grid.block_rank() == 0 {
        data.write(0, 42);
        flags.with_ordering(Ordering::Release).store(0, 1);
    } else {
        let acquire = flags.with_ordering(Ordering::Acquire);
        while acquire.load(0) == 0 {}
        seen.write(grid.block_rank(), data.read(0));
    }
}

#[test]
fn a_relaxed_flag_does_not_publish_data_to_another_block() {
    let (mut data, mut flag, mut seen) = (vec![0u32], vec![0u32], vec![0u32; 2]);
    broken(
        cpu().launch(
            pass_through_a_relaxed_flag,
            cfg(2, 32),
            (&mut data, &mut flag, &mut seen),
        ),
        "GlobalRace data[0] | block 0 thread 0 writes @{relaxed-data} | block 1 thread 0 reads @{relaxed-read}",
    );
    let (mut data, mut flag, mut seen) = (vec![0u32], vec![0u32], vec![0u32; 2]);
    clean(cpu().launch(
        pass_through_a_relaxed_flag_fixed,
        cfg(2, 32),
        (&mut data, &mut flag, &mut seen),
    ));
    assert_eq!(seen, [0, 42]);
}

/// The reader acquires the flag, but the writer stores it relaxed: nothing
/// publishes the data's write, so the acquire orders nothing.
#[kernel(cooperative)]
pub fn acquire_a_flag_stored_relaxed(
    grid: CooperativeGrid,
    data: Out<u32>,
    flag: Out<u32>,
    seen: Out<u32>,
) {
    let block = this_thread_block();
    if block.thread_rank() != 0 {
        return;
    }
    let flags = flag.atomic();
    if grid.block_rank() == 0 {
        data.write(0, 42); // unreleased-data
        flags.store(0, 1); // unreleased-flag
    } else {
        let acquire = flags.with_ordering(Ordering::Acquire);
        while acquire.load(0) == 0 {}
        seen.write(grid.block_rank(), data.read(0)); // unreleased-read
    }
}

#[test]
fn an_acquire_orders_nothing_the_writer_did_not_release() {
    let (mut data, mut flag, mut seen) = (vec![0u32], vec![0u32], vec![0u32; 2]);
    let e = broken(
        cpu().launch(
            acquire_a_flag_stored_relaxed,
            cfg(2, 32),
            (&mut data, &mut flag, &mut seen),
        ),
        "UnreleasedWrite data[0] | block 0 thread 0 writes @{unreleased-data} | block 1 thread 0 reads @{unreleased-read} | flag @{unreleased-flag}",
    );
    let text = e.to_string();
    assert!(
        text.contains("is relaxed; store it with release ordering")
            && text.contains("put a `fence_device()` between the write and the flag"),
        "{text}"
    );
}

/// CUDA's threadFenceReduction as written: each block's thread 0 writes
/// its partial, fences and takes a ticket from a relaxed counter; the
/// block with the last ticket reads every partial. Nothing after the
/// ticket acquires: the last block observed the others' releases without
/// synchronizing with them.
#[kernel]
pub fn last_block_without_acquire(
    block: ThreadBlock,
    grid: Grid,
    partials: Out<u32>,
    count: Out<u32>,
    total: Out<u32>,
    fixed: u32,
) {
    let n = grid.num_blocks() as u32;
    let mut last = false;
    if block.thread_rank() == 0 {
        partials.write(grid.block_rank(), grid.block_rank() as u32); // last-block-partial
        fence_device();
        let ticket = count.atomic().fetch_inc(0, n); // last-block-ticket
        if fixed == 1 {
            fence_device();
        }
        last = ticket == n - 1;
    }
    if block.sync_count(last) > 0 && block.thread_rank() == 0 {
        let mut sum = 0;
        for b in 0..n as usize {
            sum += partials.read(b); // last-block-read
        }
        total.write(0, sum);
    }
}

#[test]
fn the_last_block_must_acquire_what_the_counter_observed() {
    let (mut partials, mut count, mut total) = (vec![0u32; 4], vec![0u32], vec![0u32]);
    let e = broken(
        cpu().launch(
            last_block_without_acquire,
            cfg(4, 64),
            (&mut partials, &mut count, &mut total, 0),
        ),
        "UnsynchronizedRead partials[0] | block 0 thread 0 writes @{last-block-partial} | block 3 thread 0 reads @{last-block-read} | observed @{last-block-ticket}",
    );
    assert!(
        e.to_string()
            .contains("put a `fence_device()` right after it"),
        "{e}"
    );
    let (mut partials, mut count, mut total) = (vec![0u32; 4], vec![0u32], vec![0u32]);
    clean(cpu().launch(
        last_block_without_acquire,
        cfg(4, 64),
        (&mut partials, &mut count, &mut total, 1),
    ));
    assert_eq!(total, [6]);
}

/// Every block adds its elements' bins into a global histogram, then, after
/// only a block barrier, thread 0 reads the bins to place its block's
/// output: the other blocks may not have added theirs yet.
#[kernel(cooperative)]
pub fn offsets_from_unfinished_bins(
    grid: CooperativeGrid,
    input: &[u32],
    bins: Out<u32>,
    offsets: Out<u32>,
) {
    let block = this_thread_block();
    let i = grid.thread_rank();
    if i < input.len() {
        bins.atomic().add((input[i] % 4) as usize, 1); // bins-add
    }
    block.sync();
    if block.thread_rank() == 0 {
        let below = bins.read(0) + bins.read(1); // bins-read
        offsets.write(grid.block_rank(), below);
    }
}

#[kernel(cooperative)]
pub fn offsets_from_unfinished_bins_fixed(
    grid: CooperativeGrid,
    input: &[u32],
    bins: Out<u32>,
    offsets: Out<u32>,
) {
    let block = this_thread_block();
    let i = grid.thread_rank();
    if i < input.len() {
        bins.atomic().add((input[i] % 4) as usize, 1);
    }
    grid.sync(); // every block's additions are in
    if block.thread_rank() == 0 {
        let below = bins.read(0) + bins.read(1);
        offsets.write(grid.block_rank(), below);
    }
}

#[test]
fn bins_other_blocks_still_add_to_are_not_final_after_a_block_barrier() {
    let input: Vec<u32> = (0..256).collect();
    let (mut bins, mut offsets) = (vec![0u32; 4], vec![0u32; 4]);
    broken(
        cpu().launch(
            offsets_from_unfinished_bins,
            cfg(4, 64),
            (&input, &mut bins, &mut offsets),
        ),
        "GlobalRace bins[0] | block 0 thread 0 reads @{bins-read} | block 1 thread 0 atomically updates @{bins-add}",
    );
    let (mut bins, mut offsets) = (vec![0u32; 4], vec![0u32; 4]);
    clean(cpu().launch(
        offsets_from_unfinished_bins_fixed,
        cfg(4, 64),
        (&input, &mut bins, &mut offsets),
    ));
    assert_eq!((bins, offsets), (vec![64; 4], vec![128; 4]));
}

// =====================================================================
// Spins and hangs.

#[kernel]
pub fn wait_for_a_flag_nobody_sets(block: ThreadBlock, out: Out<u32>, flag: Shared<[u32; 1]>) {
    let flag = flag.into_raw();
    let r = block.thread_rank();
    if r == 0 {
        unsafe { flag.write(0, 0) };
        while unsafe { flag.read(0) } == 0 {} // spin-nobody
    }
    out.write(r as usize, r);
}

#[test]
fn a_spin_on_a_flag_nobody_sets_is_found_at_once() {
    let mut out = vec![0u32; 64];
    let start = std::time::Instant::now();
    broken(
        cpu().launch(wait_for_a_flag_nobody_sets, cfg(1, 64), (&mut out,)),
        "SpinForever thread 0 @{spin-nobody} | others threads 1-63 returned",
    );
    // 37 ms in a release build (`emulator_bench`); a test build is many
    // times slower, and CI machines are shared.
    assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
}

#[kernel]
pub fn wait_for_another_warps_plain_flag(
    block: ThreadBlock,
    out: Out<u32>,
    flag: Shared<[u32; 1]>,
) {
    let flag = flag.into_raw();
    let r = block.thread_rank();
    if r == 0 {
        unsafe { flag.write(0, 0) };
    }
    block.sync();
    if r == 0 {
        while unsafe { flag.read(0) } == 0 {} // spin-plain
    }
    if r == 32 {
        unsafe { flag.write(0, 1) }; // set-plain
    }
    out.write(r as usize, r);
}

#[kernel]
pub fn wait_for_another_warps_flag_fixed(
    block: ThreadBlock,
    out: Out<u32>,
    flag: Shared<[u32; 1]>,
) {
    let r = block.thread_rank() as usize;
    let zero = flag.own(ByRank::new());
    if r == 0 {
        zero.write(0, 0);
    }
    let flag = zero.atomics(&block);
    if r == 0 {
        while flag.fetch_add(0, 0) == 0 {}
    }
    if r == 32 {
        flag.swap(0, 1);
    }
    out.write(r, r as u32);
}

#[test]
fn a_spin_on_a_plain_flag_another_warp_sets_is_a_race_on_the_flag() {
    let mut out = vec![0u32; 64];
    broken(
        cpu().launch(wait_for_another_warps_plain_flag, cfg(1, 64), (&mut out,)),
        "SharedRace flag[0] | thread 0 reads @{spin-plain} | thread 32 writes @{set-plain}",
    );
    // The same wait on an atomic flag is correct, and ends.
    clean(cpu().launch(wait_for_another_warps_flag_fixed, cfg(1, 64), (&mut out,)));
}

#[kernel]
pub fn wait_for_a_thread_at_a_barrier(block: ThreadBlock, out: Out<u32>, flag: Shared<[u32; 1]>) {
    let r = block.thread_rank() as usize;
    let zero = flag.own(ByRank::new());
    if r == 0 {
        zero.write(0, 0);
    }
    let flag = zero.atomics(&block);
    if r == 0 {
        while flag.fetch_add(0, 0) == 0 {} // spin-deadlock
    }
    block.sync(); // barrier-deadlock
    if r == 32 {
        flag.swap(0, 1);
    }
    out.write(r, r as u32);
}

#[test]
fn a_spin_for_a_thread_that_waits_at_a_barrier_is_a_deadlock() {
    let mut out = vec![0u32; 64];
    broken(
        cpu().launch(wait_for_a_thread_at_a_barrier, cfg(1, 64), (&mut out,)),
        "SpinForever thread 0 @{spin-deadlock} | others threads 1-63 @{barrier-deadlock}",
    );
    clean(cpu().launch(wait_for_another_warps_flag_fixed, cfg(1, 64), (&mut out,)));
}

#[kernel]
pub fn wait_for_the_next_block(block: ThreadBlock, flags: Out<u32>) {
    let b = block.group_index().x as usize;
    if block.thread_rank() == 0 {
        let next = (b + 1) % flags.len();
        while flags.atomic().load(next) == 0 {} // wait-next-block
        flags.atomic().store(b, 1);
    }
}

#[kernel]
pub fn wait_for_the_previous_block(block: ThreadBlock, flags: Out<u32>) {
    let b = block.group_index().x as usize;
    if block.thread_rank() == 0 {
        if b > 0 {
            while flags.atomic().load(b - 1) == 0 {}
        }
        flags.atomic().store(b, 1);
    }
}

#[test]
fn a_block_waiting_for_a_later_block_is_found() {
    let mut flags = vec![0u32; 4];
    let e = broken(
        cpu().launch(wait_for_the_next_block, cfg(4, 32), (&mut flags,)),
        "SpinForever thread 0 @{wait-next-block} | others threads 1-31 returned",
    );
    assert_eq!(e.block, coop::Dim3::new(0, 0, 0));
    assert!(
        e.to_string()
            .contains("a block must not wait for a later block"),
        "{e}"
    );
    // A chain in which each block waits for the one before it runs.
    let mut flags = vec![0u32; 4];
    clean(cpu().launch(wait_for_the_previous_block, cfg(4, 32), (&mut flags,)));
    assert_eq!(flags, [1; 4]);
}

// =====================================================================
// Panics.

#[kernel]
pub fn checked_arithmetic(grid: Grid, input: &[u8], out: Out<u8>) {
    let i = grid.thread_rank();
    out.write(i, input[i] + 200); // overflow
}

#[kernel]
pub fn checked_arithmetic_fixed(grid: Grid, input: &[u8], out: Out<u8>) {
    let i = grid.thread_rank();
    out.write(i, input[i].saturating_add(200));
}

#[test]
fn an_arithmetic_overflow_panics_with_its_line() {
    let input: Vec<u8> = (0..32).map(|i| i * 4).collect();
    let mut out = vec![0u8; 32];
    broken(
        cpu().launch(checked_arithmetic, cfg(1, 32), (&input[..], &mut out)),
        "Panic thread 14 @{overflow} | attempt to add with overflow",
    );
    clean(cpu().launch(checked_arithmetic_fixed, cfg(1, 32), (&input[..], &mut out)));
}

#[kernel]
pub fn assertion_in_a_kernel(grid: Grid, input: &[u32], out: Out<u32>) {
    let i = grid.thread_rank();
    assert!(input[i] < 100, "input {i} is {}", input[i]); // assertion
    out.write(i, input[i]);
}

#[test]
fn an_assertion_in_a_kernel_reports_its_message() {
    let mut input = vec![1u32; 64];
    input[40] = 500;
    let mut out = vec![0u32; 64];
    broken(
        cpu().launch(assertion_in_a_kernel, cfg(2, 32), (&input[..], &mut out)),
        "Panic thread 8 @{assertion} | input 40 is 500",
    );
    input[40] = 5;
    clean(cpu().launch(assertion_in_a_kernel, cfg(2, 32), (&input[..], &mut out)));
}

// =====================================================================
// Schedule exploration.

#[kernel]
pub fn ticket_order(
    block: ThreadBlock,
    out: Out<u32>,
    buf: Shared<[u32; 64]>,
    next: Shared<[u32; 1]>,
) {
    let r = block.thread_rank() as usize;
    let zero = next.own(ByRank::new());
    if r == 0 {
        zero.write(0, 0);
    }
    let next = zero.atomics(&block);
    let raw = buf.into_raw();
    // Each thread takes a ticket and fills the slot it names, then reads
    // its own slot, assuming the tickets come in rank order: they do in
    // rank order, not on a GPU.
    let ticket = next.fetch_add(0, 1) as usize;
    unsafe { raw.write(ticket, r as u32) }; // ticket-write
    out.write(r, unsafe { raw.read(r) }); // ticket-read
}

#[kernel]
pub fn ticket_order_fixed(
    block: ThreadBlock,
    out: Out<u32>,
    buf: Shared<[u32; 64]>,
    next: Shared<[u32; 1]>,
) {
    let r = block.thread_rank() as usize;
    let zero = next.own(ByRank::new());
    if r == 0 {
        zero.write(0, 0);
    }
    let next = zero.atomics(&block);
    let raw = buf.into_raw();
    let ticket = next.fetch_add(0, 1) as usize;
    unsafe { raw.write(ticket, r as u32) };
    block.sync(); // every slot is written, by whichever thread
    out.write(r, unsafe { raw.read(r) });
}

#[test]
fn schedule_exploration_finds_what_rank_order_hides() {
    let mut out = vec![0u32; 64];
    clean(cpu().launch(ticket_order, cfg(1, 64), (&mut out,)));
    let explore = Cpu::with_emulator(Emulator::new().with_schedules(16));
    let e = error_of(explore.launch(ticket_order, cfg(1, 64), (&mut out,)));
    let seed = e.schedule.expect("a seeded schedule");
    assert!(
        matches!(
            *e.violation,
            Violation::SharedRace { .. } | Violation::UninitializedRead { .. }
        ),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains(&format!("with_schedule_seed({seed})")),
        "{e}"
    );
    // The seed replays the same diagnosis.
    let replay = Cpu::with_emulator(Emulator::new().with_schedule_seed(seed));
    let again = error_of(replay.launch(ticket_order, cfg(1, 64), (&mut out,)));
    assert_eq!(again.violation, e.violation);
    assert_eq!(again.schedule, Some(seed));
    // With a barrier between the writes and the reads, every schedule is
    // clean (which thread fills which slot still varies).
    clean(explore.launch(ticket_order_fixed, cfg(1, 64), (&mut out,)));
    let mut sorted = out.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..64).collect::<Vec<u32>>());
}

// =====================================================================
// Multi-warp tiles.

#[kernel]
pub fn multi_warp_sync_in_a_branch(block: ThreadBlock, out: Out<u32>) {
    let tile = block.tiled_partition::<64>();
    let r = block.thread_rank();
    if tile.thread_rank() < 32 {
        tile.sync(); // multi-warp-sync-in-branch
    }
    out.write(r as usize, r);
}

#[test]
fn a_multi_warp_tile_barrier_reached_by_one_warp_of_two() {
    let mut out = vec![0u32; 128];
    broken(
        cpu().launch(multi_warp_sync_in_a_branch, cfg(1, 128), (&mut out,)),
        "DivergentCollective TiledPartition::sync @{multi-warp-sync-in-branch} | group threads 0-63 | threads 0-31 @{multi-warp-sync-in-branch}; threads 32-63 returned",
    );
}

#[kernel]
pub fn exchange_across_warps(block: ThreadBlock, out: Out<u32>, s: Shared<[u32; 128]>) {
    let tile = block.tiled_partition::<64>();
    let raw = s.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, r as u32) }; // exchange-write
    let partner = r ^ 32; // the same lane of the tile's other warp
    out.write(r, unsafe { raw.read(partner) }); // exchange-read
    tile.sync();
}

#[kernel]
pub fn exchange_across_warps_fixed(block: ThreadBlock, out: Out<u32>, s: Shared<[u32; 128]>) {
    let tile = block.tiled_partition::<64>();
    let raw = s.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, r as u32) };
    tile.sync(); // the tile's two warps meet: each sees the other's writes
    out.write(r, unsafe { raw.read(r ^ 32) });
}

#[kernel]
pub fn exchange_across_tiles(block: ThreadBlock, out: Out<u32>, s: Shared<[u32; 128]>) {
    let tile = block.tiled_partition::<64>();
    let raw = s.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { raw.write(r, r as u32) }; // across-write
    tile.sync(); // orders the tile's own warps only
    out.write(r, unsafe { raw.read(r ^ 64) }); // across-read
}

#[test]
fn a_multi_warp_tile_barrier_orders_its_warps_and_no_others() {
    let mut out = vec![0u32; 128];
    broken(
        cpu().launch(exchange_across_warps, cfg(1, 128), (&mut out,)),
        "SharedRace s[32] | thread 0 reads @{exchange-read} | thread 32 writes @{exchange-write}",
    );
    clean(cpu().launch(exchange_across_warps_fixed, cfg(1, 128), (&mut out,)));
    assert_eq!((out[0], out[33], out[100]), (32, 1, 68));
    broken(
        cpu().launch(exchange_across_tiles, cfg(1, 128), (&mut out,)),
        "SharedRace s[96] | thread 32 reads @{across-read} | thread 96 writes @{across-write}",
    );
}

#[kernel]
pub fn neighbour_through_a_wide_tile(block: ThreadBlock, out: Out<u32>) {
    let tile = block.tiled_partition::<64>();
    let r = tile.thread_rank();
    // Each thread asks for its right neighbour: fine in a warp tile, not in
    // a tile of two warps, whose shuffle has one source for everyone.
    let next = tile.shfl(r * 10, (r + 1) % 64); // wide-shfl
    out.write(block.thread_rank() as usize, next);
}

#[kernel]
pub fn neighbour_through_a_wide_tile_fixed(block: ThreadBlock, out: Out<u32>) {
    let warp = block.tiled_partition::<64>().tiled_partition::<32>();
    let r = warp.thread_rank();
    out.write(
        block.thread_rank() as usize,
        warp.shfl(r * 10, (r + 1) % 32),
    );
}

#[test]
fn a_wide_tile_shuffle_takes_one_source_for_every_thread() {
    let mut out = vec![0u32; 64];
    let e = broken(
        cpu().launch(neighbour_through_a_wide_tile, cfg(1, 64), (&mut out,)),
        "NotUniform shfl @{wide-shfl} | thread 0 asks 1; thread 1 asks 2",
    );
    let message = e.to_string();
    assert!(
        message.contains("give every thread of the tile the same source"),
        "{e}"
    );
    // Sixty-four sources: three named, the rest counted, not listed.
    assert!(
        message.contains(
            "thread 2 ask for rank 3, and 61 more threads in 61 groups ask for \
             other ranks: 64 different source ranks in all"
        ),
        "{e}"
    );
    assert!(!message.contains("rank 63"), "{e}");
    clean(cpu().launch(neighbour_through_a_wide_tile_fixed, cfg(1, 64), (&mut out,)));
    assert_eq!((out[0], out[31], out[32]), (10, 0, 10));
}

#[kernel]
pub fn multi_warp_tile_of_a_short_block(block: ThreadBlock, out: Out<u32>) {
    let tile = block.tiled_partition::<128>(); // short-block
    out.write(block.thread_rank() as usize, tile.num_threads());
}

#[test]
fn a_multi_warp_tile_larger_than_the_block() {
    let mut out = vec![0u32; 96];
    broken(
        cpu().launch(multi_warp_tile_of_a_short_block, cfg(1, 96), (&mut out,)),
        "PartialTile 128 of 96 | thread 0 @{short-block}",
    );
}

/// The user kernel of the second round's report: a 128-thread tile in a
/// grid-stride loop, with a scan, a reduction and `invoke_one` each
/// iteration; here the scan is skipped by the threads whose element is
/// past the end, which splits the last tile.
#[kernel]
pub fn tile_scan_skipped_past_the_end(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let tile = block.tiled_partition::<128>();
    let grid = this_grid();
    let mut base = grid.block_rank() * block.num_threads() as usize;
    while base < input.len() {
        let i = base + block.thread_rank() as usize;
        if i < input.len() {
            let v = inclusive_scan(&tile, input[i], op::Sum); // tile-scan-skipped
            let top = reduce(&tile, v, op::Max);
            tile.invoke_one(|| out.write(i / 128, top));
        }
        base += grid.num_threads();
    }
}

#[kernel]
pub fn tile_scan_skipped_past_the_end_fixed(block: ThreadBlock, input: &[u32], out: Out<u32>) {
    let tile = block.tiled_partition::<128>();
    let grid = this_grid();
    let mut base = grid.block_rank() * block.num_threads() as usize;
    while base < input.len() {
        let i = base + block.thread_rank() as usize;
        let x = input.get(i).copied().unwrap_or(0);
        let v = inclusive_scan(&tile, x, op::Sum);
        let top = reduce(&tile, v, op::Max);
        if tile.thread_rank() == 0 && i < input.len() {
            out.write(i / 128, top);
        }
        base += grid.num_threads();
    }
}

#[test]
fn a_multi_warp_tile_collective_is_named_as_written() {
    // 200 elements: the second tile has 72 threads with an element, which
    // splits its third warp.
    let input: Vec<u32> = (0..200).map(|i| i % 5).collect();
    let mut out = vec![0u32; 2];
    broken(
        cpu().launch(tile_scan_skipped_past_the_end, cfg(1, 256), (&input[..], &mut out)),
        "DivergentCollective inclusive_scan @{tile-scan-skipped} | group threads 128-255 | threads 128-199 @{tile-scan-skipped}; threads 200-255 returned",
    );
    clean(cpu().launch(
        tile_scan_skipped_past_the_end_fixed,
        cfg(1, 256),
        (&input[..], &mut out),
    ));
    let expected = |tile: std::ops::Range<usize>| input[tile].iter().sum::<u32>();
    assert_eq!(out, [expected(0..128), expected(128..200)]);
}

#[kernel]
pub fn tile_any_skipped_by_a_warp(block: ThreadBlock, out: Out<u32>) {
    let tile = block.tiled_partition::<64>();
    let r = block.thread_rank();
    if r < 32 {
        out.write(r as usize, tile.any(r == 3) as u32); // tile-any-skipped
    }
}

#[kernel]
pub fn block_count_skipped_by_a_warp(block: ThreadBlock, out: Out<u32>) {
    let r = block.thread_rank();
    if r < 32 {
        out.write(r as usize, block.sync_count(r % 2 == 0)); // count-skipped
    }
}

#[test]
fn a_tile_vote_and_a_block_vote_are_named_as_written() {
    let mut out = vec![0u32; 64];
    broken(
        cpu().launch(tile_any_skipped_by_a_warp, cfg(1, 64), (&mut out,)),
        "DivergentCollective any @{tile-any-skipped} | group threads 0-63 | threads 0-31 @{tile-any-skipped}; threads 32-63 returned",
    );
    let e = broken(
        cpu().launch(block_count_skipped_by_a_warp, cfg(1, 64), (&mut out,)),
        "BarrierNotReached threads 0-31 @{count-skipped} | threads 32-63 returned",
    );
    assert!(e.to_string().contains("`sync_count`"), "{e}");
}

#[kernel]
pub fn leader_skips_the_share(
    cluster: Cluster,
    block: ThreadBlock,
    out: Out<u32>,
    s: Shared<[u32; 32]>,
) {
    let r = block.thread_rank();
    let mine = s.own(ByRank::new());
    mine.set(r);
    let published = mine.publish(&block);
    if cluster.block_rank() == 0 {
        return;
    }
    let shared = published.share(&cluster); // share-without-leader
    out.write(this_grid().thread_rank(), shared.get_from(0, r as usize));
    let _ = shared.unshare(&cluster);
}

#[test]
fn a_distributed_shared_memory_phase_is_named_as_written() {
    let mut out = vec![0u32; 128];
    let e = broken(
        cpu().launch(
            leader_skips_the_share,
            cfg(4, 32).with_cluster(2),
            (&mut out,),
        ),
        "ClusterSyncNotReached block 1 @{share-without-leader} | blocks 0 returned",
    );
    assert!(
        e.to_string()
            .contains("`share` never reached by every block of the cluster"),
        "{e}"
    );
}

// =====================================================================
// Asynchronous copies and pipelines.

#[kernel]
pub fn read_while_the_copy_is_in_flight(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    s: Shared<[u32; 64]>,
) {
    let s = s.into_raw();
    let t = block.thread_rank() as usize;
    unsafe { s.copy_async(&block, 0, &input[..64]) }; // raw-copy
    out.write(t, unsafe { s.read(t) }); // read-in-flight
    s.wait_copies(&block);
}

#[kernel]
pub fn read_after_the_copy_landed(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    s: Shared<[u32; 64]>,
) {
    let s = s.into_raw();
    let t = block.thread_rank() as usize;
    unsafe { s.copy_async(&block, 0, &input[..64]) };
    s.wait_copies(&block);
    out.write(t, unsafe { s.read(t) });
}

#[test]
fn a_read_of_an_array_a_copy_has_not_landed_in_names_the_copy() {
    let input: Vec<u32> = (0..64).collect();
    let mut out = vec![0u32; 64];
    let e = broken(
        cpu().launch(
            read_while_the_copy_is_in_flight,
            cfg(1, 64),
            (&input[..], &mut out),
        ),
        "AsyncCopyInFlight s[0] | thread 0 reads @{read-in-flight} | copy by thread 0 @{raw-copy}",
    );
    assert!(e.to_string().contains("has not landed"), "{e}");
    clean(cpu().launch(
        read_after_the_copy_landed,
        cfg(1, 64),
        (&input[..], &mut out),
    ));
    assert_eq!(out, input);
}

#[kernel]
pub fn waits_for_the_newer_copy_first(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    a: Shared<[u32; 64]>,
    b: Shared<[u32; 64]>,
) {
    let first = a.copy_async(&block, &input[..64]);
    let second = b.copy_async(&block, &input[64..128]);
    let b = second.wait_prior::<1>(&block); // newer-first
    let a = first.wait(&block);
    let t = block.thread_rank() as usize;
    out.write(t, a.get(t) + b.get(t));
}

#[kernel]
pub fn waits_in_order(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    a: Shared<[u32; 64]>,
    b: Shared<[u32; 64]>,
) {
    let first = a.copy_async(&block, &input[..64]);
    let second = b.copy_async(&block, &input[64..128]);
    let a = first.wait_prior::<1>(&block);
    let b = second.wait(&block);
    let t = block.thread_rank() as usize;
    out.write(t, a.get(t) + b.get(t));
}

#[test]
fn a_wait_that_leaves_its_own_copy_in_flight_is_named() {
    let input: Vec<u32> = (0..128).collect();
    let mut out = vec![0u32; 64];
    let e = error_of(cpu().launch(
        waits_for_the_newer_copy_first,
        cfg(1, 64),
        (&input[..], &mut out),
    ));
    let text = e.to_string();
    let (newer, copy) = (line_of("newer-first"), line_of("newer-first") - 1);
    assert!(
        text.contains(&format!("`wait_prior` at tests/rules.rs:{newer}:"))
            && text.contains(&format!(
                "leaves the copy started at tests/rules.rs:{copy}:"
            )),
        "{text}"
    );
    clean(cpu().launch(waits_in_order, cfg(1, 64), (&input[..], &mut out)));
    assert_eq!(out[3], 3 + 67);
}

#[kernel]
pub fn tile_waits_for_the_newer_copy_first(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    a: Shared<[[u32; 32]; 2]>,
    b: Shared<[[u32; 32]; 2]>,
) {
    let warp = block.tiled_partition::<32>();
    let w = block.thread_rank() as usize / 32;
    let first = a
        .tile_row(&block, &warp)
        .copy_async(&warp, &input[w * 32..w * 32 + 32]);
    let second = b
        .tile_row(&block, &warp)
        .copy_async(&warp, &input[64 + w * 32..96 + w * 32]);
    let b = second.wait_prior::<1>(&warp); // tile-newer-first
    let a = first.wait(&warp);
    let l = warp.thread_rank() as usize;
    out.write(block.thread_rank() as usize, a.get(l) + b.get(l));
}

#[kernel]
pub fn tile_waits_in_order(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    a: Shared<[[u32; 32]; 2]>,
    b: Shared<[[u32; 32]; 2]>,
) {
    let warp = block.tiled_partition::<32>();
    let w = block.thread_rank() as usize / 32;
    let first = a
        .tile_row(&block, &warp)
        .copy_async(&warp, &input[w * 32..w * 32 + 32]);
    let second = b
        .tile_row(&block, &warp)
        .copy_async(&warp, &input[64 + w * 32..96 + w * 32]);
    let a = first.wait_prior::<1>(&warp);
    let b = second.wait(&warp);
    let l = warp.thread_rank() as usize;
    out.write(block.thread_rank() as usize, a.get(l) + b.get(l));
}

#[test]
fn a_tiles_wait_that_leaves_its_own_copy_in_flight_is_named() {
    let input: Vec<u32> = (0..128).collect();
    let mut out = vec![0u32; 64];
    let e = error_of(cpu().launch(
        tile_waits_for_the_newer_copy_first,
        cfg(1, 64),
        (&input[..], &mut out),
    ));
    let text = e.to_string();
    let (newer, copy) = (line_of("tile-newer-first"), line_of("tile-newer-first") - 1);
    assert!(
        text.contains(&format!(
            "`TileCopying::wait_prior` at tests/rules.rs:{newer}:"
        )) && text.contains(&format!(
            "leaves the copy started at tests/rules.rs:{copy}:"
        )),
        "{text}"
    );
    clean(cpu().launch(tile_waits_in_order, cfg(1, 64), (&input[..], &mut out)));
    assert_eq!(out[3], 3 + 67);
    assert_eq!(out[40], 40 + 104);
}

#[kernel]
pub fn cluster_waits_for_the_newer_copy_first(
    cluster: Cluster,
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    a: Shared<[u32; 32]>,
    b: Shared<[u32; 32]>,
) {
    let r = cluster.block_rank() as usize;
    let first = a.copy_async(&block, &input[r * 32..r * 32 + 32]);
    let second = b.copy_async(&block, &input[64 + r * 32..96 + r * 32]);
    let b = second.wait_prior_shared::<1>(&cluster); // cluster-newer-first
    let a = first.wait_shared(&cluster);
    let (t, other) = (block.thread_rank() as usize, 1 - r as u32);
    out.write(r * 32 + t, a.get_from(other, t) + b.get_from(other, t));
    let _ = (a.unshare(&cluster), b.unshare(&cluster));
}

#[kernel]
pub fn cluster_waits_in_order(
    cluster: Cluster,
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    a: Shared<[u32; 32]>,
    b: Shared<[u32; 32]>,
) {
    let r = cluster.block_rank() as usize;
    let first = a.copy_async(&block, &input[r * 32..r * 32 + 32]);
    let second = b.copy_async(&block, &input[64 + r * 32..96 + r * 32]);
    let a = first.wait_prior_shared::<1>(&cluster);
    let b = second.wait_shared(&cluster);
    let (t, other) = (block.thread_rank() as usize, 1 - r as u32);
    out.write(r * 32 + t, a.get_from(other, t) + b.get_from(other, t));
    let _ = (a.unshare(&cluster), b.unshare(&cluster));
}

/// A cluster's copies waited for newer first: the older copy is still in
/// flight when the other block reads it, named with both lines.
#[test]
fn a_clusters_wait_that_leaves_its_own_copy_in_flight_is_named() {
    let input: Vec<u32> = (0..128).collect();
    let mut out = vec![0u32; 64];
    let e = error_of(cpu().launch(
        cluster_waits_for_the_newer_copy_first,
        cfg(2, 32).with_cluster(2),
        (&input[..], &mut out),
    ));
    let text = e.to_string();
    let (newer, copy) = (
        line_of("cluster-newer-first"),
        line_of("cluster-newer-first") - 1,
    );
    assert!(
        text.contains(&format!("`wait_prior_shared` at tests/rules.rs:{newer}:"))
            && text.contains(&format!(
                "leaves the copy started at tests/rules.rs:{copy}:"
            )),
        "{text}"
    );
    clean(cpu().launch(
        cluster_waits_in_order,
        cfg(2, 32).with_cluster(2),
        (&input[..], &mut out),
    ));
    assert_eq!((out[3], out[35]), (35 + 99, 3 + 67));
}

#[kernel]
pub fn rewrites_its_row_without_the_tiles_barrier(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    rows: Shared<[[u32; 32]; 2]>,
) {
    let warp = block.tiled_partition::<32>();
    let (t, w) = (
        block.thread_rank() as usize,
        block.thread_rank() as usize / 32,
    );
    let raw = rows
        .tile_row(&block, &warp)
        .copy_async(&warp, &input[w * 32..w * 32 + 32])
        .wait(&warp)
        .into_raw();
    let lane = warp.thread_rank() as usize;
    // SAFETY: broken on purpose: the neighbour's element is read with no
    // barrier after its owner rewrote it.
    unsafe { raw.write((w, lane), 2 * raw.read((w, lane))) }; // own-rewrite
    let next = unsafe { raw.read((w, (lane + 1) % 32)) }; // neighbour-read
    out.write(t, next);
}

#[test]
fn a_tiles_raw_rewrite_of_its_row_is_checked_against_the_tiles_barrier() {
    let input: Vec<u32> = (0..64).collect();
    let mut out = vec![0u32; 64];
    let e = error_of(cpu().launch(
        rewrites_its_row_without_the_tiles_barrier,
        cfg(1, 64),
        (&input[..], &mut out),
    ));
    let text = e.to_string();
    assert!(
        text.contains("data race on `rows[")
            && text.contains(&format!("rules.rs:{}", line_of("own-rewrite")))
            && text.contains(&format!("rules.rs:{}", line_of("neighbour-read"))),
        "{text}"
    );
}

#[kernel]
pub fn tiles_outnumber_the_rows(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    rows: Shared<[[u32; 32]; 2]>,
) {
    let tile = block.tiled_partition::<16>();
    let row = rows.tile_row(&block, &tile); // too-few-rows
    let row = row.copy_async(&tile, &input[..16]).wait(&tile);
    out.write(block.thread_rank() as usize, row.get(0));
}

#[kernel]
pub fn copies_more_than_a_row(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    rows: Shared<[[u32; 16]; 4]>,
) {
    let tile = block.tiled_partition::<16>();
    let row = rows.tile_row(&block, &tile).copy_async(&tile, &input[..17]); // row-too-short
    out.write(block.thread_rank() as usize, row.wait(&tile).get(0));
}

#[kernel]
pub fn tiles_outgrow_the_buffer(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    buf: Shared<[u32]>,
) {
    let warp = block.tiled_partition::<32>();
    let part = buf.tile_slice(&block, &warp, 48); // buffer-too-short
    let part = part.copy_async(&warp, &input[..48]).wait(&warp);
    out.write(block.thread_rank() as usize, part.get(47));
}

#[test]
fn a_tile_without_a_row_or_a_copy_longer_than_its_row_is_refused() {
    let input: Vec<u32> = (0..64).collect();
    let mut out = vec![0u32; 64];
    let e = error_of(cpu().launch(tiles_outnumber_the_rows, cfg(1, 64), (&input[..], &mut out)));
    let text = e.to_string();
    assert!(
        text.contains("tile_row: the block has more tiles than the array has rows")
            && text.contains(&format!("rules.rs:{}", line_of("too-few-rows"))),
        "{text}"
    );
    let e = error_of(cpu().launch(copies_more_than_a_row, cfg(1, 64), (&input[..], &mut out)));
    let text = e.to_string();
    assert!(
        text.contains("TileRow::copy_async: the source slice is longer than the row")
            && text.contains(&format!("rules.rs:{}", line_of("row-too-short"))),
        "{text}"
    );
    // 32 threads: two tiles of 16, two rows.
    clean(cpu().launch(tiles_outnumber_the_rows, cfg(1, 32), (&input[..], &mut out)));
    assert_eq!(out[17], 0);
    // Two warps, parts of 48, a buffer of 95 elements: one short.
    let short = cfg(1, 64).with_shared_memory(95 * 4);
    let e = error_of(cpu().launch(tiles_outgrow_the_buffer, short, (&input[..], &mut out)));
    let text = e.to_string();
    assert!(
        text.contains("tile_slice: the array is too short for a part of this length")
            && text.contains(&format!("rules.rs:{}", line_of("buffer-too-short"))),
        "{text}"
    );
    let enough = cfg(1, 64).with_shared_memory(96 * 4);
    clean(cpu().launch(tiles_outgrow_the_buffer, enough, (&input[..], &mut out)));
    assert_eq!(out[63], 47);
}

#[kernel]
pub fn loads_past_the_ring(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    ring: Pipeline<[[u32; 64]; 2]>,
) {
    let mut stages = ring.start(&block);
    for k in 0..3 {
        stages.load(&block, &input[k * 64..(k + 1) * 64]); // third-load
    }
    let stage = stages.next(&block);
    out.write(block.thread_rank() as usize, stage.get(0));
}

#[kernel]
pub fn takes_a_tile_nobody_loaded(
    block: ThreadBlock,
    out: Out<u32>,
    ring: Pipeline<[[u32; 64]; 2]>,
) {
    let mut stages = ring.start(&block);
    let stage = stages.next(&block); // nothing-loaded
    out.write(block.thread_rank() as usize, stage.get(0));
}

#[test]
fn a_load_into_a_full_ring_and_a_next_of_nothing_are_refused() {
    let input: Vec<u32> = (0..192).collect();
    let mut out = vec![0u32; 64];
    let e = error_of(cpu().launch(loads_past_the_ring, cfg(1, 64), (&input[..], &mut out)));
    let text = e.to_string();
    assert!(
        text.contains("Stages::load: every stage holds a tile that `next` has not taken"),
        "{text}"
    );
    assert!(
        text.contains(&format!("rules.rs:{}", line_of("third-load"))),
        "{text}"
    );
    let e = error_of(cpu().launch(takes_a_tile_nobody_loaded, cfg(1, 64), (&mut out,)));
    let text = e.to_string();
    assert!(text.contains("Stages::next: no tile is loaded"), "{text}");
    assert!(
        text.contains(&format!("rules.rs:{}", line_of("nothing-loaded"))),
        "{text}"
    );
}

#[kernel]
pub fn returns_with_a_copy_in_flight(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    a: Shared<[u32; 64]>,
    b: Shared<[u32; 64]>,
) {
    let t = block.thread_rank() as usize;
    let first = a.copy_async(&block, &input[..64]);
    let _prefetch = b.copy_async(&block, &input[64..128]); // never-waited
    let a = first.wait_prior::<1>(&block);
    out.write(t, a.get(t));
}

#[kernel]
pub fn returns_with_a_tile_not_taken(
    block: ThreadBlock,
    input: &[u32],
    out: Out<u32>,
    ring: Pipeline<[[u32; 64]; 2]>,
) {
    let mut stages = ring.start(&block);
    stages.load(&block, &input[..64]);
    stages.load(&block, &input[64..128]); // tile-not-taken
    let stage = stages.next(&block);
    out.write(block.thread_rank() as usize, stage.get(0));
}

#[test]
fn a_block_that_returns_with_a_copy_in_flight_is_reported() {
    let input: Vec<u32> = (0..128).collect();
    let mut out = vec![0u32; 64];
    broken(
        cpu().launch(
            returns_with_a_copy_in_flight,
            cfg(1, 64),
            (&input[..], &mut out),
        ),
        "AsyncCopyNotWaited b | thread 0 @{never-waited}",
    );
    let e = broken(
        cpu().launch(
            returns_with_a_tile_not_taken,
            cfg(1, 64),
            (&input[..], &mut out),
        ),
        "AsyncCopyNotWaited ring | thread 0 @{tile-not-taken}",
    );
    assert!(
        e.to_string()
            .contains("still in flight: nothing waited for it"),
        "{e}"
    );
}

// =====================================================================
// Split barriers: barrier_arrive, then barrier_wait.

/// Each thread writes its slot, arrives, and reads its neighbour's after
/// the wait; the next round writes the same slots again right after the
/// wait, while a slower neighbour may still be reading.
#[kernel]
pub fn split_barrier_one_buffer(block: ThreadBlock, out: Out<u32>, slots: Shared<[u32; 64]>) {
    let slots = slots.into_raw();
    let t = block.thread_rank() as usize;
    let mut sum = 0;
    for round in 0..2u32 {
        // SAFETY: (broken) see above.
        unsafe { slots.write(t, t as u32 + round) }; // one-buffer-write
        let arrival = block.barrier_arrive();
        block.barrier_wait(arrival);
        sum += unsafe { slots.read((t + 1) % 64) }; // one-buffer-read
    }
    out.write(t, sum);
}

/// The fix: two buffers, taking turns.
#[kernel]
pub fn split_barrier_one_buffer_fixed(
    block: ThreadBlock,
    out: Out<u32>,
    slots: Shared<[u32; 128]>,
) {
    let slots = slots.into_raw();
    let t = block.thread_rank() as usize;
    let mut sum = 0;
    for round in 0..4u32 {
        let base = 64 * (round as usize % 2);
        // SAFETY: a thread writes its own slot of this round's buffer; the
        // last reads of it came before the reader's previous arrival.
        unsafe { slots.write(base + t, t as u32 + round) };
        let arrival = block.barrier_arrive();
        block.barrier_wait(arrival);
        sum += unsafe { slots.read(base + (t + 1) % 64) };
    }
    out.write(t, sum);
}

/// A read between arrive and wait of what another thread wrote before its
/// own arrival: nothing orders the two yet.
#[kernel]
pub fn split_barrier_reads_before_the_wait(
    block: ThreadBlock,
    out: Out<u32>,
    slots: Shared<[u32; 64]>,
) {
    let slots = slots.into_raw();
    let t = block.thread_rank() as usize;
    unsafe { slots.write(t, t as u32) }; // early-write
    let arrival = block.barrier_arrive();
    let early = unsafe { slots.read((t + 1) % 64) }; // early-read
    block.barrier_wait(arrival);
    out.write(t, early);
}

#[test]
fn a_split_barrier_orders_nothing_between_arrive_and_wait() {
    let mut out = vec![0u32; 64];
    broken(
        cpu().launch(split_barrier_one_buffer, cfg(1, 64), (&mut out,)),
        "SharedRace slots[33] | thread 32 reads @{one-buffer-read} | thread 33 writes @{one-buffer-write}",
    );
    clean(cpu().launch(split_barrier_one_buffer_fixed, cfg(1, 64), (&mut out,)));
    assert_eq!(out[0], 4 + 6, "{out:?}");
    assert_eq!(out[63], 6);
    broken(
        cpu().launch(split_barrier_reads_before_the_wait, cfg(1, 64), (&mut out,)),
        "SharedRace slots[1] | thread 0 reads @{early-read} | thread 1 writes @{early-write}",
    );
}

#[kernel]
pub fn split_barrier_returns_before_the_wait(block: ThreadBlock, out: Out<u32>) {
    let t = block.thread_rank();
    let arrival = block.barrier_arrive(); // arrive-then-return
    if t == 5 {
        return;
    }
    block.barrier_wait(arrival);
    out.write(t as usize, t);
}

#[kernel]
pub fn split_barrier_arrives_twice(block: ThreadBlock, out: Out<u32>) {
    let t = block.thread_rank();
    let _first = block.barrier_arrive(); // first-arrive
    let second = block.barrier_arrive(); // second-arrive
    block.barrier_wait(second);
    out.write(t as usize, t);
}

#[kernel]
pub fn split_barrier_syncs_before_the_wait(block: ThreadBlock, out: Out<u32>) {
    let t = block.thread_rank();
    let arrival = block.barrier_arrive(); // arrive-then-reduce
    let total = reduce(&block, t, op::Sum); // reduce-in-window
    block.barrier_wait(arrival);
    out.write(t as usize, total);
}

#[kernel]
pub fn split_barrier_not_reached(block: ThreadBlock, out: Out<u32>) {
    let t = block.thread_rank();
    if t < 32 {
        let arrival = block.barrier_arrive();
        block.barrier_wait(arrival); // half-wait
    }
    out.write(t as usize, t);
}

#[kernel]
pub fn cluster_split_barrier_returns_before_the_wait(cluster: Cluster, out: Out<u32>) {
    let g = this_grid().thread_rank();
    let arrival = cluster.barrier_arrive(); // cluster-arrive
    if g == 3 {
        return;
    }
    cluster.barrier_wait(arrival);
    out.write(g, 1);
}

/// Each block's thread 0 writes its slot *after* arriving at the
/// cluster's split barrier (meant before), and after the wait reads the
/// other block's slot.
#[kernel]
pub fn cluster_writes_after_its_arrival(cluster: Cluster, slots: Out<u32>, seen: Out<u32>) {
    let b = this_grid().block_rank();
    let first = this_thread_block().thread_rank() == 0;
    let arrival = cluster.barrier_arrive();
    if first {
        slots.write(b, 7 + b as u32); // write-after-cluster-arrive
    }
    cluster.barrier_wait(arrival);
    if first {
        seen.write(b, slots.read(b ^ 1)); // read-after-cluster-wait
    }
}

#[kernel]
pub fn cluster_writes_before_its_arrival(cluster: Cluster, slots: Out<u32>, seen: Out<u32>) {
    let b = this_grid().block_rank();
    let first = this_thread_block().thread_rank() == 0;
    if first {
        slots.write(b, 7 + b as u32);
    }
    let arrival = cluster.barrier_arrive();
    cluster.barrier_wait(arrival);
    if first {
        seen.write(b, slots.read(b ^ 1));
    }
}

/// The same on the grid's split barrier, within one block: thread 0 reads
/// after the wait what thread 1 wrote after its arrival.
#[kernel(cooperative)]
pub fn grid_writes_after_its_arrival(grid: CooperativeGrid, slots: Out<u32>, seen: Out<u32>) {
    let t = this_thread_block().thread_rank() as usize;
    let b = grid.block_rank();
    let arrival = grid.barrier_arrive();
    if t == 1 {
        slots.write(b, 1); // write-after-grid-arrive
    }
    grid.barrier_wait(arrival);
    if t == 0 {
        seen.write(b, slots.read(b)); // read-after-grid-wait
    }
}

#[test]
fn an_access_between_a_cluster_or_grid_arrive_and_its_wait_races_with_accesses_after_the_wait() {
    let (mut slots, mut seen) = (vec![0u32; 4], vec![0u32; 4]);
    broken(
        cpu().launch(
            cluster_writes_after_its_arrival,
            cfg(4, 32).with_cluster(2),
            (&mut slots, &mut seen),
        ),
        "GlobalRace slots[0] | block 0 thread 0 writes @{write-after-cluster-arrive} | block 1 thread 0 reads @{read-after-cluster-wait}",
    );
    clean(cpu().launch(
        cluster_writes_before_its_arrival,
        cfg(4, 32).with_cluster(2),
        (&mut slots, &mut seen),
    ));
    assert_eq!(seen, [8, 7, 10, 9]);
    broken(
        cpu().launch(grid_writes_after_its_arrival, cfg(2, 32), (&mut slots, &mut seen)),
        "GlobalRace slots[0] | block 0 thread 1 writes @{write-after-grid-arrive} | block 0 thread 0 reads @{read-after-grid-wait}",
    );
}

#[kernel(cooperative)]
pub fn grid_split_barrier_syncs_before_the_wait(grid: CooperativeGrid, out: Out<u32>) {
    let arrival = grid.barrier_arrive(); // grid-arrive
    grid.sync(); // grid-sync-in-window
    grid.barrier_wait(arrival);
    out.write(grid.thread_rank(), 1);
}

#[test]
fn an_arrival_must_be_waited_for_before_anything_else() {
    let mut out = vec![0u32; 64];
    broken(
        cpu().launch(
            split_barrier_returns_before_the_wait,
            cfg(1, 64),
            (&mut out,),
        ),
        "ArrivalNotWaited ThreadBlock | thread 5 @{arrive-then-return} | returned",
    );
    let e = broken(
        cpu().launch(split_barrier_arrives_twice, cfg(1, 64), (&mut out,)),
        "ArrivalNotWaited ThreadBlock | thread 0 @{first-arrive} | arrived again @{second-arrive}",
    );
    assert!(e.to_string().contains("`ThreadBlock::barrier_wait`"), "{e}");
    broken(
        cpu().launch(split_barrier_syncs_before_the_wait, cfg(1, 64), (&mut out,)),
        "ArrivalNotWaited ThreadBlock | thread 0 @{arrive-then-reduce} | reduce @{reduce-in-window}",
    );
    broken(
        cpu().launch(split_barrier_not_reached, cfg(1, 64), (&mut out,)),
        "BarrierNotReached threads 0-31 @{half-wait} | threads 32-63 returned",
    );
    broken(
        cpu().launch(
            cluster_split_barrier_returns_before_the_wait,
            cfg(2, 2).with_cluster(2),
            (&mut out,),
        ),
        "ArrivalNotWaited Cluster | thread 1 @{cluster-arrive} | returned",
    );
    let e = broken(
        cpu().launch(grid_split_barrier_syncs_before_the_wait, cfg(2, 32), (&mut out,)),
        "ArrivalNotWaited CooperativeGrid | thread 0 @{grid-arrive} | CooperativeGrid::sync @{grid-sync-in-window}",
    );
    assert!(
        e.to_string()
            .contains("`CooperativeGrid::barrier_wait` before the thread arrives again"),
        "{e}"
    );
}

// =====================================================================
// Dynamic groups: coalesced threads and partitions.

#[kernel]
pub fn shuffle_in_part_of_a_group(block: ThreadBlock, out: Out<u32>) {
    let r = block.thread_rank();
    let warp = block.tiled_partition::<32>();
    let low = warp.binary_partition(r < 16);
    if low.thread_rank() < 4 {
        out.write(r as usize, low.shfl(r, 0)); // shfl-part-of-group
    }
}

#[kernel]
pub fn shuffle_in_part_of_a_group_fixed(block: ThreadBlock, out: Out<u32>) {
    let r = block.thread_rank();
    let warp = block.tiled_partition::<32>();
    let low = warp.binary_partition(r < 16);
    let first = low.shfl(r, 0);
    if low.thread_rank() < 4 {
        out.write(r as usize, first);
    }
}

#[test]
fn a_group_collective_called_by_part_of_the_group() {
    let mut out = vec![0u32; 32];
    broken(
        cpu().launch(shuffle_in_part_of_a_group, cfg(1, 32), (&mut out,)),
        "DivergentCollective shfl @{shfl-part-of-group} | group threads 0-15 | threads 0-3 @{shfl-part-of-group}; threads 4-15 returned",
    );
    clean(cpu().launch(shuffle_in_part_of_a_group_fixed, cfg(1, 32), (&mut out,)));
    assert_eq!((out[3], out[19]), (0, 16));
}

#[kernel]
pub fn one_count_per_warp(grid: Grid, input: &[u32], counts: Out<u32>) {
    // Assumes that every lane taking the branch is in one coalesced group:
    // a GPU may split them, and then two leaders write one slot.
    let i = grid.thread_rank();
    if i < input.len() && input[i] % 2 == 0 {
        let group = coalesced_threads();
        if group.thread_rank() == 0 {
            counts.write(i / 32, group.num_threads()); // leader-writes-count
        }
    }
}

#[kernel]
pub fn one_count_per_warp_fixed(grid: Grid, input: &[u32], counts: Out<u32>) {
    let i = grid.thread_rank();
    if i < input.len() && input[i] % 2 == 0 {
        let group = coalesced_threads();
        group.invoke_one(|| counts.atomic().add(i / 32, group.num_threads()));
    }
}

#[test]
fn schedule_exploration_splits_coalesced_groups() {
    let input: Vec<u32> = (0..64).collect();
    let mut counts = vec![0u32; 2];
    // In rank order the warp stays together: one leader per warp.
    clean(cpu().launch(one_count_per_warp, cfg(1, 64), (&input[..], &mut counts)));
    assert_eq!(counts, [16, 16]);
    let explore = Cpu::with_emulator(Emulator::new().with_schedules(8));
    let e = error_of(explore.launch(one_count_per_warp, cfg(1, 64), (&input[..], &mut counts)));
    assert!(
        matches!(&*e.violation, Violation::GlobalRace { buffer, .. } if *buffer == "counts"),
        "{e}"
    );
    let mut counts = vec![0u32; 2];
    clean(explore.launch(
        one_count_per_warp_fixed,
        cfg(1, 64),
        (&input[..], &mut counts),
    ));
    assert_eq!(counts, [16, 16]);
}

#[kernel]
pub fn partial_dynamic_tiles(block: ThreadBlock, out: Out<u32>) {
    let tile = block.tiled_partition_dynamic(8); // dynamic-tile
    out.write(block.thread_rank() as usize, tile.num_threads());
}

#[test]
fn a_dynamic_tile_that_does_not_divide_the_block() {
    let mut out = vec![0u32; 12];
    broken(
        cpu().launch(partial_dynamic_tiles, cfg(1, 12), (&mut out,)),
        "PartialTile 8 of 12 | thread 0 @{dynamic-tile}",
    );
    let mut out = vec![0u32; 16];
    clean(cpu().launch(partial_dynamic_tiles, cfg(1, 16), (&mut out,)));
    assert_eq!(out, [8; 16]);
}

// =====================================================================
// Clusters.

#[kernel]
pub fn leader_skips_the_cluster_sync(cluster: Cluster, out: Out<u32>) {
    let b = this_grid().block_rank();
    if cluster.block_rank() == 0 {
        return; // the leader has nothing to wait for, it thinks
    }
    cluster.sync(); // cluster-sync-without-leader
    out.write(b, 1);
}

#[test]
fn a_block_that_skips_its_clusters_sync_leaves_the_others_waiting() {
    let mut out = vec![0u32; 8];
    let e = broken(
        cpu().launch(
            leader_skips_the_cluster_sync,
            cfg(8, 32).with_cluster(4),
            (&mut out,),
        ),
        "ClusterSyncNotReached blocks 1-3 @{cluster-sync-without-leader} | blocks 0 returned",
    );
    assert!(
        e.to_string()
            .contains("`Cluster::sync` never reached by every block of the cluster"),
        "{e}"
    );
}

// A cooperative launch in clusters: the cluster's sync orders only its
// blocks; another cluster's result needs the grid's.

#[kernel(cooperative)]
pub fn next_clusters_total_after_a_cluster_sync(
    grid: CooperativeGrid,
    cluster: Cluster,
    totals: Out<u32>,
    out: Out<u32>,
) {
    let b = grid.block_rank();
    let first = this_thread_block().thread_rank() == 0;
    let c = b / cluster.num_blocks() as usize;
    let clusters = grid.num_blocks() / cluster.num_blocks() as usize;
    if first && cluster.block_rank() == 0 {
        totals.write(c, 10 * c as u32); // cluster-total
    }
    cluster.sync(); // enough for this cluster's total, not the next one's
    if first {
        out.write(b, totals.read((c + 1) % clusters)); // next-cluster-total
    }
    grid.sync();
}

#[kernel(cooperative)]
pub fn next_clusters_total_after_the_grid_sync(
    grid: CooperativeGrid,
    cluster: Cluster,
    totals: Out<u32>,
    out: Out<u32>,
) {
    let b = grid.block_rank();
    let first = this_thread_block().thread_rank() == 0;
    let c = b / cluster.num_blocks() as usize;
    let clusters = grid.num_blocks() / cluster.num_blocks() as usize;
    if first && cluster.block_rank() == 0 {
        totals.write(c, 10 * c as u32);
    }
    cluster.sync();
    let own = if first { totals.read(c) } else { 0 };
    grid.sync();
    if first {
        out.write(b, own + totals.read((c + 1) % clusters));
    }
}

#[test]
fn in_a_cooperative_launch_in_clusters_only_the_grid_sync_orders_other_clusters() {
    let (mut totals, mut out) = (vec![0u32; 2], vec![0u32; 4]);
    broken(
        cpu().launch(
            next_clusters_total_after_a_cluster_sync,
            cfg(4, 32).with_cluster(2),
            (&mut totals, &mut out),
        ),
        "GlobalRace totals[1] | block 2 thread 0 writes @{cluster-total} | block 0 thread 0 reads @{next-cluster-total}",
    );
    clean(cpu().launch(
        next_clusters_total_after_the_grid_sync,
        cfg(4, 32).with_cluster(2),
        (&mut totals, &mut out),
    ));
    assert_eq!(out, [10, 10, 10, 10]);
}

#[kernel(cooperative)]
pub fn cluster_leader_returns_in_a_cooperative_launch(
    grid: CooperativeGrid,
    cluster: Cluster,
    out: Out<u32>,
) {
    let b = grid.block_rank();
    if b == 2 {
        return; // a cluster's first block leaves early
    }
    cluster.sync(); // cooperative-cluster-sync
    grid.sync();
    out.write(b, 1);
}

#[test]
fn a_block_that_leaves_its_cluster_in_a_cooperative_launch_is_named_at_the_cluster_sync() {
    let mut out = vec![0u32; 4];
    broken(
        cpu().launch(
            cluster_leader_returns_in_a_cooperative_launch,
            cfg(4, 32).with_cluster(2),
            (&mut out,),
        ),
        "ClusterSyncNotReached block 3 @{cooperative-cluster-sync} | blocks 2 returned",
    );
}

#[kernel]
pub fn one_slot_per_cluster_rank(cluster: Cluster, out: Out<u32>) {
    // Meant as one slot per block, but indexed by the rank in the cluster:
    // the blocks of every cluster write the same slots.
    cluster.sync();
    if this_thread_block().thread_rank() == 0 {
        out.write(cluster.block_rank() as usize, 7); // slot-per-cluster-rank
    }
}

#[kernel]
pub fn one_slot_per_cluster_rank_fixed(cluster: Cluster, out: Out<u32>) {
    cluster.sync();
    if this_thread_block().thread_rank() == 0 {
        out.write(this_grid().block_rank(), cluster.block_rank());
    }
}

#[test]
fn blocks_of_different_clusters_are_not_ordered_by_a_cluster_sync() {
    let mut out = vec![0u32; 8];
    let e = broken(
        cpu().launch(one_slot_per_cluster_rank, cfg(8, 32).with_cluster(4), (&mut out,)),
        "GlobalRace out[0] | block 0 thread 0 writes @{slot-per-cluster-rank} | block 4 thread 0 writes @{slot-per-cluster-rank}",
    );
    let text = e.to_string();
    assert!(
        text.contains("different clusters (of 4 blocks)") && text.contains("grid.block_rank()"),
        "{text}"
    );
    let report = clean(cpu().launch(
        one_slot_per_cluster_rank_fixed,
        cfg(8, 32).with_cluster(4),
        (&mut out,),
    ));
    assert_eq!(out, [0, 1, 2, 3, 0, 1, 2, 3]);
    // One cluster sync per cluster, no grid sync.
    assert_eq!((report.cluster_syncs, report.grid_syncs), (2, 0));
}

#[test]
fn cluster_shapes_the_hardware_refuses_are_refused() {
    let mut out = vec![0u32; 64];
    for (config, expected) in [
        (cfg(6, 32).with_cluster(4), "does not divide the grid's 6"),
        (
            cfg(32, 32).with_cluster(32),
            "a cluster of 32 blocks: at most 16",
        ),
    ] {
        let err = cpu()
            .launch(one_slot_per_cluster_rank_fixed, config, (&mut out,))
            .unwrap_err();
        assert!(err.to_string().contains(expected), "{err}");
    }
}

#[kernel]
pub fn read_a_neighbour_then_return(
    cluster: Cluster,
    block: ThreadBlock,
    out: Out<u32>,
    s: Shared<[u32; 32]>,
) {
    let r = block.thread_rank();
    let mine = s.own(ByRank::new());
    mine.set(r);
    let shared = mine.publish(&block).share(&cluster);
    let next = (cluster.block_rank() + 1) % cluster.num_blocks();
    out.write(this_grid().thread_rank(), shared.get_from(next, r as usize)); // read-neighbour
                                                                             // Returns while the neighbour may still read this block's array.
}

#[kernel]
pub fn read_a_neighbour_then_return_fixed(
    cluster: Cluster,
    block: ThreadBlock,
    out: Out<u32>,
    s: Shared<[u32; 32]>,
) {
    let r = block.thread_rank();
    let mine = s.own(ByRank::new());
    mine.set(r);
    let shared = mine.publish(&block).share(&cluster);
    let next = (cluster.block_rank() + 1) % cluster.num_blocks();
    out.write(this_grid().thread_rank(), shared.get_from(next, r as usize));
    let _ = shared.unshare(&cluster);
}

#[kernel]
pub fn read_past_the_cluster(
    cluster: Cluster,
    block: ThreadBlock,
    out: Out<u32>,
    s: Shared<[u32; 32]>,
) {
    let r = block.thread_rank();
    let mine = s.own(ByRank::new());
    mine.set(r);
    let shared = mine.publish(&block).share(&cluster);
    let next = cluster.block_rank() + 1; // no wrap: the last block reads past the cluster
    out.write(this_grid().thread_rank(), shared.get_from(next, r as usize)); // past-cluster
    let _ = shared.unshare(&cluster);
}

#[kernel]
pub fn everyone_writes_to_the_leader(
    cluster: Cluster,
    block: ThreadBlock,
    out: Out<u32>,
    s: Shared<[u32; 32]>,
) {
    let r = block.thread_rank();
    let writes = s.own(ByRank::new()).share_writes(&cluster);
    // Every block writes its rank into the leader's slot `r`: one writer
    // too many per element.
    writes.write_to(0, r as usize, cluster.block_rank()); // write-to-leader
    let mine = writes.publish(&cluster);
    out.write(this_grid().thread_rank(), mine.get(r as usize));
}

#[kernel]
pub fn everyone_writes_to_the_leader_fixed(
    cluster: Cluster,
    block: ThreadBlock,
    out: Out<u32>,
    s: Shared<[u32; 64]>,
) {
    let r = block.thread_rank();
    let writes = s.own(ByRank::new()).share_writes(&cluster);
    // Each block writes into the next block's array, at slots of its own.
    let n = cluster.num_blocks();
    let (me, next) = (cluster.block_rank(), (cluster.block_rank() + 1) % n);
    writes.write_to(next, (me * 32 + r) as usize, me);
    let mine = writes.publish(&cluster);
    let previous = (me + n - 1) % n;
    out.write(
        this_grid().thread_rank(),
        mine.get((previous * 32 + r) as usize),
    );
}

/// A histogram spread over a cluster whose bins nobody zeroed: each block
/// adds into its peers' arrays, which start uninitialised.
#[kernel]
pub fn cluster_bins_never_zeroed(
    cluster: Cluster,
    block: ThreadBlock,
    input: &[u32],
    bins: Out<u32>,
    part: Shared<[u32; 32]>,
) {
    let r = block.thread_rank();
    let counts = part.own(ByRank::new()).share_atomics(&cluster);
    let bin = input[this_grid().thread_rank()] % 64;
    counts.add_to(bin / 32, (bin % 32) as usize, 1); // add-unzeroed
    let done = counts.publish(&cluster);
    let first = cluster.block_rank() * 32;
    bins.atomic()
        .add((first + r) as usize, done.get(r as usize));
}

#[kernel]
pub fn cluster_bins_never_zeroed_fixed(
    cluster: Cluster,
    block: ThreadBlock,
    input: &[u32],
    bins: Out<u32>,
    part: Shared<[u32; 32]>,
) {
    let r = block.thread_rank();
    let zero = part.own(ByRank::new());
    zero.set(0);
    let counts = zero.share_atomics(&cluster);
    let bin = input[this_grid().thread_rank()] % 64;
    counts.add_to(bin / 32, (bin % 32) as usize, 1);
    let done = counts.publish(&cluster);
    let first = cluster.block_rank() * 32;
    bins.atomic()
        .add((first + r) as usize, done.get(r as usize));
}

/// An atomic addition into a peer's element that no thread wrote is
/// reported at the addition (it reads the uninitialised value), as the
/// same addition into the block's own array is, not at the later read.
#[test]
fn adding_into_a_peers_unwritten_element_is_reported_at_the_add() {
    let input: Vec<u32> = (0..64).collect();
    let mut bins = vec![0u32; 64];
    let e = broken(
        cpu().launch(
            cluster_bins_never_zeroed,
            cfg(2, 32).with_cluster(2),
            (&input, &mut bins),
        ),
        "UninitializedRead part[0] | thread 0 atomically updates @{add-unzeroed}",
    );
    assert!(
        e.to_string().contains("shared memory starts uninitialised"),
        "{e}"
    );
    clean(cpu().launch(
        cluster_bins_never_zeroed_fixed,
        cfg(2, 32).with_cluster(2),
        (&input, &mut bins),
    ));
    assert_eq!(bins, [1; 64]);
}

#[test]
fn two_blocks_writing_one_element_of_a_third_race() {
    let mut out = vec![0u32; 64];
    let e = broken(
        cpu().launch(everyone_writes_to_the_leader, cfg(2, 32).with_cluster(2), (&mut out,)),
        "ClusterRace s[0] of block 0 | block 0 thread 0 @{write-to-leader} | block 1 thread 0 @{write-to-leader}",
    );
    assert!(
        e.to_string()
            .contains("with no cluster barrier between them"),
        "{e}"
    );
    clean(cpu().launch(
        everyone_writes_to_the_leader_fixed,
        cfg(2, 32).with_cluster(2),
        (&mut out,),
    ));
    // Each block reads what the previous block wrote into its array.
    assert_eq!((out[0], out[31], out[32]), (1, 1, 0));
}

#[test]
fn distributed_shared_memory_outlives_no_block_and_stays_in_the_cluster() {
    let mut out = vec![0u32; 64];
    // Block 0 reads block 1's array and returns; block 1 then reads block
    // 0's, which is gone.
    let e = error_of(cpu().launch(
        read_a_neighbour_then_return,
        cfg(2, 32).with_cluster(2),
        (&mut out,),
    ));
    let text = e.to_string();
    assert!(
        matches!(&*e.violation, Violation::PeerReturned { rank: 0, .. }),
        "{text}"
    );
    assert!(
        text.contains("reaches the shared array of block 0 of the cluster at")
            && text.contains("End the sharing with a cluster barrier")
            && text.contains(&format!("rules.rs:{}:", line_of("read-neighbour"))),
        "{text}"
    );
    assert_eq!(e.block, Dim3::new(1, 0, 0));
    clean(cpu().launch(
        read_a_neighbour_then_return_fixed,
        cfg(2, 32).with_cluster(2),
        (&mut out,),
    ));
    assert_eq!((out[0], out[33]), (0, 1));
    let e = error_of(cpu().launch(
        read_past_the_cluster,
        cfg(2, 32).with_cluster(2),
        (&mut out,),
    ));
    assert!(
        matches!(
            &*e.violation,
            Violation::PeerOutsideCluster {
                rank: 2,
                blocks: 2,
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("names block rank 2 of the cluster at")
            && e.to_string().contains("but the cluster has 2 blocks"),
        "{e}"
    );
    assert_eq!(e.block, Dim3::new(1, 0, 0));
}

// =====================================================================
// Grid syncs: cooperative launches.

#[kernel(cooperative)]
pub fn idle_blocks_return(
    grid: CooperativeGrid,
    input: &[u32],
    partial: Out<u32>,
    total: Out<u32>,
) {
    let block = this_thread_block();
    let first = grid.block_rank() * block.num_threads() as usize;
    if first >= input.len() {
        return; // no elements for this block
    }
    let i = first + block.thread_rank() as usize;
    let x = if i < input.len() { input[i] } else { 0 };
    let s = reduce(&block, x, op::Sum);
    if block.thread_rank() == 0 {
        partial.write(grid.block_rank(), s);
    }
    grid.sync(); // grid-sync-after-return
    if grid.thread_rank() == 0 {
        let used = input.len().div_ceil(block.num_threads() as usize);
        total.write(0, (0..used).map(|b| partial.read(b)).sum());
    }
}

#[kernel(cooperative)]
pub fn idle_blocks_return_fixed(
    grid: CooperativeGrid,
    input: &[u32],
    partial: Out<u32>,
    total: Out<u32>,
) {
    // Every block reaches the grid sync; blocks without elements add 0.
    let block = this_thread_block();
    let i = grid.thread_rank();
    let x = if i < input.len() { input[i] } else { 0 };
    let s = reduce(&block, x, op::Sum);
    if block.thread_rank() == 0 {
        partial.write(grid.block_rank(), s);
    }
    grid.sync();
    if grid.thread_rank() == 0 {
        total.write(0, (0..grid.num_blocks()).map(|b| partial.read(b)).sum());
    }
}

#[test]
fn a_block_that_returns_before_a_grid_sync_leaves_the_others_waiting() {
    let input: Vec<u32> = (1..=100).collect();
    let (mut partial, mut total) = (vec![0u32; 5], vec![0u32]);
    let e = broken(
        cpu().launch(
            idle_blocks_return,
            cfg(5, 32),
            (&input[..], &mut partial, &mut total),
        ),
        "GridSyncNotReached blocks 0-3 @{grid-sync-after-return} | blocks 4 returned",
    );
    assert_eq!(e.block, Dim3::new(4, 0, 0));
    let text = e.to_string();
    assert!(
        text.contains(
            "`CooperativeGrid::sync` never reached by every block of the grid: blocks 0-3 at ("
        ) && text.contains("; block 4 returned from the kernel"),
        "{text}"
    );
    let report = clean(cpu().launch(
        idle_blocks_return_fixed,
        cfg(5, 32),
        (&input[..], &mut partial, &mut total),
    ));
    assert_eq!(total[0], 5050);
    assert_eq!((report.grid_syncs, report.cluster_syncs), (1, 0));
}

#[kernel(cooperative)]
pub fn grid_sync_per_parity(grid: CooperativeGrid, out: Out<u32>) {
    let b = grid.block_rank();
    if b % 2 == 0 {
        grid.sync(); // even-grid-sync
    } else {
        grid.sync(); // odd-grid-sync
    }
    out.write(grid.thread_rank(), b as u32);
}

#[test]
fn blocks_wait_at_different_grid_syncs() {
    let mut out = vec![0u32; 128];
    broken(
        cpu().launch(grid_sync_per_parity, cfg(4, 32), (&mut out,)),
        "GridSyncNotReached blocks 0, 2 @{even-grid-sync}; blocks 1, 3 @{odd-grid-sync} | blocks  returned",
    );
}

#[kernel(cooperative)]
pub fn threads_return_before_grid_sync(grid: CooperativeGrid, input: &[u32], out: Out<u32>) {
    let i = grid.thread_rank();
    if i >= input.len() {
        return;
    }
    out.write(i, input[i]);
    grid.sync(); // grid-sync-per-thread
    out.write(i, out.read(input.len() - 1 - i) + input[i]);
}

#[kernel(cooperative)]
pub fn threads_return_before_grid_sync_fixed(
    grid: CooperativeGrid,
    input: &[u32],
    out: Out<u32>,
    reversed: Out<u32>,
) {
    let i = grid.thread_rank();
    if i < input.len() {
        out.write(i, input[i]);
    }
    grid.sync();
    if i < input.len() {
        reversed.write(i, out.read(input.len() - 1 - i));
    }
}

#[test]
fn threads_that_return_before_a_grid_sync_leave_their_block_waiting() {
    let input: Vec<u32> = (0..100).collect();
    let mut out = vec![0u32; 100];
    let e = broken(
        cpu().launch(
            threads_return_before_grid_sync,
            cfg(4, 32),
            (&input[..], &mut out),
        ),
        "BarrierNotReached threads 0-3 @{grid-sync-per-thread} | threads 4-31 returned",
    );
    assert_eq!(e.block, Dim3::new(3, 0, 0));
    assert!(e.to_string().contains("at `CooperativeGrid::sync`"), "{e}");
    let mut reversed = vec![0u32; 100];
    clean(cpu().launch(
        threads_return_before_grid_sync_fixed,
        cfg(4, 32),
        (&input[..], &mut out, &mut reversed),
    ));
    assert_eq!(reversed, (0..100).rev().collect::<Vec<u32>>());
}

#[kernel(cooperative)]
pub fn read_the_next_partial_too_early(grid: CooperativeGrid, partial: Out<u32>, next: Out<u32>) {
    let block = this_thread_block();
    let s = reduce(&block, 1, op::Sum);
    let b = grid.block_rank();
    if block.thread_rank() == 0 {
        partial.write(b, s); // write-partial
        let theirs = partial.read((b + 1) % grid.num_blocks()); // read-too-early
        next.write(b, theirs);
    }
    grid.sync();
}

#[kernel(cooperative)]
pub fn read_the_next_partial_fixed(grid: CooperativeGrid, partial: Out<u32>, next: Out<u32>) {
    let block = this_thread_block();
    let s = reduce(&block, 1, op::Sum);
    let b = grid.block_rank();
    if block.thread_rank() == 0 {
        partial.write(b, s);
    }
    grid.sync();
    if block.thread_rank() == 0 {
        next.write(b, partial.read((b + 1) % grid.num_blocks()));
    }
}

#[test]
fn reading_another_blocks_result_before_the_grid_sync_races() {
    let (mut partial, mut next) = (vec![0u32; 4], vec![0u32; 4]);
    let e = broken(
        cpu().launch(read_the_next_partial_too_early, cfg(4, 64), (&mut partial, &mut next)),
        "GlobalRace partial[1] | block 0 thread 0 reads @{read-too-early} | block 1 thread 0 writes @{write-partial}",
    );
    // The advice for a race between blocks names what orders blocks (a
    // grid sync, two launches, release and acquire), not a block barrier.
    let message = e.to_string();
    assert!(
        message.contains("A block barrier orders only the threads of one block"),
        "{e}"
    );
    assert!(message.contains("`CooperativeGrid::sync`"), "{e}");
    assert!(message.contains("Ordering::Release"), "{e}");
    clean(cpu().launch(
        read_the_next_partial_fixed,
        cfg(4, 64),
        (&mut partial, &mut next),
    ));
    assert_eq!(next, [64; 4]);
}

#[kernel(cooperative)]
pub fn wait_for_a_later_block(grid: CooperativeGrid, flags: Out<u32>, seen: Out<u32>) {
    // Blocks of a cooperative launch run at once: waiting for a later
    // block is fine here (not in an ordinary launch).
    if this_thread_block().thread_rank() == 0 {
        let b = grid.block_rank();
        flags.atomic().store(b, 1);
        while flags.atomic().load((b + 1) % grid.num_blocks()) == 0 {}
        seen.write(b, 1);
    }
    grid.sync();
}

#[kernel(cooperative)]
pub fn wait_for_a_block_that_never_signals(grid: CooperativeGrid, flags: Out<u32>) {
    if this_thread_block().thread_rank() == 0 {
        let b = grid.block_rank();
        if b != 2 {
            flags.atomic().store(b, 1);
        }
        while flags.atomic().load((b + 1) % grid.num_blocks()) == 0 {} // spin-on-block-2
    }
    grid.sync(); // others-at-grid-sync
}

#[test]
fn blocks_of_a_cooperative_launch_may_wait_for_each_other_but_not_forever() {
    let (mut flags, mut seen) = (vec![0u32; 4], vec![0u32; 4]);
    clean(cpu().launch(wait_for_a_later_block, cfg(4, 64), (&mut flags, &mut seen)));
    assert_eq!(seen, [1; 4]);
    let mut flags = vec![0u32; 4];
    let e = broken(
        cpu().launch(
            wait_for_a_block_that_never_signals,
            cfg(4, 64),
            (&mut flags,),
        ),
        "SpinForever thread 0 @{spin-on-block-2} | others threads 1-63 @{others-at-grid-sync}",
    );
    assert_eq!(e.block, Dim3::new(1, 0, 0));
}

#[test]
fn a_cooperative_grid_larger_than_the_device_holds_is_refused() {
    let input = vec![1u32; 10];
    let (mut partial, mut total) = (vec![0u32; 9], vec![0u32]);
    let cpu = cpu();
    assert_eq!(
        cpu.max_cooperative_blocks(idle_blocks_return_fixed, 256, 0),
        8
    );
    let err = cpu
        .launch(
            idle_blocks_return_fixed,
            cfg(9, 256),
            (&input[..], &mut partial, &mut total),
        )
        .unwrap_err();
    let Error::InvalidLaunch {
        problem: coop_host::LaunchProblem::GridNotCoResident { blocks, max, .. },
        ..
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!((*blocks, *max), (9, 8));
    assert!(
        err.to_string()
            .contains("at most 8 fit on this device at once"),
        "{err}"
    );
    clean(cpu.launch(
        idle_blocks_return_fixed,
        cfg(8, 256),
        (&input[..], &mut partial, &mut total),
    ));
    assert_eq!(total[0], 10);
}

// =====================================================================
// The same diagnosis whatever runs the blocks.

#[test]
fn every_diagnosis_is_the_same_on_one_host_thread_and_under_seeded_schedules() {
    let input: Vec<u32> = (0..128).collect();
    let inputf = vec![1.0f32; 100];
    for emulator in [
        Emulator::new().with_host_threads(1),
        Emulator::new().with_host_threads(3),
        Emulator::new().with_schedule_seed(7),
    ] {
        let cpu = Cpu::with_emulator(emulator);
        let mut out = vec![0u32; 64];
        broken(
            cpu.launch(sync_in_a_branch, cfg(2, 64), (&mut out,)),
            "BarrierNotReached threads 0-31 @{sync-in-branch} | threads 32-63 returned",
        );
        let mut out = vec![0u32; 128];
        broken(
            cpu.launch(grid_sync_per_parity, cfg(4, 32), (&mut out,)),
            "GridSyncNotReached blocks 0, 2 @{even-grid-sync}; blocks 1, 3 @{odd-grid-sync} | blocks  returned",
        );
        let (mut partial, mut next) = (vec![0u32; 4], vec![0u32; 4]);
        broken(
            cpu.launch(read_the_next_partial_too_early, cfg(4, 64), (&mut partial, &mut next)),
            "GlobalRace partial[1] | block 0 thread 0 reads @{read-too-early} | block 1 thread 0 writes @{write-partial}",
        );
        let mut count = vec![0u32];
        broken(
            cpu.launch(reset_once_in_every_block, cfg(4, 32), (&mut count,)),
            "GlobalRace count[0] | block 0 thread 0 writes @{reset-per-block} | block 1 thread 0 writes @{reset-per-block}",
        );
        let mut count = vec![0u32];
        let e = error_of(cpu.launch(reset_then_count, cfg(2, 64), (&input[..], &mut count)));
        assert!(matches!(*e.violation, Violation::GlobalRace { .. }), "{e}");
        let mut out = vec![0f32; 128];
        let e = error_of(cpu.launch(unguarded_map, cfg(2, 64), (&inputf[..], &mut out)));
        let Violation::OutOfBounds { buffer, index, .. } = &*e.violation else {
            panic!("{e}")
        };
        assert_eq!(buffer, "input");
        if e.schedule.is_none() {
            // Which thread fails first is the schedule's choice.
            assert_eq!(*index, 100);
        }
    }
}

#[test]
fn the_catalogue_holds_forty_rules() {
    let source = include_str!("rules.rs");
    let broken = source.matches("broken(\n").count() + source.matches("error_of(cpu()").count();
    assert!(broken >= 40, "{broken} broken kernels");
}

#[allow(dead_code)]
fn unused(_: RawShared<[u32; 1]>) {}

#[kernel]
pub fn first_block_fails_second_waits(block: ThreadBlock, input: &[u32], flags: Out<u32>) {
    let b = block.group_index().x as usize;
    if b == 0 {
        // Long enough for the other blocks to start waiting.
        let warp = block.tiled_partition::<32>();
        for _ in 0..20_000 {
            warp.sync();
        }
    }
    if block.thread_rank() == 0 {
        if b == 0 {
            let _ = input[input.len()]; // first-block-fails
            flags.atomic().store(0, 1);
        } else {
            while flags.atomic().load(0) == 0 {}
        }
    }
}

#[test]
fn a_block_waiting_for_a_block_that_failed_does_not_hang_the_launch() {
    for threads in [1, 2, 4] {
        let cpu = Cpu::with_emulator(Emulator::new().with_host_threads(threads));
        let mut flags = vec![0u32; 1];
        let start = std::time::Instant::now();
        broken(
            cpu.launch(
                first_block_fails_second_waits,
                cfg(4, 32),
                (&[7u32][..], &mut flags),
            ),
            "OutOfBounds input index 1 of 1 | thread 0 @{first-block-fails}",
        );
        // The waiting blocks stop once block 0 has failed, instead of
        // spinning through their step budget (about 25 s here).
        assert!(start.elapsed().as_secs() < 8, "{:?}", start.elapsed());
    }
}
