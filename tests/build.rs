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
        let mut builder = coop_build::PtxBuilder::new("../host/kernels")
            .features(&[family])
            .name(&format!("coop-host-kernels-{family}"))
            .watch("../gpu/src")
            .silent_panics();
        if family == "scan" {
            // Four blocks of 256 threads a multiprocessor instead of three
            // (chapter 7 of the guide has the figures; 8-byte scans spill
            // too much under the cap and run slower).
            let four_byte: Vec<String> = ["sum", "min", "max"]
                .iter()
                .flat_map(|op| ["f32", "i32", "u32"].map(|t| format!("scan_{op}_{t}")))
                .collect();
            let names: Vec<&str> = four_byte.iter().map(String::as_str).collect();
            builder = builder.max_registers(&names, 64);
        }
        builder.build_or_exit();
    }
}
