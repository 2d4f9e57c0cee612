//! Reductions over several devices on the CPU backend's emulated devices
//! (the GPUs of a machine run the same checks in `gpu.rs`).

use coop_host::multi::{Devices, Reducer};
use coop_host::{Buffer, Error};
use coop_tests::kernels::{self, MatMul};
use coop_tests::{multi_cases, TEST_KERNELS_PTX};

#[test]
fn sharded_reductions_match_host_references_on_one_to_four_devices() {
    for count in 1..=4 {
        let devices = Devices::cpu(count).unwrap();
        let programs = devices.load(&TEST_KERNELS_PTX).unwrap();
        let runs = multi_cases::check_all(&devices, &programs);
        eprintln!("{runs} reductions checked on {}", devices.describe());
    }
}

/// The devices' totals are combined in rank order: an ordered matrix
/// product, which is not commutative, comes out as over one array.
#[test]
fn a_user_operator_combines_the_devices_totals_in_rank_order() {
    let (data, want) = multi_cases::ordered_matrices();
    for count in [2, 3] {
        let devices = Devices::cpu(count).unwrap();
        let programs = devices.load(&TEST_KERNELS_PTX).unwrap();
        let per = data.len().div_ceil(count);
        let buffers = data.chunks(per).map(|c| Buffer::Cpu(c.to_vec())).collect();
        let shards = devices.shards(buffers).unwrap();
        let got = Reducer::new(&devices)
            .unwrap()
            .reduce_with(
                &programs,
                kernels::reduce_mat2_product_once,
                MatMul,
                &shards,
            )
            .unwrap();
        assert_eq!(got, want, "ordered product over {count} devices");
    }
}

#[test]
fn a_set_needs_distinct_devices() {
    let err = Devices::cpu(0).unwrap_err();
    assert!(err.to_string().contains("at least one device"), "{err}");
    // Checked before any GPU is opened, so the same on every machine.
    let err = Devices::gpus(&[1, 0, 1]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Shards {
                call: "Devices::gpus",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("GPU 1 is listed twice (ranks 0 and 2)"),
        "{err}"
    );
    let err = Devices::gpus(&[]).unwrap_err();
    assert!(err.to_string().contains("at least one device"), "{err}");
}
