//! Transform-reductions, arg-min/arg-max, counts and deterministic sums on
//! the CPU backend (the GPU runs the same checks in `gpu.rs`).

use coop_host::{Device, ProgramRef};
use coop_tests::transform_cases::check_all;

#[test]
fn transform_reductions_match_host_references() {
    let runs = check_all(&Device::cpu(), ProgramRef::Cpu);
    eprintln!("{runs} transform-reductions checked on the CPU backend");
}

/// A transform-reduction kernel launched without tickets (the second of
/// two launches would map the partial results again) stops with a message
/// that says how to launch it.
#[test]
fn a_transform_reduction_without_tickets_says_how_to_launch_it() {
    use coop_tests::kernels::transform_index_weighted;
    let input = vec![1i64; 100];
    let mut partials = vec![0i64; 3];
    let err = coop_host::Cpu::new()
        .launch(
            transform_index_weighted,
            coop_host::LaunchConfig::new(2, 64),
            (&input, &mut partials, &mut Vec::<u32>::new()),
        )
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("reduce_grid_map: a transform-reduction finishes in one launch")
            && text.contains("Reducer::transform_reduce_with"),
        "{text}"
    );
}
