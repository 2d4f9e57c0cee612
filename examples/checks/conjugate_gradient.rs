//! The conjugate-gradient sample's problem (NVIDIA's
//! `conjugateGradientMultiBlockCG`): a random tridiagonal, diagonally
//! dominant symmetric matrix in CSR form, `b` all ones, `x` from zeros;
//! one cooperative launch solves it, and the residual is checked on the
//! host as the sample does.

use crate::kernels::conjugate_gradient::{conjugate_gradient, CG_THREADS};
use coop::Kernel;
use coop_host::{Buffer, Device, Error, LaunchConfig, Program};

/// The sample's tolerance on `sqrt(r·r)`.
pub const CG_TOL: f32 = 1e-5;

/// A CSR matrix.
pub struct Csr {
    /// `rows[i]..rows[i + 1]` are row `i`'s entries.
    pub rows: Vec<i32>,
    /// Each entry's column.
    pub cols: Vec<i32>,
    /// Each entry's value.
    pub val: Vec<f32>,
}

/// The sample's matrix of `n` rows: diagonal entries in `[10, 11)`, the
/// two off-diagonals equal (symmetric) in `[0, 1)`, from a fixed seed.
pub fn tridiagonal(n: usize) -> Csr {
    let mut seed = 0x2545_f491_u64;
    let mut unit = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    let nnz = (n - 2) * 3 + 4;
    let (mut rows, mut cols, mut val) = (vec![0i32; n + 1], vec![0i32; nnz], vec![0f32; nnz]);
    cols[0] = 0;
    cols[1] = 1;
    val[0] = unit() + 10.0;
    val[1] = unit();
    for i in 1..n {
        rows[i] = if i > 1 { rows[i - 1] + 3 } else { 2 };
        let start = (i - 1) * 3 + 2;
        cols[start] = i as i32 - 1;
        cols[start + 1] = i as i32;
        if i < n - 1 {
            cols[start + 2] = i as i32 + 1;
        }
        val[start] = val[start - 1];
        val[start + 1] = unit() + 10.0;
        if i < n - 1 {
            val[start + 2] = unit();
        }
    }
    rows[n] = nnz as i32;
    Csr { rows, cols, val }
}

/// The buffers of one solve on a device.
pub struct Solve {
    /// The matrix.
    pub rows: Buffer<i32>,
    /// Its columns.
    pub cols: Buffer<i32>,
    /// Its values.
    pub val: Buffer<f32>,
    /// The solution, zeros on entry.
    pub x: Buffer<f32>,
    /// `A p`, scratch.
    pub ax: Buffer<f32>,
    /// The search direction, scratch.
    pub p: Buffer<f32>,
    /// The residual, `b` (ones) on entry.
    pub r: Buffer<f32>,
    /// `r·r` at the end, 0 on entry.
    pub result: Buffer<f64>,
    /// The iterations run.
    pub iterations: Buffer<u32>,
}

impl Solve {
    /// Uploads `a` and the starting vectors.
    pub fn new(device: &Device, a: &Csr) -> Result<Solve, Error> {
        let n = a.rows.len() - 1;
        Ok(Solve {
            rows: device.upload(&a.rows)?,
            cols: device.upload(&a.cols)?,
            val: device.upload(&a.val)?,
            x: device.zeros(n)?,
            ax: device.zeros(n)?,
            p: device.zeros(n)?,
            r: device.upload(&vec![1.0f32; n])?,
            result: device.zeros(1)?,
            iterations: device.zeros(1)?,
        })
    }

    /// Puts the starting vectors back (`x` zeros, `r` ones, `result` 0).
    pub fn reset(&mut self, device: &Device, zeros: &[f32], ones: &[f32]) -> Result<(), Error> {
        device.upload_into(zeros, &mut self.x)?;
        device.upload_into(ones, &mut self.r)?;
        device.upload_into(&[0.0], &mut self.result)
    }

    /// Launches `conjugate_gradient` on `blocks` blocks of 512 threads.
    pub fn launch(&mut self, program: &Program, blocks: u32) -> Result<(), Error> {
        self.launch_kernel(
            program,
            conjugate_gradient,
            LaunchConfig::new(blocks, CG_THREADS),
        )
    }

    /// Launches `kernel`, a kernel of `conjugate_gradient`'s parameters
    /// (its unbounded twin, or CUDA's), with `config`.
    pub fn launch_kernel<K>(
        &mut self,
        program: &Program,
        kernel: K,
        config: LaunchConfig,
    ) -> Result<(), Error>
    where
        K: Kernel<Params = <conjugate_gradient as Kernel>::Params>,
    {
        program.launch(
            kernel,
            config,
            (
                &self.rows,
                &self.cols,
                &self.val,
                &mut self.x,
                &mut self.ax,
                &mut self.p,
                &mut self.r,
                &mut self.result,
                &mut self.iterations,
                CG_TOL,
            ),
        )
    }
}

/// The outcome of a solve: iterations, `sqrt(r·r)` as the kernel left it,
/// and the largest `|A x - b|` over the rows, computed on the host.
#[derive(Clone, Copy, Debug)]
pub struct Outcome {
    /// Iterations run.
    pub iterations: u32,
    /// The kernel's last residual norm.
    pub residual: f64,
    /// The host's largest row error.
    pub max_error: f32,
}

impl Outcome {
    /// Whether the solve converged as the sample requires.
    pub fn converged(&self) -> bool {
        self.residual < CG_TOL as f64
    }
}

/// Downloads the solve's outcome and checks `A x = b` on the host.
pub fn outcome(device: &Device, a: &Csr, s: &Solve) -> Result<Outcome, Error> {
    let x = device.download(&s.x)?;
    let mut max_error = 0.0f32;
    for i in 0..x.len() {
        let mut sum = 0.0f32;
        for j in a.rows[i] as usize..a.rows[i + 1] as usize {
            sum += a.val[j] * x[a.cols[j] as usize];
        }
        max_error = max_error.max((sum - 1.0).abs());
    }
    Ok(Outcome {
        iterations: device.download(&s.iterations)?[0],
        residual: device.download(&s.result)?[0].sqrt(),
        max_error,
    })
}
