//! Every atomic operation on device memory, for every element type, scope
//! and ordering: each thread of each block updates the slots of
//! [`slot`]'s layout, and the host checks the final values (sums, counts,
//! minima, bit patterns) against a reference that does not depend on the
//! order in which the threads ran.

use coop::atomic::{AtomicElem, AtomicInteger, AtomicOut, Ordering, Scope};
use coop::prelude::*;

/// Slots a (scope, ordering) combination has.
pub const OPS: usize = 16;
/// The combinations: 3 scopes × 4 orderings.
pub const COMBOS: usize = 12;

/// Slot indices within a combination.
pub mod op {
    pub const ADD: usize = 0;
    pub const SUB: usize = 1;
    pub const SWAP: usize = 2;
    pub const SWAP_OLDS: usize = 3;
    pub const CAS: usize = 4;
    pub const STORE: usize = 5;
    pub const FETCH_ADD: usize = 6;
    pub const FETCH_ADD_MAX_OLD: usize = 7;
    pub const MIN: usize = 8;
    pub const MAX: usize = 9;
    pub const AND: usize = 10;
    pub const OR: usize = 11;
    pub const XOR: usize = 12;
    pub const INC: usize = 13;
    pub const DEC: usize = 14;
}

/// Combination `c`'s scope.
pub const fn scope_of(c: usize) -> Scope {
    match c / 4 {
        0 => Scope::Block,
        1 => Scope::Device,
        _ => Scope::System,
    }
}

/// Combination `c`'s ordering.
pub const fn ordering_of(c: usize) -> Ordering {
    match c % 4 {
        0 => Ordering::Relaxed,
        1 => Ordering::Acquire,
        2 => Ordering::Release,
        _ => Ordering::AcqRel,
    }
}

/// Where block `b`'s threads update slot `op` of combination `c`: blocks
/// share the device- and system-scope slots, and each has its own
/// block-scope ones (block scope is atomic only among a block's threads).
pub const fn slot(b: usize, c: usize, op: usize) -> usize {
    let group = if c < 4 { b + 1 } else { 0 };
    (group * COMBOS + c) * OPS + op
}

/// Slots a launch of `blocks` blocks needs.
pub const fn slots(blocks: usize) -> usize {
    (blocks + 1) * COMBOS * OPS
}

/// The view of combination `c`.
#[inline(always)]
fn view<'a, T: AtomicElem>(out: &Out<'a, T>, c: usize) -> AtomicOut<'a, T> {
    out.atomic()
        .with_scope(scope_of(c))
        .with_ordering(ordering_of(c))
}

/// The operations every element type has: thread `r` adds and subtracts
/// `v`, swaps `v` in (adding what it swapped out), counts through a
/// compare-and-swap loop, and stores `v`.
#[inline(always)]
fn common<T: AtomicElem + core::ops::Add<Output = T>>(out: &Out<T>, b: usize, v: T, one: T) {
    for c in 0..COMBOS {
        let a = view(out, c);
        a.add(slot(b, c, op::ADD), v);
        a.sub(slot(b, c, op::SUB), v);
        let old = a.swap(slot(b, c, op::SWAP), v);
        a.add(slot(b, c, op::SWAP_OLDS), old);
        let s = slot(b, c, op::CAS);
        let mut seen = a.load(s);
        while let Err(actual) = a.compare_exchange(s, seen, seen + one) {
            seen = actual;
        }
        a.store(slot(b, c, op::STORE), v);
    }
}

/// The integer operations, `fetch_` forms on even ranks and `red` forms on
/// odd ones: `w` for minimum, maximum and xor, `bit` for and (cleared) and
/// or (set).
#[inline(always)]
fn integer<T: AtomicInteger + core::ops::Not<Output = T>>(
    out: &Out<T>,
    b: usize,
    r: usize,
    w: T,
    bit: T,
    one: T,
) {
    for c in 0..COMBOS {
        let a = view(out, c);
        let old = a.fetch_add(slot(b, c, op::FETCH_ADD), one);
        a.max(slot(b, c, op::FETCH_ADD_MAX_OLD), old);
        if r.is_multiple_of(2) {
            a.fetch_min(slot(b, c, op::MIN), w);
            a.fetch_max(slot(b, c, op::MAX), w);
            a.fetch_and(slot(b, c, op::AND), !bit);
            a.fetch_or(slot(b, c, op::OR), bit);
            a.fetch_xor(slot(b, c, op::XOR), w);
        } else {
            a.min(slot(b, c, op::MIN), w);
            a.max(slot(b, c, op::MAX), w);
            a.and(slot(b, c, op::AND), !bit);
            a.or(slot(b, c, op::OR), bit);
            a.xor(slot(b, c, op::XOR), w);
        }
    }
}

/// The value thread `r` uses for minimum, maximum and xor.
pub const fn w_of(r: usize) -> u64 {
    ((r as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7) ^ (r as u64 * 977)
}

macro_rules! integer_kernel {
    ($name:ident, $t:ty, $bits:expr) => {
        /// Every atomic operation of this type; see the module.
        #[kernel]
        pub fn $name(block: ThreadBlock, out: Out<$t>) {
            let b = block.group_index().x as usize;
            let r = block.thread_rank() as usize;
            common(&out, b, (r + 1) as $t, 1);
            integer(&out, b, r, w_of(r) as $t, (1 as $t) << (r % $bits), 1);
        }
    };
}

integer_kernel!(atomics_i32, i32, 32);
integer_kernel!(atomics_u64, u64, 64);
integer_kernel!(atomics_i64, i64, 64);

/// Every atomic operation of `u32`, with increment and decrement (limit 9).
#[kernel]
pub fn atomics_u32(block: ThreadBlock, out: Out<u32>) {
    let b = block.group_index().x as usize;
    let r = block.thread_rank() as usize;
    common(&out, b, (r + 1) as u32, 1);
    integer(&out, b, r, w_of(r) as u32, 1 << (r % 32), 1);
    for c in 0..COMBOS {
        let a = view(&out, c);
        a.fetch_inc(slot(b, c, op::INC), 9);
        a.fetch_dec(slot(b, c, op::DEC), 9);
    }
}

/// The float value of thread `r`: small integers, so that every sum is
/// exact in any order.
pub const fn float_of(r: usize) -> u32 {
    1 + (r % 4) as u32
}

/// Every atomic operation of `f32`.
#[kernel]
pub fn atomics_f32(block: ThreadBlock, out: Out<f32>) {
    let b = block.group_index().x as usize;
    let r = block.thread_rank() as usize;
    common(&out, b, float_of(r) as f32, 1.0);
}

/// Every atomic operation of `f64`.
#[kernel]
pub fn atomics_f64(block: ThreadBlock, out: Out<f64>) {
    let b = block.group_index().x as usize;
    let r = block.thread_rank() as usize;
    common(&out, b, float_of(r) as f64, 1.0);
}
