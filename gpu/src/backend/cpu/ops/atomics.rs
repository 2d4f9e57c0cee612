//! Atomics on the CPU backend: the PTX instructions' results computed on
//! host memory. One emulated thread runs at a time, but the operations
//! still go through `core`'s atomics, so that they are atomic whatever
//! else touches the memory.

use super::super::Cpu;
use super::super::engine::lane;
use crate::backend::{AtomicOp, Atomics, Ordering, Rmw, Scope, Site, Word};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};

/// `op(old, value)` on `word`'s type, as the PTX instruction computes it
/// (`add.f32` flushes subnormal inputs and results to zero, keeping the
/// sign).
pub(crate) fn apply(word: Word, op: Rmw, old: u64, value: u64) -> u64 {
    macro_rules! int {
        ($t:ty, $u:ty) => {{
            let (a, b) = (old as $u as $t, value as $u as $t);
            let r: $t = match op {
                Rmw::Add => a.wrapping_add(b),
                Rmw::Min => a.min(b),
                Rmw::Max => a.max(b),
                Rmw::And => a & b,
                Rmw::Or => a | b,
                Rmw::Xor => a ^ b,
                Rmw::Exchange => b,
                Rmw::Inc => {
                    if a >= b {
                        0
                    } else {
                        a + 1
                    }
                }
                Rmw::Dec => {
                    if a == 0 || a > b {
                        b
                    } else {
                        a - 1
                    }
                }
            };
            r as $u as u64
        }};
    }
    match word {
        Word::U32 => int!(u32, u32),
        Word::S32 => int!(i32, u32),
        Word::U64 => int!(u64, u64),
        Word::S64 => int!(i64, u64),
        Word::F32 => match op {
            Rmw::Exchange => value,
            _ => {
                let ftz = |x: f32| {
                    if x.is_subnormal() {
                        0.0f32.copysign(x)
                    } else {
                        x
                    }
                };
                let sum = ftz(ftz(f32::from_bits(old as u32)) + ftz(f32::from_bits(value as u32)));
                sum.to_bits() as u64
            }
        },
        Word::F64 => match op {
            Rmw::Exchange => value,
            _ => (f64::from_bits(old) + f64::from_bits(value)).to_bits(),
        },
    }
}

/// Replaces the word at `ptr` with `f(old)` atomically; returns `old`.
///
/// # Safety
///
/// `ptr` is valid and aligned for `word`'s width.
unsafe fn update(ptr: *mut u8, word: Word, f: impl Fn(u64) -> u64) -> u64 {
    if word.wide() {
        // SAFETY: the caller's precondition.
        let a = unsafe { AtomicU64::from_ptr(ptr as *mut u64) };
        a.fetch_update(SeqCst, SeqCst, |old| Some(f(old)))
            .unwrap_or_else(|old| old)
    } else {
        // SAFETY: the caller's precondition.
        let a = unsafe { AtomicU32::from_ptr(ptr as *mut u32) };
        a.fetch_update(SeqCst, SeqCst, |old| Some(f(old as u64) as u32))
            .unwrap_or_else(|old| old) as u64
    }
}

/// The bits of `word`'s width.
pub(crate) fn word_mask(word: Word) -> u64 {
    if word.wide() {
        u64::MAX
    } else {
        u32::MAX as u64
    }
}

/// The CAS: `new` where the word equals `expected`; returns the old value.
///
/// # Safety
///
/// As for [`update`].
pub(crate) unsafe fn cas(ptr: *mut u8, word: Word, expected: u64, new: u64) -> u64 {
    let mask = word_mask(word);
    // SAFETY: the caller's precondition.
    unsafe {
        update(ptr, word, |old| {
            if old == expected & mask {
                new & mask
            } else {
                old
            }
        })
    }
}

/// The read-modify-write.
///
/// # Safety
///
/// As for [`update`].
pub(crate) unsafe fn rmw(ptr: *mut u8, word: Word, op: Rmw, value: u64) -> u64 {
    // SAFETY: the caller's precondition.
    unsafe { update(ptr, word, |old| apply(word, op, old, value)) }
}

impl Atomics for Cpu {
    unsafe fn atomic_rmw(
        ptr: *mut u8,
        word: Word,
        op: Rmw,
        value: u64,
        scope: Scope,
        ordering: Ordering,
        site: Site,
    ) -> u64 {
        let access = (AtomicOp::Update, scope, ordering);
        // SAFETY: the trait's precondition, passed on.
        unsafe { rmw_synchronized(ptr, word, op, value, access, site) }
    }

    unsafe fn atomic_reduce(
        ptr: *mut u8,
        word: Word,
        op: Rmw,
        value: u64,
        scope: Scope,
        ordering: Ordering,
        site: Site,
    ) {
        // SAFETY: the trait's precondition, passed on; the result is the
        // one `red` drops.
        unsafe { Self::atomic_rmw(ptr, word, op, value, scope, ordering, site) };
    }

    unsafe fn atomic_cas(
        ptr: *mut u8,
        word: Word,
        expected: u64,
        new: u64,
        scope: Scope,
        ordering: Ordering,
        site: Site,
    ) -> u64 {
        lane::step(site, |_| ());
        let old = lane::synchronized(
            ptr as usize,
            AtomicOp::Update,
            scope,
            ordering,
            site,
            || {
                // SAFETY: the trait's precondition.
                let old = unsafe { cas(ptr, word, expected, new) };
                (old, (old == expected & word_mask(word)).then_some(old))
            },
        );
        if old == expected & word_mask(word) && old != new & word_mask(word) {
            lane::note_modified(true);
        }
        old
    }

    unsafe fn atomic_load(
        ptr: *mut u8,
        word: Word,
        scope: Scope,
        ordering: Ordering,
        site: Site,
    ) -> u64 {
        lane::step(site, |_| ());
        lane::synchronized(ptr as usize, AtomicOp::Load, scope, ordering, site, || {
            // SAFETY: the trait's precondition; the identity update reads.
            (unsafe { update(ptr, word, |old| old) }, None)
        })
    }

    unsafe fn atomic_store(
        ptr: *mut u8,
        word: Word,
        value: u64,
        scope: Scope,
        ordering: Ordering,
        site: Site,
    ) {
        let access = (AtomicOp::Store, scope, ordering);
        // SAFETY: the trait's precondition, passed on; a store is the
        // exchange whose result nobody reads.
        unsafe { rmw_synchronized(ptr, word, Rmw::Exchange, value, access, site) };
    }
}

/// A step, then the read-modify-write `op` of `value` into the word at
/// `ptr`, made through the memory model as `access` says (an update, or a
/// store made as an exchange; its scope and ordering); a change counts as
/// progress for spinning threads. Returns the old value.
///
/// # Safety
///
/// As for [`update`].
unsafe fn rmw_synchronized(
    ptr: *mut u8,
    word: Word,
    op: Rmw,
    value: u64,
    (kind, scope, ordering): (AtomicOp, Scope, Ordering),
    site: Site,
) -> u64 {
    lane::step(site, |_| ());
    let old = lane::synchronized(ptr as usize, kind, scope, ordering, site, || {
        // SAFETY: the caller's precondition.
        let old = unsafe { rmw(ptr, word, op, value) };
        (old, Some(old))
    });
    if apply(word, op, old, value) != old {
        lane::note_modified(true);
    }
    old
}
