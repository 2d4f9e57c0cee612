//! [`TensorMap`] and [`TensorMapMut`]: the host's descriptions of 1- to
//! 5-D arrays in device memory, for a kernel's tensor copies and tensor
//! stores; the layouts they accept are listed on [`TensorMap`].

use crate::args::{CpuArg, GpuArg, PushWords, RawWords};
use crate::{Buffer, Device, Error, Gpu};
use coop::kernel::params::{TensorTiles, TensorTilesOut};
use coop::kernel::NoWord;
use coop::memory::tensor::{CpuTensorLayout, TensorElem, TensorMapData};
use coop::memory::tile::TileArray;
use cudarc::driver::{sys, CudaSlice, CudaView, LaunchArgs, PushKernelArg};
use std::any::type_name;
use std::marker::PhantomData;

/// What a tile's elements outside the array land as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutOfBounds {
    /// Zeros (every element type).
    #[default]
    Zero,
    /// NaN (`f32` and `f64` only).
    Nan,
}

/// How an array lies in memory: its sizes, its strides and the fill of
/// tiles that hang over its edges. Sizes and strides are in elements,
/// outermost dimension first, like the tile's type; without strides the
/// array is dense (row after row). An array of sizes converts into a dense
/// layout filled with zeros.
///
/// ```
/// use coop_host::{OutOfBounds, TensorLayout};
/// let dense: TensorLayout<[usize; 2]> = [480, 640].into();
/// assert_eq!(dense, TensorLayout::new([480, 640]));
/// let padded = TensorLayout::new([480, 640]).strides([656, 1]).fill(OutOfBounds::Nan);
/// assert_ne!(padded, dense);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorLayout<D> {
    dims: D,
    strides: Option<D>,
    fill: OutOfBounds,
}

impl<D> TensorLayout<D> {
    /// A dense array of sizes `dims` (outermost first), zero-filled.
    pub fn new(dims: D) -> Self {
        TensorLayout {
            dims,
            strides: None,
            fill: OutOfBounds::Zero,
        }
    }

    /// The array's strides in elements, outermost first; the innermost
    /// must be 1.
    pub fn strides(self, strides: D) -> Self {
        TensorLayout {
            strides: Some(strides),
            ..self
        }
    }

    /// What elements of a tile outside the array land as.
    pub fn fill(self, fill: OutOfBounds) -> Self {
        TensorLayout { fill, ..self }
    }
}

impl<D> From<D> for TensorLayout<D> {
    fn from(dims: D) -> Self {
        TensorLayout::new(dims)
    }
}

/// Where the descriptor lies.
#[derive(Debug)]
enum Descriptor {
    /// The driver's 128 bytes, in device memory, at a 128-byte aligned
    /// `offset` of `buffer` (the copy engine reads maps aligned to 64
    /// bytes; stream-ordered allocations promise less).
    Gpu {
        buffer: CudaSlice<u8>,
        offset: usize,
    },
    /// coop's description, in host memory.
    Cpu(Box<TensorMapData>),
}

impl Descriptor {
    /// The PTX word of a GPU launch: the map's address in device memory;
    /// `None` for a map of the CPU backend.
    fn gpu_word(&self) -> Option<DescriptorWord<'_>> {
        match self {
            Descriptor::Gpu { buffer, offset } => {
                Some(DescriptorWord(buffer.slice(*offset..*offset + 128), 0))
            }
            Descriptor::Cpu(_) => None,
        }
    }

    /// The words of a CPU-backend launch: the address of coop's layout;
    /// `None` for a map on a GPU.
    fn cpu_words(&self) -> Option<(*const TensorMapData, NoWord)> {
        match self {
            Descriptor::Cpu(data) => Some((&**data as *const TensorMapData, NoWord)),
            Descriptor::Gpu { .. } => None,
        }
    }
}

/// Tiles of type `T` of an array in device memory, as a launch argument
/// for a kernel's [`coop::memory::tensor::TensorMap<T>`] parameter: the
/// host's description of a 1- to 5-D array in device memory, for a
/// kernel's tensor copies
/// ([`Stages::load_tensor`](coop::memory::pipeline::Stages::load_tensor)).
///
/// A map is typed by the tile it moves, the same Rust array type the
/// kernel's [`coop::memory::tensor::TensorMap<T>`] parameter names
/// (outermost dimension first: `[[f32; 64]; 32]` is 32 rows of 64), and
/// borrows the array for as long as it lives. On a GPU it is the driver's
/// descriptor (`cuTensorMapEncodeTiled`), copied into device memory; on
/// the CPU backend coop's own description of the same array. Both refuse
/// the same layouts, with [`Error::InvalidArgument`] naming what was wrong
/// and what is allowed:
///
/// - sizes from 1 to 2^32 elements per dimension, outermost first;
/// - strides (elements, outermost first) with 1 for the innermost
///   dimension and, for the others, a multiple of 16 bytes below 2^40
///   bytes; every element the sizes and strides reach inside the buffer;
/// - the array's first element 16-byte aligned;
/// - tiles of at most 256 elements along each dimension, whose rows (the
///   innermost dimension) are a multiple of 16 bytes;
/// - NaN as the out-of-bounds fill only for `f32` and `f64`.
///
/// A GPU before sm_90 has no copy engine for tensor copies: building a map
/// for one is [`Error::Unavailable`].
///
/// ```
/// use coop_host::{OutOfBounds, TensorLayout, TensorMap};
///
/// // A 100 x 100 matrix stored with rows of 128 floats, in tiles of 32 x 32.
/// let data = vec![1.0f32; 100 * 128];
/// let layout = TensorLayout::new([100, 100]).strides([128, 1]).fill(OutOfBounds::Nan);
/// let map = TensorMap::<[[f32; 32]; 32]>::cpu(&data, layout)?;
/// assert_eq!(map.dims(), [100, 100]);
///
/// // Rows of 99 floats are 396 bytes: not a multiple of 16.
/// let err = TensorMap::<[[f32; 32]; 32]>::cpu(&data, TensorLayout::new([100, 99]).strides([99, 1]));
/// assert!(err.unwrap_err().to_string().contains("multiple of 16 bytes"));
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Debug)]
pub struct TensorMap<'a, T: TileArray>
where
    T::Elem: TensorElem,
{
    descriptor: Descriptor,
    layout: CpuTensorLayout,
    _array: PhantomData<&'a [T::Elem]>,
    _tile: PhantomData<T>,
}

impl<'a, T: TileArray> TensorMap<'a, T>
where
    T::Elem: TensorElem,
{
    /// A map of `buffer`, on whichever device it lives: the GPU of
    /// `device`, or the CPU backend.
    ///
    /// ```
    /// use coop_host::{Device, TensorMap};
    /// let device = Device::cpu();
    /// let image = device.upload(&vec![0u8; 64 * 48])?;
    /// let map = TensorMap::<[[u8; 16]; 8]>::new(&device, &image, [48, 64])?;
    /// assert_eq!(map.dims(), [48, 64]);
    /// # Ok::<(), coop_host::Error>(())
    /// ```
    pub fn new(
        device: &Device,
        buffer: &'a Buffer<T::Elem>,
        layout: impl Into<TensorLayout<T::Dims>>,
    ) -> Result<Self, Error> {
        Self::on_device("TensorMap::new", device, buffer, layout.into())
    }

    fn on_device(
        call: &'static str,
        device: &Device,
        buffer: &'a Buffer<T::Elem>,
        layout: TensorLayout<T::Dims>,
    ) -> Result<Self, Error> {
        match (device, buffer) {
            (Device::Gpu(gpu), Buffer::Gpu(slice)) => Self::on_gpu(call, gpu, slice, layout),
            (Device::Cpu(_), Buffer::Cpu(data)) => Self::on_cpu(call, data, layout),
            _ => Err(Error::InvalidArgument {
                call,
                problem: format!(
                    "the buffer lives on the other device than {}; upload it with the same `Device`",
                    device.describe()
                ),
            }),
        }
    }

    /// A map of `data` in host memory, for a launch on the CPU backend.
    pub fn cpu(
        data: &'a [T::Elem],
        layout: impl Into<TensorLayout<T::Dims>>,
    ) -> Result<Self, Error> {
        Self::on_cpu("TensorMap::cpu", data, layout.into())
    }

    fn on_cpu(
        call: &'static str,
        data: &'a [T::Elem],
        layout: TensorLayout<T::Dims>,
    ) -> Result<Self, Error> {
        let layout = Self::check(call, data.as_ptr() as u64, data.len(), layout)?;
        Ok(TensorMap {
            descriptor: Descriptor::Cpu(Box::new(TensorMapData::from_cpu_layout(layout))),
            layout,
            _array: PhantomData,
            _tile: PhantomData,
        })
    }

    /// A map of `data` on `gpu`, an sm_90 GPU or newer.
    pub fn gpu(
        gpu: &Gpu,
        data: &'a CudaSlice<T::Elem>,
        layout: impl Into<TensorLayout<T::Dims>>,
    ) -> Result<Self, Error> {
        Self::on_gpu("TensorMap::gpu", gpu, data, layout.into())
    }

    fn on_gpu(
        call: &'static str,
        gpu: &Gpu,
        data: &'a CudaSlice<T::Elem>,
        layout: TensorLayout<T::Dims>,
    ) -> Result<Self, Error> {
        let sm = gpu.limits().sm;
        if sm < 90 {
            return Err(Error::Unavailable {
                call,
                reason: format!(
                    "tensor copies need the copy engine of sm_90 or newer; this GPU is sm_{sm}. \
                     Load the tiles with `Stages::load` instead"
                ),
            });
        }
        let (address, _record) = cudarc::driver::DevicePtr::device_ptr(data, gpu.stream());
        let layout = Self::check(call, address, data.len(), layout)?;
        let rank = layout.rank as usize;
        let element_strides = [1u32; 5];
        let mut map = sys::CUtensorMap { opaque: [0; 16] };
        let data_type: sys::CUtensorMapDataType =
            // SAFETY: `TensorElem::DATA_TYPE` holds one of the enum's codes
            // (0 to 8), as its definition lists them.
            unsafe { std::mem::transmute::<u32, sys::CUtensorMapDataType>(T::Elem::DATA_TYPE) };
        let fill = match layout.nan_fill {
            0 => sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            _ => sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA,
        };
        // SAFETY: every array holds at least `rank` entries (the strides
        // `rank - 1`, from the second dimension on), as the driver reads
        // them; `map` is the 128 bytes it writes.
        let result = unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut map,
                data_type,
                rank as u32,
                address as *mut std::ffi::c_void,
                layout.dims.as_ptr(),
                layout.strides[1..].as_ptr(),
                layout.boxes.as_ptr(),
                element_strides.as_ptr(),
                sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                match T::SWIZZLE {
                    32 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
                    64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
                    128 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
                    _ => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
                },
                sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                fill,
            )
        };
        result.result().map_err(|source| Error::Driver {
            action: format!("encoding a tensor map of tiles `{}`", type_name::<T>()),
            source,
        })?;
        let mut buffer = gpu.zeros::<u8>(256)?;
        let base = {
            let (base, _record) = cudarc::driver::DevicePtr::device_ptr(&buffer, gpu.stream());
            base
        };
        let offset = (base.next_multiple_of(128) - base) as usize;
        let bytes: Vec<u8> = map.opaque.iter().flat_map(|w| w.to_ne_bytes()).collect();
        {
            let mut place = buffer.slice_mut(offset..offset + 128);
            gpu.stream()
                .memcpy_htod(&bytes, &mut place)
                .map_err(gpu.error("copying a tensor map to the GPU"))?;
        }
        Ok(TensorMap {
            descriptor: Descriptor::Gpu { buffer, offset },
            layout,
            _array: PhantomData,
            _tile: PhantomData,
        })
    }

    /// The array's sizes, outermost first.
    pub fn dims(&self) -> T::Dims
    where
        T::Dims: Default + AsMut<[usize]>,
    {
        let mut dims = T::Dims::default();
        let rank = T::RANK;
        for (k, d) in dims.as_mut().iter_mut().enumerate() {
            *d = self.layout.dims[rank - 1 - k] as usize;
        }
        dims
    }

    /// Checks `layout` for an array of `len` elements at `address`, and
    /// gives it innermost first as the CPU backend reads it.
    fn check(
        call: &'static str,
        address: u64,
        len: usize,
        layout: TensorLayout<T::Dims>,
    ) -> Result<CpuTensorLayout, Error> {
        let problem = |problem: String| Error::InvalidArgument { call, problem };
        let tile = type_name::<T>();
        let elem = std::mem::size_of::<T::Elem>();
        let rank = T::RANK;
        let dims = layout.dims.as_ref();
        let mut out = CpuTensorLayout {
            data: address,
            elem: elem as u32,
            rank: rank as u32,
            dims: [1; 5],
            strides: [0; 5],
            boxes: T::BOX,
            nan_fill: 0,
            swizzle: T::SWIZZLE,
        };
        for (k, &d) in dims.iter().enumerate() {
            if d == 0 || d as u64 > 1 << 32 {
                return Err(problem(format!(
                    "size {d} of dimension {k} (outermost first) is outside 1 to 2^32"
                )));
            }
            out.dims[rank - 1 - k] = d as u64;
        }
        let strides: Vec<usize> = match layout.strides {
            Some(s) => s.as_ref().to_vec(),
            None => {
                let mut s = vec![1usize; rank];
                for k in (0..rank.saturating_sub(1)).rev() {
                    s[k] = s[k + 1].saturating_mul(dims[k + 1]);
                }
                s
            }
        };
        if strides[rank - 1] != 1 {
            return Err(problem(format!(
                "the innermost stride is {}; tensor copies read the innermost dimension's \
                 elements one after another: its stride must be 1",
                strides[rank - 1]
            )));
        }
        for (k, &s) in strides.iter().enumerate().take(rank - 1) {
            let bytes = s as u128 * elem as u128;
            if !bytes.is_multiple_of(16) || bytes >= 1 << 40 {
                return Err(problem(format!(
                    "the stride of dimension {k} (outermost first) is {s} elements of \
                     `{}`, {bytes} bytes; a stride must be a multiple of 16 bytes below 2^40 \
                     (pad the rows to a multiple of {} elements)",
                    type_name::<T::Elem>(),
                    16 / elem.min(16)
                )));
            }
            out.strides[rank - 1 - k] = bytes as u64;
        }
        out.strides[0] = elem as u64;
        let last: u128 = dims
            .iter()
            .zip(&strides)
            .map(|(&d, &s)| (d as u128 - 1) * s as u128)
            .sum();
        if last >= len as u128 {
            return Err(problem(format!(
                "the sizes {dims:?} and strides {strides:?} reach element {last}, but the \
                 buffer holds {len}"
            )));
        }
        if !address.is_multiple_of(16) {
            return Err(problem(format!(
                "the array starts at address {address:#x}, not 16-byte aligned; tensor copies \
                 read arrays that start on a 16-byte boundary"
            )));
        }
        for (k, &b) in T::BOX[..rank].iter().enumerate() {
            if b == 0 || b > 256 {
                return Err(problem(format!(
                    "the tile `{tile}` has {b} elements along dimension {} (outermost first); \
                     a tensor copy moves 1 to 256",
                    rank - 1 - k
                )));
            }
        }
        let row = T::BOX[0] as usize * elem;
        if !row.is_multiple_of(16) {
            return Err(problem(format!(
                "the tile `{tile}` has rows of {row} bytes; a tensor copy's innermost \
                 dimension must be a multiple of 16 bytes (e.g. {} elements of `{}`)",
                16 / elem.min(16) * (T::BOX[0] as usize).div_ceil(16 / elem.min(16)),
                type_name::<T::Elem>()
            )));
        }
        if layout.fill == OutOfBounds::Nan {
            if !T::Elem::FLOAT {
                return Err(problem(format!(
                    "NaN as the fill of tiles of `{}`: only `f32` and `f64` have a NaN; use \
                     `OutOfBounds::Zero`",
                    type_name::<T::Elem>()
                )));
            }
            out.nan_fill = 1;
        }
        Ok(out)
    }
}

/// Tiles of type `T` of an array in device memory that a kernel stores
/// into, as a launch argument for a kernel's
/// [`coop::memory::tensor::TensorOut<T>`] parameter (and, like a
/// [`TensorMap`], for a [`coop::memory::tensor::TensorMap<T>`] one). It
/// holds the exclusive borrow of the array: nothing else reads or writes
/// it while the map lives. The same layouts are refused as for a
/// [`TensorMap`], and one more: rows (the innermost size) that are not a
/// multiple of 16 bytes, which the copy engine's stores overrun.
///
/// ```
/// use coop_host::TensorMapMut;
/// let mut out = vec![0f32; 64 * 64];
/// let map = TensorMapMut::<[[f32; 32]; 8]>::cpu(&mut out, [64, 64])?;
/// assert_eq!(map.dims(), [64, 64]);
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Debug)]
pub struct TensorMapMut<'a, T: TileArray>
where
    T::Elem: TensorElem,
{
    map: TensorMap<'a, T>,
    _exclusive: PhantomData<&'a mut [T::Elem]>,
}

impl<'a, T: TileArray> TensorMapMut<'a, T>
where
    T::Elem: TensorElem,
{
    /// A map of `buffer`, on whichever device it lives.
    pub fn new(
        device: &Device,
        buffer: &'a mut Buffer<T::Elem>,
        layout: impl Into<TensorLayout<T::Dims>>,
    ) -> Result<Self, Error> {
        let buffer: &'a Buffer<T::Elem> = buffer;
        let layout = Self::check_rows("TensorMapMut::new", layout.into())?;
        Ok(TensorMapMut {
            map: TensorMap::on_device("TensorMapMut::new", device, buffer, layout)?,
            _exclusive: PhantomData,
        })
    }

    /// Stores need rows (the innermost size) of a multiple of 16 bytes: the
    /// copy engine writes a row's last 16 bytes whole, past its end into
    /// the next row's padding otherwise (measured on an H200: a store into
    /// rows of 70 `f32`s pitched at 72 wrote columns 70 and 71).
    fn check_rows(
        call: &'static str,
        layout: TensorLayout<T::Dims>,
    ) -> Result<TensorLayout<T::Dims>, Error> {
        let dims = layout.dims.as_ref();
        let row = dims[dims.len() - 1] * std::mem::size_of::<T::Elem>();
        if !row.is_multiple_of(16) {
            return Err(Error::InvalidArgument {
                call,
                problem: format!(
                    "rows of {} elements of `{}` are {row} bytes; tensor stores write whole \
                     16-byte pieces, so the innermost size of an array they store into must \
                     be a multiple of 16 bytes (map a wider array, and ignore its extra columns)",
                    dims[dims.len() - 1],
                    type_name::<T::Elem>()
                ),
            });
        }
        Ok(layout)
    }

    /// A map of `data` in host memory, for a launch on the CPU backend.
    pub fn cpu(
        data: &'a mut [T::Elem],
        layout: impl Into<TensorLayout<T::Dims>>,
    ) -> Result<Self, Error> {
        let data: &'a [T::Elem] = data;
        let layout = Self::check_rows("TensorMapMut::cpu", layout.into())?;
        Ok(TensorMapMut {
            map: TensorMap::on_cpu("TensorMapMut::cpu", data, layout)?,
            _exclusive: PhantomData,
        })
    }

    /// A map of `data` on `gpu`, an sm_90 GPU or newer.
    pub fn gpu(
        gpu: &Gpu,
        data: &'a mut CudaSlice<T::Elem>,
        layout: impl Into<TensorLayout<T::Dims>>,
    ) -> Result<Self, Error> {
        let data: &'a CudaSlice<T::Elem> = data;
        let layout = Self::check_rows("TensorMapMut::gpu", layout.into())?;
        Ok(TensorMapMut {
            map: TensorMap::on_gpu("TensorMapMut::gpu", gpu, data, layout)?,
            _exclusive: PhantomData,
        })
    }

    /// The array's sizes, outermost first.
    pub fn dims(&self) -> T::Dims
    where
        T::Dims: Default + AsMut<[usize]>,
    {
        self.map.dims()
    }
}

/// The one PTX word of a tensor map parameter: the descriptor's address in
/// device memory.
#[derive(Debug)]
pub struct DescriptorWord<'a>(CudaView<'a, u8>, u64);

impl PushWords for DescriptorWord<'_> {
    fn push<'a>(&'a mut self, args: &mut LaunchArgs<'a>) {
        args.arg(&self.0);
    }
    fn push_raw<'a>(&'a mut self, raw: &mut RawWords<'a>) {
        raw.push_address(&self.0, &mut self.1);
    }
}

// SAFETY: `TensorTiles<T>` reads one word, the address of a tensor map in
// device memory: the descriptor's, which the borrow keeps allocated; the
// map borrows the array it describes for `'a`.
unsafe impl<'m, T: TileArray> GpuArg<TensorTiles<T>> for &TensorMap<'m, T>
where
    T::Elem: TensorElem,
{
    type Words<'a>
        = DescriptorWord<'a>
    where
        Self: 'a;
    fn gpu_words(&mut self) -> Option<DescriptorWord<'_>> {
        self.descriptor.gpu_word()
    }
}

// SAFETY: `TensorTiles<T>` reads the address of a map: the boxed CPU
// description, alive while `self` is borrowed, of an array the map borrows.
unsafe impl<'m, T: TileArray> CpuArg<TensorTiles<T>> for &TensorMap<'m, T>
where
    T::Elem: TensorElem,
{
    fn words(&mut self) -> Option<(*const TensorMapData, NoWord)> {
        self.descriptor.cpu_words()
    }
}

// SAFETY: as for `&TensorMap`: the descriptor's address; the map holds
// the exclusive borrow of the array the kernel writes.
unsafe impl<'m, T: TileArray> GpuArg<TensorTilesOut<T>> for &TensorMapMut<'m, T>
where
    T::Elem: TensorElem,
{
    type Words<'a>
        = DescriptorWord<'a>
    where
        Self: 'a;
    fn gpu_words(&mut self) -> Option<DescriptorWord<'_>> {
        self.map.descriptor.gpu_word()
    }
}

// SAFETY: as for `&TensorMap`.
unsafe impl<'m, T: TileArray> GpuArg<TensorTiles<T>> for &TensorMapMut<'m, T>
where
    T::Elem: TensorElem,
{
    type Words<'a>
        = DescriptorWord<'a>
    where
        Self: 'a;
    fn gpu_words(&mut self) -> Option<DescriptorWord<'_>> {
        self.map.descriptor.gpu_word()
    }
}

// SAFETY: as for `&TensorMap`, of an array the map borrows exclusively.
unsafe impl<'m, T: TileArray> CpuArg<TensorTilesOut<T>> for &TensorMapMut<'m, T>
where
    T::Elem: TensorElem,
{
    fn words(&mut self) -> Option<(*const TensorMapData, NoWord)> {
        self.map.descriptor.cpu_words()
    }
}

// SAFETY: as for `&TensorMap`.
unsafe impl<'m, T: TileArray> CpuArg<TensorTiles<T>> for &TensorMapMut<'m, T>
where
    T::Elem: TensorElem,
{
    fn words(&mut self) -> Option<(*const TensorMapData, NoWord)> {
        self.map.descriptor.cpu_words()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dense_layout_gets_row_major_strides_in_bytes() {
        let data = vec![0f32; 3 * 4 * 8];
        let map = TensorMap::<[[[f32; 4]; 2]; 1]>::cpu(&data, [3, 4, 8]).unwrap();
        assert_eq!(map.layout.dims, [8, 4, 3, 1, 1]);
        assert_eq!(map.layout.strides, [4, 32, 128, 0, 0]);
        assert_eq!(map.layout.boxes, [4, 2, 1, 1, 1]);
    }

    #[test]
    fn each_rule_is_refused_with_its_reason() {
        let data = vec![0f32; 64 * 64];
        let refused = |r: Result<TensorMap<'_, [[f32; 8]; 8]>, Error>, words: &str| {
            let e = r.unwrap_err().to_string();
            assert!(e.contains(words), "{e}");
        };
        refused(TensorMap::cpu(&data, [0, 64]), "outside 1 to 2^32");
        refused(TensorMap::cpu(&data, [65, 64]), "buffer holds 4096");
        refused(
            TensorMap::cpu(&data, TensorLayout::new([64, 62]).strides([62, 1])),
            "multiple of 16 bytes",
        );
        refused(
            TensorMap::cpu(&data, TensorLayout::new([64, 64]).strides([64, 2])),
            "must be 1",
        );
        refused(TensorMap::cpu(&data[1..], [63, 64]), "16-byte aligned");
        let bytes = vec![0u8; 4096];
        let r = TensorMap::<[[u8; 300]; 1]>::cpu(&bytes, [1, 4096]);
        assert!(r.unwrap_err().to_string().contains("1 to 256"));
        let r = TensorMap::<[[u8; 8]; 8]>::cpu(&bytes, [64, 64]);
        assert!(r.unwrap_err().to_string().contains("rows of 8 bytes"));
        let r = TensorMap::<[[u8; 16]; 8]>::cpu(
            &bytes,
            TensorLayout::new([64, 64]).fill(OutOfBounds::Nan),
        );
        assert!(r.unwrap_err().to_string().contains("only `f32` and `f64`"));
        let mut out = vec![0f32; 70 * 72];
        let padded = TensorLayout::new([70, 70]).strides([72, 1]);
        let r = TensorMapMut::<[[f32; 8]; 8]>::cpu(&mut out, padded);
        assert!(r.unwrap_err().to_string().contains("280 bytes"));
        let wider = TensorLayout::new([70, 72]);
        assert!(TensorMapMut::<[[f32; 8]; 8]>::cpu(&mut out, wider).is_ok());
    }
}
