//! Atomics on device memory: `atom`, `red`, `ld`/`st` with PTX's `.sem`,
//! `.scope` (`.cluster` exists from sm_90; before it, where a block is its
//! own cluster, the cluster's scope is `.cta`) and the `.global` state space (the pointer a device buffer
//! holds is a generic address; `cvta.to.global` turns it into the global
//! one, which ptxas folds away); and the shared-memory forms
//! (`atom.shared`, `red.shared`) on 32-bit shared-window addresses.
//!
//! The state space matters: on a generic address ptxas emits the generic
//! `ATOM`, which checks the address's window at run time, where `.global`
//! gives `REDG`/`ATOMG`; contended counters and the look-back's status
//! words go faster through the latter (chapter 7 of the guide).

use super::Ptx;
use crate::backend::{Atomics, Ordering, Rmw, Scope, Site, Word};
use core::arch::asm;

/// The start of a scoped PTX block whose `%ga` is the global address of
/// the generic pointer `{p}`; the instruction that follows closes it.
macro_rules! global {
    () => {
        "{{ .reg .b64 %ga; cvta.to.global.u64 %ga, {p}; "
    };
}

/// One `atom` with a result: `$sem`, `$scope` and `$inst` ("add.u32") as
/// literals, the value in a register of class `$cls` and type `$t`.
macro_rules! atom_asm {
    ($sem:literal, $scope:literal, $inst:literal, $cls:ident, $t:ty, $ptr:ident, $v:ident) => {{
        let old: $t;
        asm!(
            concat!(global!(), "atom.", $sem, ".", $scope, ".global.", $inst, " {o}, [%ga], {v}; }}"),
            o = out($cls) old,
            p = in(reg64) $ptr,
            v = in($cls) $v,
            options(nostack)
        );
        old
    }};
}

/// [`atom_asm`] for the run-time ordering and scope (constants once
/// inlined, so that one instruction remains).
macro_rules! atom_any {
    ($ord:ident, $scope:ident, $inst:literal, $cls:ident, $t:ty, $ptr:ident, $v:ident) => {
        match ($ord, $scope) {
            (Ordering::Relaxed, Scope::Block) => {
                atom_asm!("relaxed", "cta", $inst, $cls, $t, $ptr, $v)
            }
            (Ordering::Relaxed, Scope::Device) => {
                atom_asm!("relaxed", "gpu", $inst, $cls, $t, $ptr, $v)
            }
            (Ordering::Relaxed, Scope::System) => {
                atom_asm!("relaxed", "sys", $inst, $cls, $t, $ptr, $v)
            }
            (Ordering::Acquire, Scope::Block) => {
                atom_asm!("acquire", "cta", $inst, $cls, $t, $ptr, $v)
            }
            (Ordering::Acquire, Scope::Device) => {
                atom_asm!("acquire", "gpu", $inst, $cls, $t, $ptr, $v)
            }
            (Ordering::Acquire, Scope::System) => {
                atom_asm!("acquire", "sys", $inst, $cls, $t, $ptr, $v)
            }
            (Ordering::Release, Scope::Block) => {
                atom_asm!("release", "cta", $inst, $cls, $t, $ptr, $v)
            }
            (Ordering::Release, Scope::Device) => {
                atom_asm!("release", "gpu", $inst, $cls, $t, $ptr, $v)
            }
            (Ordering::Release, Scope::System) => {
                atom_asm!("release", "sys", $inst, $cls, $t, $ptr, $v)
            }
            (Ordering::AcqRel, Scope::Block) => {
                atom_asm!("acq_rel", "cta", $inst, $cls, $t, $ptr, $v)
            }
            (Ordering::AcqRel, Scope::Device) => {
                atom_asm!("acq_rel", "gpu", $inst, $cls, $t, $ptr, $v)
            }
            (Ordering::AcqRel, Scope::System) => {
                atom_asm!("acq_rel", "sys", $inst, $cls, $t, $ptr, $v)
            }
            #[cfg(coop_sm90)]
            (Ordering::Relaxed, Scope::Cluster) => {
                atom_asm!("relaxed", "cluster", $inst, $cls, $t, $ptr, $v)
            }
            #[cfg(not(coop_sm90))]
            (Ordering::Relaxed, Scope::Cluster) => {
                atom_asm!("relaxed", "cta", $inst, $cls, $t, $ptr, $v)
            }
            #[cfg(coop_sm90)]
            (Ordering::Acquire, Scope::Cluster) => {
                atom_asm!("acquire", "cluster", $inst, $cls, $t, $ptr, $v)
            }
            #[cfg(not(coop_sm90))]
            (Ordering::Acquire, Scope::Cluster) => {
                atom_asm!("acquire", "cta", $inst, $cls, $t, $ptr, $v)
            }
            #[cfg(coop_sm90)]
            (Ordering::Release, Scope::Cluster) => {
                atom_asm!("release", "cluster", $inst, $cls, $t, $ptr, $v)
            }
            #[cfg(not(coop_sm90))]
            (Ordering::Release, Scope::Cluster) => {
                atom_asm!("release", "cta", $inst, $cls, $t, $ptr, $v)
            }
            #[cfg(coop_sm90)]
            (Ordering::AcqRel, Scope::Cluster) => {
                atom_asm!("acq_rel", "cluster", $inst, $cls, $t, $ptr, $v)
            }
            #[cfg(not(coop_sm90))]
            (Ordering::AcqRel, Scope::Cluster) => {
                atom_asm!("acq_rel", "cta", $inst, $cls, $t, $ptr, $v)
            }
        }
    };
}

/// One `red` (no result).
macro_rules! red_asm {
    ($sem:literal, $scope:literal, $inst:literal, $cls:ident, $ptr:ident, $v:ident) => {
        asm!(
            concat!(global!(), "red.", $sem, ".", $scope, ".global.", $inst, " [%ga], {v}; }}"),
            p = in(reg64) $ptr,
            v = in($cls) $v,
            options(nostack)
        )
    };
}

/// [`red_asm`] for the run-time ordering and scope; `red` has `.relaxed`
/// and `.release` only, so the acquiring orderings use `atom`.
macro_rules! red_any {
    ($ord:ident, $scope:ident, $inst:literal, $cls:ident, $t:ty, $ptr:ident, $v:ident) => {
        match ($ord, $scope) {
            (Ordering::Relaxed, Scope::Block) => red_asm!("relaxed", "cta", $inst, $cls, $ptr, $v),
            (Ordering::Relaxed, Scope::Device) => red_asm!("relaxed", "gpu", $inst, $cls, $ptr, $v),
            (Ordering::Relaxed, Scope::System) => red_asm!("relaxed", "sys", $inst, $cls, $ptr, $v),
            (Ordering::Release, Scope::Block) => red_asm!("release", "cta", $inst, $cls, $ptr, $v),
            (Ordering::Release, Scope::Device) => red_asm!("release", "gpu", $inst, $cls, $ptr, $v),
            (Ordering::Release, Scope::System) => red_asm!("release", "sys", $inst, $cls, $ptr, $v),
            #[cfg(coop_sm90)]
            (Ordering::Relaxed, Scope::Cluster) => {
                red_asm!("relaxed", "cluster", $inst, $cls, $ptr, $v)
            }
            #[cfg(not(coop_sm90))]
            (Ordering::Relaxed, Scope::Cluster) => {
                red_asm!("relaxed", "cta", $inst, $cls, $ptr, $v)
            }
            #[cfg(coop_sm90)]
            (Ordering::Release, Scope::Cluster) => {
                red_asm!("release", "cluster", $inst, $cls, $ptr, $v)
            }
            #[cfg(not(coop_sm90))]
            (Ordering::Release, Scope::Cluster) => {
                red_asm!("release", "cta", $inst, $cls, $ptr, $v)
            }
            (Ordering::Acquire | Ordering::AcqRel, _) => {
                let _: $t = atom_any!($ord, $scope, $inst, $cls, $t, $ptr, $v);
            }
        }
    };
}

/// Calls `$m!(inst, class, type)` with the instruction of `op` on `word`.
macro_rules! by_op {
    ($op:ident, $word:ident, $m32:ident, $m64:ident) => {
        match ($op, $word) {
            (Rmw::Add, Word::U32) => $m32!("add.u32"),
            (Rmw::Add, Word::S32) => $m32!("add.s32"),
            (Rmw::Add, Word::F32) => $m32!("add.f32"),
            (Rmw::Add, Word::U64 | Word::S64) => $m64!("add.u64"),
            (Rmw::Add, Word::F64) => $m64!("add.f64"),
            (Rmw::Min, Word::U32) => $m32!("min.u32"),
            (Rmw::Min, Word::S32) => $m32!("min.s32"),
            (Rmw::Min, Word::U64) => $m64!("min.u64"),
            (Rmw::Min, Word::S64) => $m64!("min.s64"),
            (Rmw::Max, Word::U32) => $m32!("max.u32"),
            (Rmw::Max, Word::S32) => $m32!("max.s32"),
            (Rmw::Max, Word::U64) => $m64!("max.u64"),
            (Rmw::Max, Word::S64) => $m64!("max.s64"),
            (Rmw::And, Word::U32 | Word::S32) => $m32!("and.b32"),
            (Rmw::And, Word::U64 | Word::S64) => $m64!("and.b64"),
            (Rmw::Or, Word::U32 | Word::S32) => $m32!("or.b32"),
            (Rmw::Or, Word::U64 | Word::S64) => $m64!("or.b64"),
            (Rmw::Xor, Word::U32 | Word::S32) => $m32!("xor.b32"),
            (Rmw::Xor, Word::U64 | Word::S64) => $m64!("xor.b64"),
            (Rmw::Inc, Word::U32) => $m32!("inc.u32"),
            (Rmw::Dec, Word::U32) => $m32!("dec.u32"),
            _ => unreachable!("coop::atomic's traits offer only the hardware's operations"),
        }
    };
}

impl Atomics for Ptx {
    #[inline(always)]
    unsafe fn atomic_rmw(
        ptr: *mut u8,
        word: Word,
        op: Rmw,
        value: u64,
        scope: Scope,
        ordering: Ordering,
        _site: Site,
    ) -> u64 {
        let p = ptr as u64;
        let (v32, v64) = (value as u32, value);
        macro_rules! n32 {
            ($inst:literal) => {
                atom_any!(ordering, scope, $inst, reg32, u32, p, v32) as u64
            };
        }
        macro_rules! n64 {
            ($inst:literal) => {
                atom_any!(ordering, scope, $inst, reg64, u64, p, v64)
            };
        }
        // SAFETY: the caller passes a valid, aligned device pointer and an
        // operation the word has (the trait's precondition).
        unsafe {
            if op == Rmw::Exchange {
                return if word.wide() {
                    n64!("exch.b64")
                } else {
                    n32!("exch.b32")
                };
            }
            by_op!(op, word, n32, n64)
        }
    }

    #[inline(always)]
    unsafe fn atomic_reduce(
        ptr: *mut u8,
        word: Word,
        op: Rmw,
        value: u64,
        scope: Scope,
        ordering: Ordering,
        site: Site,
    ) {
        if op == Rmw::Exchange {
            // `red` has no exchange.
            // SAFETY: the caller's precondition, passed on.
            unsafe { Self::atomic_rmw(ptr, word, op, value, scope, ordering, site) };
            return;
        }
        let p = ptr as u64;
        let (v32, v64) = (value as u32, value);
        macro_rules! n32 {
            ($inst:literal) => {
                red_any!(ordering, scope, $inst, reg32, u32, p, v32)
            };
        }
        macro_rules! n64 {
            ($inst:literal) => {
                red_any!(ordering, scope, $inst, reg64, u64, p, v64)
            };
        }
        // SAFETY: as for `atomic_rmw`.
        unsafe { by_op!(op, word, n32, n64) }
    }

    #[inline(always)]
    unsafe fn atomic_cas(
        ptr: *mut u8,
        word: Word,
        expected: u64,
        new: u64,
        scope: Scope,
        ordering: Ordering,
        _site: Site,
    ) -> u64 {
        let p = ptr as u64;
        macro_rules! cas {
            ($sem:literal, $scope:literal) => {
                if word.wide() {
                    let old: u64;
                    asm!(
                        concat!(global!(), "atom.", $sem, ".", $scope, ".global.cas.b64 {o}, [%ga], {c}, {n}; }}"),
                        o = out(reg64) old, p = in(reg64) p, c = in(reg64) expected,
                        n = in(reg64) new, options(nostack)
                    );
                    old
                } else {
                    let old: u32;
                    asm!(
                        concat!(global!(), "atom.", $sem, ".", $scope, ".global.cas.b32 {o}, [%ga], {c}, {n}; }}"),
                        o = out(reg32) old, p = in(reg64) p, c = in(reg32) expected as u32,
                        n = in(reg32) new as u32, options(nostack)
                    );
                    old as u64
                }
            };
        }
        // SAFETY: as for `atomic_rmw`.
        unsafe {
            match (ordering, scope) {
                (Ordering::Relaxed, Scope::Block) => cas!("relaxed", "cta"),
                (Ordering::Relaxed, Scope::Device) => cas!("relaxed", "gpu"),
                (Ordering::Relaxed, Scope::System) => cas!("relaxed", "sys"),
                (Ordering::Acquire, Scope::Block) => cas!("acquire", "cta"),
                (Ordering::Acquire, Scope::Device) => cas!("acquire", "gpu"),
                (Ordering::Acquire, Scope::System) => cas!("acquire", "sys"),
                (Ordering::Release, Scope::Block) => cas!("release", "cta"),
                (Ordering::Release, Scope::Device) => cas!("release", "gpu"),
                (Ordering::Release, Scope::System) => cas!("release", "sys"),
                (Ordering::AcqRel, Scope::Block) => cas!("acq_rel", "cta"),
                (Ordering::AcqRel, Scope::Device) => cas!("acq_rel", "gpu"),
                (Ordering::AcqRel, Scope::System) => cas!("acq_rel", "sys"),
                #[cfg(coop_sm90)]
                (Ordering::Relaxed, Scope::Cluster) => cas!("relaxed", "cluster"),
                #[cfg(not(coop_sm90))]
                (Ordering::Relaxed, Scope::Cluster) => cas!("relaxed", "cta"),
                #[cfg(coop_sm90)]
                (Ordering::Acquire, Scope::Cluster) => cas!("acquire", "cluster"),
                #[cfg(not(coop_sm90))]
                (Ordering::Acquire, Scope::Cluster) => cas!("acquire", "cta"),
                #[cfg(coop_sm90)]
                (Ordering::Release, Scope::Cluster) => cas!("release", "cluster"),
                #[cfg(not(coop_sm90))]
                (Ordering::Release, Scope::Cluster) => cas!("release", "cta"),
                #[cfg(coop_sm90)]
                (Ordering::AcqRel, Scope::Cluster) => cas!("acq_rel", "cluster"),
                #[cfg(not(coop_sm90))]
                (Ordering::AcqRel, Scope::Cluster) => cas!("acq_rel", "cta"),
            }
        }
    }

    #[inline(always)]
    unsafe fn atomic_load(
        ptr: *mut u8,
        word: Word,
        scope: Scope,
        ordering: Ordering,
        _site: Site,
    ) -> u64 {
        let p = ptr as u64;
        macro_rules! ld {
            ($sem:literal, $scope:literal) => {
                if word.wide() {
                    let v: u64;
                    asm!(concat!(global!(), "ld.", $sem, ".", $scope, ".global.b64 {v}, [%ga]; }}"),
                        v = out(reg64) v, p = in(reg64) p, options(nostack));
                    v
                } else {
                    let v: u32;
                    asm!(concat!(global!(), "ld.", $sem, ".", $scope, ".global.b32 {v}, [%ga]; }}"),
                        v = out(reg32) v, p = in(reg64) p, options(nostack));
                    v as u64
                }
            };
        }
        // SAFETY: as for `atomic_rmw`.
        unsafe {
            match (ordering, scope) {
                (Ordering::Relaxed | Ordering::Release, Scope::Block) => ld!("relaxed", "cta"),
                (Ordering::Relaxed | Ordering::Release, Scope::Device) => ld!("relaxed", "gpu"),
                (Ordering::Relaxed | Ordering::Release, Scope::System) => ld!("relaxed", "sys"),
                (Ordering::Acquire | Ordering::AcqRel, Scope::Block) => ld!("acquire", "cta"),
                (Ordering::Acquire | Ordering::AcqRel, Scope::Device) => ld!("acquire", "gpu"),
                (Ordering::Acquire | Ordering::AcqRel, Scope::System) => ld!("acquire", "sys"),
                #[cfg(coop_sm90)]
                (Ordering::Relaxed | Ordering::Release, Scope::Cluster) => {
                    ld!("relaxed", "cluster")
                }
                #[cfg(not(coop_sm90))]
                (Ordering::Relaxed | Ordering::Release, Scope::Cluster) => ld!("relaxed", "cta"),
                #[cfg(coop_sm90)]
                (Ordering::Acquire | Ordering::AcqRel, Scope::Cluster) => ld!("acquire", "cluster"),
                #[cfg(not(coop_sm90))]
                (Ordering::Acquire | Ordering::AcqRel, Scope::Cluster) => ld!("acquire", "cta"),
            }
        }
    }

    #[inline(always)]
    unsafe fn atomic_store(
        ptr: *mut u8,
        word: Word,
        value: u64,
        scope: Scope,
        ordering: Ordering,
        _site: Site,
    ) {
        let p = ptr as u64;
        macro_rules! st {
            ($sem:literal, $scope:literal) => {
                if word.wide() {
                    asm!(concat!(global!(), "st.", $sem, ".", $scope, ".global.b64 [%ga], {v}; }}"),
                        p = in(reg64) p, v = in(reg64) value, options(nostack));
                } else {
                    asm!(concat!(global!(), "st.", $sem, ".", $scope, ".global.b32 [%ga], {v}; }}"),
                        p = in(reg64) p, v = in(reg32) value as u32, options(nostack));
                }
            };
        }
        // SAFETY: as for `atomic_rmw`.
        unsafe {
            match (ordering, scope) {
                (Ordering::Relaxed | Ordering::Acquire, Scope::Block) => st!("relaxed", "cta"),
                (Ordering::Relaxed | Ordering::Acquire, Scope::Device) => st!("relaxed", "gpu"),
                (Ordering::Relaxed | Ordering::Acquire, Scope::System) => st!("relaxed", "sys"),
                (Ordering::Release | Ordering::AcqRel, Scope::Block) => st!("release", "cta"),
                (Ordering::Release | Ordering::AcqRel, Scope::Device) => st!("release", "gpu"),
                (Ordering::Release | Ordering::AcqRel, Scope::System) => st!("release", "sys"),
                #[cfg(coop_sm90)]
                (Ordering::Relaxed | Ordering::Acquire, Scope::Cluster) => {
                    st!("relaxed", "cluster")
                }
                #[cfg(not(coop_sm90))]
                (Ordering::Relaxed | Ordering::Acquire, Scope::Cluster) => st!("relaxed", "cta"),
                #[cfg(coop_sm90)]
                (Ordering::Release | Ordering::AcqRel, Scope::Cluster) => st!("release", "cluster"),
                #[cfg(not(coop_sm90))]
                (Ordering::Release | Ordering::AcqRel, Scope::Cluster) => st!("release", "cta"),
            }
        }
    }
}

/// Shared-memory atomics, relaxed at block scope (a shared array is the
/// block's: its barriers order everything else), on the element's
/// shared-window address.
impl Ptx {
    /// `atom.relaxed.cta.shared.{op}.{type}`; the value's bits as for
    /// [`Atomics::atomic_rmw`].
    ///
    /// # Safety
    ///
    /// `address` is an aligned, in-bounds shared-window address of a value
    /// of `word`'s type; the operation is one the word has.
    #[inline(always)]
    pub(super) unsafe fn shared_rmw(address: u32, word: Word, op: Rmw, value: u64) -> u64 {
        let (v32, v64) = (value as u32, value);
        macro_rules! n32 {
            ($inst:literal) => {{
                let old: u32;
                asm!(concat!("atom.relaxed.cta.shared.", $inst, " {o}, [{a}], {v};"),
                    o = out(reg32) old, a = in(reg32) address, v = in(reg32) v32, options(nostack));
                old as u64
            }};
        }
        macro_rules! n64 {
            ($inst:literal) => {{
                let old: u64;
                asm!(concat!("atom.relaxed.cta.shared.", $inst, " {o}, [{a}], {v};"),
                    o = out(reg64) old, a = in(reg32) address, v = in(reg64) v64, options(nostack));
                old
            }};
        }
        // SAFETY: the caller's precondition.
        unsafe {
            if op == Rmw::Exchange {
                return if word.wide() {
                    n64!("exch.b64")
                } else {
                    n32!("exch.b32")
                };
            }
            by_op!(op, word, n32, n64)
        }
    }

    /// `red.relaxed.cta.shared.{op}.{type}`.
    ///
    /// # Safety
    ///
    /// As for [`shared_rmw`](Self::shared_rmw).
    #[inline(always)]
    pub(super) unsafe fn shared_reduce(address: u32, word: Word, op: Rmw, value: u64) {
        let (v32, v64) = (value as u32, value);
        macro_rules! n32 {
            ($inst:literal) => {
                asm!(concat!("red.relaxed.cta.shared.", $inst, " [{a}], {v};"),
                    a = in(reg32) address, v = in(reg32) v32, options(nostack))
            };
        }
        macro_rules! n64 {
            ($inst:literal) => {
                asm!(concat!("red.relaxed.cta.shared.", $inst, " [{a}], {v};"),
                    a = in(reg32) address, v = in(reg64) v64, options(nostack))
            };
        }
        // SAFETY: the caller's precondition.
        unsafe {
            if op == Rmw::Exchange {
                Self::shared_rmw(address, word, op, value);
                return;
            }
            by_op!(op, word, n32, n64)
        }
    }

    /// `atom.relaxed.cta.shared.cas.b32/.b64`.
    ///
    /// # Safety
    ///
    /// As for [`shared_rmw`](Self::shared_rmw).
    #[inline(always)]
    pub(super) unsafe fn shared_cas(address: u32, word: Word, expected: u64, new: u64) -> u64 {
        // SAFETY: the caller's precondition.
        unsafe {
            if word.wide() {
                let old: u64;
                asm!("atom.relaxed.cta.shared.cas.b64 {o}, [{a}], {c}, {n};",
                    o = out(reg64) old, a = in(reg32) address, c = in(reg64) expected,
                    n = in(reg64) new, options(nostack));
                old
            } else {
                let old: u32;
                asm!("atom.relaxed.cta.shared.cas.b32 {o}, [{a}], {c}, {n};",
                    o = out(reg32) old, a = in(reg32) address, c = in(reg32) expected as u32,
                    n = in(reg32) new as u32, options(nostack));
                old as u64
            }
        }
    }
}
