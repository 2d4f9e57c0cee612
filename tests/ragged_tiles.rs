//! Ragged tiles on the CPU backend: every case of `coop_tests::ragged_cases`
//! against its host reference (`gpu.rs` runs the same cases on a GPU), and
//! the partial-tile rule's advice, which names `ragged_partition`, for a
//! tile and for a block reduction.

use coop_host::{Cpu, Device, LaunchConfig};
use coop_tests::{ragged_cases, TEST_KERNELS_PTX};

#[test]
fn ragged_tiles_match_the_host_on_the_cpu() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    assert_eq!(ragged_cases::check_all(&device, &program).unwrap(), 16);
}

mod kernels {
    use coop::prelude::*;

    /// A block reduction in a block of 120 threads.
    #[kernel]
    pub fn block_sum(block: ThreadBlock, out: Out<u32>) {
        out.write(block.thread_rank() as usize, reduce(&block, 1, op::Sum));
    }

    /// A warp tile of a block of 120 threads: the last would have 24.
    #[kernel]
    pub fn whole_warps(block: ThreadBlock, out: Out<u32>) {
        let warp = block.tiled_partition::<32>();
        out.write(block.thread_rank() as usize, reduce(&warp, 1, op::Sum));
    }
}

#[test]
fn a_partial_tiled_partition_points_at_ragged_partition() {
    let mut out = vec![0u32; 120];
    let err = Cpu::new()
        .launch(kernels::whole_warps, LaunchConfig::new(1, 120), (&mut out,))
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("not a multiple of 32")
            && text.contains("`block.ragged_partition::<32>()`")
            && text.contains("holds the 24 remaining threads"),
        "{text}"
    );
}

#[test]
fn a_block_reduction_in_a_block_of_120_names_the_rule() {
    let mut out = vec![0u32; 120];
    let err = Cpu::new()
        .launch(kernels::block_sum, LaunchConfig::new(1, 120), (&mut out,))
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("from a group of 120 threads")
            && text.contains("reductions and scans split it into warps")
            && text.contains("holds the 24 remaining threads"),
        "{text}"
    );
}
