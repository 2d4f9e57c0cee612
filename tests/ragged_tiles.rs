//! Ragged tiles on the CPU backend: every case of `coop_tests::ragged_cases`
//! against its host reference (`gpu.rs` runs the same cases on a GPU), and
//! the partial-tile rule's advice, which names `ragged_partition`.

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
