//! The launch-bound kernels of `coop-test-kernels` (`launch_bounds`): host
//! references and the checks the CPU backend (`tests/launch_bounds.rs`)
//! and the GPU suite (`tests/gpu.rs`) share.

use crate::kernels::launch_bounds::{self as k, MIX_TERMS};
use coop_host::{Device, Dim3, Error, LaunchConfig, LaunchProblem, Program, ThreadLimit};

/// The input of the launch-bound kernels, `n` elements.
pub fn input(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 9)
        .collect()
}

/// The host's `out` of the block sums for blocks of `block` threads.
pub fn block_sum_reference(input: &[u32], block: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(input.len());
    for chunk in input.chunks(block) {
        let total = chunk.iter().fold(0u32, |a, &x| a.wrapping_add(x));
        out.extend(std::iter::repeat_n(total, chunk.len()));
    }
    out
}

/// The host's `out` of the mixes.
pub fn mix_reference(input: &[u32]) -> Vec<u32> {
    let n = input.len();
    (0..n)
        .map(|g| {
            let v: Vec<u32> = (0..MIX_TERMS).map(|j| input[(g + 97 * j) % n]).collect();
            let mut acc = 0u32;
            for i in 0..MIX_TERMS {
                for j in i + 1..MIX_TERMS {
                    acc = acc.wrapping_add(v[i].wrapping_mul(v[j]) ^ (i * j) as u32);
                }
            }
            acc
        })
        .collect()
}

/// Runs every launch-bound kernel on `device` beside its unbounded twin
/// and checks both against the host; checks that a block above
/// `max_threads` is refused with the bound named. Returns the cases run.
pub fn check_all(device: &Device, program: &Program) -> Result<usize, Error> {
    let mut cases = 0;
    let n = 5000;
    let data = input(n);
    let input = device.upload(&data)?;
    for block in [64u32, 128, 256] {
        for bounded in [true, false] {
            let mut out = device.zeros::<u32>(n)?;
            let config = LaunchConfig::for_elements(n, block);
            if bounded {
                program.launch(k::bounded_block_sum, config, (&input, &mut out))?;
            } else {
                program.launch(k::unbounded_block_sum, config, (&input, &mut out))?;
            }
            assert_eq!(
                device.download(&out)?,
                block_sum_reference(&data, block as usize),
                "block sums, blocks of {block}, bounded: {bounded}"
            );
            cases += 1;
        }
    }
    let mix = mix_reference(&data);
    for capped in [true, false] {
        let mut out = device.zeros::<u32>(n)?;
        let config = LaunchConfig::for_elements(n, 128);
        if capped {
            program.launch(k::capped_mix, config, (&input, &mut out))?;
        } else {
            program.launch(k::uncapped_mix, config, (&input, &mut out))?;
        }
        assert_eq!(device.download(&out)?, mix, "mix, capped: {capped}");
        cases += 1;
    }
    // A block above the bound: refused before the driver sees it, with the
    // bound named; the unbounded twin takes it.
    let mut out = device.zeros::<u32>(n)?;
    let err = program
        .launch(
            k::bounded_block_sum,
            LaunchConfig::for_elements(n, 512),
            (&input, &mut out),
        )
        .unwrap_err();
    match &err {
        Error::InvalidLaunch {
            kernel: "bounded_block_sum",
            problem:
                LaunchProblem::TooManyThreads {
                    threads: 512,
                    max: 256,
                    limit: ThreadLimit::LaunchBounds,
                    ..
                },
        } => {}
        other => panic!("expected the launch bound, got {other:?}"),
    }
    assert!(
        err.to_string().contains("max_threads"),
        "the message names the bound: {err}"
    );
    program.launch(
        k::unbounded_block_sum,
        LaunchConfig::for_elements(n, 512),
        (&input, &mut out),
    )?;
    assert_eq!(device.download(&out)?, block_sum_reference(&data, 512));
    cases += 1;
    // A fixed block shape: the kernel's own shape runs, and any other is
    // refused with the shape named.
    let mut mirror = device.zeros::<u32>(3 * 256)?;
    program.launch(
        k::fixed_shape_mirror,
        LaunchConfig::new(3, Dim3::new(32, 8, 1)),
        (&mut mirror,),
    )?;
    let want: Vec<u32> = (0..3 * 256u32)
        .map(|g| {
            let (x, y) = (g % 32, (g % 256) / 32);
            1000 * (7 - y) + (31 - x)
        })
        .collect();
    assert_eq!(device.download(&mirror)?, want, "the fixed-shape kernel");
    cases += 1;
    for shape in [
        Dim3::new(256, 1, 1),
        Dim3::new(8, 32, 1),
        Dim3::new(32, 4, 1),
    ] {
        let err = program
            .launch(
                k::fixed_shape_mirror,
                LaunchConfig::new(3, shape),
                (&mut mirror,),
            )
            .unwrap_err();
        match &err {
            Error::InvalidLaunch {
                kernel: "fixed_shape_mirror",
                problem: LaunchProblem::BlockShape { block, required },
            } if *block == shape && *required == Dim3::new(32, 8, 1) => {}
            other => panic!("expected the block shape, got {other:?}"),
        }
        assert!(
            err.to_string().contains("`#[kernel(block = (32, 8))]`"),
            "the message names the shape as written: {err}"
        );
    }
    cases += 1;
    // The occupancy search stays within the bound.
    let best = program.occupancy_block_size(k::bounded_block_sum, |_| 0)?;
    assert!(best.block_threads <= 256 && best.block_threads % 32 == 0);
    assert!(best.blocks_per_multiprocessor >= 1);
    let free = program.occupancy_block_size(k::unbounded_block_sum, |_| 0)?;
    assert!(
        free.block_threads * free.blocks_per_multiprocessor
            >= best.block_threads * best.blocks_per_multiprocessor / 2
    );
    Ok(cases + 1)
}
