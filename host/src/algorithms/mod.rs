//! coop-host's device-wide algorithms, each written once for both
//! backends: its kernels (in `coop-host-kernels`, calling the kernel halves
//! in `coop::device`) and a plan of launches, which the [`engine`] turns
//! into launches on a GPU or on the CPU backend.
//!
//! | module | calls |
//! |---|---|
//! | [`reduce`] | sums, minima, maxima, transform-reductions, arg-min/arg-max, counts, deterministic float sums |
//! | [`scan`] | inclusive and exclusive scans, deterministic float scans |
//! | [`segmented`] | one reduction per segment of CSR offsets |
//! | [`histogram`] | counts of samples in bins, one channel or interleaved pixels |
//! | [`select`] | the elements that pass a test, compacted in order or partitioned; unique |
//! | [`runs`] | one result a run of equal keys: sums by key, run-length encoding |
//! | [`sort`] | radix sorts of keys, or keys and values, ascending or descending, by all bits or a range |
//! | [`top_k`] | the `k` largest or smallest keys, alone, with their indices or with values |
//!
//! Each is also at the crate root (`coop_host::scan`), where programs name
//! them.

pub(crate) mod engine;
pub mod histogram;
pub mod reduce;
pub mod runs;
pub mod scan;
pub mod segmented;
pub mod select;
pub mod sort;
pub mod top_k;
