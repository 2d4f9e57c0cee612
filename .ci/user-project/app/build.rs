fn main() {
    coop_build::PtxBuilder::new("../kernels").build_or_exit();
}
