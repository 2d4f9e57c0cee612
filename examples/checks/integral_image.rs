//! The integral-image sample's problem (NVIDIA's `shfl_scan`): an 8-bit
//! image of 1920 x 1080 pixels from a fixed seed, its summed-area table by
//! coop's two passes, checked against the host's.

use crate::kernels::integral_image::{integral_columns, integral_rows, Quad, COLUMN_BLOCK};
use coop_host::{Buffer, Device, Dim3, Error, LaunchConfig, Program};

/// `width x height` pixels from a fixed seed.
pub fn image(width: usize, height: usize) -> Vec<u8> {
    let mut seed = 0x9e37_79b9_u32;
    (0..width * height)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed >> 24) as u8
        })
        .collect()
}

/// The pixels as the row pass reads them: 16 a [`Quad`], the first in the
/// low byte of the first word.
pub fn quads(pixels: &[u8]) -> Vec<Quad> {
    pixels
        .chunks(16)
        .map(|c| {
            let word = |w: usize| u32::from_le_bytes(c[4 * w..4 * w + 4].try_into().unwrap());
            Quad([word(0), word(1), word(2), word(3)])
        })
        .collect()
}

/// The host's summed-area table: element `(y, x)` is the sum of the
/// pixels at rows `0..=y`, columns `0..=x`.
pub fn reference(pixels: &[u8], width: usize, height: usize) -> Vec<u32> {
    let mut table = vec![0u32; width * height];
    for y in 0..height {
        let mut row = 0u32;
        for x in 0..width {
            row += pixels[y * width + x] as u32;
            let above = if y > 0 { table[(y - 1) * width + x] } else { 0 };
            table[y * width + x] = row + above;
        }
    }
    table
}

/// An image on a device and the table the passes fill.
pub struct Integral {
    /// The image's pixels as quads.
    pub image: Buffer<Quad>,
    /// The table: row sums after the row pass, the summed-area table after
    /// the column pass.
    pub table: Buffer<u32>,
    /// Pixels a row: 1920, as the row pass's blocks of 120 threads take
    /// (`#[kernel(block = 120)]`).
    pub width: usize,
    /// Rows (a multiple of 8).
    pub height: usize,
}

impl Integral {
    /// Uploads `pixels`, `width x height` of them.
    pub fn new(device: &Device, pixels: &[u8], width: usize, height: usize) -> Result<Self, Error> {
        Ok(Integral {
            image: device.upload(&quads(pixels))?,
            table: device.zeros(width * height)?,
            width,
            height,
        })
    }

    /// The row pass's launch: a block of `width / 16` threads a row.
    pub fn rows_config(&self) -> LaunchConfig {
        LaunchConfig::new(self.height as u32, (self.width / 16) as u32)
    }

    /// The column pass's launch: a block of 32 x 8 threads a strip of 32
    /// columns.
    pub fn columns_config(&self) -> LaunchConfig {
        let (x, y) = COLUMN_BLOCK;
        LaunchConfig::new((self.width / 32) as u32, Dim3::new(x, y, 1))
    }

    /// Runs both passes with coop's kernels.
    pub fn launch(&mut self, program: &Program) -> Result<(), Error> {
        program.launch(
            integral_rows,
            self.rows_config(),
            (&self.image, &mut self.table),
        )?;
        program.launch(
            integral_columns,
            self.columns_config(),
            (&mut self.table, self.width as u32, self.height as u32),
        )
    }
}

/// The first element of `got` that differs from the host's table, as
/// `(row, column, got, want)`.
pub fn first_difference(
    got: &[u32],
    pixels: &[u8],
    width: usize,
    height: usize,
) -> Option<(usize, usize, u32, u32)> {
    let want = reference(pixels, width, height);
    got.iter()
        .zip(&want)
        .position(|(g, w)| g != w)
        .map(|i| (i / width, i % width, got[i], want[i]))
}
