//! Builds the examples' kernel crate (`examples/kernels`) to PTX for
//! `coop_examples::PTX`, rebuilding when coop's kernel-side sources change.

fn main() {
    coop_build::PtxBuilder::new("kernels")
        .watch("../gpu/src")
        // The streaming kernels' shared memory, not their registers, bounds
        // their blocks on a multiprocessor (eight staged, five or six with a
        // 32 KiB ring): they may take more than the 32 registers of the
        // other examples. A cap of 40 made the ring kernels spill, which
        // cost the cp.async pipeline 5 % at 2^28 floats (guide, chapter 7).
        .max_registers(&["stream_staged", "stream_pipeline", "stream_bulk"], 48)
        .build_or_exit();
}
