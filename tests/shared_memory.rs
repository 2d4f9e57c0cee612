//! Shared memory on the CPU backend: the race detector and the
//! uninitialised-read check (each with its kind, threads, element and
//! `file:line`s, and a corrected kernel that passes), the bank-conflict
//! counter against known answers, ownership errors, and launch limits.

use coop::cpu::{AccessKind, EmulationError, Violation};
use coop::prelude::*;
use coop::shared::{ByRank, ColumnMajor, RowMajor, Shared};
use coop_host::{Cpu, Error, LaunchConfig, LaunchProblem, Report};

/// The line of this file holding `// marker`.
fn line_of(marker: &str) -> u32 {
    coop_tests::marked_line(include_str!("shared_memory.rs"), marker)
}

fn emulation_error(result: Result<Report, Error>) -> EmulationError {
    match result {
        Err(Error::Emulation(e)) => e,
        other => panic!("expected an emulation error, got {other:?}"),
    }
}

fn launch<K, A>(kernel: K, block: impl Into<coop_host::Dim3>, args: A) -> Result<Report, Error>
where
    K: coop::Kernel,
    A: coop_host::CpuArgs<K::Params>,
{
    Cpu::new().launch(kernel, LaunchConfig::new(1, block), args)
}

// ---------------------------------------------------------------------
// Read after write without a barrier.

#[kernel]
pub fn read_neighbour_too_early(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
    let buf = buf.into_raw();
    let r = block.thread_rank() as usize;
    // SAFETY: deliberately broken: the read below races with this write.
    unsafe { buf.write(r, r as u32) }; // raw-write
    let left = if r > 0 { unsafe { buf.read(r - 1) } } else { 0 }; // raw-read
    out.write(r, left);
}

#[kernel]
pub fn read_neighbour_after_barrier(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>) {
    let r = block.thread_rank() as usize;
    let mine = buf.own(ByRank::new());
    mine.set(r as u32);
    let all = mine.publish(&block);
    out.write(r, if r > 0 { all.get(r - 1) } else { 0 });
}

#[test]
fn a_read_racing_with_a_write_names_both_threads_and_lines() {
    let mut out = vec![0u32; 64];
    let e = emulation_error(launch(read_neighbour_too_early, 64, (&mut out,)));
    let Violation::SharedRace {
        array,
        element,
        first,
        second,
    } = &*e.violation
    else {
        panic!("{e}")
    };
    assert_eq!((*array, element.as_str()), ("buf", "[0]"));
    assert_eq!((first.thread, first.kind), (0, AccessKind::Write));
    assert_eq!((second.thread, second.kind), (1, AccessKind::Read));
    assert_eq!(first.site.line(), line_of("raw-write"));
    assert_eq!(second.site.line(), line_of("raw-read"));
    let msg = e.to_string();
    assert!(msg.contains("data race on `buf[0]`"), "{msg}");
    assert!(msg.contains("shared_memory.rs"), "{msg}");

    let report = launch(read_neighbour_after_barrier, 64, (&mut out,)).unwrap();
    assert_eq!(out[10], 9);
    assert_eq!(report.block_barriers, 1);
}

// ---------------------------------------------------------------------
// Write after read without a barrier (the seed's tree with a barrier
// missing).

#[kernel]
pub fn tree_without_inner_barrier(block: ThreadBlock, out: Out<u32>, cache: Shared<[u32; 64]>) {
    let cache = cache.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { cache.write(r, 1) };
    block.sync();
    let mut half = 32;
    while half > 0 {
        if r < half {
            let sum = unsafe { cache.read(r) + cache.read(r + half) }; // tree-read
            unsafe { cache.write(r, sum) }; // tree-write
        }
        half /= 2; // the barrier that belongs here is missing
    }
    block.sync();
    if r == 0 {
        out.write(0, unsafe { cache.read(0) });
    }
}

#[kernel]
pub fn tree_with_inner_barrier(block: ThreadBlock, out: Out<u32>, cache: Shared<[u32; 64]>) {
    let cache = cache.into_raw();
    let r = block.thread_rank() as usize;
    unsafe { cache.write(r, 1) };
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
fn a_write_racing_with_an_earlier_read_is_reported() {
    let mut out = vec![0u32; 1];
    let e = emulation_error(launch(tree_without_inner_barrier, 64, (&mut out,)));
    let Violation::SharedRace {
        element,
        first,
        second,
        ..
    } = &*e.violation
    else {
        panic!("{e}")
    };
    // Without the inner barrier thread 0 runs all its rounds first and
    // reads cache[1] in the last one; thread 1 then writes cache[1] in its
    // first round.
    assert_eq!(element, "[1]");
    assert_eq!((first.thread, first.kind), (0, AccessKind::Read));
    assert_eq!((second.thread, second.kind), (1, AccessKind::Write));
    assert_eq!(first.site.line(), line_of("tree-read"));
    assert_eq!(second.site.line(), line_of("tree-write"));

    launch(tree_with_inner_barrier, 64, (&mut out,)).unwrap();
    assert_eq!(out, [64]);
}

// ---------------------------------------------------------------------
// A tile barrier orders accesses within its tile, not across tiles.

#[kernel]
pub fn swap_in_tile(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 64]>, partner: u32) {
    let buf = buf.into_raw();
    let warp = block.tiled_partition::<32>();
    let r = block.thread_rank() as usize;
    unsafe { buf.write(r, r as u32) };
    warp.sync();
    out.write(r, unsafe { buf.read(r ^ partner as usize) }); // swap-read
}

#[test]
fn a_tile_sync_orders_accesses_of_its_own_threads_only() {
    let mut out = vec![0u32; 64];
    // Partner 1 is in the same warp: the warp's sync orders the pair.
    launch(swap_in_tile, 64, (&mut out, 1u32)).unwrap();
    assert_eq!(&out[..4], [1, 0, 3, 2]);
    // Partner 32 is in the other warp: a race.
    let e = emulation_error(launch(swap_in_tile, 64, (&mut out, 32u32)));
    let Violation::SharedRace { first, second, .. } = &*e.violation else {
        panic!("{e}")
    };
    // Warp 0 runs first: thread 0 reads buf[32] before thread 32 writes it,
    // and the write makes that read a race.
    assert_eq!((first.thread, first.kind), (0, AccessKind::Read));
    assert_eq!((second.thread, second.kind), (32, AccessKind::Write));
    assert_eq!(first.site.line(), line_of("swap-read"));
}

// ---------------------------------------------------------------------
// Reading what nobody wrote.

#[kernel]
pub fn read_unwritten(block: ThreadBlock, out: Out<f32>, tile: Shared<[[f32; 8]; 8]>) {
    let t = block.thread_index();
    let mine = tile.own(RowMajor);
    if t.x < 7 {
        mine.write((t.y as usize, t.x as usize), 1.0);
    }
    let tile = mine.publish(&block);
    let v = tile.get((t.x as usize, t.y as usize)); // unwritten
    out.write(block.thread_rank() as usize, v);
}

#[test]
fn reading_an_element_nobody_wrote_is_reported() {
    let mut out = vec![0f32; 64];
    let e = emulation_error(launch(read_unwritten, (8, 8), (&mut out,)));
    let Violation::UninitializedRead {
        array,
        element,
        access,
    } = &*e.violation
    else {
        panic!("{e}")
    };
    // Thread (0, 7) (rank 56) reads [0][7], which thread (7, 0) never wrote.
    assert_eq!((*array, element.as_str()), ("tile", "[0][7]"));
    assert_eq!(access.thread, 56);
    assert_eq!(access.site.line(), line_of("unwritten"));
    assert!(e
        .to_string()
        .contains("before any thread of the block wrote it"));
}

// ---------------------------------------------------------------------
// Ownership: a thread writes only what its map gives it.

#[kernel]
pub fn write_someone_elses(block: ThreadBlock, buf: Shared<[u32; 32]>) {
    let r = block.thread_rank() as usize;
    let mine = buf.own(ByRank::new());
    mine.write((r + 1) % 32, 0);
}

#[test]
fn writing_an_element_owned_by_another_thread_panics_naming_the_owner() {
    let e = emulation_error(launch(write_someone_elses, 32, ()));
    let Violation::Panic {
        thread, message, ..
    } = &*e.violation
    else {
        panic!("{e}")
    };
    assert_eq!(*thread, 0);
    assert!(message.contains("writes element 1"), "{message}");
    assert!(message.contains("belongs to thread 1 "), "{message}");
}

#[kernel]
pub fn read_someone_elses(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32; 32]>) {
    let r = block.thread_rank() as usize;
    let mine = buf.own(ByRank::new());
    mine.write(r, r as u32);
    out.write(r, mine.read((r + 1) % 32)); // read before publish
}

#[test]
fn reading_an_element_owned_by_another_thread_is_reported_as_a_read() {
    let mut out = vec![0u32; 32];
    let e = emulation_error(launch(read_someone_elses, 32, (&mut out,)));
    let Violation::Panic {
        thread, message, ..
    } = &*e.violation
    else {
        panic!("{e}")
    };
    assert_eq!(*thread, 0);
    assert!(message.contains("thread 0 reads element 1"), "{message}");
    assert!(message.contains("belongs to thread 1 "), "{message}");
    assert!(
        message.contains("read another thread's after `.publish(&block)`"),
        "{message}"
    );
}

// ---------------------------------------------------------------------
// Bank transactions per request, against known answers.

#[kernel]
pub fn bank_patterns(
    block: ThreadBlock,
    out: Out<f64>,
    t32: Shared<[[f32; 32]; 32]>,
    t64: Shared<[f64; 64]>,
) {
    let t = block.thread_index();
    let (x, y) = (t.x as usize, t.y as usize);
    let rows = t32.own(RowMajor);
    rows.write((y, x), 1.0); // row-store
    let t32 = rows.publish(&block);
    let column = t32.get((x, y)); // column-load
    let broadcast = t32.get((0, 0)); // broadcast-load
    let stride2 = t32.get(((2 * x) / 32, (2 * x) % 32)); // stride-2-load
    let doubles = t64.own(ByRank::new());
    if y < 2 {
        doubles.set(x as f64); // f64-store
    }
    let _ = doubles.publish(&block);
    out.write(
        block.thread_rank() as usize,
        (column + broadcast + stride2) as f64,
    );
}

#[kernel]
pub fn columns_of(block: ThreadBlock, out: Out<f32>, t: Shared<[[f32; 32]; 32]>) {
    let i = block.thread_index();
    let mine = t.own(ColumnMajor);
    mine.set(1.0); // column-store
    let t = mine.publish(&block);
    out.write(
        block.thread_rank() as usize,
        t.get((i.x as usize, i.y as usize)),
    );
}

fn per_request(report: &Report, marker: &str) -> f64 {
    let sites = report.shared_at_line(line_of(marker));
    assert_eq!(sites.len(), 1, "{marker}: {sites:?}");
    sites[0].transactions_per_request()
}

#[test]
fn bank_transactions_per_request_match_the_seed() {
    let mut out = vec![0f64; 1024];
    let report = launch(bank_patterns, (32, 32), (&mut out,)).unwrap();
    assert_eq!(per_request(&report, "row-store"), 1.0);
    assert_eq!(per_request(&report, "column-load"), 32.0);
    assert_eq!(per_request(&report, "broadcast-load"), 1.0);
    assert_eq!(per_request(&report, "stride-2-load"), 2.0);
    // 32 consecutive 8-byte elements span 64 words: two per bank.
    assert_eq!(per_request(&report, "f64-store"), 2.0);
    let site = report.shared_at_line(line_of("row-store"))[0];
    assert_eq!(
        (site.array, site.kind, site.requests),
        ("t32", AccessKind::Write, 32)
    );
    assert_eq!(report.shared_at_line(line_of("f64-store"))[0].requests, 2);

    let mut out = vec![0f32; 1024];
    let report = launch(columns_of, (32, 32), (&mut out,)).unwrap();
    assert_eq!(per_request(&report, "column-store"), 32.0);
    assert_eq!(
        report.shared_at_line(line_of("column-store"))[0].requests,
        32
    );
}

// ---------------------------------------------------------------------
// Launch limits.

#[kernel]
pub fn dynamic_sum(block: ThreadBlock, out: Out<u32>, buf: Shared<[u32]>) {
    let r = block.thread_rank() as usize;
    let n = buf.len();
    let mine = buf.own(ByRank::new());
    for i in (r..n).step_by(block.num_threads() as usize) {
        mine.write(i, 1);
    }
    let all = mine.publish(&block);
    if r == 0 {
        out.write(0, (0..all.len()).map(|i| all.get(i)).sum());
    }
}

#[test]
fn dynamic_shared_memory_is_sized_by_the_launch() {
    let mut out = vec![0u32; 1];
    let cfg = LaunchConfig::new(1, 32).with_shared_memory(100 * 4);
    Cpu::new().launch(dynamic_sum, cfg, (&mut out,)).unwrap();
    assert_eq!(out, [100]);
}

#[test]
fn shared_memory_beyond_the_device_limit_is_a_launch_error_naming_it() {
    let mut out = vec![0u32; 1];
    let cfg = LaunchConfig::new(1, 32).with_shared_memory(300 * 1024);
    let err = Cpu::new()
        .launch(dynamic_sum, cfg, (&mut out,))
        .unwrap_err();
    let Error::InvalidLaunch { problem, .. } = &err else {
        panic!("{err}")
    };
    assert!(
        matches!(problem, LaunchProblem::TooMuchSharedMemory { .. }),
        "{problem:?}"
    );
    assert!(err.to_string().contains("232448"), "{err}");
    // Static arrays over 48 KiB are a compile error instead, on both
    // backends: `ui/shared_static_over_48k.rs`.
}

// ---------------------------------------------------------------------
// The atomic phase: atomic updates are ordered with each other, a plain
// access racing with one is reported, and an update of an element nobody
// wrote reads uninitialised memory.

#[kernel]
pub fn atomic_counts(block: ThreadBlock, out: Out<u32>, bins: Shared<[u32; 4]>) {
    let t = block.thread_rank() as usize;
    let zero = bins.own(ByRank::new());
    if t < 4 {
        zero.write(t, 0);
    }
    let bins = zero.atomics(&block);
    bins.add(t % 4, 1);
    let old = bins.fetch_max(t % 4, 0); // max with 0: the count so far
    let bins = bins.publish(&block);
    if t < 4 {
        out.write(t, bins.get(t));
    }
    let _ = old;
}

#[kernel]
pub fn plain_write_during_atomics(block: ThreadBlock, bins: Shared<[u32; 4]>) {
    let t = block.thread_rank() as usize;
    let zero = bins.own(ByRank::new());
    if t < 4 {
        zero.write(t, 0);
    }
    let bins = zero.atomics(&block);
    if t == 5 {
        let raw = bins.into_raw();
        // SAFETY: deliberately broken: races with the other threads' adds.
        unsafe { raw.write(0, 9) }; // plain-during-atomics
    } else {
        bins.add(0, 1); // atomic-add
    }
}

#[kernel]
pub fn atomic_on_unwritten(block: ThreadBlock, bins: Shared<[u32; 64]>) {
    let t = block.thread_rank() as usize;
    let zero = bins.own(ByRank::new());
    if t < 32 {
        zero.write(t, 0); // elements 32..64 stay unwritten
    }
    let bins = zero.atomics(&block);
    bins.add(63 - t, 1); // atomic-unwritten
}

#[test]
fn atomic_updates_do_not_race_with_each_other() {
    let mut out = vec![0u32; 4];
    let report = launch(atomic_counts, 64, (&mut out,)).unwrap();
    assert_eq!(out, [16; 4]);
    assert_eq!(report.block_barriers, 2);
}

#[test]
fn a_plain_access_racing_with_an_atomic_one_is_reported() {
    let e = emulation_error(launch(plain_write_during_atomics, 64, ()));
    let Violation::SharedRace {
        array,
        element,
        first,
        second,
    } = &*e.violation
    else {
        panic!("{e}")
    };
    assert_eq!((*array, element.as_str()), ("bins", "[0]"));
    let kinds = [first.kind, second.kind];
    assert!(kinds.contains(&AccessKind::Atomic), "{e}");
    assert!(kinds.contains(&AccessKind::Write), "{e}");
    let lines = [first.site.line(), second.site.line()];
    assert!(lines.contains(&line_of("plain-during-atomics")), "{e}");
    assert!(lines.contains(&line_of("atomic-add")), "{e}");
    assert!(e.to_string().contains("atomically updates"), "{e}");
}

#[test]
fn an_atomic_update_of_an_unwritten_element_is_reported() {
    let e = emulation_error(launch(atomic_on_unwritten, 64, ()));
    let Violation::UninitializedRead {
        element, access, ..
    } = &*e.violation
    else {
        panic!("{e}")
    };
    assert_eq!(element.as_str(), "[63]");
    assert_eq!((access.thread, access.kind), (0, AccessKind::Atomic));
    assert_eq!(access.site.line(), line_of("atomic-unwritten"));
}
