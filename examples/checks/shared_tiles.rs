//! The shared-memory banks tutorial's 2-D tiles: five kernels, their
//! outputs, and on the CPU backend the bank transactions per request of
//! their shared stores and loads.

use crate::kernels::shared_tiles::{
    set_col_read_col, set_row_read_col, set_row_read_col_dyn, set_row_read_col_pad,
    set_row_read_row, DIM,
};
use coop_host::{Device, Error, LaunchConfig, Program, Report};

/// One kernel's run.
#[derive(Clone, Debug)]
pub struct TileRun {
    /// The kernel.
    pub name: &'static str,
    /// What it wrote: `out[y * 32 + x]`.
    pub out: Vec<i32>,
    /// What it should write.
    pub expected: Vec<i32>,
    /// Transactions per request of its shared store and load (CPU backend
    /// only).
    pub transactions: Option<(f64, f64)>,
}

/// The kernels, in the order the shared-memory banks tutorial presents
/// them.
pub const KERNELS: [&str; 5] = [
    "set_row_read_row",
    "set_col_read_col",
    "set_row_read_col",
    "set_row_read_col_dyn",
    "set_row_read_col_pad",
];

/// Transactions per request of the store and the load sites of a launch.
fn store_load(report: &Report) -> (f64, f64) {
    use coop::cpu::AccessKind;
    let of = |kind: AccessKind| {
        report
            .shared
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| s.transactions_per_request())
            .fold(0.0, f64::max)
    };
    (of(AccessKind::Write), of(AccessKind::Read))
}

/// Runs every kernel once with one block of 32 x 32 threads.
pub fn run_shared_tiles(device: &Device, program: &Program) -> Result<Vec<TileRun>, Error> {
    let cfg = LaunchConfig::new(1, (DIM as u32, DIM as u32));
    let identity: Vec<i32> = (0..(DIM * DIM) as i32).collect();
    let transposed: Vec<i32> = (0..DIM * DIM)
        .map(|idx| ((idx % DIM) * DIM + idx / DIM) as i32)
        .collect();
    let mut runs = Vec::new();
    for name in KERNELS {
        let mut out = device.zeros::<i32>(DIM * DIM)?;
        let report = match name {
            "set_row_read_row" => program.launch_reporting(set_row_read_row, cfg, (&mut out,))?,
            "set_col_read_col" => program.launch_reporting(set_col_read_col, cfg, (&mut out,))?,
            "set_row_read_col" => program.launch_reporting(set_row_read_col, cfg, (&mut out,))?,
            "set_row_read_col_dyn" => program.launch_reporting(
                set_row_read_col_dyn,
                cfg.with_shared_memory((DIM * DIM * 4) as u32),
                (&mut out,),
            )?,
            _ => program.launch_reporting(set_row_read_col_pad, cfg, (&mut out,))?,
        };
        let expected = if name.starts_with("set_row_read_col") {
            transposed.clone()
        } else {
            identity.clone()
        };
        runs.push(TileRun {
            name,
            out: device.download(&out)?,
            expected,
            transactions: report.as_ref().map(store_load),
        });
    }
    Ok(runs)
}
