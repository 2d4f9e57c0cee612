//! Segmented sorts checked against the host's stable sort of each
//! segment, on any device: every built-in key type ascending and
//! descending; segments of every class (empty, one key, a thread's, a
//! warp's, a block's, several tiles: one merge pass and several), alone
//! and mixed, with keys outside every segment that must stay as they are;
//! `u32` and `u64` offsets; the key patterns of the radix sort's tests
//! (random, few distinct, all equal, sorted, reversed, NaNs and signed
//! zeros); 4-byte indices (the permutation, stable) and 8-byte values;
//! other block sizes; both routes of the long segments (merging, and a
//! block a segment by radix); and the errors of a bad call.

use crate::sort_cases::{patterns, TestKey};
use crate::Rng;
use coop_host::sort::{LongSegments, Order, SegmentedSorter};
use coop_host::{Device, Error};

/// A layout of segments over `n` keys: the offsets, with a name.
pub struct Layout {
    pub name: String,
    pub offsets: Vec<u64>,
}

/// Offsets of consecutive segments with lengths drawn by `len`, from
/// `start` until `end` (the last segment cut there).
fn consecutive(start: usize, end: usize, mut len: impl FnMut() -> usize) -> Vec<u64> {
    let mut offsets = vec![start as u64];
    let mut at = start;
    while at < end {
        at = (at + len()).min(end);
        offsets.push(at as u64);
    }
    offsets
}

/// Layouts of segments over `n` keys, with the tile of a block of the
/// sorter under test (`tile`: the longest segment a block sorts alone).
pub fn layouts(n: usize, tile: usize, rng: &mut Rng) -> Vec<Layout> {
    let mut out = Vec::new();
    let mut push = |name: &str, offsets: Vec<u64>| {
        out.push(Layout {
            name: name.to_string(),
            offsets,
        })
    };
    push("one segment", vec![0, n as u64]);
    let mut r = Rng::new(rng.next_u64());
    push(
        "a thread's: 0 to 8 keys",
        consecutive(0, n, || (r.next_u64() % 9) as usize),
    );
    let mut r = Rng::new(rng.next_u64());
    push(
        "a warp's: 9 to 256 keys",
        consecutive(0, n, || 9 + (r.next_u64() % 248) as usize),
    );
    let mut r = Rng::new(rng.next_u64());
    push(
        "a block's: 257 keys to the tile",
        consecutive(0, n, || 257 + (r.next_u64() as usize % (tile - 256))),
    );
    let mut r = Rng::new(rng.next_u64());
    push(
        "mixed, with holes: keys before, between and after the segments",
        {
            // Every class, with a gap of keys outside every segment
            // after some: segment s is [offsets[s], offsets[s + 1]), so a
            // gap is an empty-looking jump that belongs to segment s.
            // Holes are made by starting late and ending early.
            let lo = n / 17;
            let hi = n - n / 13;
            consecutive(lo, hi, || match r.next_u64() % 10 {
                0 => 0,
                1..=4 => (r.next_u64() % 9) as usize,
                5..=7 => 9 + (r.next_u64() % 248) as usize,
                8 => 257 + (r.next_u64() as usize % (tile - 256)),
                _ => tile + 1 + (r.next_u64() as usize % (3 * tile)),
            })
        },
    );
    if n > tile {
        // Long segments: one past the tile (one merge pass), several
        // tiles not a power of two (passes merging with nothing), and the
        // rest.
        let mut offsets = vec![0u64];
        let mut at = 0;
        for len in [tile + 1, 5 * tile + 3, 2 * tile] {
            if at + len >= n {
                break;
            }
            at += len;
            offsets.push(at as u64);
        }
        offsets.push(n as u64);
        push("long: several tiles", offsets);
    }
    out
}

/// The host's answer: each segment of `keys` stably sorted in `order`, as
/// the permutation of all of `keys` (identity outside the segments).
pub fn host_permutation<K: TestKey>(keys: &[K], offsets: &[u64], order: Order) -> Vec<usize> {
    let mut index: Vec<usize> = (0..keys.len()).collect();
    for w in offsets.windows(2) {
        let (a, b) = (w[0] as usize, w[1] as usize);
        index[a..b].sort_by(|&x, &y| match order {
            Order::Ascending => keys[x].order(&keys[y]),
            Order::Descending => keys[y].order(&keys[x]),
        });
    }
    index
}

fn check_keys<K: TestKey>(got: &[K], keys: &[K], index: &[usize], case: &str) {
    assert_eq!(got.len(), keys.len(), "{case}: length");
    for (i, (g, &from)) in got.iter().zip(index).enumerate() {
        assert!(
            g.same(&keys[from]),
            "{case}: key {i} is {g:?}, the host's stable sort of its segment has {:?}",
            keys[from]
        );
    }
}

/// One layout and key pattern, both orders: keys alone, keys with their
/// indices (`u32` offsets), keys with 8-byte values (`u64` offsets).
fn check_case<K: TestKey>(
    device: &Device,
    sorter: &SegmentedSorter,
    keys: &[K],
    layout: &Layout,
    case: &str,
    values_too: bool,
) -> usize {
    let n = keys.len();
    let offsets32: Vec<u32> = layout.offsets.iter().map(|&o| o as u32).collect();
    let o32 = device.upload(&offsets32).unwrap();
    let o64 = device.upload(&layout.offsets).unwrap();
    let mut calls = 0;
    for order in [Order::Ascending, Order::Descending] {
        let index = host_permutation(keys, &layout.offsets, order);
        let case = format!("{case}, {order:?}");
        let mut kb = device.upload(keys).unwrap();
        match order {
            Order::Ascending => sorter.keys(&mut kb, &o32).unwrap(),
            Order::Descending => sorter.keys_descending(&mut kb, &o32).unwrap(),
        }
        check_keys(&device.download(&kb).unwrap(), keys, &index, &case);
        calls += 1;
        if !values_too {
            continue;
        }
        let ids: Vec<u32> = (0..n as u32).collect();
        let mut kb = device.upload(keys).unwrap();
        let mut vb = device.upload(&ids).unwrap();
        match order {
            Order::Ascending => sorter.pairs(&mut kb, &mut vb, &o32).unwrap(),
            Order::Descending => sorter.pairs_descending(&mut kb, &mut vb, &o32).unwrap(),
        }
        let got: Vec<usize> = device
            .download(&vb)
            .unwrap()
            .into_iter()
            .map(|i| i as usize)
            .collect();
        if let Some(i) = (0..n).find(|&i| got[i] != index[i]) {
            panic!(
                "{case}: value {i} (an index) is {}, the host's stable permutation has {}",
                got[i], index[i]
            );
        }
        check_keys(&device.download(&kb).unwrap(), keys, &index, &case);
        let values: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 - 3.0).collect();
        let mut kb = device.upload(keys).unwrap();
        let mut vb = device.upload(&values).unwrap();
        match order {
            Order::Ascending => sorter.pairs(&mut kb, &mut vb, &o64).unwrap(),
            Order::Descending => sorter.pairs_descending(&mut kb, &mut vb, &o64).unwrap(),
        }
        let want: Vec<f64> = index.iter().map(|&i| values[i]).collect();
        assert!(
            device.download(&vb).unwrap() == want,
            "{case}: 8-byte values (u64 offsets)"
        );
        calls += 2;
    }
    calls
}

/// Every layout and pattern of `K` over `n` keys.
fn check_type<K: TestKey>(
    device: &Device,
    sorter: &SegmentedSorter,
    tile: usize,
    n: usize,
    seed: u64,
) -> usize {
    let mut rng = Rng::new(seed);
    let name = std::any::type_name::<K>();
    let mut calls = 0;
    for layout in layouts(n, tile, &mut rng) {
        for (pattern, keys) in patterns::<K>(n, &mut rng) {
            // Every pattern on the mixed layout; the random keys on the
            // others, with values.
            let mixed = layout.name.starts_with("mixed");
            if !mixed && pattern != "random" && pattern != "five distinct keys" {
                continue;
            }
            let case = format!(
                "{n} {name} keys in segments \"{}\" ({} segments), {pattern}, long segments by {:?}",
                layout.name,
                layout.offsets.len() - 1,
                sorter.long_segments()
            );
            calls += check_case(
                device,
                sorter,
                &keys,
                &layout,
                &case,
                pattern != "all equal",
            );
        }
    }
    calls
}

/// The errors of bad calls, the same on every device; the keys are
/// untouched by each.
fn check_errors(device: &Device, sorter: &SegmentedSorter) {
    let mut keys = device.upload(&[3u32, 1, 2, 9, 4]).unwrap();
    for (offsets, segment) in [
        (vec![0u32, 3, 2, 5], 1),
        (vec![0u32, 2, 6], 1),
        (vec![4u32, 5, 5, 1], 2),
    ] {
        let o = device.upload(&offsets).unwrap();
        let err = sorter.keys(&mut keys, &o).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument { call: "SegmentedSorter::keys", problem }
                if problem.contains(&format!("segment {segment}:"))),
            "offsets {offsets:?}: {err}"
        );
    }
    let mut values = device.upload(&[1u64, 2]).unwrap();
    let o = device.upload(&[0u32, 5]).unwrap();
    let err = sorter.pairs(&mut keys, &mut values, &o).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { call: "SegmentedSorter::pairs", problem }
            if problem.contains("values hold 2") && problem.contains("keys 5")),
        "{err}"
    );
    for threads in [32, 100, 544] {
        let err = SegmentedSorter::new(device)
            .unwrap()
            .with_block_threads(threads)
            .unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    }
    assert_eq!(device.download(&keys).unwrap(), [3, 1, 2, 9, 4]);
    // No segments, and segments of at most one key: nothing to do.
    let empty = device.upload::<u64>(&[]).unwrap();
    sorter.keys(&mut keys, &empty).unwrap();
    let ones = device.upload(&[0u64, 1, 1, 2]).unwrap();
    sorter.keys(&mut keys, &ones).unwrap();
    assert_eq!(device.download(&keys).unwrap(), [3, 1, 2, 9, 4]);
}

/// The radix route takes blocks of 256 threads or more, whichever is set
/// first; other routes any block.
fn check_route_errors(device: &Device) {
    let err = SegmentedSorter::new(device)
        .unwrap()
        .with_block_threads(128)
        .unwrap()
        .with_long_segments(LongSegments::Radix)
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { call: "SegmentedSorter::with_long_segments", problem }
            if problem.contains("128 threads") && problem.contains("256")),
        "{err}"
    );
    let err = SegmentedSorter::new(device)
        .unwrap()
        .with_long_segments(LongSegments::Radix)
        .unwrap()
        .with_block_threads(224)
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { call: "SegmentedSorter::with_block_threads", problem }
            if problem.contains("224 threads")),
        "{err}"
    );
    let sorter = SegmentedSorter::new(device)
        .unwrap()
        .with_long_segments(LongSegments::Radix)
        .unwrap()
        .with_block_threads(512)
        .unwrap();
    assert_eq!(sorter.long_segments(), LongSegments::Radix);
    for route in [LongSegments::Merge, LongSegments::Auto] {
        let s = SegmentedSorter::new(device)
            .unwrap()
            .with_block_threads(64)
            .unwrap()
            .with_long_segments(route)
            .unwrap();
        assert_eq!(s.long_segments(), route);
    }
}

/// Every check on `device`; `large` (a GPU) takes more keys for every
/// type and adds a sort of millions, where the CPU backend takes enough
/// for each layout. Returns the number of sorts checked.
pub fn check_all(device: &Device, large: bool) -> usize {
    let sorter = SegmentedSorter::new(device).unwrap();
    // Blocks of 64 threads: tiles of 512 keys, so that long segments take
    // several merge passes on little data.
    let small = SegmentedSorter::new(device)
        .unwrap()
        .with_block_threads(64)
        .unwrap();
    let tile = |threads: usize| threads * coop::device::segmented_sort::ITEMS;
    let (n, m) = if large {
        (300_001, 100_003)
    } else {
        (12_003, 5_001)
    };
    let mut calls = 0;
    calls += check_type::<u32>(device, &small, tile(64), n, 1);
    calls += check_type::<f32>(device, &small, tile(64), m, 2);
    calls += check_type::<i64>(device, &small, tile(64), m, 3);
    calls += check_type::<f64>(device, &small, tile(64), m, 4);
    calls += check_type::<u8>(device, &small, tile(64), m, 5);
    calls += check_type::<i16>(device, &small, tile(64), m, 6);
    calls += check_type::<i32>(device, &sorter, tile(256), n, 7);
    calls += check_type::<u64>(device, &sorter, tile(256), m, 8);
    // The radix route, the merge route named, and `Auto` (whichever it
    // takes here) for the long segments.
    let auto = SegmentedSorter::new(device)
        .unwrap()
        .with_long_segments(LongSegments::Auto)
        .unwrap();
    let radix = SegmentedSorter::new(device)
        .unwrap()
        .with_long_segments(LongSegments::Radix)
        .unwrap();
    let merge = SegmentedSorter::new(device)
        .unwrap()
        .with_long_segments(LongSegments::Merge)
        .unwrap();
    calls += check_type::<u32>(device, &radix, tile(256), n, 11);
    calls += check_type::<f32>(device, &radix, tile(256), m, 12);
    calls += check_type::<i64>(device, &radix, tile(256), m, 13);
    calls += check_type::<f64>(device, &radix, tile(256), m, 14);
    calls += check_type::<u8>(device, &radix, tile(256), m, 15);
    calls += check_type::<i16>(device, &radix, tile(256), m, 16);
    calls += check_type::<i32>(device, &merge, tile(256), m, 17);
    calls += check_type::<u64>(device, &auto, tile(256), m, 20);
    check_errors(device, &sorter);
    check_route_errors(device);
    if large {
        calls += check_type::<u32>(device, &sorter, tile(256), (1 << 22) + 7, 9);
        calls += check_type::<f64>(device, &sorter, tile(256), (1 << 21) + 1, 10);
        calls += check_type::<u32>(device, &radix, tile(256), (1 << 22) + 7, 18);
        calls += check_type::<u64>(device, &radix, tile(256), (1 << 21) + 1, 19);
    }
    calls
}
