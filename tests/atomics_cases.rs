//! Every atomic operation on device memory against a host reference, on
//! any device: each type's kernel of `coop-test-kernels::atomics` runs on
//! 3 blocks of 96 threads, and every slot's final value is checked for
//! every scope and ordering (see that module for the layout).

use crate::kernels::atomics::{self, float_of, op, slot, slots, w_of, COMBOS};
use coop_host::{Device, LaunchConfig, Program};

const BLOCKS: usize = 3;
const THREADS: usize = 96;

/// The threads (ranks in their block) that update combination `c`'s slots
/// of block `b`: the block's own for block scope, every block's otherwise.
fn contributors(c: usize) -> impl Iterator<Item = usize> {
    let copies = if c < 4 { 1 } else { BLOCKS };
    (0..copies).flat_map(|_| 0..THREADS)
}

/// The blocks whose slots combination `c` has (one set when shared).
fn owners(c: usize) -> std::ops::Range<usize> {
    if c < 4 {
        0..BLOCKS
    } else {
        0..1
    }
}

macro_rules! check_int {
    ($fn:ident, $t:ty, $kernel:ident, $bits:expr, $wrapping:expr) => {
        fn $fn(device: &Device, program: &Program) -> usize {
            let mut init = vec![0 as $t; slots(BLOCKS)];
            for b in 0..BLOCKS {
                for c in 0..COMBOS {
                    init[slot(b, c, op::MIN)] = <$t>::MAX;
                    init[slot(b, c, op::MAX)] = <$t>::MIN;
                    init[slot(b, c, op::AND)] = !0;
                }
            }
            let mut out = device.upload(&init).unwrap();
            program
                .launch(
                    atomics::$kernel,
                    LaunchConfig::new(BLOCKS as u32, THREADS as u32),
                    (&mut out,),
                )
                .unwrap();
            let got = device.download(&out).unwrap();
            let name = stringify!($t);
            let mut checked = 0;
            for c in 0..COMBOS {
                let what = format!(
                    "{name}, {:?}/{:?}",
                    atomics::scope_of(c),
                    atomics::ordering_of(c)
                );
                let k = contributors(c).count();
                let v = |r: usize| (r + 1) as $t;
                let sum = contributors(c).fold(0 as $t, |a, r| a.wrapping_add(v(r)));
                for b in owners(c) {
                    let at = |o: usize| got[slot(b, c, o)];
                    assert_eq!(at(op::ADD), sum, "{what}: add");
                    assert_eq!(at(op::SUB), (0 as $t).wrapping_sub(sum), "{what}: sub");
                    assert_eq!(
                        at(op::SWAP).wrapping_add(at(op::SWAP_OLDS)),
                        sum,
                        "{what}: swap"
                    );
                    assert!(
                        contributors(c).any(|r| v(r) == at(op::SWAP)),
                        "{what}: swap"
                    );
                    assert_eq!(at(op::CAS), k as $t, "{what}: compare_exchange");
                    assert!(
                        contributors(c).any(|r| v(r) == at(op::STORE)),
                        "{what}: store"
                    );
                    assert_eq!(at(op::FETCH_ADD), k as $t, "{what}: fetch_add");
                    assert_eq!(
                        at(op::FETCH_ADD_MAX_OLD),
                        (k - 1) as $t,
                        "{what}: fetch_add's olds"
                    );
                    let w = |r: usize| w_of(r) as $t;
                    let bit = |r: usize| (1 as $t) << (r % $bits);
                    assert_eq!(
                        at(op::MIN),
                        contributors(c).map(w).min().unwrap(),
                        "{what}: min"
                    );
                    assert_eq!(
                        at(op::MAX),
                        contributors(c).map(w).max().unwrap(),
                        "{what}: max"
                    );
                    assert_eq!(
                        at(op::AND),
                        contributors(c).fold(!0, |a, r| a & !bit(r)),
                        "{what}: and"
                    );
                    assert_eq!(
                        at(op::OR),
                        contributors(c).fold(0, |a, r| a | bit(r)),
                        "{what}: or"
                    );
                    assert_eq!(
                        at(op::XOR),
                        contributors(c).fold(0, |a, r| a ^ w(r)),
                        "{what}: xor"
                    );
                    if $wrapping {
                        assert_eq!(at(op::INC), (k % 10) as $t, "{what}: inc");
                        assert_eq!(at(op::DEC), ((10 - k % 10) % 10) as $t, "{what}: dec");
                    }
                    checked += 1;
                }
            }
            checked
        }
    };
}

check_int!(check_u32, u32, atomics_u32, 32, true);
check_int!(check_i32, i32, atomics_i32, 32, false);
check_int!(check_u64, u64, atomics_u64, 64, false);
check_int!(check_i64, i64, atomics_i64, 64, false);

macro_rules! check_float {
    ($fn:ident, $t:ty, $kernel:ident) => {
        fn $fn(device: &Device, program: &Program) -> usize {
            let mut out = device.zeros::<$t>(slots(BLOCKS)).unwrap();
            program
                .launch(
                    atomics::$kernel,
                    LaunchConfig::new(BLOCKS as u32, THREADS as u32),
                    (&mut out,),
                )
                .unwrap();
            let got = device.download(&out).unwrap();
            let mut checked = 0;
            for c in 0..COMBOS {
                let what = format!(
                    "{}, {:?}/{:?}",
                    stringify!($t),
                    atomics::scope_of(c),
                    atomics::ordering_of(c)
                );
                let v = |r: usize| float_of(r) as $t;
                let sum: $t = contributors(c).map(v).sum();
                let k = contributors(c).count();
                for b in owners(c) {
                    let at = |o: usize| got[slot(b, c, o)];
                    assert_eq!(at(op::ADD), sum, "{what}: add");
                    assert_eq!(at(op::SUB), -sum, "{what}: sub");
                    assert_eq!(at(op::SWAP) + at(op::SWAP_OLDS), sum, "{what}: swap");
                    assert_eq!(at(op::CAS), k as $t, "{what}: compare_exchange");
                    assert!(
                        contributors(c).any(|r| v(r) == at(op::STORE)),
                        "{what}: store"
                    );
                    checked += 1;
                }
            }
            checked
        }
    };
}

check_float!(check_f32, f32, atomics_f32);
check_float!(check_f64, f64, atomics_f64);

/// Every type's kernel on `device`; returns the (combination, slot set)
/// pairs checked.
pub fn check_all(device: &Device, program: &Program) -> usize {
    check_u32(device, program)
        + check_i32(device, program)
        + check_u64(device, program)
        + check_i64(device, program)
        + check_f32(device, program)
        + check_f64(device, program)
}
