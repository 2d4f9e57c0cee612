//! The multi-warp tile kernels of `coop-test-kernels` (`multi_warp`): a
//! host reference for every field, and the runs the CPU backend
//! (`tests/cpu_backend.rs`) and the GPU suite (`tests/gpu.rs`) share.

use crate::kernels::multi_warp::{self as k, MULTI_WARP_FIELDS};
use coop_host::{Device, Error, LaunchConfig, Program};

/// Threads of every case: two blocks of 1024.
pub const THREADS: usize = 2048;

/// The values: below 1000, a few multiples of 97 in some tiles only.
pub fn values() -> Vec<u32> {
    (0..THREADS as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % 997)
        .collect()
}

/// The host's fields for tiles of `n` threads.
pub fn reference(n: usize) -> Vec<u32> {
    let v = values();
    let mut out = Vec::with_capacity(MULTI_WARP_FIELDS * THREADS);
    for g in 0..THREADS {
        let in_block = g % 1024;
        let tile = &v[g - g % n..g - g % n + n];
        let r = in_block % n;
        let half = &v[g - g % (n / 2)..g - g % (n / 2) + n / 2];
        let wide: u64 = tile.iter().map(|&x| x as u64 * 7).sum();
        out.extend([
            r as u32,
            n as u32,
            (in_block / n) as u32,
            (1024 / n) as u32,
            tile[5],
            tile.iter().any(|x| x % 97 == 0) as u32,
            tile.iter().all(|&x| x < 999) as u32,
            tile.iter().sum(),
            wide as u32 ^ (wide >> 32) as u32,
            tile[..=r].iter().sum(),
            tile[..r].iter().sum(),
            (r / 32) as u32,
            *half.iter().max().unwrap(),
        ]);
    }
    out
}

/// Runs the kernel for tiles of `n` threads of `program` on `device`.
pub fn run(device: &Device, program: &Program, n: usize) -> Result<Vec<u32>, Error> {
    let values = device.upload(&values())?;
    let mut out = device.zeros::<u32>(MULTI_WARP_FIELDS * THREADS)?;
    let cfg = LaunchConfig::new(2, 1024);
    let args = (&values, &mut out);
    match n {
        64 => program.launch(k::multi_warp_64, cfg, args)?,
        128 => program.launch(k::multi_warp_128, cfg, args)?,
        256 => program.launch(k::multi_warp_256, cfg, args)?,
        512 => program.launch(k::multi_warp_512, cfg, args)?,
        1024 => program.launch(k::multi_warp_1024, cfg, args)?,
        _ => panic!("no multi-warp kernel for tiles of {n}"),
    }
    device.download(&out)
}

/// Every size of `sizes` on `device`, against the host; the first
/// difference named.
pub fn check(device: &Device, program: &Program, sizes: &[usize]) {
    for &n in sizes {
        let got = run(device, program, n).unwrap_or_else(|e| panic!("tiles of {n}: {e}"));
        let want = reference(n);
        if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
            panic!(
                "tiles of {n}: thread {} field {}: got {}, expected {}",
                i / MULTI_WARP_FIELDS,
                i % MULTI_WARP_FIELDS,
                got[i],
                want[i]
            );
        }
    }
}

/// Every size, 64 to 1024 (see [`check`]).
pub fn check_all(device: &Device, program: &Program) {
    check(device, program, &[64, 128, 256, 512, 1024]);
}

/// [`k::guarded_tile_scans_128`] on `n` elements in blocks of 256, against
/// the host, for lengths around the tile and block edges.
pub fn check_guarded(device: &Device, program: &Program) {
    for n in [1usize, 127, 128, 129, 255, 1000, 5000] {
        let input: Vec<u32> = (0..n as u32).map(|i| i * 3 + 1).collect();
        let d_in = device.upload(&input).unwrap();
        let mut out = device.zeros::<u32>(2 * n).unwrap();
        program
            .launch(
                k::guarded_tile_scans_128,
                LaunchConfig::for_elements(n, 256),
                (&d_in, &mut out),
            )
            .unwrap_or_else(|e| panic!("guarded tile scans, n {n}: {e}"));
        let got = device.download(&out).unwrap();
        for i in 0..n {
            let tile = i - i % 128;
            let end = (tile + 128).min(n);
            let total: u32 = input[tile..end].iter().sum();
            let running: u32 = input[tile..=i].iter().sum();
            assert_eq!(
                (got[2 * i], got[2 * i + 1]),
                (total, running),
                "guarded tile scans, n {n}, element {i}"
            );
        }
    }
}
