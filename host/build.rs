//! Builds coop-host's own kernels (device-wide reductions) to PTX.
fn main() {
    coop_build::PtxBuilder::new("kernels")
        .watch("../gpu/src")
        // The built-in reductions' bounds checks cannot fail on the inputs
        // the Reducer passes; their panic paths only trap, which keeps the
        // launch-bound small reductions as fast as before reports existed.
        .silent_panics()
        .build_or_exit();
}
