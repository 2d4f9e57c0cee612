//! Tensor copies (TMA) into pipeline stages on the CPU backend: every case
//! of `coop_tests::tensor_cases` against its host reference. The GPU suite
//! (`gpu.rs`) runs the same cases on a GPU.

use coop_host::Device;
use coop_tests::{tensor_cases, TEST_KERNELS_PTX};

#[test]
fn tensor_copies_match_the_host_on_the_cpu() {
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    assert!(tensor_cases::check_all(&device, &program, None) >= 30);
}

/// The copy engine faults on a tile whose innermost coordinate is not a
/// multiple of 16 bytes (an illegal instruction on an H200); coop refuses
/// it at the call, and the CPU backend says so in the same words.
#[test]
fn an_innermost_coordinate_off_16_bytes_is_refused_naming_the_rule() {
    use coop_host::{LaunchConfig, TensorMap};
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let data = device.upload(&vec![1.0f32; 64 * 64]).unwrap();
    let map = TensorMap::<[[f32; 32]; 16]>::new(&device, &data, [64, 64]).unwrap();
    for (at, refused) in [
        ([0, 4], false),
        ([0, 2], true),
        ([3, -31], true),
        ([0, -28], false),
    ] {
        let coords = device.upload(&at).unwrap();
        let mut out = device.zeros::<f32>(512).unwrap();
        let result = program.launch(
            coop_test_kernels::tensor_copies::tensor_tiles_2d_f32,
            LaunchConfig::new(1, 64),
            (&map, &coords, &mut out),
        );
        match (refused, result) {
            (false, r) => r.unwrap_or_else(|e| panic!("{at:?}: {e}")),
            (true, Ok(())) => panic!("{at:?}: launched"),
            (true, Err(e)) => {
                let text = e.to_string();
                assert!(text.contains("multiple of 16 bytes"), "{at:?}: {text}");
                assert!(text.contains("load_tensor"), "{at:?}: {text}");
            }
        }
    }
}

/// The copy engine faults on a tensor store that starts before the array
/// (a negative coordinate; an illegal instruction on an H200); coop refuses
/// it at the call, naming the rule.
#[test]
fn a_tensor_store_before_the_array_is_refused_naming_the_rule() {
    use coop_host::{LaunchConfig, TensorMap, TensorMapMut};
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let src = device.upload(&vec![1.0f32; 64 * 64]).unwrap();
    for (moves, refused) in [
        ([0, 0, 0, 0], false),
        ([0, 0, 48, 32], false),
        ([0, 0, -8, 0], true),
        ([0, 0, 0, -16], true),
    ] {
        let mut dst = device.zeros::<f32>(64 * 64).unwrap();
        let moves_buffer = device.upload(&moves).unwrap();
        let result = {
            let from = TensorMap::<[[f32; 32]; 16]>::new(&device, &src, [64, 64]).unwrap();
            let to = TensorMapMut::<[[f32; 32]; 16]>::new(&device, &mut dst, [64, 64]).unwrap();
            program.launch(
                coop_test_kernels::tensor_copies::tensor_move_2d_f32,
                LaunchConfig::new(1, 64),
                (&from, &to, &moves_buffer),
            )
        };
        match (refused, result) {
            (false, r) => r.unwrap_or_else(|e| panic!("{moves:?}: {e}")),
            (true, Ok(())) => panic!("{moves:?}: launched"),
            (true, Err(e)) => {
                let text = e.to_string();
                assert!(text.contains("store_tensor"), "{moves:?}: {text}");
                assert!(text.contains("0 or more"), "{moves:?}: {text}");
            }
        }
    }
}

/// A tile stored from a shared array with an element no thread wrote: the
/// CPU backend reports the read the copy engine would make, at the store.
#[test]
fn a_tensor_store_of_an_unwritten_element_is_reported_at_the_store() {
    use coop_host::{LaunchConfig, TensorMapMut};
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let mut out = device.zeros::<u32>(4 * 32).unwrap();
    let map = TensorMapMut::<[[u32; 32]; 4]>::new(&device, &mut out, [4, 32]).unwrap();
    let e = program
        .launch(
            coop_test_kernels::tensor_copies::tensor_store_unwritten,
            LaunchConfig::new(1, (32, 4)),
            (&map,),
        )
        .unwrap_err();
    let text = e.to_string();
    eprintln!("{text}");
    assert!(text.contains("tensor_copies.rs"), "{text}");
    assert!(text.contains("[0][5]") || text.contains("(0, 5)"), "{text}");
}

/// A bulk tensor reduction that starts before the array is refused at the
/// call, naming the rule, as a store is.
#[test]
fn a_tensor_reduction_before_the_array_is_refused_naming_the_rule() {
    use coop_host::{LaunchConfig, TensorMapMut};
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    for (at, refused) in [
        ([0, 0], false),
        ([-1, 0], true),
        ([0, -4], true),
        ([2, 6], true),
    ] {
        let values = device.upload(&vec![1u32; 128]).unwrap();
        let coords = device.upload(&at).unwrap();
        let mut out = device.zeros::<u32>(8 * 64).unwrap();
        let mut seen = device.zeros::<u32>(128).unwrap();
        let map = TensorMapMut::<[[u32; 32]; 4]>::new(&device, &mut out, [8, 64]).unwrap();
        let result = program.launch(
            coop_test_kernels::tensor_copies::tensor_reduce_sum_u32,
            LaunchConfig::new(1, (32, 4)),
            (&values, &coords, &map, &mut seen),
        );
        match (refused, result) {
            (false, r) => r.unwrap_or_else(|e| panic!("{at:?}: {e}")),
            (true, Ok(())) => panic!("{at:?}: launched"),
            (true, Err(e)) => {
                let text = e.to_string();
                assert!(text.contains("reduce_tensor:"), "{at:?}: {text}");
                assert!(
                    text.contains("coordinates of 0 or more")
                        || text.contains("multiple of 16 bytes"),
                    "{at:?}: {text}"
                );
            }
        }
    }
}

/// A multicast load is one tile for the whole cluster: blocks that name
/// different tiles in the same load are reported with both calls (on a GPU
/// every block would silently get the first block's tile).
#[test]
fn blocks_of_a_cluster_naming_different_tiles_are_reported() {
    use coop_host::{LaunchConfig, TensorMap};
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let data = device.upload(&vec![1.0f32; 64 * 32]).unwrap();
    let map = TensorMap::<[[f32; 32]; 8]>::new(&device, &data, [64, 32]).unwrap();
    let mut out = device.zeros::<f32>(2 * 256).unwrap();
    let e = program
        .launch(
            coop_test_kernels::tensor_copies::tensor_multicast_own_rows,
            LaunchConfig::new(2, 256).with_cluster(2),
            (&map, &mut out),
        )
        .expect_err("blocks loading different tiles in one multicast");
    let message = e.to_string();
    eprintln!("{message}");
    for part in [
        "of the cluster loads the tile at [8, 0] where block 0 loads the one at [0, 0]",
        "tensor_copies.rs",
        "names the same source in the same load",
    ] {
        assert!(message.contains(part), "missing {part:?} in: {message}");
    }
}

/// The blocks of a multicast group name the same members: a block that
/// names others is reported with both calls and both groups.
#[test]
fn blocks_of_a_group_naming_different_members_are_reported() {
    use coop_host::LaunchConfig;
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let input = device.upload(&vec![7u32; 256]).unwrap();
    let mut out = device.zeros::<u32>(4 * 256).unwrap();
    let e = program
        .launch(
            coop_test_kernels::tensor_copies::multicast_among_mismatched,
            LaunchConfig::new(4, 256).with_cluster(4),
            (&input, &mut out),
        )
        .expect_err("blocks of one group naming different members");
    let message = e.to_string();
    eprintln!("{message}");
    for part in [
        "multicasts to blocks [0, 1",
        "made to blocks [0, 1",
        "tensor_copies.rs",
        "start_multicast_among",
    ] {
        assert!(message.contains(part), "missing {part:?} in: {message}");
    }
}

/// A block's multicast group includes the block and lies in the cluster:
/// members that leave the calling block out, or name a block past the
/// cluster's last, stop the launch at `start_multicast_among`.
#[test]
fn multicast_members_outside_the_rules_are_refused() {
    use coop_host::LaunchConfig;
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let mut out = device.zeros::<u32>(4).unwrap();
    for (cluster, members, expected) in [
        (4, 0b0001u32, "`members` leaves out the calling block"),
        (
            2,
            0b0110,
            "`members` has a bit set past the cluster's last block",
        ),
    ] {
        let e = program
            .launch(
                coop_test_kernels::tensor_copies::multicast_among_members,
                LaunchConfig::new(4, 64).with_cluster(cluster),
                (members, &mut out),
            )
            .expect_err("members outside the rules");
        let message = e.to_string();
        eprintln!("{message}");
        for part in [
            expected,
            "Pipeline::start_multicast_among",
            "tensor_copies.rs",
        ] {
            assert!(message.contains(part), "missing {part:?} in: {message}");
        }
    }
    // The members of each block's own group, in the cluster, pass.
    program
        .launch(
            coop_test_kernels::tensor_copies::multicast_among_members,
            LaunchConfig::new(4, 64).with_cluster(1),
            (1u32, &mut out),
        )
        .unwrap();
    assert_eq!(device.download(&out).unwrap(), [1; 4]);
}

/// A block that skips a multicast load leaves the cluster waiting for it:
/// the CPU backend reports the wait instead of hanging.
#[test]
fn a_block_skipping_a_multicast_load_is_reported_not_hung() {
    use coop_host::{LaunchConfig, TensorMap};
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let data = device.upload(&vec![1.0f32; 64 * 32]).unwrap();
    let map = TensorMap::<[[f32; 32]; 8]>::new(&device, &data, [64, 32]).unwrap();
    let mut out = device.zeros::<f32>(2 * 256).unwrap();
    let e = program
        .launch(
            coop_test_kernels::tensor_copies::tensor_multicast_skipped,
            LaunchConfig::new(2, 256).with_cluster(2),
            (&map, &mut out),
        )
        .expect_err("a skipped multicast load");
    let message = e.to_string();
    eprintln!("{message}");
    assert!(message.contains("tensor_copies.rs"), "{message}");
}

/// The bulk-copy engine needs a store's destination on a multiple of 16
/// bytes and inside the buffer: both refused at the call, naming the rule
/// or the buffer, on the CPU backend as on a GPU.
#[test]
fn a_bulk_store_off_16_bytes_or_past_the_end_is_refused() {
    use coop_host::LaunchConfig;
    let device = Device::cpu();
    let program = device.load(&TEST_KERNELS_PTX).unwrap();
    let values = device.upload(&vec![1u32; 64]).unwrap();
    for (at, rule) in [
        ([2u32, 64], "must lie on a multiple of 16 bytes"),
        ([0, 100], "out"),
    ] {
        let at_buffer = device.upload(&at).unwrap();
        let mut out = device.zeros::<u32>(128).unwrap();
        let mut seen = device.zeros::<u32>(64).unwrap();
        let e = program
            .launch(
                coop_test_kernels::tensor_copies::bulk_store_u32,
                LaunchConfig::new(1, 64),
                (&values, &at_buffer, &mut out, &mut seen),
            )
            .expect_err("a refused bulk store");
        let message = e.to_string();
        eprintln!("{message}");
        assert!(
            message.contains(rule),
            "{at:?}: missing {rule:?} in: {message}"
        );
        assert!(message.contains("tensor_copies.rs"), "{message}");
    }
}

/// A stage's reads down a column of 32 x 32 `f32` tiles: 32 bank
/// transactions a request on rows laid out one after another, 4 when the
/// copy engine swizzled them over 128 bytes, with the same sums.
#[test]
fn swizzled_tiles_read_down_a_column_in_four_transactions() {
    use coop::memory::tile::Swizzled;
    use coop_host::{Cpu, LaunchConfig, TensorMap};
    use coop_test_kernels::tensor_copies as k;
    let data: Vec<f32> = (0..64 * 32).map(|i| (i % 29) as f32).collect();
    let expected: Vec<f32> = data.chunks(32).map(|r| r.iter().sum()).collect();
    let line = include_str!("kernels/src/tensor_copies.rs")
        .lines()
        .position(|l| l.contains("// row-sum-read"))
        .unwrap() as u32
        + 1;
    // The row sums through tiles of `$tile`, and the transactions of the
    // column reads' requests.
    macro_rules! row_sums {
        ($kernel:expr, $tile:ty) => {{
            let map = TensorMap::<$tile>::cpu(&data, [64, 32]).unwrap();
            let mut sums = vec![0f32; 64];
            let report = Cpu::new()
                .launch($kernel, LaunchConfig::new(2, 32), (&map, &mut sums))
                .unwrap();
            assert_eq!(sums, expected);
            let site = report.shared_at_line(line)[0];
            (site.requests, site.transactions)
        }};
    }
    assert_eq!(
        row_sums!(k::tensor_row_sums_plain, [[f32; 32]; 32]),
        (64, 64 * 32)
    );
    assert_eq!(
        row_sums!(k::tensor_row_sums_swizzled, Swizzled<[[f32; 32]; 32], 128>),
        (64, 64 * 4)
    );
}
