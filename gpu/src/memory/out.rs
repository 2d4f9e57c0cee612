//! `Out<T>`: a kernel's writable device buffer, with bounds-checked
//! writes that report a fault on both targets, and its PTX encoding as a
//! kernel parameter.

use crate::backend::target::Target;
use crate::backend::{Faults, GlobalAccess, GlobalMemory, site};
use crate::kernel::{KernelParam, params};
use core::marker::PhantomData;

/// A writable device buffer shared by every thread of a launch.
///
/// Threads write elements with [`write`](Self::write) and read them back
/// with [`read`](Self::read); the host reads the buffer after the launch. Each element should be written by at most one
/// thread per launch: two threads writing the same element race, and which
/// value remains is unspecified.
///
/// ```
/// use coop::prelude::*;
///
/// #[kernel]
/// pub fn iota(grid: Grid, out: Out<u32>) {
///     let i = grid.thread_rank();
///     if i < out.len() {
///         out.write(i, i as u32);
///     }
/// }
///
/// let mut out = vec![0u32; 5];
/// coop_host::Cpu::new().launch(iota, coop_host::LaunchConfig::new(1, 8), (&mut out,))?;
/// assert_eq!(out, [0, 1, 2, 3, 4]);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub struct Out<'a, T> {
    ptr: *mut T,
    len: usize,
    _buffer: PhantomData<&'a [core::cell::UnsafeCell<T>]>,
}

/// [`Out`] under the name of a vector the kernel reads and writes (CUDA's
/// `float* x` that a solver updates in place): the same type, with
/// [`read`](Out::read) and [`write`](Out::write), passed from the host as
/// `&mut` a buffer.
///
/// ```
/// use coop::prelude::*;
///
/// /// `y = a x + y`, in place.
/// #[kernel]
/// pub fn saxpy(grid: Grid, a: f32, x: &[f32], y: InOut<f32>) {
///     let i = grid.thread_rank();
///     if i < y.len() {
///         y.write(i, a * x[i] + y.read(i));
///     }
/// }
///
/// let x = [1.0f32, 2.0, 3.0];
/// let mut y = vec![10.0f32; 3];
/// coop_host::Cpu::new().launch(saxpy, coop_host::LaunchConfig::new(1, 32), (2.0f32, &x[..], &mut y))?;
/// assert_eq!(y, [12.0, 14.0, 16.0]);
/// # Ok::<(), coop_host::Error>(())
/// ```
pub type InOut<'a, T> = Out<'a, T>;

impl<T: Copy> Out<'_, T> {
    /// Elements in the buffer.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn fill(grid: Grid, out: Out<u8>) {
    ///     let i = grid.thread_rank();
    ///     if i < out.len() {
    ///         out.write(i, 7);
    ///     }
    /// }
    ///
    /// let mut out = vec![0u8; 10]; // fewer elements than threads
    /// Cpu::new().launch(fill, LaunchConfig::new(1, 32), (&mut out,))?;
    /// assert_eq!(out, [7; 10]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn count_if_any(grid: Grid, out: Out<u32>) {
    ///     if !out.is_empty() && grid.thread_rank() == 0 {
    ///         out.write(0, grid.num_threads() as u32);
    ///     }
    /// }
    ///
    /// let mut none: Vec<u32> = Vec::new();
    /// Cpu::new().launch(count_if_any, LaunchConfig::new(1, 32), (&mut none,))?;
    /// let mut one = vec![0u32];
    /// Cpu::new().launch(count_if_any, LaunchConfig::new(1, 32), (&mut one,))?;
    /// assert_eq!(one, [32]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Stores `value` at `index`.
    ///
    /// # Panics
    ///
    /// When `index >= len()`, naming the index, the length and the caller's
    /// `file:line`: on the GPU the thread prints that report and stops the
    /// kernel with `trap`, and the host's next wait returns an error; the
    /// CPU backend's launch returns `Violation::OutOfBounds`, which also
    /// names the parameter.
    ///
    /// Two threads writing one element without a barrier between them (of
    /// one block), or from two blocks, race: the CPU backend reports it
    /// (`Violation::GlobalRace`).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn squares(grid: Grid, out: Out<u64>) {
    ///     let i = grid.thread_rank();
    ///     out.write(i, (i * i) as u64);
    /// }
    ///
    /// let mut out = vec![0u64; 4];
    /// Cpu::new().launch(squares, LaunchConfig::new(1, 4), (&mut out,))?;
    /// assert_eq!(out, [0, 1, 4, 9]);
    ///
    /// // One thread too many: the write past the end is reported, not performed.
    /// let err = Cpu::new().launch(squares, LaunchConfig::new(1, 5), (&mut out,)).unwrap_err();
    /// let report = err.to_string();
    /// assert!(
    ///     report.contains("thread 4 panicked at ")
    ///         && report.contains("Out::write: index 4 is out of bounds for a buffer of 4 elements (the kernel's parameter `out`)"),
    ///     "{report}"
    /// );
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn write(&self, index: usize, value: T) {
        if index >= self.len {
            Target::index_out_of_bounds(
                c"Out::write",
                self.ptr as *const u8,
                index,
                self.len,
                site!(),
            );
        }
        Target::global_access(self.ptr as *const u8, index, GlobalAccess::Write, site!());
        // SAFETY: in bounds, and the buffer is live for the launch.
        unsafe { self.ptr.add(index).write(value) }
    }

    /// The element at `index`: what the host put there, or what a thread
    /// wrote, when that write is ordered before this read.
    ///
    /// Ordered means: by the same thread earlier; by another thread of the
    /// block before a block barrier the reader passed; or by any thread
    /// before a grid sync of a cooperative launch
    /// ([`CooperativeGrid::sync`](crate::CooperativeGrid::sync)). A read of
    /// an element another thread writes without such an order races: the
    /// CPU backend reports it within a block, and across blocks unless the
    /// reading thread has made an atomic access or a fence since the last
    /// grid sync (the flag protocols, which it takes on trust). Panics, on
    /// both targets, when `index` is out of bounds.
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// /// Each thread doubles its element in place.
    /// #[kernel]
    /// pub fn double(grid: Grid, data: Out<u32>) {
    ///     let i = grid.thread_rank();
    ///     if i < data.len() {
    ///         data.write(i, 2 * data.read(i));
    ///     }
    /// }
    ///
    /// let mut data = vec![1u32, 2, 3];
    /// coop_host::Cpu::new().launch(double, coop_host::LaunchConfig::new(1, 4), (&mut data,))?;
    /// assert_eq!(data, [2, 4, 6]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn read(&self, index: usize) -> T {
        if index >= self.len {
            Target::index_out_of_bounds(
                c"Out::read",
                self.ptr as *const u8,
                index,
                self.len,
                site!(),
            );
        }
        Target::global_access(self.ptr as *const u8, index, GlobalAccess::Read, site!());
        // SAFETY: in bounds, and the buffer is live for the launch.
        unsafe { self.ptr.add(index).read() }
    }

    /// Stores `value` at `index` without a bounds check.
    ///
    /// # Safety
    ///
    /// `index < len()`.
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn ones(grid: Grid, out: Out<u32>) {
    ///     let i = grid.thread_rank();
    ///     if i < out.len() {
    ///         // SAFETY: checked just above.
    ///         unsafe { out.write_unchecked(i, 1) };
    ///     }
    /// }
    ///
    /// let mut out = vec![0u32; 3];
    /// Cpu::new().launch(ones, LaunchConfig::new(1, 8), (&mut out,))?;
    /// assert_eq!(out, [1, 1, 1]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub unsafe fn write_unchecked(&self, index: usize, value: T) {
        // SAFETY: the caller keeps `index` in bounds.
        unsafe { self.ptr.add(index).write(value) }
    }

    /// [`read`](Self::read) for an index the caller has checked: no bounds
    /// test in the kernel (one test of a whole range up front instead of
    /// one an element keeps the compiler from holding a predicate for each);
    /// the CPU backend still records the access.
    ///
    /// # Safety
    ///
    /// `index < len()`.
    #[inline(always)]
    #[track_caller]
    pub(crate) unsafe fn read_in_bounds(&self, index: usize) -> T {
        Target::global_access(self.ptr as *const u8, index, GlobalAccess::Read, site!());
        // SAFETY: in bounds (the caller's promise); the buffer is live for
        // the launch.
        unsafe { self.ptr.add(index).read() }
    }

    /// [`write`](Self::write) for an index the caller has checked; as
    /// [`read_in_bounds`](Self::read_in_bounds).
    ///
    /// # Safety
    ///
    /// `index < len()`.
    #[inline(always)]
    #[track_caller]
    pub(crate) unsafe fn write_in_bounds(&self, index: usize, value: T) {
        Target::global_access(self.ptr as *const u8, index, GlobalAccess::Write, site!());
        // SAFETY: in bounds (the caller's promise); the buffer is live for
        // the launch.
        unsafe { self.ptr.add(index).write(value) }
    }

    /// Stores `chunk`, the `lanes` elements at `index..index + lanes`, with
    /// one store instruction (a 16-byte vector store for a 16-byte chunk).
    /// On the CPU backend each element counts as written, as by
    /// [`write`](Self::write).
    ///
    /// # Safety
    ///
    /// `index + lanes <= len()`, `C` is `lanes` values of `T` without
    /// padding, and the element at `index` has `C`'s alignment.
    #[inline(always)]
    #[track_caller]
    pub(crate) unsafe fn write_chunk<C: Copy>(&self, index: usize, lanes: usize, chunk: C) {
        let mut k = 0;
        while k < lanes {
            Target::global_access(
                self.ptr as *const u8,
                index + k,
                GlobalAccess::Write,
                site!(),
            );
            k += 1;
        }
        // SAFETY: in bounds and aligned for `C` (the caller's promise); the
        // buffer is live for the launch.
        unsafe { (self.ptr.add(index) as *mut C).write(chunk) }
    }

    /// The buffer's first element, for patterns `write` does not cover
    /// (atomics, vector stores).
    ///
    /// ```
    /// use coop::prelude::*;
    /// use coop_host::{Cpu, LaunchConfig};
    ///
    /// #[kernel]
    /// pub fn pairs(grid: Grid, out: Out<u32>) {
    ///     let i = grid.thread_rank();
    ///     let pair = out.as_mut_ptr() as *mut [u32; 2];
    ///     // SAFETY: `out` holds 2 * threads elements; thread i owns pair i.
    ///     unsafe { pair.add(i).write([i as u32, 10 * i as u32]) };
    /// }
    ///
    /// let mut out = vec![0u32; 6];
    /// Cpu::new().launch(pairs, LaunchConfig::new(1, 3), (&mut out,))?;
    /// assert_eq!(out, [0, 0, 1, 10, 2, 20]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    pub fn as_mut_ptr(&self) -> *mut T {
        self.ptr
    }
}

/// The element types [`Out::write_array`] stores as vectors: numbers of 4
/// or 8 bytes, whose bits are all value (no padding).
pub trait VectorElement: Copy + sealed::Sealed {
    /// The element's bits, in the low `8 * size_of::<Self>()` bits.
    #[doc(hidden)]
    fn bits(self) -> u64;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! vector_elements {
    ($($t:ty => $bits:expr),*) => {$(
        impl sealed::Sealed for $t {}
        impl VectorElement for $t {
            #[inline(always)]
            fn bits(self) -> u64 {
                let f: fn($t) -> u64 = $bits;
                f(self)
            }
        }
    )*};
}

vector_elements!(
    u32 => |v| v as u64,
    i32 => |v| v as u32 as u64,
    f32 => |v| v.to_bits() as u64,
    u64 => |v| v,
    i64 => |v| v as u64,
    f64 => |v| v.to_bits()
);

/// The `W` 32-bit words of `values` in memory order (little-endian).
#[inline(always)]
fn words<T: VectorElement, const K: usize, const W: usize>(values: [T; K]) -> [u32; W] {
    let per = core::mem::size_of::<T>() / 4;
    let mut out = [0u32; W];
    let mut w = 0;
    while w < W {
        out[w] = (values[w / per].bits() >> (32 * (w % per))) as u32;
        w += 1;
    }
    out
}

impl<T: Copy> Out<'_, T> {
    /// Writes `values` to the `K` elements from `index` on, as one vector
    /// store where the address allows it (CUDA's `reinterpret_cast<uint4
    /// *>(out)[i] = v`): `st.global.v4` for 16 bytes and `st.global.v2` for
    /// 8 bytes at an address aligned to that size, one store an element
    /// otherwise, with the same result. Panics, on both targets, when the
    /// elements do not all lie in the buffer, naming the first that does
    /// not. `T` is a 4- or 8-byte number ([`VectorElement`]).
    ///
    /// ```
    /// use coop::prelude::*;
    ///
    /// /// Each thread writes four consecutive elements.
    /// #[kernel]
    /// pub fn quads(grid: Grid, out: Out<u32>) {
    ///     let i = grid.thread_rank();
    ///     let v = 10 * i as u32;
    ///     out.write_array(4 * i, [v, v + 1, v + 2, v + 3]);
    /// }
    ///
    /// let mut out = vec![0u32; 8];
    /// coop_host::Cpu::new().launch(quads, coop_host::LaunchConfig::new(1, 2), (&mut out,))?;
    /// assert_eq!(out, [0, 1, 2, 3, 10, 11, 12, 13]);
    ///
    /// // A third thread's four elements lie past the end.
    /// let err = coop_host::Cpu::new()
    ///     .launch(quads, coop_host::LaunchConfig::new(1, 3), (&mut out,))
    ///     .unwrap_err();
    /// assert!(err.to_string().contains("Out::write_array: index 8 is out of bounds"), "{err}");
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    #[inline(always)]
    #[track_caller]
    #[doc(alias = "st.global.v4")]
    pub fn write_array<const K: usize>(&self, index: usize, values: [T; K])
    where
        T: VectorElement,
    {
        let site = site!();
        if index >= self.len || self.len - index < K {
            let first_outside = if index >= self.len { index } else { self.len };
            Target::index_out_of_bounds(
                c"Out::write_array",
                self.ptr as *const u8,
                first_outside,
                self.len,
                site,
            );
        }
        let bytes = K * core::mem::size_of::<T>();
        let address = self.ptr.wrapping_add(index) as usize;
        if (bytes == 16 || bytes == 8) && address.is_multiple_of(bytes) {
            let mut k = 0;
            while k < K {
                Target::global_access(self.ptr as *const u8, index + k, GlobalAccess::Write, site);
                k += 1;
            }
            let ptr = self.ptr.wrapping_add(index) as *mut u32;
            if bytes == 16 {
                // SAFETY: the K elements are in bounds (checked above) and
                // start at an address aligned to 16; the words are the
                // elements' bits in memory order.
                unsafe { Target::store_vector(ptr, words::<T, K, 4>(values)) }
            } else {
                // SAFETY: as above, 8 bytes aligned to 8.
                unsafe { Target::store_vector(ptr, words::<T, K, 2>(values)) }
            }
        } else {
            let mut k = 0;
            while k < K {
                // SAFETY: in bounds (checked above).
                unsafe { self.write_in_bounds(index + k, values[k]) };
                k += 1;
            }
        }
    }
}

impl<'a, T> Out<'a, T> {
    /// The same elements as values of `U`, a type of `T`'s size and
    /// alignment (a key's bits as the unsigned integer of its width).
    ///
    /// # Safety
    ///
    /// `U` has `T`'s size and alignment, and every bit pattern is a valid
    /// `U` and a valid `T`.
    #[inline(always)]
    pub(crate) unsafe fn cast<U>(&self) -> Out<'a, U> {
        Out {
            ptr: self.ptr as *mut U,
            len: self.len,
            _buffer: PhantomData,
        }
    }
}

// SAFETY: `OutSlice<T>` pushes a device pointer and an element count,
// which `from_abi` reads back as the same two words.
unsafe impl<T: Copy> KernelParam for Out<'_, T> {
    type Word0 = *mut T;
    type Word1 = usize;
    type Host = params::OutSlice<T>;
    #[inline(always)]
    unsafe fn from_abi(ptr: *mut T, len: usize) -> Self {
        Out {
            ptr,
            len,
            _buffer: PhantomData,
        }
    }
}
