//! Builds the examples' kernel crate (`examples/kernels`) to PTX for
//! `coop_examples::PTX`, rebuilding when coop's kernel-side sources change.

fn main() {
    coop_build::PtxBuilder::new("kernels")
        .watch("../gpu/src")
        .build_or_exit();
}
