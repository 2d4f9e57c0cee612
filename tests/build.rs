//! Builds the test kernels (`tests/kernels`) to PTX for the PTX, CPU-backend and GPU tests.
//! Also rebuilds coop-host's own kernels, whose PTX coop-host ships as text
//! (`host/ptx/`), so that `tests/ptx.rs` can check the shipped files are
//! what the sources give.
fn main() {
    coop_build::PtxBuilder::new("kernels")
        .watch("../gpu/src")
        .build_or_exit();
    // One module a family of coop-host's kernels, as coop-host ships them.
    for family in ["reduce", "transform", "arg", "scan", "segmented"] {
        coop_build::PtxBuilder::new("../host/kernels")
            .features(&[family])
            .name(&format!("coop-host-kernels-{family}"))
            .watch("../gpu/src")
            .silent_panics()
            .build_or_exit();
    }
}
