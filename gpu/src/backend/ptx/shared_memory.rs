//! Shared arrays on the GPU: static arrays as module-level `.shared`
//! symbols (declared and bound by the macros `#[kernel]` expands to), the
//! launch's dynamic shared memory, and element loads and stores with
//! `ld.shared`/`st.shared` on 32-bit shared-window addresses (generic loads
//! and stores, which a Rust pointer would give, are slower).

use super::Ptx;
use crate::backend::elements::SharedElem;
use crate::backend::{ElemShape, Rmw, SharedMemory, Site, Word};

// The launch's dynamic shared memory (`extern __shared__` in CUDA): every
// kernel that binds a `Shared<[E]>` sees it, after its static arrays.
core::arch::global_asm!(".extern .shared .align 16 .b8 coop_dynamic_shared[];");

/// A shared array's shared-window byte address.
#[derive(Clone, Copy)]
pub(crate) struct SharedBase(pub(super) u32);

/// Declares the static shared array `$symbol` of type `$array` as a
/// module-level `.shared` symbol (an item; `#[kernel]` expands to it).
#[doc(hidden)]
#[macro_export]
macro_rules! __coop_declare_static_shared_ptx {
    ($symbol:literal, $param:ty) => {
        ::coop::__private::core::arch::global_asm!(
            concat!(".shared .align {align} .b8 ", $symbol, "[{bytes}];"),
            align = const <$param as ::coop::shared::SharedParam>::ALIGN,
            bytes = const <$param as ::coop::shared::SharedParam>::BYTES,
        );
    };
}

/// The `Shared<$array>` of the symbol `$symbol` declared by
/// `coop_declare_static_shared!` (an expression; `#[kernel]` expands to it
/// once per thread).
#[doc(hidden)]
#[macro_export]
macro_rules! __coop_bind_static_shared_ptx {
    ($symbol:literal, $key:literal, $name:literal, $param:ty) => {{
        let window: u32;
        // SAFETY: reads the address of the array declared for this kernel.
        unsafe {
            ::coop::__private::core::arch::asm!(
                concat!("mov.u32 {0}, ", $symbol, ";"),
                out(reg32) window,
                options(pure, nomem, nostack)
            );
        }
        // SAFETY: `window` is this kernel's own array, bound once per thread.
        unsafe { <$param as ::coop::shared::SharedParam>::__bind_static(window) }
    }};
}

macro_rules! shared_word {
    ($load:ident, $store:ident, $t:ty, $reg:ident, $ld:literal, $st:literal) => {
        /// # Safety
        ///
        /// `address` is an in-bounds, aligned shared-window address.
        #[inline(always)]
        unsafe fn $load(address: u32) -> $t {
            let v: $t;
            // SAFETY: the caller passes an in-bounds, aligned shared address.
            unsafe {
                core::arch::asm!($ld, out($reg) v, in(reg32) address, options(readonly, nostack));
            }
            v
        }

        /// # Safety
        ///
        /// As for the load.
        #[inline(always)]
        unsafe fn $store(address: u32, v: $t) {
            // SAFETY: as above.
            unsafe {
                core::arch::asm!($st, in(reg32) address, in($reg) v, options(nostack));
            }
        }
    };
}

shared_word!(
    ld_u8,
    st_u8,
    u16,
    reg16,
    "ld.shared.u8 {0}, [{1}];",
    "st.shared.u8 [{0}], {1};"
);
shared_word!(
    ld_u16,
    st_u16,
    u16,
    reg16,
    "ld.shared.u16 {0}, [{1}];",
    "st.shared.u16 [{0}], {1};"
);
shared_word!(
    ld_u32,
    st_u32,
    u32,
    reg32,
    "ld.shared.u32 {0}, [{1}];",
    "st.shared.u32 [{0}], {1};"
);
shared_word!(
    ld_u64,
    st_u64,
    u64,
    reg64,
    "ld.shared.u64 {0}, [{1}];",
    "st.shared.u64 [{0}], {1};"
);

impl SharedMemory for Ptx {
    type Base = SharedBase;
    type StaticBinding = u32;

    #[inline(always)]
    fn static_shared(
        window: u32,
        _bytes: usize,
        _align: usize,
        _shape: ElemShape,
        _site: Site,
    ) -> SharedBase {
        SharedBase(window)
    }

    #[inline(always)]
    fn dynamic_shared(_name: &'static str, _shape: ElemShape, _site: Site) -> (SharedBase, u32) {
        let (address, bytes): (u32, u32);
        // SAFETY: reads a symbol's address and a special register.
        unsafe {
            core::arch::asm!(
                "mov.u32 {0}, coop_dynamic_shared;",
                "mov.u32 {1}, %dynamic_smem_size;",
                out(reg32) address,
                out(reg32) bytes,
                options(pure, nomem, nostack)
            );
        }
        (SharedBase(address), bytes)
    }

    #[inline(always)]
    fn shared_load<E: SharedElem>(base: SharedBase, index: u32, _site: Site) -> E {
        let size = core::mem::size_of::<E>();
        let align = core::mem::align_of::<E>();
        let address = base.0 + index * size as u32;
        let mut out = core::mem::MaybeUninit::<E>::uninit();
        let p = out.as_mut_ptr() as *mut u8;
        // SAFETY: callers bounds-check `index`; every store below fills `E`'s
        // bytes exactly once, and `SharedElem` makes any bytes a valid `E`.
        unsafe {
            match (size, align) {
                (1, _) => p.write(ld_u8(address) as u8),
                (2, 2..) => (p as *mut u16).write(ld_u16(address)),
                (4, 4..) => (p as *mut u32).write(ld_u32(address)),
                (8, 8..) => (p as *mut u64).write(ld_u64(address)),
                (16, 16..) => {
                    let (a, b, c, d): (u32, u32, u32, u32);
                    core::arch::asm!(
                        "ld.shared.v4.u32 {{{0}, {1}, {2}, {3}}}, [{4}];",
                        out(reg32) a, out(reg32) b, out(reg32) c, out(reg32) d,
                        in(reg32) address,
                        options(readonly, nostack)
                    );
                    (p as *mut [u32; 4]).write([a, b, c, d]);
                }
                (_, 4..) => {
                    for k in 0..size / 4 {
                        (p.add(4 * k) as *mut u32).write(ld_u32(address + 4 * k as u32));
                    }
                }
                _ => {
                    for k in 0..size {
                        p.add(k).write(ld_u8(address + k as u32) as u8);
                    }
                }
            }
            out.assume_init()
        }
    }

    #[inline(always)]
    fn shared_load_array<E: SharedElem, const K: usize>(
        base: SharedBase,
        index: u32,
        site: Site,
    ) -> [E; K] {
        let size = core::mem::size_of::<E>() as u32;
        let bytes = size * K as u32;
        let address = base.0 + index * size;
        if bytes == 16 && (index * size).is_multiple_of(16) {
            let (a, b, c, d): (u32, u32, u32, u32);
            // SAFETY: the caller keeps the K elements inside the array,
            // whose base is aligned to 16, so the address is aligned to
            // the 16 bytes read.
            unsafe {
                core::arch::asm!(
                    "ld.shared.v4.u32 {{{0}, {1}, {2}, {3}}}, [{4}];",
                    out(reg32) a, out(reg32) b, out(reg32) c, out(reg32) d,
                    in(reg32) address,
                    options(readonly, nostack)
                );
            }
            // SAFETY: `[E; K]` is the 16 bytes read (`SharedElem`: any
            // bytes are a valid `E`); `transmute_copy` reads unaligned.
            unsafe { core::mem::transmute_copy(&[a, b, c, d]) }
        } else if bytes == 8 && (index * size).is_multiple_of(8) {
            let (a, b): (u32, u32);
            // SAFETY: as above, 8 bytes aligned to 8.
            unsafe {
                core::arch::asm!(
                    "ld.shared.v2.u32 {{{0}, {1}}}, [{2}];",
                    out(reg32) a, out(reg32) b,
                    in(reg32) address,
                    options(readonly, nostack)
                );
            }
            // SAFETY: as above, 8 bytes.
            unsafe { core::mem::transmute_copy(&[a, b]) }
        } else {
            core::array::from_fn(|k| Self::shared_load(base, index + k as u32, site))
        }
    }

    #[inline(always)]
    fn shared_store<E: SharedElem>(base: SharedBase, index: u32, value: E, _site: Site) {
        let size = core::mem::size_of::<E>();
        let align = core::mem::align_of::<E>();
        let address = base.0 + index * size as u32;
        let p = &value as *const E as *const u8;
        // SAFETY: callers bounds-check `index`; `SharedElem` types have no
        // padding, so every byte read here is initialised.
        unsafe {
            match (size, align) {
                (1, _) => st_u8(address, p.read() as u16),
                (2, 2..) => st_u16(address, (p as *const u16).read()),
                (4, 4..) => st_u32(address, (p as *const u32).read()),
                (8, 8..) => st_u64(address, (p as *const u64).read()),
                (16, 16..) => {
                    let [a, b, c, d] = (p as *const [u32; 4]).read();
                    core::arch::asm!(
                        "st.shared.v4.u32 [{0}], {{{1}, {2}, {3}, {4}}};",
                        in(reg32) address,
                        in(reg32) a, in(reg32) b, in(reg32) c, in(reg32) d,
                        options(nostack)
                    );
                }
                (_, 4..) => {
                    for k in 0..size / 4 {
                        st_u32(address + 4 * k as u32, (p.add(4 * k) as *const u32).read());
                    }
                }
                _ => {
                    for k in 0..size {
                        st_u8(address + k as u32, p.add(k).read() as u16);
                    }
                }
            }
        }
    }

    #[inline(always)]
    fn shared_atomic_rmw(
        base: SharedBase,
        index: u32,
        word: Word,
        op: Rmw,
        value: u64,
        _site: Site,
    ) -> u64 {
        let size = if word.wide() { 8 } else { 4 };
        // SAFETY: the handles check `index` against the array and allow only
        // the word's operations; elements are aligned to their size.
        unsafe { Ptx::shared_rmw(base.0 + index * size, word, op, value) }
    }

    #[inline(always)]
    fn shared_atomic_reduce(
        base: SharedBase,
        index: u32,
        word: Word,
        op: Rmw,
        value: u64,
        _site: Site,
    ) {
        let size = if word.wide() { 8 } else { 4 };
        // SAFETY: as for `shared_atomic_rmw`.
        unsafe { Ptx::shared_reduce(base.0 + index * size, word, op, value) }
    }

    #[inline(always)]
    fn shared_load_remote<E: SharedElem>(base: SharedBase, index: u32, rank: u32, site: Site) -> E {
        #[cfg(coop_sm90)]
        {
            let size = core::mem::size_of::<E>() as u32;
            let local = base.0 + index * size;
            let remote = cluster_address(local, rank, site);
            // SAFETY: the load reads an element of block `rank`'s array,
            // which the caller's phase keeps alive and unwritten (the
            // precondition); `E` is 4 or 8 bytes of plain data
            // (`RemoteElem`).
            unsafe {
                if size == 8 {
                    let v: u64;
                    core::arch::asm!(
                        "ld.shared::cluster.b64 {v}, [{a}];",
                        v = out(reg64) v,
                        a = in(reg32) remote,
                        options(nostack, readonly)
                    );
                    core::mem::transmute_copy(&v)
                } else {
                    let v: u32;
                    core::arch::asm!(
                        "ld.shared::cluster.b32 {v}, [{a}];",
                        v = out(reg32) v,
                        a = in(reg32) remote,
                        options(nostack, readonly)
                    );
                    core::mem::transmute_copy(&v)
                }
            }
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = rank;
            Self::shared_load(base, index, site)
        }
    }

    #[inline(always)]
    fn shared_store_remote<E: SharedElem>(
        base: SharedBase,
        index: u32,
        rank: u32,
        value: E,
        site: Site,
    ) {
        #[cfg(coop_sm90)]
        {
            let size = core::mem::size_of::<E>() as u32;
            let local = base.0 + index * size;
            // SAFETY: as for `shared_load_remote`; no other thread writes
            // the element in this phase (the caller's contract).
            unsafe {
                let remote = cluster_address(local, rank, site);
                if size == 8 {
                    let v: u64 = core::mem::transmute_copy(&value);
                    core::arch::asm!(
                        "st.shared::cluster.b64 [{a}], {v};",
                        a = in(reg32) remote,
                        v = in(reg64) v,
                        options(nostack)
                    );
                } else {
                    let v: u32 = core::mem::transmute_copy(&value);
                    core::arch::asm!(
                        "st.shared::cluster.b32 [{a}], {v};",
                        a = in(reg32) remote,
                        v = in(reg32) v,
                        options(nostack)
                    );
                }
            }
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = rank;
            Self::shared_store(base, index, value, site)
        }
    }

    #[inline(always)]
    fn shared_add_remote(
        base: SharedBase,
        index: u32,
        rank: u32,
        word: Word,
        value: u64,
        site: Site,
    ) {
        #[cfg(coop_sm90)]
        {
            let size = if word.wide() { 8 } else { 4 };
            let local = base.0 + index * size;
            // SAFETY: as for `shared_load_remote`; `word` is one of the four
            // the `red` below takes (the handles' `RemoteAdd` bound).
            unsafe {
                let remote = cluster_address(local, rank, site);
                match word {
                    Word::U64 => core::arch::asm!(
                        "red.relaxed.cluster.shared::cluster.add.u64 [{a}], {v};",
                        a = in(reg32) remote, v = in(reg64) value, options(nostack)
                    ),
                    Word::S32 => core::arch::asm!(
                        "red.relaxed.cluster.shared::cluster.add.s32 [{a}], {v};",
                        a = in(reg32) remote, v = in(reg32) value as u32, options(nostack)
                    ),
                    Word::F32 => core::arch::asm!(
                        "red.relaxed.cluster.shared::cluster.add.f32 [{a}], {v};",
                        a = in(reg32) remote, v = in(reg32) value as u32, options(nostack)
                    ),
                    _ => core::arch::asm!(
                        "red.relaxed.cluster.shared::cluster.add.u32 [{a}], {v};",
                        a = in(reg32) remote, v = in(reg32) value as u32, options(nostack)
                    ),
                }
            }
        }
        #[cfg(not(coop_sm90))]
        {
            let _ = rank;
            Self::shared_atomic_reduce(base, index, word, Rmw::Add, value, site)
        }
    }

    #[inline(always)]
    fn shared_atomic_cas(
        base: SharedBase,
        index: u32,
        word: Word,
        expected: u64,
        new: u64,
        _site: Site,
    ) -> u64 {
        let size = if word.wide() { 8 } else { 4 };
        // SAFETY: as for `shared_atomic_rmw`.
        unsafe { Ptx::shared_cas(base.0 + index * size, word, expected, new) }
    }
}

/// The address in block `rank` of the calling block's cluster that
/// corresponds to the shared-window address `local` in the calling block
/// (`mapa.shared::cluster.u32`): the same array's element in that block.
/// A rank outside the cluster stops the kernel with a report naming
/// `site` (`mapa` of such a rank is undefined), as the CPU backend does.
#[cfg(coop_sm90)]
#[inline(always)]
fn cluster_address(local: u32, rank: u32, site: Site) -> u32 {
    let blocks: u32;
    // SAFETY: reading a special register has no preconditions.
    unsafe {
        core::arch::asm!("mov.u32 {}, %cluster_nctarank;", out(reg32) blocks, options(pure, nomem, nostack));
    }
    if rank >= blocks {
        super::faults::fail(
            c"distributed shared memory: the block rank is outside the cluster",
            site,
        );
    }
    let remote: u32;
    // SAFETY: `mapa` computes an address; it reads no memory.
    unsafe {
        core::arch::asm!(
            "mapa.shared::cluster.u32 {r}, {l}, {k};",
            r = out(reg32) remote,
            l = in(reg32) local,
            k = in(reg32) rank,
            options(pure, nomem, nostack)
        );
    }
    remote
}
