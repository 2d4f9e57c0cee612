//! Top-k selections checked against the host's stable sort followed by
//! taking the first k, on any device: every built-in key type, largest
//! and smallest, k from 1 to the whole input, over lengths around the
//! selection's tiles; random keys, few distinct keys, all equal, sorted
//! and reversed; floats with NaNs, infinities and signed zeros; keys
//! alone, with indices (which show which of the keys equal to the k-th
//! are taken) and with 8-byte values; the unordered results' input order; and
//! the errors of a bad call.

use crate::sort_cases::{host_order, patterns, TestKey};
use crate::Rng;
use coop_host::sort::Order;
use coop_host::top_k::{BuiltinTopK, TopK};
use coop_host::{Device, Error};

/// Which end a case takes.
#[derive(Clone, Copy, Debug)]
enum End {
    Largest,
    Smallest,
}

/// The k to try for `n` keys.
fn ks(n: usize, large: bool) -> Vec<usize> {
    let mut ks = if large {
        vec![1, 2, 33, n / 2, n - 1, n]
    } else {
        vec![1, 33, n / 2, n]
    };
    ks.retain(|&k| k >= 1 && k <= n);
    ks.sort();
    ks.dedup();
    ks
}

/// The unordered selection's order: the first `k` of `index` in input
/// order.
fn unordered(index: &[usize], k: usize) -> Vec<usize> {
    let mut taken = index[..k].to_vec();
    taken.sort();
    taken
}

/// Checks `got` against the keys at `want`, naming the case.
fn check_keys<K: TestKey>(got: &[K], keys: &[K], want: &[usize], case: &str) {
    assert_eq!(got.len(), want.len(), "{case}: length");
    for (i, (g, &from)) in got.iter().zip(want).enumerate() {
        assert!(
            g.same(&keys[from]),
            "{case}: key {i} is {g:?}, the host's stable sort and take has {:?}",
            keys[from]
        );
    }
}

/// One selection of every kind for `keys`, `k` and `end`; returns calls.
#[allow(clippy::too_many_arguments)]
fn check_one<K: TestKey + BuiltinTopK>(
    device: &Device,
    top: &TopK,
    loose: &TopK,
    keys: &[K],
    k: usize,
    end: End,
    case: &str,
    values: bool,
) -> usize {
    let order = match end {
        End::Largest => Order::Descending,
        End::Smallest => Order::Ascending,
    };
    let index = host_order(keys, order);
    let want = &index[..k];
    let input = device.upload(keys).unwrap();
    // Keys alone, sorted.
    let mut out = device.zeros::<K>(k).unwrap();
    match end {
        End::Largest => top.largest(&input, &mut out).unwrap(),
        End::Smallest => top.smallest(&input, &mut out).unwrap(),
    }
    check_keys(&device.download(&out).unwrap(), keys, want, case);
    // With indices, sorted: exactly the stable sort's first k.
    let mut at = device.zeros::<u32>(k).unwrap();
    match end {
        End::Largest => top.largest_with_indices(&input, &mut out, &mut at).unwrap(),
        End::Smallest => top
            .smallest_with_indices(&input, &mut out, &mut at)
            .unwrap(),
    }
    let got: Vec<usize> = device
        .download(&at)
        .unwrap()
        .into_iter()
        .map(|i| i as usize)
        .collect();
    assert!(
        got == want,
        "{case}: the indices are not the stable sort's first k: {:?} against {:?}",
        &got[..got.len().min(8)],
        &want[..want.len().min(8)]
    );
    check_keys(&device.download(&out).unwrap(), keys, want, case);
    // Unordered: the selection's own order.
    match end {
        End::Largest => loose
            .largest_with_indices(&input, &mut out, &mut at)
            .unwrap(),
        End::Smallest => loose
            .smallest_with_indices(&input, &mut out, &mut at)
            .unwrap(),
    }
    let expected = unordered(&index, k);
    let got: Vec<usize> = device
        .download(&at)
        .unwrap()
        .into_iter()
        .map(|i| i as usize)
        .collect();
    assert!(
        got == expected,
        "{case}: unordered indices differ from the selection's order"
    );
    check_keys(
        &device.download(&out).unwrap(),
        keys,
        &expected,
        &format!("{case}, unordered"),
    );
    let mut calls = 3;
    if values {
        let vals: Vec<f64> = (0..keys.len()).map(|i| i as f64 * 0.25 - 3.0).collect();
        let vin = device.upload(&vals).unwrap();
        let mut vout = device.zeros::<f64>(k).unwrap();
        match end {
            End::Largest => top
                .largest_pairs(&input, &vin, &mut out, &mut vout)
                .unwrap(),
            End::Smallest => top
                .smallest_pairs(&input, &vin, &mut out, &mut vout)
                .unwrap(),
        }
        let w: Vec<f64> = want.iter().map(|&i| vals[i]).collect();
        assert!(
            device.download(&vout).unwrap() == w,
            "{case}: 8-byte values"
        );
        check_keys(&device.download(&out).unwrap(), keys, want, case);
        calls += 1;
    }
    calls
}

/// Every length, pattern, k and end for keys of `K`; returns calls.
fn check_type<K: TestKey + BuiltinTopK>(
    device: &Device,
    top: &TopK,
    loose: &TopK,
    lengths: &[usize],
    seed: u64,
) -> usize {
    let mut rng = Rng::new(seed);
    let mut calls = 0;
    let name = std::any::type_name::<K>();
    for &n in lengths {
        for (pattern, keys) in patterns::<K>(n, &mut rng) {
            let many = n > 20_000 && pattern != "random" && pattern != "five distinct keys";
            for k in ks(n, lengths.iter().any(|&n| n > 40_000)) {
                if many && k != n / 2 {
                    continue;
                }
                for end in [End::Largest, End::Smallest] {
                    let case = format!("{n} {name} keys, {pattern}, the {end:?} {k}");
                    let values = pattern == "five distinct keys" && k == 33;
                    calls += check_one(device, top, loose, &keys, k, end, &case, values);
                }
            }
        }
    }
    calls
}

/// The errors of bad calls, the same on every device.
fn check_errors(device: &Device, top: &TopK) {
    let keys = device.upload(&[3u32, 1, 2]).unwrap();
    let mut four = device.zeros::<u32>(4).unwrap();
    let err = top.largest(&keys, &mut four).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { call: "TopK::largest", problem } if problem.contains("`keys_out` holds 4") && problem.contains("`keys` 3")),
        "{err}"
    );
    let mut two = device.zeros::<u32>(2).unwrap();
    let mut one = device.zeros::<u32>(1).unwrap();
    let err = top
        .smallest_with_indices(&keys, &mut two, &mut one)
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { call: "TopK::smallest_with_indices", problem } if problem.contains("`indices_out` holds 1")),
        "{err}"
    );
    let values = device.upload(&[1.0f32, 2.0]).unwrap();
    let mut vout = device.zeros::<f32>(2).unwrap();
    let err = top
        .largest_pairs(&keys, &values, &mut two, &mut vout)
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { call: "TopK::largest_pairs", problem } if problem.contains("`values` holds 2") && problem.contains("`keys` 3")),
        "{err}"
    );
    for threads in [32, 100, 544] {
        let err = TopK::new(device)
            .unwrap()
            .with_block_threads(threads)
            .unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    }
    // k = 0: nothing to do, and no error.
    let mut none = device.upload::<u32>(&[]).unwrap();
    top.largest(&keys, &mut none).unwrap();
    assert_eq!(device.download(&two).unwrap(), [0, 0]);
    // An empty input: k = 0 is no work; any other k asks for more keys
    // than there are.
    let empty = device.upload::<u32>(&[]).unwrap();
    top.largest(&empty, &mut none).unwrap();
    top.smallest(&empty, &mut none).unwrap();
    let err = top.largest(&empty, &mut one).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { call: "TopK::largest", problem } if problem.contains("`keys_out` holds 1") && problem.contains("`keys` 0")),
        "{err}"
    );
}

/// Every check on `device`; `large` (a GPU) adds longer inputs and
/// selections from millions of keys. Returns the number of calls checked.
pub fn check_all(device: &Device, large: bool) -> usize {
    let top = TopK::new(device).unwrap();
    let loose = TopK::new(device).unwrap().unordered();
    let (all, few): (&[usize], &[usize]) = if large {
        (
            &[1, 2, 31, 4095, 4097, 8193, 70_001, 300_007],
            &[1, 2, 2049, 4097, 70_001],
        )
    } else {
        (&[1, 2, 31, 4096, 4097, 9001], &[1, 3, 2049])
    };
    let mut calls = 0;
    calls += check_type::<u32>(device, &top, &loose, all, 21);
    calls += check_type::<f32>(device, &top, &loose, all, 22);
    calls += check_type::<i32>(device, &top, &loose, few, 23);
    calls += check_type::<u64>(device, &top, &loose, few, 24);
    calls += check_type::<i64>(device, &top, &loose, few, 25);
    calls += check_type::<f64>(device, &top, &loose, few, 26);
    calls += check_type::<u8>(device, &top, &loose, few, 27);
    calls += check_type::<i8>(device, &top, &loose, few, 28);
    calls += check_type::<u16>(device, &top, &loose, few, 29);
    calls += check_type::<i16>(device, &top, &loose, few, 30);
    // Larger blocks: other tiles, the same results.
    let wide = TopK::new(device).unwrap().with_block_threads(512).unwrap();
    let wide_loose = TopK::new(device)
        .unwrap()
        .with_block_threads(512)
        .unwrap()
        .unordered();
    calls += check_type::<f32>(device, &wide, &wide_loose, &[12_289], 31);
    check_errors(device, &top);
    if large {
        calls += check_type::<f32>(device, &top, &loose, &[(1 << 22) + 3], 32);
        calls += check_type::<u64>(device, &top, &loose, &[1 << 21], 33);
    }
    calls
}
