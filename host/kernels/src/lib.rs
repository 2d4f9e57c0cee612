//! coop-host's own kernels: the built-in device-wide reductions
//! (`coop::device::reduce`: plain, through a map, and deterministic), scans
//! (`coop::device::scan`), segmented reductions (`coop::device::segmented`),
//! histograms (`coop::device::histogram`), selections
//! (`coop::device::select`), runs of equal keys (`coop::device::runs`),
//! radix sorts with the top-k selections (`coop::device::radix_sort`,
//! `coop::device::top_k`) and segmented sorts
//! (`coop::device::segmented_sort`). One kernel per (operator or map,
//! type).
//!
//! Each family is a cargo feature (all on by default), so that coop-host
//! ships one PTX module per family and a program loads (and the driver
//! compiles) only the families it calls.
#![no_std]

#[cfg(feature = "arg")]
mod arg;
#[cfg(feature = "histogram")]
mod histogram;
#[cfg(feature = "reduce")]
mod reduce;
#[cfg(feature = "runs")]
mod runs;
#[cfg(feature = "scan")]
mod scan;
#[cfg(feature = "segmented")]
mod segmented;
#[cfg(feature = "segmented_sort")]
mod segmented_sort;
#[cfg(feature = "select")]
mod select;
#[cfg(feature = "sort")]
mod sort;
#[cfg(feature = "sort")]
mod top_k;
#[cfg(feature = "transform")]
mod transform;

#[cfg(feature = "arg")]
pub use arg::*;
#[cfg(feature = "histogram")]
pub use histogram::*;
#[cfg(feature = "reduce")]
pub use reduce::*;
#[cfg(feature = "runs")]
pub use runs::*;
#[cfg(feature = "scan")]
pub use scan::*;
#[cfg(feature = "segmented")]
pub use segmented::*;
#[cfg(feature = "segmented_sort")]
pub use segmented_sort::*;
#[cfg(feature = "select")]
pub use select::*;
#[cfg(feature = "sort")]
pub use sort::*;
#[cfg(feature = "sort")]
pub use top_k::*;
#[cfg(feature = "transform")]
pub use transform::*;
