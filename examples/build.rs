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
        // The engine-only stream has one warp a block and two blocks a
        // multiprocessor: registers never bound it (48 on sm_90 uncapped).
        .max_registers(&["stream_engine"], 48)
        // Each warp's two rows in `stream_tiles` (16 KiB a block): 53
        // registers uncapped (four blocks a multiprocessor, as 50 would
        // be, registers going to warps 256 at a time); at 48 five, with 4
        // bytes spilled on sm_90 (at 40, 52 bytes).
        .max_registers(&["stream_tiles"], 48)
        // The warp-specialized ones have 288 threads a block: at 32
        // registers (no spill on sm_90) six blocks fit, as their 32 KiB
        // rings allow; uncapped (35-38) only five.
        .max_registers(&["stream_specialized", "stream_specialized_threads"], 32)
        // The block radix sorts of `tile_sort` hold a tile's keys and a
        // block-wide scan of 8 words of digit counts: uncapped they take
        // 105-139 registers; these caps spill at most 12 bytes (128 x 4)
        // and 28 bytes (256 x 8) on sm_90.
        .max_registers(
            &[
                "tile_sort_u32_128x4",
                "tile_sort_u32_128x4_ws",
                "tile_sort_u64_128x4",
                "tile_sort_pairs_u32_128x4",
            ],
            80,
        )
        .max_registers(&["tile_sort_u32_256x8", "tile_sort_u32_256x8_ws"], 128)
        // The warp sort holds 8 keys and their places through a network
        // of shuffles: 60 registers uncapped on sm_90, no spill.
        .max_registers(&["warp_sort_u32_32x8"], 64)
        // The copy-engine transpose's 16.5 KiB of shared memory hold it to
        // 13 blocks of 128 threads a multiprocessor, which 40 registers
        // (what it takes uncapped) still fit.
        .max_registers(&["transpose_tensor"], 40)
        // The block benchmarks run four block collectives a loop trip
        // (`rounds` in bench.rs), which ptxas overlaps: uncapped the integer
        // scans take 52 registers (32-bit) and 80 (64-bit) on sm_90, too
        // many for a block of 1024 threads. At 64 the 64-bit scans spill
        // 64 bytes, the others nothing.
        .max_registers(
            &[
                "block_scan_f32",
                "block_scan_f64",
                "block_scan_i32",
                "block_scan_u32",
                "block_scan_i64",
                "block_scan_u64",
            ],
            64,
        )
        // The 64-bit block reductions fit 40 (37 used on sm_90) without a
        // spill.
        .max_registers(&["block_reduce_i64", "block_reduce_u64"], 40)
        // The block benchmarks declared for each block size
        // (`block_reduce_<type>_<threads>`, `block_scan_...`) carry no cap:
        // like the CUB kernels they are timed against, they take what
        // their launch bounds allow (tests/ptx.rs lets them).
        .build_or_exit();
}
