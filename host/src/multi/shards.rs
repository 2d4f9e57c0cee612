//! [`Shards`]: one buffer on each device of a [`Devices`] set, together
//! one sharded array.

use crate::Buffer;

/// One buffer on each device of a [`Devices`](super::Devices) set, in the
/// set's order: together one array, shard 0 first.
///
/// Made by the set ([`scatter`](super::Devices::scatter),
/// [`zeros`](super::Devices::zeros), [`shards`](super::Devices::shards)),
/// which checks that shard `i` lives on device `i`; calls taking shards
/// check it again, since [`get_mut`](Self::get_mut) can swap a buffer.
///
/// ```
/// use coop_host::multi::Devices;
///
/// let devices = Devices::cpu(3)?; // three emulated devices
/// let shards = devices.scatter(&[1u32, 2, 3, 4, 5, 6, 7])?;
/// assert_eq!(shards.lens(), [3, 2, 2]); // the first shards take the remainder
/// assert_eq!(shards.len(), 7);
/// assert_eq!(devices.gather(&shards)?, [1, 2, 3, 4, 5, 6, 7]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Debug)]
pub struct Shards<T> {
    buffers: Vec<Buffer<T>>,
}

impl<T> Shards<T> {
    /// The shards of `buffers`, whose placement the set has checked.
    pub(super) fn new(buffers: Vec<Buffer<T>>) -> Self {
        Shards { buffers }
    }

    /// How many shards: one a device.
    pub fn count(&self) -> usize {
        self.buffers.len()
    }

    /// Elements in all shards together.
    pub fn len(&self) -> usize {
        self.buffers.iter().map(Buffer::len).sum()
    }

    /// Whether every shard is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each shard's length, in the set's order.
    pub fn lens(&self) -> Vec<usize> {
        self.buffers.iter().map(Buffer::len).collect()
    }

    /// The shard on device `rank`.
    pub fn get(&self, rank: usize) -> Option<&Buffer<T>> {
        self.buffers.get(rank)
    }

    /// The shard on device `rank`, to launch kernels on.
    pub fn get_mut(&mut self, rank: usize) -> Option<&mut Buffer<T>> {
        self.buffers.get_mut(rank)
    }

    /// The shards in the set's order.
    pub fn iter(&self) -> std::slice::Iter<'_, Buffer<T>> {
        self.buffers.iter()
    }

    /// The shards, mutable, in the set's order.
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Buffer<T>> {
        self.buffers.iter_mut()
    }

    /// The buffers, shard 0 first.
    pub fn into_buffers(self) -> Vec<Buffer<T>> {
        self.buffers
    }
}

impl<'a, T> IntoIterator for &'a Shards<T> {
    type Item = &'a Buffer<T>;
    type IntoIter = std::slice::Iter<'a, Buffer<T>>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
