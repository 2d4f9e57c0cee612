//! The PTX of coop-host's own kernels (`coop-host-kernels`), one module a
//! family, so that a program loads (and the driver compiles, the first time
//! on a machine) only the families it calls.
//!
//! The PTX ships with the crate as text (`host/ptx/`), built by
//! `coop_build::PtxBuilder` with the pinned toolchain, so that a user's
//! build compiles no device code of coop-host's; a workspace test rebuilds
//! it from `coop-host-kernels` and fails if the two differ. Beside it ship
//! cubins for sm_80 and sm_90 (`host/sass/`, ptxas's output for that PTX),
//! so that an A100-class or H100-class GPU loads machine code and starts
//! at once: the driver's compilation of the PTX took 20 s on a cold H200
//! for the families a program calls first. Other GPUs compile the PTX.

use crate::PtxSet;

/// `PtxSet`s of the family `$name`, from `host/ptx/coop-host-kernels-$name.sm_*.ptx`
/// and `host/sass/coop-host-kernels-$name.sm_*.cubin`.
macro_rules! family {
    ($(#[$doc:meta])* $set:ident = $name:literal) => {
        $(#[$doc])*
        pub static $set: PtxSet = PtxSet::new(
            concat!("coop-host-kernels-", $name),
            &[
                (80, include_str!(concat!("../ptx/coop-host-kernels-", $name, ".sm_80.ptx"))),
                (90, include_str!(concat!("../ptx/coop-host-kernels-", $name, ".sm_90.ptx"))),
            ],
        )
        .with_sass(&[
            (80, include_bytes!(concat!("../sass/coop-host-kernels-", $name, ".sm_80.cubin"))),
            (90, include_bytes!(concat!("../sass/coop-host-kernels-", $name, ".sm_90.cubin"))),
        ]);
    };
}

family!(
    /// The plain reductions and the deterministic sums, which
    /// [`reduce::Reducer::new`](crate::reduce::Reducer::new) loads; load it
    /// yourself to pass the module to
    /// [`Reducer::with_module`](crate::reduce::Reducer::with_module).
    REDUCE_PTX = "reduce"
);
family!(
    /// The transform-reductions through built-in maps (`sum_abs`,
    /// `max_abs`, `sum_squares`, `count_if`), loaded by a `Reducer` at its
    /// first such call.
    TRANSFORM_PTX = "transform"
);
family!(
    /// Arg-min and arg-max, loaded by a `Reducer` at its first such call.
    ARG_PTX = "arg"
);
family!(
    /// The scans, which [`scan::Scanner::new`](crate::scan::Scanner::new)
    /// loads.
    SCAN_PTX = "scan"
);
family!(
    /// The segmented reductions, which
    /// [`segmented::SegmentedReducer::new`](crate::segmented::SegmentedReducer::new)
    /// loads.
    SEGMENTED_PTX = "segmented"
);

family!(
    /// The histograms, which
    /// [`histogram::Histogrammer::new`](crate::histogram::Histogrammer::new)
    /// loads.
    HISTOGRAM_PTX = "histogram"
);

family!(
    /// The selections, which
    /// [`select::Selector::new`](crate::select::Selector::new) loads.
    SELECT_PTX = "select"
);

family!(
    /// Sums by key and run-length encodings, which
    /// [`runs::RunReducer::new`](crate::runs::RunReducer::new) loads.
    RUNS_PTX = "runs"
);

family!(
    /// The radix sorts, which
    /// [`sort::Sorter::new`](crate::sort::Sorter::new) loads.
    SORT_PTX = "sort"
);

family!(
    /// The segmented sorts, which
    /// [`sort::SegmentedSorter::new`](crate::sort::SegmentedSorter::new)
    /// loads.
    SEGMENTED_SORT_PTX = "segmented_sort"
);

/// The families, by the feature of `coop-host-kernels` that holds each.
pub const FAMILIES: [(&str, &PtxSet); 10] = [
    ("reduce", &REDUCE_PTX),
    ("transform", &TRANSFORM_PTX),
    ("arg", &ARG_PTX),
    ("scan", &SCAN_PTX),
    ("segmented", &SEGMENTED_PTX),
    ("histogram", &HISTOGRAM_PTX),
    ("select", &SELECT_PTX),
    ("runs", &RUNS_PTX),
    ("sort", &SORT_PTX),
    ("segmented_sort", &SEGMENTED_SORT_PTX),
];
