//! Builds the test kernels (`tests/kernels`) to PTX for the PTX, CPU-backend and GPU tests.
fn main() {
    coop_build::PtxBuilder::new("kernels")
        .watch("../gpu/src")
        .build_or_exit();
}
