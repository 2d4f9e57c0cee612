//! The kernel halves of device-wide algorithms: functions a kernel calls
//! with its block, its buffers and the scratch the host half gives it.
//! `coop_host` runs them (its built-in kernels call them for the built-in
//! types and operators); a kernel of yours calls them for your own types
//! and operators, and `coop_host` runs it the same way.
//!
//! | module | algorithm | host half |
//! |---|---|---|
//! | [`reduce`] | reductions of a whole buffer: one launch or two; transform-reductions, deterministic sums | `coop_host::reduce` |
//! | [`map`] | what each element becomes inside a transform-reduction | `coop_host::reduce::Reducer::transform_reduce_with` |
//! | [`scan`] | inclusive and exclusive scans: one pass with decoupled look-back, or three fixed passes | `coop_host::scan` |
//! | [`segmented`] | one reduction per segment, any lengths in one call | `coop_host::segmented` |
//! | [`segmented_sort`] | each segment's keys, or keys and values, sorted: threads, warps and blocks merge by the segment's length | `coop_host::sort::SegmentedSorter` |
//! | [`histogram`] | counts of samples in bins, for one channel or interleaved pixels | `coop_host::histogram` |
//! | [`select`] | the elements that pass a test, compacted in order, or partitioned | `coop_host::select` |
//! | [`runs`] | one result a run of equal keys: reduce-by-key, run-length encoding | `coop_host::runs` |
//! | [`radix_sort`] | keys, or keys and values, sorted by their bits: one histogram, then one pass a digit | `coop_host::sort` |
//! | [`top_k`] | the `k` largest or smallest keys, by radix selection: a counting pass a digit, then one selection | `coop_host::top_k` |
//!
//! The pieces they share are here too: [`vector`] (tiles loaded as 16-byte
//! vectors) and [`look_back`] (the tiles' status words and the decoupled
//! look-back that single-pass algorithms are made of).

pub(crate) mod arguments;
pub(crate) mod blocked;
pub mod histogram;
pub mod look_back;
pub mod map;
pub mod radix_sort;
pub mod reduce;
pub mod runs;
pub mod scan;
pub mod segmented;
pub mod segmented_sort;
pub mod select;
pub(crate) mod staging;
pub mod top_k;
pub mod vector;
