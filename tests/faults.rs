//! Kernel faults on the CPU backend: a write past the end of an `Out`, an
//! `unwrap` of `None` and an explicit `panic!` each stop the launch with an
//! error naming the kernel, the block, the thread, the kernel's
//! `file:line:col` and the message (for an `Out`, its parameter name, the
//! index and the length); the GPU prints the same coordinates and location
//! (`tests/gpu.rs`).

use coop::cpu::{PanicLocation, Violation};
use coop_host::{Cpu, Error, LaunchConfig};
use coop_tests::kernels::faults::{fault_explicit_panic, fault_out_of_bounds, fault_unwrap_none};

/// The line of `tests/kernels/src/lib.rs` holding `marker`.
fn line_of(marker: &str) -> u32 {
    coop_tests::marked_line(include_str!("kernels/src/lib.rs"), marker)
}

fn panic_of(err: Error) -> (String, u32, String, PanicLocation) {
    let Error::Emulation(e) = err else {
        panic!("expected a CPU-backend report, got {err}")
    };
    let text = e.to_string();
    let Violation::Panic {
        thread,
        message,
        location,
    } = *e.violation
    else {
        panic!("expected a panic, got {text}")
    };
    assert_eq!(e.block, coop::Dim3::new(1, 0, 0), "{text}");
    (text, thread, message, location.expect("a location"))
}

#[test]
fn an_out_of_bounds_write_names_the_parameter_index_length_and_line() {
    let mut out = vec![0u32; 100];
    let err = Cpu::new()
        .launch(
            fault_out_of_bounds,
            LaunchConfig::new(2, 64),
            (70, &mut out),
        )
        .unwrap_err();
    let Error::Emulation(e) = err else {
        panic!("expected a CPU-backend report, got {err}")
    };
    let text = e.to_string();
    let Violation::OutOfBounds {
        buffer,
        call,
        index,
        len,
        thread,
        location: Some(at),
    } = &*e.violation
    else {
        panic!("expected an out-of-bounds access, got {text}")
    };
    assert_eq!(e.block, coop::Dim3::new(1, 0, 0), "{text}");
    assert_eq!(
        (buffer.as_str(), *call, *index, *len, *thread),
        ("out", "Out::write", 100, 100, 6)
    );
    assert!(at.file.ends_with("kernels/src/lib.rs"), "{at}");
    assert_eq!(at.line, line_of("fault: out of bounds"));
    assert!(
        text.starts_with("kernel `fault_out_of_bounds`, block (1, 0, 0): thread 6 panicked at "),
        "{text}"
    );
    assert!(
        text.contains(
            ": Out::write: index 100 is out of bounds for a buffer of 100 elements (the \
             kernel's parameter `out`)"
        ),
        "{text}"
    );
}

#[test]
fn an_unwrap_of_none_and_an_explicit_panic_name_their_line() {
    let input = [0u32; 8];
    let mut out = vec![0u32; 128];
    let err = Cpu::new()
        .launch(
            fault_unwrap_none,
            LaunchConfig::new(2, 64),
            (65, &input[..], &mut out),
        )
        .unwrap_err();
    let (_, thread, message, at) = panic_of(err);
    assert_eq!(thread, 1);
    assert!(
        message.contains("`Option::unwrap()` on a `None` value"),
        "{message}"
    );
    assert_eq!(at.line, line_of("fault: unwrap on None"));

    let err = Cpu::new()
        .launch(
            fault_explicit_panic,
            LaunchConfig::new(2, 64),
            (127, &mut out),
        )
        .unwrap_err();
    let (_, thread, message, at) = panic_of(err);
    assert_eq!(thread, 63);
    assert_eq!(message, "thread 127 gives up");
    assert_eq!(at.line, line_of("fault: explicit panic"));
}

#[test]
fn a_kernel_without_the_fault_runs_to_the_end() {
    let mut out = vec![0u32; 128];
    Cpu::new()
        .launch(
            fault_out_of_bounds,
            LaunchConfig::new(2, 64),
            (1000, &mut out),
        )
        .unwrap();
    assert_eq!(out, (0..128).collect::<Vec<u32>>());
}
