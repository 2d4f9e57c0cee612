//! Radix sorts checked against the host's stable sort, on any device:
//! every built-in key type ascending and descending, over lengths around
//! the tile edges and past the look-back's reach; random keys, few
//! distinct keys, all equal, already sorted and reversed; floats with
//! NaNs, infinities and signed zeros; values of 4 and 8 bytes, whose
//! order among equal keys shows the sort is stable; ranges of bits; and
//! the errors of a bad call.

use crate::Rng;
use coop_host::sort::{BuiltinSort, Order, Sorter};
use coop_host::{Device, Error};
use std::cmp::Ordering;

/// Lengths: empty, one, two, a warp, around a tile (6144 keys alone with
/// 256 threads; 4096 for 8-byte keys with 4-byte values, 3072 for 8-byte
/// keys with 8-byte values) and past 27 tiles.
pub const LENGTHS: [usize; 12] = [
    0, 1, 2, 31, 3073, 4095, 4097, 6143, 6144, 6145, 12_289, 170_001,
];

/// A key type as the tests make and compare it.
pub trait TestKey: BuiltinSort + std::fmt::Debug + PartialEq {
    /// A key from random bits.
    fn from_bits(bits: u64) -> Self;
    /// A key from a small number (few distinct keys, sorted runs).
    fn small(n: u64) -> Self;
    /// The keys' order in the sort: by value, `-0.0` equal to `0.0`,
    /// NaNs by their bits.
    fn order(&self, other: &Self) -> Ordering;
    /// Bit-for-bit equality (tells `-0.0` from `0.0`).
    fn same(&self, other: &Self) -> bool;
    /// The key's bits made to sort as its values do, for a range of bits.
    fn ordered_bits(&self) -> u64;
}

macro_rules! int_keys {
    ($($t:ty => $u:ty;)*) => {$(
        impl TestKey for $t {
            fn from_bits(bits: u64) -> Self { bits as $t }
            fn small(n: u64) -> Self { n as $t }
            fn order(&self, other: &Self) -> Ordering { self.cmp(other) }
            fn same(&self, other: &Self) -> bool { self == other }
            fn ordered_bits(&self) -> u64 {
                ((*self as $u) ^ (<$t>::MIN as $u)) as u64
            }
        }
    )*};
}

int_keys! {
    u8 => u8; i8 => u8; u16 => u16; i16 => u16; u32 => u32; i32 => u32; u64 => u64; i64 => u64;
}

macro_rules! float_keys {
    ($($t:ty => $u:ty;)*) => {$(
        impl TestKey for $t {
            fn from_bits(bits: u64) -> Self {
                // Mostly ordinary numbers, some specials.
                match bits % 64 {
                    0 => <$t>::NAN,
                    1 => -<$t>::NAN,
                    2 => <$t>::INFINITY,
                    3 => <$t>::NEG_INFINITY,
                    4 => 0.0,
                    5 => -0.0,
                    _ => ((bits >> 8) as i32 as $t) / 1000.0,
                }
            }
            fn small(n: u64) -> Self { n as $t - 2.0 }
            fn order(&self, other: &Self) -> Ordering {
                let z = |x: $t| if x == 0.0 { 0.0 } else { x };
                z(*self).total_cmp(&z(*other))
            }
            fn same(&self, other: &Self) -> bool { self.to_bits() == other.to_bits() }
            fn ordered_bits(&self) -> u64 {
                let b = if *self == 0.0 { 0 } else { self.to_bits() };
                let sign: $u = 1 << (<$u>::BITS - 1);
                (if b & sign != 0 { !b } else { b | sign }) as u64
            }
        }
    )*};
}

float_keys! { f32 => u32; f64 => u64; }

/// Key patterns of `n` keys.
pub fn patterns<K: TestKey>(n: usize, rng: &mut Rng) -> Vec<(&'static str, Vec<K>)> {
    let random: Vec<K> = (0..n).map(|_| K::from_bits(rng.next_u64())).collect();
    let few: Vec<K> = (0..n).map(|_| K::small(rng.next_u64() % 5)).collect();
    let equal: Vec<K> = vec![K::small(3); n];
    let mut sorted = random.clone();
    sorted.sort_by(K::order);
    let mut reversed = sorted.clone();
    reversed.reverse();
    vec![
        ("random", random),
        ("five distinct keys", few),
        ("all equal", equal),
        ("sorted", sorted),
        ("reversed", reversed),
    ]
}

/// The host's stable sort of `keys` in `order`: the permutation.
pub fn host_order<K: TestKey>(keys: &[K], order: Order) -> Vec<usize> {
    let mut index: Vec<usize> = (0..keys.len()).collect();
    index.sort_by(|&a, &b| match order {
        Order::Ascending => keys[a].order(&keys[b]),
        Order::Descending => keys[b].order(&keys[a]),
    });
    index
}

/// Checks `got` against `keys` permuted by `index`, naming the case.
fn check_keys<K: TestKey>(got: &[K], keys: &[K], index: &[usize], case: &str) {
    assert_eq!(got.len(), keys.len(), "{case}: length");
    for (i, (g, &from)) in got.iter().zip(index).enumerate() {
        assert!(
            g.same(&keys[from]),
            "{case}: key {i} is {g:?}, the host's stable sort has {:?}",
            keys[from]
        );
    }
}

/// Sorts of keys of `K` over every length and pattern, both orders, with
/// 4-byte indices and 8-byte values; returns the calls checked.
fn check_type<K: TestKey>(device: &Device, sorter: &Sorter, lengths: &[usize], seed: u64) -> usize {
    let mut rng = Rng::new(seed);
    let mut calls = 0;
    let name = std::any::type_name::<K>();
    for &n in lengths {
        for (pattern, keys) in patterns::<K>(n, &mut rng) {
            if n > 20_000 && pattern != "random" && pattern != "five distinct keys" {
                // Long inputs: the patterns that exercise the look-back.
                continue;
            }
            for order in [Order::Ascending, Order::Descending] {
                let index = host_order(&keys, order);
                let case = format!("{n} {name} keys, {pattern}, {order:?}");
                // Keys alone.
                let mut buf = device.upload(&keys).unwrap();
                match order {
                    Order::Ascending => sorter.keys(&mut buf).unwrap(),
                    Order::Descending => sorter.keys_descending(&mut buf).unwrap(),
                }
                check_keys(&device.download(&buf).unwrap(), &keys, &index, &case);
                // With their indices: the permutation itself, stable.
                let ids: Vec<u32> = (0..n as u32).collect();
                let mut kb = device.upload(&keys).unwrap();
                let mut vb = device.upload(&ids).unwrap();
                match order {
                    Order::Ascending => sorter.pairs(&mut kb, &mut vb).unwrap(),
                    Order::Descending => sorter.pairs_descending(&mut kb, &mut vb).unwrap(),
                }
                let got: Vec<usize> = device
                    .download(&vb)
                    .unwrap()
                    .into_iter()
                    .map(|i| i as usize)
                    .collect();
                assert!(
                    got == index,
                    "{case}: the values (indices) are not the host's stable permutation"
                );
                check_keys(&device.download(&kb).unwrap(), &keys, &index, &case);
                calls += 3;
                if pattern == "random" || pattern == "five distinct keys" {
                    // 8-byte values.
                    let values: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 - 7.0).collect();
                    let mut kb = device.upload(&keys).unwrap();
                    let mut vb = device.upload(&values).unwrap();
                    sorter
                        .pairs_by_bits(&mut kb, &mut vb, 0..K::BITS, order)
                        .unwrap();
                    let want: Vec<f64> = index.iter().map(|&i| values[i]).collect();
                    assert!(
                        device.download(&vb).unwrap() == want,
                        "{case}: 8-byte values"
                    );
                    calls += 1;
                }
            }
        }
    }
    calls
}

/// Sorts by ranges of bits: one pass, a narrow last pass, an empty range.
fn check_bit_ranges(device: &Device, sorter: &Sorter, seed: u64) -> usize {
    let mut rng = Rng::new(seed);
    let mut calls = 0;
    for n in [1000usize, 9001] {
        let keys: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
        for bits in [0..8u32, 4..17, 20..32, 31..32, 9..9, 0..32] {
            for order in [Order::Ascending, Order::Descending] {
                let digit = |k: &i32| {
                    let b = k.ordered_bits();
                    let width = bits.end - bits.start;
                    if width == 0 {
                        0
                    } else {
                        (b >> bits.start) & ((1u64 << width) - 1)
                    }
                };
                let mut index: Vec<usize> = (0..n).collect();
                index.sort_by(|&a, &b| match order {
                    Order::Ascending => digit(&keys[a]).cmp(&digit(&keys[b])),
                    Order::Descending => digit(&keys[b]).cmp(&digit(&keys[a])),
                });
                let mut buf = device.upload(&keys).unwrap();
                sorter.keys_by_bits(&mut buf, bits.clone(), order).unwrap();
                let case = format!("{n} i32 keys by bits {bits:?}, {order:?}");
                check_keys(&device.download(&buf).unwrap(), &keys, &index, &case);
                calls += 1;
            }
        }
    }
    calls
}

/// The errors of bad calls, the same on every device.
fn check_errors(device: &Device, sorter: &Sorter) {
    let mut keys = device.upload(&[3u32, 1, 2]).unwrap();
    let err = sorter
        .keys_by_bits(&mut keys, 8..40, Order::Ascending)
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { call: "Sorter::keys_by_bits", problem } if problem.contains("8..40") && problem.contains("0..32")),
        "{err}"
    );
    #[allow(clippy::reversed_empty_ranges)]
    let backwards = 9..4;
    let err = sorter
        .keys_by_bits(&mut keys, backwards, Order::Ascending)
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    let mut values = device.upload(&[1u64, 2]).unwrap();
    let err = sorter.pairs(&mut keys, &mut values).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { call: "Sorter::pairs", problem } if problem.contains("values hold 2") && problem.contains("keys 3")),
        "{err}"
    );
    for threads in [128, 250, 544] {
        let err = Sorter::new(device)
            .unwrap()
            .with_block_threads(threads)
            .unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    }
    // The keys are untouched by the refused calls.
    assert_eq!(device.download(&keys).unwrap(), [3, 1, 2]);
}

/// Every check on `device`; `large` (a GPU) takes every length of
/// [`LENGTHS`] for every type and adds sorts of millions of keys, where
/// the CPU backend takes the lengths at the tile edges and one input of
/// ten tiles (a look-back over several tiles before).
/// Returns the number of sorts checked.
pub fn check_all(device: &Device, large: bool) -> usize {
    let sorter = Sorter::new(device).unwrap();
    let (all, edges, few): (&[usize], &[usize], &[usize]) = if large {
        (&LENGTHS, &LENGTHS, &LENGTHS)
    } else {
        (
            &[0, 1, 2, 31, 3073, 4097, 6143, 6144, 6145, 60_001],
            &[0, 1, 31, 3073, 6143, 6144, 6145],
            &[0, 2, 6145],
        )
    };
    let mut calls = 0;
    calls += check_type::<u32>(device, &sorter, all, 1);
    calls += check_type::<i32>(device, &sorter, few, 2);
    calls += check_type::<f32>(device, &sorter, edges, 3);
    calls += check_type::<u64>(device, &sorter, few, 4);
    calls += check_type::<i64>(device, &sorter, few, 5);
    calls += check_type::<f64>(device, &sorter, edges, 6);
    calls += check_type::<u8>(device, &sorter, few, 7);
    calls += check_type::<i8>(device, &sorter, few, 8);
    calls += check_type::<u16>(device, &sorter, few, 9);
    calls += check_type::<i16>(device, &sorter, few, 10);
    calls += check_bit_ranges(device, &sorter, 11);
    // Larger blocks: other tiles, the same results.
    let wide = Sorter::new(device)
        .unwrap()
        .with_block_threads(512)
        .unwrap();
    calls += check_type::<u32>(device, &wide, &[12_289], 12);
    calls += check_type::<f64>(device, &wide, &[6145], 13);
    check_errors(device, &sorter);
    if large {
        calls += check_type::<u32>(device, &sorter, &[1 << 22, (1 << 24) + 3], 14);
        calls += check_type::<f64>(device, &sorter, &[(1 << 22) + 5], 15);
    }
    calls
}
