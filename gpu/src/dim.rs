//! `Dim3`: the three-dimensional extents and indices of a launch.

/// A three-dimensional extent or index, as CUDA's `dim3`/`uint3`.
///
/// Block and grid shapes, thread and block indices all use it. Unused
/// dimensions are 1 for extents and 0 for indices.
///
/// ```
/// use coop::Dim3;
/// let _ = coop_host::Cpu::new();
/// let d = Dim3::new(8, 4, 2);
/// assert_eq!(d.volume(), 64);
/// assert_eq!(Dim3::from(256), Dim3::new(256, 1, 1));
/// assert_eq!(Dim3::from((16, 16)), Dim3::new(16, 16, 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(C)]
pub struct Dim3 {
    /// Fastest-varying dimension.
    pub x: u32,
    /// Middle dimension.
    pub y: u32,
    /// Slowest-varying dimension.
    pub z: u32,
}

impl Dim3 {
    /// A shape or index from its three components.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }

    /// `x * y * z`, as a `u64` so that no grid shape overflows it.
    pub const fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }

    /// The row-major linear position of `index` inside this extent
    /// (`x` fastest), as CUDA linearises thread ranks.
    ///
    /// ```
    /// use coop::Dim3;
    /// let block = Dim3::new(4, 2, 2);
    /// assert_eq!(block.linearize(Dim3::new(3, 1, 1)), 3 + 1 * 4 + 1 * 8);
    /// ```
    pub const fn linearize(self, index: Dim3) -> u64 {
        index.x as u64 + self.x as u64 * (index.y as u64 + self.y as u64 * index.z as u64)
    }

    /// [`linearize`](Self::linearize) in 32 bits, for a thread's rank in a
    /// block (at most 1024 threads, so it cannot overflow; 32-bit
    /// arithmetic is what the GPU does cheaply).
    #[inline(always)]
    pub(crate) const fn linearize_u32(self, index: Dim3) -> u32 {
        index.x + self.x * (index.y + self.y * index.z)
    }

    /// [`volume`](Self::volume) in 32 bits, for a block's thread count.
    #[inline(always)]
    pub(crate) const fn volume_u32(self) -> u32 {
        self.x * self.y * self.z
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3::new(x, 1, 1)
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Self {
        Dim3::new(x, y, 1)
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Dim3::new(x, y, z)
    }
}

impl core::fmt::Display for Dim3 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}
