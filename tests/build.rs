//! Builds the test kernels (`tests/kernels`) to PTX for the PTX, CPU-backend and GPU tests.
//! Also rebuilds coop-host's own kernels, whose PTX coop-host ships as text
//! (`host/ptx/`), so that `tests/ptx.rs` can check the shipped files are
//! what the sources give.
fn main() {
    coop_build::PtxBuilder::new("kernels")
        .watch("../gpu/src")
        .build_or_exit();
    coop_build::PtxBuilder::new("../host/kernels")
        .watch("../gpu/src")
        .silent_panics()
        .build_or_exit();
}
