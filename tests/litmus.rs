//! Litmus shapes of the GPU memory model on the CPU backend: each shape
//! runs in every combination of orderings and scopes a user can write
//! with coop, and the race detector must report exactly the combinations
//! the PTX memory model does not order, at the data's lines, and stay
//! silent on the others.
//!
//! | shape | what it relies on | ordered when |
//! |---|---|---|
//! | message passing (MP) across blocks | a flag published by one block, then its data read by another | the writer releases (release store at the device's scope, or a device fence before a relaxed store) and the reader acquires (acquire load at the device's scope, or a relaxed load at the device's scope then a device fence); the flag's atomics at the block's scope order nothing between blocks. A reader that acquires a flag stored relaxed (or after a block fence) is reported as `UnreleasedWrite`, naming the flag's store |
//! | MP from a whole block | every thread's write, a block barrier, then thread 0's release | the barrier orders each thread's write before the release, which publishes them all; writes after the release are published by nothing |
//! | coherence of one atomic location (CoWW/CoRR) across blocks | atomic updates of one counter | always, at the device's scope; an update at the block's scope races with other blocks' |
//! | message passing between two warps of a block, through global memory | as across blocks, at any scope | a release store (or a block fence before a relaxed store) and an acquire load of the flag; a relaxed flag orders nothing on either side |
//! | store buffering (SB) across blocks | two flags, each block raising one and reading the other | atomics only: any outcome is allowed and there is no data to race on, so nothing is reported |
//! | load buffering (LB) across blocks | each block loads the other's flag, then raises its own | atomics only: nothing reported |
//! | independent reads of independent writes (IRIW) across four blocks | two writers, two readers in opposite orders (relaxed or acquire) | atomics only: nothing reported |
//! | write-to-read causality (WRC) across three blocks | data published by block 0, passed on by block 1's flag, read by block 2 | release and acquire at every link (causality is transitive); a relaxed first link is `UnreleasedWrite`, a relaxed middle link `UnsynchronizedRead` naming block 1's store |
//! | the last block of a reduction (CUDA's threadFenceReduction) | every block's partial, a fence and a counter's update; the block that updates it last reads every partial after a block barrier | a fence before the update and one after it, or the update with `AcqRel`: the barrier passes thread 0's acquire on to the block. Without the fence after it (the sample as written) the counter is observed, not acquired: `UnsynchronizedRead` naming the update; without the one before, `UnsynchronizedRead` (the counter carries no release) |
//! | two flags from one writer | data, release flag 0, more data, release flag 1 | an acquire of flag 0 orders only what was written before its release: the later data read after it is `UnsynchronizedRead` |
//! | message passing, store buffering and IRIW over atomics only, under schedule exploration | a relaxed flag before atomic data; two flags raised and read crosswise; two readers of two writers | no race to report; each seeded schedule may let a load return its location's previous value, so the weak outcomes show (old data, both loads old, readers disagreeing) where the model allows them and never with release/acquire or with device fences between |
//! | write after read across blocks | a block reads after an acquire, then releases; another acquires that release and overwrites the element | the write is ordered after the read (its writer synchronized with a release the reader's block made after the read): nothing reported, whichever block reads |
//! | message passing and counters at the cluster's scope | a flag released and acquired at `Scope::Cluster`; a counter updated at it | within a cluster the pair orders the data and the counter is atomic; across clusters the release reaches nothing (the data's read is `UnsynchronizedRead` naming it) and the flag's atomics race, as does one counter for the launch; without clusters the scope is the block's |
//! | a release after a cluster's sync (cumulativity) | block 0 writes, the cluster syncs, block 1 releases a flag, a block of another cluster acquires it and reads | with the sync; without it the write is reported at the data's lines |
//! | message passing with fences in a launch in clusters | data, a fence at the cluster's or the device's scope, a relaxed flag at the device's scope; the reader's acquire, or relaxed load and fence at either scope | within a cluster always; across clusters only with device fences (or an acquire) on both sides: a writer's cluster fence is `ClusterRelease`, a reader's `ClusterFence`, each naming the fence |
//! | the GPU's litmus kernels (`coop_test_kernels::litmus`) | message passing in lock-step rounds, with and without a preload; store buffering in rounds | clean exactly with release, acquire and no preload; the GPU suite runs them for many rounds and prints the weak outcomes seen |

use coop::atomic::{Ordering, Scope};
use coop::cpu::{Emulator, SyncGap, Violation};
use coop::memory::{fence_block, fence_device};
use coop::prelude::*;
use coop_host::{Cpu, Error, LaunchConfig};

/// How a message-passing writer publishes its flag.
const WRITE_RELEASE: u32 = 0;
const WRITE_DEVICE_FENCE: u32 = 1;
const WRITE_RELAXED: u32 = 2;
const WRITE_BLOCK_FENCE: u32 = 3;
/// How a message-passing reader takes it.
const READ_RELAXED: u32 = 0;
const READ_ACQUIRE: u32 = 1;
const READ_DEVICE_FENCE: u32 = 2;
const READ_BLOCK_FENCE: u32 = 3;

/// Message passing between blocks: block 0's thread 0 writes the data and
/// raises the flag (`write` says how), block 1's thread 0 waits for the
/// flag (`read` says how) and reads the data. `block_scope` puts the
/// flag's atomics at the block's scope.
#[kernel(cooperative)]
pub fn message_passing(
    grid: CooperativeGrid,
    data: Out<u32>,
    flag: Out<u32>,
    seen: Out<u32>,
    write: u32,
    read: u32,
    block_scope: u32,
) {
    let block = this_thread_block();
    if block.thread_rank() != 0 {
        return;
    }
    let scope = if block_scope == 1 {
        Scope::Block
    } else {
        Scope::Device
    };
    let flags = flag.atomic().with_scope(scope);
    if grid.block_rank() == 0 {
        data.write(0, 42); // mp-data-write
        match write {
            WRITE_RELEASE => flags.with_ordering(Ordering::Release).store(0, 1),
            WRITE_DEVICE_FENCE => {
                fence_device();
                flags.store(0, 1);
            }
            WRITE_BLOCK_FENCE => {
                fence_block();
                flags.store(0, 1); // mp-flag-after-block-fence
            }
            _ => flags.store(0, 1), // mp-flag-relaxed
        }
    } else {
        match read {
            READ_ACQUIRE => {
                let acquire = flags.with_ordering(Ordering::Acquire);
                while acquire.load(0) == 0 {}
            }
            _ => {
                while flags.load(0) == 0 {} // mp-flag-relaxed-load
                if read == READ_DEVICE_FENCE {
                    fence_device();
                } else if read == READ_BLOCK_FENCE {
                    fence_block();
                }
            }
        }
        seen.write(1, data.read(0)); // mp-data-read
    }
}

/// Runs [`message_passing`] on `emulator`; `Ok(seen)` or the violation.
fn run_mp(emulator: Emulator, write: u32, read: u32, block_scope: u32) -> Result<u32, Violation> {
    let (mut data, mut flag, mut seen) = (vec![0u32], vec![0u32], vec![0u32; 2]);
    let result = Cpu::with_emulator(emulator).launch(
        message_passing,
        LaunchConfig::new(2, 32),
        (&mut data, &mut flag, &mut seen, write, read, block_scope),
    );
    match result {
        Ok(_) => Ok(seen[1]),
        Err(Error::Emulation(e)) => Err(*e.violation),
        Err(other) => panic!("expected an emulation error or none, got {other:?}"),
    }
}

/// The line of this file ending in `// marker`.
fn line_of(marker: &str) -> u32 {
    coop_tests::marked_line(include_str!("litmus.rs"), marker)
}

/// The unpublished write a launch reports, as its buffer, the write's and
/// the read's lines and the line of the relaxed store that raised the
/// flag; any other outcome fails the test, naming `what`.
fn unreleased_write(
    result: Result<coop_host::Report, Error>,
    what: &str,
) -> (&'static str, u32, u32, Option<u32>) {
    match result {
        Err(Error::Emulation(e)) => match *e.violation {
            Violation::UnreleasedWrite {
                buffer,
                write,
                read,
                flag,
                ..
            } => (
                buffer,
                write.site.line(),
                read.site.line(),
                flag.map(|f| f.line()),
            ),
            other => panic!("{what}: {other}"),
        },
        other => panic!("{what}: expected a report, got {other:?}"),
    }
}

/// The read that a launch reports as never synchronized with the
/// release that published its write, as the write's and the read's lines
/// and what is missing (`("relaxed observe", line of the relaxed atomic)`,
/// `("relaxed link", line of the relaxed store)` or `("no release", 0)`);
/// any other outcome fails the test, naming `what`.
fn unsynchronized_read(
    result: Result<coop_host::Report, Error>,
    what: &str,
) -> (u32, u32, (&'static str, u32)) {
    match result {
        Err(Error::Emulation(e)) => match *e.violation {
            Violation::UnsynchronizedRead {
                write, read, gap, ..
            } => {
                let gap = match gap {
                    SyncGap::RelaxedObserve { atomic } => ("relaxed observe", atomic.line()),
                    SyncGap::RelaxedLink { store } => ("relaxed link", store.line()),
                    _ => ("no release", 0),
                };
                (write.site.line(), read.site.line(), gap)
            }
            other => panic!("{what}: {other}"),
        },
        other => panic!("{what}: expected a report, got {other:?}"),
    }
}

#[test]
fn message_passing_is_ordered_exactly_where_the_model_orders_it() {
    let write_names = [
        "release store",
        "device fence, relaxed store",
        "relaxed store",
        "block fence, relaxed store",
    ];
    let read_names = [
        "relaxed load",
        "acquire load",
        "relaxed load, device fence",
        "relaxed load, block fence",
    ];
    let (write_line, read_line) = (line_of("mp-data-write"), line_of("mp-data-read"));
    let mut checked = 0;
    for emulator in [Emulator::new(), Emulator::new().with_schedules(3)] {
        for write in [
            WRITE_RELEASE,
            WRITE_DEVICE_FENCE,
            WRITE_RELAXED,
            WRITE_BLOCK_FENCE,
        ] {
            for read in [
                READ_RELAXED,
                READ_ACQUIRE,
                READ_DEVICE_FENCE,
                READ_BLOCK_FENCE,
            ] {
                for block_scope in [0, 1] {
                    let what = format!(
                        "writer: {}, reader: {}, flag at the {} scope",
                        write_names[write as usize],
                        read_names[read as usize],
                        if block_scope == 1 {
                            "block's"
                        } else {
                            "device's"
                        }
                    );
                    // The reader is ordered after the data's write only
                    // through an acquire at the device's scope, or a
                    // device fence after a load at the device's scope that
                    // saw the flag, and only when the writer released the
                    // data (a release store at the device's scope, or a
                    // device fence before the flag's store): atomics at the
                    // block's scope are not strong between two blocks, and
                    // a block fence does not reach the other block.
                    let acquired =
                        block_scope == 0 && matches!(read, READ_ACQUIRE | READ_DEVICE_FENCE);
                    let released = matches!(write, WRITE_RELEASE | WRITE_DEVICE_FENCE);
                    let ordered = acquired && released;
                    match run_mp(emulator.clone(), write, read, block_scope) {
                        Ok(seen) => {
                            assert!(ordered, "{what}: ran clean, but nothing orders the data's read after its write");
                            assert_eq!(seen, 42, "{what}");
                        }
                        Err(Violation::GlobalRace {
                            buffer,
                            element,
                            first,
                            second,
                        }) => {
                            assert!(!ordered, "{what}: reported, but the model orders it");
                            // With the flag at the block's scope, its own
                            // atomics race between the blocks too: either
                            // race may be found first.
                            if block_scope == 1 && buffer == "flag" {
                                checked += 1;
                                continue;
                            }
                            assert_eq!((buffer, element), ("data", 0), "{what}");
                            let lines = [first.site.line(), second.site.line()];
                            assert!(
                                lines.contains(&write_line) && lines.contains(&read_line),
                                "{what}: the race names lines {lines:?}, not the data's {write_line} and {read_line}"
                            );
                        }
                        Err(Violation::UnreleasedWrite {
                            buffer,
                            element,
                            write: w,
                            read: r,
                            flag,
                        }) => {
                            // The reader acquired; the writer did not
                            // release: reported at the data's lines, with
                            // the flag's store named.
                            assert!(acquired && !released, "{what}: reported as unreleased");
                            assert_eq!((buffer, element), ("data", 0), "{what}");
                            assert_eq!((w.site.line(), r.site.line()), (write_line, read_line));
                            let flag_line = if write == WRITE_RELAXED {
                                line_of("mp-flag-relaxed")
                            } else {
                                line_of("mp-flag-after-block-fence")
                            };
                            assert_eq!(flag.map(|f| f.line()), Some(flag_line), "{what}");
                        }
                        Err(Violation::UnsynchronizedRead {
                            buffer,
                            element,
                            write: w,
                            read: r,
                            gap,
                        }) => {
                            // The writer released at the device's scope; the
                            // reader's relaxed load saw the flag and nothing
                            // acquired it: reported at the data's lines,
                            // naming that load.
                            assert!(
                                released && block_scope == 0 && !acquired,
                                "{what}: reported as unsynchronized"
                            );
                            assert_eq!((buffer, element), ("data", 0), "{what}");
                            assert_eq!((w.site.line(), r.site.line()), (write_line, read_line));
                            match gap {
                                SyncGap::RelaxedObserve { atomic } => assert_eq!(
                                    atomic.line(),
                                    line_of("mp-flag-relaxed-load"),
                                    "{what}"
                                ),
                                other => panic!("{what}: {other:?}"),
                            }
                        }
                        Err(other) => panic!("{what}: {other}"),
                    }
                    checked += 1;
                }
            }
        }
    }
    eprintln!("message passing: {checked} combinations checked");
}

/// Every thread of every block adds one to a counter, at `block_scope`
/// (1) or the device's scope, with `ordering`: coherence of one location.
#[kernel]
pub fn one_counter(grid: Grid, counter: Out<u32>, block_scope: u32, ordering: u32) {
    let scope = if block_scope == 1 {
        Scope::Block
    } else {
        Scope::Device
    };
    let ordering = match ordering {
        0 => Ordering::Relaxed,
        1 => Ordering::Release,
        2 => Ordering::Acquire,
        _ => Ordering::AcqRel,
    };
    let _ = grid.thread_rank();
    counter
        .atomic()
        .with_scope(scope)
        .with_ordering(ordering)
        .add(0, 1); // counter-add
}

#[test]
fn one_atomic_location_is_coherent_at_the_device_scope_only() {
    for ordering in 0..4 {
        let mut counter = vec![0u32];
        let result = Cpu::new().launch(
            one_counter,
            LaunchConfig::new(4, 64),
            (&mut counter, 0, ordering),
        );
        assert!(
            result.is_ok(),
            "device scope, ordering {ordering}: {result:?}"
        );
        assert_eq!(counter, [256], "device scope, ordering {ordering}");
        let mut counter = vec![0u32];
        let result = Cpu::new().launch(
            one_counter,
            LaunchConfig::new(4, 64),
            (&mut counter, 1, ordering),
        );
        match result {
            Err(Error::Emulation(e)) => match *e.violation {
                Violation::GlobalRace {
                    buffer,
                    element,
                    first,
                    second,
                } => {
                    assert_eq!((buffer, element), ("counter", 0));
                    let line = line_of("counter-add");
                    assert_eq!((first.site.line(), second.site.line()), (line, line));
                }
                other => panic!("block scope, ordering {ordering}: {other}"),
            },
            other => panic!("block scope, ordering {ordering}: expected a race, got {other:?}"),
        }
    }
}

/// Store buffering: block `b`'s thread 0 raises flag `b` and reads the
/// other block's flag, both atomic (relaxed or sequentially fenced).
#[kernel(cooperative)]
pub fn store_buffering(grid: CooperativeGrid, flags: Out<u32>, saw: Out<u32>, fenced: u32) {
    let block = this_thread_block();
    if block.thread_rank() != 0 {
        return;
    }
    let b = grid.block_rank();
    let atomics = flags.atomic();
    atomics.store(b, 1);
    if fenced == 1 {
        fence_device();
    }
    saw.atomic().store(b, atomics.load(1 - b));
}

#[test]
fn store_buffering_over_atomics_reports_nothing() {
    for fenced in [0, 1] {
        for emulator in [Emulator::new(), Emulator::new().with_schedules(3)] {
            let (mut flags, mut saw) = (vec![0u32; 2], vec![0u32; 2]);
            let result = Cpu::with_emulator(emulator).launch(
                store_buffering,
                LaunchConfig::new(2, 32),
                (&mut flags, &mut saw, fenced),
            );
            assert!(result.is_ok(), "fenced {fenced}: {result:?}");
            assert_eq!(flags, [1, 1]);
            // Run one at a time, at least one block sees the other's flag
            // (the relaxed form may see neither on a GPU).
            assert!(saw.iter().all(|&s| s <= 1), "{saw:?}");
        }
    }
}

/// Message passing between two warps of one block through global memory:
/// warp 0's lane 0 writes the data and raises the flag (`write` says how:
/// a release store, a relaxed one, or a block fence and a relaxed one),
/// warp 1's lane 0 waits for the flag (an acquire load, or a relaxed one)
/// and reads the data.
#[kernel]
pub fn message_passing_between_warps(
    block: ThreadBlock,
    data: Out<u32>,
    flag: Out<u32>,
    seen: Out<u32>,
    write: u32,
    read: u32,
) {
    let r = block.thread_rank();
    let flags = flag.atomic();
    if r == 0 {
        data.write(0, 42); // warps-data-write
        match write {
            WRITE_RELEASE => flags.with_ordering(Ordering::Release).store(0, 1),
            WRITE_BLOCK_FENCE => {
                fence_block();
                flags.store(0, 1);
            }
            _ => flags.store(0, 1), // warps-flag-relaxed
        }
    } else if r == 32 {
        let load = if read == READ_ACQUIRE {
            Ordering::Acquire
        } else {
            Ordering::Relaxed
        };
        let acquire = flags.with_ordering(load);
        while acquire.load(0) == 0 {}
        seen.write(0, data.read(0)); // warps-data-read
    }
}

#[test]
fn message_passing_between_warps_of_a_block() {
    let (write_line, read_line) = (line_of("warps-data-write"), line_of("warps-data-read"));
    for emulator in [Emulator::new(), Emulator::new().with_schedules(3)] {
        for write in [WRITE_RELEASE, WRITE_BLOCK_FENCE, WRITE_RELAXED] {
            for read in [READ_ACQUIRE, READ_RELAXED] {
                let what = format!("write {write}, read {read}");
                // Within a block any scope holds both threads: a block
                // fence releases, and the reader must acquire.
                let released = write != WRITE_RELAXED;
                let acquired = read == READ_ACQUIRE;
                let (mut data, mut flag, mut seen) = (vec![0u32], vec![0u32], vec![0u32]);
                let result = Cpu::with_emulator(emulator.clone()).launch(
                    message_passing_between_warps,
                    LaunchConfig::new(1, 64),
                    (&mut data, &mut flag, &mut seen, write, read),
                );
                let violation = match result {
                    Ok(_) => {
                        assert!(released && acquired, "{what}: ran clean");
                        assert_eq!(seen, [42], "{what}");
                        continue;
                    }
                    Err(Error::Emulation(e)) => *e.violation,
                    Err(other) => panic!("{what}: {other:?}"),
                };
                match violation {
                    Violation::GlobalRace {
                        buffer,
                        first,
                        second,
                        ..
                    } => {
                        assert!(!acquired, "{what}: {buffer}");
                        assert_eq!(buffer, "data", "{what}");
                        assert_eq!(
                            (first.site.line(), second.site.line()),
                            (write_line, read_line),
                            "{what}"
                        );
                    }
                    Violation::UnreleasedWrite {
                        buffer,
                        write: w,
                        read: r,
                        flag,
                        ..
                    } => {
                        assert!(acquired && !released, "{what}");
                        assert_eq!(buffer, "data", "{what}");
                        assert_eq!((w.site.line(), r.site.line()), (write_line, read_line));
                        assert_eq!(flag.map(|f| f.line()), Some(line_of("warps-flag-relaxed")));
                    }
                    other => panic!("{what}: {other}"),
                }
            }
        }
    }
}

/// Message passing from a whole block: block 0's threads each write an
/// element, then (`publish_first` 0) meet at a block barrier and thread 0
/// raises the flag with a release store, which publishes every thread's
/// write (the barrier orders them before it); or (`publish_first` 1)
/// thread 0 raises the flag first and the writes come after the barrier,
/// published by nothing. Block 1's threads acquire the flag and read the
/// elements.
#[kernel(cooperative)]
pub fn message_passing_by_a_block(
    grid: CooperativeGrid,
    data: Out<u32>,
    flag: Out<u32>,
    sum: Out<u32>,
    publish_first: u32,
) {
    let block = this_thread_block();
    let t = block.thread_rank() as usize;
    let flags = flag.atomic().with_ordering(Ordering::Release);
    if grid.block_rank() == 0 {
        if publish_first == 1 && t == 0 {
            flags.store(0, 1);
        }
        if publish_first == 0 {
            data.write(t, t as u32 + 1); // block-data-write
        }
        block.sync();
        if publish_first == 1 {
            data.write(t, t as u32 + 1); // block-data-late-write
        }
        if publish_first == 0 && t == 0 {
            flags.store(0, 1);
        }
    } else {
        let acquire = flag.atomic().with_ordering(Ordering::Acquire);
        while acquire.load(0) == 0 {}
        sum.atomic().add(0, data.read(t)); // block-data-read
    }
}

#[test]
fn a_release_after_a_barrier_publishes_the_blocks_writes() {
    for emulator in [Emulator::new(), Emulator::new().with_schedules(3)] {
        let (mut data, mut flag, mut sum) = (vec![0u32; 64], vec![0u32], vec![0u32]);
        let result = Cpu::with_emulator(emulator.clone()).launch(
            message_passing_by_a_block,
            LaunchConfig::new(2, 64),
            (&mut data, &mut flag, &mut sum, 0),
        );
        assert!(result.is_ok(), "published after the barrier: {result:?}");
        assert_eq!(sum, [64 * 65 / 2]);
        let (mut data, mut flag, mut sum) = (vec![0u32; 64], vec![0u32], vec![0u32]);
        let result = Cpu::with_emulator(emulator).launch(
            message_passing_by_a_block,
            LaunchConfig::new(2, 64),
            (&mut data, &mut flag, &mut sum, 1),
        );
        let (buffer, write, read, flag) = unreleased_write(result, "written after the flag");
        assert_eq!(buffer, "data");
        assert_eq!(write, line_of("block-data-late-write"));
        assert_eq!(read, line_of("block-data-read"));
        assert_eq!(flag, None, "the flag's store released (too early)");
    }
}

/// The kernels the GPU runs for many rounds (`coop_test_kernels::litmus`),
/// run here for a few: message passing is clean exactly with a release and
/// an acquire and no preload; otherwise the reliance is reported at the
/// data's lines. Store buffering over atomics is clean either way.
#[test]
fn the_gpu_litmus_kernels_are_reported_exactly_where_the_model_allows_a_weak_outcome() {
    use coop_tests::kernels::litmus as k;
    let source = include_str!("kernels/src/litmus.rs");
    let (write_line, read_line) = (
        coop_tests::marked_line(source, "litmus-data-write"),
        coop_tests::marked_line(source, "litmus-data-read"),
    );
    let rounds = 3;
    for write in [k::ORDERED, k::RELAXED] {
        for read in [k::ORDERED, k::RELAXED] {
            for preload in [0, 1] {
                let what = format!("write {write}, read {read}, preload {preload}");
                let (mut data, mut flag, mut ack) = (
                    vec![0u32; k::STRIDE],
                    vec![0u32; k::STRIDE],
                    vec![0u32; k::STRIDE],
                );
                let mut stale = vec![0u32; 1];
                let result = Cpu::new().launch(
                    k::message_passing_rounds,
                    LaunchConfig::new(2, 32),
                    (
                        &mut data, &mut flag, &mut ack, &mut stale, rounds, write, read, preload,
                    ),
                );
                let fine = write == k::ORDERED && read == k::ORDERED && preload == 0;
                match result {
                    Ok(_) => {
                        assert!(fine, "{what}: ran clean");
                        assert_eq!(stale, [0], "{what}");
                    }
                    Err(Error::Emulation(e)) => {
                        assert!(!fine, "{what}: {e}");
                        let lines = match *e.violation {
                            Violation::GlobalRace { first, second, .. } => {
                                [first.site.line(), second.site.line()]
                            }
                            Violation::UnreleasedWrite { write, read, .. } => {
                                [write.site.line(), read.site.line()]
                            }
                            Violation::UnsynchronizedRead {
                                write: w,
                                read: r,
                                gap: SyncGap::RelaxedObserve { .. },
                                ..
                            } => {
                                // Released, then seen by a relaxed load.
                                assert!(write == k::ORDERED && read == k::RELAXED, "{what}: {e}");
                                [w.site.line(), r.site.line()]
                            }
                            other => panic!("{what}: {other}"),
                        };
                        assert!(lines.contains(&write_line), "{what}: {e}");
                        // The preload, or the read after the flag.
                        assert!(preload == 1 || lines.contains(&read_line), "{what}: {e}");
                    }
                    Err(other) => panic!("{what}: {other:?}"),
                }
            }
        }
    }
    for fenced in [0, 1] {
        let (mut flags, mut meet) = (vec![0u32; k::STRIDE], vec![0u32; k::STRIDE]);
        let mut seen = vec![0u32; 2 * rounds as usize];
        let result = Cpu::new().launch(
            k::store_buffering_rounds,
            LaunchConfig::new(2, 32),
            (&mut flags, &mut meet, &mut seen, rounds, fenced),
        );
        assert!(
            result.is_ok(),
            "store buffering, fenced {fenced}: {result:?}"
        );
        // One block at a time: never both older than the round.
        for r in 0..rounds as usize {
            assert!(
                seen[2 * r] > r as u32 || seen[2 * r + 1] > r as u32,
                "{seen:?}"
            );
        }
    }
}

/// Load buffering (LB) between two blocks over atomics: block `b` loads
/// the other's flag, then raises its own. Both loads seeing 1 is allowed
/// by the model for relaxed atomics and never happens when one emulated
/// thread runs at a time; there is no data, so nothing is reported.
#[kernel(cooperative)]
pub fn load_buffering(grid: CooperativeGrid, flags: Out<u32>, saw: Out<u32>) {
    if this_thread_block().thread_rank() != 0 {
        return;
    }
    let b = grid.block_rank();
    let atomics = flags.atomic();
    let other = atomics.load(1 - b);
    atomics.store(b, 1);
    saw.atomic().store(b, other);
}

/// Independent reads of independent writes (IRIW): blocks 0 and 1 each
/// raise one flag; blocks 2 and 3 read both, in opposite orders. Atomics
/// only: any outcome is the model's to allow, nothing is reported.
#[kernel(cooperative)]
pub fn independent_reads(grid: CooperativeGrid, flags: Out<u32>, saw: Out<u32>, acquire: u32) {
    if this_thread_block().thread_rank() != 0 {
        return;
    }
    let b = grid.block_rank();
    let ordering = if acquire == 1 {
        Ordering::Acquire
    } else {
        Ordering::Relaxed
    };
    let atomics = flags.atomic().with_ordering(ordering);
    match b {
        0 | 1 => flags.atomic().store(b, 1),
        _ => {
            let (first, second) = if b == 2 { (0, 1) } else { (1, 0) };
            let a = atomics.load(first);
            let c = atomics.load(second);
            saw.atomic().store(2 * (b - 2), a);
            saw.atomic().store(2 * (b - 2) + 1, c);
        }
    }
}

#[test]
fn load_buffering_and_independent_reads_over_atomics_report_nothing() {
    for (explored, emulator) in [Emulator::new(), Emulator::new().with_schedules(4)]
        .into_iter()
        .enumerate()
    {
        let (mut flags, mut saw) = (vec![0u32; 2], vec![0u32; 2]);
        let result = Cpu::with_emulator(emulator.clone()).launch(
            load_buffering,
            LaunchConfig::new(2, 32),
            (&mut flags, &mut saw),
        );
        assert!(result.is_ok(), "load buffering: {result:?}");
        assert_ne!(saw, [1, 1], "one thread at a time: not both");
        for acquire in [0, 1] {
            let (mut flags, mut saw) = (vec![0u32; 2], vec![0u32; 4]);
            let result = Cpu::with_emulator(emulator.clone()).launch(
                independent_reads,
                LaunchConfig::new(4, 32),
                (&mut flags, &mut saw, acquire),
            );
            assert!(
                result.is_ok(),
                "independent reads, acquire {acquire}: {result:?}"
            );
            // Run one at a time without exploration, the two readers
            // never disagree on the order of the writes (the weak outcome
            // 1,0 / 1,0, which exploration may show:
            // `weak_outcomes_of_atomics_show_under_schedule_exploration`).
            if explored == 0 {
                assert!(
                    !(saw[0] == 1 && saw[1] == 0 && saw[2] == 1 && saw[3] == 0),
                    "{saw:?}"
                );
            }
        }
    }
}

/// Write-to-read causality (WRC) with data: block 0 writes the data and
/// raises flag 0 (`first`: 1 release, 0 relaxed, 2 release); block 1
/// acquires flag 0 and raises flag 1 (with release, but relaxed when
/// `first` is 2); block 2 acquires flag 1 and reads the data. The chain of
/// release and acquire orders the read after the write (causality is
/// transitive in the PTX model); without the first release nothing
/// publishes the data, and a relaxed middle link passes nothing on.
#[kernel(cooperative)]
pub fn write_to_read_causality(
    grid: CooperativeGrid,
    data: Out<u32>,
    flags: Out<u32>,
    seen: Out<u32>,
    first: u32,
) {
    if this_thread_block().thread_rank() != 0 {
        return;
    }
    let release = flags.atomic().with_ordering(Ordering::Release);
    let acquire = flags.atomic().with_ordering(Ordering::Acquire);
    match grid.block_rank() {
        0 => {
            data.write(0, 42); // wrc-data-write
            if first >= 1 {
                release.store(0, 1);
            } else {
                flags.atomic().store(0, 1); // wrc-flag-relaxed
            }
        }
        1 => {
            while acquire.load(0) == 0 {}
            if first == 2 {
                flags.atomic().store(1, 1); // wrc-middle-relaxed
            } else {
                release.store(1, 1);
            }
        }
        _ => {
            while acquire.load(1) == 0 {}
            seen.write(0, data.read(0)); // wrc-data-read
        }
    }
}

#[test]
fn write_to_read_causality_through_a_third_block() {
    for emulator in [Emulator::new(), Emulator::new().with_schedules(4)] {
        let (mut data, mut flags, mut seen) = (vec![0u32], vec![0u32; 2], vec![0u32]);
        let result = Cpu::with_emulator(emulator.clone()).launch(
            write_to_read_causality,
            LaunchConfig::new(3, 32),
            (&mut data, &mut flags, &mut seen, 1),
        );
        assert!(result.is_ok(), "a chain of release and acquire: {result:?}");
        assert_eq!(seen, [42]);
        let (mut data, mut flags, mut seen) = (vec![0u32], vec![0u32; 2], vec![0u32]);
        let result = Cpu::with_emulator(emulator.clone()).launch(
            write_to_read_causality,
            LaunchConfig::new(3, 32),
            (&mut data, &mut flags, &mut seen, 0),
        );
        let (buffer, write, read, flag) = unreleased_write(result, "relaxed first link");
        assert_eq!(buffer, "data");
        assert_eq!(
            (write, read),
            (line_of("wrc-data-write"), line_of("wrc-data-read"))
        );
        assert_eq!(flag, Some(line_of("wrc-flag-relaxed")));
        let (mut data, mut flags, mut seen) = (vec![0u32], vec![0u32; 2], vec![0u32]);
        let result = Cpu::with_emulator(emulator).launch(
            write_to_read_causality,
            LaunchConfig::new(3, 32),
            (&mut data, &mut flags, &mut seen, 2),
        );
        let (write, read, gap) = unsynchronized_read(result, "relaxed middle link");
        assert_eq!(
            (write, read),
            (line_of("wrc-data-write"), line_of("wrc-data-read"))
        );
        assert_eq!(
            gap,
            ("relaxed link", line_of("wrc-middle-relaxed")),
            "the relaxed middle link is named"
        );
    }
}

/// The last-block reduction of CUDA's threadFenceReduction sample: each
/// block's thread 0 writes the block's partial sum, and a counter's update
/// tells the block that updates it last that every partial is there; that
/// block's threads then read all of them, told by a block barrier.
/// `how`: 0 a device fence before the update and one after it (both sides
/// fenced), 1 the update with `AcqRel`, 2 the sample as written (no fence
/// after the update: the last block observes the counter but never
/// acquires), 3 no fence before the update (the fence after it releases
/// the partial, but the counter carries nothing).
#[kernel]
pub fn last_block_sum(
    block: ThreadBlock,
    grid: Grid,
    input: &[u32],
    partials: Out<u32>,
    count: Out<u32>,
    total: Out<u32>,
    how: u32,
) {
    let i = grid.thread_rank();
    let mine = if i < input.len() { input[i] } else { 0 };
    let sum = coop::collectives::reduce(&block, mine, coop::op::Sum);
    let b = grid.block_rank();
    let n = grid.num_blocks() as u32;
    let mut last = false;
    if block.thread_rank() == 0 {
        partials.write(b, sum); // last-partial-write
        let ticket = if how == 1 {
            count
                .atomic()
                .with_ordering(Ordering::AcqRel)
                .fetch_inc(0, n)
        } else {
            if how != 3 {
                fence_device();
            }
            let ticket = count.atomic().fetch_inc(0, n); // last-ticket
            if how != 2 {
                fence_device();
            }
            ticket
        };
        last = ticket == n - 1;
    }
    if block.sync_count(last) > 0 {
        let mut acc = 0;
        let mut j = block.thread_rank() as usize;
        while j < n as usize {
            acc += partials.read(j); // last-partial-read
            j += block.num_threads() as usize;
        }
        let all = coop::collectives::reduce(&block, acc, coop::op::Sum);
        if block.thread_rank() == 0 {
            total.write(0, all);
        }
    }
}

#[test]
fn the_last_block_reads_every_partial_only_after_acquiring_the_counter() {
    let input: Vec<u32> = (0..4096).collect();
    let run = |emulator: &Emulator, how: u32| {
        let (mut partials, mut count, mut total) = (vec![0u32; 16], vec![0u32], vec![0u32]);
        let result = Cpu::with_emulator(emulator.clone()).launch(
            last_block_sum,
            LaunchConfig::new(16, 256),
            (&input[..], &mut partials, &mut count, &mut total, how),
        );
        (result, total[0])
    };
    for emulator in [Emulator::new(), Emulator::new().with_schedules(3)] {
        // Both sides fenced, or the update acquires and releases: clean,
        // though only thread 0 of the last block acquired (the barrier
        // passes it on).
        for how in [0, 1] {
            let (result, total) = run(&emulator, how);
            assert!(result.is_ok(), "how {how}: {result:?}");
            assert_eq!(total, 4095 * 4096 / 2, "how {how}");
        }
        // No fence after the update: the last block saw the counter the
        // others released, relaxed; the report names that update.
        let (result, _) = run(&emulator, 2);
        let (write, read, gap) = unsynchronized_read(result, "no fence after the counter");
        assert_eq!(
            (write, read),
            (line_of("last-partial-write"), line_of("last-partial-read"))
        );
        assert_eq!(gap, ("relaxed observe", line_of("last-ticket")));
        // No fence before it: the fence after the update releases the
        // partial, but not through the counter the last block acquires.
        let (result, _) = run(&emulator, 3);
        let (write, read, gap) = unsynchronized_read(result, "no fence before the counter");
        assert_eq!(
            (write, read),
            (line_of("last-partial-write"), line_of("last-partial-read"))
        );
        assert_eq!(gap, ("no release", 0));
    }
}

/// Block 0 writes `data[0]`, releases flag 0, writes `data[1]` and
/// releases flag 1; block 1 waits for the flag `wait` names and reads the
/// element `read`. Waiting for flag 0 orders only `data[0]`: `data[1]` was
/// written after that release.
#[kernel(cooperative)]
pub fn two_flags(
    grid: CooperativeGrid,
    data: Out<u32>,
    flags: Out<u32>,
    seen: Out<u32>,
    wait: u32,
    read: u32,
) {
    if this_thread_block().thread_rank() != 0 {
        return;
    }
    let release = flags.atomic().with_ordering(Ordering::Release);
    if grid.block_rank() == 0 {
        data.write(0, 1);
        release.store(0, 1);
        data.write(1, 2); // two-flags-late-write
        release.store(1, 1);
    } else {
        let acquire = flags.atomic().with_ordering(Ordering::Acquire);
        while acquire.load(wait as usize) == 0 {}
        seen.write(0, data.read(read as usize)); // two-flags-read
    }
}

#[test]
fn an_acquire_orders_only_what_its_release_came_after() {
    for emulator in [Emulator::new(), Emulator::new().with_schedules(3)] {
        for (wait, read, fine) in [(0, 0, true), (1, 0, true), (1, 1, true), (0, 1, false)] {
            let (mut data, mut flags, mut seen) = (vec![0u32; 2], vec![0u32; 2], vec![0u32]);
            let result = Cpu::with_emulator(emulator.clone()).launch(
                two_flags,
                LaunchConfig::new(2, 32),
                (&mut data, &mut flags, &mut seen, wait, read),
            );
            let what = format!("waits for flag {wait}, reads data[{read}]");
            if fine {
                assert!(result.is_ok(), "{what}: {result:?}");
                assert_eq!(seen, [read + 1], "{what}");
            } else {
                let (write, read_line, gap) = unsynchronized_read(result, &what);
                assert_eq!(
                    (write, read_line),
                    (line_of("two-flags-late-write"), line_of("two-flags-read")),
                    "{what}"
                );
                assert_eq!(gap, ("no release", 0), "{what}");
            }
        }
    }
}

/// Message passing over atomics only: block 0 stores the data atomically
/// (relaxed), then raises the flag (`release`: with release ordering, else
/// relaxed); block 1 waits for the flag with an acquire load and loads the
/// data atomically. Nothing races, so nothing is reported; with a relaxed
/// flag the model lets the data's load return the old value.
#[kernel(cooperative)]
pub fn message_passing_over_atomics(
    grid: CooperativeGrid,
    data: Out<u32>,
    flag: Out<u32>,
    seen: Out<u32>,
    release: u32,
) {
    if this_thread_block().thread_rank() != 0 {
        return;
    }
    if grid.block_rank() == 0 {
        data.atomic().store(0, 42);
        let ordering = if release == 1 {
            Ordering::Release
        } else {
            Ordering::Relaxed
        };
        flag.atomic().with_ordering(ordering).store(0, 1);
    } else {
        let acquire = flag.atomic().with_ordering(Ordering::Acquire);
        while acquire.load(0) == 0 {}
        seen.write(0, data.atomic().load(0));
    }
}

#[test]
fn weak_outcomes_of_atomics_show_under_schedule_exploration() {
    let seeds = 1..=48u64;
    let explore = |seed: u64| Cpu::with_emulator(Emulator::new().with_schedule_seed(seed));
    // Message passing: with a relaxed flag some schedules read the old
    // data; with release and acquire none does.
    for release in [0, 1] {
        let mut stale = 0;
        for seed in seeds.clone() {
            let (mut data, mut flag, mut seen) = (vec![0u32], vec![0u32], vec![0u32]);
            let result = explore(seed).launch(
                message_passing_over_atomics,
                LaunchConfig::new(2, 32),
                (&mut data, &mut flag, &mut seen, release),
            );
            assert!(result.is_ok(), "release {release}, seed {seed}: {result:?}");
            assert!(seen[0] == 42 || seen[0] == 0, "{seen:?}");
            stale += (seen[0] == 0) as u32;
        }
        eprintln!(
            "message passing over atomics, release {release}: old data in {stale} of {} schedules",
            seeds.clone().count()
        );
        if release == 1 {
            assert_eq!(stale, 0, "release and acquire order the data");
        } else {
            assert!(stale > 0, "a relaxed flag: the weak outcome never showed");
        }
    }
    // Store buffering: unfenced, some schedules see neither flag; with a
    // device fence (`membar.gl`, sequentially consistent) between, none.
    for fenced in [0, 1] {
        let mut both_old = 0;
        for seed in seeds.clone() {
            let (mut flags, mut saw) = (vec![0u32; 2], vec![0u32; 2]);
            let result = explore(seed).launch(
                store_buffering,
                LaunchConfig::new(2, 32),
                (&mut flags, &mut saw, fenced),
            );
            assert!(result.is_ok(), "fenced {fenced}, seed {seed}: {result:?}");
            both_old += (saw == [0, 0]) as u32;
        }
        eprintln!(
            "store buffering, fenced {fenced}: both loads old in {both_old} of {} schedules",
            seeds.clone().count()
        );
        if fenced == 1 {
            assert_eq!(both_old, 0, "fences between forbid it");
        } else {
            assert!(both_old > 0, "unfenced: the weak outcome never showed");
        }
    }
    // Independent reads of independent writes with relaxed loads: the two
    // readers may disagree on the order of the writes.
    let mut disagree = 0;
    for seed in seeds.clone() {
        let (mut flags, mut saw) = (vec![0u32; 2], vec![0u32; 4]);
        let result = explore(seed).launch(
            independent_reads,
            LaunchConfig::new(4, 32),
            (&mut flags, &mut saw, 0),
        );
        assert!(result.is_ok(), "seed {seed}: {result:?}");
        disagree += (saw == [1, 0, 1, 0]) as u32;
    }
    eprintln!(
        "independent reads: the readers disagree in {disagree} of {} schedules",
        seeds.count()
    );
    assert!(disagree > 0, "relaxed loads: the weak outcome never showed");
}

/// Message passing at the cluster's scope, in a launch in clusters of two:
/// block 0 writes the data and raises the flag with release at the
/// cluster's scope; the reader (block 1, of the same cluster, or block 2,
/// of the next, when `across` is 1) waits for it with an acquire at the
/// cluster's scope and reads the data. Within the cluster the pair orders
/// the read; across clusters neither atomic reaches the other block.
#[kernel]
pub fn message_passing_in_a_cluster(
    grid: Grid,
    data: Out<u32>,
    flag: Out<u32>,
    seen: Out<u32>,
    across: u32,
) {
    if this_thread_block().thread_rank() != 0 {
        return;
    }
    let flags = flag.atomic().with_scope(Scope::Cluster);
    let reader = if across == 1 { 2 } else { 1 };
    let b = grid.block_rank();
    if b == 0 {
        data.write(0, 42);
        flags.with_ordering(Ordering::Release).store(0, 1); // cluster-flag-store
    } else if b == reader {
        let acquire = flags.with_ordering(Ordering::Acquire);
        while acquire.load(0) == 0 {} // cluster-flag-load
        seen.write(0, data.read(0));
    }
}

/// Every block's thread 0 adds one to `counts[slot]` at the cluster's
/// scope, `slot` being its cluster's index (`per_cluster`) or 0.
#[kernel]
pub fn count_at_the_cluster_scope(grid: Grid, counts: Out<u32>, per_cluster: u32) {
    if this_thread_block().thread_rank() != 0 {
        return;
    }
    let slot = if per_cluster == 1 {
        grid.block_rank() / 2
    } else {
        0
    };
    counts.atomic().with_scope(Scope::Cluster).add(slot, 1); // cluster-count
}

#[test]
fn the_cluster_scope_orders_and_is_atomic_within_a_cluster_only() {
    for emulator in [Emulator::new(), Emulator::new().with_schedules(3)] {
        let cpu = Cpu::with_emulator(emulator);
        let clusters = LaunchConfig::new(4, 32).with_cluster(2);
        let (mut data, mut flag, mut seen) = (vec![0u32], vec![0u32], vec![0u32]);
        let result = cpu.launch(
            message_passing_in_a_cluster,
            clusters,
            (&mut data, &mut flag, &mut seen, 0),
        );
        assert!(result.is_ok(), "within a cluster: {result:?}");
        assert_eq!(seen, [42]);
        // Across clusters the release reaches nothing: the data's read is
        // reported, naming the release at the cluster's scope (the flag's
        // atomics race too, found once the reader's cluster is merged).
        let (mut data, mut flag, mut seen) = (vec![0u32], vec![0u32], vec![0u32]);
        let result = cpu.launch(
            message_passing_in_a_cluster,
            clusters,
            (&mut data, &mut flag, &mut seen, 1),
        );
        let Err(Error::Emulation(e)) = result else {
            panic!("across clusters: expected a race, got {result:?}")
        };
        match &*e.violation {
            Violation::UnsynchronizedRead {
                buffer,
                gap: SyncGap::ClusterRelease { release },
                ..
            } => {
                assert_eq!(*buffer, "data", "{e}");
                assert_eq!(release.line(), line_of("cluster-flag-store"), "{e}");
            }
            Violation::GlobalRace {
                buffer,
                first,
                second,
                ..
            } => {
                assert_eq!(*buffer, "flag", "{e}");
                let lines = [first.site.line(), second.site.line()];
                assert!(
                    lines.contains(&line_of("cluster-flag-store"))
                        && lines.contains(&line_of("cluster-flag-load")),
                    "{e}"
                );
            }
            _ => panic!("across clusters: {e}"),
        }
        assert!(e.to_string().contains("`Scope::Cluster`"), "{e}");
        // A counter per cluster is fine; one for the whole launch races.
        let mut counts = vec![0u32; 2];
        let result = cpu.launch(count_at_the_cluster_scope, clusters, (&mut counts, 1));
        assert!(result.is_ok(), "a counter per cluster: {result:?}");
        assert_eq!(counts, [2, 2]);
        let mut counts = vec![0u32; 2];
        let result = cpu.launch(count_at_the_cluster_scope, clusters, (&mut counts, 0));
        let Err(Error::Emulation(e)) = result else {
            panic!("one counter: expected a race, got {result:?}")
        };
        assert!(
            matches!(
                &*e.violation,
                Violation::GlobalRace {
                    buffer: "counts",
                    ..
                }
            ),
            "{e}"
        );
        // Without clusters each block is a cluster of its own.
        let mut counts = vec![0u32; 2];
        let result = cpu.launch(
            count_at_the_cluster_scope,
            LaunchConfig::new(2, 32),
            (&mut counts, 0),
        );
        let Err(Error::Emulation(e)) = result else {
            panic!("no clusters: expected a race, got {result:?}")
        };
        assert!(
            e.to_string().contains("`Scope::Cluster` is the block's"),
            "{e}"
        );
    }
}

#[test]
fn the_gpu_cluster_litmus_kernel_is_reported_exactly_where_the_model_allows_a_weak_outcome() {
    use coop_tests::kernels::litmus as k;
    let rounds = 3;
    let source = include_str!("kernels/src/litmus.rs");
    let (write_line, read_line) = (
        coop_tests::marked_line(source, "cluster-rounds-write"),
        coop_tests::marked_line(source, "cluster-rounds-read"),
    );
    for how in [0, 1, 2] {
        let (mut data, mut flag, mut ack) = (
            vec![0u32; 2 * k::STRIDE],
            vec![0u32; 2 * k::STRIDE],
            vec![0u32; 2 * k::STRIDE],
        );
        let mut stale = vec![0u32; 2];
        let result = Cpu::new().launch(
            k::message_passing_in_clusters,
            LaunchConfig::new(4, 32).with_cluster(2),
            (&mut data, &mut flag, &mut ack, &mut stale, rounds, how),
        );
        if how == 0 {
            let Err(Error::Emulation(e)) = result else {
                panic!("a relaxed flag: expected a report, got {result:?}")
            };
            let Violation::GlobalRace { first, second, .. } = &*e.violation else {
                panic!("a relaxed flag: {e}")
            };
            assert_eq!(
                (first.site.line(), second.site.line()),
                (write_line, read_line),
                "{e}"
            );
        } else {
            assert!(result.is_ok(), "how {how}: {result:?}");
            assert_eq!(stale, [0, 0]);
        }
    }
}

/// Write after read, ordered: block `reader` acquires a flag nobody
/// raised yet (so its later reads follow a flag protocol), reads `data[0]`
/// as the host left it and releases `flags[1]`; the other block waits for
/// it with an acquire, then overwrites `data[0]` and releases `flags[0]`.
/// The write comes after the read through the reader's release: no race,
/// whichever block reads.
#[kernel(cooperative)]
pub fn write_after_an_ordered_read(
    grid: CooperativeGrid,
    data: Out<u32>,
    flags: Out<u32>,
    seen: Out<u32>,
    reader: u32,
) {
    if this_thread_block().thread_rank() != 0 {
        return;
    }
    let release = flags.atomic().with_ordering(Ordering::Release);
    let acquire = flags.atomic().with_ordering(Ordering::Acquire);
    if grid.block_rank() == reader as usize {
        let _ = acquire.load(0);
        seen.write(0, data.read(0));
        release.store(1, 1);
    } else {
        while acquire.load(1) == 0 {}
        data.write(0, 5);
        release.store(0, 1);
    }
}

#[test]
fn a_write_ordered_after_an_earlier_blocks_read_is_not_reported() {
    for emulator in [Emulator::new(), Emulator::new().with_schedules(3)] {
        for reader in [0, 1] {
            let (mut data, mut flags, mut seen) = (vec![7u32], vec![0u32; 2], vec![0u32]);
            let result = Cpu::with_emulator(emulator.clone()).launch(
                write_after_an_ordered_read,
                LaunchConfig::new(2, 32),
                (&mut data, &mut flags, &mut seen, reader),
            );
            assert!(result.is_ok(), "reader {reader}: {result:?}");
            assert_eq!((data, seen), (vec![5], vec![7]), "reader {reader}");
        }
    }
}

/// The GPU suite's litmus kernels over atomics only (load buffering,
/// coherence of two reads, IRIW, write-to-read causality), run as
/// `tests/gpu.rs` runs them, on one group of blocks under explored
/// schedules: no report (there is no plain data), and never an outcome
/// the model forbids; the allowed weak outcomes that the CPU backend can
/// produce (a load returning an older value, never a later one) are
/// counted.
/// Launches one litmus kernel on a CPU backend with its words, meeting
/// counters and observations.
type Launch<'a> = dyn Fn(Cpu, &mut Vec<u32>, &mut Vec<u32>, &mut Vec<u32>) -> Result<coop_host::Report, Error>
    + 'a;

#[test]
fn the_gpu_litmus_kernels_over_atomics_show_only_what_the_model_allows() {
    use coop_tests::kernels::litmus as k;
    let seeds = 1..=24u64;
    let rounds = 3u32;
    // Runs `kernel`'s group of `blocks` under every seed; what each round
    // saw, `per_round` words a round.
    let run = |blocks: u32, per_round: usize, launch: &Launch<'_>| {
        let mut all = Vec::new();
        for seed in seeds.clone() {
            let (mut words, mut meet) = (vec![0u32; k::STRIDE], vec![0u32; k::STRIDE]);
            let mut seen = vec![0u32; per_round * rounds as usize];
            let cpu = Cpu::with_emulator(Emulator::new().with_schedule_seed(seed));
            let result = launch(cpu, &mut words, &mut meet, &mut seen);
            assert!(result.is_ok(), "{blocks} blocks, seed {seed}: {result:?}");
            all.extend(seen.chunks(per_round).map(|c| c.to_vec()));
        }
        all
    };
    let round = |i: usize| (i % rounds as usize) as u32 + 1;
    let total = seeds.clone().count() * rounds as usize;
    for ordered in [k::RELAXED, k::ORDERED] {
        let seen = run(2, 2, &|cpu, w, m, o| {
            cpu.launch(
                k::load_buffering_rounds,
                LaunchConfig::new(2, 32),
                (w, m, o, rounds, ordered),
            )
        });
        let weak = seen
            .iter()
            .enumerate()
            .filter(|(i, v)| v[0] == round(*i) && v[1] == round(*i))
            .count();
        eprintln!(
            "LB, ordered {ordered}: both loads saw the later store in {weak} of {total} rounds"
        );
        assert_eq!(weak, 0, "a load never returns a later store here");
    }
    let seen = run(2, 2, &|cpu, w, m, o| {
        cpu.launch(
            k::coherence_rounds,
            LaunchConfig::new(2, 32),
            (w, m, o, rounds),
        )
    });
    let weak = seen.iter().filter(|v| v[1] < v[0]).count();
    eprintln!("CoRR: second load older in {weak} of {total} rounds");
    assert_eq!(
        weak, 0,
        "coherence: a thread that saw a write never sees an older one"
    );
    for fenced in [0, 1] {
        let seen = run(4, 4, &|cpu, w, m, o| {
            cpu.launch(
                k::independent_reads_rounds,
                LaunchConfig::new(4, 32),
                (w, m, o, rounds, fenced),
            )
        });
        let weak = seen
            .iter()
            .enumerate()
            .filter(|(i, v)| {
                let r = round(*i);
                v[0] == r && v[1] < r && v[2] == r && v[3] < r
            })
            .count();
        eprintln!("IRIW, fenced {fenced}: the readers disagreed in {weak} of {total} rounds");
        if fenced == 1 {
            assert_eq!(weak, 0, "fences between the loads forbid it");
        }
    }
    for release in [0, 1] {
        let seen = run(3, 1, &|cpu, w, m, o| {
            cpu.launch(
                k::causality_rounds,
                LaunchConfig::new(3, 32),
                (w, m, o, rounds, release),
            )
        });
        let weak = seen
            .iter()
            .enumerate()
            .filter(|(i, v)| v[0] < round(*i))
            .count();
        eprintln!("WRC, release {release}: x read old in {weak} of {total} rounds");
        if release == 1 {
            assert_eq!(
                weak, 0,
                "the middle block's release carries what it observed"
            );
        }
    }
}

/// A block's thread 0 waits until it sees another block's relaxed store,
/// then the block meets at a barrier and thread 1 loads the same word
/// (relaxed) into `saw`.
#[kernel]
pub fn observed_before_a_barrier(block: ThreadBlock, grid: Grid, word: Out<u32>, saw: Out<u32>) {
    let x = word.atomic();
    if grid.block_rank() == 0 {
        if block.thread_rank() == 0 {
            x.store(0, 1);
        }
        return;
    }
    if block.thread_rank() == 0 {
        while x.load(0) == 0 {}
    }
    block.sync();
    if block.thread_rank() == 1 {
        saw.write(0, x.load(0));
    }
}

#[test]
fn what_a_thread_observed_before_a_barrier_its_block_never_reads_older() {
    // The barrier orders thread 0's load, which saw the store, before
    // thread 1's: coherence forbids thread 1 the old value, under every
    // explored schedule.
    for seed in 1..=24u64 {
        let (mut word, mut saw) = (vec![0u32], vec![7u32]);
        let result = Cpu::with_emulator(Emulator::new().with_schedule_seed(seed)).launch(
            observed_before_a_barrier,
            LaunchConfig::new(2, 32),
            (&mut word, &mut saw),
        );
        assert!(result.is_ok(), "seed {seed}: {result:?}");
        assert_eq!(saw, [1], "seed {seed}");
    }
}

/// How [`fenced_message_passing_in_clusters`]'s writer releases and its
/// reader acquires.
const FENCE_CLUSTER: u32 = 0;
const FENCE_DEVICE: u32 = 1;
const LOAD_ACQUIRE: u32 = 2;

/// Message passing through a flag at the device's scope, in a launch in
/// clusters of two: block 0 writes the data, fences (`write`: at the
/// cluster's or the device's scope) and stores the flag relaxed; the reader
/// (block 1, of the same cluster, or block 2, of the next, when `across` is
/// 1) waits for the flag (`read`: relaxed, then a fence at the cluster's or
/// the device's scope; or an acquire load) and reads the data.
#[kernel]
pub fn fenced_message_passing_in_clusters(
    grid: Grid,
    data: Out<u32>,
    flag: Out<u32>,
    seen: Out<u32>,
    write: u32,
    read: u32,
    across: u32,
) {
    if this_thread_block().thread_rank() != 0 {
        return;
    }
    let flags = flag.atomic();
    let reader = if across == 1 { 2 } else { 1 };
    let b = grid.block_rank();
    if b == 0 {
        data.write(0, 42); // fenced-data-write
        if write == FENCE_CLUSTER {
            coop::memory::fence_cluster(); // writer-cluster-fence
        } else {
            fence_device();
        }
        flags.store(0, 1);
    } else if b == reader {
        if read == LOAD_ACQUIRE {
            let acquire = flags.with_ordering(Ordering::Acquire);
            while acquire.load(0) == 0 {}
        } else {
            while flags.load(0) == 0 {}
            if read == FENCE_CLUSTER {
                coop::memory::fence_cluster(); // reader-cluster-fence
            } else {
                fence_device();
            }
        }
        seen.write(0, data.read(0)); // fenced-data-read
    }
}

#[test]
fn a_fence_at_the_cluster_scope_orders_the_blocks_of_its_cluster_only() {
    let (write_line, read_line) = (line_of("fenced-data-write"), line_of("fenced-data-read"));
    for emulator in [Emulator::new(), Emulator::new().with_schedules(3)] {
        let cpu = Cpu::with_emulator(emulator);
        for write in [FENCE_CLUSTER, FENCE_DEVICE] {
            for read in [FENCE_CLUSTER, FENCE_DEVICE, LOAD_ACQUIRE] {
                for across in [0, 1] {
                    let what = format!("writer {write}, reader {read}, across clusters {across}");
                    let (mut data, mut flag, mut seen) = (vec![0u32], vec![0u32], vec![0u32]);
                    let result = cpu.launch(
                        fenced_message_passing_in_clusters,
                        LaunchConfig::new(4, 32).with_cluster(2),
                        (&mut data, &mut flag, &mut seen, write, read, across),
                    );
                    // Within a cluster every pair orders; across clusters
                    // only a fence at the device's scope on the writer's
                    // side and one (or an acquire) on the reader's.
                    let ordered = across == 0 || (write == FENCE_DEVICE && read != FENCE_CLUSTER);
                    if ordered {
                        assert!(result.is_ok(), "{what}: {result:?}");
                        assert_eq!(seen, [42], "{what}");
                        continue;
                    }
                    let Err(Error::Emulation(e)) = result else {
                        panic!("{what}: expected a report, got {result:?}")
                    };
                    let Violation::UnsynchronizedRead {
                        buffer,
                        write: w,
                        read: r,
                        gap,
                        ..
                    } = &*e.violation
                    else {
                        panic!("{what}: {e}")
                    };
                    assert_eq!(*buffer, "data", "{what}");
                    assert_eq!(
                        (w.site.line(), r.site.line()),
                        (write_line, read_line),
                        "{what}"
                    );
                    let text = e.to_string();
                    match gap {
                        SyncGap::ClusterRelease { release } => {
                            assert_eq!(write, FENCE_CLUSTER, "{what}");
                            assert_eq!(release.line(), line_of("writer-cluster-fence"), "{what}");
                            assert!(text.contains("fence_device()"), "{text}");
                        }
                        SyncGap::ClusterFence { fence } => {
                            assert_eq!((write, read), (FENCE_DEVICE, FENCE_CLUSTER), "{what}");
                            assert_eq!(fence.line(), line_of("reader-cluster-fence"), "{what}");
                            assert!(text.contains("cluster's scope"), "{text}");
                        }
                        other => panic!("{what}: {other:?}: {text}"),
                    }
                }
            }
        }
    }
}

/// Cumulativity through a cluster's sync: block 0 writes the data; (with
/// `synced` 1 or 2) the cluster syncs; block 1, of the same cluster,
/// releases the flag at the device's scope; block 2, of the next cluster,
/// acquires it and reads the data (with `synced` 2: the cluster syncs
/// again and block 3, of block 2's cluster, reads it). The first sync
/// orders block 0's write before block 1's release, which publishes it,
/// and the second passes block 2's acquire on to block 3; without the
/// syncs nothing does.
#[kernel]
pub fn release_after_a_cluster_sync(
    cluster: Cluster,
    data: Out<u32>,
    flag: Out<u32>,
    seen: Out<u32>,
    synced: u32,
) {
    let b = this_grid().block_rank();
    let first = this_thread_block().thread_rank() == 0;
    if b == 0 && first {
        data.write(0, 42); // cumulative-write
    }
    if synced >= 1 {
        cluster.sync();
    }
    if b == 1 && first {
        flag.atomic().with_ordering(Ordering::Release).store(0, 1);
    }
    if b == 2 && first {
        let acquire = flag.atomic().with_ordering(Ordering::Acquire);
        while acquire.load(0) == 0 {}
    }
    if synced == 2 {
        cluster.sync();
    }
    let reader = if synced == 2 { 3 } else { 2 };
    if b == reader && first {
        seen.write(0, data.read(0)); // cumulative-read
    }
}

#[test]
fn a_release_after_a_cluster_sync_publishes_the_clusters_writes() {
    for emulator in [Emulator::new(), Emulator::new().with_schedules(3)] {
        let cpu = Cpu::with_emulator(emulator);
        let config = LaunchConfig::new(4, 32).with_cluster(2);
        let (mut data, mut flag, mut seen) = (vec![0u32], vec![0u32], vec![0u32]);
        let result = cpu.launch(
            release_after_a_cluster_sync,
            config,
            (&mut data, &mut flag, &mut seen, 1),
        );
        assert!(result.is_ok(), "with the cluster sync: {result:?}");
        assert_eq!(seen, [42]);
        let (mut data, mut flag, mut seen) = (vec![0u32], vec![0u32], vec![0u32]);
        let result = cpu.launch(
            release_after_a_cluster_sync,
            config,
            (&mut data, &mut flag, &mut seen, 2),
        );
        assert!(result.is_ok(), "read by the acquirer's cluster: {result:?}");
        assert_eq!(seen, [42]);
        let (mut data, mut flag, mut seen) = (vec![0u32], vec![0u32], vec![0u32]);
        let result = cpu.launch(
            release_after_a_cluster_sync,
            config,
            (&mut data, &mut flag, &mut seen, 0),
        );
        let Err(Error::Emulation(e)) = result else {
            panic!("without the cluster sync: expected a report, got {result:?}")
        };
        let (w, r) = match &*e.violation {
            Violation::GlobalRace { first, second, .. } => (first.site.line(), second.site.line()),
            Violation::UnreleasedWrite { write, read, .. } => (write.site.line(), read.site.line()),
            _ => panic!("without the cluster sync: {e}"),
        };
        assert_eq!(
            (w, r),
            (line_of("cumulative-write"), line_of("cumulative-read")),
            "{e}"
        );
    }
}
