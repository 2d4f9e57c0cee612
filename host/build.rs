//! Builds coop-host's own kernels (device-wide reductions) to PTX.
fn main() {
    coop_build::PtxBuilder::new("kernels")
        .watch("../gpu/src")
        .build_or_exit();
}
