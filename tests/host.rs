//! Host-side behaviour that needs no GPU: typed descriptors and errors.

use coop::kernel::params::{OutSlice, Slice, Value};
use coop::Kernel;
use coop_host::{Error, Gpu};
use coop_tests::kernels;
use std::any::TypeId;

fn params_of<K: Kernel>(_: K) -> TypeId
where
    K::Params: 'static,
{
    TypeId::of::<K::Params>()
}

#[test]
fn kernel_descriptors_name_the_entry_and_list_non_handle_parameters() {
    use coop_examples::kernels::dot::dot;
    assert_eq!(<dot as Kernel>::NAME, "dot");
    assert_eq!(
        params_of(dot),
        TypeId::of::<(Slice<f32>, Slice<f32>, OutSlice<f32>)>()
    );
    assert_eq!(
        params_of(kernels::shuffles_triple_8),
        TypeId::of::<(
            Slice<kernels::Triple>,
            Slice<u32>,
            OutSlice<kernels::Triple>
        )>()
    );
    assert_eq!(
        params_of(kernels::ranks_4),
        TypeId::of::<(OutSlice<u32>,)>()
    );
}

mod scalars {
    use coop::prelude::*;
    #[kernel]
    pub fn axpy(grid: Grid, a: f32, x: &[f32], y: &[f32], out: Out<f32>, n: u64) {
        let i = grid.thread_rank();
        if (i as u64) < n {
            out.write(i, a * x[i] + y[i]);
        }
    }
}

#[test]
fn value_parameters_are_passed_by_value() {
    assert_eq!(
        params_of(scalars::axpy),
        TypeId::of::<(
            Value<f32>,
            Slice<f32>,
            Slice<f32>,
            OutSlice<f32>,
            Value<u64>
        )>()
    );
}

#[test]
fn opening_a_gpu_without_a_driver_is_a_typed_error_not_a_panic() {
    match Gpu::new(0) {
        Err(Error::NoDriver) => {
            assert!(!Gpu::driver_present());
            let msg = Error::NoDriver.to_string();
            assert!(msg.contains("libcuda.so"), "{msg}");
        }
        Err(Error::NoDevice { ordinal, count }) => assert_eq!((ordinal, count), (0, 0)),
        Ok(gpu) => assert!(gpu.limits().sm >= 70, "{:?}", gpu.limits()),
        Err(other) => panic!("unexpected error opening device 0: {other}"),
    }
    if let Err(e) = Gpu::new(1000) {
        assert!(
            matches!(e, Error::NoDriver | Error::NoDevice { ordinal: 1000, .. }),
            "{e}"
        );
    }
}

#[test]
fn kernels_refuse_to_run_outside_a_launch() {
    let payload = std::panic::catch_unwind(|| coop::this_thread_block().sync()).unwrap_err();
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .expect("a message");
    assert!(msg.contains("outside a kernel launch"), "{msg}");
    assert!(
        msg.contains("coop_host::Cpu"),
        "names the CPU backend: {msg}"
    );
}

#[test]
fn a_derived_device_copy_struct_goes_up_through_a_kernel_and_down() {
    coop_tests::check_user_types(&coop_host::Device::cpu());
}
