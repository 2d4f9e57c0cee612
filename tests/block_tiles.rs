//! Block-level building blocks (`coop::block`) on the CPU backend: every
//! case of `coop_tests::block_cases` against its host reference, and the
//! errors a block-level call reports. The GPU suite (`gpu.rs`) runs the
//! same cases on a GPU, beside CUB's twins.

use coop_host::Device;
use coop_tests::{block_cases, TEST_KERNELS_PTX};

#[test]
fn block_tiles_match_the_host_on_the_cpu() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    assert_eq!(
        block_cases::check_all(&device, &program, true, true, None),
        604
    );
}

mod errors {
    use coop::block::{self, RadixSort};
    use coop::prelude::*;
    use coop::shared::Shared;
    use coop_host::{Cpu, Error, LaunchConfig};

    /// 32 threads × 4 items need 128 elements of scratch.
    #[kernel]
    pub fn short_scratch(block: ThreadBlock, out: Out<u32>, tile: Shared<[u32; 64]>) {
        let items = [block.thread_rank(); 4];
        let (striped, _) = block::blocked_to_striped(&block, items, tile);
        block::store_striped(&block, striped, &out, 0);
    }

    /// Ranks `shift + place`: past the tile for any shift but 0.
    #[kernel]
    pub fn shifted_ranks(block: ThreadBlock, out: Out<u32>, shift: u32, tile: Shared<[u32; 64]>) {
        let t = block.thread_rank();
        let ranks = [2 * t + shift, 2 * t + 1 + shift];
        let (mine, _) = block::scatter_to_blocked(&block, [t, t], ranks, tile);
        block::store_blocked(&block, mine, &out, 0);
    }

    /// Every item ranked 0, or its place `duplicate` is 0.
    #[kernel]
    pub fn ranked_alike(
        block: ThreadBlock,
        out: Out<u32>,
        duplicate: u32,
        tile: Shared<[u32; 32]>,
    ) {
        let t = block.thread_rank();
        let rank = if duplicate != 0 { t / 2 } else { t };
        let (mine, _) = block::scatter_to_blocked(&block, [t], [rank], tile);
        block::store_blocked(&block, mine, &out, 0);
    }

    /// Sorts by bits `begin..end` of `u32` keys.
    #[kernel]
    pub fn sort_bits(
        block: ThreadBlock,
        out: Out<u32>,
        begin: u32,
        end: u32,
        tile: Shared<[u32; 64]>,
    ) {
        let t = block.thread_rank();
        let (sorted, _) = RadixSort::ascending()
            .bits(begin, end)
            .keys(&block, [t, !t], tile);
        block::store_blocked(&block, sorted, &out, 0);
    }

    /// Ranks by a digit of `width` bits.
    #[kernel]
    pub fn rank_width(block: ThreadBlock, out: Out<u32>, width: u32) {
        let t = block.thread_rank();
        let r = block::radix_rank(&block, [t], 0, width, false);
        block::store_blocked(&block, r, &out, 0);
    }

    fn message<T: std::fmt::Debug>(result: Result<T, Error>) -> String {
        result.expect_err("the launch should fail").to_string()
    }

    #[test]
    fn a_short_scratch_array_is_reported_at_the_call() {
        let mut out = vec![0u32; 128];
        let err = message(Cpu::new().launch(short_scratch, LaunchConfig::new(1, 32), (&mut out,)));
        assert!(
            err.contains("the scratch array has fewer elements than the block's threads × ITEMS"),
            "{err}"
        );
        assert!(err.contains("block_tiles.rs:"), "{err}");
    }

    #[test]
    fn ranks_past_the_tile_are_refused_and_a_permutation_passes() {
        let mut out = vec![0u32; 64];
        Cpu::new()
            .launch(shifted_ranks, LaunchConfig::new(1, 32), (&mut out, 0u32))
            .unwrap();
        assert_eq!(out[..4], [0, 0, 1, 1]);
        let err =
            message(Cpu::new().launch(shifted_ranks, LaunchConfig::new(1, 32), (&mut out, 1u32)));
        assert!(err.contains("a rank is past the tile"), "{err}");
    }

    #[test]
    fn two_items_ranked_alike_are_a_race_on_the_cpu_backend() {
        let mut out = vec![0u32; 32];
        Cpu::new()
            .launch(ranked_alike, LaunchConfig::new(1, 32), (&mut out, 0u32))
            .unwrap();
        let err =
            message(Cpu::new().launch(ranked_alike, LaunchConfig::new(1, 32), (&mut out, 1u32)));
        assert!(
            err.contains("data race on `tile[0]` in shared memory"),
            "{err}"
        );
        assert!(err.contains("block_tiles.rs:"), "{err}");
    }

    #[test]
    fn a_bit_range_past_the_key_is_refused() {
        let mut out = vec![0u32; 64];
        Cpu::new()
            .launch(sort_bits, LaunchConfig::new(1, 32), (&mut out, 0u32, 32u32))
            .unwrap();
        assert!(out.windows(2).all(|w| w[0] <= w[1]));
        for (begin, end) in [(0u32, 33u32), (9, 8)] {
            let err = message(Cpu::new().launch(
                sort_bits,
                LaunchConfig::new(1, 32),
                (&mut out, begin, end),
            ));
            assert!(
                err.contains("the bit range `begin_bit..end_bit` is not within the key's bits"),
                "{err}"
            );
        }
    }

    #[test]
    fn a_ranking_digit_wider_than_four_bits_is_refused() {
        let mut out = vec![0u32; 32];
        for width in [0u32, 5] {
            let err =
                message(Cpu::new().launch(rank_width, LaunchConfig::new(1, 32), (&mut out, width)));
            assert!(err.contains("`width` is not 1 to RANK_BITS (4)"), "{err}");
        }
    }

    #[test]
    fn a_block_of_a_partial_warp_is_refused_by_the_sort() {
        let mut out = vec![0u32; 48];
        let err = message(Cpu::new().launch(
            sort_bits,
            LaunchConfig::new(1, 24),
            (&mut out, 0u32, 32u32),
        ));
        eprintln!("{err}");
        assert!(err.contains("24"), "{err}");
    }
}
