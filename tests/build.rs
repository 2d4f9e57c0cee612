fn main() {
    coop_host::PtxBuilder::new("kernels")
        .watch("../gpu/src")
        .build_or_exit();
}
